// What every page of the web interface shares: building DOM, the HTTP API, the games'
// renderers and the context they are given, names and results in words, the screen
// reader's announcements. No game is named here (docs/web.md).

export const main = document.getElementById("main");

// -- languages (docs/web.md, "Languages") ---------------------------------------------------

// The catalogue of the page's language (GET /api/web/messages): a key is the English text
// itself, so a text a catalogue lacks is shown as written (a plugin game without Russian);
// the server leaves out the texts that read as written (English sends only its plurals).
let speech = { lang: "en", languages: { en: "English" }, messages: {}, games: {} };
let plural = new Intl.PluralRules("en");

// The language remembered by this browser, else the first of its Accept-Language the
// server speaks; the page's texts follow it.
export async function loadLanguage() {
  const chosen = recall("lang", null);
  try { speech = await getJson("/api/web/messages", chosen ? { lang: chosen } : {}); } catch { /* as written */ }
  plural = new Intl.PluralRules(speech.lang);
  document.documentElement.lang = speech.lang;
  return speech;
}

export function language() { return speech; }

function lookup(table, text, params) {
  const value = table[text];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "object") return value;
  return value[plural.select(Number(params && params.count) || 0)] ?? value.other;
}

function fillIn(text, params) {
  return params ? String(text).replace(/\{(\w+)\}/g, (whole, key) => (params[key] ?? whole)) : String(text);
}

// Marks a text for the catalogue where it is written (a table's); `t` translates it where
// it is used (gettext's N_).
export const N_ = (text) => text;

// Texts asked for that the page's language lacks (shown as written; English lacks none):
// the tests read it to find a text left out of the catalogue.
export const untranslated = new Set();

function missing(text) {
  if (text && speech.lang !== "en") untranslated.add(text);
}

// `text` (English, the catalogue's key) in the page's language, its {names} filled in.
export function t(text, params) {
  const said = lookup(speech.messages, text, params);
  if (said === undefined) missing(text);
  return fillIn(said ?? text, params);
}

// A game's `t`: its own catalogue first, then the interface's. `optional`: for texts that
// may have no translation (a result's detail, a plugin game's title), not counted missing.
export function gameT(name, optional = false) {
  const own = speech.games[name] || {};
  return (text, params) => {
    const said = lookup(own, text, params) ?? lookup(speech.messages, text, params);
    if (said === undefined && !optional) missing(text);
    return fillIn(said ?? text, params);
  };
}

// A game of /api/web/options in the page's language: title, description, its bots' labels
// ("Переборная стратегия (search)") and descriptions, their parameters' docs.
export function localise(game) {
  const gt = gameT(game.name, !speech.games[game.name]);  // a game with no catalogue stays as written
  const label = gameT(game.name, true);  // a bot's name has a translation only where it has a name in words
  return { ...game, title: gt(game.title), description: gt(game.description), bots: (game.bots || []).map((bot) => {
    const named = label(bot.name);
    return { ...bot, label: named !== bot.name ? `${named} (${bot.name})` : bot.name, description: gt(bot.description),
      params: bot.params.map((param) => ({ ...param, doc: gt(param.doc) })) };
  }) };
}

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

