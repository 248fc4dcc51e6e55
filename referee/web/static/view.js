/* The game page of the server: a recorded game (/replay/<id>) fetched once, or a live game
   (/live/<id>) followed through server-sent events: a snapshot, then one event per ply and one
   for the result. Nothing is polled: the page waits for the server to push. */
(function () {
  "use strict";
  const root = document.getElementById("app");

  function message(text) {
    root.textContent = "";
    const p = document.createElement("p");
    p.className = "referee-player muted";
    p.textContent = text;
    root.append(p);
  }

  async function showRecord(id) {
    const response = await fetch("/api/replay/" + id);
    if (!response.ok) { message("cannot show this record: " + (await response.text())); return; }
    const data = await response.json();
    document.title = "referee: " + data.game + " replay";
    Referee.startPlayer(root, data, { live: false });
  }

  function followLive(id) {
    const events = new EventSource("/api/live/" + encodeURIComponent(id) + "/events");
    let player = null;
    events.addEventListener("snapshot", (event) => {
      const data = JSON.parse(event.data);
      if (!data.header) { message("waiting for the game to start…"); return; }
      document.title = "referee: " + data.game + " live";
      player = Referee.startPlayer(root, data, { live: true });
      if (data.result) { player.finish(data.result); events.close(); }
    });
    events.addEventListener("ply", (event) => {
      const data = JSON.parse(event.data);
      if (player) player.push(data.ply, data.frame, data.accepted_at);
    });
    events.addEventListener("result", (event) => {
      const data = JSON.parse(event.data);
      if (player) player.finish(data.result, data.outcome);
      events.close();
    });
    events.addEventListener("open", () => { if (player) player.setConnected(true); });
    events.addEventListener("error", () => {
      if (player) player.setConnected(false);
      else if (events.readyState === EventSource.CLOSED) message("no such live game");
    });
  }

  const path = location.pathname;
  if (path.startsWith("/live/")) followLive(decodeURIComponent(path.slice("/live/".length)));
  else if (path.startsWith("/replay/")) showRecord(path.slice("/replay/".length)).catch((e) => message(String(e)));
  else message("nothing to show here");
})();
