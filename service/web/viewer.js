// Curia step-through viewer: frames embedded in the page (gzip + base64), or followed live
// over Server-Sent Events. No external fetch; works from file://.
"use strict";
(function () {
  const root = document.getElementById("viewer");
  if (!root) { return; }
  const $ = (id) => document.getElementById(id);
  const frames = [];
  let index = 0;
  let source = null;
  // the version asked for in the URL ("#60"), shown once its frame is here
  let wanted = versionInHash();
  // a live page: the game's version when the page was made (the stream catches up to it)
  const liveVersion = Number(root.dataset.liveVersion || -1);

  function versionInHash() {
    const match = /^#v?(\d+)$/.exec(window.location.hash);
    return match ? Number(match[1]) : null;
  }

  // the frame at `version`, or the last one before it
  function indexOfVersion(version) {
    let found = 0;
    frames.forEach((frame, i) => { if (frame.version <= version) { found = i; } });
    return found;
  }

  function text(id, value) { $(id).textContent = value; }

  function drawBoard(frame) {
    const board = $("board");
    board.replaceChildren();
    if (frame.svg) {
      board.innerHTML = frame.svg;  // drawn server-side by the game's own renderer
      return;
    }
    const note = document.createElement("p");
    note.className = "muted";
    note.textContent = "No drawing for this game yet: the observation as data.";
    const pre = document.createElement("pre");
    pre.textContent = frame.fallback || "";
    board.append(note, pre);
  }

  function drawList(frame) {
    const list = $("narration");
    list.replaceChildren();
    for (const line of frame.narration || []) {
      const item = document.createElement("li");
      item.textContent = line;
      list.append(item);
    }
  }

  function drawHidden(frame) {
    const box = $("hidden");
    box.replaceChildren();
    box.hidden = !(frame.hidden && frame.hidden.length);
    for (const seat of frame.hidden || []) {
      const details = document.createElement("details");
      const summary = document.createElement("summary");
      summary.textContent = "What " + seat.name + " saw";
      details.append(summary);
      if (seat.svg) {
        const holder = document.createElement("div");
        holder.className = "board";
        holder.innerHTML = seat.svg;
        details.append(holder);
      } else {
        const pre = document.createElement("pre");
        pre.textContent = seat.fallback || "";
        details.append(pre);
      }
      box.append(details);
    }
  }

  function show(i) {
    if (!frames.length) { return; }
    index = Math.max(0, Math.min(frames.length - 1, i));
    const frame = frames[index];
    drawBoard(frame);
    text("decision", frame.decision || "(the game starts)");
    drawList(frame);
    text("pending", frame.pending || "");
    text("to-move", frame.to_move && frame.to_move.length ? frame.to_move.join(", ") : "nobody");
    text("turn", frame.moment || "Turn " + frame.turn);
    $("result").hidden = !frame.result;
    text("result-text", frame.result ? frame.result.join("\n") : "");
    drawHidden(frame);
    const slider = $("slider");
    slider.max = String(frames.length - 1);
    slider.value = String(index);
    slider.setAttribute("aria-valuetext", "version " + frame.version);
    const newest = Math.max(frames[frames.length - 1].version, liveVersion);
    text("position", "version " + frame.version + " of " + newest);
    if (versionInHash() !== frame.version && wanted === null) {
      history.replaceState(null, "", "#" + frame.version);  // a link to this version
    }
    $("first").disabled = $("prev").disabled = index === 0;
    $("next").disabled = $("last").disabled = index === frames.length - 1;
  }

  function step(target) { show(target); }

  $("first").addEventListener("click", () => step(0));
  $("prev").addEventListener("click", () => step(index - 1));
  $("next").addEventListener("click", () => step(index + 1));
  $("last").addEventListener("click", () => step(frames.length - 1));
  $("slider").addEventListener("input", (e) => step(Number(e.target.value)));
  document.addEventListener("keydown", (e) => {
    if (e.target && e.target.id === "slider") { return; }  // the slider moves itself
    if (e.altKey || e.ctrlKey || e.metaKey) { return; }
    const moves = { ArrowLeft: index - 1, ArrowRight: index + 1, Home: 0,
                    End: frames.length - 1 };
    if (e.key in moves) { e.preventDefault(); step(moves[e.key]); }
  });

  function setStatus(value) { text("status", value); }

  window.addEventListener("hashchange", () => {
    const version = versionInHash();
    if (version !== null && frames.length) { show(indexOfVersion(version)); }
  });

  // show the version the URL asks for once it is here; true if it was
  function showWanted() {
    if (wanted === null || !frames.length) { return false; }
    if (frames[frames.length - 1].version < wanted && source) { return false; }
    const target = indexOfVersion(wanted);
    wanted = null;
    show(target);
    return true;
  }

  async function decode(node) {
    const bytes = Uint8Array.from(atob(node.textContent.trim()), (c) => c.charCodeAt(0));
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    return unpack(JSON.parse(await new Response(stream).text()));
  }

  // Frames hold their drawings as numbers into a table of pieces (see page.py).
  function unpack(data) {
    const join = (value) => Array.isArray(value)
      ? value.map((n) => data.pieces[n]).join("") : value;
    const whole = (item) => {
      item.svg = join(item.svg);
      item.fallback = join(item.fallback);
      if (Array.isArray(item.hidden)) { item.hidden.forEach(whole); }
      return item;
    };
    return data.frames.map(whole);
  }

  function follow(url) {
    setStatus("live: connecting");
    source = new EventSource(url);
    source.onmessage = (e) => {
      const atEnd = index >= frames.length - 1;
      const frame = JSON.parse(e.data);
      frames.push(frame);
      setStatus(frame.version < liveVersion
        ? "live: catching up, version " + frame.version + " of " + liveVersion
        : "live: following");
      if (!showWanted()) { show(atEnd ? frames.length - 1 : index); }
    };
    source.addEventListener("end", () => {
      source.close();
      source = null;
      setStatus("game over");
      showWanted();
    });
    source.addEventListener("refused", (e) => {
      source.close();
      setStatus("unavailable: " + JSON.parse(e.data).message);
    });
    source.onerror = () => { setStatus("live: reconnecting"); };
  }

  async function start() {
    const data = $("frames");
    if (data && data.textContent.trim()) {
      try {
        frames.push(...(await decode(data)));
      } catch (error) {
        setStatus("this browser cannot read the replay (" + error + ")");
        return;
      }
      if (!showWanted()) { show(0); }
    }
    if (root.dataset.live) { follow(root.dataset.live); }
  }
  start();
})();