// An error as a person reads it: what it means for them in their language, and the
// server's own words (for a refused setting, say: the rules' reason) where they say more.
// A code's text, or `code/reason` for a refusal whose optional `params.reason` says more;
// {names} are filled in from the answer's fields and its `params`. Every code the API
// raises has one here, or is listed in tests/web/test_error_catalogue.py with the reason
// no player sees it.
const ERRORS = {
  busy: N_("You have as many bot games running as you may: watch them to their end."),
  "too-many-games": N_("You are playing as many games as you may at once: finish one first."),
  "not-connected": N_("The page lost its connection to the server: reload it."),
  "not-connected/own-bot": N_("Your bot {bot} is not connected: connect it (with its token) and challenge again."),
  "storage-unavailable": N_("The server cannot store games just now: try again in a minute."),
  "unknown-game": N_("There is no such game (any more)."),
  "not-a-guest": N_("This browser has no guest account here: reload the page."),
  "build-budget": N_("You uploaded as many programs today as you may: try again tomorrow."),
  "not-operator": N_("This page is for the server's operators: sign in as one (an operator adds one with 'arena users add NAME --operator')."),
  "too-many-requests": N_("Too many requests from this browser: try again in a minute."),
  "rate-limited": N_("Too many tries from this address: try again in a minute."),
  "internal-error": N_("The server failed (it logged why): try again later."),
  "bad-settings": N_("These settings are refused: "),
  "bad-upload": N_("The upload is refused: "),
  "too-large": N_("This is too big for the server: "),
  "start-failed": N_("The server could not start the games: challenge again in a minute."),
  "builds-busy": N_("The server is building too many programs just now: try again in a minute."),
  "limit-reached": N_("You have reached a limit of your account: "),
  "name-taken": N_("This name is taken: choose another."),
  revoked: N_("This bot was retired: it takes no new token or version."),
  "not-signed-in": N_("Sign in first."),
  unauthorized: N_("Sign in first."),
  forbidden: N_("This is not yours to see or change."),
  "wrong-credentials": N_("Sign-in failed: wrong name or password."),
  "signup-closed": N_("Sign-up is closed on this server: its operator adds people."),
  "invite-needed": N_("Sign-up here is by invitation: give the invite code the operator sent you."),
  "bad-invite": N_("This invite code is not valid (or was used already)."),
  "unknown-bot": N_("You have no bot of this name."),
  "not-your-bot": N_("This bot is not yours."),
  "not-hosting": N_("This server hosts no bots."),
  "unknown-build": N_("There is no such build."),
  "no-log": N_("This game has no log (yet)."),
  "bad-log": N_("This log cannot be read: "),
  "replay-limit": N_("The replay needs more time or memory than the server gives it: "),
  "unknown-challenge": N_("There is no such challenge (any more)."),
  "unknown-ladder": N_("There is no such ladder."),
  "unknown-tournament": N_("There is no such tournament."),
  "unknown-run": N_("This tournament run is gone: runs are kept until the server restarts."),
  "unknown-season": N_("There is no such season."),
  "no-directory": N_("This server keeps no tournament results."),
  "bad-challenge": N_("The challenge is refused: "),
  "bad-challenge/self": N_("A bot cannot challenge itself."),
  "bad-challenge/house-bot": N_("{bot} is a house bot: house bots take no challenges."),
  "bad-challenge/not-connected": N_("The bot {bot} is not connected: it can take no challenge now."),
  "bad-challenge/other-game": N_("The bot {bot} does not play {game}."),
  "bad-challenge/bot-busy": N_("The bot {bot} is playing {count} games already: a challenge needs room for two more (at most {limit} at once)."),
  "bad-challenge/unrated-ladder": N_("This ladder is unrated: challenge without rating."),
  "bad-challenge/guest-rated": N_("Guests play no rated games: challenge without rating."),
  "bad-challenge/same-owner": N_("Both bots are {owner}'s, and a person's bots play no rated games against each other: challenge without rating."),
  "bad-challenge/no-host": N_("No game host takes challenges at this moment: try again in a few seconds."),
  "bad-challenge/pair-cap": N_("These bots were paired {count} times in the last hour, the most the ladder allows: no more rated games between them for now."),
  "challenge-limit": N_("Too many challenges: "),
  "challenge-limit/waiting": N_("Your bot has {limit} challenges waiting for an answer already: wait for one to end."),
  "challenge-limit/to-answer": N_("{bot} has {limit} challenges to answer already: try again later."),
  "challenge-limit/per-hour": N_("Your bot has sent {limit} challenges in the last hour, the most it may: try again later."),
  "bad-request": N_("The server refused: "),
  malformed: N_("This move cannot be read: "),
};

