// The stone-heap games' web renderer (the contract is in docs/web.md): the heaps with their
// sizes, the goal and how close the heaps are to it, the rules in words, and the legal
// operations (render()'s `options`: "+5", "×2" on heap 1 or 2) as buttons.

const STONES_SHOWN = 80;

export const css = `
.heaps-game .goal { margin: .4em 0; }
.heaps-game .progress { height: .5em; background: var(--track); border-radius: 4px; overflow: hidden; max-width: 36em; }
.heaps-game .progress > div { height: 100%; background: var(--accent); }
.heaps-game .rules { margin: .4em 0 .8em; }
.heaps-game .heaps { display: flex; flex-wrap: wrap; gap: 1em; }
.heaps-game .heap { background: var(--surface); border: 1px solid var(--line); border-radius: 8px; padding: .6em 1em; min-width: 15em; }
.heaps-game .size { font-size: 2.4em; font-weight: 700; line-height: 1.1; font-variant-numeric: tabular-nums; }
.heaps-game .stones { display: block; margin: .3em 0; }
.heaps-game .more { color: var(--muted); font-size: .85em; }
.heaps-game .players { margin-top: 1em; }
.heaps-game .player.to-move { border-color: var(--accent); }
.heaps-game button.move small { color: var(--muted); }
`;

export const scoreMeaning = null;  // 1 : 0, nothing to read

export function prompt(view, ctx) {
  return ctx.t(view.heaps.length > 1 ? "Pick an operation on one of the heaps below." : "Pick an operation on the heap below.");
}

// When the game ends and what a move may do, in the page's language (render()'s `rules`).
function goalText(view, t) {
  if (view.heaps.length === 1) return t("the heap reaches {target} stones", { target: view.target });
  if (view.measure === "max") return t("a heap reaches {target} stones", { target: view.target });
  return t(view.measure === "product" ? "the product of the heaps reaches {target}" : "the sum of the heaps reaches {target}",
    { target: view.target });
}

function rulesText(view, t) {
  const parts = view.rules;
  if (!parts) return view.rules_text;
  const ops = (labels) => labels.join(` ${t("or")} `);
  if (parts.heaps === 1) return [t("{ops} on the heap", { ops: ops(parts.any) })];
  const lines = parts.any.length ? [t("{ops} on either heap", { ops: ops(parts.any) })] : [];
  if (parts.larger.length) lines.push(t("{ops} on the larger heap", { ops: ops(parts.larger) }));
  if (parts.smaller.length) lines.push(t("{ops} on the smaller heap", { ops: ops(parts.smaller) }));
  if (parts.equal) lines.push(t("with equal heaps: {ops} on either heap", { ops: parts.equal.length ? ops(parts.equal) : t("nothing") }));
  return lines;
}

function stones(svg, count) {
  const shown = Math.min(count, STONES_SHOWN);
  const perRow = 10, size = 14;
  const rows = Math.max(1, Math.ceil(shown / perRow));
  const picture = svg("svg", { class: "stones", width: perRow * size, height: rows * size,
    viewBox: `0 0 ${perRow * size} ${rows * size}`, "aria-hidden": "true" });
  for (let i = 0; i < shown; i++) {
    picture.append(svg("circle", { cx: (i % perRow) * size + size / 2, cy: Math.floor(i / perRow) * size + size / 2,
      r: size / 2 - 1.5, fill: i % 3 === 0 ? "#8d8a80" : i % 3 === 1 ? "#a19d92" : "#77736a" }));
  }
  return picture;
}

