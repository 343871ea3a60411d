// The arena's web interface: a single page, no build step, no external network.
// The browser is a protocol client like any bot (docs/protocol.md, subprotocol
// arena.v1.json); the HTTP endpoints it uses are listed in docs/web.md.
//
// This file knows no game: every game draws its board through its own renderer, an ES
// module the game plugin ships (`Game.web_renderer`, served at /static/games/NAME.js),
// and may add pages of its own (a grammar editor, say). What a renderer exports and
// what it is given (`ctx`) is described in docs/web.md. Shared helpers are in ui.js.

import {
  announce, api, beep, boardOf, cleanup, context, errorBox, fill, finalView, formatMs, gameInfo, games, h,
  humanDetail, isCurrentPage, keepFocus, moveLine, playerName, post, protocolNote, recall, remember, rendererFor,
  resultText, route, scoresLine, scrollBox, setGames, setPhase, setTitle, show, startPage, textOf,
  wsUrl,
} from "/static/ui.js";

// -- lobby -----------------------------------------------------------------------------------

// The /api/play request of the lobby's form, checked by the referee's own rules first
// (POST /api/settings/check): a bad grammar, depth, move count or deal is shown here,
// before the lobby is left.
async function lobbyPage() {
  const options = await api("/api/web/options");
  setGames(options.games);
  const loaded = await Promise.all(options.games.map((g) => rendererFor(g.name)));
  const byName = Object.fromEntries(options.games.map((g, i) => [g.name, { info: g, renderer: loaded[i] }]));
  const lastGame = recall("lobby.game", options.game);
  const gameSelect = h("select", { id: "game" }, options.games.map((g) =>
    h("option", { value: g.name, selected: g.name === lastGame }, g.title)));
  const about = h("p", { class: "muted", id: "game-about" });
  const howto = h("a", { id: "howto-link" });
  const settingsBox = h("div", { id: "settings" });
  const bot = h("select", { id: "bot" });
  const params = h("div", { id: "params" });
  const seat = h("select", { id: "seat" }, h("option", { value: 0 }, "first (you move first)"),
    h("option", { value: 1 }, "second"));
  const message = h("p", { id: "lobby-message", "aria-live": "polite" });
  let form = null;
  const current = () => byName[gameSelect.value];
  const saved = () => recall(`lobby.${gameSelect.value}`, null);
  const syncParams = (values = {}) => {
    const factory = current().info.bots.find((b) => b.name === bot.value);
    if (!factory) { params.replaceChildren(); return; }
    params.replaceChildren(h("p", { class: "muted" }, factory.description),
      ...factory.params.map((p) => {
        const value = values[p.name] ?? String(p.default);
        return h("label", { class: "param" }, `${p.name} `,
          p.kind === "choice"
            ? h("select", { "data-param": p.name, "data-default": String(p.default) },
              p.choices.map((c) => h("option", { value: c, selected: value === c }, c)))
            : h("input", { "data-param": p.name, "data-default": String(p.default), value,
              type: p.kind === "int" || p.kind === "float" ? "number" : "text",
              step: p.kind === "float" ? "any" : null, min: p.minimum, max: p.maximum }),
          h("small", { class: "muted" }, " " + p.doc));
      }));
  };
  const setMessage = (text, kind = "") => { message.className = kind; message.replaceChildren(text || ""); };
  const syncGame = () => {
    const { info, renderer } = current();
    const last = saved();
    about.replaceChildren(info.description);
    howto.href = `#/howto?game=${encodeURIComponent(info.name)}`;
    howto.textContent = `How to play ${info.title}, with an example`;
    form = renderer.settings(context({ game: info, options, saved: last, cleanup: (undo) => cleanup.push(undo) }));
    settingsBox.replaceChildren(form.element);
    const bots = info.bots.map((b) => b.name);
    const [lastBot, lastParams] = last && last.bot ? splitSpec(last.bot) : [null, {}];
    const preferred = bots.includes(lastBot) ? lastBot
      : [`random`, `${info.name}-random`].find((b) => bots.includes(b)) || bots[0];
    bot.replaceChildren(...bots.map((b) => h("option", { value: b, selected: b === preferred }, b)));
    if (last && last.seat !== undefined) seat.value = String(last.seat);
    setMessage();
    syncParams(preferred === lastBot ? lastParams : {});
  };
  gameSelect.addEventListener("change", () => { remember("lobby.game", gameSelect.value); syncGame(); });
  bot.addEventListener("change", () => syncParams());
  syncGame();
  const request = () => {
    const chosen = form.value();  // throws an Error the lobby shows
    if (!bot.value) throw new Error("no bot plays this game");
    const changed = [...params.querySelectorAll("[data-param]")]
      .filter((el) => el.value !== el.dataset.default && el.value !== "")
      .map((el) => `${el.dataset.param}=${el.value}`);
    return { game: gameSelect.value, bot: bot.value + (changed.length ? ":" + changed.join(",") : ""),
      seat: Number(seat.value), ...chosen };
  };
  const start = h("button", { id: "start", class: "primary", onclick: async () => {
    let chosen;
    try { chosen = request(); } catch (error) { setMessage(error.message, "error"); return; }
    start.disabled = true;
    setMessage("Checking the settings…");
    try {
      await post("/api/settings/check", chosen);
    } catch (error) {
      start.disabled = false;
      setMessage(error.message, "error");
      setPhase("lobby-error");
      return;
    }
    remember(`lobby.${chosen.game}`, chosen);
    startGame(chosen);
  } }, "Start the game");
  const lists = gameLists(options.games);
  show(h("h1", {}, "Lobby"),
    h("div", { class: "columns" },
      h("section", { class: "card", "aria-labelledby": "new-game" }, h("h2", { id: "new-game" }, "Play against a bot"),
        h("label", {}, "Game ", gameSelect), about, h("p", {}, howto), settingsBox,
        h("label", {}, "Opponent ", bot), params,
        h("label", {}, "Your seat ", seat), start, message,
        h("p", { class: "muted" }, "Or ", h("a", { href: "#/bots" }, "let two bots play, or run a tournament"), ".")),
      lists.element));
  await lists.refresh();
  setPhase("lobby");
}

function splitSpec(spec) {
  const [name, rest] = spec.split(/:(.*)/s);
  const params = {};
  for (const part of (rest || "").split(",").filter(Boolean)) {
    const [key, value] = part.split("=");
    params[key] = value;
  }
  return [name, params];
}

function startGame(request) {
  sessionStorage.setItem("arena.newgame", JSON.stringify(request));
  if (location.hash === "#/play") navigate(); else location.hash = "#/play";
}

