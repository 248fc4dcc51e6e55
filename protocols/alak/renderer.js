/* Alak: one line of points a, b, ...; stones by owner, and the points the player to move may
   not take (just captured, or the ko point). Traditional rules add the score and a pending
   pass (a `pass` touches no point, so it marks none). Draws the state_json of rules.py beside
   it; data-square="a", "b", ... */
(function () {
  "use strict";
  const R = window.Referee;
  const STEP = 60, MARGIN = 40, Y = 66, HEIGHT = 150;
  const LETTERS = "abcdefghijklmnopqrstuvwxyz";

  R.renderers["alak"] = function (state, marks) {
    const n = state.size;
    const width = (n - 1) * STEP + 2 * MARGIN;
    const svg = R.svg("svg", { viewBox: "0 0 " + width + " " + HEIGHT, class: "board alak" });
    R.svg("rect", { x: 0, y: 0, width: width, height: HEIGHT, rx: 10, class: "board-bg" }, svg);
    R.svg("line", { x1: MARGIN, y1: Y, x2: MARGIN + (n - 1) * STEP, y2: Y, class: "line" }, svg);
    state.points.forEach((owner, i) => {
      const sq = LETTERS[i], x = MARGIN + i * STEP;
      R.svg("circle", { cx: x, cy: Y, r: 6, class: "point", "data-square": sq }, svg);
      R.drawMark(sq, marks, (cls) => R.svg("circle", { cx: x, cy: Y, r: 26, class: cls }, svg));
      if (owner) R.svg("circle", { cx: x, cy: Y, r: 20, class: "piece stone " + owner, "data-square": sq, "data-owner": owner }, svg);
      if (state.banned.includes(sq)) {
        const g = R.svg("g", { class: "banned", "data-square": sq }, svg);
        R.svg("line", { x1: x - 8, y1: Y + 32, x2: x + 8, y2: Y + 48 }, g);
        R.svg("line", { x1: x + 8, y1: Y + 32, x2: x - 8, y2: Y + 48 }, g);
      }
      R.text(svg, x, Y - 42, sq);
    });
    // Traditional rules: the score (territory + stones + captures) and a pending pass.
    const passer = state.to_move === "blue" ? "orange" : "blue";
    const tally = state.variant === "traditional"
      ? "score: blue " + state.score.blue + ", orange " + state.score.orange +
        (state.passes ? "   (" + passer + " passed)" : "")
      : "stones: blue " + state.stones.blue + ", orange " + state.stones.orange;
    const count = R.text(svg, width / 2, HEIGHT - 22, tally +
      (state.banned.length ? "   (× = may not be played now)" : ""), "hand-text");
    count.setAttribute("text-anchor", "middle");
    return svg;
  };
})();