export function board(view, ctx) {
  const { h, svg, players, t } = ctx;
  const legal = ctx.legal ? new Set(ctx.legal.moves) : new Set();
  const mover = view.to_move;
  const heaps = view.heaps.map((size, heap) => {
    const options = view.options.filter((o) => o.heap === heap);
    const moved = ctx.last && lastHeap(ctx.last.move, view.heaps.length) === heap;
    return h("section", { class: "heap" + (moved ? " last-move" : ""), id: `heap-${heap}`,
      title: moved ? t("the last move: {move}", { move: describeMove(ctx.last.move, ctx) }) : null },
      h("h3", {}, view.heaps.length > 1 ? t("Heap {n}", { n: heap + 1 }) : t("The heap")),
      h("div", { class: "size", "data-size": size }, size),
      stones(svg, size),
      size > STONES_SHOWN ? h("div", { class: "more" }, t("({shown} of {size} stones drawn)", { shown: STONES_SHOWN, size })) : null,
      options.length ? h("div", { class: "moves" }, options.map((o) => h("button", {
        class: "move", "data-move": o.move, disabled: !legal.has(o.move),
        title: t(view.heaps.length > 1 ? "{op} on heap {n}: {size} → {after}" : "{op} on the heap: {size} → {after}",
          { op: o.label, n: heap + 1, size, after: o.after }),
        onclick: () => ctx.play(o.move) }, o.label, h("small", {}, ` → ${o.after}`)))) : null);
  });
  const percent = Math.min(100, Math.round(100 * view.value / view.target));
  let status;
  if (mover !== null && mover !== undefined) {
    status = mover === ctx.me ? t("Your move") : t("{name} to move", { name: ctx.name(mover) });
  } else if (view.value >= view.target) {
    const winner = (view.moves_made - 1) % 2;
    status = t("{name} reached the target", { name: ctx.name(winner) });
  } else {
    status = view.moves_made >= view.max_moves ? t("No result after {n} moves: a draw", { n: view.max_moves }) : t("No move is possible");
  }
  const measure = view.heaps.length > 1 ? `${t(view.measure)} ` : "";
  return h("div", { class: "heaps-game" },
    h("p", { class: "status turn", id: "status-line" }, status, h("span", { class: "muted" },
      mover !== null && mover !== undefined ? ` · ${t("move {n}", { n: view.moves_made + 1 })}`
        : ` · ${t("after {n} moves", { n: view.moves_made, count: view.moves_made })}`)),
    h("p", { class: "goal" }, t("The game ends when {goal}; whoever made that move wins. Now: ", { goal: goalText(view, t) }),
      h("strong", { id: "heaps-value" }, `${measure}${view.value}`), ` ${t("of {target}.", { target: view.target })}`),
    h("div", { class: "progress" }, h("div", { style: `width:${percent}%` })),
    h("div", { class: "rules" }, t("Moves: "), rulesText(view, t).join("; "), "."),
    h("div", { class: "heaps" }, heaps),
    h("div", { class: "players" }, players.map((name, seat) => h("section", {
      class: "player" + (seat === ctx.me ? " me" : "") + (seat === mover ? " to-move" : ""), id: `player-${seat}` },
    h("h3", {}, ctx.name(seat), h("span", { class: "muted" }, ` — ${t(seat === 0 ? "first" : "second")}`))))));
}

// The heap (0-based) a move changed: "2 +5" is heap 2; a one-heap game's move names none.
function lastHeap(move, heaps) {
  const match = /^\s*(\d+)\s/.exec(move || "");
  return match ? Number(match[1]) - 1 : heaps === 1 ? 0 : null;
}

export function describeMove(move, ctx) {
  const match = /^\s*(?:(\d+)\s+)?(\+|\*|-|\/\/)\s*(\d+)\s*$/.exec(move);
  if (!match) return move;
  const sign = { "+": "+", "*": "×", "-": "−", "//": "÷" }[match[2]];
  return match[1] ? ctx.t("{op} on heap {n}", { op: `${sign}${match[3]}`, n: match[1] }) : `${sign}${match[3]}`;
}

function parseHeaps(text, t) {
  const sizes = text.trim().split(/[\s,]+/).filter(Boolean).map(Number);
  if (!sizes.length || sizes.some((s) => !Number.isInteger(s))) throw new Error(t("start heaps: \"{text}\" is not a list of whole numbers", { text }));
  return sizes;
}

export function settings(ctx) {
  const { h, game, t } = ctx;
  const lobby = game.lobby;
  const examples = lobby.examples || {};
  const initial = (ctx.saved || {}).settings || lobby.settings || {};
  const which = h("select", { id: "heaps-rules" },
    Object.entries(examples).map(([name]) => h("option", { value: name, selected: name === initial.example }, t("task {name}", { name }))),
    h("option", { value: "" }, t("my own rules (JSON)…")));
  const about = h("p", { class: "muted", id: "heaps-about" });
  const rules = h("textarea", { id: "heaps-rules-json", rows: 5, cols: 40, spellcheck: "false" },
    JSON.stringify(lobby.rules || {}, null, 1));
  const target = h("input", { id: "heaps-target", type: "number", min: 1, value: initial.target ?? "" });
  const start = h("input", { id: "heaps-start", value: (initial.start || []).join(" ") });
  const sync = () => {
    const example = examples[which.value];
    rules.hidden = Boolean(example);
    about.replaceChildren(example ? t(example.title) : t("Declarative rules: heaps (1 or 2), end (measure: sum, product or max; at_least), moves (any, larger, smaller, equal): operations +k, *k, -k, //k."));
    if (example) { target.value = example.target; start.value = example.start.join(" "); } else {
      try {
        const own = JSON.parse(rules.value);
        if (own.end && own.end.at_least) target.value = own.end.at_least;
      } catch { /* shown when the game starts */ }
      start.value = (lobby.rules_start || []).join(" ");
    }
  };
  which.addEventListener("change", sync);
  sync();
  return {
    element: h("div", {}, h("label", {}, t("Rules"), " ", which), about, rules,
      h("label", {}, t("Target"), " ", target), h("label", {}, t("Start heaps"), " ", start)),
    value: () => {
      const settings = { start: parseHeaps(start.value, t) };
      if (which.value) settings.example = which.value; else {
        try { settings.rules = JSON.parse(rules.value); } catch (error) {  // the browser's own words, in English
          throw Object.assign(new Error(t("rules: {why}", { why: error.message })),
            { said: h("span", {}, t("the rules are not JSON: "), h("span", { lang: "en" }, error.message)) });
        }
      }
      if (target.value !== "") settings.target = Number(target.value);
      return { settings };
    },
  };
}

