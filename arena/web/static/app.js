// The arena's web interface: a single page, no build step, no external network.
// The browser is a protocol client like any bot (docs/protocol.md, subprotocol
// arena.v1.json); the HTTP endpoints it uses are listed in docs/web.md.
//
// Apart from the grammar editor (the substitution game's), this file knows no game: every
// game draws its board through its own renderer, an ES module the game plugin ships
// (`Game.web_renderer`, served at /static/games/NAME.js). What a renderer exports and
// what it is given (`ctx`) is described in docs/web.md.

const main = document.getElementById("main");
let cleanup = [];  // what to undo when the page changes (sockets, timers)

// -- small helpers -------------------------------------------------------------------------

function build(el, attrs, children) {
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith("on")) el.addEventListener(key.slice(2), value);
    else if (key === "class" && !(el instanceof SVGElement)) el.className = value;
    else el.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

function h(tag, attrs = {}, ...children) {
  return build(document.createElement(tag), attrs, children);
}

function svg(tag, attrs = {}, ...children) {
  return build(document.createElementNS("http://www.w3.org/2000/svg", tag), attrs, children);
}

async function api(path, params = {}) {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined && value !== null) query.set(key, value);
  }
  const url = path + (query.toString() ? "?" + query : "");
  const response = await fetch(url, { cache: "no-store" });
  const data = await response.json();
  if (!response.ok) throw Object.assign(new Error(data.error || response.statusText), { data, status: response.status });
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

// -- games and their renderers -------------------------------------------------------------------

let gamesCache = null;

// Every registered game as /api/web/options lists it (title, renderer, lobby data, bots).
async function games() {
  if (!gamesCache) gamesCache = api("/api/web/options").then((o) => o.games).catch((error) => { gamesCache = null; throw error; });
  return gamesCache;
}

async function gameInfo(name) {
  return (await games()).find((g) => g.name === name) || { name, title: name, renderer: null, lobby: {}, bots: [] };
}

function optionLabel(view, move) {
  const option = view && Array.isArray(view.options) ? view.options.find((o) => o.move === move) : null;
  return option && option.label ? option.label : move;
}

// A game without a renderer of its own: its render() as JSON, its legal moves as buttons,
// and its settings as a JSON text.
const JSON_RENDERER = {
  board(view, ctx) {
    const { h } = ctx;
    const moves = ctx.legal ? ctx.legal.moves || [] : [];
    const typed = h("input", { id: "move-text", placeholder: ctx.game ? ctx.game.move_syntax : "a move", size: 40 });
    return h("div", { class: "json-board" },
      ctx.legal ? h("div", { class: "moves" }, h("span", {}, "Your move: "),
        moves.map((move) => h("button", { class: "move", "data-move": move, onclick: () => ctx.play(move) },
          optionLabel(view, move))),
        h("form", { onsubmit: (e) => { e.preventDefault(); if (typed.value.trim()) ctx.play(typed.value.trim()); } },
          typed, h("button", {}, "Play"))) : null,
      h("pre", { class: "json" }, JSON.stringify(view, null, 1)));
  },
  settings(ctx) {
    const { h, game } = ctx;
    const text = h("textarea", { id: "settings-json", rows: 6, cols: 40, spellcheck: "false" },
      JSON.stringify(game.lobby.settings || {}, null, 1));
    return {
      element: h("label", {}, "Settings (JSON) ", text),
      value: () => {
        try { return { settings: JSON.parse(text.value) }; } catch (error) { throw new Error(`settings: ${error.message}`); }
      },
    };
  },
};

const renderers = new Map();

// The renderer module of game `name` (loaded once; its `css` injected once), or the JSON
// one for a game without a renderer (or with one that does not load).
async function rendererFor(name) {
  if (!renderers.has(name)) {
    renderers.set(name, (async () => {
      const info = await gameInfo(name);
      if (!info.renderer) return JSON_RENDERER;
      let module;
      try { module = await import(info.renderer); } catch (error) {
        console.error(`the ${name} renderer did not load: ${error}`);
        return JSON_RENDERER;
      }
      if (typeof module.board !== "function") return JSON_RENDERER;
      if (module.css) document.head.append(h("style", { "data-game": name }, module.css));
      return { ...JSON_RENDERER, ...module };
    })().catch((error) => { renderers.delete(name); throw error; }));
  }
  return renderers.get(name);
}

