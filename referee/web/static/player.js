/* The shared game player: draws one frame of a replay with the game's renderer, and steps,
   plays and jumps through the plies. The data is the replay JSON (referee/replay.py): header,
   plies, frames (state + marks), result, problems. A live game grows it with push()/finish().
   Each game's renderer registers Referee.renderers[game] = function (state, marks) -> <svg>. */
(function () {
  "use strict";
  const SVG_NS = "http://www.w3.org/2000/svg";
  const Referee = (window.Referee = window.Referee || {});
  Referee.renderers = Referee.renderers || {};
  window.refereeLatencies = window.refereeLatencies || [];

  /* Helpers for renderers. */
  Referee.svg = function (tag, attrs, parent) {
    const node = document.createElementNS(SVG_NS, tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value !== null && value !== undefined && value !== false) node.setAttribute(key, value);
    }
    if (parent) parent.appendChild(node);
    return node;
  };
  Referee.markOf = function (square, marks) {
    for (const kind of ["to", "removed", "from"]) {
      if (marks && (marks[kind] || []).includes(square)) return kind;
    }
    return null;
  };
  /* What ended a game as people read it: the game's own ending (king-lost) or the reason. */
  Referee.why = function (result) { return result.ending || result.reason; };
  /* A highlight ring/box for a marked square, drawn by `shape` (a function of class). */
  Referee.drawMark = function (square, marks, shape) {
    const kind = Referee.markOf(square, marks);
    if (kind) shape("mark mark-" + kind).setAttribute("data-square", square);
  };
  Referee.text = function (parent, x, y, content, cls) {
    const node = Referee.svg("text", { x: x, y: y, class: cls || "label" }, parent);
    node.textContent = content;
    return node;
  };

  /* Text a bot wrote (a name it chose, an offending line, its stderr) as the terminal shows it
     (referee/printable.py): every control, format (a bidi override, a zero-width mark) and
     separator character written as a visible escape, "\x1b", "\u202e", so that nothing it
     wrote reorders or hides what is around it, and nothing it wrote is lost. With `lines`,
     newlines and tabs are kept (a stderr tail shown as lines). */
  const UNSAFE = /[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}]/gu;
  Referee.printable = function (text, lines) {
    const kept = lines ? String(text).replace(/\r\n/g, "\n") : String(text);
    return kept.replace(UNSAFE, (c) => {
      if (lines && (c === "\n" || c === "\t")) return c;
      const code = c.codePointAt(0);
      return code < 0x100 ? "\\x" + code.toString(16).padStart(2, "0") : "\\u" + code.toString(16).padStart(4, "0");
    });
  };
  const printable = Referee.printable;
  /* A line a bot wrote, quoted as the terminal quotes it (Python's repr): its backslashes
     doubled, so that no text of its own can pass for an escape. */
  function quoted(text) {
    const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
    let body = text.replace(/\\/g, "\\\\").replace(/\n/g, "\\n").replace(/\r/g, "\\r").replace(/\t/g, "\\t");
    if (quote === "'") body = body.replace(/'/g, "\\'");
    return quote + printable(body) + quote;
  }

  function element(tag, cls, text) {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined) node.textContent = text;
    return node;
  }
  function seconds(ms) { return (ms / 1000).toFixed(ms < 10000 ? 2 : 1) + " s"; }
  function millis(ms) { return (ms < 10 ? ms.toFixed(1) : Math.round(ms)) + " ms"; }
  function sideSpan(side, text) { return element("span", "side-" + side, text); }

  /* A game without a renderer (a plug-in that ships none): its `text` rows when its state_json
     has them (docs/new-game.md), else the state as JSON. */
  function genericBoard(state) {
    const rows = Array.isArray(state.text) ? state.text.join("\n") : JSON.stringify(state, null, 1);
    return element("pre", "generic-board", rows);
  }

  function startPly(count, fallback) {
    const match = /[?#&]ply=(\d+)/.exec(location.search + location.hash);
    return match ? Math.min(parseInt(match[1], 10), count) : fallback;
  }

  class Player {
    constructor(root, data, options) {
      this.data = data;
      this.live = Boolean(options.live);
      this.draw = Referee.renderers[data.game];
      this.speed = 700;
      this.timer = null;
      this.thinkTimer = null;
      this.lastMoveAt = performance.now();
      if (this.live && data.accepted_at && data.accepted_at.length && data.server_time) {
        this.lastMoveAt -= data.server_time - data.accepted_at[data.accepted_at.length - 1];
      }
      this.build(root);
      // The opening's moves head the list (blue played the first: the sides alternate), so
      // that the rows are numbered from the start of the game and blue's column holds blue's.
      (this.data.header.opening || []).forEach((move, i) => this.addOpeningCell(move, i % 2 ? "orange" : "blue"));
      this.plies.forEach((ply) => this.addMoveCell(ply));
      this.show(startPly(this.last, this.live ? this.last : 0));
      this.updateThinking();
    }
    get plies() { return this.data.plies; }
    get last() { return this.data.frames.length - 1; }

    build(root) {
      root.textContent = "";
      root.classList.add("referee-player");
      const header = this.data.header;
      const title = element("h1", "rp-title");
      title.append(element("span", "", this.data.game + ": "));
      for (const side of ["blue", "orange"]) {
        if (side === "orange") title.append(element("span", "vs", "vs"));
        title.append(sideSpan(side, printable(header.players[side].name)));
      }
      this.liveBadge = element("span", "rp-live", "LIVE");
      if (this.live) title.append(this.liveBadge);
      const main = element("div", "rp-main");
      this.board = element("div", "rp-board");
      const side = element("div", "rp-side");
      this.status = element("div", "rp-box rp-status");
      this.clocks = element("div", "rp-box rp-clocks");
      this.verdict = element("div", "rp-box rp-verdict");
      const moves = element("div", "rp-box rp-moves");
      this.moveTable = element("table");
      if (header.opening && header.opening.length) {
        // The game started from an opening: its moves came before ply 1, and the bots took over
        // at the start frame.
        const opening = element("div", "rp-opening muted", "opening (before the bots took over): " + header.opening.join(", "));
        opening.dataset.opening = String(header.opening.length);
        moves.append(opening);
      }
      moves.append(this.moveTable);
      this.movesBox = moves;
      side.append(this.status, this.clocks, this.verdict, moves);
      main.append(this.board, side);
      root.append(title, main, this.buildControls());
      Referee.active = this;
    }

    buildControls() {
      const bar = element("div", "rp-controls");
      const button = (label, title, action) => {
        const b = element("button", "", label);
        b.title = title;
        b.dataset.action = title;
        b.addEventListener("click", action);
        bar.append(b);
        return b;
      };
      button("|◀", "start", () => this.jump(0));
      button("◀", "back", () => this.jump(this.index - 1));
      this.playButton = button("play", "play", () => this.toggle());
      button("▶", "next", () => this.jump(this.index + 1));
      button("▶|", "end", () => this.jump(this.last));
      this.slider = element("input");
      this.slider.type = "range";
      this.slider.min = 0;
      this.slider.addEventListener("input", () => this.jump(parseInt(this.slider.value, 10)));
      this.plyLabel = element("span", "rp-ply");
      const speed = element("select");
      for (const [label, ms] of [["slow", 1500], ["normal", 700], ["fast", 250], ["fastest", 60]]) {
        const option = element("option", "", label);
        option.value = ms;
        option.selected = ms === this.speed;
        speed.append(option);
      }
      speed.addEventListener("change", () => { this.speed = parseInt(speed.value, 10); });
      bar.append(this.slider, this.plyLabel, speed);
      return bar;
    }

    /* A move in the list: blue's starts a row, orange's completes it (or starts one of its
       own after another orange move); the rows are numbered one after the other. */
    addCell(side, content) {
      let row = this.moveTable.rows[this.moveTable.rows.length - 1];
      if (side === "blue" || !row || row.cells.length >= 3) {
        row = this.moveTable.insertRow();
        row.insertCell().className = "num";
        row.cells[0].textContent = this.moveTable.rows.length;
        if (side === "orange") row.insertCell();
      }
      row.insertCell().append(content);
    }

    addOpeningCell(move, side) {
      const span = element("span", "opening side-" + side, move);
      span.title = "played by the opening, before the bots took over";
      span.append(element("span", "ms", "opening"));
      this.addCell(side, span);
    }

    addMoveCell(ply) {
      const b = element("button", "side-" + ply.side);
      b.dataset.ply = ply.ply;
      b.append(ply.move, element("span", "ms", millis(ply.time_ms)));
      b.addEventListener("click", () => this.jump(ply.ply));
      this.addCell(ply.side, b);
    }

    jump(index) {
      this.stop();
      this.show(Math.max(0, Math.min(index, this.last)));
    }

    show(index) {
      this.index = index;
      const frame = this.data.frames[index];
      const svg = this.draw ? this.draw(frame.state, frame.marks) : genericBoard(frame.state);
      svg.setAttribute("data-ply", index);
      this.board.replaceChildren(svg);
      this.slider.max = this.last;
      this.slider.value = index;
      this.plyLabel.textContent = "ply " + index + " / " + this.last;
      this.showStatus(frame);
      this.showClocks();
      this.showVerdict();
      for (const b of this.moveTable.querySelectorAll("button.current")) b.classList.remove("current");
      const current = this.moveTable.querySelector('button[data-ply="' + index + '"]');
      if (current) {
        current.classList.add("current");
        const box = this.movesBox;
        const top = current.offsetTop - box.offsetTop;
        if (top < box.scrollTop || top > box.scrollTop + box.clientHeight - 30) box.scrollTop = top - box.clientHeight / 2;
      }
      if (history.replaceState) history.replaceState(null, "", "#ply=" + index);
    }

    showStatus(frame) {
      this.status.textContent = "";
      // Plies count the bots' moves, as the slider and the address do (the game's own count,
      // `state.ply`, includes an opening's moves too).
      if (this.index === this.last && this.data.result) {
        this.status.append("game over after " + this.plies.length + " plies");
      } else {
        this.status.append(sideSpan(frame.state.to_move, frame.state.to_move), " to move, ply " + this.index);
      }
      if (this.index > 0) {
        const move = this.plies[this.index - 1];
        this.status.append(element("br"), "last move: ", sideSpan(move.side, move.move));
      }
    }

    showClocks() {
      this.clocks.textContent = "";
      const used = { blue: [], orange: [] };
      for (const ply of this.plies.slice(0, this.index)) used[ply.side].push(ply.time_ms);
      this.thinking = null;
      const finished = Boolean(this.data.result);
      if (this.live && !finished && this.index === this.last) {
        this.thinking = this.data.frames[this.last].state.to_move;
      }
      for (const side of ["blue", "orange"]) {
        const total = used[side].reduce((a, b) => a + b, 0);
        const lastMs = used[side].length ? used[side][used[side].length - 1] : null;
        const value = element("span", side === this.thinking ? "thinking" : "");
        value.dataset.clock = side;
        const count = used[side].length;
        value.textContent = seconds(total) + " in " + count + (count === 1 ? " move" : " moves") +
          (lastMs === null ? "" : ", last " + millis(lastMs));
        if (side === this.thinking) this.thinkingNode = element("span", "thinking");
        this.clocks.append(sideSpan(side, side), value);
        if (side === this.thinking) value.append(element("br"), this.thinkingNode);
      }
      const tc = this.data.header.time_control;
      const limit = element("span", "muted", "limit " + tc.move_timeout + " s per move (+" + tc.grace + " s grace)");
      this.clocks.append(element("span"), limit);
      this.tickThinking();
    }

    tickThinking() {
      if (this.thinking && this.thinkingNode) {
        this.thinkingNode.textContent = "thinking " + seconds(performance.now() - this.lastMoveAt);
      }
    }

    updateThinking() {
      const wanted = this.live && !this.data.result;
      if (wanted && !this.thinkTimer) this.thinkTimer = setInterval(() => this.tickThinking(), 100);
      if (!wanted && this.thinkTimer) { clearInterval(this.thinkTimer); this.thinkTimer = null; }
    }

    showVerdict() {
      const box = this.verdict;
      box.textContent = "";
      const result = this.data.result;
      const atEnd = this.index === this.last;
      box.hidden = !(atEnd && (result || !this.live || this.data.problems.length));
      if (box.hidden) return;
      if (!result) box.append("unfinished game (no result line)");
      else if (result.void) box.append("VOID by " + result.reason);
      else if (!result.winner) {
        // Neither bot started playing: both lose, as the terminal says; never a draw.
        const forfeit = this.data.outcome === "double-forfeit";
        box.append((forfeit ? "No winner (both lose)" : "Draw") + " by " + Referee.why(result));
      }
      else box.append(sideSpan(result.winner, result.winner + " (" + printable(this.data.header.players[result.winner].name) + ")"), " wins by " + Referee.why(result));
      if (result && result.detail) box.append(element("div", "detail", printable(result.detail)));
      if (result && result.loser_line !== null && result.loser_line !== undefined) {
        box.append(element("div", "offending", "offending line: " + quoted(result.loser_line)));
      }
      for (const problem of this.data.problems) box.append(element("div", "rp-problem", "✗ " + printable(problem)));
      // The last lines each bot wrote to its stderr, as the terminal's summary shows them.
      for (const [side, report] of Object.entries((result && result.bots) || {})) {
        const tail = printable((report.stderr_tail || "").trim(), true);
        if (!tail) continue;
        const shown = element("div", "rp-stderr");
        shown.dataset.side = side;
        shown.append(element("div", "muted", side + " stderr (last lines)"));
        shown.append(element("pre", "", tail.split("\n").slice(-8).join("\n")));
        box.append(shown);
      }
    }

    toggle() {
      if (this.timer) { this.stop(); return; }
      if (this.index >= this.last) this.show(0);
      this.playButton.textContent = "pause";
      const step = () => {
        if (this.index >= this.last) { this.stop(); return; }
        this.show(this.index + 1);
        this.timer = setTimeout(step, this.speed);
      };
      this.timer = setTimeout(step, this.speed);
    }

    stop() {
      if (this.timer) clearTimeout(this.timer);
      this.timer = null;
      this.playButton.textContent = "play";
    }

    onKey(event) {
      if (event.target && ["INPUT", "SELECT", "TEXTAREA"].includes(event.target.tagName) && event.target.type !== "range") return;
      const actions = {
        ArrowLeft: () => this.jump(this.index - 1), ArrowRight: () => this.jump(this.index + 1),
        Home: () => this.jump(0), End: () => this.jump(this.last), " ": () => this.toggle(),
      };
      if (actions[event.key]) { event.preventDefault(); actions[event.key](); }
    }

    /* Live games: a move the referee accepted at `acceptedAt` (wall-clock ms). */
    push(ply, frame, acceptedAt) {
      const following = this.index === this.last && !this.timer;
      this.data.plies.push(ply);
      this.data.frames.push(frame);
      this.addMoveCell(ply);
      this.lastMoveAt = performance.now();
      if (following) this.show(this.last);
      else { this.slider.max = this.last; this.plyLabel.textContent = "ply " + this.index + " / " + this.last; }
      if (following && acceptedAt) {
        requestAnimationFrame(() => {
          window.refereeLatencies.push(performance.timeOrigin + performance.now() - acceptedAt);
        });
      }
    }

    finish(result, outcome) {
      this.data.result = result;
      if (outcome !== undefined) this.data.outcome = outcome;
      this.liveBadge.classList.add("off");
      this.liveBadge.textContent = "FINISHED";
      this.updateThinking();
      this.show(this.index);
    }

    setConnected(connected) {
      if (this.data.result) return;
      this.liveBadge.classList.toggle("off", !connected);
      this.liveBadge.textContent = connected ? "LIVE" : "reconnecting…";
    }
  }

  Referee.Player = Player;
  document.addEventListener("keydown", (event) => { if (Referee.active) Referee.active.onKey(event); });
  Referee.startPlayer = function (root, data, options) {
    return new Player(root, data, options || {});
  };
})();