// Why the server refused what a person gave (an answer's `reason_code`, with the values
// its text names in `reason_params`): the settings of a game or a bot (a game's own
// reasons are in its renderer's `settingsReasons`), a name, a password, a tournament's
// size. tests/web/test_error_catalogue.py reads every code from the source.
const REASONS = {
  "above-guest-limit": N_("{title}: {doc} are at most {limit} in a guest's game (these settings: {value})."),
  "above-limit": N_("{title}: {doc} are at most {limit} in a game this server referees (these settings: {value})."),
  "not-two-players": N_("{title} with these settings is a game of {count} players: the web interface plays games of two."),
  "unknown-settings": N_("The game has no settings {keys} (its settings: {known})."),
  "settings-unreadable": N_("The settings of {title} cannot be read: give them as the form asks."),
  "param-not-integer": N_("The bot's parameter {param} is a whole number, not \"{value}\"."),
  "param-not-number": N_("The bot's parameter {param} is a number, not \"{value}\"."),
  "param-not-integers": N_("The bot's parameter {param} is whole numbers separated by commas, not \"{value}\"."),
  "param-not-valid": N_("The bot's parameter {param} cannot be \"{value}\"."),
  "param-not-choice": N_("The bot's parameter {param} is one of {choices}, not \"{value}\"."),
  "param-below-minimum": N_("The bot's parameter {param} is at least {minimum} (not {value})."),
  "param-above-maximum": N_("The bot's parameter {param} is at most {maximum} (not {value})."),
  "unknown-param": N_("The bot {bot} has no parameter “{param}” (its parameters: {known})."),
  "unknown-house-bot": N_("No bot “{bot}” plays {title} here (its bots: {known})."),
  "not-one-spec": N_("Give one bot here, not {count} (“{text}”)."),
  "empty-spec": N_("Name a bot."),
  "empty-spec-item": N_("The list of bots “{text}” has an empty item between two commas."),
  "no-bot-name": N_("“{token}” names no bot before its ':'."),
  "no-param-name": N_("“{token}” names no parameter before its '='."),
  "unreadable-spec": N_("“{token}” cannot be read: write a bot as name:parameter=value,parameter=value."),
  "unknown-preset": N_("The bot {bot} has no preset “{preset}” (its presets: {known})."),
  "program-not-house": N_("The server plays its own bots only: it runs no program a page names."),
  "name-reserved": N_("Names beginning with {prefix} are kept for the server's own accounts: choose another."),
  "name-invalid": N_("The name “{name}” cannot be used: a name has 1 to 40 Latin letters, digits, '_', '.' or '-', and begins with a letter or a digit."),
  "password-length": N_("A password has {minimum} to {maximum} characters (this one: {length})."),
  "bots-limit": N_("You have {most} bots, the most a person may have here."),
  "versions-limit": N_("Your bots registered {most} new versions in the last 24 hours, the most a day: try again tomorrow."),
  "bots-exactly": N_("Name {maximum} bots (not {count})."),
  "bots-between": N_("Name {minimum} to {maximum} bots (not {count})."),
  "spec-too-long": N_("A bot with its parameters is written in at most {most} characters."),
  "replay-turns": N_("The log has {turns} turns: a replay here takes at most {most}."),
  "replay-frame": N_("The game's position after move {frame} is too large to show."),
  "replay-size": N_("The replay grew beyond what the server sends by move {frame} of {turns}."),
  "replay-resources": N_("The replay needs more than the {seconds} s and {memory} MiB the server gives it."),
  "tournament-bots": N_("A tournament from the web has 2 to {limit} bots (this one: {count})."),
  "tournament-games": N_("{bots} bots at {games} games per pairing and seat order make {total} games: a tournament from the web plays at most {limit}."),
  // an upload refused, or its build failed (a build's `detail_code`)
  "upload-lang": N_("The server builds no programs in “{lang}” (its languages: {known})."),
  "upload-no-lang": N_("Say the program's language (one of {known})."),
  "upload-speaks": N_("A program speaks lines or WebSocket, not “{speaks}”."),
  "upload-no-account": N_("{bot} is no bot account the server hosts programs for."),
  "upload-no-file": N_("The form sent no file: choose the program."),
  "upload-empty": N_("The file is empty."),
  "upload-too-large": N_("The program is larger than {mib} MiB, the upload limit."),
  "body-too-large": N_("What the page sent is larger than the {most} bytes the server takes here."),
  "hosted-dir-closed": N_("The server's directory of hosted bots is out of the sandboxes' reach ({directory} is closed to other users): its operator opens it."),
  "source-nul": N_("The sources are refused: the file name “{name}” holds a NUL."),
  "source-absolute": N_("The sources are refused: “{name}” is an absolute path."),
  "source-dotdot": N_("The sources are refused: “{name}” has '..' in its path."),
  "source-path-long": N_("The sources are refused: the path “{name}” is longer than {most} bytes."),
  "source-deep": N_("The sources are refused: “{name}” is nested deeper than {most} directories."),
  "source-not-a-name": N_("The sources are refused: “{name}” is not a file name."),
  "source-twice": N_("The sources are refused: “{name}” appears twice."),
  "source-under-file": N_("The sources are refused: “{name}” is under “{parent}”, which is not a directory."),
  "source-files": N_("The sources are refused: more than {most} files and directories."),
  "source-unpacked": N_("The sources are refused: the files come to more than {mib} MiB unpacked."),
  "source-size-wrong": N_("The sources are refused: “{name}” does not hold the {size} bytes the archive declares."),
  "source-link-out": N_("The sources are refused: the symbolic link “{name}” points out of the sources (to “{target}”)."),
  "source-archive-limit": N_("The sources are refused: the archive unpacks to more than its limit."),
  "source-not-tar": N_("The sources are refused: the file is not a readable tar archive."),
  "source-not-zip": N_("The sources are refused: the file is not a readable zip archive."),
  "source-hard-link": N_("The sources are refused: “{name}” is a hard link (use a copy or a relative symbolic link)."),
  "source-special": N_("The sources are refused: “{name}” is neither a file nor a directory (devices, pipes and sockets are not taken)."),
  "source-link-long": N_("The sources are refused: the symbolic link “{name}” is too long."),
  "source-too-large": N_("The sources are refused: the file is larger than the {mib} MiB a bot's file may have."),
  "source-empty": N_("The sources are refused: there are no files in them."),
  "no-source-file": N_("No {files} file in the sources."),
  "not-a-java-class": N_("{name} is not the name of a Java class."),
  "no-entry": N_("No {wanted} at the top of the sources."),
  "entry-ambiguous": N_("No {wanted}, and several candidates at the top of the sources ({candidates}): name the entry {entry}."),
  "not-a-program": N_("{name} is not a program: neither an ELF executable nor a script starting with '#!'."),
  "build-directory-taken": N_("{directory} exists and is not an earlier build: give a new directory."),
  "build-result-refused": N_("The build's result is refused (its files break the rules of sources)."),
  "build-overtime": N_("The build took more than {seconds} s."),
  "build-result-large": N_("The build's result is larger than {mib} MiB."),
  "build-memory": N_("The build failed: it reached its memory limit ({mib} MiB)."),
  "build-processes": N_("The build failed: it reached its limit of {most} processes."),
  "build-killed": N_("The build failed: it was killed by signal {signal}."),
  "build-exit": N_("The build failed (exit status {status}): its log says why."),
  "build-server-error": N_("The server could not build it (it logged why): upload it again later."),
  "build-interrupted": N_("The server stopped during the build: upload it again."),
  "log-too-large": N_("The log is larger than {mib} MiB, the most read here."),
  "log-not-utf8": N_("The log is not UTF-8 text (byte {byte})."),
  "log-empty": N_("The file is empty: there is no log in it."),
  "log-format-unknown": N_("This is no log the arena reads: neither its own JSON Lines nor a log of one of its games."),
  "log-not-json": N_("Line {line} is not JSON."),
  "log-json-bounds": N_("Line {line} nests too deep or holds a number too large."),
  "log-line-not-object": N_("Line {line} is not a JSON object, as every line of a log is."),
  "log-no-header": N_("Line {line} is not the header of an arena log."),
  "log-version": N_("The log is of version {version}: this arena reads version {supported}."),
  "log-header-field": N_("The log's header has no valid “{field}”."),
  "log-after-result": N_("Line {line} follows the result, the last line of a log."),
  "log-bad-result": N_("Line {line}, the result, cannot be read."),
  "log-turn-lacks": N_("Line {line}, a turn, has no {missing}."),
  "log-turn-types": N_("Line {line}, a turn: turn and player are whole numbers, move a text."),
};