// What a renderer is given besides the view (docs/web.md); `fields` override the defaults.
function context(fields) {
  return { h, svg, api, game: null, settings: {}, players: [], me: null, frame: null, legal: null,
    local: {}, chance: null, play: () => {}, refresh: () => {}, redraw: () => {}, ...fields };
}

function boardOf(renderer, view, ctx) {
  return h("div", { class: "board", "data-game": ctx.game ? ctx.game.name : "" }, renderer.board(view, ctx));
}

function moveText(renderer, move, ctx) {
  return renderer.describeMove ? renderer.describeMove(move, ctx) : h("code", {}, move);
}

function chanceText(renderer, chance, ctx) {
  if (renderer.describeChance) return renderer.describeChance(chance, ctx);
  return [`${(ctx.game && ctx.game.chance_name) || "chance"} `, h("code", {}, JSON.stringify(chance))];
}

function finalView(replay) {
  const frame = replay.frames[replay.frames.length - 1];
  return frame.render ?? frame.state;
}

// -- lobby -----------------------------------------------------------------------------------

async function lobbyPage() {
  const options = await api("/api/web/options");
  gamesCache = Promise.resolve(options.games);
  const loaded = await Promise.all(options.games.map((g) => rendererFor(g.name)));
  const byName = Object.fromEntries(options.games.map((g, i) => [g.name, { info: g, renderer: loaded[i] }]));
  const gameSelect = h("select", { id: "game" }, options.games.map((g) =>
    h("option", { value: g.name, selected: g.name === options.game }, g.title)));
  const about = h("p", { class: "muted", id: "game-about" });
  const settingsBox = h("div", { id: "settings" });
  const bot = h("select", { id: "bot" });
  const params = h("div", { id: "params" });
  const seat = h("select", { id: "seat" }, h("option", { value: 0 }, "first (you move first)"),
    h("option", { value: 1 }, "second"));
  const message = h("p", { id: "lobby-message" });
  let form = null;
  const current = () => byName[gameSelect.value];
  const syncParams = () => {
    const factory = current().info.bots.find((b) => b.name === bot.value);
    if (!factory) { params.replaceChildren(); return; }
    params.replaceChildren(h("p", { class: "muted" }, factory.description),
      ...factory.params.map((p) => h("label", { class: "param" }, `${p.name} `,
        p.kind === "choice"
          ? h("select", { "data-param": p.name, "data-default": String(p.default) },
            p.choices.map((c) => h("option", { value: c, selected: String(p.default) === c }, c)))
          : h("input", { "data-param": p.name, "data-default": String(p.default), value: String(p.default),
            type: p.kind === "int" || p.kind === "float" ? "number" : "text",
            step: p.kind === "float" ? "any" : null, min: p.minimum, max: p.maximum }),
        h("small", { class: "muted" }, " " + p.doc))));
  };
  const syncGame = () => {
    const { info, renderer } = current();
    about.replaceChildren(info.description);
    form = renderer.settings(context({ game: info, options, cleanup: (undo) => cleanup.push(undo) }));
    settingsBox.replaceChildren(form.element);
    const bots = info.bots.map((b) => b.name);
    const preferred = [`random`, `${info.name}-random`].find((b) => bots.includes(b)) || bots[0];
    bot.replaceChildren(...bots.map((b) => h("option", { value: b, selected: b === preferred }, b)));
    message.replaceChildren(); message.className = "";
    syncParams();
  };
  gameSelect.addEventListener("change", syncGame);
  bot.addEventListener("change", syncParams);
  syncGame();
  const start = h("button", { id: "start", class: "primary", onclick: () => {
    let chosen;
    try { chosen = form.value(); } catch (error) {
      message.className = "error"; message.replaceChildren(error.message); return;
    }
    if (!bot.value) { message.className = "error"; message.replaceChildren("no bot plays this game"); return; }
    const changed = [...params.querySelectorAll("[data-param]")]
      .filter((el) => el.value !== el.dataset.default && el.value !== "")
      .map((el) => `${el.dataset.param}=${el.value}`);
    const request = { game: gameSelect.value, bot: bot.value + (changed.length ? ":" + changed.join(",") : ""),
      seat: seat.value, ...chosen };
    if (request.settings !== undefined && typeof request.settings !== "string") request.settings = JSON.stringify(request.settings);
    sessionStorage.setItem("arena.newgame", JSON.stringify(request));
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
        h("span", { class: "muted" }, ` ${g.game} · ${g.result}${g.scores ? " " + g.scores.join(":") : ""} · ${g.id}`))))
        : h("p", { class: "muted" }, "no finished games yet"));
    } catch (error) { live.replaceChildren(errorBox(error)); }
  };
  await refresh();
  const timer = setInterval(refresh, 4000);
  cleanup.push(() => clearInterval(timer));
  show(h("h1", {}, "Lobby"),
    h("div", { class: "columns" },
      h("section", { class: "card" }, h("h2", {}, "Play against a bot"),
        h("label", {}, "Game ", gameSelect), about, settingsBox,
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
  const name = request.game || "substitution";
  const info = await gameInfo(name);
  const renderer = await rendererFor(name);
  const log = h("ul", { class: "log", id: "log" });
  const area = h("div", { id: "play-area" }, h("p", {}, "Connecting…"));
  const builder = h("div", { id: "builder" });
  const result = h("div", { id: "result-box" });
  const resign = h("button", { id: "resign", disabled: true, onclick: () => {
    if (game.id && !game.over) send({ type: "resign", game_id: game.id });
  } }, "Resign");
  show(h("h1", {}, `Play ${info.title}`), area, builder, result, h("h3", {}, "Moves"), log, h("p", {}, resign));
  setPhase("connecting");
  const note = (...text) => log.prepend(h("li", {}, ...text));

  const guest = await api("/api/guest");
  // The connection comes back after a drop (the server keeps the game for its grace
  // period and resends it: game_start, the position, and our turn if it is ours).
  let ws = null, leaving = false, retryDelay = 500;
  cleanup.push(() => { leaving = true; if (ws) ws.close(); });
  // view: what render() gives for the position shown; legal: the /api/legal answer on our
  // turn; local: the renderer's own notes while it builds a move (reset every turn)
  const game = { id: null, settings: null, seat: null, players: null, view: null, myTurn: null,
    lastTurn: null, legal: null, local: {}, over: false };
  let asked = 0;  // /api/legal answers that arrive after a newer question are dropped
  const send = (message) => ws.send(JSON.stringify(message));

  const ctx = (fields = {}) => context({ game: info, settings: game.settings, players: game.players, me: game.seat,
    legal: game.myTurn ? game.legal : null, local: game.local, play, refresh: refreshLegal, redraw: draw, ...fields });

  function draw() {
    if (!game.view) return;
    area.replaceChildren(boardOf(renderer, game.view, ctx()));
    builder.hidden = game.over;
    if (game.over) return;
    if (!game.myTurn) {
      builder.replaceChildren(h("p", { class: "muted" }, "Waiting for the opponent…"));
    } else if (!game.legal) {
      builder.replaceChildren(h("p", {}, "…"));
    } else {
      builder.replaceChildren(renderer.controls ? renderer.controls(ctx())
        : h("div", {}, h("h3", {}, "Your turn"), h("p", { class: "muted", id: "prompt" },
          renderer.prompt ? renderer.prompt(game.view, ctx()) : "Choose your move above.")));
      setPhase("choose");
    }
  }

  async function refreshLegal(params = {}) {
    setPhase("busy");
    const mine = ++asked;
    let answer;
    try {
      answer = await api("/api/legal", { game_id: game.id, ...params });
    } catch (error) {
      if (error.status === 404) return;  // the game is over: game_over brings the end
      note(`legal options failed: ${error.message}`);
      game.local = {};
      try { answer = await api("/api/legal", { game_id: game.id }); } catch { return; }
    }
    if (mine !== asked || !game.myTurn) return;
    game.legal = answer;
    game.view = answer.render;
    draw();
  }

  async function refreshView() {
    const mine = ++asked;
    try {
      const answer = await api("/api/legal", { game_id: game.id });
      if (mine !== asked || game.myTurn || game.over) return;
      game.view = answer.render;
      draw();
    } catch { /* the game is over: game_over brings the final position */ }
  }

  function play(move) {
    if (!game.myTurn || game.over) return;
    setPhase("busy");
    send({ type: "move", game_id: game.id, turn: game.myTurn.turn, move });
    const chance = game.myTurn.chance;
    const c = ctx({ chance });
    note("you", chance !== null && chance !== undefined ? [" ", chanceText(renderer, chance, c)] : "", ": ", moveText(renderer, move, c));
    game.lastTurn = game.myTurn;
    game.myTurn = null; game.legal = null; game.local = {};
    draw();
    setPhase("waiting");
  }

  function connect() {
    ws = new WebSocket(wsUrl(), "arena.v1.json");
    ws.addEventListener("open", () => send({ type: "hello", protocol: 1, role: "bot", token: guest.token,
      games: [name], client: "arena-web" }));
    ws.addEventListener("close", () => {
      if (leaving || game.over) return;
      note(`the connection closed; reconnecting in ${retryDelay / 1000} s`);
      setPhase("reconnecting");
      setTimeout(() => { if (!leaving && !game.over) connect(); }, retryDelay);
      retryDelay = Math.min(retryDelay * 2, 8000);
    });
    ws.addEventListener("message", (event) => onMessage(JSON.parse(event.data)));
  }

  async function endedWhileAway() {  // the game is over and stored: show how it ended
    try {
      const stored = await api(`/api/games/${game.id}`);
      await onMessage({ type: "game_over", game_id: game.id, result: stored.result, winner: stored.winner,
        scores: stored.scores, termination: stored.termination, reason: stored.reason });
    } catch (error) { note(`the game is gone: ${error.message}`); }
  }

  connect();

  async function onMessage(m) {
    if (m.type === "welcome") {
      retryDelay = 500;
      if (game.id) {  // back after a drop
        note("reconnected");
        if (!m.games.includes(game.id)) await endedWhileAway();
        else setPhase(game.myTurn ? "choose" : "waiting");
        return;
      }
      try {
        const started = await api("/api/play", { token: guest.token, ...request });
        game.id = started.game_id;
      } catch (error) { area.replaceChildren(errorBox(error), h("a", { href: "#/" }, "Back to the lobby")); setPhase("error"); }
    } else if (m.type === "game_start") {
      Object.assign(game, { id: m.game_id, settings: m.settings, seat: m.seat, players: m.players });
      send({ type: "spectate", game_id: m.game_id });  // the position after every move
      resign.disabled = false;
      note(`game ${m.game_id}: ${m.players.join(" vs ")}`);
      setPhase("waiting");
    } else if (m.type === "game_state" || m.type === "moved") {
      if (m.game_id !== game.id || game.myTurn || game.over) return;
      await refreshView();
    } else if (m.type === "your_turn") {
      game.myTurn = { turn: m.turn, chance: m.chance };
      game.local = {};
      await refreshLegal();
    } else if (m.type === "opponent_moved") {
      const c = ctx({ chance: m.chance });
      note(`${game.players[m.seat]}`, m.chance !== null && m.chance !== undefined ? [" ", chanceText(renderer, m.chance, c)] : "",
        ": ", moveText(renderer, m.move, c));
    } else if (m.type === "move_rejected") {
      note(`the server rejected the move (${m.code}): ${m.message}`);
      if (m.retries_left >= 0 && game.lastTurn && !game.over) {  // try again
        game.myTurn = game.lastTurn;
        await refreshLegal();
      }
    } else if (m.type === "game_over") {
      if (m.game_id !== game.id || game.over) return;
      game.over = true; game.myTurn = null; resign.disabled = true;
      const replay = await api("/api/replay", { id: m.game_id }).catch(() => null);
      if (replay) game.view = finalView(replay);
      draw();
      const c = ctx();
      result.replaceChildren(h("section", { class: "card result", id: "result" },
        h("h2", {}, resultText(m, game.players)), h("p", { class: "muted" }, m.reason),
        renderer.summary && game.view ? renderer.summary(game.view, c) : null,
        h("p", {}, h("a", { href: `#/replay?id=${m.game_id}` }, "Replay this game"), " · ",
          h("a", { href: "#/" }, "Back to the lobby"))));
      setPhase("over");
      ws.close();
    } else if (m.type === "error") {
      note(`error: ${m.message}`);
    }
  }
}

// -- watching a live game ------------------------------------------------------------------------

async function watchPage({ params }) {
  const id = params.get("id");
  const area = h("div", { id: "watch-area" }, h("p", {}, "Connecting…"));
  const log = h("ul", { class: "log" });
  show(h("h1", {}, `Watching ${id}`), area, h("h3", {}, "Moves"), log);
  const ws = new WebSocket(wsUrl(), "arena.v1.json");
  cleanup.push(() => ws.close());
  let info = null, renderer = null, gameData = null, asked = 0, over = false;
  const draw = (view) => {
    area.replaceChildren(boardOf(renderer, view, context({ game: gameData, settings: info.settings, players: info.players })));
  };
  const refresh = async () => {
    const mine = ++asked;
    try {
      const answer = await api("/api/legal", { game_id: id });
      if (mine === asked && !over) draw(answer.render);
    } catch { /* over: game_over brings the final position */ }
  };
  ws.addEventListener("open", () => ws.send(JSON.stringify({ type: "hello", protocol: 1, role: "spectator", client: "arena-web" })));
  ws.addEventListener("message", async (event) => {
    const m = JSON.parse(event.data);
    if (m.type === "welcome") ws.send(JSON.stringify({ type: "spectate", game_id: id }));
    else if (m.type === "game_state") {
      const about = await gameInfo(m.game);
      const drawer = await rendererFor(m.game);
      gameData = about; renderer = drawer; info = m;
      await refresh();
    } else if (m.type === "moved" && info) {
      const c = context({ game: gameData, settings: info.settings, players: info.players, chance: m.chance });
      log.prepend(h("li", {}, `${info.players[m.seat]}`, m.chance !== null && m.chance !== undefined
        ? [" ", chanceText(renderer, m.chance, c)] : "", ": ", moveText(renderer, m.move, c)));
      await refresh();
    } else if (m.type === "game_over") {
      over = true;
      const players = info ? info.players : ["first", "second"];
      const replay = await api("/api/replay", { id }).catch(() => null);
      const view = replay && renderer ? finalView(replay) : null;
      if (view) draw(view);
      area.append(h("section", { class: "card result", id: "result" }, h("h2", {}, resultText(m, players)),
        h("p", { class: "muted" }, m.reason),
        view && renderer.summary ? renderer.summary(view, context({ game: gameData, settings: info.settings, players })) : null,
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
      await viewReplay(viewer, await uploadAndReplay(z), chosen.name);
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
    if (params.get("id")) await viewReplay(viewer, await api("/api/replay", { id: params.get("id") }), params.get("id"));
    else if (params.get("t")) {
      await viewReplay(viewer, await api("/api/tournament/game", { name: params.get("t"), id: params.get("g") }),
        `${params.get("t")} game ${params.get("g")}`);
    }
  } catch (error) { viewer.replaceChildren(errorBox(error)); }
}

async function viewReplay(viewer, data, title) {
  const info = await gameInfo(data.game);
  const renderer = await rendererFor(data.game);
  const frames = data.frames;
  let index = 0;
  const slider = h("input", { type: "range", id: "slider", min: 0, max: frames.length - 1, value: 0 });
  const label = h("p", { id: "frame-label", class: "status" });
  const area = h("div", { id: "replay-board" });
  const go = (i) => {
    index = Math.max(0, Math.min(frames.length - 1, i));
    slider.value = index;
    const frame = frames[index];
    const view = frame.render ?? frame.state;
    const ctx = context({ game: info, settings: data.settings, players: data.players, chance: frame.chance ?? null,
      frame: { ...frame, total: frames.length - 1 } });
    const chance = frame.chance;
    label.replaceChildren(...[index === 0 ? "Start of the game" : [
      `Turn ${index} of ${frames.length - 1}: ${data.players[frame.player]}`,
      chance !== null && chance !== undefined ? [" ", chanceText(renderer, chance, ctx)] : "",
      " — ", moveText(renderer, frame.move, ctx)]].flat(3));
    label.dataset.index = index;
    area.replaceChildren(boardOf(renderer, view, ctx));
    if (index === frames.length - 1 && data.outcome && renderer.summary) area.append(renderer.summary(view, ctx));
  };
  slider.addEventListener("input", () => go(Number(slider.value)));
  const keys = (e) => { if (e.key === "ArrowLeft") go(index - 1); if (e.key === "ArrowRight") go(index + 1); };
  document.addEventListener("keydown", keys);
  cleanup.push(() => document.removeEventListener("keydown", keys));
  viewer.replaceChildren(
    h("h2", {}, title || data.id, " · ", info.title, " · ", data.players.join(" vs ")),
    h("p", { id: "replay-result" }, data.live ? "live game, still being played" : resultText(data.outcome, data.players),
      data.outcome && data.outcome.detail ? h("span", { class: "muted" }, ` · ${data.outcome.detail}`) : "",
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
      h("span", { class: "muted" }, ` ${t.game} · ${t.bots.length} bots · ${t.games} games per pairing`))))
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
    h("p", { class: "muted" }, `${data.game || "substitution"} · ${data.games} games per seat order`,
      data.seed !== undefined ? ` · seed ${data.seed}` : "",
      ". Rows: the first player; columns: the second; cells: wins / losses / draws of the first player."),
    table];
  // Elo figures as the tournament JSON gives them: null is infinite, on the side of its score
  // (every pair won or lost), and a bound on the side of its score bound.
  const signed = (v, score) => v !== null && v !== undefined
    ? `${v >= 0 ? "+" : ""}${v.toFixed(1)}` : (score >= 0.5 ? "+∞" : "−∞");
  const elo = (s) => s.elo === undefined ? ""
    : `${signed(s.elo, s.score)} [${signed(s.elo_ci[0], s.score_ci[0])}, ${signed(s.elo_ci[1], s.score_ci[1])}]`;
  const nelo = (s) => s.nelo === undefined ? "" : signed(s.nelo, s.score);
  const los = (s) => s.los === undefined ? "" : `${(100 * s.los).toFixed(1)}%`;
  if (data.summary) {
    parts.push(h("h2", {}, "Summary"), h("table", { class: "summary", id: "tournament-summary" },
      h("tr", {}, ["bot", "games", "wins", "losses", "draws", "Elo (95% CI)", "nElo", "LOS"]
        .map((c) => h("th", {}, c))),
      Object.entries(data.summary).map(([bot, s]) => h("tr", {}, h("td", {}, bot),
        ["games", "wins", "losses", "draws"].map((k) => h("td", {}, s[k] ?? "")),
        h("td", {}, elo(s)), h("td", {}, nelo(s)), h("td", {}, los(s))))));
  }
  if (data.pairings && data.pairings.length) {
    parts.push(h("h2", {}, "Pairings"),
      h("p", { class: "muted" }, "From the first bot's side. A pair is two games on the same dice with seats "
        + "swapped, scored 0, ½, 1, 1½ or 2; intervals from the pair variance."),
      h("table", { class: "summary", id: "tournament-pairings" },
        h("tr", {}, ["pairing", "pairs", "pentanomial (0 … 2)", "score", "Elo (95% CI)", "nElo", "LOS"]
          .map((c) => h("th", {}, c))),
        data.pairings.map((p) => h("tr", {}, h("td", {}, `${p.bots[0]} vs ${p.bots[1]}`),
          h("td", {}, p.units ?? 0), h("td", {}, p.pentanomial.join(" · ")),
          h("td", {}, p.score === undefined ? "" : p.score.toFixed(3)),
          h("td", {}, elo(p)), h("td", {}, nelo(p)), h("td", {}, los(p))))));
  }
  if (data.standings) {
    parts.push(h("h2", {}, "Swiss standings"), h("ol", { id: "tournament-standings" },
      data.standings.map((s) => h("li", {}, `${s.bot}: ${s.points} points`))));
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