// The lobby's lists: live games (to watch), recent ones (to replay) and your own, filtered
// by game; refreshed every few seconds.
function gameLists(gameList) {
  const filter = h("select", { id: "list-game" }, h("option", { value: "" }, "every game"),
    gameList.map((g) => h("option", { value: g.name, selected: g.name === recall("lobby.filter", "") }, g.title)));
  const tabs = { live: "Live", recent: "Recent", mine: "Your games" };
  let tab = recall("lobby.tab", "live");
  const body = h("div", { id: "game-list", "aria-live": "polite" });
  const buttons = Object.entries(tabs).map(([key, label]) => h("button", { class: "tab", id: `tab-${key}`, role: "tab",
    "aria-selected": String(key === tab), onclick: () => { tab = key; remember("lobby.tab", key); update(); refresh(); } }, label));
  const update = () => buttons.forEach((b) => b.setAttribute("aria-selected", String(b.id === `tab-${tab}`)));
  const titleOf = (name) => (gameList.find((g) => g.name === name) || { title: name }).title;
  const item = (g, href, extra) => h("li", {}, h("a", { href }, g.players.map((p, s) => playerName(g.players, s)).join(" vs ")),
    h("span", { class: "muted" }, ` · ${titleOf(g.game)}${extra ? " · " + extra : ""}`));
  const refresh = async () => {
    const game = filter.value || undefined;
    try {
      let rows, make;
      if (tab === "live") {
        rows = (await api("/api/games", { status: "running", limit: 30, game })).games;
        make = (g) => item(g, `#/watch?id=${g.id}`, `turn ${g.turns ?? 0}`);
      } else if (tab === "recent") {
        rows = (await api("/api/games", { status: "finished", limit: 15, game })).games;
        make = (g) => item(g, `#/replay?id=${g.id}`, resultText(g, g.players, null, g.scores && g.scores.length ? undefined : null));
      } else {
        const me = await api("/api/me");
        rows = me.name ? (await api("/api/games", { bot: me.name, limit: 30, game })).games : [];
        const mine = (g) => g.players.indexOf(me.name);
        make = (g) => item(g, g.status === "running" ? `#/play?id=${g.id}` : `#/replay?id=${g.id}`,
          g.status === "running" ? "still being played: continue" : resultText(g, g.players, mine(g)));
      }
      body.replaceChildren(rows.length ? h("ul", {}, rows.map(make))
        : h("p", { class: "muted" }, tab === "live" ? "no games are being played" : tab === "recent" ? "no finished games yet"
          : "you have not played here yet (in this browser)"));
    } catch (error) { body.replaceChildren(errorBox(error)); }
  };
  filter.addEventListener("change", () => { remember("lobby.filter", filter.value); refresh(); });
  const timer = setInterval(refresh, 4000);
  cleanup.push(() => clearInterval(timer));
  return {
    element: h("section", { class: "card", "aria-labelledby": "games-heading" }, h("h2", { id: "games-heading" }, "Games"),
      h("div", { class: "tabs", role: "tablist" }, buttons), h("label", {}, "Show ", filter), body),
    refresh,
  };
}

// -- playing by hand ---------------------------------------------------------------------------

