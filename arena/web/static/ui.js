// What every page of the web interface shares: building DOM, the HTTP API, the games'
// renderers and the context they are given, names and results in words, the screen
// reader's announcements. No game is named here (docs/web.md).

export const main = document.getElementById("main");
export const cleanup = [];  // what to undo when the page changes (sockets, timers)

// -- building the page ----------------------------------------------------------------------

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

export function h(tag, attrs = {}, ...children) {
  return build(document.createElement(tag), attrs, children);
}

export function svg(tag, attrs = {}, ...children) {
  return build(document.createElementNS("http://www.w3.org/2000/svg", tag), attrs, children);
}

export function setPhase(phase) { document.body.dataset.phase = phase; }

// Replace an element's children; null, undefined and false are left out (not "null").
export function fill(element, ...children) {
  element.replaceChildren(...children.flat(Infinity).filter((c) => c !== null && c !== undefined && c !== false));
}

export function show(...children) { fill(main, ...children); }

export function errorBox(error) {
  return h("p", { class: "error", role: "alert" }, String(error.message || error));
}

// What a protocol `error` means for the person at the page, in their words (the
// protocol's own text is for bot authors, docs/protocol.md), or null when it is none of
// their business: what the ladder plays (a guest never plays on the ladder).
const PROTOCOL_NOTES = {
  "unknown-game": "this game is not being played any more",
  "not-your-game": "this game is not yours to play",
  "storage-unavailable": "the server cannot store games just now: try again in a minute",
  "rate-limited": "the page sent too much too fast; it reconnects",
  "too-many-errors": "the connection was closed after too many errors; it reconnects",
  unauthorized: "the server did not recognise this browser: reload the page",
};
const NOT_FOR_PLAYERS = new Set(["no-ladder-game", "unknown-game-name", "log-too-long", "log-limit"]);

export function protocolNote(message) {
  if (NOT_FOR_PLAYERS.has(message.code)) return null;
  return PROTOCOL_NOTES[message.code] || "the server did not understand this page: reload it";
}

// A table that scrolls sideways inside its own box on a narrow screen (the page never does).
// It can be focused, so that a keyboard scrolls it too.
export function scrollBox(label, ...children) {
  return h("div", { class: "scroll-x", tabindex: 0, role: "region", "aria-label": label }, children);
}

export function route() {
  const raw = location.hash.replace(/^#/, "") || "/";
  const [path, search] = raw.split("?");
  return { path, params: new URLSearchParams(search || "") };
}

export function wsUrl() {
  return (location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/";
}

// -- the HTTP API (docs/server.md, /api/openapi.json): GETs read, POSTs change or compute ----

// Each navigation starts a new page (`startPage`). An answer that arrives after its page
// was left is dropped (`StalePage`): a slow page never draws over the one that replaced it.
let pageNumber = 0;

export class StalePage extends Error {}

export function startPage() { pageNumber += 1; return pageNumber; }

export function isCurrentPage(number) { return number === pageNumber; }

async function forThisPage(request) {
  const mine = pageNumber;
  const result = await request;
  if (mine !== pageNumber) throw new StalePage("the page was left before its answer came");
  return result;
}

// JSON as the server wrote it: an integer too big for a JavaScript number (a game's seed)
// keeps its exact decimal text instead of becoming 1.86e+38.
export function parseJson(text) {
  return JSON.parse(text, (key, value, context) => (typeof value === "number" && !Number.isSafeInteger(value)
    && context && /^-?\d+$/.test(context.source) ? context.source : value));
}

async function answer(response) {
  const data = await response.text().then(parseJson).catch(() => ({ code: "not-json", message: response.statusText }));
  if (!response.ok) throw Object.assign(new Error(data.message || response.statusText), { data, status: response.status });
  return data;
}

// A GET of the JSON API, for any page (shared caches use it).
async function getJson(path, params = {}) {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined && value !== null) query.set(key, value);
  }
  const url = path + (query.toString() ? "?" + query : "");
  return answer(await fetch(url, { cache: "no-store" }));
}

// A GET of the JSON API for the page being shown (`StalePage` once it is left).
export async function api(path, params = {}) {
  return forThisPage(getJson(path, params));
}

// A POST with a JSON body (or a file, sent as it is); the guest cookie goes along.
export async function post(path, body = {}) {
  const file = body instanceof Blob;
  return forThisPage(fetch(path, { method: "POST", cache: "no-store", credentials: "same-origin",
    headers: { "Content-Type": file ? "text/plain" : "application/json" }, body: file ? body : JSON.stringify(body) })
    .then(answer));
}

// -- remembered choices (this browser only) -------------------------------------------------

export function recall(key, fallback = null) {
  try { return JSON.parse(localStorage.getItem(`arena.${key}`)) ?? fallback; } catch { return fallback; }
}

export function remember(key, value) {
  try { localStorage.setItem(`arena.${key}`, JSON.stringify(value)); } catch { /* private mode */ }
}

// -- for people and screen readers ------------------------------------------------------------

