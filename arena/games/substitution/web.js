// The substitution game's web renderer (the contract is in docs/web.md): both players'
// derivations, the bank, the roll; in play mode the turn is built step by step from the
// legal steps the referee offers (/api/legal?steps=...).

export const css = `
ol.words { margin: .3em 0; padding-left: 2.2em; }
ol.words li.finished code { color: var(--ok); }
ol.words li.open code { color: var(--fg); }
ol.words li.pending { background: var(--mark); border-radius: 4px; }
ol.words li.pending .was { color: var(--muted); text-decoration: line-through; margin-left: .5em; font-size: .85em; }
ol.words li.pending .tag { font-size: .75em; font-weight: 700; color: var(--mark-fg); margin-left: .4em; }
.bank .changed { background: var(--mark); font-weight: 700; }
.points { color: var(--ok); font-size: .9em; }
.bank-box { background: var(--surface); border: 1px solid var(--line); border-radius: 8px; padding: .6em 1em; margin-top: 1em; }
.breakdown { display: grid; grid-template-columns: 1fr 1fr; gap: 1em; }
.breakdown li.discarded { color: var(--muted); text-decoration: line-through; }
@media (max-width: 760px) { .breakdown { grid-template-columns: 1fr; } }
`;

// -- words ---------------------------------------------------------------------------------

function groupText(settings, index) {
  const group = settings.groups[index];
  return group ? `${group.left}->${group.alternatives.join("|")}` : `#${index}`;
}

function productionText(settings, group, production) {
  const g = settings.groups[group];
  return g ? `${g.left} → ${g.alternatives[production] === "" ? "ε" : g.alternatives[production]}` : "?";
}

function isFinished(word) { return !/[A-Z]/.test(word); }

// A translated text with a grammar's notation in it as code: `text` holds "\u0000" where
// `code` goes (the notation is no word of any language).
function codeIn(h, text, code) {
  const [before, after] = text.split("\u0000");
  return [before, h("code", {}, code), after];
}

// A move in words: "S → aS on derivation 0; ...", each production as code (`h`) or text.
function moveInWords(settings, move, t, h = null) {
  if (!move || !move.trim()) return t("nothing applied: the rolled group went to the bank");
  const steps = move.split(",").map((step) => {
    const [word, group, production] = step.trim().split(/\s+/).map(Number);
    const said = word === -1 ? t("{production} on new derivation", { production: "\u0000" })
      : t("{production} on derivation {n}", { production: "\u0000", n: word });
    const [before, after] = said.split("\u0000");
    const rule = productionText(settings, group, production);
    return h ? [before, h("code", {}, rule), after] : `${before}${rule}${after}`;
  });
  return h ? steps.flatMap((step, i) => (i ? ["; ", ...step] : step)) : steps.join("; ");
}

export function describeMove(move, ctx) { return ctx.h("span", {}, moveInWords(ctx.settings, move, ctx.t, ctx.h)); }

export const scoreMeaning = "points (3 + the length of each finished word)";

// The derivations a move touched, by index in the mover's list after it: the words it
// named, and the new derivations it started (appended at the end, in order).
function touched(move, count) {
  const marks = new Set();
  if (!move || !move.trim()) return marks;
  const steps = move.split(",").map((step) => Number(step.trim().split(/\s+/)[0]));
  const started = steps.filter((w) => w === -1).length;
  steps.filter((w) => w >= 0).forEach((w) => marks.add(w));
  for (let k = 0; k < started; k++) marks.add(count - started + k);
  return marks;
}

export function describeChance(chance, ctx) {
  return [ctx.t("rolled"), " ", ctx.h("code", {}, groupText(ctx.settings, chance))];
}

// -- the board -----------------------------------------------------------------------------

// `before`: the words before the turn being built (its pending changes are marked);
// `last`: the indices the last move touched.
function derivationList(h, t, words, seat, before = null, last = new Set()) {
  if (!words.length) return h("p", { class: "muted" }, t("no derivations"));
  return h("ol", { class: "words", start: "0" }, words.map((word, i) => {
    const changed = before !== null && before[i] !== word;
    const classes = [isFinished(word) ? "finished" : "open", changed ? "pending" : "", last.has(i) ? "last-move" : ""];
    return h("li", { class: classes.filter(Boolean).join(" "), "data-seat": seat, "data-word": i },
      h("code", {}, word === "" ? "ε" : word),
      isFinished(word) ? h("span", { class: "points" }, ` +${3 + word.length}`) : null,
      changed ? (i >= before.length ? h("span", { class: "tag" }, t("new, this turn"))
        : [h("span", { class: "was", title: t("before this turn") }, before[i] === "" ? "ε" : before[i]), h("span", { class: "tag" }, t("this turn"))]) : null);
  }));
}

