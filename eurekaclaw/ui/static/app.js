// EurekaClaw UI: follow a session live. The server sends events.jsonl as server-sent events;
// after each burst the live part of the page is fetched again, so the page shows exactly
// what the session's files say, whoever started the run. What the files do not hold while a
// lemma is worked on (in progress, checking, reviewing, which attempt) and the model calls in
// flight come from the events themselves and are laid over the DAG while the run lasts; a
// lemma's outcome (proved, failed, refuted and its level) is always the files' word.
(function () {
  "use strict";
  const live = document.getElementById("live");
  if (!live || !window.EventSource) return;
  const list = document.getElementById("events");
  const ticker = document.getElementById("ticker");
  const clock = document.getElementById("clock");
  const callList = document.getElementById("calls");
  let timer = null;

  // what the event log says so far
  const lemmas = {}; // lemma id -> {state, attempt}
  let calls = {}; // call id -> {role, lemma_id, stage, since, tokens}
  let runStart = null;
  let runEnd = null;

  const ACTIVE = { in_progress: "in progress", checking: "checking", reviewing: "reviewing" };
  const OPEN = ["pending", "in_progress"]; // file states an event may refine

  function when(ts) {
    if (!ts) return null;
    const t = Date.parse(String(ts).replace(/(\.\d{3})\d+/, "$1"));
    return Number.isNaN(t) ? null : t;
  }

  function running() {
    const summary = document.getElementById("summary");
    return !!summary && summary.dataset.running === "yes";
  }

  function elapsed(ms) {
    let s = Math.max(0, Math.floor(ms / 1000));
    if (s < 60) return s + "s";
    let m = Math.floor(s / 60);
    s %= 60;
    if (m < 60) return m + "m" + String(s).padStart(2, "0") + "s";
    const h = Math.floor(m / 60);
    m %= 60;
    return h + "h" + String(m).padStart(2, "0") + "m";
  }

  function liveWord(info) {
    return ACTIVE[info.state] + (info.attempt ? " · attempt " + info.attempt : "");
  }

  // the event-only states, laid over the DAG boxes and the lemma chips the files call open
  function overlay() {
    const on = running();
    live.querySelectorAll("#dag g[data-lemma]").forEach((g) => {
      const info = lemmas[g.dataset.lemma];
      const text = g.querySelector(".nst");
      if (g.dataset.live) {
        delete g.dataset.live;
        delete g.dataset.attempt;
        if (text && text.dataset.files !== undefined) text.textContent = text.dataset.files;
      }
      if (!on || !info || !ACTIVE[info.state] || OPEN.indexOf(g.dataset.status) < 0) return;
      g.dataset.live = info.state;
      g.dataset.attempt = info.attempt || "";
      if (text) {
        if (text.dataset.files === undefined) text.dataset.files = text.textContent;
        text.textContent = liveWord(info);
      }
    });
    live.querySelectorAll("article.lemma").forEach((article) => {
      const info = lemmas[article.id.replace(/^lemma-/, "")];
      const chip = article.querySelector(".lemma-state");
      if (!chip) return;
      if (chip.dataset.files !== undefined) chip.textContent = chip.dataset.files;
      delete chip.dataset.live;
      if (!on || !info || !ACTIVE[info.state] || OPEN.indexOf(chip.dataset.status) < 0) return;
      if (chip.dataset.files === undefined) chip.dataset.files = chip.textContent;
      chip.dataset.live = info.state;
      chip.textContent = liveWord(info);
    });
  }

  // the clock and the calls in flight: redrawn every second from the events, not per event
  function tick() {
    if (!ticker) return;
    const on = running();
    if (runStart === null) {
      ticker.hidden = true;
      return;
    }
    ticker.hidden = false;
    const end = on ? Date.now() : runEnd;
    clock.textContent = end === null ? "–" : elapsed(end - runStart);
    clock.dataset.state = on ? "running" : "stopped";
    callList.textContent = "";
    if (!on) return;
    const now = Date.now();
    Object.keys(calls)
      .map((k) => calls[k])
      .sort((a, b) => a.since - b.since)
      .forEach((c) => {
        const item = document.createElement("li");
        item.className = "call";
        item.dataset.role = c.role;
        const where = c.lemma_id ? " · lemma " + c.lemma_id : "";
        const stage = c.stage ? " · " + c.stage : "";
        const tokens = c.tokens ? " · " + Number(c.tokens).toLocaleString("en") + " tokens" : "";
        item.textContent = "⟳ model call: " + c.role + where + stage + " · " + elapsed(now - c.since) + tokens;
        callList.appendChild(item);
      });
  }

  function note(ev) {
    const t = when(ev.ts);
    if (ev.kind === "session_started" || ev.kind === "session_resumed") {
      runStart = t;
      runEnd = null;
      calls = {};
    } else if (ev.kind === "session_stopped") {
      runEnd = t;
      calls = {};
    } else if (ev.kind === "lemma" && ev.lemma_id) {
      lemmas[ev.lemma_id] = { state: ev.state, attempt: ev.attempt };
    } else if (ev.kind === "llm_call" && ev.call !== undefined) {
      if (ev.phase === "start") {
        calls[ev.call] = { role: ev.role || "model", lemma_id: ev.lemma_id, stage: ev.stage, since: t || Date.now() };
      } else if (ev.phase === "tokens" && calls[ev.call]) {
        calls[ev.call].tokens = ev.tokens;
      } else if (ev.phase === "end") {
        delete calls[ev.call];
      }
    }
  }

  function refresh(closeIfStopped) {
    timer = null;
    return fetch(live.dataset.live, { credentials: "same-origin" })
      .then((r) => (r.ok ? r.text() : Promise.reject(r.status)))
      .then((html) => {
        live.innerHTML = html;
        overlay();
        if (window.eurekaMath) window.eurekaMath(live);
        tick();
        const summary = document.getElementById("summary");
        if (closeIfStopped && summary && summary.dataset.running === "no") source.close();
      })
      .catch(() => {});
  }

  function describe(ev) {
    const parts = [ev.ts ? ev.ts.slice(11, 19) : "", ev.kind || "event"];
    for (const key of ["name", "phase", "role", "lemma_id", "state", "status", "level", "attempt", "tokens", "question", "message", "reason"]) {
      if (ev[key] !== undefined && ev[key] !== "" && ev[key] !== null) parts.push(key + "=" + ev[key]);
    }
    return parts.join(" ");
  }

  const source = new EventSource(live.dataset.events);
  source.onmessage = function (msg) {
    let ev;
    try { ev = JSON.parse(msg.data); } catch (e) { return; }
    note(ev);
    if (ev.kind === "llm_call" || ev.kind === "session_started" || ev.kind === "session_resumed") tick();
    // calls are shown in the ticker; the log keeps only their ends (never one line per update)
    if (ev.kind === "llm_call" && ev.phase !== "end") return;
    if (list) {
      const item = document.createElement("li");
      item.textContent = describe(ev);
      list.appendChild(item);
      list.scrollTop = list.scrollHeight;
    }
    if (ev.kind === "lemma") overlay(); // at once: the files are re-read after the burst
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
  setInterval(tick, 1000);
})();
