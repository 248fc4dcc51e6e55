/* Lasker Morris: the three squares, stones by owner, standing mills, and the stones in hand.
   Draws the state_json of rules.py beside it; every point is data-square="a1".."g7". */
(function () {
  "use strict";
  const R = window.Referee;
  const STEP = 80, MARGIN = 60, FILES = "abcdefg";
  const SIZE = 6 * STEP + 2 * MARGIN;
  const LINES = [
    ["a7", "g7"], ["b6", "f6"], ["c5", "e5"], ["a4", "c4"], ["e4", "g4"], ["c3", "e3"], ["b2", "f2"],
    ["a1", "g1"], ["a7", "a1"], ["b6", "b2"], ["c5", "c3"], ["d7", "d5"], ["d3", "d1"], ["e5", "e3"],
    ["f6", "f2"], ["g7", "g1"],
  ];
  const at = (p) => [MARGIN + FILES.indexOf(p[0]) * STEP, MARGIN + (7 - Number(p[1])) * STEP];

  function line(svg, a, b, cls) {
    const [x1, y1] = at(a), [x2, y2] = at(b);
    R.svg("line", { x1: x1, y1: y1, x2: x2, y2: y2, class: cls }, svg);
  }

  function hands(svg, state) {
    ["blue", "orange"].forEach((side, row) => {
      const y = SIZE + 20 + row * 40;
      const g = R.svg("g", { class: "hand", "data-hand": side, "data-count": state.hands[side] }, svg);
      R.text(g, MARGIN - 40, y, side + " in hand: " + state.hands[side], "hand-text").setAttribute("text-anchor", "start");
      for (let i = 0; i < state.hands[side]; i++) {
        R.svg("circle", { cx: MARGIN + 150 + i * 30, cy: y, r: 12, class: "stone " + side }, g);
      }
    });
  }

  R.renderers["lasker-morris"] = function (state, marks) {
    const svg = R.svg("svg", { viewBox: "0 0 " + SIZE + " " + (SIZE + 90), class: "board lasker-morris" });
    R.svg("rect", { x: 0, y: 0, width: SIZE, height: SIZE, rx: 12, class: "board-bg" }, svg);
    LINES.forEach(([a, b]) => line(svg, a, b, "line"));
    (state.mills || []).forEach((mill) => line(svg, mill[0], mill[2], "mill"));
    for (let i = 0; i < 7; i++) {
      R.text(svg, MARGIN + i * STEP, SIZE - 18, FILES[i]);
      R.text(svg, 20, MARGIN + i * STEP, String(7 - i));
    }
    for (const [point, owner] of Object.entries(state.points)) {
      const [x, y] = at(point);
      R.svg("circle", { cx: x, cy: y, r: 7, class: "point", "data-square": point }, svg);
      R.drawMark(point, marks, (cls) => R.svg("circle", { cx: x, cy: y, r: 31, class: cls }, svg));
      if (owner) {
        R.svg("circle", { cx: x, cy: y, r: 24, class: "piece stone " + owner, "data-square": point, "data-owner": owner }, svg);
      }
    }
    hands(svg, state);
    return svg;
  };
})();
