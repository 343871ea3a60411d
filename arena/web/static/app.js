// The arena's web interface: a single page, no build step, no external network.
// The browser is a protocol client like any bot (docs/protocol.md, subprotocol
// arena.v1.json); the HTTP endpoints it uses are listed in docs/web.md.

const main = document.getElementById("main");
let cleanup = [];  // what to undo when the page changes (sockets, timers)

// -- small helpers -------------------------------------------------------------------------

function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith("on")) el.addEventListener(key.slice(2), value);
    else if (key === "class") el.className = value;
    else el.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

async function api(path, params = {}) {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined && value !== null) query.set(key, value);
  }
  const url = path + (query.toString() ? "?" + query : "");
  const response = await fetch(url, { cache: "no-store" });
  const data = await response.json();
  if (!response.ok) throw Object.assign(new Error(data.error || response.statusText), { data });
  return data;
}

function setPhase(phase) { document.body.dataset.phase = phase; }

function show(...children) {
  main.replaceChildren(...children.flat());
}

function errorBox(error) {
  return h("p", { class: "error" }, String(error.message || error));
}

function route() {
  const raw = location.hash.replace(/^#/, "") || "/";
  const [path, search] = raw.split("?");
  return { path, params: new URLSearchParams(search || "") };
}

function wsUrl() {
  return (location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/";
}

// -- the substitution game's board -------------------------------------------------------------

function groupText(settings, index) {
  const group = settings.groups[index];
  return group ? `${group.left}->${group.alternatives.join("|")}` : `group ${index}`;
}

function productionText(settings, group, production) {
  const g = settings.groups[group];
  return g ? `${g.left} → ${g.alternatives[production] === "" ? "ε" : g.alternatives[production]}` : "?";
}

function isFinished(word) { return !/[A-Z]/.test(word); }

function describeMove(settings, move) {
  if (!move || !move.trim()) return "nothing applied: the rolled group went to the bank";
  return move.split(",").map((step) => {
    const [word, group, production] = step.trim().split(/\s+/).map(Number);
    const target = word === -1 ? "new derivation" : `derivation ${word}`;
    return `${productionText(settings, group, production)} on ${target}`;
  }).join("; ");
}

function derivationList(words, { seat, highlightLast } = {}) {
  if (!words.length) return h("p", { class: "muted" }, "no derivations");
  return h("ol", { class: "words", start: "0" }, words.map((word, index) =>
    h("li", { class: isFinished(word) ? "finished" : "open", "data-seat": seat },
      h("code", {}, word === "" ? "ε" : word),
      isFinished(word) ? h("span", { class: "points" }, ` +${3 + word.length}`) : null)));
}

function bankTable(settings, bank) {
  const rows = bank.map((count, index) => [count, index]).filter(([count]) => count > 0);
  if (!rows.length) return h("p", { class: "muted", id: "bank" }, "the bank is empty");
  return h("table", { class: "bank", id: "bank" },
    h("tr", {}, h("th", {}, "group"), h("th", {}, "productions"), h("th", {}, "count")),
    rows.map(([count, index]) => h("tr", {},
      h("td", {}, index), h("td", {}, h("code", {}, groupText(settings, index))), h("td", {}, count))));
}

function board({ settings, state, players, me = null, partial = null, caption = null }) {
  // `partial`: the derivations and bank of the turn being built (from /api/legal)
  const derivations = state.derivations.map((words, seat) =>
    partial && seat === partial.seat ? partial.derivations : words);
  const bank = partial ? partial.bank : state.bank;
  const seats = players.map((name, seat) => h("section", { class: "player" + (seat === me ? " me" : ""), id: `player-${seat}` },
    h("h3", {}, seat === me ? `You (${name})` : name, h("span", { class: "muted" }, seat === 0 ? " — first" : " — second"),
      h("span", { class: "score" }, ` score ${state.scores ? state.scores[seat] : ""}`)),
    derivationList(derivations[seat], { seat })));
  const roll = state.roll === null || state.roll === undefined ? null : state.roll;
  return h("div", { class: "board" },
    h("p", { class: "status", id: "status-line" },
      caption !== null ? caption : state.moves_left === 0 && state.player === 0 ? `Game over after ${settings.moves} moves each`
        : `Move ${Math.min(state.move_number + 1, settings.moves)} of ${settings.moves} · moves left ${state.moves_left}`,
      roll !== null ? [" · roll: group ", h("strong", {}, roll), " ", h("code", {}, groupText(settings, roll))] : null),
    h("div", { class: "players" }, seats),
    h("section", { class: "bank-box" }, h("h3", {}, "Bank"), bankTable(settings, bank)));
}

function scoreBreakdown(settings, state, players) {
  return h("div", { class: "breakdown", id: "breakdown" }, players.map((name, seat) => {
    const words = state.derivations[seat];
    const finished = words.filter(isFinished);
    return h("section", {}, h("h4", {}, `${name}: ${finished.reduce((s, w) => s + 3 + w.length, 0)} points`),
      h("ul", {}, words.map((word) => h("li", { class: isFinished(word) ? "finished" : "discarded" },
        h("code", {}, word === "" ? "ε" : word),
        isFinished(word) ? ` 3 + ${word.length} = ${3 + word.length}` : " unfinished: discarded"))));
  }));
}

function resultText(outcome, players) {
  if (!outcome) return "no result";
  const result = outcome.result;
  const scores = outcome.scores ? ` (${outcome.scores.join(" : ")})` : "";
  const how = outcome.termination && outcome.termination !== "normal" ? `, ${outcome.termination}` : "";
  if (result === "draw") return `Draw${scores}${how}`;
  if (result === "aborted") return `Aborted${how}: ${outcome.reason || outcome.detail || ""}`;
  const winner = outcome.winner;
  return `${players[winner]} wins${scores}${how}`;
}

// -- lobby -----------------------------------------------------------------------------------

async function lobbyPage() {
  const options = await api("/api/web/options");
  const grammar = h("select", { id: "grammar" },
    options.presets.map((p) => h("option", { value: p.name }, `${p.name}${p.builtin ? "" : " (saved)"}`)),
    h("option", { value: "" }, "my own text…"));
  const text = h("textarea", { id: "grammar-text", rows: 8, cols: 40, spellcheck: "false" });
  const moves = h("input", { id: "moves", type: "number", min: 1, max: 1000, value: 5 });
  const bot = h("select", { id: "bot" }, options.bots.map((b) => h("option", { value: b.name }, b.name)));
  const params = h("div", { id: "params" });
  const seat = h("select", { id: "seat" }, h("option", { value: 0 }, "first (you move first)"),
    h("option", { value: 1 }, "second"));
  const message = h("p", { id: "lobby-message" });
  const syncText = () => {
    const preset = options.presets.find((p) => p.name === grammar.value);
    if (preset) { text.value = preset.text; text.readOnly = true; } else { text.readOnly = false; }
  };
  const syncParams = () => {
    const factory = options.bots.find((b) => b.name === bot.value);
    params.replaceChildren(h("p", { class: "muted" }, factory.description),
      factory.params.map((p) => h("label", { class: "param" }, `${p.name} `,
        p.kind === "choice"
          ? h("select", { "data-param": p.name, "data-default": String(p.default) },
            p.choices.map((c) => h("option", { value: c, selected: String(p.default) === c }, c)))
          : h("input", { "data-param": p.name, "data-default": String(p.default), value: String(p.default),
            type: p.kind === "int" || p.kind === "float" ? "number" : "text",
            step: p.kind === "float" ? "any" : null, min: p.minimum, max: p.maximum }),
        h("small", { class: "muted" }, " " + p.doc))));
  };
  let checkTimer = null;
  const checkText = () => {
    clearTimeout(checkTimer);
    if (grammar.value) { message.replaceChildren(); message.className = ""; return; }
    checkTimer = setTimeout(async () => {
      const result = await api("/api/grammars/check", { text: text.value }).catch((e) => ({ ok: false, reason: e.message }));
      message.className = result.ok ? "ok" : "error";
      message.replaceChildren(result.ok ? `Grammar OK: ${result.groups.length} production groups`
        : (result.line ? `Line ${result.line}: ${result.reason}` : result.reason));
    }, 200);
  };
  cleanup.push(() => clearTimeout(checkTimer));
  text.addEventListener("input", checkText);
  grammar.addEventListener("change", checkText);
  grammar.addEventListener("change", syncText);
  bot.addEventListener("change", syncParams);
  syncText(); syncParams();
  const start = h("button", { id: "start", class: "primary", onclick: () => {
    const changed = [...params.querySelectorAll("[data-param]")]
      .filter((el) => el.value !== el.dataset.default && el.value !== "")
      .map((el) => `${el.dataset.param}=${el.value}`);
    const game = { bot: bot.value + (changed.length ? ":" + changed.join(",") : ""),
      seat: seat.value, moves: moves.value };
    if (grammar.value) game.grammar = grammar.value; else game.text = text.value;
    sessionStorage.setItem("arena.newgame", JSON.stringify(game));
    location.hash = "#/play";
  } }, "Start the game");
  const live = h("div", { id: "live-games" });
  const recent = h("div", { id: "recent-games" });
  const refresh = async () => {
    try {
      const running = (await api("/api/games", { status: "running", limit: 50 })).games;
      live.replaceChildren(running.length ? h("ul", {}, running.map((g) => h("li", {},
        h("a", { href: `#/watch?id=${g.id}` }, `${g.players.join(" vs ")}`), h("span", { class: "muted" }, ` ${g.game} · ${g.id}`))))
        : h("p", { class: "muted" }, "no games are being played"));
      const finished = (await api("/api/games", { status: "finished", limit: 15 })).games;
      recent.replaceChildren(finished.length ? h("ul", {}, finished.map((g) => h("li", {},
        h("a", { href: `#/replay?id=${g.id}` }, `${g.players.join(" vs ")}`),
        h("span", { class: "muted" }, ` ${g.result}${g.scores ? " " + g.scores.join(":") : ""} · ${g.id}`))))
        : h("p", { class: "muted" }, "no finished games yet"));
    } catch (error) { live.replaceChildren(errorBox(error)); }
  };
  await refresh();
  const timer = setInterval(refresh, 4000);
  cleanup.push(() => clearInterval(timer));
  show(h("h1", {}, "Lobby"),
    h("div", { class: "columns" },
      h("section", { class: "card" }, h("h2", {}, "Play against a bot"),
        h("label", {}, "Grammar ", grammar), text,
        h("label", {}, "Moves per player ", moves),
        h("label", {}, "Opponent ", bot), params,
        h("label", {}, "Your seat ", seat), start, message),
      h("section", { class: "card" }, h("h2", {}, "Live games"), live,
        h("h2", {}, "Recent games"), recent)));
  setPhase("lobby");
}

// -- playing by hand ---------------------------------------------------------------------------

async function playPage() {
  const request = JSON.parse(sessionStorage.getItem("arena.newgame") || "null");
  if (!request) { location.hash = "#/"; return; }
  const log = h("ul", { class: "log", id: "log" });
  const area = h("div", { id: "play-area" }, h("p", {}, "Connecting…"));
  const builder = h("div", { id: "builder" });
  const result = h("div", { id: "result-box" });
  const resign = h("button", { id: "resign", disabled: true, onclick: () => {
    if (game.id && !game.over) send({ type: "resign", game_id: game.id });
  } }, "Resign");
  show(h("h1", {}, "Play"), area, builder, result, h("h3", {}, "Moves"), log, h("p", {}, resign));
  setPhase("connecting");
  const note = (text) => log.prepend(h("li", {}, text));

  const guest = await api("/api/guest");
  const ws = new WebSocket(wsUrl(), "arena.v1.json");
  cleanup.push(() => ws.close());
  const game = { id: null, settings: null, seat: null, players: null, state: null,
    myTurn: null, steps: [], legal: null, pick: {} };
  const send = (message) => ws.send(JSON.stringify(message));

  const render = () => {
    if (!game.state) return;
    const partial = game.myTurn && game.legal
      ? { seat: game.seat, derivations: game.legal.derivations, bank: game.legal.bank } : null;
    area.replaceChildren(board({ settings: game.settings, state: game.state, players: game.players,
      me: game.seat, partial }));
    renderBuilder();
  };

  const renderBuilder = () => {
    builder.hidden = Boolean(game.over);
    if (!game.myTurn) {
      builder.replaceChildren(h("p", { class: "muted" }, "Waiting for the opponent…"));
      return;
    }
    const legal = game.legal;
    if (!legal) { builder.replaceChildren(h("p", {}, "…")); return; }
    const s = game.settings;
    const parts = [h("h3", {}, "Your turn")];
    parts.push(h("p", {}, "This turn so far: ",
      game.steps.length ? h("code", { id: "partial" }, describeMove(s, game.steps.join(", "))) : h("span", { class: "muted" }, "no steps yet")));
    const options = legal.steps;
    const rolled = legal.roll;
    if (!options.length) {
      parts.push(h("p", {}, legal.can_end
        ? (game.steps.length ? "No further step applies: finish the turn."
          : "The rolled group fits none of your derivations: it goes to the bank. Finish the turn.")
        : "No legal step."));
    } else {
      const groups = [...new Set(options.map((o) => o[1]))];
      const pick = game.pick;
      const choices = h("div", { class: "choices" });
      if (pick.group === undefined) {
        choices.append(h("p", {}, "1. Pick a group"), ...groups.map((g) => h("button", { class: "choice", "data-group": g,
          onclick: () => { game.pick = { group: g }; renderBuilder(); } },
          `${g}: ${groupText(s, g)}`, g === rolled && !game.steps.length ? " (rolled)" : ` (bank ×${legal.bank[g]})`)));
      } else if (pick.production === undefined) {
        const productions = [...new Set(options.filter((o) => o[1] === pick.group).map((o) => o[2]))];
        choices.append(h("p", {}, `2. Pick an alternative of ${groupText(s, pick.group)}`),
          ...productions.map((p) => h("button", { class: "choice", "data-production": p,
            onclick: () => { game.pick = { ...pick, production: p }; renderBuilder(); } },
            productionText(s, pick.group, p))));
      } else {
        const words = options.filter((o) => o[1] === pick.group && o[2] === pick.production).map((o) => o[0]);
        choices.append(h("p", {}, `3. Apply ${productionText(s, pick.group, pick.production)} to`),
          ...words.map((w) => h("button", { class: "choice", "data-word": w,
            onclick: () => addStep([w, pick.group, pick.production]) },
            w === -1 ? "a new derivation" : ["derivation ", w, ": ", h("code", {}, legal.derivations[w])])));
      }
      parts.push(choices);
    }
    if (legal.problem && !legal.can_end) parts.push(h("p", { class: "muted", id: "problem" }, legal.problem));
    parts.push(h("div", { class: "actions" },
      h("button", { id: "undo", disabled: !game.steps.length && game.pick.group === undefined,
        onclick: () => {
          if (game.pick.group !== undefined) { game.pick = {}; renderBuilder(); return; }
          game.steps.pop(); refreshLegal();
        } }, "Undo step"),
      h("button", { id: "clear", disabled: !game.steps.length, onclick: () => { game.steps = []; refreshLegal(); } }, "Clear"),
      h("button", { id: "finish", class: "primary", disabled: !legal.can_end, onclick: finish }, "Finish turn")));
    builder.replaceChildren(...parts);
    setPhase("choose");
  };

  const refreshLegal = async () => {
    setPhase("busy");
    game.pick = {};
    try {
      game.legal = await api("/api/legal", { game_id: game.id, steps: game.steps.join(", ") });
    } catch (error) {
      note(`legal options failed: ${error.message}`);
      game.steps = [];
      game.legal = await api("/api/legal", { game_id: game.id });
    }
    render();
  };

  const addStep = (step) => { game.steps.push(step.join(" ")); refreshLegal(); };

  const finish = () => {
    setPhase("busy");
    const move = game.steps.join(", ");
    send({ type: "move", game_id: game.id, turn: game.myTurn.turn, move });
    note(`you rolled ${groupText(game.settings, game.myTurn.roll)}: ${describeMove(game.settings, move)}`);
    game.myTurn = null; game.legal = null; game.steps = [];
    render();
    setPhase("waiting");
  };

  ws.addEventListener("open", () => send({ type: "hello", protocol: 1, role: "bot", token: guest.token,
    games: ["substitution"], client: "arena-web" }));
  ws.addEventListener("close", () => { if (!game.over) note("the connection closed"); });
  ws.addEventListener("message", async (event) => {
    const m = JSON.parse(event.data);
    if (m.type === "welcome") {
      try {
        const started = await api("/api/play", { token: guest.token, ...request });
        game.id = started.game_id;
      } catch (error) { area.replaceChildren(errorBox(error), h("a", { href: "#/" }, "Back to the lobby")); setPhase("error"); }
    } else if (m.type === "game_start") {
      Object.assign(game, { id: m.game_id, settings: m.settings, seat: m.seat, players: m.players });
      send({ type: "spectate", game_id: m.game_id });  // states after every move
      resign.disabled = false;
      note(`game ${m.game_id}: ${m.players.join(" vs ")}`);
      setPhase("waiting");
    } else if (m.type === "game_state" || m.type === "moved") {
      if (m.game_id !== game.id) return;
      if (!game.myTurn) { game.state = m.state; render(); }
    } else if (m.type === "your_turn") {
      game.state = m.state;
      game.myTurn = { turn: m.turn, roll: m.chance };
      game.steps = [];
      await refreshLegal();
    } else if (m.type === "opponent_moved") {
      note(`${game.players[m.seat]} rolled ${groupText(game.settings, m.chance)}: ${describeMove(game.settings, m.move)}`);
    } else if (m.type === "move_rejected") {
      note(`the server rejected the move (${m.code}): ${m.message}`);
    } else if (m.type === "game_over") {
      if (m.game_id !== game.id || game.over) return;
      game.over = true; game.myTurn = null; resign.disabled = true;
      const replay = await api("/api/replay", { id: m.game_id }).catch(() => null);
      const final = replay ? replay.frames[replay.frames.length - 1].state : game.state;
      game.state = final;
      render();
      result.replaceChildren(h("section", { class: "card result", id: "result" },
        h("h2", {}, resultText(m, game.players)), h("p", { class: "muted" }, m.reason),
        scoreBreakdown(game.settings, final, game.players),
        h("p", {}, h("a", { href: `#/replay?id=${m.game_id}` }, "Replay this game"), " · ",
          h("a", { href: "#/" }, "Back to the lobby"))));
      setPhase("over");
      ws.close();
    } else if (m.type === "error") {
      note(`error: ${m.message}`);
    }
  });
}

// -- watching a live game ------------------------------------------------------------------------

async function watchPage({ params }) {
  const id = params.get("id");
  const area = h("div", { id: "watch-area" }, h("p", {}, "Connecting…"));
  const log = h("ul", { class: "log" });
  show(h("h1", {}, `Watching ${id}`), area, h("h3", {}, "Moves"), log);
  const ws = new WebSocket(wsUrl(), "arena.v1.json");
  cleanup.push(() => ws.close());
  let info = null;
  ws.addEventListener("open", () => ws.send(JSON.stringify({ type: "hello", protocol: 1, role: "spectator", client: "arena-web" })));
  ws.addEventListener("message", (event) => {
    const m = JSON.parse(event.data);
    if (m.type === "welcome") ws.send(JSON.stringify({ type: "spectate", game_id: id }));
    else if (m.type === "game_state") {
      info = m;
      area.replaceChildren(board({ settings: m.settings, state: m.state, players: m.players }));
    } else if (m.type === "moved" && info) {
      log.prepend(h("li", {}, `${info.players[m.seat]}: ${describeMove(info.settings, m.move)}`));
      area.replaceChildren(board({ settings: info.settings, state: m.state, players: info.players }));
    } else if (m.type === "game_over") {
      area.append(h("section", { class: "card result", id: "result" }, h("h2", {}, resultText(m, info ? info.players : ["first", "second"])),
        h("a", { href: `#/replay?id=${id}` }, "Replay this game")));
    } else if (m.type === "error") {
      area.replaceChildren(errorBox(m), h("p", {}, h("a", { href: `#/replay?id=${id}` }, "Replay it instead")));
    }
  });
}

// -- replay viewer -------------------------------------------------------------------------------

async function deflateBase64(text) {
  const stream = new Blob([text]).stream().pipeThrough(new CompressionStream("deflate-raw"));
  const bytes = new Uint8Array(await new Response(stream).arrayBuffer());
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

// A request line is at most 8 KiB: a longer log goes up in parts, then is replayed by key.
const UPLOAD_PART = 6000;

async function uploadAndReplay(z) {
  if (z.length <= UPLOAD_PART) return api("/api/replay", { z });
  const key = Array.from(crypto.getRandomValues(new Uint8Array(12)), (b) => b.toString(16).padStart(2, "0")).join("");
  const parts = Math.ceil(z.length / UPLOAD_PART);
  for (let part = 0; part < parts; part++) {
    await api("/api/upload", { key, part, parts, z: z.slice(part * UPLOAD_PART, (part + 1) * UPLOAD_PART) });
  }
  return api("/api/replay", { upload: key });
}

async function replayPage({ params }) {
  const viewer = h("div", { id: "viewer" });
  const idInput = h("input", { id: "game-id", placeholder: "game id", value: params.get("id") || "" });
  const file = h("input", { type: "file", id: "upload", accept: ".jsonl,.log,.txt,.json" });
  file.addEventListener("change", async () => {
    const chosen = file.files[0];
    if (!chosen) return;
    viewer.replaceChildren(h("p", {}, "Replaying the uploaded log…"));
    try {
      const z = await deflateBase64(await chosen.text());
      viewReplay(viewer, await uploadAndReplay(z), chosen.name);
    } catch (error) { viewer.replaceChildren(errorBox(error)); }
  });
  show(h("h1", {}, "Replay"),
    h("div", { class: "card toolbar" },
      h("form", { onsubmit: (e) => { e.preventDefault(); location.hash = `#/replay?id=${encodeURIComponent(idInput.value.trim())}`; } },
        h("label", {}, "Stored game ", idInput), h("button", {}, "Open")),
      h("label", {}, "or a log file (JSON Lines or the thesis's text log) ", file)),
    viewer);
  setPhase("replay-empty");
  try {
    if (params.get("id")) viewReplay(viewer, await api("/api/replay", { id: params.get("id") }), params.get("id"));
    else if (params.get("t")) {
      viewReplay(viewer, await api("/api/tournament/game", { name: params.get("t"), id: params.get("g") }),
        `${params.get("t")} game ${params.get("g")}`);
    }
  } catch (error) { viewer.replaceChildren(errorBox(error)); }
}

function viewReplay(viewer, data, title) {
  const frames = data.frames;
  let index = 0;
  const slider = h("input", { type: "range", id: "slider", min: 0, max: frames.length - 1, value: 0 });
  const label = h("p", { id: "frame-label", class: "status" });
  const area = h("div", { id: "replay-board" });
  const go = (i) => {
    index = Math.max(0, Math.min(frames.length - 1, i));
    slider.value = index;
    const frame = frames[index];
    label.replaceChildren(...[index === 0 ? "Start of the game" : [
      `Turn ${index} of ${frames.length - 1}: ${data.players[frame.player]}`,
      frame.chance !== null && frame.chance !== undefined && data.game === "substitution"
        ? [" rolled ", h("code", {}, groupText(data.settings, frame.chance))] : "",
      " — ", data.game === "substitution" ? describeMove(data.settings, frame.move) : h("code", {}, frame.move)]].flat(3));
    label.dataset.index = index;
    if (data.game === "substitution") {
      area.replaceChildren(board({ settings: data.settings, state: { ...frame.state, roll: frame.chance ?? null }, players: data.players,
        caption: index === 0 ? "Before the first roll" : `After turn ${index} · moves left ${frame.state.moves_left} each` }));
      if (index === frames.length - 1 && data.outcome) area.append(scoreBreakdown(data.settings, frame.state, data.players));
    } else {
      area.replaceChildren(h("pre", {}, JSON.stringify(frame.state, null, 1)));
    }
  };
  slider.addEventListener("input", () => go(Number(slider.value)));
  const keys = (e) => { if (e.key === "ArrowLeft") go(index - 1); if (e.key === "ArrowRight") go(index + 1); };
  document.addEventListener("keydown", keys);
  cleanup.push(() => document.removeEventListener("keydown", keys));
  viewer.replaceChildren(
    h("h2", {}, title || data.id, " · ", data.players.join(" vs ")),
    h("p", { id: "replay-result" }, data.live ? "live game, still being played" : resultText(data.outcome, data.players),
      data.seed !== null && data.seed !== undefined ? h("span", { class: "muted" }, ` · seed ${data.seed}`) : ""),
    data.error ? h("p", { class: "error" }, `The referee stopped the replay: ${data.error}`) : "",
    h("div", { class: "controls" },
      h("button", { id: "first", onclick: () => go(0), title: "to the start" }, "|◀ start"),
      h("button", { id: "prev", onclick: () => go(index - 1), title: "back" }, "◀ back"),
      slider,
      h("button", { id: "next", onclick: () => go(index + 1), title: "forward" }, "forward ▶"),
      h("button", { id: "last", onclick: () => go(frames.length - 1), title: "to the end" }, "end ▶|")),
    label, area);
  go(0);
  setPhase("replay");
}

// -- tournaments ---------------------------------------------------------------------------------

async function tournamentsPage() {
  const data = await api("/api/tournaments");
  show(h("h1", {}, "Tournaments"),
    data.tournaments.length ? h("ul", { id: "tournament-list" }, data.tournaments.map((t) => h("li", {},
      h("a", { href: `#/tournament?name=${encodeURIComponent(t.name)}` }, t.name),
      h("span", { class: "muted" }, ` ${t.bots.length} bots · ${t.games} games per pairing`))))
      : h("p", { class: "muted" }, data.directory ? `no tournament results in ${data.directory}`
        : "start the server with --tournaments DIR to show tournament results here"));
  setPhase("tournaments");
}

async function tournamentPage({ params }) {
  const name = params.get("name");
  const data = await api("/api/tournament", { name });
  const bots = data.bots;
  const table = h("table", { class: "crosstable", id: "crosstable" },
    h("tr", {}, h("th", { class: "corner" }, "first ↓ second →"), bots.map((b) => h("th", {}, b))),
    bots.map((first) => h("tr", {}, h("th", {}, first), bots.map((second) => {
      const cell = (data.table[first] || {})[second];
      if (!cell) return h("td", { class: "empty" }, "—");
      const i = bots.indexOf(first), j = bots.indexOf(second);
      return h("td", {}, h("a", { href: `#/tournament?name=${encodeURIComponent(name)}&cell=${i}-${j}`,
        title: `${first} (first) vs ${second} (second): wins / losses / draws of ${first}` },
        `${cell.first_wins} / ${cell.second_wins} / ${cell.draws}`));
    }))));
  const parts = [h("h1", {}, `Tournament ${name}`),
    h("p", { class: "muted" }, `${data.game || "substitution"} · ${data.games} games per pairing`,
      data.seed !== undefined ? ` · seed ${data.seed}` : "",
      ". Rows: the first player; columns: the second; cells: wins / losses / draws of the first player."),
    table];
  if (data.summary) {
    parts.push(h("h2", {}, "Summary"), h("table", { class: "summary" },
      h("tr", {}, ["bot", "games", "wins", "losses", "draws"].map((c) => h("th", {}, c))),
      Object.entries(data.summary).map(([bot, s]) => h("tr", {}, h("td", {}, bot),
        ["games", "wins", "losses", "draws"].map((k) => h("td", {}, s[k] ?? ""))))));
  }
  const cell = params.get("cell");
  if (cell) {
    const [i, j] = cell.split("-").map(Number);
    const c = data.table[bots[i]][bots[j]];
    const stats = (data.cells || {})[`${i}-${j}`];
    const count = (stats && stats.games) || data.games || (c.first_wins || 0) + (c.second_wins || 0) + (c.draws || 0);
    const shown = Math.min(count, 200);
    parts.push(h("h2", {}, `${bots[i]} (first) vs ${bots[j]} (second)`),
      data.logs ? h("ol", { class: "games", id: "cell-games", start: "0" }, Array.from({ length: shown }, (_, k) =>
        h("li", {}, h("a", { href: `#/replay?t=${encodeURIComponent(name)}&g=${i}-${j}-${k}` }, `game ${i}-${j}-${k}`))))
        : h("p", { class: "muted" }, "this tournament was run without logs"),
      count > shown ? h("p", { class: "muted" }, `the first ${shown} of ${count} games`) : "");
  }
  show(parts);
  setPhase("tournament");
}

// -- ladder --------------------------------------------------------------------------------------

const COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22"];

function ratingChart(history) {
  const NS = "http://www.w3.org/2000/svg";
  const svg = (tag, attrs) => { const el = document.createElementNS(NS, tag); for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v); return el; };
  const W = 720, H = 300, L = 50, R = 150, T = 10, B = 30;
  const series = Object.entries(history);
  const points = series.flatMap(([, s]) => s);
  const chart = svg("svg", { viewBox: `0 0 ${W} ${H}`, class: "chart", id: "rating-chart", role: "img" });
  if (!points.length) { const t = svg("text", { x: 20, y: 40 }); t.textContent = "no rated games yet"; chart.append(t); return chart; }
  const xs = points.map((p) => p[0]), ys = points.map((p) => p[1]);
  const x0 = Math.min(...xs), x1 = Math.max(...xs) || x0 + 1;
  const y0 = Math.min(...ys), y1 = Math.max(...ys);
  const sx = (x) => L + (x1 === x0 ? 0.5 : (x - x0) / (x1 - x0)) * (W - L - R);
  const sy = (y) => T + (y1 === y0 ? 0.5 : 1 - (y - y0) / (y1 - y0)) * (H - T - B);
  chart.append(svg("line", { x1: L, y1: H - B, x2: W - R, y2: H - B, stroke: "#888" }),
    svg("line", { x1: L, y1: T, x2: L, y2: H - B, stroke: "#888" }));
  for (const value of [y0, (y0 + y1) / 2, y1]) {
    const t = svg("text", { x: L - 6, y: sy(value) + 4, "text-anchor": "end", "font-size": 11 });
    t.textContent = value.toFixed(1); chart.append(t);
  }
  const xl = svg("text", { x: (W - R + L) / 2, y: H - 8, "text-anchor": "middle", "font-size": 11 });
  xl.textContent = "time (rated games) →"; chart.append(xl);
  series.forEach(([bot, s], k) => {
    const color = COLORS[k % COLORS.length];
    chart.append(svg("polyline", { points: s.map(([x, y]) => `${sx(x).toFixed(1)},${sy(y).toFixed(1)}`).join(" "),
      fill: "none", stroke: color, "stroke-width": 2, "data-bot": bot }));
    const legend = svg("text", { x: W - R + 10, y: T + 14 + 16 * k, fill: color, "font-size": 12 });
    legend.textContent = `${bot} (${s[s.length - 1][1].toFixed(1)})`; chart.append(legend);
  });
  return chart;
}

async function ladderPage() {
  const board = await api("/api/leaderboard");
  const history = await api("/api/ratings/history", { game: board.game || undefined });
  show(h("h1", {}, "Ladder"), h("p", { class: "muted" }, board.game ? `game: ${board.game}` : "no ladder game configured; all games"),
    board.leaderboard.length ? h("table", { class: "leaderboard", id: "leaderboard" },
      h("tr", {}, ["#", "bot", "rating (μ − 3σ)", "μ", "σ", "games", "wins", "losses", "draws"].map((c) => h("th", {}, c))),
      board.leaderboard.map((r) => h("tr", {}, [r.rank, r.bot, r.rating, r.mu, r.sigma, r.games, r.wins, r.losses, r.draws]
        .map((v) => h("td", {}, v))))) : h("p", { class: "muted" }, "no rated games yet"),
    h("h2", {}, "Rating history"), ratingChart(history.history));
  setPhase("ladder");
}

// -- grammar editor ------------------------------------------------------------------------------

async function editorPage() {
  const options = await api("/api/web/options");
  const start = h("select", { id: "start-from" }, h("option", { value: "" }, "—"),
    options.presets.map((p) => h("option", { value: p.name }, p.name)));
  const text = h("textarea", { id: "editor-text", rows: 14, cols: 50, spellcheck: "false" });
  const status = h("p", { id: "editor-status", class: "muted" }, "Type a grammar: one group per line (A->aA|B), optionally a line 'weights: 1 2 3 …'.");
  const name = h("input", { id: "preset-name", placeholder: "preset name" });
  const save = h("button", { id: "save", class: "primary", disabled: true }, "Save as a preset");
  const saved = h("p", { id: "save-message" });
  let valid = false, seq = 0, timer = null;
  const check = async () => {
    const mine = ++seq;
    document.body.dataset.checked = "no";
    const result = await api("/api/grammars/check", { text: text.value }).catch((e) => ({ ok: false, line: 0, reason: e.message }));
    if (mine !== seq) return;
    valid = result.ok;
    status.className = valid ? "ok" : "error";
    const bad = !valid && result.line ? text.value.split("\n")[result.line - 1] : null;
    status.replaceChildren(valid ? `OK: ${result.groups.length} production groups, weights ${result.weights.join(" ")}`
      : (result.line ? `Line ${result.line}: ${result.reason}` : result.reason),
      bad !== null && bad !== undefined ? h("pre", { class: "bad-line", id: "bad-line" }, `${result.line} │ ${bad}`) : "");
    save.disabled = !valid || !name.value.trim();
    document.body.dataset.checked = valid ? "ok" : "error";
  };
  const schedule = () => { clearTimeout(timer); timer = setTimeout(check, 200); };
  text.addEventListener("input", schedule);
  name.addEventListener("input", () => { save.disabled = !valid || !name.value.trim(); });
  start.addEventListener("change", () => {
    const p = options.presets.find((x) => x.name === start.value);
    if (p) { text.value = p.text; schedule(); }
  });
  save.addEventListener("click", async () => {
    try {
      const r = await api("/api/grammars/save", { name: name.value.trim(), text: text.value });
      saved.className = "ok";
      saved.replaceChildren(`Saved as “${r.saved}”; it is offered in the lobby.`);
    } catch (error) { saved.className = "error"; saved.replaceChildren(error.message); }
  });
  cleanup.push(() => clearTimeout(timer));
  show(h("h1", {}, "Grammar editor"),
    h("section", { class: "card" }, h("label", {}, "Start from ", start), text, status,
      h("div", { class: "actions" }, name, save), saved));
  setPhase("editor");
}

// -- router --------------------------------------------------------------------------------------

const PAGES = {
  "/": lobbyPage, "/play": playPage, "/watch": watchPage, "/replay": replayPage,
  "/tournaments": tournamentsPage, "/tournament": tournamentPage, "/ladder": ladderPage,
  "/editor": editorPage,
};

async function navigate() {
  for (const undo of cleanup.splice(0)) { try { undo(); } catch { /* already gone */ } }
  const current = route();
  const page = PAGES[current.path] || lobbyPage;
  setPhase("loading");
  for (const link of document.querySelectorAll("nav a")) {
    link.classList.toggle("active", link.getAttribute("href").split("?")[0] === "#" + current.path);
  }
  try { await page(current); } catch (error) { show(errorBox(error)); setPhase("error"); }
}

window.addEventListener("hashchange", navigate);
navigate();