// A reason in the page's language, or null for a code neither REASONS nor `own` (a game's
// `{reasons, t}`: its renderer's `settingsReasons` and its `t`) knows. A game's reason
// is led by `lead` (the answer's code's text: "This log cannot be read: ", else "These
// settings are refused: ") and by the line it is about, if any.
function reasonText(code, params, own, lead = ERRORS["bad-settings"]) {
  if (!code) return null;
  if (own && own.reasons && Object.hasOwn(own.reasons, code)) {
    const line = params && params.line ? t("line {n}: ", { n: params.line }) : "";
    return h("span", {}, t(lead), line, own.t(own.reasons[code], params || {}));
  }
  return Object.hasOwn(REASONS, code) ? t(REASONS[code], gameWords(params || {})) : null;
}

// A reason's params with a game's `title` and a setting's `doc` (texts of the game's own
// catalogue, named by its `game`) in the page's language.
function gameWords(params) {
  if (!params.game) return params;
  const gt = gameT(params.game, true);
  const said = { ...params };
  for (const key of ["title", "doc"]) if (typeof said[key] === "string") said[key] = gt(said[key]);
  return said;
}

// Why a tournament run or a season's final failed (`error_code` of /api/tournaments/progress
// and of a final's report, its values in `error_params`), led by "The tournament failed: ".
const FAILURES = {
  "worker-not-started": N_("the server could not start a worker for it: try again later"),
  "worker-error": N_("its worker stopped on an error ({kind}): try again, or with fewer bots or games"),
  "worker-stopped": N_("its worker stopped without a result: try again, or with fewer bots or games"),
  overtime: N_("it took longer than {seconds} s, the limit of a tournament from the web"),
  shutdown: N_("the server shut down"),
  "final-not-house": N_("only house bots can play a final for now, and {bots} is not one"),
  "final-too-few": N_("{count} bots met the entry rules: a final needs two"),
  "final-error": N_("it stopped on an error ({kind}); the server logged it"),
  "results-unreadable": N_("its results cannot be read; the server logged why"),
  "tournament-bots": N_("a tournament from the web has 2 to {limit} bots, and this one has {count}"),
  "tournament-games": N_("{bots} bots at {games} games per pairing and seat order make {total} games, and a tournament from the web plays at most {limit}"),
  "no-directory": N_("this server keeps no tournament results"),
  busy: N_("another tournament of the same client is running"),
};

