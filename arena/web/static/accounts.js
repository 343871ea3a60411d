// People and their bots (docs/web.md, "My bots"): signing in and up (#/account), and a
// person's bots with their tokens, versions, games and debug lines, challenges made with
// them, and on a server that hosts bots their uploads, builds and build logs (#/mine).
// The session is an HttpOnly cookie the server sets: this page never sees it.

import { StalePage, api, buildFailure, challengeAnswerEnd, errorText, h, playerName, post, resultText, scrollBox, setPhase, setTitle, show, t } from "/static/ui.js";

function message(id) { return h("p", { id, "aria-live": "polite" }); }

function failed(box, error) { box.className = "error"; box.replaceChildren(errorText(error)); }

function field(id, label, attrs = {}) {
  const input = h("input", { id, name: id, ...attrs });
  return [h("label", { for: id }, label), input];
}

// #/account: sign in, or sign up where the server lets people (open, or with an invite code).
export async function accountPage() {
  const me = await api("/api/account/me");
  setTitle(t("Sign in"));
  if (me.name) {
    show(h("h1", {}, t("Your account")), h("p", { id: "signed-in" }, t("Signed in as {name}.", { name: me.name })),
      h("p", {}, h("a", { href: "#/mine" }, t("My bots"))),
      me.operator ? h("p", {}, h("a", { id: "operator-link", href: "#/operator" }, t("Operators' page"))) : null, signOutButton());
    setPhase("account");
    return;
  }
  const [nameLabel, name] = field("signin-name", t("Name"), { autocomplete: "username", required: true });
  const [passwordLabel, password] = field("signin-password", t("Password"), { type: "password", autocomplete: "current-password", required: true });
  const signinMessage = message("signin-message");
  const signin = h("form", { id: "signin-form", onsubmit: async (event) => {
    event.preventDefault();
    try {
      await post("/api/account/signin", { name: name.value.trim(), password: password.value });
      location.hash = "#/mine";
    } catch (error) { failed(signinMessage, error); }
  } }, nameLabel, name, passwordLabel, password, h("p", {}, h("button", { id: "signin", class: "primary", type: "submit" }, t("Sign in"))), signinMessage);
  show(h("h1", {}, t("Sign in")), h("div", { class: "columns" },
    h("section", { class: "card", "aria-labelledby": "signin-title" }, h("h2", { id: "signin-title" }, t("Sign in")), signin),
    h("section", { class: "card", "aria-labelledby": "signup-title" }, h("h2", { id: "signup-title" }, t("Sign up")), signUpForm(me))));
  setPhase("account");
}

function signUpForm(me) {
  if (me.signup === "closed") {
    return h("p", { id: "signup-closed", class: "muted" }, t("Sign-up is closed on this server: ask its operator for an account."));
  }
  const [nameLabel, name] = field("signup-name", t("Name"), { autocomplete: "username", required: true, maxlength: 40 });
  const [passwordLabel, password] = field("signup-password", t("Password"), { type: "password", autocomplete: "new-password", required: true,
    minlength: me.limits.password_min, maxlength: me.limits.password_max });
  const invite = me.signup === "invite" ? field("signup-invite", t("Invite code"), { required: true, autocomplete: "off" }) : [];
  const signupMessage = message("signup-message");
  return h("form", { id: "signup-form", onsubmit: async (event) => {
    event.preventDefault();
    try {
      await post("/api/account/signup", { name: name.value.trim(), password: password.value,
        ...(invite.length ? { invite: invite[1].value.trim() } : {}) });
      location.hash = "#/mine";
    } catch (error) { failed(signupMessage, error); }
  } }, nameLabel, name, h("p", { class: "muted" }, t("1 to 40 letters, digits, '_', '.' or '-'.")),
  passwordLabel, password, h("p", { class: "muted" }, t("{min} to {max} characters.", { min: me.limits.password_min, max: me.limits.password_max })),
  ...invite, h("p", {}, h("button", { id: "signup", class: "primary", type: "submit" }, t("Sign up"))), signupMessage);
}

function signOutButton() {
  return h("button", { id: "signout", onclick: async () => {
    await post("/api/account/signout");
    location.hash = "#/account";
  } }, t("Sign out"));
}

// A token, shown once: after a bot is made or its token replaced.
function tokenBox(box, bot, token) {
  box.replaceChildren(h("p", {}, t("The token of {bot}, shown once: copy it now (a bot connects with it).", { bot })),
    h("p", {}, h("code", { id: "token", class: "token" }, token)));
  box.hidden = false;
  box.focus();
}

