/* The L game: a 4x4 board with the two L pieces and the two neutral pieces. Draws the state_json
   of rules.py beside it; squares are data-square="x,y" in the spec's coordinates ((1,1) top
   left). */
(function () {
  "use strict";
  const R = window.Referee;
  const CELL = 100, MARGIN = 40;
  const SIZE = 4 * CELL + 2 * MARGIN;
  const at = (x, y) => [MARGIN + (x - 1) * CELL, MARGIN + (y - 1) * CELL];

  R.renderers["l-game"] = function (state, marks) {
    const svg = R.svg("svg", { viewBox: "0 0 " + SIZE + " " + (SIZE + 30), class: "board l-game" });
    R.svg("rect", { x: 0, y: 0, width: SIZE, height: SIZE, rx: 10, class: "board-bg" }, svg);
    for (let x = 1; x <= 4; x++) {
      R.text(svg, MARGIN + (x - 0.5) * CELL, MARGIN / 2, String(x));
      R.text(svg, MARGIN / 2, MARGIN + (x - 0.5) * CELL, String(x));
      for (let y = 1; y <= 4; y++) {
        const [px, py] = at(x, y);
        R.svg("rect", { x: px, y: py, width: CELL, height: CELL, class: "square " + ((x + y) % 2 ? "dark" : "light"), "data-square": x + "," + y }, svg);
      }
    }
    for (const side of ["blue", "orange"]) {
      for (const [x, y] of state[side]) {
        const [px, py] = at(x, y);
        R.svg("rect", { x: px + 4, y: py + 4, width: CELL - 8, height: CELL - 8, rx: 6, class: "piece l-cell " + side, "data-square": x + "," + y, "data-owner": side }, svg);
      }
    }
    for (const [x, y] of state.neutrals) {
      const [px, py] = at(x, y);
      R.svg("circle", { cx: px + CELL / 2, cy: py + CELL / 2, r: 30, class: "piece neutral", "data-square": x + "," + y, "data-owner": "neutral" }, svg);
    }
    for (let x = 1; x <= 4; x++) {
      for (let y = 1; y <= 4; y++) {
        const [px, py] = at(x, y);
        R.drawMark(x + "," + y, marks, (cls) => R.svg("rect", { x: px + 10, y: py + 10, width: CELL - 20, height: CELL - 20, rx: 8, class: cls }, svg));
      }
    }
    const names = R.text(svg, SIZE / 2, SIZE + 15, "blue L " + state.blue_name + "   ·   orange L " + state.orange_name, "hand-text");
    names.setAttribute("text-anchor", "middle");
    return svg;
  };
})();