// Said by screen readers (an aria-live region), without moving the focus.
export function announce(text) {
  const region = document.getElementById("announcer");
  if (!region) return;
  region.textContent = "";
  setTimeout(() => { region.textContent = text; }, 30);
}

// A short tone when it is your turn, if this browser asked for it (the header's switch).
let audio = null;

export function beep() {
  if (!recall("sound", false)) return;
  try {
    audio = audio || new AudioContext();
    if (audio.state === "suspended") audio.resume();
    const tone = audio.createOscillator(), gain = audio.createGain(), now = audio.currentTime;
    tone.frequency.value = 660;
    gain.gain.setValueAtTime(0.08, now);
    gain.gain.exponentialRampToValueAtTime(0.0001, now + 0.25);
    tone.connect(gain).connect(audio.destination);
    tone.start(now);
    tone.stop(now + 0.25);
  } catch { /* no sound here */ }
}

export function setTitle(text) {
  document.title = text ? `${text} · the arena` : "The arena";
}

// A board is redrawn after every move: the element that had the focus gets it back (found
// again by its id or data-* attributes), so a keyboard player keeps their place; when it
// is gone (the move just played), the board itself has the focus, and the next Tab
// reaches the board's first move.
export function keepFocus(container, redraw) {
  const active = document.activeElement;
  let selector = null;
  const inside = Boolean(active && active !== document.body && container.contains(active));
  if (inside) {
    if (active.id) selector = `#${CSS.escape(active.id)}`;
    else {
      const data = Object.entries(active.dataset).map(([k, v]) =>
        `[data-${k.replace(/[A-Z]/g, (c) => "-" + c.toLowerCase())}="${CSS.escape(v)}"]`).join("");
      if (data) selector = active.tagName.toLowerCase() + data;
    }
  }
  redraw();
  const again = selector ? container.querySelector(selector) : null;
  if (again && typeof again.focus === "function") again.focus({ preventScroll: true });  // not if disabled now
  if (inside && !container.contains(document.activeElement)) {
    const board = container.querySelector(".board");
    if (board) board.focus({ preventScroll: true });
  }
}

export function formatMs(ms) {
  if (ms === null || ms === undefined) return "–";
  const total = Math.max(0, Math.ceil(ms / 1000));
  const hours = Math.floor(total / 3600), minutes = Math.floor((total % 3600) / 60), seconds = total % 60;
  const mm = hours ? String(minutes).padStart(2, "0") : String(minutes);
  return `${hours ? hours + ":" : ""}${mm}:${String(seconds).padStart(2, "0")}`;
}

// An account as people read it: "random (house bot)" for a built-in bot, "guest 1a2b"
// for a guest.
function accountName(name) {
  if (name.startsWith("house:")) return `${name.slice(6)} (house bot)`;
  if (name.startsWith("guest-")) return `guest ${name.slice(6, 10)}`;
  return name;
}

const ORDINALS = ["first", "second", "third", "fourth"];

// A player as people read it: "You" for the one looking, else the account's name; two
// seats that would read the same (the same bot twice) are told apart by their seat:
// "random (house bot, first)".
export function playerName(players, seat, me = null) {
  if (me !== null && me !== undefined && seat === me) return "You";
  const name = players && players[seat];
  if (name === undefined || name === null) return `seat ${seat + 1}`;
  const shown = accountName(name);
  const twin = players.some((other, s) => s !== seat && s !== me && other !== null && other !== undefined && accountName(other) === shown);
  if (!twin) return shown;
  const where = ORDINALS[seat] || `seat ${seat + 1}`;
  return shown.endsWith(")") ? `${shown.slice(0, -1)}, ${where})` : `${shown} (${where})`;
}

// A result's detail in people's words: "player 1 ran out of cards first" becomes "You ran
// out of cards first", and an account's name ("house:random", "guest-1a2b3c4d") the name
// people read.
export function humanDetail(text, players, me = null) {
  if (!text) return "";
  const seats = players || [];
  return String(text)
    .replace(/\b(house:[\w.:=,-]+|guest-[0-9a-f]{8})\b/g, (account) => {
      const seat = seats.indexOf(account);
      return seat >= 0 ? playerName(seats, seat, me) : accountName(account);
    })
    .replace(/\b[Pp]layer (\d+)\b/g, (_, seat) => playerName(seats, Number(seat), me));
}

const ENDINGS = { resignation: "by resignation", timeout: "on time", disconnect: "(a player left)",
  illegal_move: "by an illegal move", aborted: "" };

