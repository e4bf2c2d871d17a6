// Curia seat page: a person plays one seat of a game in the browser. It is a client of
// curia.v1 like any other, over gRPC-Web (JSON) on this page's own origin (a refusal is
// then an answer, not a failed request: the console stays clean):
// WatchGame with the seat's token follows the game (each view drawn by the server,
// `draw_board`), SubmitDecision sends a decision. The token comes in the link's fragment
// (never sent to a server), moves to this tab's session storage and leaves the address bar.
"use strict";
(function () {
  const root = document.getElementById("seat");
  if (!root) { return; }
  const gameId = root.dataset.game;
  const SERVICE = "/curia.v1.GameService/";
  const STORAGE_KEY = "curia-seat:" + gameId;
  // codes after which trying again cannot help
  const FINAL_CODES = new Set(["not_found", "unauthenticated", "invalid_argument",
                               "permission_denied", "unimplemented"]);
  const $ = (id) => document.getElementById(id);
  let token = null;
  let view = null;       // the latest view of this seat (proto3 JSON)
  let over = false;
  let sending = false;
  let sentAt = -1;       // the version this seat's last decision was taken at
  let offered = "";      // the decisions the forms offer now (redrawn only when they change)
  let again = null;      // a decision refused as stale, to send once more on the next view
  const log = [];        // the last decisions, newest last

  class CallError extends Error {
    constructor(code, message) { super(message); this.code = code; }
  }

  function text(id, value) {
    $(id).textContent = value;
    delete $(id).dataset.kind;
  }
  function setStatus(value) { text("status", value); }
  function sleep(ms) { return new Promise((done) => setTimeout(done, ms)); }

  // The token from "#token=..." into session storage, and out of the address bar.
  function takeToken() {
    const match = /^#(?:.*&)?token=([^&]+)/.exec(window.location.hash);
    if (match) {
      sessionStorage.setItem(STORAGE_KEY, decodeURIComponent(match[1]));
      history.replaceState(null, "", window.location.pathname + window.location.search);
    }
    return sessionStorage.getItem(STORAGE_KEY);
  }

  function requestId() {
    const bytes = crypto.getRandomValues(new Uint8Array(16));
    return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  }

  // gRPC status numbers, by the names the page reacts to
  const CODES = { 3: "invalid_argument", 4: "deadline_exceeded", 5: "not_found",
                  7: "permission_denied", 8: "resource_exhausted", 9: "failed_precondition",
                  10: "aborted", 12: "unimplemented", 14: "unavailable",
                  16: "unauthenticated" };

  // A gRPC-Web message: 5 bytes (flags, then the length, big-endian), then the JSON.
  function envelope(message) {
    const payload = new TextEncoder().encode(JSON.stringify(message));
    const out = new Uint8Array(5 + payload.length);
    new DataView(out.buffer).setUint32(1, payload.length);
    out.set(payload, 5);
    return out;
  }

  // The refusal its trailers say ("grpc-status: 16\r\ngrpc-message: ..."), or null.
  function refusal(trailers) {
    const fields = {};
    for (const line of trailers.split("\r\n")) {
      const at = line.indexOf(":");
      if (at > 0) { fields[line.slice(0, at).trim().toLowerCase()] = line.slice(at + 1).trim(); }
    }
    const code = Number(fields["grpc-status"] || 0);
    return code === 0 ? null : new CallError(CODES[code] || "unknown",
                                             decodeURIComponent(fields["grpc-message"] || ""));
  }

  // One call over gRPC-Web (JSON): its answers as they arrive. A refusal is thrown
  // (gRPC-Web answers HTTP 200 and puts the status in its trailers).
  async function* call(method, message) {
    const response = await fetch(SERVICE + method, {
      method: "POST", cache: "no-store", credentials: "omit",
      headers: { "Content-Type": "application/grpc-web+json", "X-Grpc-Web": "1" },
      body: envelope(message) });
    if (!response.ok) { throw new CallError("unavailable", response.statusText); }
    const early = response.headers.get("grpc-status");  // a trailers-only answer
    if (early && early !== "0") {
      throw refusal("grpc-status: " + early + "\r\ngrpc-message: "
                    + (response.headers.get("grpc-message") || ""));
    }
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let buffer = new Uint8Array(0);
    for (;;) {
      while (buffer.length >= 5) {
        const size = new DataView(buffer.buffer, buffer.byteOffset).getUint32(1);
        if (buffer.length < 5 + size) { break; }
        const flags = buffer[0];
        const payload = decoder.decode(buffer.subarray(5, 5 + size));
        buffer = buffer.slice(5 + size);
        if (flags & 0x80) {
          while (!(await reader.read()).done) { /* the end: read the body to its close */ }
          const refused = refusal(payload);
          if (refused) { throw refused; }
          return;
        }
        yield JSON.parse(payload || "{}");
      }
      const { value, done } = await reader.read();
      if (done) { throw new CallError("unavailable", "the connection was cut"); }
      const joined = new Uint8Array(buffer.length + value.length);
      joined.set(buffer);
      joined.set(value, buffer.length);
      buffer = joined;
    }
  }

  // -- drawing ---------------------------------------------------------------------
  function seatName(seat) {
    const names = view.seatNames || [];
    return seat < names.length ? names[seat] : "seat " + seat;
  }

  function minutes(ms) {
    const seconds = Math.max(0, Math.ceil(ms / 1000));
    return Math.floor(seconds / 60) + ":" + String(seconds % 60).padStart(2, "0");
  }

  function drawClock() {
    if (!view) { return; }
    const deadline = Number(view.deadlineUnixMs || 0);
    const parts = [];
    if (deadline && !over) { parts.push("time to decide: " + minutes(deadline - Date.now())); }
    if (view.bankLeftMs !== undefined) { parts.push("your bank: " + minutes(Number(view.bankLeftMs))); }
    text("clock", parts.join(" · "));
  }

  function drawLog() {
    const list = $("log");
    list.replaceChildren(...log.slice(-12).map((line) => {
      const item = document.createElement("li");
      item.textContent = line;
      return item;
    }));
  }

  function drawResult() {
    const box = $("result");
    const result = view.result;
    box.hidden = !result;
    if (!result) { return; }
    const scores = (result.scores || []).slice().sort((a, b) => (a.rank || 0) - (b.rank || 0));
    const lines = scores.map((score) => {
      const seat = score.seat || 0;
      const figures = (score.orderedFigures || []).map(
        (f) => f.name.replaceAll("_", " ") + " " + Number(f.value || 0));
      const gone = score.forfeited ? " (forfeited" + (score.forfeitReason ? ": " + score.forfeitReason : "") + ")" : "";
      const you = seat === view.seat ? " — you" : "";
      return (score.rank || "?") + ". " + seatName(seat) + you + (figures.length ? ": " + figures.join(", ") : "") + gone;
    });
    if (result.reason) { lines.unshift("ended by: " + result.reason); }
    text("result-text", lines.join("\n"));
  }

  // A decision's parts as the form shows them: its words after the verb, "a>b" as two.
  function partsOf(notation) {
    return notation.split(" ").slice(1).flatMap((word) => word.split(">"));
  }

  function button(label, notation) {
    const item = document.createElement("button");
    item.type = "button";
    item.className = "choice";
    item.textContent = label;
    item.dataset.decision = notation;
    item.addEventListener("click", () => send(notation));
    return item;
  }

  // A typed form for a verb with several legal decisions: one list per part, each
  // offering only what keeps the decision legal given the parts before it.
  function typedForm(verb, notations) {
    const form = document.createElement("form");
    form.className = "typed";
    form.dataset.verb = verb;
    const label = document.createElement("span");
    label.className = "verb";
    label.textContent = verb;
    form.append(label);
    const decisions = notations.map((n) => ({ notation: n, parts: partsOf(n) }));
    const width = Math.max(...decisions.map((d) => d.parts.length));
    const selects = [];
    for (let i = 0; i < width; i += 1) {
      const select = document.createElement("select");
      select.name = "part-" + i;
      select.setAttribute("aria-label", verb + ", part " + (i + 1));
      select.addEventListener("change", () => refill(i + 1));
      selects.push(select);
      form.append(select);
    }
    const sendButton = document.createElement("button");
    sendButton.type = "submit";
    sendButton.textContent = "Send";
    form.append(sendButton);
    const matching = (upTo) => decisions.filter((d) =>
      selects.slice(0, upTo).every((s, i) => (d.parts[i] || "") === s.value));
    function refill(from) {
      for (let i = from; i < width; i += 1) {
        const values = [...new Set(matching(i).map((d) => d.parts[i] || ""))];
        selects[i].replaceChildren(...values.map((value) => {
          const option = document.createElement("option");
          option.value = value;
          option.textContent = value || "(nothing)";
          return option;
        }));
        selects[i].hidden = values.length === 1 && values[0] === "";
      }
    }
    refill(0);
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const chosen = matching(width)[0];
      if (chosen) { send(chosen.notation); }
    });
    return form;
  }

  function drawDecisions() {
    const box = $("decisions");
    const answered = Number(view.version || 0) === sentAt;  // its next view is coming
    const legal = over || answered ? [] : (view.legalDecisions || []).map((d) => d.notation);
    $("decide").hidden = !legal.length;
    if (legal.join("\n") === offered) { return; }  // a choice half made stays as it is
    offered = legal.join("\n");
    box.replaceChildren();
    if (!legal.length) { return; }
    const byVerb = new Map();
    for (const notation of legal) {
      const verb = notation.split(" ")[0];
      byVerb.set(verb, [...(byVerb.get(verb) || []), notation]);
    }
    for (const [verb, notations] of byVerb) {
      const row = document.createElement("div");
      row.className = "verb-row";
      row.append(notations.length === 1 ? button(notations[0], notations[0])
                                        : typedForm(verb, notations));
      box.append(row);
    }
    setBusy(sending);
  }

  function setBusy(busy) {
    for (const control of $("decisions").querySelectorAll("button, select")) {
      control.disabled = busy;
    }
  }

  function deciding() {
    return !over && (view.legalDecisions || []).length > 0
      && Number(view.version || 0) !== sentAt;
  }

  function whoseTurn() {
    const movers = view.toMove || [];
    if (over) { return "game over"; }
    if (view.status === "GAME_STATUS_WAITING_FOR_SEATS") { return "waiting for seats"; }
    if (deciding()) { return sending ? "your turn (sending…)" : "your turn"; }
    return movers.length ? "waiting for " + movers.map(seatName).join(", ") : "waiting";
  }

  // The status badge, and the page's state for tests and styles: "deciding" only while
  // the decisions offered can be sent.
  function publish() {
    setStatus(whoseTurn());
    root.dataset.version = String(Number(view.version || 0));
    root.dataset.state = over ? "over" : sending ? "sending"
      : deciding() ? "deciding" : "waiting";
  }

  function show(update) {
    view = update.view || {};
    view.seat = view.seat === undefined ? null : view.seat;
    over = view.status === "GAME_STATUS_FINISHED";
    if (update.decision) {
      const d = update.decision;
      const shown = d.secret ? "(a secret decision)" : d.notation;
      log.push("v" + Number(d.version || 0) + " " + seatName(d.seat || 0) + ": " + shown);
    }
    if (Number(view.version || 0) > sentAt && $("note").dataset.kind === "sent") {
      text("note", "");  // that decision is in the game now
    }
    $("board").innerHTML = view.boardSvg || "";  // drawn by the game's own renderer
    const name = view.seat === null ? "" : seatName(view.seat);
    text("you", view.seat === null ? "You watch as a spectator."
      : "You play " + name + (name === "seat " + view.seat ? "." : " (seat " + view.seat + ")."));
    text("turn", "Turn " + Number(view.turn || 0) + " · version " + Number(view.version || 0));
    text("pending", view.pending || "");
    drawClock();
    drawLog();
    drawResult();
    drawDecisions();
    publish();
    sendAgain();
  }

  async function send(notation) {
    if (sending || !view) { return; }
    sending = true;
    setBusy(true);
    publish();
    text("note", "sending " + notation + " …");
    const version = Number(view.version || 0);
    try {
      for await (const answer of call("SubmitDecision", {
        gameId, seatToken: token, expectedVersion: String(version),
        expectedLineage: view.lineage || "", decision: { notation },
        requestId: requestId(), observationEncoding: "OBSERVATION_ENCODING_NONE" })) {
        text("note", "sent: " + notation + (answer.duplicate ? " (already in)" : ""));
        $("note").dataset.kind = "sent";
      }
      root.dataset.sent = String(version);
      if (Number(view.version || 0) === version) {
        sentAt = version;  // the stream brings the next view
        drawDecisions();
      }
    } catch (error) {
      if (error.code === "aborted") {  // another seat decided first: once more, if still legal
        again = notation;
        text("note", "the game moved on; " + notation + " goes again if still possible");
      } else {
        text("note", "not accepted: " + error.message);
        root.dataset.refused = String(Number(root.dataset.refused || 0) + 1);
      }
    } finally {
      sending = false;
      setBusy(false);
      publish();
    }
    if (again !== null && Number(view.version || 0) !== version) { sendAgain(); }
  }

  // A decision refused as stale is sent again on the next view, if it is still legal.
  function sendAgain() {
    const notation = again;
    if (notation === null || sending || Number(view.version || 0) === sentAt) { return; }
    again = null;
    const legal = (view.legalDecisions || []).map((d) => d.notation);
    if (!over && legal.includes(notation)) {
      send(notation);
    } else {
      text("note", notation + " is no longer possible: decide again");
    }
  }

  // Follow the game to its end; a cut stream resumes from the last version seen.
  async function follow() {
    let after = 0;
    let lineage = "";
    let pause = 250;
    while (!over) {
      try {
        for await (const update of call("WatchGame", {
          gameId, seatToken: token, afterVersion: String(after), afterLineage: lineage,
          drawBoard: true, observationEncoding: "OBSERVATION_ENCODING_NONE" })) {
          show(update);
          after = Number(update.version || 0);
          lineage = (update.view && update.view.lineage) || "";
          pause = 250;
        }
      } catch (error) {
        if (FINAL_CODES.has(error.code)) {
          setStatus("refused: " + error.message);
          return;
        }
        if (!over) { setStatus("reconnecting (" + error.message + ")"); }
      }
      if (!over) {
        await sleep(pause);
        pause = Math.min(pause * 2, 8000);
      }
    }
  }

  // a seat's link pasted into this tab: read its token afresh
  window.addEventListener("hashchange", () => {
    if (/token=/.test(window.location.hash)) { takeToken(); window.location.reload(); }
  });
  token = takeToken();
  if (!token) {
    setStatus("no seat");
    text("note", "This page needs a seat's link (it ends with #token=…). Ask whoever created "
      + "the game for yours, or watch as a spectator at /games/" + gameId + ".");
    return;
  }
  setInterval(drawClock, 1000);
  follow();
})();
