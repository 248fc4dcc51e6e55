/* Legionnaires: a checkered board of pawns. Draws the state_json of rules.py beside it (any
   width and height); squares are data-square="a1" and up, rank 1 at the bottom. */
(function () {
  "use strict";
  const R = window.Referee;
  const CELL = 60, MARGIN = 34;

  R.renderers["legionnaires"] = function (state, marks) {
    const w = state.width, h = state.height;
    const at = (sq) => [MARGIN + (sq.charCodeAt(0) - 97) * CELL, MARGIN + (h - Number(sq.slice(1))) * CELL];
    const svg = R.svg("svg", { viewBox: "0 0 " + (w * CELL + 2 * MARGIN) + " " + (h * CELL + 2 * MARGIN), class: "board legionnaires" });
    R.svg("rect", { x: 0, y: 0, width: w * CELL + 2 * MARGIN, height: h * CELL + 2 * MARGIN, rx: 10, class: "board-bg" }, svg);
    for (let f = 0; f < w; f++) {
      for (let r = 1; r <= h; r++) {
        const sq = String.fromCharCode(97 + f) + r;
        const [x, y] = at(sq);
        R.svg("rect", { x: x, y: y, width: CELL, height: CELL, class: "square " + ((f + r) % 2 ? "light" : "dark"), "data-square": sq }, svg);
        R.drawMark(sq, marks, (cls) => R.svg("rect", { x: x + 3, y: y + 3, width: CELL - 6, height: CELL - 6, class: cls }, svg));
      }
      R.text(svg, MARGIN + f * CELL + CELL / 2, h * CELL + MARGIN * 1.5, String.fromCharCode(97 + f));
    }
    for (let r = 1; r <= h; r++) R.text(svg, MARGIN / 2, MARGIN + (h - r) * CELL + CELL / 2, String(r));
    for (const side of ["blue", "orange"]) {
      for (const sq of state.pawns[side]) {
        const [x, y] = at(sq);
        const g = R.svg("g", { class: "piece pawn-piece", "data-square": sq, "data-owner": side }, svg);
        R.svg("circle", { cx: x + CELL / 2, cy: y + CELL / 2, r: 21, class: "pawn " + side }, g);
        R.svg("circle", { cx: x + CELL / 2, cy: y + CELL / 2, r: 10, class: "pawn " + side, opacity: 0.6 }, g);
      }
    }
    return svg;
  };
})();