// The "how to play" page (#/howto?game=...): the rules in words and a worked example, a
// game's log replayed by the referee (POST /api/replay) with a note beside some moves.
export const howto = {
  rules: [
    "One or two heaps of stones; the players take turns, and a move changes one heap as the rules allow (for example: add 5 to the larger heap, double the smaller one).",
    "The game ends as soon as the heaps reach the target (here: the product of the two heaps reaches 384); whoever made that move wins.",
    "The buttons under each heap are its legal moves, each with the size it leaves.",
  ],
  example: {
    log: `{"format":"arena-log","version":1,"game":"heaps","id":"example-heaps","players":["Anna","Boris"],"seed":1,"chance_name":"chance","settings":{"example":"49932","target":384,"rules":{"heaps":2,"end":{"measure":"product","at_least":384},"moves":{"larger":["+5"],"smaller":["*2"],"equal":["+3"]},"min_heap":1},"start":[7,10],"max_moves":1000}}
{"turn":0,"player":0,"move":"2 +5","heaps":[7,15]}
{"turn":1,"player":1,"move":"1 *2","heaps":[14,15]}
{"turn":2,"player":0,"move":"1 *2","heaps":[28,15]}
{"result":"first","winner":0,"scores":[1,0],"termination":"normal","loser":null,"detail":"product of [28, 15] reached 384"}
`,
    notes: {
    1: "Anna adds 5 to heap 2, the larger one: 7 × 15 = 105.",
    2: "Boris doubles heap 1, the smaller one: 14 × 15 = 210.",
    3: "Anna doubles heap 1 again: 28 × 15 = 420, at least 384: she reached the target and wins.",
    },
  },
};

// The referee's rejection codes of this game in words (ui.js's `rejectionText` says
// them in the page's language; the move and its step lead them).
export const rejections = {
  "no-such-heap": "there is no such heap",
  "move-not-allowed": "the rules do not allow this operation on this heap now",
};

// Why the server refuses the lobby's settings (POST /api/settings/check's reason_code,
// its values in reason_params), led by "These settings are refused: ";
// tests/web/test_error_catalogue.py reads the codes from the game's source.
export const settingsReasons = {
  "start-count": "the start gives the sizes of {count} heap(s)",
  "start-minimum": "the start's heaps are whole numbers of at least {minimum}",
  "start-over": "the start {start} has reached the target already: the game would be over before its first move",
  "target-positive": "the target is a whole number of at least 1",
  // the rules written by hand (as JSON)
  "max-moves-positive": "max_moves (the moves after which the game is a draw) is a whole number of at least 1",
  "rules-missing": "give the rules, or an example's number such as \"49932\"",
  "rules-differ": "the rules given differ from those of example {example}: give one of them",
  "start-not-list": "the start is a list of heap sizes",
  "op-unreadable": "the operation “{op}” cannot be read: write +k, *k, -k or //k, such as +5",
  "op-no-change": "the operation “{op}” does not change the heap",
  "rules-not-object": "the rules are an object (a table) of heaps, end, moves and min_heap",
  "rules-unknown-keys": "the rules have no {keys} (their keys: heaps, end, moves, min_heap)",
  "rules-heaps": "the rules' heaps is 1 or 2",
  "rules-end": "the rules' end has measure and at_least only",
  "rules-measure": "the rules' end.measure is one of {known}",
  "rules-no-moves": "the rules' moves list operations, such as moves.any = [\"+1\", \"*2\"]",
  "rules-move-kinds": "the rules' moves have no kind {kinds} (the kinds: {known})",
  "rules-one-heap-any": "with one heap the rules' moves have only moves.any",
  "rules-moves-list": "the rules' moves.{key} is a list such as [\"+1\", \"*2\"]",
  "rules-min-heap": "the rules' min_heap is a whole number of at least 1 (at least 0 unless the measure is product)",
  "example-unknown": "there is no example “{example}” (the examples: {known})",
  "generator-over": "every start the generator drew from {low} to {high} has reached the target already: give smaller heaps or a larger target",
  "positions-beyond": "more than {most} positions can be reached: does the game always reach its target?",
};