function bankTable(h, t, settings, bank, before = null, banked = null) {
  const rows = bank.map((count, index) => [count, index]).filter(([count, index]) => count > 0 || (before && before[index] > 0));
  if (!rows.length) return h("p", { class: "muted", id: "bank" }, t("the bank is empty"));
  return h("table", { class: "bank", id: "bank" },
    h("tr", {}, h("th", {}, t("group")), h("th", {}, t("productions")), h("th", {}, t("count"))),
    rows.map(([count, index]) => h("tr", { class: index === banked ? "last-move" : null, title: index === banked ? t("the last roll went to the bank") : null },
      h("td", {}, index), h("td", {}, h("code", {}, groupText(settings, index))),
      h("td", { class: before && before[index] !== count ? "changed" : null },
        before && before[index] !== count ? t("{count} (was {before})", { count, before: before[index] }) : count))));
}

export function board(state, ctx) {
  const { h, settings, players, t } = ctx;
  const me = ctx.me ?? null;
  // while a turn is being built: the derivations and the bank as the steps so far leave them
  const partial = ctx.legal && ctx.legal.derivations ? ctx.legal : null;
  const derivations = state.derivations.map((words, seat) =>
    partial && seat === me ? partial.derivations : words);
  const bank = partial ? partial.bank : state.bank;
  const last = ctx.last && !partial ? ctx.last : null;
  const seats = players.map((name, seat) => h("section", { class: "player" + (seat === me ? " me" : ""), id: `player-${seat}` },
    h("h3", {}, ctx.name(seat), h("span", { class: "muted" }, ` — ${t(seat === 0 ? "first" : "second")}`),
      h("span", { class: "score" }, ` ${t("score {n}", { n: state.scores ? state.scores[seat] : "" })}`)),
    derivationList(h, t, derivations[seat], seat, partial && seat === me ? state.derivations[seat] : null,
      last && last.player === seat ? touched(last.move, derivations[seat].length) : new Set())));
  const frame = ctx.frame;
  const roll = frame ? frame.chance ?? null : state.roll ?? null;
  const caption = frame
    ? (frame.index === 0 ? t("Before the first roll") : t("After turn {n} · moves left {left} each", { n: frame.index, left: state.moves_left }))
    : state.moves_left === 0 && state.player === 0 ? t("Game over after {n} moves each", { n: settings.moves })
      : t("Move {n} of {total} · moves left {left}", { n: Math.min(state.move_number + 1, settings.moves), total: settings.moves, left: state.moves_left });
  return h("div", { class: "subst" },
    h("p", { class: "status", id: "status-line" }, caption,
      roll !== null ? [` · ${t("roll: group")} `, h("strong", {}, roll), " ", h("code", {}, groupText(settings, roll))] : null),
    h("div", { class: "players" }, seats),
    h("section", { class: "bank-box" }, h("h3", {}, t("Bank")), bankTable(h, t, settings, bank, partial ? state.bank : null,
      last && !last.move.trim() && last.chance !== null ? last.chance : null)));
}

export function summary(state, ctx) {
  const { h, t } = ctx;
  return h("div", { class: "breakdown", id: "breakdown" }, ctx.players.map((name, seat) => {
    const words = state.derivations[seat];
    const finished = words.filter(isFinished);
    const points = finished.reduce((s, w) => s + 3 + w.length, 0);
    return h("section", {}, h("h3", {}, `${ctx.name(seat)}: ${t("{n} points", { n: points, count: points })}`),
      h("ul", {}, words.map((word) => h("li", { class: isFinished(word) ? "finished" : "discarded" },
        h("code", {}, word === "" ? "ε" : word),
        isFinished(word) ? ` 3 + ${word.length} = ${3 + word.length}` : ` ${t("unfinished: discarded")}`))));
  }));
}

// -- building a turn -----------------------------------------------------------------------

