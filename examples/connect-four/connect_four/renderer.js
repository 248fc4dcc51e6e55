/* Connect Four: 7 columns a..g, 6 rows 1..6 (bottom up); discs by owner. Draws the state_json
   of rules.py beside it; data-square="a1" .. "g6". The referee's web view finds this file by
   its name, renderer.js, in the game's package. */
(function () {
  "use strict";
  const R = window.Referee;
  const CELL = 60, MARGIN = 30;
  const COLUMNS = "abcdefg";

  R.renderers["connect-four"] = function (state, marks) {
    const width = state.columns * CELL + 2 * MARGIN;
    const height = state.rows * CELL + 2 * MARGIN;
    const svg = R.svg("svg", { viewBox: "0 0 " + width + " " + height, class: "board connect-four" });
    R.svg("rect", { x: 0, y: 0, width: width, height: height, rx: 10, class: "board-bg" }, svg);
    for (let c = 0; c < state.columns; c++) {
      const x = MARGIN + c * CELL + CELL / 2;
      R.text(svg, x, height - 8, COLUMNS[c]);
      if (c === 0) {
        for (let r = 0; r < state.rows; r++) R.text(svg, 12, MARGIN + (state.rows - 1 - r) * CELL + CELL / 2 + 5, String(r + 1));
      }
      for (let r = 0; r < state.rows; r++) {
        const sq = COLUMNS[c] + (r + 1), y = MARGIN + (state.rows - 1 - r) * CELL + CELL / 2;
        // An empty hole: styled here, since the referee's stylesheet knows only its own games.
        R.svg("circle", { cx: x, cy: y, r: 24, class: "hole", style: "fill: #fbf6ea", "data-square": sq }, svg);
        R.drawMark(sq, marks, (cls) => R.svg("circle", { cx: x, cy: y, r: 28, class: cls }, svg));
        const owner = state.discs[sq];
        if (owner) R.svg("circle", { cx: x, cy: y, r: 22, class: "piece stone " + owner, "data-square": sq, "data-owner": owner }, svg);
      }
    }
    return svg;
  };
})();