// #/mine: the signed-in person's bots.
export async function myBotsPage() {
  setTitle(t("My bots"));
  const me = await api("/api/account/me");
  if (!me.name) {
    show(h("h1", {}, t("My bots")), h("p", { id: "not-signed-in" }, t("Sign in to see your bots."), " ",
      h("a", { href: "#/account" }, t("Sign in"))));
    setPhase("signed-out");
    return;
  }
  const [mine, { ladders }] = await Promise.all([api("/api/account/bots"), api("/api/ladders")]);
  const tokenShown = h("div", { id: "token-box", class: "card", role: "status", tabindex: "-1", hidden: true });
  const [nameLabel, name] = field("new-bot", t("Name of the new bot"), { required: true, maxlength: 40, autocomplete: "off" });
  const createMessage = message("create-message");
  const create = h("form", { id: "create-form", onsubmit: async (event) => {
    event.preventDefault();
    try {
      const made = await post("/api/account/bots", { name: name.value.trim() });
      await myBotsPage();
      tokenBox(document.getElementById("token-box"), made.name, made.token);
    } catch (error) { failed(createMessage, error); }
  } }, nameLabel, name, h("p", {}, h("button", { id: "create-bot", class: "primary", type: "submit" }, t("Create the bot"))), createMessage);
  const cards = await Promise.all(mine.bots.map((bot) => botCard(bot, tokenShown, ladders, me.hosting)));
  show(h("h1", {}, t("My bots")),
    h("p", { id: "signed-in" }, t("Signed in as {name}.", { name: me.name }), " ", signOutButton()),
    me.operator ? h("p", {}, h("a", { id: "operator-link", href: "#/operator" }, t("Operators' page"))) : null,
    h("p", { class: "muted", id: "account-limits" }, t("At most {bots} bots; {versions} new versions a day, of all your bots.",
      { bots: me.limits.bots, versions: me.limits.versions_per_day }),
    me.hosting ? [" ", t("The server runs your bots' programs: {builds} uploads a day, each at most {size} MiB; a program that builds is a new version.",
      { builds: me.hosting.builds_per_day, size: Math.round(me.hosting.upload_bytes / 1048576) })] : null),
    tokenShown,
    h("section", { class: "card" }, h("h2", {}, t("A new bot")), create),
    mine.bots.length ? cards : h("p", { class: "muted", id: "no-bots" }, t("You have no bots yet.")));
  setPhase("mine");
}

function when(seconds) { return new Date(seconds * 1000).toLocaleString(); }

// A version's note: the person's own words as written, or the server's for a build that
// became the version (arena/uploads.py: "build ID (LANG)"), said in the page's language.
const BUILD_NOTE = /^build ([0-9a-f]+) \((\w+)\)$/;
function noteText(note) {
  const found = BUILD_NOTE.exec(note || "");
  return found ? t("build {id} ({lang})", { id: found[1], lang: found[2] }) : note;
}

// (a function: the catalogue is loaded after this module)
const challengeStates = () => ({ pending: t("waiting for the answer"), accepted: t("accepted"), declined: t("declined"),
  expired: t("expired"), cancelled: t("cancelled"), failed: t("failed") });

// Where a challenge stands, in `box`: its state, why it ended (a failure for a reason of
// its game's own in the game's words), and the games once accepted.
async function challengeStatus(box, answer) {
  const why = answer.reason ? await challengeAnswerEnd(answer) : null;
  const state = challengeStates()[answer.status] || answer.status;
  box.className = answer.status === "accepted" || answer.status === "pending" ? "challenge-status" : "challenge-status error";
  box.dataset.status = answer.status;
  box.replaceChildren(t("Challenge to {bot}: {state}", { bot: answer.opponent, state }),
    ...(why ? [" (", why, ")"] : []),
    ...(answer.game_ids || []).flatMap((id) => [" · ", h("a", { href: `#/watch?id=${encodeURIComponent(id)}` }, t("game {id}", { id }))]));
}