// ctx.local keeps the turn being built: `steps` (move-string steps applied so far) and
// `pick` (the group and alternative chosen for the next step).
export function controls(ctx) {
  const { h, legal, settings: s, t } = ctx;
  const local = ctx.local;
  local.steps = local.steps || [];
  local.pick = local.pick || {};
  const steps = local.steps;
  const refresh = () => { local.pick = {}; ctx.refresh(steps.length ? { steps: steps.join(", ") } : {}); };
  const parts = [h("h3", {}, t("Your turn"))];
  parts.push(h("p", {}, t("This turn so far: "),
    steps.length ? h("code", { id: "partial" }, moveInWords(s, steps.join(", "), t)) : h("span", { class: "muted" }, t("no steps yet"))));
  // the turn's actions before its choices: in sight however many choices follow
  parts.push(h("div", { class: "actions" },
    h("button", { id: "undo", disabled: !steps.length && local.pick.group === undefined,
      onclick: () => {
        local.auto = false;
        if (local.pick.group !== undefined) { local.pick = {}; ctx.redraw(); return; }
        steps.pop(); refresh();
      } }, t("Undo step")),
    h("button", { id: "clear", disabled: !steps.length, onclick: () => { local.auto = false; steps.length = 0; refresh(); } }, t("Clear")),
    h("button", { id: "finish", class: "primary", disabled: !legal.can_end, onclick: () => ctx.play(steps.join(", ")) },
      t("Finish turn"))));
  const options = legal.steps;
  // A stage with one choice is taken at once (not the group, while the turn may also end
  // here; nothing after an undo, so that undoing is possible).
  const auto = local.auto !== false;
  if (auto && options.length) {
    const pick = local.pick;
    const groups = [...new Set(options.map((o) => o[1]))];
    if (pick.group === undefined && groups.length === 1 && !legal.can_end) pick.group = groups[0];
    if (pick.group !== undefined && pick.production === undefined) {
      const productions = [...new Set(options.filter((o) => o[1] === pick.group).map((o) => o[2]))];
      if (productions.length === 1) pick.production = productions[0];
    }
    if (pick.group !== undefined && pick.production !== undefined) {
      const words = options.filter((o) => o[1] === pick.group && o[2] === pick.production).map((o) => o[0]);
      if (words.length === 1) {
        steps.push([words[0], pick.group, pick.production].join(" "));
        refresh();
        return h("div", {}, h("h3", {}, t("Your turn")), h("p", { class: "muted" },
          codeIn(h, t("Applying {production} (the only choice)…", { production: "\u0000" }), productionText(s, pick.group, pick.production))));
      }
    }
  }
  if (!options.length) {
    parts.push(h("p", {}, t(legal.can_end
      ? (steps.length ? "No further step applies: finish the turn."
        : "The rolled group fits none of your derivations: it goes to the bank. Finish the turn.")
      : "No legal step.")));
  } else {
    const pick = local.pick;
    const choices = h("div", { class: "choices" });
    if (pick.group === undefined) {
      const groups = [...new Set(options.map((o) => o[1]))];
      choices.append(h("p", {}, t("1. Pick a group")), ...groups.map((g) => h("button", { class: "choice", "data-group": g,
        onclick: () => { local.pick = { group: g }; local.auto = true; ctx.redraw(); } },
        `${g}: `, h("code", {}, groupText(s, g)), g === legal.roll && !steps.length ? ` ${t("(rolled)")}` : ` ${t("(bank ×{n})", { n: legal.bank[g] })}`)));
    } else if (pick.production === undefined) {
      const productions = [...new Set(options.filter((o) => o[1] === pick.group).map((o) => o[2]))];
      choices.append(h("p", {}, codeIn(h, t("2. Pick an alternative of {group}", { group: "\u0000" }), groupText(s, pick.group))),
        ...productions.map((p) => h("button", { class: "choice", "data-production": p,
          onclick: () => { local.pick = { ...pick, production: p }; local.auto = true; ctx.redraw(); } },
          h("code", {}, productionText(s, pick.group, p)))));
    } else {
      const words = options.filter((o) => o[1] === pick.group && o[2] === pick.production).map((o) => o[0]);
      choices.append(h("p", {}, codeIn(h, t("3. Apply {production} to", { production: "\u0000" }), productionText(s, pick.group, pick.production))),
        ...words.map((w) => h("button", { class: "choice", "data-word": w,
          onclick: () => { steps.push([w, pick.group, pick.production].join(" ")); local.auto = true; refresh(); } },
          w === -1 ? t("a new derivation") : [t("derivation {n}: ", { n: w }), h("code", {}, legal.derivations[w])])));
    }
    parts.push(choices);
  }
  if (legal.problem && !legal.can_end) {  // why the turn cannot end yet: the code's words, else the referee's
    const known = ctx.lang !== "en" && Object.hasOwn(rejections, legal.problem_code || "") ? rejections[legal.problem_code] : null;
    parts.push(known ? h("p", { class: "muted", id: "problem" }, t(known))
      : h("p", { class: "muted", id: "problem", lang: "en" }, legal.problem));
  }
  return h("div", {}, parts);
}