// The headline of a result: "You won 36 : 12", "alpha won", "Draw 20 : 20".
// `meaning` is the renderer's `scoreMeaning`: null when the numbers say nothing (1 : 0).
export function resultText(outcome, players, me = null, meaning) {
  if (!outcome) return "no result";
  const { result, winner, termination } = outcome;
  let scores = outcome.scores && meaning !== null ? [...outcome.scores] : null;
  if (result === "aborted" || termination === "aborted") return `Aborted: ${outcome.reason || outcome.detail || ""}`;
  const how = termination && termination !== "normal" ? ` ${ENDINGS[termination] ?? termination}` : "";
  const mine = me !== null && me !== undefined && players.length === 2;
  if (scores && scores.length === 2) {
    const first = mine ? me : (winner ?? 0);
    scores = `${scores[first]} : ${scores[1 - first]}`;
  } else if (scores) scores = scores.join(" : ");
  const tail = scores ? ` ${scores}` : "";
  if (winner === null || winner === undefined || result === "draw") return `Draw${tail}${how}`;
  if (mine) return `${winner === me ? "You won" : "You lost"}${tail}${how}`;
  return `${playerName(players, winner)} won${tail}${how}`;
}

// What the numbers of a result mean, per seat: "points: You 36, random (house bot) 12".
export function scoresLine(outcome, players, me, meaning) {
  if (!outcome || !outcome.scores || meaning === null || meaning === undefined) return null;
  return `${meaning}: ${outcome.scores.map((s, seat) => `${playerName(players, seat, me)} ${s}`).join(", ")}`;
}

// -- games and their renderers -----------------------------------------------------------------

let gamesCache = null;

export function setGames(list) { gamesCache = Promise.resolve(list); }

// Every registered game as /api/web/options lists it (title, renderer, lobby data, bots).
export async function games() {
  if (!gamesCache) gamesCache = getJson("/api/web/options").then((o) => o.games).catch((error) => { gamesCache = null; throw error; });
  return gamesCache;
}

export async function gameInfo(name) {
  return (await games()).find((g) => g.name === name) || { name, title: name, renderer: null, lobby: {}, bots: [], log_formats: [] };
}

function optionLabel(view, move) {
  const option = view && Array.isArray(view.options) ? view.options.find((o) => o.move === move) : null;
  return option && option.label ? option.label : move;
}

// A game without a renderer of its own: its render() as JSON, its legal moves as buttons,
// and its settings as a JSON text.
const JSON_RENDERER = {
  board(view, ctx) {
    const moves = ctx.legal ? ctx.legal.moves || [] : [];
    const typed = h("input", { id: "move-text", "aria-label": "your move", placeholder: ctx.game ? ctx.game.move_syntax : "a move", size: 30 });
    return h("div", { class: "json-board" },
      ctx.legal ? h("div", { class: "moves" }, h("span", {}, "Your move: "),
        moves.map((move) => h("button", { class: "move", "data-move": move, onclick: () => ctx.play(move) },
          optionLabel(view, move))),
        h("form", { onsubmit: (e) => { e.preventDefault(); if (typed.value.trim()) ctx.play(typed.value.trim()); } },
          typed, h("button", {}, "Play"))) : null,
      h("pre", { class: "json" }, JSON.stringify(view, null, 1)));
  },
  settings(ctx) {
    const { game } = ctx;
    const initial = (ctx.saved && ctx.saved.settings) || game.lobby.settings || {};
    const text = h("textarea", { id: "settings-json", rows: 6, cols: 30, spellcheck: "false" }, JSON.stringify(initial, null, 1));
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
export async function rendererFor(name) {
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
export function context(fields) {
  return { h, svg, api, post, game: null, settings: {}, players: [], me: null, frame: null, legal: null,
    last: null, local: {}, chance: null, saved: null, name: (seat) => playerName(fields.players || [], seat, fields.me ?? null),
    play: () => {}, refresh: () => {}, redraw: () => {}, ...fields };
}

// The board under a heading of its own (a screen reader's outline: the page's title, the
// board, the players' sections in it).
export function boardOf(renderer, view, ctx, heading = true) {
  return h("div", { class: "board", "data-game": ctx.game ? ctx.game.name : "", tabindex: -1 },
    heading ? h("h2", { class: "visually-hidden" }, "The board") : null, renderer.board(view, ctx));
}

export function moveText(renderer, move, ctx) {
  return renderer.describeMove ? renderer.describeMove(move, ctx) : h("code", {}, move);
}

export function chanceText(renderer, chance, ctx) {
  if (renderer.describeChance) return renderer.describeChance(chance, ctx);
  return [`${(ctx.game && ctx.game.chance_name) || "chance"} `, h("code", {}, JSON.stringify(chance))];
}

// "alpha rolled 3 and 5: turned down 8" as a list of nodes, for logs and move lists.
export function moveLine(renderer, ctx, seat, move, chance) {
  const c = { ...ctx, chance: chance ?? null };
  return [playerName(ctx.players, seat, ctx.me),
    chance !== null && chance !== undefined ? [" ", chanceText(renderer, chance, c)] : "",
    ": ", moveText(renderer, move, c)];
}

// The text of what `h` takes as children (nodes, strings, nested lists), for the screen
// reader's announcement: the nodes stay where they are (a log line keeps its roll).
export function textOf(nodes) {
  return [nodes].flat(Infinity).map((n) => (n instanceof Node ? n.textContent
    : n === null || n === undefined || n === false ? "" : String(n))).join("");
}

export function finalView(replay) {
  const frame = replay.frames[replay.frames.length - 1];
  return frame.render ?? frame.state;
}