// A failure (`code`, `params`) in the page's language; the server's English `english`,
// marked lang="en", for a code FAILURES does not know (or on an English page without one).
export function failureText(code, params, english) {
  if (code && Object.hasOwn(FAILURES, code)) return t(FAILURES[code], params || {});
  return speech.lang === "en" ? String(english || "") : h("span", { lang: "en" }, String(english || ""));
}

// Why a build failed (a build's `detail_code`, its values in `detail_params`) in the page's
// language; the server's English `english`, marked lang="en", for a code REASONS does not
// know (a build stored before builds had codes).
export function buildFailure(code, params, english) {
  if (code && Object.hasOwn(REASONS, code)) return t(REASONS[code], params || {});
  return speech.lang === "en" ? String(english || "") : h("span", { lang: "en" }, String(english || ""));
}

// One string or node (never an array: `replaceChildren` would print it as "a,[object …]").
// A known `reason_code` says why (`game`: a game's reasons, `reasonText`, for an answer
// about its settings), else the answer's `code`.
export function errorText(error, game = null) {
  if (typeof error === "string") return error;  // said already in the page's language
  if (error && error.said) return error.said;  // an Error of the page's own, said already
  const data = (error && error.data) || {};
  const coded = data.code !== "bad-request" && ERRORS[data.code];  // a log's: "This log cannot be read: "
  const lead = coded && coded.endsWith(": ") ? coded : ERRORS["bad-settings"];
  const reason = reasonText(data.reason_code, data.reason_params, game, lead);
  if (reason !== null) return reason;
  const own = String((error && error.message) || error || "");
  const params = { ...data, ...(data.params || {}) };
  const reasoned = ERRORS[`${data.code}/${params.reason}`];
  const known = reasoned || ERRORS[data.code] || (error && error.status === 429 ? ERRORS["too-many-requests"] : null);
  // a text ending in ": " leads the server's own words (which setting, which limit)
  if (known && known.endsWith(": ") && own) return h("span", {}, t(known, params), h("span", { lang: "en" }, own));
  if (known) return t(known, params);
  if (speech.lang === "en" || !own) return own || t("The server could not be reached: try again.");
  return h("span", {}, t(error && error.status ? "The server refused: " : "Something went wrong: "), h("span", { lang: "en" }, own));
}

export function errorBox(error, game = null) {
  return h("p", { class: "error", role: "alert" }, errorText(error, game));
}

// The reasons of the game an error answer names (`reason_params.game`: a log a game's
// plugin reads, the thesis's text log), for `errorText`; null for none.
export async function reasonsNamed(error) {
  return gameReasons(error && error.data && error.data.reason_params && error.data.reason_params.game);
}

// The reasons of the game `name` (a failed challenge's `error_params.game`), as
// `reasonsNamed`'s; null for none.
export async function gameReasons(name) {
  if (!name) return null;
  const renderer = await rendererFor(name).catch(() => null);
  return renderer ? { reasons: renderer.settingsReasons, t: gameT(name, !speech.games[name]) } : null;
}

// What a protocol `error` means for the person at the page, in their words (the
// protocol's own text is for bot authors, docs/protocol.md), or null when it is none of
// their business: what the ladder plays (a guest never plays on the ladder).
const PROTOCOL_NOTES = {
  "unknown-game": N_("this game is not being played any more"),
  "not-your-game": N_("this game is not yours to play"),
  "storage-unavailable": N_("the server cannot store games just now: try again in a minute"),
  "rate-limited": N_("the page sent too much too fast; it reconnects"),
  "too-many-errors": N_("the connection was closed after too many errors; it reconnects"),
  unauthorized: N_("the server did not recognise this browser: reload the page"),
};
const NOT_FOR_PLAYERS = new Set(["no-ladder-game", "unknown-game-name", "log-too-long", "log-limit", "log-budget",
  "log-disk-low"]);

export function protocolNote(message) {
  if (NOT_FOR_PLAYERS.has(message.code)) return null;
  return t(PROTOCOL_NOTES[message.code] || "the server did not understand this page: reload it");
}

// -- the referee's rejections (docs/web.md, "Languages") -------------------------------------