// -- the grammar checker's words -----------------------------------------------------------

// POST /api/grammars/check's reason_code and warning_codes in words ({names}: its
// reason_params); tests/web/test_error_catalogue.py reads the codes from the source.
const grammarReasons = {
  "bad-left": "the left side “{left}” is not one capital letter A-Z",
  "no-alternatives": "the group {left}-> has no alternatives",
  "alternative-not-text": "an alternative of {left}-> is not text",
  "alternative-too-long": "an alternative of {left}-> is longer than {most} symbols",
  "no-arrow": "no '->' in “{text}”",
  "second-arrow": "a second '->' in “{text}”",
  "empty-between-bars": "an empty alternative between two '|' in “{text}”: write the empty word as ε (or first or last: 'S->|a', 'S->a|')",
  "whitespace": "the alternative “{alternative}” contains whitespace (terminals are single characters; use the XML format for spaces)",
  "no-groups": "the grammar has no production groups",
  "too-many-groups": "more than {most} production groups",
  "weights-count": "{weights} weights for {groups} production groups",
  "group-weight-not-positive": "the weight {weight} of group {group} is not a positive integer",
  "weights-too-large": "the weights sum to {sum}; at most {most}",
  "second-weights-line": "a second weights line",
  "no-weights": "the weights line lists no weights",
  "weight-not-positive": "the weight “{weight}” is not a positive integer",
  "not-text-format": "the group {group}-> cannot be written in the text format",
  "text-too-long": "the text is longer than {most} characters",
  "no-start-group": "no group starts from S: no derivation can begin",
  "never-finished": "no word can ever be finished: every derivation from S keeps a nonterminal that no group turns into terminals",
};

// A grammar's reason or warning: its code's words in the page's language, else the
// server's English text marked lang="en" (a code this page does not know, or none).
function grammarSaid(ctx, code, params, english) {
  const known = ctx.lang !== "en" && Object.hasOwn(grammarReasons, code || "") ? grammarReasons[code] : null;
  return known ? ctx.h("span", { class: "grammar-said" }, ctx.t(known, params || {})) : ctx.h("span", { lang: "en" }, english);
}

// -- the lobby's settings ------------------------------------------------------------------

