// EurekaClaw UI: follow a session live. The server sends events.jsonl as server-sent events;
// after each burst the live part of the page is fetched again, so the page shows exactly
// what the session's files say, whoever started the run.
(function () {
  "use strict";
  const live = document.getElementById("live");
  if (!live || !window.EventSource) return;
  const list = document.getElementById("events");
  let timer = null;

  function refresh(closeIfStopped) {
    timer = null;
    return fetch(live.dataset.live, { credentials: "same-origin" })
      .then((r) => (r.ok ? r.text() : Promise.reject(r.status)))
      .then((html) => {
        live.innerHTML = html;
        const summary = document.getElementById("summary");
        if (closeIfStopped && summary && summary.dataset.running === "no") source.close();
      })
      .catch(() => {});
  }

  function describe(ev) {
    const parts = [ev.ts ? ev.ts.slice(11, 19) : "", ev.kind || "event"];
    for (const key of ["name", "lemma_id", "state", "status", "level", "attempt", "question", "message", "reason"]) {
      if (ev[key] !== undefined && ev[key] !== "" && ev[key] !== null) parts.push(key + "=" + ev[key]);
    }
    return parts.join(" ");
  }

  const source = new EventSource(live.dataset.events);
  source.onmessage = function (msg) {
    let ev;
    try { ev = JSON.parse(msg.data); } catch (e) { return; }
    if (list) {
      const item = document.createElement("li");
      item.textContent = describe(ev);
      list.appendChild(item);
      list.scrollTop = list.scrollHeight;
    }
    if (!timer) timer = setTimeout(refresh, 250);
    if (ev.kind === "session_stopped") {
      setTimeout(refresh, 300);
    }
  };
  source.onerror = function () {
    // the stream ends when the session is not running: refresh once so the page is final,
    // and stop reconnecting (Resume reloads the page, which follows the run again)
    refresh(true);
  };
})();
