/* Parts of a page that keep themselves up to date: every element with an id and a
   `data-refresh="SECONDS"` is fetched again (the page's own address, with the ETag of the last
   answer: an unchanged page is a 304 with no body) and replaced by its new version. Nothing
   runs while the page is hidden; a failed fetch is tried again next time. */
(function () {
  "use strict";
  const regions = Array.from(document.querySelectorAll("[data-refresh][id]"));
  if (!regions.length) return;
  const every = 1000 * Math.max(3, Math.min(...regions.map((r) => Number(r.dataset.refresh) || 15)));
  let etag = null;

  async function refresh() {
    if (document.hidden) return;
    const headers = etag ? { "If-None-Match": etag } : {};
    const response = await fetch(location.href, { headers: headers, credentials: "same-origin", cache: "no-store", redirect: "manual" });
    if (response.status !== 200) return;
    etag = response.headers.get("ETag");
    const page = new DOMParser().parseFromString(await response.text(), "text/html");
    for (const region of regions) {
      const fresh = page.getElementById(region.id);
      const current = document.getElementById(region.id);
      if (fresh && current) current.replaceWith(document.adoptNode(fresh));
    }
  }

  function tick() {
    refresh().catch(() => {}).finally(() => setTimeout(tick, every));
  }
  setTimeout(tick, every);
})();