// ctx.options.presets: the built-in grammar presets and those saved in the editor.
export function settings(ctx) {
  const { h, options, t } = ctx;
  const saved = ctx.saved || {};
  const grammar = h("select", { id: "grammar" },
    options.presets.map((p) => h("option", { value: p.name, selected: p.name === (saved.grammar ?? "medium") }, `${p.name}${p.builtin ? "" : ` ${t("(saved)")}`}`)),
    h("option", { value: "", selected: saved.text !== undefined }, t("my own text…")));
  const text = h("textarea", { id: "grammar-text", rows: 8, cols: 30, spellcheck: "false", "aria-label": t("grammar text") }, saved.text ?? "");
  const moves = h("input", { id: "moves", type: "number", min: 1, max: 1000, value: saved.moves || 20 });
  const message = h("p", { id: "grammar-message", "aria-live": "polite" });
  const syncText = () => {
    const preset = options.presets.find((p) => p.name === grammar.value);
    if (preset) { text.value = preset.text; text.readOnly = true; } else { text.readOnly = false; }
  };
  let timer = null;
  const check = () => {
    clearTimeout(timer);
    if (grammar.value) { message.replaceChildren(); message.className = ""; return; }
    timer = setTimeout(async () => {
      const result = await ctx.post("/api/grammars/check", { text: text.value }).catch((e) => ({ ok: false, reason: e.message }));
      message.className = result.ok ? (result.warnings.length ? "warnings" : "ok") : "error";
      message.replaceChildren(...(result.ok ? [t("Grammar OK: {n} production groups", { n: result.groups.length, count: result.groups.length }),
        ...result.warnings.map((w, i) => [`; ${t("warning:")} `, grammarSaid(ctx, (result.warning_codes || [])[i], {}, w)])]
        : [result.line ? t("Line {n}: ", { n: result.line }) : "", grammarSaid(ctx, result.reason_code, result.reason_params, result.reason)]).flat());
    }, 200);
  };
  ctx.cleanup(() => clearTimeout(timer));
  text.addEventListener("input", check);
  grammar.addEventListener("change", check);
  grammar.addEventListener("change", syncText);
  syncText();
  if (!grammar.value) check();
  return {
    element: h("div", {}, h("label", {}, t("Grammar"), " ", grammar), text, message,
      h("label", {}, t("Moves per player"), " ", moves)),
    // the substitution game's own /api/play parameters: a preset name or a grammar text
    value: () => (grammar.value ? { grammar: grammar.value, moves: Number(moves.value) } : { text: text.value, moves: Number(moves.value) }),
  };
}

// -- the grammar editor (a page of its own: `pages`) -----------------------------------------------

// The text format checked as you type (POST /api/grammars/check, the parser of `arena
// grammar check`), saved as a preset the lobby offers (POST /api/grammars), replaced only
// after asking, deleted (POST /api/grammars/delete). ctx.options: /api/web/options of
// this game (its presets).
async function editorPage(ctx) {
  const { h, options, t } = ctx;
  const start = h("select", { id: "start-from" }, h("option", { value: "" }, "—"),
    options.presets.map((p) => h("option", { value: p.name }, p.builtin ? p.name : `${p.name} ${t("(saved)")}`)));
  const text = h("textarea", { id: "editor-text", rows: 12, cols: 40, spellcheck: "false", "aria-describedby": "editor-status" });
  const status = h("div", { id: "editor-status", class: "muted", "aria-live": "polite" }, t("Type a grammar: one group per line (A->aA|B), optionally a line 'weights: 1 2 3 …'. The empty word is ε."));
  const name = h("input", { id: "preset-name", placeholder: t("preset name") });
  const save = h("button", { id: "save", class: "primary", disabled: true }, t("Save as a preset"));
  const remove = h("button", { id: "delete", disabled: true }, t("Delete this saved preset"));
  const saved = h("div", { id: "save-message", "aria-live": "polite" });
  let valid = false, seq = 0, timer = null;
  const savedNames = () => options.presets.filter((p) => !p.builtin).map((p) => p.name);
  const check = async () => {
    const mine = ++seq;
    document.body.dataset.checked = "no";
    const result = await ctx.post("/api/grammars/check", { text: text.value }).catch((e) => ({ ok: false, line: 0, reason: e.message }));
    if (mine !== seq) return;
    valid = result.ok;
    status.className = valid ? "ok" : "error";
    const bad = !valid && result.line ? text.value.split("\n")[result.line - 1] : null;
    status.replaceChildren(h("p", {}, valid ? t("OK: {n} production groups, weights {weights}", { n: result.groups.length, count: result.groups.length, weights: result.weights.join(" ") })
      : [result.line ? t("Line {n}: ", { n: result.line }) : "", grammarSaid(ctx, result.reason_code, result.reason_params, result.reason)]),
    bad !== null && bad !== undefined ? h("pre", { class: "bad-line", id: "bad-line" }, `${result.line} │ ${bad}`) : "",
    valid && result.warnings.length ? h("ul", { class: "warnings", id: "grammar-warnings" },
      result.warnings.map((w, i) => h("li", {}, t("Warning: "), grammarSaid(ctx, (result.warning_codes || [])[i], {}, w)))) : "");
    syncButtons();
    document.body.dataset.checked = valid ? (result.warnings.length ? "warning" : "ok") : "error";
  };
  const syncButtons = () => {
    save.disabled = !valid || !name.value.trim();
    remove.disabled = !savedNames().includes(name.value.trim());
  };
  const schedule = () => { clearTimeout(timer); timer = setTimeout(check, 200); };
  text.addEventListener("input", schedule);
  name.addEventListener("input", syncButtons);
  start.addEventListener("change", () => {
    const p = options.presets.find((x) => x.name === start.value);
    if (p) { text.value = p.text; if (!p.builtin) name.value = p.name; schedule(); }
  });
  const ask = (question, yes, action) => {
    saved.className = "";
    saved.replaceChildren(h("div", { class: "confirm", role: "alertdialog", "aria-label": question },
      h("p", {}, question), h("button", { id: "confirm-yes", class: "primary", onclick: action }, yes),
      h("button", { id: "confirm-no", onclick: () => saved.replaceChildren() }, t("Cancel"))));
    saved.querySelector("#confirm-no").focus();
  };
  const reloadOptions = async () => {
    Object.assign(options, await ctx.api("/api/web/options", { game: ctx.game.name }));
    start.replaceChildren(h("option", { value: "" }, "—"),
      options.presets.map((p) => h("option", { value: p.name }, p.builtin ? p.name : `${p.name} ${t("(saved)")}`)));
    syncButtons();
  };
  const store = async (overwrite) => {
    try {
      const r = await ctx.post("/api/grammars", { name: name.value.trim(), text: text.value, overwrite });
      saved.className = "ok";
      saved.replaceChildren(t("Saved as “{name}”; it is offered in the lobby.", { name: r.saved }));
      await reloadOptions();
    } catch (error) {
      if (error.data && error.data.code === "exists") {
        ask(t("A preset “{name}” is saved already. Replace it?", { name: name.value.trim() }), t("Replace it"), () => store(true));
      } else { saved.className = "error"; saved.replaceChildren(ctx.errorText(error, { reasons: settingsReasons, t })); }
    }
  };
  save.addEventListener("click", () => store(false));
  remove.addEventListener("click", () => ask(t("Delete the saved preset “{name}”?", { name: name.value.trim() }), t("Delete it"), async () => {
    try {
      const r = await ctx.post("/api/grammars/delete", { name: name.value.trim() });
      saved.className = "ok"; saved.replaceChildren(t("Deleted “{name}”.", { name: r.deleted }));
      await reloadOptions();
    } catch (error) { saved.className = "error"; saved.replaceChildren(ctx.errorText(error, { reasons: settingsReasons, t })); }
  }));
  ctx.cleanup(() => clearTimeout(timer));
  return [h("h1", {}, t("Grammar editor")),
    h("section", { class: "card" }, h("label", {}, t("Start from"), " ", start), h("label", { for: "editor-text" }, t("Grammar")), text, status,
      h("div", { class: "actions" }, h("label", {}, t("Name"), " ", name), save, remove), saved)];
}

