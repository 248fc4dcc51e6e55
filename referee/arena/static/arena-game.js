/* A game's page: the web view's player (player.js, with the game's renderer.js) showing the
   game's record (`data-record`: its JSON, fetched once) or following it live (`data-live`:
   server-sent events: a snapshot, then each ply, then the result). */
(function () {
  "use strict";
  const root = document.getElementById("app");
  if (!root) return;

  function message(text) {
    root.replaceChildren();
    const p = document.createElement("p");
    p.className = "hint";
    p.textContent = text;
    root.append(p);
  }

  async function showRecord(url) {
    const response = await fetch(url, { credentials: "same-origin" });
    if (!response.ok) { message("The record cannot be shown."); return; }
    Referee.startPlayer(root, await response.json(), { live: false });
  }

  function followLive(url) {
    const events = new EventSource(url);
    let player = null;
    events.addEventListener("snapshot", (event) => {
      const data = JSON.parse(event.data);
      if (!data.header) { message("Waiting for the game to start…"); return; }
      player = Referee.startPlayer(root, data, { live: true });
      if (data.result) { player.finish(data.result, data.outcome); events.close(); }
    });
    events.addEventListener("ply", (event) => {
      const data = JSON.parse(event.data);
      if (player) player.push(data.ply, data.frame, data.accepted_at);
    });
    events.addEventListener("result", (event) => {
      const data = JSON.parse(event.data);
      if (player) player.finish(data.result, data.outcome);
      events.close();
      const again = document.createElement("a");
      again.href = location.pathname;
      again.textContent = "The game is over: reload for its record.";
      root.after(again);
    });
    events.addEventListener("open", () => { if (player) player.setConnected(true); });
    events.addEventListener("error", () => {
      if (player) player.setConnected(false);
      else if (events.readyState === EventSource.CLOSED) message("This game is not being played now.");
    });
  }

  if (root.dataset.live) followLive(root.dataset.live);
  else if (root.dataset.record) showRecord(root.dataset.record).catch((e) => message(String(e)));
})();