// What the referee's rejection codes (and a log's defects) mean for a person, by code: the
// referee's, the server's and the replay's own here, each game's own in its renderer's
// `rejections`. A code named after the game's chance event (`bad-roll`, `dice-mismatch`)
// or after a fact its log records (`missing-...`) reads as its kind (`rejectionKey`).
// tests/web/test_error_catalogue.py derives every code a game can give from the games'
// source and checks each has a text here or in its game's table, in English and Russian.
const REJECTIONS = {
  malformed: N_("the move cannot be read"),
  "too-long": N_("the move is longer than any move of this game"),
  "game-over": N_("the game is already over"),
  "not-your-turn": N_("it is the other player's turn"),
  "stale-turn": N_("the move came for a turn already played"),
  "future-turn": N_("the move came for a turn that has not begun"),
  "bad-chance": N_("this roll of the dice cannot happen here"),
  "missing-chance": N_("the dice have not been rolled for this move"),
  "unexpected-chance": N_("no roll of the dice belongs before this move"),
  "chance-mismatch": N_("the log's roll of the dice is not the one the game's seed gives"),
  "missing-fact": N_("the log leaves out what the referee records after this move"),
  "fact-mismatch": N_("the log records a position after this move that is not the referee's"),
  "turn-number": N_("the log's turns are not numbered in order"),
  "no-result": N_("the log ends without a result"),
  unfinished: N_("the log records a result, but the game is not over"),
  "score-mismatch": N_("the log's scores are not the referee's"),
  "result-mismatch": N_("the log's result is not the referee's"),
};

// The key of `code` in REJECTIONS or the game's `rejections` (`own`), or null for a code
// neither knows. `chance`: the game's chance event's name (`roll`, `dice`).
export function rejectionKey(code, chance, own = {}) {
  if (!code) return null;
  if (Object.hasOwn(own, code) || Object.hasOwn(REJECTIONS, code)) return code;
  if (chance && code === `${chance}-mismatch`) return "chance-mismatch";
  for (const kind of ["bad-", "missing-", "unexpected-"]) if (chance && code === kind + chance) return `${kind}chance`;
  if (code.startsWith("missing-")) return "missing-fact";
  if (code.endsWith("-mismatch")) return "fact-mismatch";
  return null;
}

// A rejection as the person at the page reads it: its code's text in the page's language
// (led by the step it is about, 1-based, for a move built in steps); an English page
// shows the referee's own words instead (they say more: which heap, which card), and so
// does any page for a code no table knows, marked lang="en". `game`: the game's name;
// `renderer`: its renderer (for `rejections`); `players`, `me`: to name seats in words.
export function rejectionText({ code, message, step }, { game, renderer, chance, players, me = null }) {
  const own = (renderer && renderer.rejections) || {};
  const key = rejectionKey(code, chance, own);
  if (speech.lang === "en" || !key) {
    const words = humanDetail(message || code || "", players, me);
    return speech.lang === "en" ? words : h("span", { lang: "en" }, words);
  }
  const gt = gameT(game, !speech.games[game]);  // a game with no catalogue stays as written
  const text = Object.hasOwn(own, key) ? gt(own[key]) : t(REJECTIONS[key]);
  return step === null || step === undefined ? text : t("step {n}: ", { n: step + 1 }) + text;
}

