// The arena's web interface: a single page, no build step, no external network.
// The browser is a protocol client like any bot (docs/protocol.md, subprotocol
// arena.v1.json); the HTTP endpoints it uses are listed in docs/web.md.
//
// This file knows no game: every game draws its board through its own renderer, an ES
// module the game plugin ships (`Game.web_renderer`, served at /static/games/NAME.js),
// and may add pages of its own (a grammar editor, say). What a renderer exports and
// what it is given (`ctx`) is described in docs/web.md. Shared helpers are in ui.js.

import {
  announce, api, beep, boardOf, challengeAnswerEnd, cleanup, context, errorBox, errorText, failureText, fill, finalView, formatMs, gameInfo, gameT,
  games, h, humanDetail, isCurrentPage, keepFocus, language, loadLanguage, moveLine, options as webOptions,
  playerName, post, protocolNote, quotedMove, reasonsNamed, recall, rejectionKey, rejectionText, remember, rendererFor, resultText,
  route, scoresLine, scrollBox, strategyName,
  N_, setGames, setPhase, setTitle, show, startPage, t, textOf, wsUrl,
} from "/static/ui.js";
import { accountPage, myBotsPage } from "/static/accounts.js";
import { operatorPage } from "/static/operator.js";

// -- lobby -----------------------------------------------------------------------------------

// The /api/play request of the lobby's form, checked by the referee's own rules first
// (POST /api/settings/check): a bad grammar, depth, move count or deal is shown here,
// before the lobby is left.
// A game's texts in the page's language (a game without a catalogue: as written).
function textsOf(name) { return gameT(name, !language().games[name]); }

// What a result's numbers mean, in the page's language (null: they say nothing).
function meaningOf(renderer, name) {
  const meaning = renderer.scoreMeaning;
  return meaning === null || meaning === undefined ? meaning : textsOf(name)(meaning);
}

// A game's reasons for refusing its settings, for `errorText`: its renderer's
// `settingsReasons` in the game's words. `game`: its `{info, renderer}`.
function reasonsOf(game) {
  return { reasons: game.renderer.settingsReasons, t: textsOf(game.info.name) };
}