export const pages = { editor: { title: "Grammar editor", page: editorPage } };

// The "how to play" page (#/howto?game=...): the rules in words and a worked example, a
// game's log replayed by the referee (POST /api/replay) with a note beside some moves.
export const howto = {
  rules: [
    "A context-free grammar's productions are split into groups (a line like S->aS|Sb is one group with two alternatives). Each turn a roll picks a group, and its player must apply one of its alternatives to one of their derivations, or start a new derivation from S with it.",
    "A rolled group that fits none of your derivations goes to the bank, shared by both players; a bank group that fits one of your derivations must be used in your turn, after the rolled one.",
    "After the agreed number of moves, every finished word (no capital letters left) scores 3 plus its length; unfinished derivations score nothing.",
    "To play, build your turn step by step in the box beside the board: a group, one of its alternatives, a derivation; then Finish turn.",
  ],
  example: {
    log: `{"format":"arena-log","version":1,"game":"substitution","id":"example-substitution","players":["Anna","Boris"],"seed":5,"chance_name":"roll","settings":{"moves":2,"groups":[{"left":"S","alternatives":["aS","Sb"]},{"left":"S","alternatives":["c"]},{"left":"A","alternatives":["a"]}],"weights":[1,1,1]}}
{"turn":0,"player":0,"roll":1,"move":"-1 1 0","bank":[0,0,0]}
{"turn":1,"player":1,"roll":2,"move":"","bank":[0,0,1]}
{"turn":2,"player":0,"roll":2,"move":"","bank":[0,0,2]}
{"turn":3,"player":1,"roll":2,"move":"","bank":[0,0,3]}
{"result":"first","winner":0,"scores":[4,0],"termination":"normal","loser":null,"detail":""}
`,
    notes: {
    1: "Anna rolls group 1, S->c, and starts a new derivation with it: S becomes c, a finished word worth 3 + 1 = 4 points.",
    2: "Boris rolls group 2, A->a. He has no derivation with an A, so the group goes to the bank.",
    3: "Anna rolls group 2 too: it fits none of her words either, and joins the bank.",
    4: "Boris's last roll goes to the bank as well. Two moves each are played: Anna wins 4 : 0.",
    },
  },
};

