// Curia league pages: every few seconds, the page's own state.json (same origin: the
// gateway's CSP allows nothing else); each of its "sections" (element id -> HTML made and
// escaped by the server, service/web/league_pages.py) replaces that part of the page
// when it changed. No reload, no external fetch; a hidden tab does not ask.
"use strict";
(function () {
  const root = document.querySelector("[data-state]");
  if (!root) { return; }
  const every = Number(root.dataset.pollMs || 2000);
  const status = document.getElementById("status");
  const shown = new Map();
  let busy = false;

  function say(text) { if (status) { status.textContent = text; } }

  async function poll() {
    if (busy || document.hidden) { return; }
    busy = true;
    try {
      const answer = await fetch(root.dataset.state, { cache: "no-store" });
      if (!answer.ok) {
        say(answer.status === 404 ? "gone" : "not updating");
        return;
      }
      const state = await answer.json();
      for (const [id, markup] of Object.entries(state.sections || {})) {
        const part = document.getElementById(id);
        if (part && shown.get(id) !== markup) {
          part.innerHTML = markup;
          shown.set(id, markup);
        }
      }
      say("live");
    } catch (error) {
      say("not updating");
    } finally {
      busy = false;
    }
  }

  setInterval(poll, every);
})();