// A connected bot challenges a named bot (POST /api/account/bots/{bot}/challenges): the two
// games of a pairing on a ladder's settings, rated or not; its status is read until it ends.
function challengeForm(bot, ladders) {
  const name = encodeURIComponent(bot.name);
  const id = (part) => `challenge-${part}-${bot.name}`;
  const opponent = h("input", { id: id("opponent"), class: "challenge-opponent", required: true, maxlength: 64, autocomplete: "off" });
  const ladder = h("select", { id: id("ladder"), class: "challenge-ladder" },
    ladders.map((l) => h("option", { value: l.name }, l.rated ? l.name : t("{ladder} (unrated)", { ladder: l.name }))));
  const rated = h("input", { id: id("rated"), class: "challenge-rated", type: "checkbox" });
  const ratedOk = () => { rated.disabled = !ladders[ladder.selectedIndex]?.rated; if (rated.disabled) rated.checked = false; };
  ladder.addEventListener("change", ratedOk);
  ratedOk();
  const status = h("p", { class: "challenge-status", "aria-live": "polite" });
  return h("form", { class: "challenge-form", "data-bot": bot.name, onsubmit: async (event) => {
    event.preventDefault();
    try {
      let answer = await post(`/api/account/bots/${name}/challenges`, { opponent: opponent.value.trim(), ladder: ladder.value, rated: rated.checked });
      await challengeStatus(status, answer);
      while (answer.status === "pending") {
        await new Promise((done) => setTimeout(done, 1000));
        answer = await api(`/api/challenges/${encodeURIComponent(answer.challenge_id)}`);
        await challengeStatus(status, answer);
      }
    } catch (error) {
      if (error instanceof StalePage) return;
      delete status.dataset.status;
      status.className = "challenge-status error";
      status.replaceChildren(errorText(error));
    }
  } }, h("fieldset", {}, h("legend", {}, t("Challenge a bot with {bot}", { bot: bot.name })),
    h("p", { class: "muted" }, t("Two games on the ladder's settings, seats swapped.")),
    h("label", { for: id("opponent") }, t("Opponent (a bot's name)")), opponent,
    h("label", { for: id("ladder") }, t("Ladder")), ladder,
    h("label", {}, rated, " ", t("Rated games")),
    h("p", {}, h("button", { type: "submit" }, t("Challenge"))), status));
}

// A hosted bot's uploads: the form (a file, its language and what it speaks) and its builds, each with
// its log; while one is being built the list is read again every few seconds.
async function buildsSection(bot, hosting, cardMessage) {
  const name = encodeURIComponent(bot.name);
  const buildLog = h("pre", { class: "build-log", hidden: true, tabindex: "0" });
  const list = h("div", { class: "builds-list" });
  const logButton = (build) => h("button", { class: "build-log-button", "data-build": build.id, onclick: async () => {
    try {
      const found = await api(`/api/bots/${name}/builds/${encodeURIComponent(build.id)}`);
      const why = found.detail ? buildFailure(found.detail_code, found.detail_params, found.detail) : null;
      buildLog.replaceChildren(...(why ? [h("span", { class: "build-failure" }, why), "\n\n"] : []),
        found.log || (why ? "" : t("The build wrote nothing.")));
      buildLog.hidden = false;
    } catch (error) { failed(cardMessage, error); }
  } }, t("Read the log"));
  const states = { building: t("building…"), ok: t("built"), failed: t("failed") };
  const render = (listed) => list.replaceChildren(listed.builds.length ? scrollBox(t("the builds of {bot}, scrolled sideways", { bot: bot.name }), h("table", { class: "builds" },
    h("caption", {}, t("Builds")),
    h("tr", {}, [t("uploaded"), t("language"), t("state"), t("Build log")].map((c) => h("th", { scope: "col" }, c))),
    listed.builds.map((b) => h("tr", { "data-build": b.id, "data-status": b.status },
      h("td", {}, when(b.created)), h("td", {}, b.speaks === "ws" ? `${b.lang} · WebSocket` : b.lang),
      h("td", {}, states[b.status] ?? b.status, b.id === listed.current ? [" · ", t("playing")] : null,
        b.status === "failed" && b.detail ? [": ", h("span", { class: "build-failure" }, buildFailure(b.detail_code, b.detail_params, b.detail))] : null),
      h("td", {}, b.status === "building" ? "–" : logButton(b))))))
    : h("p", { class: "muted" }, t("No uploads yet.")));
  const refresh = async () => {
    const listed = await api(`/api/bots/${name}/builds`);
    render(listed);
    if (listed.builds.some((b) => b.status === "building")) {
      setTimeout(() => { if (list.isConnected) refresh().catch((error) => failed(cardMessage, error)); }, 2000);
    }
  };
  await refresh();
  const fileId = `upload-file-${bot.name}`;
  const langId = `upload-lang-${bot.name}`;
  const file = h("input", { id: fileId, type: "file", required: true });
  const lang = h("select", { id: langId }, hosting.languages.map((l) => h("option", { value: l }, l)));
  const speaksId = `upload-speaks-${bot.name}`;
  const speaks = h("select", { id: speaksId },
    h("option", { value: "lines" }, t("lines (standard input and output)")),
    h("option", { value: "ws" }, t("WebSocket (a starter kit)")));
  const form = h("form", { class: "upload-form", "data-bot": bot.name, onsubmit: async (event) => {
    event.preventDefault();
    if (!file.files.length) return;
    try {
      await post(`/api/bots/${name}/builds?lang=${encodeURIComponent(lang.value)}&speaks=${encodeURIComponent(speaks.value)}`, file.files[0]);
      form.reset();
      await refresh();
    } catch (error) { failed(cardMessage, error); }
  } }, h("label", { for: fileId }, t("The program (a source file or an archive)")), file,
  h("label", { for: langId }, t("Language")), lang,
  h("label", { for: speaksId }, t("It speaks")), speaks,
  h("button", { type: "submit", disabled: bot.revoked }, t("Upload and build")));
  return h("div", { class: "hosting" }, h("h3", {}, t("Hosted by the server")), form, list, buildLog);
}