// The page's address names its game (#/play?id=G), and the guest cookie survives a reload:
// a reloaded page finds the game again (/api/me) and the server resends it (game_start, the
// position, our turn). A dropped connection comes back the same way.
async function playPage({ params }) {
  let gameId = params.get("id");
  const request = gameId ? null : JSON.parse(sessionStorage.getItem("arena.newgame") || "null");
  if (!gameId && !request) { location.hash = "#/"; return; }
  setPhase("connecting");
  let me = await api("/api/me");
  const known = gameId ? me.games.find((g) => g.game_id === gameId) : null;
  if (gameId && !known) { await finishedGame(gameId, me.name); return; }
  if (!me.name) { await post("/api/guest"); me = await api("/api/me"); }  // the token comes as an HttpOnly cookie
  if (request) sessionStorage.removeItem("arena.newgame");  // a reload must not start another game
  const name = known ? known.game : request.game;
  const info = await gameInfo(name);
  const renderer = await rendererFor(name);
  const log = h("ol", { class: "log", id: "log", reversed: true, tabindex: 0, "aria-label": "the moves, the last first" });
  const events = h("ul", { class: "events muted", id: "events", tabindex: 0, "aria-label": "what happened to the connection" });
  const area = h("div", { id: "play-area" }, h("p", {}, "Connecting…"));
  // a turn built in steps (the renderer's `controls`) has its box beside the board (below it
  // on a phone, kept on the screen); otherwise a line above the board says whose turn it is
  const stepped = Boolean(renderer.controls);
  const builder = h("div", { id: "builder", class: stepped ? "steps" : "turn-line", role: "region", "aria-label": "your turn" });
  const result = h("div", { id: "result-box" });
  const clocks = h("div", { class: "clocks", id: "clocks" });
  const resign = h("button", { id: "resign", disabled: true, onclick: () => {
    if (game.id && !game.over) send({ type: "resign", game_id: game.id });
  } }, "Resign");
  show(h("h1", {}, `Play ${info.title}`), clocks,
    stepped ? h("div", { class: "play stepped" }, area, builder) : h("div", { class: "play" }, builder, area), result,
    h("h2", { class: "h3" }, "Moves"), log, events,
    h("p", { class: "actions" }, resign, h("a", { href: `#/howto?game=${encodeURIComponent(name)}` }, `How to play ${info.title}`)));
  const note = (...text) => events.prepend(h("li", {}, ...text));

  let ws = null, leaving = false, retryDelay = 500;
  cleanup.push(() => { leaving = true; if (ws) ws.close(); setTitle(""); });
  // view: what render() gives for the position shown; legal: the /api/legal answer on our
  // turn; local: the renderer's own notes while it builds a move (reset every turn)
  const game = { id: gameId, settings: null, seat: known ? known.seat : null, players: known ? known.players : null,
    view: null, myTurn: null, lastTurn: null, legal: null, local: {}, over: false, last: null, moves: 0 };
  let asked = 0;  // /api/legal answers that arrive after a newer question are dropped
  let pending = [];  // messages of a game we are starting, before /api/play answered
  const send = (message) => ws.send(JSON.stringify(message));
  const clock = clockView(clocks, () => game.players, () => game.seat);
  cleanup.push(clock.stop);

  const ctx = (fields = {}) => context({ game: info, settings: game.settings, players: game.players, me: game.seat,
    legal: game.myTurn ? game.legal : null, local: game.local, last: game.last, play, refresh: refreshLegal, redraw: draw, ...fields });

  function draw() {
    if (!game.view) return;
    keepFocus(document.getElementById("main"), () => {
      area.replaceChildren(boardOf(renderer, game.view, ctx()));
      builder.hidden = game.over;
      if (game.over) return;
      if (!game.myTurn) {
        builder.replaceChildren(h("p", { class: "muted" }, `Waiting for ${playerName(game.players, 1 - game.seat)}…`));
      } else if (!game.legal) {
        builder.replaceChildren(h("p", {}, "…"));
      } else {
        builder.replaceChildren(renderer.controls ? renderer.controls(ctx())
          : h("p", {}, h("strong", {}, "Your turn: "), h("span", { id: "prompt" },
            renderer.prompt ? renderer.prompt(game.view, ctx()) : "choose your move below.")));
      }
    });
    if (game.myTurn && game.legal && !game.over) setPhase("choose");
  }

  function showPosition(answer) {
    game.view = answer.render;
    if (answer.clocks) clock.update(answer.clocks, answer.to_act);
    draw();
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
    if (mine !== asked || !game.myTurn || answer.render === null) return;  // over: game_over follows
    game.legal = answer;
    showPosition(answer);
  }

  async function refreshView() {
    const mine = ++asked;
    try {
      const answer = await api("/api/legal", { game_id: game.id });
      if (mine !== asked || game.myTurn || game.over || answer.render === null) return;
      showPosition(answer);
    } catch { /* the game is over: game_over brings the final position */ }
  }

  function logMove(seat, move, chance) {
    game.last = { player: seat, move, chance: chance ?? null };
    game.moves += 1;
    const line = moveLine(renderer, ctx(), seat, move, chance);
    log.prepend(h("li", { value: game.moves }, line));
    return line;
  }

  function play(move) {
    if (!game.myTurn || game.over) return;
    setPhase("busy");
    send({ type: "move", game_id: game.id, turn: game.myTurn.turn, move });
    logMove(game.seat, move, game.myTurn.chance);
    game.lastTurn = game.myTurn;
    game.myTurn = null; game.legal = null; game.local = {};
    setTitle(`${info.title}: waiting`);
    draw();
    setPhase("waiting");
  }

  function connect() {
    ws = new WebSocket(wsUrl(), "arena.v1.json");
    // no token: the handshake carried the guest cookie (same origin)
    ws.addEventListener("open", () => send({ type: "hello", protocol: 1, role: "bot",
      games: [name], client: "arena-web" }));
    ws.addEventListener("close", () => {
      if (leaving || game.over) return;
      note(`the connection closed; reconnecting in ${retryDelay / 1000} s`);
      announce("Connection lost; reconnecting");
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

  async function catchUp() {  // the moves played before this page (a reload) came
    try {
      const answer = await api("/api/moves", { game_id: game.id });
      log.replaceChildren(); game.moves = 0;
      for (const m of answer.moves) logMove(m.seat, m.move, m.chance);
    } catch { /* over: the result follows */ }
  }

  connect();

  async function onMessage(m) {
    if (m.type === "welcome") {
      retryDelay = 500;
      if (game.id) {  // back after a drop or a reload
        if (m.games.includes(game.id)) note("reconnected"); else await endedWhileAway();
        return;
      }
      try {
        const started = await post("/api/play", request);
        game.id = started.game_id;
        history.replaceState(null, "", `#/play?id=${game.id}`);  // a reload finds this game
        const early = pending.filter((p) => p.game_id === game.id);
        pending = [];
        for (const p of early) await onMessage(p);
      } catch (error) {
        area.replaceChildren(errorBox(error), h("a", { href: "#/" }, "Back to the lobby")); setPhase("error");
      }
      return;
    }
    if (m.type === "error" && !m.game_id) { const text = protocolNote(m); if (text) note(text); return; }
    if (!game.id) { pending.push(m); return; }
    if (m.game_id !== game.id) return;  // another game of this guest (another tab)
    if (m.type === "game_start") {
      const resumed = game.settings !== null || gameId !== null;
      Object.assign(game, { settings: m.settings, seat: m.seat, players: m.players });
      send({ type: "spectate", game_id: m.game_id });  // the position after every move
      resign.disabled = false;
      if (resumed) await catchUp();
      else announce(`Game started: you play ${m.seat === 0 ? "first" : "second"} against ${playerName(m.players, 1 - m.seat)}`);
      setPhase("waiting");
    } else if (m.type === "game_state" || m.type === "moved") {
      if (game.myTurn || game.over) return;
      await refreshView();
    } else if (m.type === "your_turn") {
      game.myTurn = { turn: m.turn, chance: m.chance };
      game.local = {};
      setTitle(`Your turn · ${info.title}`);
      announce("Your turn");
      beep();
      await refreshLegal();
    } else if (m.type === "opponent_moved") {
      const line = logMove(m.seat, m.move, m.chance);
      announce(textOf(line));
    } else if (m.type === "move_rejected") {
      note(`the referee refused the move: ${humanDetail(m.message, game.players, game.seat)}`);
      if (m.retries_left >= 0 && game.lastTurn && !game.over) {  // try again
        log.firstChild?.remove(); game.moves -= 1;
        game.myTurn = game.lastTurn;
        await refreshLegal();
      }
    } else if (m.type === "game_over") {
      if (game.over) return;
      game.over = true; game.myTurn = null; resign.disabled = true;
      clock.stop();
      const replay = await api("/api/replay", { id: m.game_id }).catch(() => null);
      if (replay) game.view = finalView(replay);
      draw();
      const headline = resultText(m, game.players, game.seat, renderer.scoreMeaning);
      result.replaceChildren(resultCard(renderer, m, game, ctx(), headline,
        h("button", { id: "play-again", class: "primary", onclick: () => startGame(againRequest(name, game)) }, "Play again")));
      setTitle(`${headline} · ${info.title}`);
      announce(headline);
      setPhase("over");
      ws.close();
    } else if (m.type === "error") {
      const text = protocolNote(m);
      if (text) note(text);
    }
  }
}

// The same game again: the same settings, opponent and seat.
function againRequest(name, game) {
  const house = game.players.find((p, seat) => seat !== game.seat) || "";
  return { game: name, settings: game.settings, bot: house.replace(/^house:/, ""), seat: game.seat };
}

function resultCard(renderer, outcome, game, ctx, headline, ...actions) {
  const meaning = scoresLine(outcome, game.players, game.seat, renderer.scoreMeaning);
  return h("section", { class: "card result", id: "result" },
    h("h2", {}, headline),
    meaning ? h("p", { id: "result-scores" }, meaning) : null,
    h("p", { class: "muted" }, humanDetail(outcome.reason || outcome.detail, game.players, game.seat)),
    explained(renderer, outcome, game.view, ctx),
    renderer.summary && game.view ? renderer.summary(game.view, ctx) : null,
    h("p", { class: "actions" }, actions, h("a", { href: `#/replay?id=${outcome.game_id}` }, "Replay this game"), " · ",
      h("a", { href: "#/" }, "Back to the lobby")));
}

// Why a result reads as it does, where the game's renderer says (a 0 : 0 that is no draw).
function explained(renderer, outcome, view, ctx) {
  const text = renderer.explainResult && view ? renderer.explainResult(outcome, view, ctx) : null;
  return text ? h("p", { id: "result-explained" }, text) : null;
}

// A game this browser played that is over (a reload after the end): its result and board.
async function finishedGame(id, guest) {
  const stored = await api(`/api/games/${id}`);
  const info = await gameInfo(stored.game);
  const renderer = await rendererFor(stored.game);
  const seat = stored.players.indexOf(guest);
  const game = { players: stored.players, seat: seat >= 0 ? seat : null, view: null, settings: stored.settings };
  const replay = await api("/api/replay", { id }).catch(() => null);
  if (replay) game.view = finalView(replay);
  const ctx = context({ game: info, settings: stored.settings, players: stored.players, me: game.seat });
  const outcome = { ...stored, game_id: id };
  const headline = resultText(outcome, stored.players, game.seat, renderer.scoreMeaning);
  show(h("h1", {}, `${info.title}: the game is over`),
    game.view ? h("div", { id: "play-area" }, boardOf(renderer, game.view, ctx)) : null,
    resultCard(renderer, outcome, game, ctx, headline, game.seat !== null
      ? h("button", { id: "play-again", class: "primary", onclick: () => startGame(againRequest(stored.game, game)) }, "Play again") : null));
  setPhase("over");
}

// Both players' clocks: the mover's time for this move ticks down between the server's
// answers, first its allowance ("move 9:58"), then its bank; the other shows its bank.
function clockView(element, players, me) {
  let state = null, since = 0, timer = null;
  const render = () => {
    if (!state || !players()) return;
    const elapsed = performance.now() - since;
    element.replaceChildren(...state.clocks.seats.map((c, seat) => {
      const moving = seat === state.toAct && state.clocks.left_ms !== null;
      const left = moving ? Math.max(0, state.clocks.left_ms - elapsed) : null;  // allowance + bank
      return h("div", { class: "clock" + (moving ? " running" : ""), "data-seat": seat, id: `clock-${seat}` },
        h("span", { class: "who" }, playerName(players(), seat, me())),
        moving ? h("span", { class: "time move-time", title: "time left for this move, before the bank is used" },
          `move ${formatMs(Math.max(0, left - c.bank_ms))}`) : null,
        h("span", { class: "time bank-time" + (moving ? "" : " muted"), title: "the bank: time for any move beyond its own" },
          `bank ${formatMs(moving ? Math.min(c.bank_ms, left) : c.bank_ms)}`));
    }));
  };
  return {
    update(clocks, toAct) {
      state = { clocks, toAct }; since = performance.now(); render();
      if (!timer) timer = setInterval(render, 500);
    },
    stop() { clearInterval(timer); timer = null; if (state) { state.clocks.left_ms = null; render(); } },
  };
}

// -- watching a live game ------------------------------------------------------------------------

async function watchPage({ params }) {
  const id = params.get("id");
  const area = h("div", { id: "watch-area" }, h("p", {}, "Connecting…"));
  const status = h("p", { class: "status", id: "watch-status", "aria-live": "polite" });
  const clocks = h("div", { class: "clocks", id: "clocks" });
  const log = h("ol", { class: "log", id: "log", reversed: true, tabindex: 0, "aria-label": "the moves, the last first" });
  show(h("h1", {}, "Watching"), status, clocks, area, h("h2", { class: "h3" }, "Moves"), log);
  const ws = new WebSocket(wsUrl(), "arena.v1.json");
  cleanup.push(() => ws.close());
  let info = null, renderer = null, gameData = null, asked = 0, over = false, moves = 0, last = null;
  const players = () => (info ? info.players : null);
  const clock = clockView(clocks, players, () => null);
  cleanup.push(clock.stop);
  const ctx = (fields = {}) => context({ game: gameData, settings: info.settings, players: info.players, last, ...fields });
  const draw = (view) => keepFocus(area, () => area.replaceChildren(boardOf(renderer, view, ctx())));
  const logMove = (seat, move, chance) => {
    moves += 1;
    last = { player: seat, move, chance: chance ?? null };
    const line = moveLine(renderer, ctx(), seat, move, chance);
    log.prepend(h("li", { value: moves }, line));
    return line;
  };
  const refresh = async () => {
    const mine = ++asked;
    try {
      const answer = await api("/api/legal", { game_id: id });
      if (mine !== asked || over || answer.render === null) return;  // over: game_over follows
      draw(answer.render);
      clock.update(answer.clocks, answer.to_act);
      status.replaceChildren(answer.to_act >= 0 ? `${playerName(info.players, answer.to_act)} to move · turn ${answer.turn + 1}` : "");
    } catch { /* over: game_over brings the final position */ }
  };
  ws.addEventListener("open", () => ws.send(JSON.stringify({ type: "hello", protocol: 1, role: "spectator", client: "arena-web" })));
  ws.addEventListener("message", async (event) => {
    const m = JSON.parse(event.data);
    if (m.type === "welcome") ws.send(JSON.stringify({ type: "spectate", game_id: id }));
    else if (m.type === "game_state") {
      gameData = await gameInfo(m.game); renderer = await rendererFor(m.game); info = m;
      document.querySelector("main h1").textContent = `Watching ${gameData.title}: ${m.players.map((p, s) => playerName(m.players, s)).join(" vs ")}`;
      const before = await api("/api/moves", { game_id: id }).catch(() => ({ moves: [] }));
      log.replaceChildren(); moves = 0;
      for (const move of before.moves) logMove(move.seat, move.move, move.chance);  // played before we came
      await refresh();
      setPhase("watching");
    } else if (m.type === "moved" && info) {
      if (m.turn < moves) return;  // already listed from /api/moves
      announce(textOf(logMove(m.seat, m.move, m.chance)));
      await refresh();
    } else if (m.type === "game_over") {
      over = true;
      clock.stop();
      const who = info ? info.players : ["first", "second"];
      const replay = await api("/api/replay", { id }).catch(() => null);
      const view = replay && renderer ? finalView(replay) : null;
      if (view) draw(view);
      status.replaceChildren("The game is over");
      const headline = resultText(m, who, null, renderer ? renderer.scoreMeaning : undefined);
      announce(headline);
      area.append(h("section", { class: "card result", id: "result" }, h("h2", {}, headline),
        h("p", {}, scoresLine(m, who, null, renderer ? renderer.scoreMeaning : undefined)),
        h("p", { class: "muted" }, humanDetail(m.reason, who)),
        renderer ? explained(renderer, m, view, ctx()) : null,
        view && renderer.summary ? renderer.summary(view, ctx()) : null,
        h("a", { href: `#/replay?id=${id}` }, "Replay this game")));
      setPhase("over");
    } else if (m.type === "error" && m.code === "unknown-game") {
      location.replace(`#/replay?id=${encodeURIComponent(id)}`);  // it just ended: its replay
    } else if (m.type === "error") {
      const text = protocolNote(m);
      if (text) area.replaceChildren(errorBox(text));
    }
  });
}

// -- replay viewer -------------------------------------------------------------------------------

async function replayPage({ params }) {
  const viewer = h("div", { id: "viewer" });
  const idInput = h("input", { id: "game-id", placeholder: "game id", value: params.get("id") || "" });
  const file = h("input", { type: "file", id: "upload", accept: ".jsonl,.log,.txt,.json" });
  file.addEventListener("change", async () => {
    const chosen = file.files[0];
    if (!chosen) return;
    viewer.replaceChildren(h("p", {}, "Replaying the uploaded log…"));
    try {
      await viewReplay(viewer, await post("/api/replay", chosen), { title: chosen.name });  // the file is the body
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
    const id = params.get("id");
    const move = params.has("move") ? Number(params.get("move")) : null;  // a shared link's position
    if (id) await viewReplay(viewer, await api("/api/replay", { id }), { title: id, id, move });
    else if (params.get("t")) {
      const [t, g] = [params.get("t"), params.get("g")];
      await viewReplay(viewer, await api("/api/tournament/game", { name: t, id: g }),
        { title: `${t} game ${g}`, tournament: t, tgame: g, move });
    }
  } catch (error) { viewer.replaceChildren(errorBox(error)); }
}

const SPEEDS = [["0.5×", 1600], ["1×", 800], ["2×", 400], ["4×", 200], ["8×", 100]];

// The viewer: start / back / play-pause / forward / end, the speed, a slider and the keys
// (arrows: a move; Home, End; Space: play or pause), a numbered move list that follows the
// move shown, the board with the last move marked; a live game's replay grows as it is
// played. The address names the move shown (`&move=N`), so a link opens that position.
// `source`: {title, id} (a stored or live game), {tournament, tgame} or {title} (an
// upload); `move`: the position to open.
async function viewReplay(viewer, data, source) {
  const info = await gameInfo(data.game);
  const renderer = await rendererFor(data.game);
  let frames = data.frames;
  let index = 0, playing = null;
  const slider = h("input", { type: "range", id: "slider", min: 0, max: frames.length - 1, value: 0, "aria-label": "position in the game" });
  const label = h("p", { id: "frame-label", class: "status", "aria-live": "polite" });
  const notes = h("ul", { id: "frame-notes", class: "muted", "aria-label": "the bots' debug lines" });  // the bots' debug lines
  const area = h("div", { id: "replay-board" });
  const list = h("ol", { class: "move-list", id: "move-list" });
  const speed = h("select", { id: "speed" }, SPEEDS.map(([name, ms]) => h("option", { value: ms, selected: ms === recall("replay.speed", 800) }, name)));
  const playButton = h("button", { id: "play", "aria-pressed": "false", onclick: () => (playing ? pause() : resume()) }, "▶ play");
  const baseCtx = () => context({ game: info, settings: data.settings, players: data.players });
  const listItems = () => {
    fill(list, ...frames.slice(1).map((frame) => h("li", { value: frame.index },
      h("button", { class: "frame-link", "data-frame": frame.index, onclick: () => { pause(); go(frame.index); } },
        moveLine(renderer, baseCtx(), frame.player, frame.move, frame.chance)))),
    data.error_turn ? h("li", { value: data.error_turn, class: "rejected", id: "rejected-move" },
      h("span", {}, `rejected by the referee: ${data.error.replace(/^turn \d+: /, "")}`)) : null);
  };
  const go = (i) => {
    index = Math.max(0, Math.min(frames.length - 1, i));
    slider.value = index;
    const frame = frames[index];
    const view = frame.render ?? frame.state;
    const last = index ? { player: frame.player, move: frame.move, chance: frame.chance ?? null } : null;
    const ctx = context({ game: info, settings: data.settings, players: data.players, chance: frame.chance ?? null,
      frame: { ...frame, total: frames.length - 1 }, last });
    fill(label, index === 0 ? "Start of the game"
      : [`Turn ${index} of ${frames.length - 1}: `, moveLine(renderer, ctx, frame.player, frame.move, frame.chance)]);
    label.dataset.index = index;
    notes.replaceChildren(...(frame.notes || []).map((n) => h("li", {}, `${playerName(data.players, n.player)}: ${n.text}`)));
    area.replaceChildren(boardOf(renderer, view, ctx));
    if (index === frames.length - 1 && data.outcome && renderer.summary) area.append(renderer.summary(view, ctx));
    for (const item of list.querySelectorAll("button[aria-current]")) item.removeAttribute("aria-current");
    const current = list.querySelector(`button[data-frame="${index}"]`);
    if (current) {
      current.setAttribute("aria-current", "step");
      const box = current.getBoundingClientRect(), shown = list.getBoundingClientRect();  // the list scrolls, not the page
      if (box.top < shown.top) list.scrollTop += box.top - shown.top;
      else if (box.bottom > shown.bottom) list.scrollTop += Math.min(box.bottom - shown.bottom, box.top - shown.top);
    }
    if (index >= frames.length - 1 && playing && !data.live) pause();
    if ((source.id || source.tournament) && viewer.isConnected) {  // the position, in the address
      const [path, query] = location.hash.split("?");
      const search = new URLSearchParams(query || "");
      search.set("move", index);
      history.replaceState(null, "", `${path}?${search}`);
    }
  };
  const pause = () => {
    clearInterval(playing); playing = null;
    playButton.textContent = "▶ play"; playButton.setAttribute("aria-pressed", "false");
  };
  const resume = () => {
    if (index >= frames.length - 1 && !data.live) go(0);
    clearInterval(playing);
    playing = setInterval(() => { if (index < frames.length - 1) go(index + 1); else if (!data.live) pause(); }, Number(speed.value));
    playButton.textContent = "❚❚ pause"; playButton.setAttribute("aria-pressed", "true");
  };
  speed.addEventListener("change", () => { remember("replay.speed", Number(speed.value)); if (playing) resume(); });
  slider.addEventListener("input", () => { pause(); go(Number(slider.value)); });
  // the keys step once: a focused slider or field moves by itself, so it is left alone, and
  // Space on a focused button or link is that button's
  const keys = (e) => {
    if (e.altKey || e.ctrlKey || e.metaKey || (e.target.closest && e.target.closest("input, select, textarea"))) return;
    const to = { ArrowLeft: index - 1, ArrowRight: index + 1, Home: 0, End: frames.length - 1 }[e.key];
    if (to !== undefined) { e.preventDefault(); pause(); go(to); }
    else if (e.key === " " && !(e.target.closest && e.target.closest("button, a"))) {
      e.preventDefault();
      if (playing) pause(); else resume();
    }
  };
  document.addEventListener("keydown", keys);
  cleanup.push(() => { document.removeEventListener("keydown", keys); pause(); });
  const downloads = [];
  if (source.id || source.tournament) {
    const where = source.id ? `id=${encodeURIComponent(source.id)}` : `t=${encodeURIComponent(source.tournament)}&g=${encodeURIComponent(source.tgame)}`;
    if (!data.live) {
      downloads.push(h("a", { href: `/api/log?${where}&format=jsonl`, download: "", id: "download-jsonl" }, "the log (JSON Lines)"));
      for (const form of info.log_formats || []) {
        downloads.push(" · ", h("a", { href: `/api/log?${where}&format=${form}`, download: "", id: `download-${form}` }, `the ${form} log`));
      }
    }
  }
  const claimed = data.live ? "live game, still being played" : resultText(data.outcome, data.players, null, renderer.scoreMeaning);
  const header = h("p", { id: "replay-result" }, claimed,
    data.outcome && data.outcome.detail ? h("span", { class: "muted" }, ` · ${humanDetail(data.outcome.detail, data.players)}`) : "",
    data.seed !== null && data.seed !== undefined ? h("span", { class: "muted seed" }, ` · seed ${data.seed}`) : "");
  // a log the referee stops on: what it claims beside what the referee found
  const verdict = data.error ? h("div", { class: "verdict", id: "verdict" },
    h("section", { class: "card" }, h("h3", {}, "The log claims"), h("p", { id: "claimed" }, claimed)),
    h("section", { class: "card bad" }, h("h3", {}, "The referee's verdict"),
      h("p", { id: "referee-verdict" }, `Turn ${data.error_turn} is illegal: ${data.error.replace(/^turn \d+: /, "")}`),
      h("p", { class: "muted" }, `The replay stops after turn ${data.error_turn - 1}; the claimed result was not reached by legal play.`)))
    : null;
  fill(viewer,
    h("h2", {}, source.title || data.id, " · ", info.title, " · ", data.players.map((p, s) => playerName(data.players, s)).join(" vs ")),
    source.tournament ? h("p", {}, h("a", { id: "back-to-table", href: `#/tournament?name=${encodeURIComponent(source.tournament)}&cell=${source.tgame.split("-").slice(0, 2).join("-")}` },
      `← the table of ${source.tournament}`)) : null,
    verdict || header,
    h("div", { class: "controls", role: "toolbar", "aria-label": "replay controls" },
      h("button", { id: "first", onclick: () => { pause(); go(0); }, title: "to the start" }, "|◀", h("span", { class: "wide" }, " start")),
      h("button", { id: "prev", onclick: () => { pause(); go(index - 1); }, title: "back" }, "◀", h("span", { class: "wide" }, " back")),
      playButton,
      h("button", { id: "next", onclick: () => { pause(); go(index + 1); }, title: "forward" }, h("span", { class: "wide" }, "forward "), "▶"),
      h("button", { id: "last", onclick: () => { pause(); go(frames.length - 1); }, title: "to the end" }, h("span", { class: "wide" }, "end "), "▶|"),
      h("label", { class: "speed" }, "speed ", speed)),
    slider, label, notes,
    h("div", { class: "replay" }, area, h("nav", { class: "moves-box", "aria-label": "moves" }, h("h3", {}, "Moves"), list)),
    downloads.length ? h("p", { class: "downloads" }, "Download ", downloads) : null);
  listItems();
  go(Number.isInteger(source.move) ? source.move : 0);
  if (viewer.isConnected) setPhase("replay");  // not if its page was left meanwhile
  if (data.live) followLive();

  // A live game: the replay grows with every move (asked again, one question at a time).
  function followLive() {
    const ws = new WebSocket(wsUrl(), "arena.v1.json");
    cleanup.push(() => ws.close());
    let busy = false, again = false;
    const reload = async () => {
      if (busy) { again = true; return; }
      busy = true;
      try {
        const fresh = await api("/api/replay", { id: source.id });
        const atEnd = index >= frames.length - 1;
        Object.assign(data, fresh);
        frames = fresh.frames;
        slider.max = frames.length - 1;
        listItems();
        header.firstChild.textContent = fresh.live ? "live game, still being played" : resultText(fresh.outcome, fresh.players, null, renderer.scoreMeaning);
        go(atEnd ? frames.length - 1 : index);
        label.dataset.frames = frames.length;
      } catch { /* asked again on the next move */ }
      busy = false;
      if (again) { again = false; await reload(); }
    };
    ws.addEventListener("open", () => ws.send(JSON.stringify({ type: "hello", protocol: 1, role: "spectator", client: "arena-web" })));
    ws.addEventListener("message", (event) => {
      const m = JSON.parse(event.data);
      if (m.type === "welcome") ws.send(JSON.stringify({ type: "spectate", game_id: source.id }));
      else if (m.type === "moved" || m.type === "game_over") reload();
    });
  }
}

// -- tournaments ---------------------------------------------------------------------------------

async function tournamentsPage() {
  const data = await api("/api/tournaments");
  show(h("h1", {}, "Tournaments"),
    h("p", {}, h("a", { href: "#/bots" }, "Run a tournament from the browser")),
    data.tournaments.length ? h("ul", { id: "tournament-list" }, data.tournaments.map((t) => h("li", {},
      h("a", { href: `#/tournament?name=${encodeURIComponent(t.name)}` }, t.name),
      h("span", { class: "muted" }, ` ${t.game} · ${t.bots.length} bots · ${t.games} games per pairing`))))
      : h("p", { class: "muted" }, data.directory ? `no tournament results in ${data.directory}`
        : "start the server with --tournaments DIR to show tournament results here"));
  setPhase("tournaments");
}

function percent(value) { return `${(100 * value).toFixed(1)}%`; }

function interval(pair, format) { return pair ? ` (${format(pair[0])}–${format(pair[1])})` : ""; }

// The per-bot summary's columns: [heading, (row) => cell text]. The statistics of other
// runners (Elo with its interval, SPRT, ...) are more entries here.
function summaryColumns() {
  return [
    ["games", (s) => s.games], ["wins", (s) => s.wins], ["losses", (s) => s.losses], ["draws", (s) => s.draws],
    ["win rate (95% CI)", (s) => s.win_rate === undefined ? "" : percent(s.win_rate) + interval(s.win_rate_ci95, percent)],
    ["mean score (95% CI)", (s) => s.mean_score === undefined ? "" : s.mean_score.toFixed(1) + interval(s.mean_score_ci95, (v) => v.toFixed(1))],
    ["Elo (95% CI)", eloText], ["nElo", neloText], ["LOS", losText],
  ];
}

// Elo figures as the tournament JSON gives them: null is infinite, on the side of its score
// (every pair won or lost), and a bound on the side of its score bound.
function signedElo(v, score) {
  return v !== null && v !== undefined ? `${v >= 0 ? "+" : ""}${v.toFixed(1)}` : (score >= 0.5 ? "+∞" : "−∞");
}
function eloText(s) {
  return s.elo === undefined ? ""
    : `${signedElo(s.elo, s.score)} [${signedElo(s.elo_ci[0], s.score_ci[0])}, ${signedElo(s.elo_ci[1], s.score_ci[1])}]`;
}
function neloText(s) { return s.nelo === undefined ? "" : signedElo(s.nelo, s.score); }
function losText(s) { return s.los === undefined ? "" : `${(100 * s.los).toFixed(1)}%`; }

async function tournamentPage({ params }) {
  const name = params.get("name");
  const data = await api("/api/tournament", { name });
  const bots = data.bots;
  const table = h("table", { class: "crosstable", id: "crosstable" },
    h("caption", { class: "muted" }, "Rows: the first player; columns: the second; cells: wins / losses / draws of the first player."),
    h("tr", {}, h("th", { class: "corner", scope: "col" }, "first ↓ second →"), bots.map((b) => h("th", { scope: "col" }, b))),
    bots.map((first) => h("tr", {}, h("th", { scope: "row" }, first), bots.map((second) => {
      const cell = (data.table[first] || {})[second];
      if (!cell) return h("td", { class: "empty" }, "—");
      const i = bots.indexOf(first), j = bots.indexOf(second);
      return h("td", {}, h("a", { href: `#/tournament?name=${encodeURIComponent(name)}&cell=${i}-${j}`,
        title: `${first} (first) vs ${second} (second): wins / losses / draws of ${first}` },
        `${cell.first_wins} / ${cell.second_wins} / ${cell.draws}`));
    }))));
  const parts = [h("h1", {}, `Tournament ${name}`),
    h("p", { class: "muted" }, `${data.game} · ${data.games} games per seat order`,
      data.seed !== undefined ? ` · seed ${data.seed}` : ""),
    scrollBox("the table, scrolled sideways", table)];
  if (data.summary) {
    const columns = summaryColumns(data);
    parts.push(h("h2", {}, "Summary"), h("p", { class: "muted" }, "Each bot against the others (self-play left out); 95% confidence intervals. "
        + "Elo from the score of seat-swapped pairs on the same dice; LOS: the likelihood of superiority."),
      scrollBox("the summary, scrolled sideways", h("table", { class: "summary", id: "summary" },
        h("tr", {}, h("th", { scope: "col" }, "bot"), columns.map(([c]) => h("th", { scope: "col" }, c))),
        Object.entries(data.summary).map(([bot, s]) => h("tr", {}, h("th", { scope: "row" }, bot),
          columns.map(([, cell]) => h("td", {}, cell(s) ?? "")))))));
  }
  if (data.pairings && data.pairings.length) {
    parts.push(h("h2", {}, "Pairings"),
      h("p", { class: "muted" }, "From the first bot's side. A pair is two games on the same dice with seats "
        + "swapped, scored 0, ½, 1, 1½ or 2; intervals from the pair variance."),
      scrollBox("the pairings, scrolled sideways", h("table", { class: "summary", id: "tournament-pairings" },
        h("tr", {}, ["pairing", "pairs", "pentanomial (0 … 2)", "score", "Elo (95% CI)", "nElo", "LOS"]
          .map((c) => h("th", { scope: "col" }, c))),
        data.pairings.map((p) => h("tr", {}, h("td", {}, `${p.bots[0]} vs ${p.bots[1]}`),
          h("td", {}, p.units ?? 0), h("td", {}, p.pentanomial.join(" · ")),
          h("td", {}, p.score === undefined ? "" : p.score.toFixed(3)),
          h("td", {}, eloText(p)), h("td", {}, neloText(p)), h("td", {}, losText(p)))))));
  }
  if (data.standings) {
    parts.push(h("h2", {}, "Swiss standings"), h("ol", { id: "tournament-standings" },
      data.standings.map((s) => h("li", {}, `${s.bot}: ${s.points} points`))));
  }
  const cell = params.get("cell");
  if (cell) {
    const [i, j] = cell.split("-").map(Number);
    parts.push(h("h2", { id: "cell-heading" }, `${bots[i]} (first) vs ${bots[j]} (second)`));
    if (!data.logs) parts.push(h("p", { class: "muted" }, "this tournament was run without logs"));
    else {
      const games = await api("/api/tournament/cell", { name, cell });
      const players = [bots[i], bots[j]];
      parts.push(h("ol", { class: "games", id: "cell-games", start: "0" }, games.games.map((g) => h("li", {},
        h("a", { href: `#/replay?t=${encodeURIComponent(name)}&g=${g.id}` }, `game ${g.id}`), ": ",
        h("span", { class: "game-result" }, g.result ? resultText(g, players) : "no result")))),
      games.games.length >= games.limit ? h("p", { class: "muted" }, `the first ${games.limit} games`) : "");
    }
  }
  show(parts);
  if (cell) document.getElementById("cell-heading").scrollIntoView();
  setPhase("tournament");
}

// -- how to play ------------------------------------------------------------------------------------

// A game's rules in words and a worked example (the renderer's `howto`): its log replayed by
// the referee (POST /api/replay), the position after each move that has a note, drawn by
// the game's renderer.
async function howtoPage({ params }) {
  const name = params.get("game") || "";
  const info = (await games()).find((g) => g.name === name);
  if (!info) throw new Error(`no game ${name}`);
  const renderer = await rendererFor(name);
  const guide = renderer.howto || {};
  setTitle(`How to play ${info.title}`);
  const parts = [h("h1", {}, `How to play ${info.title}`), h("p", {}, info.description),
    guide.rules ? [h("h2", {}, "The rules"), h("ul", { id: "howto-rules" }, guide.rules.map((rule) => h("li", {}, rule)))] : null,
    h("p", {}, h("a", { id: "howto-play", href: "#/", onclick: () => remember("lobby.game", name) }, `Play ${info.title}`))];
  if (guide.example) {
    const data = await post("/api/replay", new Blob([guide.example.log], { type: "text/plain" }));
    parts.push(h("h2", {}, "A worked example"), h("p", {}, `${data.players.join(" and ")} play; ${resultText(data.outcome, data.players, null, renderer.scoreMeaning)}.`),
      Object.entries(guide.example.notes).map(([at, note]) => {
        const frame = data.frames[Number(at)];
        if (!frame) return null;
        const ctx = context({ game: info, settings: data.settings, players: data.players, chance: frame.chance ?? null,
          frame: { ...frame, total: data.frames.length - 1 }, last: { player: frame.player, move: frame.move, chance: frame.chance ?? null } });
        return h("section", { class: "card howto-step", "data-frame": frame.index },
          h("h3", {}, `Move ${frame.index}: `, moveLine(renderer, ctx, frame.player, frame.move, frame.chance)),
          h("p", {}, note), boardOf(renderer, frame.render ?? frame.state, ctx, false));
      }),
      h("p", {}, h("a", { href: "#/replay" }, "Replay any game"), " move by move."));
  }
  show(parts);
  setPhase("howto");
}

// -- ladder --------------------------------------------------------------------------------------

// Colour and dash per series, so that lines differ without colour vision too.
const SERIES = [["#1f5fa8", ""], ["#b8401a", "6 3"], ["#2b7a2b", "2 3"], ["#7a3e9d", "8 3 2 3"], ["#8c5a00", "12 4"],
  ["#4d4d4d", "4 4"], ["#b0306e", "1 3"], ["#0f7173", "10 2 2 2"]];

function ratingChart(history, width) {
  const NS = "http://www.w3.org/2000/svg";
  const el = (tag, attrs, text) => { const e = document.createElementNS(NS, tag); for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v); if (text !== undefined) e.textContent = text; return e; };
  // drawn at the width it is shown at, so that its labels keep their size on a phone
  const W = Math.max(280, Math.min(760, width)), H = Math.round(Math.min(300, W * 0.6)), L = 46, R = 12, T = 10, B = 28;
  const series = Object.entries(history);
  const points = series.flatMap(([, s]) => s);
  const chart = el("svg", { viewBox: `0 0 ${W} ${H}`, width: W, height: H, class: "chart", id: "rating-chart", role: "img",
    "aria-label": "rating history of every bot" });
  if (!points.length) { chart.append(el("text", { x: 20, y: 40 }, "no rated games yet")); return h("figure", {}, chart); }
  const xs = points.map((p) => p[0]), ys = points.map((p) => p[1]);
  const x0 = Math.min(...xs), x1 = Math.max(...xs) || x0 + 1;
  const y0 = Math.min(...ys), y1 = Math.max(...ys);
  const sx = (x) => L + (x1 === x0 ? 0.5 : (x - x0) / (x1 - x0)) * (W - L - R);
  const sy = (y) => T + (y1 === y0 ? 0.5 : 1 - (y - y0) / (y1 - y0)) * (H - T - B);
  chart.append(el("line", { x1: L, y1: H - B, x2: W - R, y2: H - B, stroke: "#555" }), el("line", { x1: L, y1: T, x2: L, y2: H - B, stroke: "#555" }));
  for (const value of [y0, (y0 + y1) / 2, y1]) {
    chart.append(el("text", { x: L - 6, y: sy(value) + 4, "text-anchor": "end", "font-size": 12, fill: "#1d2330" }, value.toFixed(1)));
  }
  chart.append(el("text", { x: (W - R + L) / 2, y: H - 8, "text-anchor": "middle", "font-size": 12, fill: "#1d2330" }, "time (rated games) →"));
  const legend = h("ul", { class: "legend", id: "chart-legend" });
  series.forEach(([bot, s], k) => {
    const [color, dash] = SERIES[k % SERIES.length];
    chart.append(el("polyline", { points: s.map(([x, y]) => `${sx(x).toFixed(1)},${sy(y).toFixed(1)}`).join(" "),
      fill: "none", stroke: color, "stroke-width": 2.5, "stroke-dasharray": dash, "data-bot": bot }));
    const sample = el("svg", { width: 28, height: 10, "aria-hidden": "true" });
    sample.append(el("line", { x1: 0, y1: 5, x2: 28, y2: 5, stroke: color, "stroke-width": 2.5, "stroke-dasharray": dash }));
    legend.append(h("li", {}, sample, ` ${bot} (${s[s.length - 1][1].toFixed(1)})`));
  });
  return h("figure", {}, chart, h("figcaption", {}, legend));
}

async function ladderPage() {
  const board = await api("/api/leaderboard");
  const history = await api("/api/ratings/history", { game: board.game || undefined });
  const chartBox = h("div", { class: "chart-box" });
  show(h("h1", {}, "Ladder"), h("p", { class: "muted" }, board.game ? `game: ${board.game}` : "no ladder game configured; all games"),
    board.leaderboard.length ? scrollBox("the leaderboard, scrolled sideways", h("table", { class: "leaderboard", id: "leaderboard" },
      h("tr", {}, ["#", "bot", "rating (μ − 3σ)", "μ", "σ", "games", "wins", "losses", "draws"].map((c, k) =>
        h("th", { scope: "col", class: k === 3 || k === 4 ? "detail" : null }, c))),
      board.leaderboard.map((r) => h("tr", {}, [r.rank, r.bot, r.rating, r.mu, r.sigma, r.games, r.wins, r.losses, r.draws]
        .map((v, k) => h("td", { class: k === 3 || k === 4 ? "detail" : null }, typeof v === "number" && !Number.isInteger(v) ? v.toFixed(2) : v))))))
      : h("p", { class: "muted" }, "no rated games yet"),
    h("h2", {}, "Rating history"), chartBox);
  chartBox.append(ratingChart(history.history, chartBox.clientWidth || 720));
  setPhase("ladder");
}

// -- pages the games add ---------------------------------------------------------------------------

// A renderer's `pages` (docs/web.md): NAME -> {title, page(ctx)}, shown at #/NAME and
// linked in the header (a game's editor, say). Found once, from every game's renderer;
// a name the app's own pages use is not taken.
let gamePages = null;

function pagesOfGames() {
  if (!gamePages) {
    gamePages = games().then(async (list) => {
      const found = new Map();
      for (const game of list) {
        const renderer = await rendererFor(game.name);
        for (const [name, entry] of Object.entries(renderer.pages || {})) {
          if (!(`/${name}` in PAGES) && !found.has(name) && typeof entry.page === "function") {
            found.set(name, { game: game.name, title: entry.title || name, page: entry.page });
          }
        }
      }
      const nav = document.querySelector("nav");
      for (const [name, entry] of found) nav.append(h("a", { href: `#/${name}` }, entry.title));
      return found;
    }).catch((error) => { gamePages = null; throw error; });
  }
  return gamePages;
}

// Shows a game's page: its renderer builds it from `ctx` (options: /api/web/options of
// that game; cleanup(fn): run when the page changes); the phase is the page's name.
function gamePage(name, entry) {
  return async () => {
    const options = await api("/api/web/options", { game: entry.game });
    const game = options.games.find((g) => g.name === entry.game);
    const ctx = context({ game, options, cleanup: (fn) => cleanup.push(fn) });
    setTitle(entry.title);
    show(await entry.page(ctx));
    setPhase(name);
  };
}

// -- bots: the thesis's main window ---------------------------------------------------------------

// Two bots play a game (watched live), or a round-robin tournament runs in worker
// processes and its table fills in; both within the server's limits (docs/web.md).
async function botsPage() {
  const options = await api("/api/web/options");
  setGames(options.games);
  const loaded = await Promise.all(options.games.map((g) => rendererFor(g.name)));
  const byName = Object.fromEntries(options.games.map((g, i) => [g.name, { info: g, renderer: loaded[i] }]));
  const gameSelect = h("select", { id: "bots-game" }, options.games.map((g) =>
    h("option", { value: g.name, selected: g.name === recall("bots.game", options.game) }, g.title)));
  const settingsBox = h("div", { id: "bots-settings" });
  const first = h("input", { id: "bot-first", list: "bot-names" });
  const second = h("input", { id: "bot-second", list: "bot-names" });
  const names = h("datalist", { id: "bot-names" });
  const entrants = h("textarea", { id: "tournament-bots", rows: 3, cols: 30, spellcheck: "false" });
  const perPairing = h("input", { id: "tournament-games", type: "number", min: 1, value: 4 });
  const gameMessage = h("p", { id: "match-message", "aria-live": "polite" });
  const tournamentMessage = h("p", { id: "tournament-message", "aria-live": "polite" });
  const limits = options.limits || {};
  let form = null;
  const sync = () => {
    const { info, renderer } = byName[gameSelect.value];
    form = renderer.settings(context({ game: info, options, saved: recall(`lobby.${info.name}`, null), cleanup: (undo) => cleanup.push(undo) }));
    settingsBox.replaceChildren(form.element);
    const bots = info.bots.map((b) => b.name);
    names.replaceChildren(...bots.map((b) => h("option", { value: b })));
    first.value = bots[0] || ""; second.value = bots[1] || bots[0] || "";
    entrants.value = bots.slice(0, 3).join("\n");
  };
  gameSelect.addEventListener("change", () => { remember("bots.game", gameSelect.value); sync(); });
  sync();
  const chosen = (message) => {
    try { return { game: gameSelect.value, ...form.value() }; } catch (error) {
      message.className = "error"; message.replaceChildren(error.message); return null;
    }
  };
  const watch = h("button", { id: "start-match", class: "primary", onclick: async () => {
    const settings = chosen(gameMessage);
    if (!settings) return;
    try {
      const started = await post("/api/match", { ...settings, bots: [first.value.trim(), second.value.trim()] });
      location.hash = `#/watch?id=${started.game_id}`;
    } catch (error) { gameMessage.className = "error"; gameMessage.replaceChildren(error.message); }
  } }, "Start and watch");
  const run = h("button", { id: "start-tournament", class: "primary", onclick: async () => {
    const settings = chosen(tournamentMessage);
    if (!settings) return;
    try {
      const started = await post("/api/tournaments/run", { ...settings,
        bots: entrants.value.split(/[\n;]+/).map((b) => b.trim()).filter(Boolean), games: Number(perPairing.value) });
      location.hash = `#/run?id=${started.id}`;
    } catch (error) { tournamentMessage.className = "error"; tournamentMessage.replaceChildren(error.message); }
  } }, "Run the tournament");
  show(h("h1", {}, "Bots"),
    h("p", { class: "muted" }, "The thesis's main window: pick the game and its settings, then let two bots play or run a round-robin tournament."),
    h("section", { class: "card" }, h("h2", {}, "Game"), h("label", {}, "Game ", gameSelect), settingsBox, names),
    h("div", { class: "columns" },
      h("section", { class: "card" }, h("h2", {}, "Two bots play"),
        h("label", {}, "First ", first), h("label", {}, "Second ", second),
        h("p", { class: "muted" }, "A bot spec: a name, or name:param=value,… (search:depth=2)."), watch, gameMessage),
      h("section", { class: "card" }, h("h2", {}, "A tournament"),
        h("label", { for: "tournament-bots" }, "Bots (one spec a line)"), entrants,
        h("label", {}, "Games per pairing ", perPairing),
        h("p", { class: "muted", id: "tournament-limits" }, limits.tournament_bots
          ? `At most ${limits.tournament_bots} bots and ${limits.tournament_games} games in all; one tournament at a time per visitor, ${limits.tournaments} at once on this server.` : ""),
        run, tournamentMessage)));
  setPhase("bots");
}

// A tournament started from the browser: its progress, then its table.
async function runPage({ params }) {
  const id = params.get("id");
  const bar = h("progress", { id: "run-progress", max: 1, value: 0, "aria-label": "games played" });
  const status = h("p", { id: "run-status", "aria-live": "polite" }, "Starting…");
  show(h("h1", {}, "Tournament"), h("div", { class: "card" }, bar, status));
  setPhase("running");
  let stopped = false;
  cleanup.push(() => { stopped = true; });
  while (!stopped) {
    const run = await api("/api/tournaments/progress", { id });
    bar.max = Math.max(1, run.total); bar.value = run.done;
    if (run.status === "finished") {
      location.replace(`#/tournament?name=${encodeURIComponent(run.name)}`);
      return;
    }
    if (run.status === "failed") { status.className = "error"; status.replaceChildren(`The tournament failed: ${run.error}`); setPhase("error"); return; }
    const eta = run.eta_seconds !== null && run.eta_seconds !== undefined ? ` · about ${formatMs(run.eta_seconds * 1000)} left` : "";
    status.replaceChildren(run.status === "queued" ? `Waiting for a free worker (${run.ahead} ahead)…`
      : `${run.done} of ${run.total} games played${eta}`);
    await new Promise((resolve) => setTimeout(resolve, 700));
  }
}

// -- preferences: the colour scheme, the sound of your turn (this browser only) -----------------

function applyTheme(theme) {
  if (theme === "light" || theme === "dark") document.documentElement.dataset.theme = theme;
  else delete document.documentElement.dataset.theme;  // the system's (prefers-color-scheme)
}

function preferences() {
  const chosen = recall("theme", "auto");
  const theme = h("select", { id: "theme", "aria-label": "colour scheme" },
    [["auto", "as the system"], ["light", "light"], ["dark", "dark"]].map(([value, text]) =>
      h("option", { value, selected: value === chosen }, text)));
  theme.addEventListener("change", () => { remember("theme", theme.value); applyTheme(theme.value); });
  const sound = h("button", { id: "sound", "aria-pressed": String(recall("sound", false)), onclick: () => {
    const on = !recall("sound", false);
    remember("sound", on);
    sound.setAttribute("aria-pressed", String(on));
    beep();  // this click lets the page make sounds later
  } }, "Sound on your turn");
  document.querySelector("header").append(h("div", { class: "prefs" }, h("label", {}, "Colours ", theme), sound));
  applyTheme(chosen);
}

// -- router --------------------------------------------------------------------------------------

const PAGES = {
  "/": lobbyPage, "/play": playPage, "/watch": watchPage, "/replay": replayPage,
  "/tournaments": tournamentsPage, "/tournament": tournamentPage, "/ladder": ladderPage,
  "/bots": botsPage, "/run": runPage, "/howto": howtoPage,
};

async function navigate() {
  for (const undo of cleanup.splice(0)) { try { undo(); } catch { /* already gone */ } }
  const number = startPage();
  const current = route();
  setPhase("loading");
  setTitle("");
  // the games' pages are linked before the active link is marked; if they cannot be
  // found now (the server is away), the lobby's own request says why
  const extra = await pagesOfGames().catch(() => new Map());
  if (!isCurrentPage(number)) return;
  const entry = extra.get(current.path.slice(1));
  const page = PAGES[current.path] || (entry ? gamePage(current.path.slice(1), entry) : lobbyPage);
  for (const link of document.querySelectorAll("nav a")) {
    const active = link.getAttribute("href").split("?")[0] === "#" + current.path;
    link.classList.toggle("active", active);
    if (active) link.setAttribute("aria-current", "page"); else link.removeAttribute("aria-current");
  }
  try { await page(current); } catch (error) {
    if (isCurrentPage(number)) { show(errorBox(error)); setPhase("error"); }  // a page left is not drawn
  }
}

preferences();
window.addEventListener("hashchange", navigate);
navigate();
