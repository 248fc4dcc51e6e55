/* Lielow: an 8x8 board of stacks; each stack shows its height (discs and a number) and a crown
   on a king. Draws the state_json of rules.py beside it; squares are data-square="a1".."h8". */
(function () {
  "use strict";
  const R = window.Referee;
  const CELL = 64, MARGIN = 34, N = 8;
  const SIZE = N * CELL + 2 * MARGIN;
  const at = (sq) => [MARGIN + (sq.charCodeAt(0) - 97) * CELL, MARGIN + (N - Number(sq.slice(1))) * CELL];

  function crown(g, cx, top) {
    const d = "M" + (cx - 13) + " " + top + " l4 -14 l5 8 l4 -12 l4 12 l5 -8 l4 14 z";
    R.svg("path", { d: d, class: "crown" }, g);
  }

  function stack(svg, s) {
    const [x, y] = at(s.square);
    const cx = x + CELL / 2;
    const g = R.svg("g", {
      class: "piece stack " + s.owner, "data-square": s.square, "data-owner": s.owner,
      "data-height": s.height, "data-king": s.king,
    }, svg);
    const base = y + CELL - 17, step = Math.min(5, 26 / Math.max(1, s.height - 1));
    for (let i = 0; i < s.height; i++) {
      R.svg("ellipse", { cx: cx, cy: base - i * step, rx: 24, ry: 11, class: "disc " + s.owner }, g);
    }
    const top = base - (s.height - 1) * step;
    R.text(g, cx, top, String(s.height), "piece-text");
    if (s.king) crown(g, cx, top - 10);
  }

  R.renderers["lielow"] = function (state, marks) {
    const svg = R.svg("svg", { viewBox: "0 0 " + SIZE + " " + SIZE, class: "board lielow" });
    R.svg("rect", { x: 0, y: 0, width: SIZE, height: SIZE, rx: 10, class: "board-bg" }, svg);
    for (let f = 0; f < N; f++) {
      for (let r = 1; r <= N; r++) {
        const sq = String.fromCharCode(97 + f) + r;
        const [x, y] = at(sq);
        R.svg("rect", { x: x, y: y, width: CELL, height: CELL, class: "square " + ((f + r) % 2 ? "dark" : "light"), "data-square": sq }, svg);
      }
      R.text(svg, MARGIN + f * CELL + CELL / 2, SIZE - MARGIN / 2, String.fromCharCode(97 + f));
      R.text(svg, MARGIN / 2, MARGIN + f * CELL + CELL / 2, String(N - f));
    }
    for (const kind of ["from", "removed", "to"]) {
      for (const sq of (marks && marks[kind]) || []) {
        const [x, y] = at(sq);
        if (R.markOf(sq, marks) === kind) {
          R.svg("rect", { x: x + 3, y: y + 3, width: CELL - 6, height: CELL - 6, class: "mark mark-" + kind, "data-square": sq }, svg);
        }
      }
    }
    state.stacks.forEach((s) => stack(svg, s));
    return svg;
  };
})();