async function botCard(bot, tokenShown, ladders, hosting) {
  const name = encodeURIComponent(bot.name);
  const [versions, games] = await Promise.all([api(`/api/account/bots/${name}/versions`),
    api(`/api/account/bots/${name}/games`, { limit: 20 })]);
  const cardMessage = message(`message-${bot.name}`);
  const rotate = h("button", { class: "rotate", "data-bot": bot.name, disabled: bot.revoked, onclick: async () => {
    try {
      const rotated = await post(`/api/account/bots/${name}/token`);
      tokenBox(tokenShown, rotated.name, rotated.token);
    } catch (error) { failed(cardMessage, error); }
  } }, t("New token (the old one stops working)"));
  const noteId = `note-${bot.name}`;
  const note = h("input", { id: noteId, maxlength: 200, autocomplete: "off" });
  const register = h("form", { class: "version-form", "data-bot": bot.name, onsubmit: async (event) => {
    event.preventDefault();
    try {
      await post(`/api/account/bots/${name}/versions`, { note: note.value });
      await myBotsPage();
    } catch (error) { failed(cardMessage, error); }
  } }, h("label", { for: noteId }, t("What changed (optional)")), note,
  h("button", { type: "submit", disabled: bot.revoked }, t("Register a new version")));
  const lines = h("pre", { class: "debug-lines", hidden: true, tabindex: "0" });
  const debugButton = (game) => h("button", { class: "debug", "data-game": game.id, onclick: async () => {
    const id = encodeURIComponent(game.id);
    try {
      const found = await api(`/api/account/bots/${name}/games/${id}/debug`);
      lines.textContent = found.lines.length ? found.lines.map((l) => `${t("turn {n}", { n: l.turn })}: ${l.text}`).join("\n")
        : t("No debug lines (none were written, or they expired).");
      lines.hidden = false;
    } catch (error) { failed(cardMessage, error); }
  } }, t("Show"));
  const state = bot.revoked ? t("revoked") : bot.connected ? t("connected") : t("not connected");
  const builds = hosting ? await buildsSection(bot, hosting, cardMessage) : null;
  return h("section", { class: "card bot", "data-bot": bot.name, "aria-labelledby": `bot-${bot.name}` },
    h("h2", { id: `bot-${bot.name}` }, bot.name),
    h("p", {}, t("Version {version}", { version: bot.version }), " · ", state), rotate, register, cardMessage, builds,
    bot.connected && !bot.revoked && ladders.length ? challengeForm(bot, ladders) : null,
    scrollBox(t("the versions of {bot}, scrolled sideways", { bot: bot.name }), h("table", { class: "versions" },
      h("caption", {}, t("Versions")),
      h("tr", {}, [t("version"), t("note"), t("games"), t("rated games"), t("rating (μ − 3σ)")].map((c) => h("th", { scope: "col" }, c))),
      versions.versions.map((v) => h("tr", {}, [v.version, noteText(v.note), v.games, v.rated_games, v.rating === null ? "–" : v.rating.toFixed(2)]
        .map((c) => h("td", {}, String(c))))))),
    games.games.length ? scrollBox(t("the games of {bot}, scrolled sideways", { bot: bot.name }), h("table", { class: "games" },
      h("caption", {}, t("Recent games")),
      h("tr", {}, [t("started"), t("players"), t("version"), t("result"), t("Debug lines")].map((c) => h("th", { scope: "col" }, c))),
      games.games.map((g) => h("tr", {},
        h("td", {}, when(g.started)), h("td", {}, g.players.map((_, seat) => playerName(g.players, seat)).join(t(" vs "))), h("td", {}, g.version ?? "–"),
        h("td", {}, g.status === "running" ? t("running") : h("a", { href: `#/replay?id=${g.id}` }, resultText(g, g.players))),
        h("td", {}, debugButton(g)))))) : h("p", { class: "muted" }, t("No games yet.")),
    lines);
}