async function lobbyPage() {
  const options = await webOptions();
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
  const seat = h("select", { id: "seat" }, h("option", { value: 0 }, t("first (you move first)")),
    h("option", { value: 1 }, t("second")));
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
    howto.textContent = t("How to play {game}, with an example", { game: info.title });
    form = renderer.settings(context({ game: info, options, saved: last, cleanup: (undo) => cleanup.push(undo) }));
    settingsBox.replaceChildren(form.element);
    const bots = info.bots.map((b) => b.name);
    const [lastBot, lastParams] = last && last.bot ? splitSpec(last.bot) : [null, {}];
    const preferred = bots.includes(lastBot) ? lastBot
      : [`random`, `${info.name}-random`].find((b) => bots.includes(b)) || bots[0];
    bot.replaceChildren(...info.bots.map((b) => h("option", { value: b.name, selected: b.name === preferred }, b.label)));
    if (last && last.seat !== undefined) seat.value = String(last.seat);
    setMessage();
    syncParams(preferred === lastBot ? lastParams : {});
  };
  gameSelect.addEventListener("change", () => { remember("lobby.game", gameSelect.value); syncGame(); });
  bot.addEventListener("change", () => syncParams());
  syncGame();
  const request = () => {
    const chosen = form.value();  // throws an Error the lobby shows
    if (!bot.value) throw new Error(t("no bot plays this game"));
    const changed = [...params.querySelectorAll("[data-param]")]
      .filter((el) => el.value !== el.dataset.default && el.value !== "")
      .map((el) => `${el.dataset.param}=${el.value}`);
    return { game: gameSelect.value, bot: bot.value + (changed.length ? ":" + changed.join(",") : ""),
      seat: Number(seat.value), ...chosen };
  };
  const start = h("button", { id: "start", class: "primary", onclick: async () => {
    let chosen;
    try { chosen = request(); } catch (error) { setMessage(error.said || error.message, "error"); return; }
    start.disabled = true;
    setMessage(t("Checking the settings…"));
    try {
      await post("/api/settings/check", chosen);
    } catch (error) {
      start.disabled = false;
      setMessage(errorText(error, reasonsOf(byName[gameSelect.value])), "error");
      setPhase("lobby-error");
      return;
    }
    remember(`lobby.${chosen.game}`, chosen);
    startGame(chosen);
  } }, t("Start the game"));
  const lists = gameLists(options.games);
  show(h("h1", {}, t("Lobby")),
    h("div", { class: "columns" },
      h("section", { class: "card", "aria-labelledby": "new-game" }, h("h2", { id: "new-game" }, t("Play against a bot")),
        h("label", {}, t("Game"), " ", gameSelect), about, h("p", {}, howto), settingsBox,
        h("label", {}, t("Opponent"), " ", bot), params,
        h("label", {}, t("Your seat"), " ", seat), start, message,
        h("p", { class: "muted" }, h("a", { href: "#/bots" }, t("Or let two bots play, or run a tournament.")))),
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
  const filter = h("select", { id: "list-game" }, h("option", { value: "" }, t("every game")),
    gameList.map((g) => h("option", { value: g.name, selected: g.name === recall("lobby.filter", "") }, g.title)));
  const tabs = { live: t("Live"), recent: t("Recent"), mine: t("Your games") };
  let tab = recall("lobby.tab", "live");
  const body = h("div", { id: "game-list", "aria-live": "polite" });
  const buttons = Object.entries(tabs).map(([key, label]) => h("button", { class: "tab", id: `tab-${key}`, role: "tab",
    "aria-selected": String(key === tab), onclick: () => { tab = key; remember("lobby.tab", key); update(); refresh(); } }, label));
  const update = () => buttons.forEach((b) => b.setAttribute("aria-selected", String(b.id === `tab-${tab}`)));
  const titleOf = (name) => (gameList.find((g) => g.name === name) || { title: name }).title;
  const item = (g, href, extra) => h("li", {}, h("a", { href }, g.players.map((p, s) => playerName(g.players, s)).join(t(" vs "))),
    h("span", { class: "muted" }, ` · ${titleOf(g.game)}${extra ? " · " + extra : ""}`));
  const refresh = async () => {
    const game = filter.value || undefined;
    try {
      let rows, make;
      if (tab === "live") {
        rows = (await api("/api/games", { status: "running", limit: 30, game })).games;
        make = (g) => item(g, `#/watch?id=${g.id}`, t("turn {n}", { n: g.turns ?? 0 }));
      } else if (tab === "recent") {
        rows = (await api("/api/games", { status: "finished", limit: 15, game })).games;
        make = (g) => item(g, `#/replay?id=${g.id}`, resultText(g, g.players, null, g.scores && g.scores.length ? undefined : null));
      } else {
        const me = await api("/api/me");
        rows = me.name ? (await api("/api/games", { bot: me.name, limit: 30, game })).games : [];
        const mine = (g) => g.players.indexOf(me.name);
        make = (g) => item(g, g.status === "running" ? `#/play?id=${g.id}` : `#/replay?id=${g.id}`,
          g.status === "running" ? t("still being played: continue") : resultText(g, g.players, mine(g)));
      }
      body.replaceChildren(rows.length ? h("ul", {}, rows.map(make))
        : h("p", { class: "muted" }, t(tab === "live" ? "no games are being played" : tab === "recent" ? "no finished games yet"
          : "you have not played here yet (in this browser)")));
    } catch (error) { body.replaceChildren(errorBox(error)); }
  };
  filter.addEventListener("change", () => { remember("lobby.filter", filter.value); refresh(); });
  const timer = setInterval(refresh, 4000);
  cleanup.push(() => clearInterval(timer));
  return {
    element: h("section", { class: "card", "aria-labelledby": "games-heading" }, h("h2", { id: "games-heading" }, t("Games")),
      h("div", { class: "tabs", role: "tablist" }, buttons), h("label", {}, t("Show"), " ", filter), body),
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
  const log = h("ol", { class: "log", id: "log", reversed: true, tabindex: 0, "aria-label": t("the moves, the last first") });
  const events = h("ul", { class: "events muted", id: "events", tabindex: 0, "aria-label": t("what happened to the connection") });
  const area = h("div", { id: "play-area" }, h("p", {}, t("Connecting…")));
  // a turn built in steps (the renderer's `controls`) has its box beside the board (below it
  // on a phone, kept on the screen); otherwise a line above the board says whose turn it is
  const stepped = Boolean(renderer.controls);
  const builder = h("div", { id: "builder", class: stepped ? "steps" : "turn-line", role: "region", "aria-label": t("your turn") });
  const result = h("div", { id: "result-box" });
  const clocks = h("div", { class: "clocks", id: "clocks" });
  const resign = h("button", { id: "resign", disabled: true, onclick: () => {
    if (game.id && !game.over) send({ type: "resign", game_id: game.id });
  } }, t("Resign"));
  const below = [result, h("h2", { class: "h3" }, t("Moves")), log, events,
    h("p", { class: "actions" }, resign, h("a", { href: `#/howto?game=${encodeURIComponent(name)}` }, t("How to play {game}", { game: info.title })))];
  // a stepped turn's box is the second column of everything below the title, so that it
  // keeps to the top of the screen down to the page's end
  show(h("h1", {}, t("Play {game}", { game: info.title })), clocks,
    stepped ? h("div", { class: "play stepped" }, h("div", { class: "column" }, area, below), builder)
      : [h("div", { class: "play" }, builder, area), below]);
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
        builder.replaceChildren(h("p", { class: "muted" }, t("Waiting for {name}…", { name: playerName(game.players, 1 - game.seat) })));
      } else if (!game.legal) {
        builder.replaceChildren(h("p", {}, "…"));
      } else {
        builder.replaceChildren(renderer.controls ? renderer.controls(ctx())
          : h("p", {}, h("strong", {}, t("Your turn: ")), h("span", { id: "prompt" },
            renderer.prompt ? renderer.prompt(game.view, ctx()) : t("choose your move below."))));
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
      const refused = error.status === 400 && rejectionKey(error.data && error.data.code, info.chance_name, renderer.rejections || {});
      note(t("the legal moves could not be loaded: "), refused  // a step or move the referee refuses
        ? rejectionText({ code: error.data.code, message: error.message, step: error.data.params?.step }, { game: name, renderer, chance: info.chance_name, players: game.players, me: game.seat })
        : errorText(error));
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
    setTitle(t("{game}: waiting", { game: info.title }));
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
      note(t("the connection closed; reconnecting in {s} s", { s: retryDelay / 1000 }));
      announce(t("Connection lost; reconnecting"));
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
    } catch (error) { note(t("the game is gone: "), errorText(error)); }
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
        if (m.games.includes(game.id)) note(t("reconnected")); else await endedWhileAway();
        return;
      }
      try {
        const started = request.challenge ? await challenged(request, note) : await post("/api/play", request);
        game.id = started.game_id;
        history.replaceState(null, "", `#/play?id=${game.id}`);  // a reload finds this game
        const early = pending.filter((p) => p.game_id === game.id);
        pending = [];
        for (const p of early) await onMessage(p);
      } catch (error) {
        area.replaceChildren(errorBox(error), h("a", { href: "#/" }, t("Back to the lobby"))); setPhase("error");
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
      else announce(t(m.seat === 0 ? "Game started: you play first against {name}" : "Game started: you play second against {name}",
        { name: playerName(m.players, 1 - m.seat) }));
      setPhase("waiting");
    } else if (m.type === "game_state" || m.type === "moved") {
      if (game.myTurn || game.over) return;
      await refreshView();
    } else if (m.type === "your_turn") {
      game.myTurn = { turn: m.turn, chance: m.chance };
      game.local = {};
      setTitle(`${t("Your turn")} · ${info.title}`);
      announce(t("Your turn"));
      beep();
      await refreshLegal();
    } else if (m.type === "opponent_moved") {
      const line = logMove(m.seat, m.move, m.chance);
      announce(textOf(line));
    } else if (m.type === "move_rejected") {
      note(t("the referee refused the move '{move}': ", { move: quotedMove(m.move) }),
        rejectionText(m, { game: name, renderer, chance: info.chance_name, players: game.players, me: game.seat }));
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
      const headline = resultText(m, game.players, game.seat, meaningOf(renderer, name));
      result.replaceChildren(resultCard(renderer, name, m, game, ctx(), headline,
        h("button", { id: "play-again", class: "primary", onclick: () => startGame(againRequest(name, game)) }, t("Play again"))));
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

// The same game again: the same settings, opponent and seat (a bot that is no house bot
// is challenged again).
function againRequest(name, game) {
  const house = game.players.find((p, seat) => seat !== game.seat) || "";
  if (!house.startsWith("house:")) return { game: name, challenge: house, seat: game.seat };
  return { game: name, settings: game.settings, bot: house.replace(/^house:/, ""), seat: game.seat };
}

// A challenge to a connected bot (POST /api/challenges), followed until the bot or its
// policy answers: the game's id once accepted, or an error saying why not.
async function challenged(request, note) {
  let answer = await post("/api/challenges", { bot: request.challenge, seat: request.seat || 0, ladder: request.ladder });
  note(t("{bot} is challenged; waiting for the answer…", { bot: request.challenge }));
  while (answer.status === "pending") {
    await new Promise((done) => setTimeout(done, 1000));
    answer = await api(`/api/challenges/${answer.challenge_id}`);
  }
  if (answer.status !== "accepted") {
    const why = answer.reason ? await challengeAnswerEnd(answer) : t(answer.status);
    // said in the page's language already (a failure's English inside it marked lang="en")
    const [before, after] = t("{bot} did not accept the challenge: {why}", { bot: request.challenge, why: "\u0000" }).split("\u0000");
    throw Object.assign(new Error(before + (typeof why === "string" ? why : why.textContent) + (after || "")),
      { said: h("span", {}, before, why, after || "") });
  }
  return { game_id: answer.game_ids[0] };
}

function resultCard(renderer, name, outcome, game, ctx, headline, ...actions) {
  const meaning = scoresLine(outcome, game.players, game.seat, meaningOf(renderer, name));
  return h("section", { class: "card result", id: "result" },
    h("h2", {}, headline),
    meaning ? h("p", { id: "result-scores" }, meaning) : null,
    h("p", { class: "muted" }, detailOf(outcome, game.players, game.seat, name)),
    explained(renderer, outcome, game.view, ctx),
    renderer.summary && game.view ? renderer.summary(game.view, ctx) : null,
    h("p", { class: "actions" }, actions, h("a", { href: `#/replay?id=${outcome.game_id}` }, t("Replay this game")), " · ",
      h("a", { href: "#/" }, t("Back to the lobby"))));
}

// How a game ended, in people's words: who resigned, ran out of time or left (from the
// result, not the server's text), or the game's own detail (translated by its catalogue;
// left out of a page in another language when it has no translation: the board says it).
const ENDED = { resignation: N_("{name} resigned"), timeout: N_("{name} ran out of time"),
  disconnect: N_("{name} left and did not come back in time"), illegal_move: N_("{name} made an illegal move") };

function detailOf(outcome, players, me, name) {
  const loser = outcome.winner === 0 || outcome.winner === 1 ? 1 - outcome.winner : null;
  if (ENDED[outcome.termination] && loser !== null && players && players.length === 2) {
    return t(ENDED[outcome.termination], { name: playerName(players, loser, me) });
  }
  const text = outcome.reason || outcome.detail || "";
  const said = gameT(name, true)(text);
  return said !== text || language().lang === "en" ? humanDetail(said, players, me) : "";
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
  const headline = resultText(outcome, stored.players, game.seat, meaningOf(renderer, stored.game));
  show(h("h1", {}, t("{game}: the game is over", { game: info.title })),
    game.view ? h("div", { id: "play-area" }, boardOf(renderer, game.view, ctx)) : null,
    resultCard(renderer, stored.game, outcome, game, ctx, headline, game.seat !== null
      ? h("button", { id: "play-again", class: "primary", onclick: () => startGame(againRequest(stored.game, game)) }, t("Play again")) : null));
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
        moving ? h("span", { class: "time move-time", title: t("time left for this move, before the bank is used") },
          t("move {time}", { time: formatMs(Math.max(0, left - c.bank_ms)) })) : null,
        h("span", { class: "time bank-time" + (moving ? "" : " muted"), title: t("the bank: time for any move beyond its own") },
          t("bank {time}", { time: formatMs(moving ? Math.min(c.bank_ms, left) : c.bank_ms) })));
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
  const area = h("div", { id: "watch-area" }, h("p", {}, t("Connecting…")));
  const status = h("p", { class: "status", id: "watch-status", "aria-live": "polite" });
  const clocks = h("div", { class: "clocks", id: "clocks" });
  const log = h("ol", { class: "log", id: "log", reversed: true, tabindex: 0, "aria-label": t("the moves, the last first") });
  show(h("h1", {}, t("Watching")), status, clocks, area, h("h2", { class: "h3" }, t("Moves")), log);
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
      status.replaceChildren(answer.to_act >= 0 ? t("{name} to move · turn {n}", { name: playerName(info.players, answer.to_act), n: answer.turn + 1 }) : "");
    } catch { /* over: game_over brings the final position */ }
  };
  ws.addEventListener("open", () => ws.send(JSON.stringify({ type: "hello", protocol: 1, role: "spectator", client: "arena-web" })));
  ws.addEventListener("message", async (event) => {
    const m = JSON.parse(event.data);
    if (m.type === "welcome") ws.send(JSON.stringify({ type: "spectate", game_id: id }));
    else if (m.type === "game_state") {
      gameData = await gameInfo(m.game); renderer = await rendererFor(m.game); info = m;
      document.querySelector("main h1").textContent = t("Watching {game}: {players}", { game: gameData.title,
        players: m.players.map((p, s) => playerName(m.players, s)).join(t(" vs ")) });
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
      const who = info ? info.players : [t("first"), t("second")];
      const replay = await api("/api/replay", { id }).catch(() => null);
      const view = replay && renderer ? finalView(replay) : null;
      if (view) draw(view);
      status.replaceChildren(t("The game is over"));
      const meaning = renderer && gameData ? meaningOf(renderer, gameData.name) : undefined;
      const headline = resultText(m, who, null, meaning);
      announce(headline);
      area.append(h("section", { class: "card result", id: "result" }, h("h2", {}, headline),
        h("p", {}, scoresLine(m, who, null, meaning)),
        h("p", { class: "muted" }, gameData ? detailOf(m, who, null, gameData.name) : ""),
        renderer ? explained(renderer, m, view, ctx()) : null,
        view && renderer.summary ? renderer.summary(view, ctx()) : null,
        h("a", { href: `#/replay?id=${id}` }, t("Replay this game"))));
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
  const idInput = h("input", { id: "game-id", placeholder: t("game id"), value: params.get("id") || "" });
  const file = h("input", { type: "file", id: "upload", accept: ".jsonl,.log,.txt,.json" });
  file.addEventListener("change", async () => {
    const chosen = file.files[0];
    if (!chosen) return;
    viewer.replaceChildren(h("p", {}, t("Replaying the uploaded log…")));
    try {
      await viewReplay(viewer, await post("/api/replay", chosen), { title: chosen.name });  // the file is the body
    } catch (error) { viewer.replaceChildren(errorBox(error, await reasonsNamed(error))); }
  });
  show(h("h1", {}, t("Replay")),
    h("div", { class: "card toolbar" },
      h("form", { onsubmit: (e) => { e.preventDefault(); location.hash = `#/replay?id=${encodeURIComponent(idInput.value.trim())}`; } },
        h("label", {}, t("Stored game"), " ", idInput), h("button", {}, t("Open"))),
      h("label", {}, t("or a log file (JSON Lines or the thesis's text log)"), " ", file)),
    viewer);
  setPhase("replay-empty");
  try {
    const id = params.get("id");
    const move = params.has("move") ? Number(params.get("move")) : null;  // a shared link's position
    if (id) await viewReplay(viewer, await api("/api/replay", { id }), { title: id, id, move });
    else if (params.get("t")) {
      const [table, g] = [params.get("t"), params.get("g")];
      await viewReplay(viewer, await api("/api/tournament/game", { name: table, id: g }),
        { title: t("{table} game {id}", { table, id: g }), tournament: table, tgame: g, move });
    }
  } catch (error) { viewer.replaceChildren(errorBox(error, await reasonsNamed(error))); }
}

// The referee's verdict on a log's turn (`/api/replay`'s error fields), in the page's
// words: who played what, and why the referee refuses it. An English page, or a code the
// page does not know (or a server that sends none), shows the server's own English words.
function verdictText(data, renderer) {
  const english = h("span", { lang: "en" }, data.error.replace(/^turn \d+: /, ""));
  const key = rejectionKey(data.error_code, data.chance_name, renderer.rejections || {});
  if (language().lang === "en" || !key) return english;
  const name = playerName(data.players, data.error_seat);
  const lead = data.error_move === null || data.error_move === undefined ? t("{name}'s turn: ", { name })
    : t("{name} played '{move}': ", { name, move: quotedMove(data.error_move) });
  return h("span", { class: "verdict-words" }, lead,
    rejectionText({ code: data.error_code }, { game: data.game, renderer, chance: data.chance_name, players: data.players }));
}

const SPEEDS = [["0.5×", 1600], ["1×", 800], ["2×", 400], ["4×", 200], ["8×", 100]];

// The viewer: start / back / play-pause / forward / end, the speed, a slider and the keys
// (arrows: a move; Home, End; Space: play or pause), a numbered move list that follows the
// move shown, the board with the last move marked; a live game's replay grows as it is
// played. The address names the move shown (`&move=N`), so a link opens that position.
// `source`: {title, id} (a stored or live game), {tournament, tgame} or {title} (an
// upload); `move`: the position to open.
async function viewReplay(viewer, data, source) {
  // a tournament's players are bot specs: its strategies by their names in words
  if (source.tournament) data = { ...data, players: data.players.map(strategyName) };
  const info = await gameInfo(data.game);
  const renderer = await rendererFor(data.game);
  let frames = data.frames;
  let index = 0, playing = null;
  const slider = h("input", { type: "range", id: "slider", min: 0, max: frames.length - 1, value: 0, "aria-label": t("position in the game") });
  const label = h("p", { id: "frame-label", class: "status", "aria-live": "polite" });
  const notes = h("ul", { id: "frame-notes", class: "muted", "aria-label": t("the bots' debug lines") });  // the bots' debug lines
  const area = h("div", { id: "replay-board" });
  const list = h("ol", { class: "move-list", id: "move-list" });
  const speed = h("select", { id: "speed" }, SPEEDS.map(([name, ms]) => h("option", { value: ms, selected: ms === recall("replay.speed", 800) }, name)));
  const playButton = h("button", { id: "play", "aria-pressed": "false", onclick: () => (playing ? pause() : resume()) }, `▶ ${t("play")}`);
  const baseCtx = () => context({ game: info, settings: data.settings, players: data.players });
  const listItems = () => {
    fill(list, ...frames.slice(1).map((frame) => h("li", { value: frame.index },
      h("button", { class: "frame-link", "data-frame": frame.index, onclick: () => { pause(); go(frame.index); } },
        moveLine(renderer, baseCtx(), frame.player, frame.move, frame.chance)))),
    data.error_turn ? h("li", { value: data.error_turn, class: "rejected", id: "rejected-move" },
      h("span", {}, t("rejected by the referee: "), verdictText(data, renderer))) : null);
  };
  const go = (i) => {
    index = Math.max(0, Math.min(frames.length - 1, i));
    slider.value = index;
    const frame = frames[index];
    const view = frame.render ?? frame.state;
    const last = index ? { player: frame.player, move: frame.move, chance: frame.chance ?? null } : null;
    const ctx = context({ game: info, settings: data.settings, players: data.players, chance: frame.chance ?? null,
      frame: { ...frame, total: frames.length - 1 }, last });
    fill(label, index === 0 ? t("Start of the game")
      : [t("Turn {n} of {total}: ", { n: index, total: frames.length - 1 }), moveLine(renderer, ctx, frame.player, frame.move, frame.chance)]);
    label.dataset.index = index;
    notes.replaceChildren(...(frame.notes || []).map((n) => h("li", {}, `${playerName(data.players, n.player)}: `,
      h("span", { translate: "no" }, n.text))));  // the bot's own words
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
    playButton.textContent = `▶ ${t("play")}`; playButton.setAttribute("aria-pressed", "false");
  };
  const resume = () => {
    if (index >= frames.length - 1 && !data.live) go(0);
    clearInterval(playing);
    playing = setInterval(() => { if (index < frames.length - 1) go(index + 1); else if (!data.live) pause(); }, Number(speed.value));
    playButton.textContent = `❚❚ ${t("pause")}`; playButton.setAttribute("aria-pressed", "true");
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
      downloads.push(h("a", { href: `/api/log?${where}&format=jsonl`, download: "", id: "download-jsonl" }, t("the log (JSON Lines)")));
      const formName = gameT(data.game, true);  // a format's name in words, if its game has them ("thesis")
      for (const form of info.log_formats || []) {
        downloads.push(" · ", h("a", { href: `/api/log?${where}&format=${form}`, download: "", id: `download-${form}` }, t("the {format} log", { format: formName(form) })));
      }
    }
  }
  const meaning = meaningOf(renderer, data.game);
  const claimed = data.live ? t("live game, still being played") : resultText(data.outcome, data.players, null, meaning);
  const detail = data.outcome ? detailOf(data.outcome, data.players, null, data.game) : "";
  const header = h("p", { id: "replay-result" }, claimed,
    detail ? h("span", { class: "muted" }, ` · ${detail}`) : "",
    data.seed !== null && data.seed !== undefined ? h("span", { class: "muted seed" }, ` · ${t("seed {seed}", { seed: data.seed })}`) : "");
  // a log the referee stops on: what it claims beside what the referee found
  const verdict = data.error ? h("div", { class: "verdict", id: "verdict" },
    h("section", { class: "card" }, h("h3", {}, t("The log claims")), h("p", { id: "claimed" }, claimed)),
    h("section", { class: "card bad" }, h("h3", {}, t("The referee's verdict")),
      h("p", { id: "referee-verdict" }, t("Turn {n} is illegal: ", { n: data.error_turn }), verdictText(data, renderer)),
      h("p", { class: "muted" }, t("The replay stops after turn {n}; the claimed result was not reached by legal play.", { n: data.error_turn - 1 }))))
    : null;
  fill(viewer,
    h("h2", {}, source.title || data.id, " · ", info.title, " · ", data.players.map((p, s) => playerName(data.players, s)).join(t(" vs "))),
    source.tournament ? h("p", {}, h("a", { id: "back-to-table", href: `#/tournament?name=${encodeURIComponent(source.tournament)}&cell=${source.tgame.split("-").slice(0, 2).join("-")}` },
      t("← the table of {name}", { name: source.tournament }))) : null,
    verdict || header,
    h("div", { class: "controls", role: "toolbar", "aria-label": t("replay controls") },
      h("button", { id: "first", onclick: () => { pause(); go(0); }, title: t("to the start") }, "|◀", h("span", { class: "wide" }, ` ${t("start")}`)),
      h("button", { id: "prev", onclick: () => { pause(); go(index - 1); }, title: t("back") }, "◀", h("span", { class: "wide" }, ` ${t("back")}`)),
      playButton,
      h("button", { id: "next", onclick: () => { pause(); go(index + 1); }, title: t("forward") }, h("span", { class: "wide" }, `${t("forward")} `), "▶"),
      h("button", { id: "last", onclick: () => { pause(); go(frames.length - 1); }, title: t("to the end") }, h("span", { class: "wide" }, `${t("end")} `), "▶|"),
      h("label", { class: "speed" }, t("speed"), " ", speed)),
    slider, label, notes,
    h("div", { class: "replay" }, area, h("nav", { class: "moves-box", "aria-label": t("moves") }, h("h3", {}, t("Moves")), list)),
    downloads.length ? h("p", { class: "downloads" }, t("Download"), " ", downloads) : null);
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
        header.firstChild.textContent = fresh.live ? t("live game, still being played") : resultText(fresh.outcome, fresh.players, null, meaning);
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
  const titles = Object.fromEntries((await games()).map((g) => [g.name, g.title]));
  show(h("h1", {}, t("Tournaments")),
    h("p", {}, h("a", { href: "#/bots" }, t("Run a tournament from the browser"))),
    data.tournaments.length ? h("ul", { id: "tournament-list" }, data.tournaments.map((entry) => h("li", {},
      h("a", { href: `#/tournament?name=${encodeURIComponent(entry.name)}` }, entry.name),
      h("span", { class: "muted" }, ` ${titles[entry.game] || entry.game} · `,
        t("{n} bots", { n: entry.bots.length, count: entry.bots.length }), " · ",
        t("{n} games per pairing", { n: entry.games, count: entry.games })))))
      : h("p", { class: "muted" }, data.directory ? t("no tournament results in {dir}", { dir: data.directory })
        : t("start the server with --tournaments DIR to show tournament results here")));
  setPhase("tournaments");
}

function percent(value) { return `${(100 * value).toFixed(1)}%`; }

function interval(pair, format) { return pair ? ` (${format(pair[0])}–${format(pair[1])})` : ""; }

// The per-bot summary's columns: [heading, (row) => cell text]. The statistics of other
// runners (Elo with its interval, SPRT, ...) are more entries here.
function summaryColumns() {
  return [
    [t("games"), (s) => s.games], [t("wins"), (s) => s.wins], [t("losses"), (s) => s.losses], [t("draws"), (s) => s.draws],
    [t("win rate (95% CI)"), (s) => s.win_rate === undefined ? "" : percent(s.win_rate) + interval(s.win_rate_ci95, percent)],
    [t("mean score (95% CI)"), (s) => s.mean_score === undefined ? "" : s.mean_score.toFixed(1) + interval(s.mean_score_ci95, (v) => v.toFixed(1))],
    [t("Elo (95% CI)"), eloText], ["nElo", neloText], ["LOS", losText],
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
  const named = strategyName;  // the thesis's strategies by their names in words
  const table = h("table", { class: "crosstable", id: "crosstable" },
    h("caption", { class: "muted" }, t("Rows: the first player; columns: the second; cells: wins / losses / draws of the first player.")),
    h("tr", {}, h("th", { class: "corner", scope: "col" }, t("first ↓ second →")), bots.map((b) => h("th", { scope: "col" }, named(b)))),
    bots.map((first) => h("tr", {}, h("th", { scope: "row" }, named(first)), bots.map((second) => {
      const cell = (data.table[first] || {})[second];
      if (!cell) return h("td", { class: "empty" }, "—");
      const i = bots.indexOf(first), j = bots.indexOf(second);
      return h("td", {}, h("a", { href: `#/tournament?name=${encodeURIComponent(name)}&cell=${i}-${j}`,
        title: t("{first} (first) vs {second} (second): wins / losses / draws of {first}", { first: named(first), second: named(second) }) },
        `${cell.first_wins} / ${cell.second_wins} / ${cell.draws}`));
    }))));
  const titles = Object.fromEntries((await games()).map((g) => [g.name, g.title]));
  const parts = [h("h1", {}, t("Tournament {name}", { name })),
    h("p", { class: "muted" }, `${titles[data.game] || data.game} · `, t("{n} games per seat order", { n: data.games, count: data.games }),
      data.seed !== undefined ? ` · ${t("seed {seed}", { seed: data.seed })}` : ""),
    scrollBox(t("the table, scrolled sideways"), table)];
  if (data.summary) {
    const columns = summaryColumns(data);
    parts.push(h("h2", {}, t("Summary")), h("p", { class: "muted" }, t("Each bot against the others (self-play left out); 95% confidence intervals. "
        + "Elo from the score of seat-swapped pairs on the same dice; LOS: the likelihood of superiority.")),
      scrollBox(t("the summary, scrolled sideways"), h("table", { class: "summary", id: "summary" },
        h("tr", {}, h("th", { scope: "col" }, t("bot")), columns.map(([c]) => h("th", { scope: "col" }, c))),
        Object.entries(data.summary).map(([bot, s]) => h("tr", {}, h("th", { scope: "row" }, named(bot)),
          columns.map(([, cell]) => h("td", {}, cell(s) ?? "")))))));
  }
  if (data.pairings && data.pairings.length) {
    parts.push(h("h2", {}, t("Pairings")),
      h("p", { class: "muted" }, t("From the first bot's side. A pair is two games on the same dice with seats "
        + "swapped, scored 0, ½, 1, 1½ or 2; intervals from the pair variance.")),
      scrollBox(t("the pairings, scrolled sideways"), h("table", { class: "summary", id: "tournament-pairings" },
        h("tr", {}, [t("pairing"), t("pairs"), t("pentanomial (0 … 2)"), t("score"), t("Elo (95% CI)"), "nElo", "LOS"]
          .map((c) => h("th", { scope: "col" }, c))),
        data.pairings.map((p) => h("tr", {}, h("td", {}, `${named(p.bots[0])}${t(" vs ")}${named(p.bots[1])}`),
          h("td", {}, p.units ?? 0), h("td", {}, p.pentanomial.join(" · ")),
          h("td", {}, p.score === undefined ? "" : p.score.toFixed(3)),
          h("td", {}, eloText(p)), h("td", {}, neloText(p)), h("td", {}, losText(p)))))));
  }
  if (data.standings) {
    parts.push(h("h2", {}, t("Swiss standings")), h("ol", { id: "tournament-standings" },
      data.standings.map((s) => h("li", {}, `${named(s.bot)}: `, t("{n} points", { n: s.points, count: s.points })))));
  }
  const cell = params.get("cell");
  if (cell) {
    const [i, j] = cell.split("-").map(Number);
    parts.push(h("h2", { id: "cell-heading" }, t("{first} (first) vs {second} (second)", { first: named(bots[i]), second: named(bots[j]) })));
    if (!data.logs) parts.push(h("p", { class: "muted" }, t("this tournament was run without logs")));
    else {
      const games = await api("/api/tournament/cell", { name, cell });
      const players = [named(bots[i]), named(bots[j])];
      parts.push(h("ol", { class: "games", id: "cell-games", start: "0" }, games.games.map((g) => h("li", {},
        h("a", { href: `#/replay?t=${encodeURIComponent(name)}&g=${g.id}` }, t("game {id}", { id: g.id })), ": ",
        h("span", { class: "game-result" }, g.result ? resultText(g, players) : t("no result"))))),
      games.games.length >= games.limit ? h("p", { class: "muted" }, t("the first {n} games", { n: games.limit })) : "");
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
  if (!info) throw new Error(t("no game {name}", { name }));
  const renderer = await rendererFor(name);
  const guide = renderer.howto || {};
  const gt = textsOf(name);
  setTitle(t("How to play {game}", { game: info.title }));
  const parts = [h("h1", {}, t("How to play {game}", { game: info.title })), h("p", {}, info.description),
    guide.rules ? [h("h2", {}, t("The rules")), h("ul", { id: "howto-rules" }, guide.rules.map((rule) => h("li", {}, gt(rule))))] : null,
    h("p", {}, h("a", { id: "howto-play", href: "#/", onclick: () => remember("lobby.game", name) }, t("Play {game}", { game: info.title })))];
  if (guide.example) {
    const data = await post("/api/replay", new Blob([guide.example.log], { type: "text/plain" }));
    parts.push(h("h2", {}, t("A worked example")), h("p", {}, t("{first} and {second} play; {result}.", { first: data.players[0],
      second: data.players[1], result: resultText(data.outcome, data.players, null, meaningOf(renderer, name)) })),
      Object.entries(guide.example.notes).map(([at, note]) => {
        const frame = data.frames[Number(at)];
        if (!frame) return null;
        const ctx = context({ game: info, settings: data.settings, players: data.players, chance: frame.chance ?? null,
          frame: { ...frame, total: data.frames.length - 1 }, last: { player: frame.player, move: frame.move, chance: frame.chance ?? null } });
        return h("section", { class: "card howto-step", "data-frame": frame.index },
          h("h3", {}, t("Move {n}: ", { n: frame.index }), moveLine(renderer, ctx, frame.player, frame.move, frame.chance)),
          h("p", {}, gt(note)), boardOf(renderer, frame.render ?? frame.state, ctx, false));
      }),
      h("p", {}, h("a", { href: "#/replay" }, t("Replay any game move by move."))));
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
    "aria-label": t("rating history of every bot") });
  if (!points.length) { chart.append(el("text", { x: 20, y: 40 }, t("no rated games yet"))); return h("figure", {}, chart); }
  const xs = points.map((p) => p[0]), ys = points.map((p) => p[1]);
  const x0 = Math.min(...xs), x1 = Math.max(...xs) || x0 + 1;
  const y0 = Math.min(...ys), y1 = Math.max(...ys);
  const sx = (x) => L + (x1 === x0 ? 0.5 : (x - x0) / (x1 - x0)) * (W - L - R);
  const sy = (y) => T + (y1 === y0 ? 0.5 : 1 - (y - y0) / (y1 - y0)) * (H - T - B);
  chart.append(el("line", { x1: L, y1: H - B, x2: W - R, y2: H - B, stroke: "#555" }), el("line", { x1: L, y1: T, x2: L, y2: H - B, stroke: "#555" }));
  for (const value of [y0, (y0 + y1) / 2, y1]) {
    chart.append(el("text", { x: L - 6, y: sy(value) + 4, "text-anchor": "end", "font-size": 12, fill: "#1d2330" }, value.toFixed(1)));
  }
  chart.append(el("text", { x: (W - R + L) / 2, y: H - 8, "text-anchor": "middle", "font-size": 12, fill: "#1d2330" }, t("time (rated games) →")));
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

// One ladder's leaderboard and chart; a server with several ladders (`[[ladders]]`) gets a
// selector, and the ladder shown is in the address (#/ladder?ladder=NAME).
async function ladderPage({ params }) {
  const { ladders } = await api("/api/ladders");
  const board = await api("/api/leaderboard", { ladder: params.get("ladder") || undefined });
  // bots connected now (not guests, not operators) may be challenged to a game on the ladder shown
  const online = new Set((await api("/api/bots")).bots.filter((b) => b.connected && !b.operator && !b.name.startsWith("guest-")).map((b) => b.name));
  const challenge = (bot) => online.has(bot) && board.game
    ? h("button", { class: "challenge", "data-bot": bot, onclick: () => startGame({ game: board.game, challenge: bot, seat: 0, ladder: board.ladder || undefined }) }, t("Challenge"))
    : "";
  const rated = new Set(board.leaderboard.map((r) => r.bot));
  const unrated = [...online].filter((bot) => !rated.has(bot)).sort();
  const history = await api("/api/ratings/history", { ladder: board.ladder || undefined });
  const chartBox = h("div", { class: "chart-box" });
  const titles = Object.fromEntries((await games()).map((g) => [g.name, g.title]));
  const shown = ladders.find((l) => l.name === board.ladder);
  const choose = ladders.length > 1 ? h("select", { id: "ladder-select" }, ladders.map((l) =>
    h("option", { value: l.name, selected: l.name === board.ladder }, `${l.name} · ${titles[l.game] || l.game}`))) : null;
  if (choose) choose.addEventListener("change", () => { location.hash = `#/ladder?ladder=${encodeURIComponent(choose.value)}`; });
  show(h("h1", {}, t("Ladder")), choose && h("p", {}, h("label", {}, t("Ladder"), " ", choose)),
    h("p", { class: "muted", id: "ladder-about" }, board.game ? t("game: {game}", { game: titles[board.game] || board.game })
      : t("no ladder game configured; all games"),
      shown && !shown.rated ? ` · ${t("unrated: its games change no rating")}` : null,
      shown && shown.settings === null ? ` · ${t("a new start every pairing")}` : null),
    board.leaderboard.length ? scrollBox(t("the leaderboard, scrolled sideways"), h("table", { class: "leaderboard", id: "leaderboard" },
      h("tr", {}, ["#", t("bot"), t("rating (μ − 3σ)"), "μ", "σ", t("games"), t("wins"), t("losses"), t("draws"), t("play it")].map((c, k) =>
        h("th", { scope: "col", class: k === 3 || k === 4 ? "detail" : null }, c))),
      board.leaderboard.map((r) => h("tr", {}, [r.rank, r.bot, r.rating, r.mu, r.sigma, r.games, r.wins, r.losses, r.draws]
        .map((v, k) => h("td", { class: k === 3 || k === 4 ? "detail" : null }, typeof v === "number" && !Number.isInteger(v) ? v.toFixed(2) : v))
        .concat([h("td", {}, challenge(r.bot))])))))
      : h("p", { class: "muted" }, t("no rated games yet")),
    unrated.length && board.game ? h("p", { id: "unrated-bots" }, t("Also connected, not rated yet:"), " ",
      unrated.map((bot) => h("span", { class: "unrated-bot" }, bot, " ", challenge(bot), " "))) : null,
    h("h2", {}, t("Rating history")), chartBox);
  chartBox.append(ratingChart(history.history, chartBox.clientWidth || 720));
  setPhase("ladder");
}

// -- seasons ---------------------------------------------------------------------------------------

const PHASES = { upcoming: N_("upcoming"), running: N_("running"), final: N_("final being played"), over: N_("over") };

// An ISO 8601 time in UTC, as people read it (2026-12-01 00:00 UTC).
function utc(iso) { return iso ? `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC` : "—"; }

function finalLine(final) {
  if (!final) return t("No final.");
  const what = final.format === "swiss" ? t("a Swiss of {rounds} rounds", { rounds: final.rounds, count: final.rounds }) : t("a round robin");
  return t("Final: the top {top}, {what}, {n} pairs of dice per pairing", { top: final.top, what, n: final.games, count: final.games });
}

async function seasonsPage() {
  const data = await api("/api/seasons");
  show(h("h1", {}, t("Seasons")),
    data.seasons.length ? scrollBox(t("the seasons, scrolled sideways"), h("table", { id: "season-list" },
      h("tr", {}, [t("season"), t("ladder"), t("start"), t("end"), t("phase")].map((c) => h("th", { scope: "col" }, c))),
      data.seasons.map((s) => h("tr", { "data-season": s.name },
        h("th", { scope: "row" }, h("a", { href: `#/season?name=${encodeURIComponent(s.name)}` }, s.name)),
        h("td", {}, s.ladder), h("td", {}, utc(s.start)), h("td", {}, utc(s.end)), h("td", { class: "phase" }, t(PHASES[s.phase]))))))
      : h("p", { class: "muted" }, t("no seasons on this server")));
  setTitle(t("Seasons"));
  setPhase("seasons");
}

async function seasonPage({ params }) {
  const name = params.get("name");
  const data = await api(`/api/seasons/${encodeURIComponent(name)}`);
  const rules = [];
  if (data.min_games) rules.push(t("at least {n} rated games", { n: data.min_games, count: data.min_games }));
  if (data.min_rating !== null && data.min_rating !== undefined) rules.push(t("a rating of {rating} or more", { rating: data.min_rating }));
  const standings = data.standings.length ? scrollBox(t("the standings, scrolled sideways"), h("table", { class: "leaderboard", id: "season-standings" },
    h("tr", {}, ["#", t("bot"), t("rating (μ − 3σ)"), t("games"), t("wins"), t("losses"), t("draws")].map((c) => h("th", { scope: "col" }, c))),
    data.standings.map((r) => h("tr", { class: r.entered ? null : "muted" },
      [r.entered ? r.rank : "—", playerName([r.bot], 0), r.rating.toFixed(2), r.games, r.wins, r.losses, r.draws].map((v) => h("td", {}, v))))))
    : h("p", { class: "muted" }, t("no rated games yet"));
  const base = `/api/seasons/${encodeURIComponent(name)}`;
  const parts = [h("h1", {}, t("Season {name}", { name })),
    h("p", { id: "season-phase" }, `${t(PHASES[data.phase])} · ${t("ladder {ladder}", { ladder: data.ladder })} · ${utc(data.start)} – ${utc(data.end)}`),
    h("p", { class: "muted" }, rules.length ? t("Entry: {rules}.", { rules: rules.join(", ") }) : t("Every rated bot enters."), " ", finalLine(data.final)),
    h("h2", {}, data.live ? t("Standings now (they freeze at the end)") : t("Final standings (frozen at the end)")),
    standings,
    h("p", {}, t("Download the standings:"), " ", h("a", { href: `${base}?format=csv`, download: `season-${name}.csv` }, "CSV"), " · ",
      h("a", { href: `${base}?format=json`, download: `season-${name}.json` }, "JSON"))];
  const state = data.final_state;
  if (state) {
    parts.push(h("h2", {}, t("The final")));
    const report = state.report || {};
    if (state.status === "finished") {
      parts.push(h("p", { id: "final-champion" }, t("Champion: {bot}", { bot: playerName([report.champion], 0) })),
        scrollBox(t("the final's ranking, scrolled sideways"), h("table", { class: "leaderboard", id: "final-ranking" },
          h("tr", {}, ["#", t("bot"), t("points"), t("games"), t("wins"), t("losses"), t("draws"), t("season rank")].map((c) => h("th", { scope: "col" }, c))),
          report.ranking.map((r) => h("tr", {}, [r.rank, playerName([r.bot], 0), r.points, r.games, r.wins, r.losses, r.draws, r.season_rank].map((v) => h("td", {}, v)))))),
        report.tournament ? h("p", {}, h("a", { href: `#/tournament?name=${encodeURIComponent(report.tournament)}` }, t("The final's full report (tables, Elo, pairings)")))
          : scrollBox(t("the final's pairings, scrolled sideways"), h("table", { class: "leaderboard", id: "final-pairings" },
            h("tr", {}, [t("pairing"), t("points"), t("Elo (95% CI)")].map((c) => h("th", { scope: "col" }, c))),
            (report.pairings || []).map((p) => h("tr", {},
              h("td", {}, playerName(p.bots, 0), " – ", playerName(p.bots, 1)),
              h("td", {}, `${p.points[0]} – ${p.points[1]}`),
              h("td", {}, p.elo === undefined || p.elo === null ? "—" : `${p.elo} [${(p.elo_ci || []).join(", ")}]`))))));
    } else if (state.status === "failed") {
      parts.push(h("p", { class: "error", id: "final-error" }, t("The final failed: "), failureText(report.error_code, report.error_params, report.error)));
    } else {
      const progress = state.progress || { done: 0, total: report.total || 1 };
      const bar = h("progress", { id: "final-progress", max: Math.max(1, progress.total), value: progress.done, "aria-label": t("games played") });
      const status = h("p", { id: "final-status", "aria-live": "polite" }, t("{done} of {total} games played", { done: progress.done, total: progress.total }));
      parts.push(h("div", { class: "card" }, bar, status));
      let stopped = false;
      cleanup.push(() => { stopped = true; });
      (async () => {
        while (!stopped) {
          await new Promise((resolve) => setTimeout(resolve, 1000));
          if (stopped) return;
          const now = await api(base).catch(() => null);
          if (!now || stopped) continue;
          if (!now.final_state || now.final_state.status !== "running") { navigate(); return; }
          const p = now.final_state.progress;
          if (p) { bar.max = Math.max(1, p.total); bar.value = p.done; status.textContent = t("{done} of {total} games played", { done: p.done, total: p.total }); }
        }
      })();
    }
  }
  show(...parts);
  setTitle(t("Season {name}", { name }));
  setPhase(state && state.status === "running" ? "running" : "season");
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
            found.set(name, { game: game.name, title: textsOf(game.name)(entry.title || name), page: entry.page });
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
    const options = await webOptions({ game: entry.game });
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
  const options = await webOptions();
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
    try { return { game: gameSelect.value, ...form.value() }; } catch (error) {  // the form's own, in the page's words
      message.className = "error"; message.replaceChildren(error.said || error.message); return null;
    }
  };
  const watch = h("button", { id: "start-match", class: "primary", onclick: async () => {
    const settings = chosen(gameMessage);
    if (!settings) return;
    try {
      const started = await post("/api/match", { ...settings, bots: [first.value.trim(), second.value.trim()] });
      location.hash = `#/watch?id=${started.game_id}`;
    } catch (error) { gameMessage.className = "error"; gameMessage.replaceChildren(errorText(error, reasonsOf(byName[gameSelect.value]))); }
  } }, t("Start and watch"));
  const run = h("button", { id: "start-tournament", class: "primary", onclick: async () => {
    const settings = chosen(tournamentMessage);
    if (!settings) return;
    try {
      const started = await post("/api/tournaments/run", { ...settings,
        bots: entrants.value.split(/[\n;]+/).map((b) => b.trim()).filter(Boolean), games: Number(perPairing.value) });
      location.hash = `#/run?id=${started.id}`;
    } catch (error) { tournamentMessage.className = "error"; tournamentMessage.replaceChildren(errorText(error, reasonsOf(byName[gameSelect.value]))); }
  } }, t("Run the tournament"));
  show(h("h1", {}, t("Bots")),
    h("p", { class: "muted" }, t("The thesis's main window: pick the game and its settings, then let two bots play or run a round-robin tournament.")),
    h("section", { class: "card" }, h("h2", {}, t("Game")), h("label", {}, t("Game"), " ", gameSelect), settingsBox, names),
    h("div", { class: "columns" },
      h("section", { class: "card" }, h("h2", {}, t("Two bots play")),
        h("label", {}, t("First"), " ", first), h("label", {}, t("Second"), " ", second),
        h("p", { class: "muted" }, t("A bot spec: a name, or name:param=value,… (search:depth=2).")), watch, gameMessage),
      h("section", { class: "card" }, h("h2", {}, t("A tournament")),
        h("label", { for: "tournament-bots" }, t("Bots (one spec a line)")), entrants,
        h("label", {}, t("Games per pairing"), " ", perPairing),
        h("p", { class: "muted", id: "tournament-limits" }, limits.tournament_bots
          ? t("At most {bots} bots and {games} games in all; one tournament at a time per visitor, {runs} at once on this server.",
            { bots: limits.tournament_bots, games: limits.tournament_games, runs: limits.tournaments }) : ""),
        run, tournamentMessage)));
  setPhase("bots");
}

// A tournament started from the browser: its progress, then its table.
async function runPage({ params }) {
  const id = params.get("id");
  const bar = h("progress", { id: "run-progress", max: 1, value: 0, "aria-label": t("games played") });
  const status = h("p", { id: "run-status", "aria-live": "polite" }, t("Starting…"));
  show(h("h1", {}, t("Tournament")), h("div", { class: "card" }, bar, status));
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
    if (run.status === "failed") {
      status.className = "error"; status.replaceChildren(t("The tournament failed: "), failureText(run.error_code, run.error_params, run.error));
      setPhase("error"); return;
    }
    const eta = run.eta_seconds !== null && run.eta_seconds !== undefined ? ` · ${t("about {time} left", { time: formatMs(run.eta_seconds * 1000) })}` : "";
    status.replaceChildren(run.status === "queued" ? t("Waiting for a free worker ({n} ahead)…", { n: run.ahead })
      : `${t("{done} of {total} games played", { done: run.done, total: run.total })}${eta}`);
    await new Promise((resolve) => setTimeout(resolve, 700));
  }
}

// -- preferences: the colour scheme, the sound of your turn (this browser only) -----------------

function applyTheme(theme) {
  if (theme === "light" || theme === "dark") document.documentElement.dataset.theme = theme;
  else delete document.documentElement.dataset.theme;  // the system's (prefers-color-scheme)
}

// The page's fixed texts (index.html's, English as written) in the page's language, and the
// header's switches: the language (remembered; the page is loaded again in it), the
// colour scheme, the sound of your turn.
function preferences() {
  for (const el of document.querySelectorAll("header a, .skip, main > p")) el.textContent = t(el.textContent.trim());
  const speech = language();
  const lang = h("select", { id: "lang", "aria-label": t("language") },
    Object.entries(speech.languages).map(([code, name]) => h("option", { value: code, lang: code, selected: code === speech.lang }, name)));
  lang.addEventListener("change", () => { remember("lang", lang.value); location.reload(); });
  const chosen = recall("theme", "auto");
  const theme = h("select", { id: "theme", "aria-label": t("colour scheme") },
    [["auto", N_("as the system")], ["light", N_("light")], ["dark", N_("dark")]].map(([value, text]) =>
      h("option", { value, selected: value === chosen }, t(text))));
  theme.addEventListener("change", () => { remember("theme", theme.value); applyTheme(theme.value); });
  const sound = h("button", { id: "sound", "aria-pressed": String(recall("sound", false)), onclick: () => {
    const on = !recall("sound", false);
    remember("sound", on);
    sound.setAttribute("aria-pressed", String(on));
    beep();  // this click lets the page make sounds later
  } }, t("Sound on your turn"));
  document.querySelector("header").append(h("div", { class: "prefs" }, lang, h("label", {}, t("Colours"), " ", theme), sound));
  applyTheme(chosen);
}

// -- router --------------------------------------------------------------------------------------

const PAGES = {
  "/": lobbyPage, "/play": playPage, "/watch": watchPage, "/replay": replayPage,
  "/tournaments": tournamentsPage, "/tournament": tournamentPage, "/ladder": ladderPage,
  "/bots": botsPage, "/run": runPage, "/howto": howtoPage, "/seasons": seasonsPage, "/season": seasonPage,
  "/account": accountPage, "/mine": myBotsPage, "/operator": operatorPage,
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

await loadLanguage();
preferences();
window.addEventListener("hashchange", navigate);
navigate();
