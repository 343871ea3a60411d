// The operators' page (#/operator, docs/web.md "The operators' page"): the server's and the
// storage's health, people, bots, running games and seasons, for a signed-in person who is
// an operator (`arena users add NAME --operator`). Everybody else is told so (403 from
// /api/operator/...): the server decides, this page only shows.

import { N_, api, errorText, h, language, scrollBox, setPhase, setTitle, show, t } from "/static/ui.js";

// A season's phase and time as the seasons' pages say them.
const PHASES = { upcoming: N_("upcoming"), running: N_("running"), final: N_("final being played"), over: N_("over") };

function utc(iso) { return iso ? `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC` : "–"; }

function when(seconds) { return seconds ? new Date(seconds * 1000).toLocaleString() : "–"; }

function gib(bytes) { return (bytes / 2 ** 30).toFixed(1); }

function table(id, region, caption, columns, rows) {
  return scrollBox(region, h("table", { id },
    h("caption", {}, caption),
    h("tr", {}, columns.map((c) => h("th", { scope: "col" }, c))),
    rows.map((cells) => h("tr", {}, cells.map((c) => h("td", {}, c))))));
}

function yes(flag) { return flag ? t("yes") : t("no"); }

// The server's state (/healthz's `status`) and why it is unhealthy (its `reason_code`,
// arena/server/health.py's FAILURE_CODES); a database's failure leads its own words,
// marked lang="en", and so does a reason without a code.
const STATES = {
  ok: N_("working"),
  closing: N_("closing"),
  unhealthy: N_("unhealthy"),
};
const UNHEALTHY = {
  "not-started": N_("the server has not started yet"),
  "resuming-games": N_("resuming the games a stop or a crash left running"),
  "storage-failed": N_("the database cannot be used: "),
};

function stateOf(health) {
  const state = STATES[health.status] ? t(STATES[health.status]) : health.status;
  if (!health.reason) return state;
  const known = UNHEALTHY[health.reason_code];
  const english = language().lang === "en" ? health.reason : h("span", { lang: "en" }, health.reason);
  if (known && !known.endsWith(": ")) return [state, " (", t(known), ")"];
  return [state, " (", known ? t(known) : "", english, ")"];
}

function healthCard(health) {
  const disk = health.disk ? t("{free} GiB free of {total} GiB", { free: gib(health.disk.free), total: gib(health.disk.total) }) : "–";
  const facts = [
    [t("Status"), h("span", { id: "health-status" }, stateOf(health))],
    [t("Storage"), health.storage],
    [t("Disk"), disk],
    [t("Games in flight"), String(health.games_in_flight)],
    [t("Games resumed at start"), String(health.resumed_games)],
    [t("Games aborted at start"), String(health.recovered_games)],
    [t("Bots connected"), String(health.connected_bots.length)],
  ];
  return h("section", { class: "card", id: "health", "aria-labelledby": "health-title" },
    h("h2", { id: "health-title" }, t("Health")),
    h("dl", {}, facts.flatMap(([term, value]) => [h("dt", {}, term), h("dd", { "data-fact": term }, value)])));
}

// #/operator
export async function operatorPage() {
  setTitle(t("Operators"));
  const refused = (error) => {
    show(h("h1", {}, t("Operators")), h("p", { id: "not-operator", class: "error", role: "alert" }, errorText(error)),
      h("p", {}, h("a", { href: "#/account" }, t("Sign in"))));
    setPhase("not-operator");
  };
  const me = await api("/api/account/me");
  if (!me.operator) {  // the server would refuse (403): say so without asking it
    refused({ data: { code: "not-operator" }, status: 403 });
    return;
  }
  let health;
  try {
    health = await api("/api/operator/health");
  } catch (error) {
    if (error && error.status === 403) { refused(error); return; }  // no longer an operator
    throw error;
  }
  const [people, bots, games, seasons] = await Promise.all([api("/api/operator/people"),
    api("/api/operator/bots"), api("/api/operator/games"), api("/api/seasons")]);
  const more = (listed) => listed.truncated ? h("p", { class: "muted" }, t("Only the first ones are listed.")) : null;
  show(h("h1", {}, t("Operators")),
    h("p", { id: "signed-in" }, t("Signed in as {name}.", { name: health.operator })),
    healthCard(health),
    h("section", { class: "card", "aria-labelledby": "people-title" }, h("h2", { id: "people-title" }, t("People")),
      table("people", t("the people, scrolled sideways"), t("People"), [t("name"), t("since"), t("Bots"), t("operator")],
        people.people.map((p) => [p.name, when(p.created), String(p.bots), yes(p.operator)])), more(people)),
    h("section", { class: "card", "aria-labelledby": "bots-title" }, h("h2", { id: "bots-title" }, t("Bots")),
      table("bots", t("the bots, scrolled sideways"), t("Bots"), [t("name"), t("owner"), t("version"), t("connected"), t("games in flight"), t("revoked")],
        bots.bots.map((b) => [b.name, b.owner ?? "–", b.version === null ? "–" : String(b.version), yes(b.connected),
          String(b.games_in_flight), yes(b.revoked)])), more(bots),
      h("p", { class: "muted", id: "guests" }, t("Guest accounts of the web (not listed): {n}", { n: bots.guests }))),
    h("section", { class: "card", "aria-labelledby": "games-title" }, h("h2", { id: "games-title" }, t("Running games")),
      games.games.length ? table("games", t("the games, scrolled sideways"), t("Running games"), [t("game"), t("players"), t("started"), t("watch")],
        games.games.map((g) => [g.game, g.players.join(t(" vs ")), when(g.started),
          g.here ? h("a", { href: `#/watch?id=${encodeURIComponent(g.id)}` }, g.id) : g.id]))
        : h("p", { class: "muted", id: "no-games" }, t("No games are being played.")), more(games)),
    h("section", { class: "card", "aria-labelledby": "seasons-title" }, h("h2", { id: "seasons-title" }, t("Seasons")),
      seasons.seasons.length ? table("seasons", t("the seasons, scrolled sideways"), t("Seasons"), [t("name"), t("ladder"), t("phase"), t("start"), t("end")],
        seasons.seasons.map((s) => [h("a", { href: `#/season?name=${encodeURIComponent(s.name)}` }, s.name), s.ladder,
          PHASES[s.phase] ? t(PHASES[s.phase]) : s.phase, utc(s.start), utc(s.end)]))
        : h("p", { class: "muted" }, t("No seasons."))));
  setPhase("operator");
}