// The referee's rejection codes of this game in words (ui.js's `rejectionText` says
// them in the page's language; the move and its step lead them).
export const rejections = {
  "not-rolled-group": "the first step must apply the rolled group",
  "group-out-of-range": "the grammar has no such group",
  "production-out-of-range": "the group has no such production",
  "word-out-of-range": "the player has no such derivation",
  "nonterminal-missing": "the derivation has no nonterminal this group applies to",
  "new-derivation-not-s": "only an S group can start a new derivation",
  "new-derivation-from-bank": "only the rolled S group may start a new derivation",
  "not-in-bank": "this group is not in the bank",
  "rolled-group-unapplied": "the rolled group must be applied",
  "bank-group-applicable": "a group in the bank still applies to a derivation: the turn cannot end yet",
  "program-exception": "under the thesis program's bank rule this turn cannot end here: with group 0 in the bank and derivations held, the program fails",
  "not-to-move": "nobody is to move in this position",
};

// Why the server refuses the lobby's settings (POST /api/settings/check's reason_code,
// its values in reason_params), led by "These settings are refused: ";
// tests/web/test_error_catalogue.py reads the codes from the game's source.
export const settingsReasons = {
  ...grammarReasons,
  "moves-range": "the number of moves is a whole number from 1 to {maximum}",
  // the thesis's XML settings and text logs (a replay's upload), led by "This log cannot be read: "
  "xml-not-well-formed": "the settings are not well-formed XML",
  "xml-missing-element": "<{parent}> has no <{tag}>",
  "xml-second-element": "<{parent}> has more than one <{tag}>",
  "xml-missing-value": "{what} is missing",
  "xml-not-integer": "{what} “{value}” is not a whole number",
  "xml-root": "the root element is <{tag}>, not <GameSettings>",
  "xml-moves-range": "NumberOfMoves {value} is not from 1 to {maximum}",
  "xml-bank-rule": "BankRule “{value}” is not one of {known}",
  "xml-unexpected-element": "<{tag}> inside <{parent}>",
  "xml-no-left": "<Production> has no Left attribute",
  "xml-weight-not-positive": "Possibility {weight} is not positive",
  "xml-weights-count": "{weights} possibilities for {groups} productions",
  "xml-total": "the possibilities sum to {sum}, not TotalPossibility {total}",
  "xml-no-productions": "<Productions> is empty",
  "thesis-no-settings": "no <GameSettings> … </GameSettings> block at the top: this is no log of the thesis's program",
  "thesis-expected": "expected “{expected}”, found “{found}”",
  "thesis-after-results": "a line after the results: “{found}”",
  "thesis-too-short": "the log ends too early",
  // the grammar editor's saved presets
  "preset-name": "a preset's name is 1 to 40 Latin letters, digits, '_', '.' or '-'",
  "preset-builtin": "“{name}” is a built-in preset: give a saved one another name",
  "presets-full": "the server keeps at most {most} saved presets: delete one first",
  "preset-missing": "no preset “{name}” is saved (any more)",
  "preset-unknown": "there is no built-in grammar “{name}” (the built-in ones: {known})",
  "bank-rule": "the bank rule is one of {known}, not “{value}”",
  "settings-not-object": "the settings are an object of named values",
  "groups-not-list": "the settings' groups are a list of productions, each with left and alternatives",
  "group-shape": "the production settings.groups[{index}] has no left and list of alternatives",
  "weights-not-list": "the settings' weights are a list of positive whole numbers",
  "grammar-spec": "“{spec}” is neither a built-in grammar ({known}) nor a file",
  "file-not-utf8": "{file} is not UTF-8 text (byte {byte})",
};
