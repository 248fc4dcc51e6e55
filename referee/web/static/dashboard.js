/* The dashboard: games in progress (click to watch live), the archive of finished games (click to
   replay) and, when tournaments are served, their standings and progress, and for a staged
   format its group tables, bracket or Swiss rounds. It refetches a list only when the server
   pushes word that something changed. */
(function () {
  "use strict";
  const ARCHIVE_ROWS = 200; // newest records listed
  // Names and text a bot's author chose, shown as the player and the terminal show them:
  // controls and bidi overrides as visible escapes (Referee.printable, player.js).
  const shown = (text) => Referee.printable(text);

  function cell(row, content, cls) {
    const td = row.insertCell();
    if (cls) td.className = cls;
    if (content instanceof Node) td.append(content); else td.textContent = content === null || content === undefined ? "" : shown(content);
    return td;
  }
  function link(href, text) { const a = document.createElement("a"); a.href = href; a.textContent = text; return a; }
  function side(name, colour) { const s = document.createElement("span"); s.className = "side-" + colour; s.textContent = shown(name || "?"); return s; }
  /* What ended a game as people read it: the game's own ending (king-lost) or the reason. */
  function why(game) { return game.ending || game.reason; }
  /* A result without a winner in words, from the server's one word for it (`result`): a double
     forfeit (neither bot started playing) is a loss for both, never a draw. */
  const NO_WINNER = { draw: "draw", "double-forfeit": "double forfeit", void: "void" };
  function result(game) {
    return (game.winner ? game.winner + " wins" : NO_WINNER[game.result] || "draw") + " by " + why(game);
  }
  function outcome(game, unfinished) { return game.finished ? result(game) : unfinished; }
  /* Every bot fault of a player, "4 out-of-turn, 1 timeout" (the server orders them, most
     frequent first); a count never wraps apart from its reason. */
  function faults(counts) {
    const span = document.createElement("span");
    Object.entries(counts || {}).forEach(([reason, n], i) => {
      const entry = document.createElement("span");
      entry.className = "fault";
      entry.dataset.reason = reason;
      entry.textContent = n + " " + reason;
      if (i) span.append(", ");
      span.append(entry);
    });
    return span;
  }
  /* A table; a header is aligned as its column's cells are (numbers to the right), so that a
     value stands under its own header. */
  function table(headers, rows, fill, empty) {
    if (!rows.length) { const p = document.createElement("p"); p.className = "empty"; p.textContent = empty; return p; }
    const t = document.createElement("table");
    const head = t.createTHead().insertRow();
    const body = t.createTBody();
    rows.forEach((item) => fill(body.insertRow(), item));
    const first = body.rows[0];
    headers.forEach((h, i) => {
      const th = document.createElement("th");
      th.textContent = h;
      if (first.cells[i] && first.cells[i].classList.contains("num")) th.className = "num";
      head.append(th);
    });
    return t;
  }
  /* An Elo value as the terminal writes it: signed, "+0" for zero. */
  function signed(value) { const r = Math.round(value); return (r >= 0 ? "+" : "") + r; }

  async function getJSON(url) {
    const response = await fetch(url);
    if (!response.ok) throw new Error(url + ": " + response.status);
    return response.json();
  }

  /* Which record each live game writes (its id in the archive): a move of the live game moves
     that record's row too, so the list of records never lags the game. */
  let liveRecords = {};

  async function showLive() {
    const data = await getJSON("/api/live");
    liveRecords = {};
    for (const m of data.matches) if (m.record) liveRecords[m.id] = m.record;
    const box = document.getElementById("live");
    const playing = data.matches.filter((m) => !m.finished).reverse();
    box.replaceChildren(table(["game", "", "blue", "orange", "plies", "state"], playing, (row, m) => {
      row.dataset.live = m.id;
      cell(row, link("/live/" + encodeURIComponent(m.id), m.title));
      cell(row, m.game);
      cell(row, side(m.players.blue, "blue"));
      cell(row, side(m.players.orange, "orange"));
      cell(row, m.plies, "num").dataset.plies = m.id;
      cell(row, outcome(m, "in progress"));
    }, "no game is being played now"));
  }

  async function showArchive() {
    const data = await getJSON("/api/archive");
    const box = document.getElementById("archive");
    const shown = data.records.slice(0, ARCHIVE_ROWS);
    box.replaceChildren(table(["record", "game", "blue", "orange", "plies", "result"], shown, (row, r) => {
      row.dataset.record = r.id;
      cell(row, link("/replay/" + r.id.split("/").map(encodeURIComponent).join("/"), r.id.replace(/^\d+\//, "")));
      cell(row, r.game);
      cell(row, side(r.players.blue, "blue"));
      cell(row, side(r.players.orange, "orange"));
      cell(row, r.plies, "num").dataset.recordPlies = r.id;
      cell(row, outcome(r, "unfinished"));
    }, data.folders ? "no records in the served folders" : "no folders served (give them to `referee serve`)"));
    if (data.records.length > shown.length) {
      const more = document.createElement("p");
      more.className = "muted";
      more.textContent = "and " + (data.records.length - shown.length) + " older records";
      box.append(more);
    }
  }

  /* Tournaments: standings, progress, games being played and the latest results. */
  function tournamentSection(t) {
    const section = document.createElement("section");
    section.className = "tournament";
    section.dataset.tournament = t.id;
    const title = document.createElement("h2");
    section.append(title);
    if (t.error) { title.textContent = "tournament"; section.append(t.error); return section; }
    title.textContent = shown(t.name) + " (" + t.game + ")";
    const c = t.counts;
    const done = (c.finished || 0) + (c.void || 0);
    const line = document.createElement("div");
    line.className = "muted";
    line.dataset.progress = done + "/" + t.total;
    line.textContent = done + " of " + t.total + " games played · " + (c.running || 0) + " playing · " +
      (t.not_played ? t.not_played + " not played: the SPRT stopped the match"
        : (c.pending || 0) + " waiting") + (c.void ? " · " + c.void + " void" : "");
    if (t.plan && t.plan.stages.length && t.plan.stages[0].kind !== "table") {
      line.textContent += " · " + (t.plan.finished ? "finished" : "stage: " + t.plan.current);
    }
    const bar = document.createElement("div");
    bar.className = "progress";
    const fill = document.createElement("div");
    fill.style.width = (t.total ? (100 * done) / t.total : 0) + "%";
    bar.append(fill);
    section.append(line, bar);
    if (t.match) {
      /* A match's folder: its own figures, the lines `referee match` prints. */
      const figures = document.createElement("pre");
      figures.className = "match-figures";
      figures.textContent = t.match.lines.join("\n");
      section.append(figures);
    }
    if (t.plan && t.plan.stages.length && t.plan.stages[0].kind !== "table") section.append(planView(t.plan));
    section.append(table(["#", "player", "pts", "games", "W", "D", "L", "Elo", "95% CI", "faults"], t.standings, (row, s) => {
      row.dataset.player = s.name;
      cell(row, s.rank, "num");
      cell(row, s.name);
      [s.points, s.games, s.wins, s.draws, s.losses].forEach((v) => cell(row, v, "num"));
      cell(row, s.elo === null ? "-" : signed(s.elo), "num");
      cell(row, s.elo_low === null ? "" : signed(s.elo_low) + " .. " + signed(s.elo_high), "num");
      cell(row, faults(s.faults), "faults");
    }, "no players"));
    const note = document.createElement("p");
    note.className = "muted";
    note.textContent = t.rating_note;
    section.append(note);
    if (t.running.length) {
      const h = document.createElement("h2");
      h.textContent = "Playing now";
      section.append(h, table(["#", "blue", "orange", ""], t.running, (row, g) => {
        row.dataset.game = g.number;
        cell(row, g.number, "num");
        cell(row, side(g.blue, "blue"));
        cell(row, side(g.orange, "orange"));
        if (g.live) cell(row, link("/live/" + g.live, "watch live"));
        else if (g.record_id) cell(row, link("/replay/" + g.record_id, "the game so far"));
        else cell(row, "");
      }, ""));
    }
    const h = document.createElement("h2");
    h.textContent = "Latest results";
    section.append(h, table(["#", "blue", "orange", "result", "plies", ""], t.latest, (row, g) => {
      row.dataset.game = g.number;
      cell(row, g.number, "num");
      cell(row, side(g.blue, "blue"));
      cell(row, side(g.orange, "orange"));
      cell(row, g.state === "void" ? "void (" + g.reason + ")" : result(g));
      cell(row, g.plies, "num");
      cell(row, g.record_id ? link("/replay/" + g.record_id, "replay") : "");
    }, "no game finished yet"));
    return section;
  }

  /* A staged format's stages: group tables (who advances, how ties were broken), the bracket
     (seeds, points, who went through and how) or the Swiss rounds and standings. */
  function heading(text) { const h = document.createElement("h3"); h.textContent = text; return h; }
  function seeded(name, seed) { return name === null ? "(bye)" : (seed === null ? name : name + " (" + seed + ")"); }
  function groupTable(group) {
    return table(["#", "player", "games", "W", "D", "L", "pts", "", "note"], group.lines, (row, l) => {
      row.dataset.player = l.name;
      if (l.advances) row.className = "advances";
      cell(row, l.position, "num");
      cell(row, l.name);
      [l.games, l.wins, l.draws, l.losses, l.points].forEach((v) => cell(row, v, "num"));
      cell(row, l.advances ? "advances" : "");
      cell(row, l.note, "muted");
    }, "no players");
  }
  function bracketTable(ties) {
    return table(["tie", "higher seed", "lower seed", "points", "through", "by"], ties, (row, tie) => {
      row.dataset.tie = tie.label;
      cell(row, tie.label);
      cell(row, seeded(tie.first, tie.first_seed));
      cell(row, seeded(tie.second, tie.second_seed));
      cell(row, tie.second === null ? "" : tie.first_points + "–" + tie.second_points, "num");
      cell(row, tie.winner || "", "through");
      cell(row, tie.decided_by);
    }, "no ties");
  }
  function swissRounds(stage) {
    const parts = stage.rounds.map((r) => {
      const box = document.createElement("div");
      box.append(heading("Round " + r.number + (r.bye ? " (bye: " + r.bye + ")" : "")));
      box.append(table(["board", "blue", "orange", "result"], r.pairs, (row, p) => {
        row.dataset.game = p.game;
        cell(row, r.pairs.indexOf(p) + 1, "num");
        cell(row, side(p.blue, "blue"));
        cell(row, side(p.orange, "orange"));
        cell(row, p.result || "playing");
      }, ""));
      return box;
    });
    parts.push(heading("Swiss standings"), table(["#", "player", "score", "Buchholz", "BH cut-1", "S-B", "byes"], stage.standings, (row, l) => {
      row.dataset.player = l.name;
      cell(row, l.rank, "num");
      cell(row, l.name);
      [l.score, l.buchholz, l.buchholz_cut1, l.sonneborn_berger, l.byes].forEach((v) => cell(row, v, "num"));
    }, ""));
    return parts;
  }
  function planView(plan) {
    const box = document.createElement("div");
    box.className = "plan";
    plan.stages.forEach((stage) => {
      const part = document.createElement("div");
      part.className = "stage";
      part.dataset.stage = stage.name;
      part.dataset.kind = stage.kind;
      part.append(heading(stage.name + (stage.name === plan.current ? " (playing)" : "")));
      if (stage.kind === "groups") {
        stage.groups.forEach((g) => {
          const group = document.createElement("div");
          group.className = "group";
          group.dataset.group = g.name;
          const name = document.createElement("h4");
          name.textContent = shown(g.name);
          group.append(name, groupTable(g));
          part.append(group);
        });
      } else if (stage.kind === "bracket") part.append(bracketTable(stage.ties));
      else if (stage.kind === "swiss") part.append(...swissRounds(stage));
      if (stage.note) {  // a Swiss that ended before its rounds: when and why
        const note = document.createElement("p");
        note.className = "muted";
        note.textContent = stage.name + " " + stage.note;
        part.append(note);
      }
      box.append(part);
    });
    if (plan.finished && plan.placings.length) {
      const order = document.createElement("div");
      order.className = "placings";
      order.append(heading("Final order"));
      const notes = plan.placing_notes || {};
      order.append(table(["#", "player", "decided by"], plan.placings, (row, name) => {
        row.dataset.player = name;
        cell(row, plan.placings.indexOf(name) + 1, "num");
        cell(row, name);
        cell(row, notes[name] || "", "muted");
      }, "no players"));
      box.append(order);
    }
    return box;
  }

  async function showTournaments() {
    const data = await getJSON("/api/tournaments");
    document.getElementById("tournaments").replaceChildren(...data.tournaments.map(tournamentSection));
  }

  /* A refresh asked for while one runs is done once after it: never more than one at a time. */
  function coalesced(fetcher) {
    let busy = false, again = false;
    const run = async () => {
      if (busy) { again = true; return; }
      busy = true;
      try { await fetcher(); } catch (error) { console.error(error); }
      busy = false;
      if (again) { again = false; run(); }
    };
    return run;
  }
  const refreshLive = coalesced(showLive);
  const refreshArchive = coalesced(showArchive);
  const refreshTournaments = coalesced(showTournaments);
  document.getElementById("refresh-archive").addEventListener("click", refreshArchive);
  refreshLive();
  refreshArchive();
  refreshTournaments();

  const events = new EventSource("/api/events");
  /* A game that starts is listed with the records at once (unfinished), and again once it ends. */
  events.addEventListener("match", () => { refreshLive(); refreshArchive(); });
  events.addEventListener("tournament", () => { refreshTournaments(); refreshArchive(); });
  events.addEventListener("progress", (event) => {
    const data = JSON.parse(event.data);
    for (const td of document.querySelectorAll("#live td[data-plies]")) {
      if (td.dataset.plies === data.id) td.textContent = data.plies;
    }
    const record = liveRecords[data.id];
    for (const td of document.querySelectorAll("#archive td[data-record-plies]")) {
      if (record && td.dataset.recordPlies === record) td.textContent = data.plies;
    }
  });
  /* After the first connection, an "open" is the server back (a demo serves each game's
     tournament in turn on the same address): everything shown may have changed. */
  let connected = false;
  events.addEventListener("open", () => {
    refreshLive();
    if (connected) { refreshTournaments(); refreshArchive(); }
    connected = true;
  });
})();
