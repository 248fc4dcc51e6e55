/* Tic-tac-toe: columns a..c, rows 1..3 (bottom up); X for blue, O for orange. Draws the
   state_json of rules.py beside it; data-square="a1" .. "c3". */
(function () {
  "use strict";
  const R = window.Referee;
  const CELL = 80, MARGIN = 30, SIZE = 3 * CELL + 2 * MARGIN;

  R.renderers["tic-tac-toe"] = function (state, marks) {
    const svg = R.svg("svg", { viewBox: "0 0 " + SIZE + " " + SIZE, class: "board tic-tac-toe" });
    R.svg("rect", { x: 0, y: 0, width: SIZE, height: SIZE, rx: 10, class: "board-bg" }, svg);
    for (let i = 1; i < 3; i++) {
      const at = MARGIN + i * CELL;
      R.svg("line", { x1: at, y1: MARGIN, x2: at, y2: SIZE - MARGIN, class: "line" }, svg);
      R.svg("line", { x1: MARGIN, y1: at, x2: SIZE - MARGIN, y2: at, class: "line" }, svg);
    }
    "abc".split("").forEach((column, c) => {
      R.text(svg, MARGIN + c * CELL + CELL / 2, SIZE - 8, column);
      R.text(svg, 12, MARGIN + (2 - c) * CELL + CELL / 2 + 5, String(c + 1));  // row c + 1
      for (let r = 0; r < 3; r++) {
        const sq = column + (r + 1);
        const x = MARGIN + c * CELL + CELL / 2, y = MARGIN + (2 - r) * CELL + CELL / 2;
        R.drawMark(sq, marks, (cls) => R.svg("rect", { x: x - 34, y: y - 34, width: 68, height: 68, class: cls }, svg));
        const owner = state.cells[sq];
        if (owner) {
          const mark = R.text(svg, x, y + 16, owner === "blue" ? "X" : "O", "piece " + owner);
          mark.setAttribute("text-anchor", "middle");
          mark.setAttribute("font-size", "48");
          mark.setAttribute("data-square", sq);
          mark.setAttribute("data-owner", owner);
        }
      }
    });
    return svg;
  };
})();
