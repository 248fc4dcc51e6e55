// A version's page while the version is built and checked: asks for its status every second
// and reloads the page when it changes, so the build log and the check games appear as soon
// as they are known. (A separate file: the pages' Content-Security-Policy runs no inline script.)
(function () {
  "use strict";
  const status = document.getElementById("version-status");
  if (!status || status.dataset.waiting !== "true") {
    return;
  }
  async function poll() {
    try {
      const answer = await fetch(status.dataset.poll, {
        credentials: "same-origin",
        headers: { Accept: "application/json" },
      });
      if (answer.ok) {
        const now = await answer.json();
        if (now.status !== status.dataset.status) {
          window.location.reload();
          return;
        }
      }
    } catch (error) {
      // The server is restarting: ask again later.
    }
    window.setTimeout(poll, 1000);
  }
  window.setTimeout(poll, 1000);
})();