// A move as a rejection's lead quotes it: cut short, it is any text a bot sent.
export function quotedMove(move) {
  const text = String(move ?? "");
  return text.length > 60 ? `${text.slice(0, 59)}…` : text;
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
function parseJson(text) {
  if (!/\d{16}/.test(text)) return JSON.parse(text);  // no such number: the quick path
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
  document.title = text ? `${text} · ${t("the arena")}` : t("The arena");
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
  if (name.startsWith("house:")) return t("{name} (house bot)", { name: botLabel(name.slice(6)) });
  if (name.startsWith("guest-")) return t("guest {id}", { id: name.slice(6, 10) });
  return name;
}

// The name in words of the strategy a bot spec names (search:depth=2: "Переборная
// стратегия"), where a game's catalogue has one in the page's language; else null.
function strategyOf(spec) {
  const base = String(spec).split(":")[0];
  return Object.values(speech.games).map((own) => lookup(own, base)).find((said) => typeof said === "string") ?? null;
}

// A house bot's spec as people read it: "Переборная стратегия depth=2" (search:depth=2).
function botLabel(spec) {
  const label = strategyOf(spec);
  return label ? [label, ...spec.split(":").slice(1)].join(" ") : spec;
}

// A bot spec of a tournament as people read it, its strategy's name in words first:
// "Переборная стратегия (search:depth=2)", as the lobby names it; else as written.
export function strategyName(spec) {
  const label = strategyOf(spec);
  return label ? `${label} (${spec})` : spec;
}

const ORDINALS = [N_("first"), N_("second"), N_("third"), N_("fourth")];  // t() at use

// A player as people read it: "You" for the one looking, else the account's name; two
// seats that would read the same (the same bot twice) are told apart by their seat:
// "random (house bot, first)".
export function playerName(players, seat, me = null) {
  if (me !== null && me !== undefined && seat === me) return t("You");
  const name = players && players[seat];
  if (name === undefined || name === null) return t("seat {n}", { n: seat + 1 });
  const shown = accountName(name);
  const twin = players.some((other, s) => s !== seat && s !== me && other !== null && other !== undefined && accountName(other) === shown);
  if (!twin) return shown;
  const where = ORDINALS[seat] ? t(ORDINALS[seat]) : t("seat {n}", { n: seat + 1 });
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

const ENDINGS = { resignation: N_("by resignation"), timeout: N_("on time"), disconnect: N_("(a player left)"),
  illegal_move: N_("by an illegal move"), aborted: "" };  // t() at use

// Why the server aborted a game (arena/server: games.py, live.py), by how its English
// reason begins; the reason itself on an English page, where it says more.
const ABORTS = [["the server shut down", N_("the server shut down")], ["server error", N_("the server failed")],
  ["the game's state grew", N_("the game's position grew too large")], ["the state is too large", N_("the game's position grew too large")],
  ["the game could not be resumed", N_("the game could not be taken up again after the server restarted")]];

function abortedWhy(reason, players) {
  const known = ABORTS.find(([start]) => reason.startsWith(start));
  if (speech.lang === "en" || !known) return humanDetail(reason, players);  // an unknown reason: as the server says it
  return t(known[1]);
}

// A refusal given by code and params outside an error answer (a failed challenge's
// `error_code` and `error_params`) as `errorText` says an answer's: a `code/reason` of
// ERRORS, a reason of the game's (`own`, `gameReasons`) or of REASONS, a code's own
// text; null for a code none of them says whole.
function codedText(code, params, own) {
  const reasoned = params.reason ? ERRORS[`${code}/${params.reason}`] : null;
  if (reasoned) return t(reasoned, params);
  const reason = reasonText(code, params, own);
  if (reason !== null) return reason;
  return ERRORS[code] && !ERRORS[code].endsWith(": ") ? t(ERRORS[code], params) : null;
}

// Why a challenge ended (its `reason`, arena/server/challenges.py): a failure by its code,
// else by the pattern of the server's English words; a reason no pattern knows (a bot's
// own words for declining, a failure without a code) as it is, the server's marked lang="en". tests/web/test_error_catalogue.py
// matches every reason the server gives against these patterns.
const CHALLENGE_ENDS = [
  [/^(?<bot>\S+) declined$/, N_("{bot} declined")],
  [/^(?<bot>\S+) disconnected$/, N_("{bot} disconnected")],
  [/^no answer within (?<seconds>[\d.]+) s$/, N_("no answer within {seconds} s")],
  [/^the challenger is rated (?<rating>[\d.-]+), below (?<limit>[\d.-]+)$/, N_("the challenger's rating {rating} is below the {limit} the bot asks for")],
  [/^the challenger is rated (?<rating>[\d.-]+), above (?<limit>[\d.-]+)$/, N_("the challenger's rating {rating} is above the {limit} the bot asks for")],
  [/^the bot declines challenges$/, N_("the bot declines challenges")],
  [/^the bot takes no challenges$/, N_("the bot takes no challenges")],
  [/^the game host that kept it stopped/, N_("the game host that kept it stopped: challenge again")],
];

function challengeEnd(reason, status, code = null, params = null, own = null) {
  if (status === "failed" && code) {  // the refusal that failed it, by code (its `error_code`)
    const said = codedText(code, params || {}, own);
    if (said !== null) return said;
  }
  for (const [pattern, text] of CHALLENGE_ENDS) {
    const found = pattern.exec(reason);
    if (found) return t(text, { ...found.groups, bot: found.groups && found.groups.bot ? accountName(found.groups.bot) : "" });
  }
  if (status === "declined") return `“${reason}”`;  // the bot's own words, in its language
  return speech.lang === "en" ? reason : h("span", { lang: "en" }, reason);
}

// Why a challenge ended, from its `challenge_status` fields (`answer`), in the page's
// words (`challengeEnd`): a failure for a reason of its game's own in that game's words.
export async function challengeAnswerEnd(answer) {
  const own = answer.status === "failed" ? await gameReasons(answer.error_params && answer.error_params.game) : null;
  return challengeEnd(answer.reason, answer.status, answer.error_code, answer.error_params, own);
}

// The headline of a result: "You won 36 : 12", "alpha won", "Draw 20 : 20".
// `meaning` is the renderer's `scoreMeaning`: null when the numbers say nothing (1 : 0).
export function resultText(outcome, players, me = null, meaning) {
  if (!outcome) return t("no result");
  const { result, winner, termination } = outcome;
  let scores = outcome.scores && meaning !== null ? [...outcome.scores] : null;
  if (result === "aborted" || termination === "aborted") return t("Aborted: {why}", { why: abortedWhy(outcome.reason || outcome.detail || "", players) });
  const how = termination && termination !== "normal" && ENDINGS[termination] ? ` ${t(ENDINGS[termination])}` : "";
  const mine = me !== null && me !== undefined && players.length === 2;
  if (scores && scores.length === 2) {
    const first = mine ? me : (winner ?? 0);
    scores = `${scores[first]} : ${scores[1 - first]}`;
  } else if (scores) scores = scores.join(" : ");
  const tail = scores ? ` ${scores}` : "";
  if (winner === null || winner === undefined || result === "draw") return `${t("Draw")}${tail}${how}`;
  if (mine) return `${t(winner === me ? "You won" : "You lost")}${tail}${how}`;
  return `${t("{name} won", { name: playerName(players, winner) })}${tail}${how}`;
}

// What the numbers of a result mean, per seat: "points: You 36, random (house bot) 12".
export function scoresLine(outcome, players, me, meaning) {
  if (!outcome || !outcome.scores || meaning === null || meaning === undefined) return null;
  return `${meaning}: ${outcome.scores.map((s, seat) => `${playerName(players, seat, me)} ${s}`).join(", ")}`;
}

// -- games and their renderers -----------------------------------------------------------------

let gamesCache = null;

export function setGames(list) { gamesCache = Promise.resolve(list); }

// /api/web/options, its games in the page's language.
export async function options(params = {}) {
  const answer = await api("/api/web/options", params);
  const list = answer.games.map(localise);
  return { ...answer, games: list, bots: (list.find((g) => g.name === answer.game) || { bots: answer.bots }).bots };
}

// Every registered game as /api/web/options lists it (title, renderer, lobby data, bots).
export async function games() {
  if (!gamesCache) {
    gamesCache = getJson("/api/web/options").then((o) => o.games.map(localise)).catch((error) => { gamesCache = null; throw error; });
  }
  return gamesCache;
}

export async function gameInfo(name) {
  return (await games()).find((g) => g.name === name) || { name, title: name, description: "", renderer: null, lobby: {}, bots: [], log_formats: [] };
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
    const typed = h("input", { id: "move-text", "aria-label": t("your move"), placeholder: ctx.game ? ctx.game.move_syntax : t("a move"), size: 30 });
    return h("div", { class: "json-board" },
      ctx.legal ? h("div", { class: "moves" }, h("span", {}, t("Your move: ")),
        moves.map((move) => h("button", { class: "move", "data-move": move, onclick: () => ctx.play(move) },
          optionLabel(view, move))),
        h("form", { onsubmit: (e) => { e.preventDefault(); if (typed.value.trim()) ctx.play(typed.value.trim()); } },
          typed, h("button", {}, t("Play")))) : null,
      h("pre", { class: "json" }, JSON.stringify(view, null, 1)));
  },
  settings(ctx) {
    const { game } = ctx;
    const initial = (ctx.saved && ctx.saved.settings) || game.lobby.settings || {};
    const text = h("textarea", { id: "settings-json", rows: 6, cols: 30, spellcheck: "false" }, JSON.stringify(initial, null, 1));
    return {
      element: h("label", {}, t("Settings (JSON) "), text),
      value: () => {
        try { return { settings: JSON.parse(text.value) }; } catch (error) {  // the browser's own words, in English
          throw Object.assign(new Error(t("settings: {why}", { why: error.message })),
            { said: h("span", {}, t("the settings are not JSON: "), h("span", { lang: "en" }, error.message)) });
        }
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
  const game = fields.game || null;
  return { h, svg, api, post, errorText, t: game ? gameT(game.name, !speech.games[game.name]) : t, lang: speech.lang, game: null, settings: {}, players: [], me: null, frame: null, legal: null,
    last: null, local: {}, chance: null, saved: null, name: (seat) => playerName(fields.players || [], seat, fields.me ?? null),
    play: () => {}, refresh: () => {}, redraw: () => {}, ...fields };
}

// The board under a heading of its own (a screen reader's outline: the page's title, the
// board, the players' sections in it).
export function boardOf(renderer, view, ctx, heading = true) {
  return h("div", { class: "board", "data-game": ctx.game ? ctx.game.name : "", tabindex: -1 },
    heading ? h("h2", { class: "visually-hidden" }, t("The board")) : null, renderer.board(view, ctx));
}

export function moveText(renderer, move, ctx) {
  return renderer.describeMove ? renderer.describeMove(move, ctx) : h("code", {}, move);
}

export function chanceText(renderer, chance, ctx) {
  if (renderer.describeChance) return renderer.describeChance(chance, ctx);
  return [`${ctx.t((ctx.game && ctx.game.chance_name) || "chance")} `, h("code", {}, JSON.stringify(chance))];
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
