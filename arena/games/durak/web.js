// Single-suit Durak's web renderer (the contract is in docs/web.md): the cards 1..n and
// where each is, both hands (the game hides nothing), the card on the table, whose turn
// and what they may do: lay a card, take the card on the table, or beat it with a higher
// one (render()'s `options`); the card weights when the deal has them.

export const css = `
.durak .deck { display: flex; flex-wrap: wrap; gap: 3px; margin: .3em 0 .2em; }
.durak .legend { font-size: .8em; margin: 0 0 .8em; }
.durak .deck span { min-width: 1.9em; text-align: center; padding: .1em .2em; border-radius: 4px; font-size: .85em; border: 1px solid var(--line); background: var(--surface); }
/* told apart by more than colour: a solid bar under the first player's cards, a dotted one
   under the second's, a double frame round the card on the table, a line through those out */
.durak .deck .seat-0 { background: #dbe7ff; color: #1d2330; border-bottom: 3px solid #2457c5; }
.durak .deck .seat-1 { background: #ffe3d6; color: #1d2330; border-bottom: 3px dotted #b8401a; }
.durak .deck .on-table { background: #fff3bf; color: #1d2330; border: 3px double #8c5a00; font-weight: 700; }
.durak .deck .played { color: var(--muted); text-decoration: line-through; background: var(--soft); }
.durak .last-move-note { background: #fff3bf; color: #1d2330; border-radius: 4px; padding: .1em .4em; }
.durak .hands { display: grid; grid-template-columns: 1fr 1fr; gap: 1em; }
.durak .player.to-move { border-color: var(--accent); }
.durak .cards { display: flex; flex-wrap: wrap; gap: .4em; min-height: 5.2em; align-items: flex-start; }
.durak .playing-card { width: 3.4em; height: 4.8em; border: 1px solid #9aa3b2; border-radius: 6px; background: #fff; color: #1d2330; display: flex;
  flex-direction: column; align-items: center; justify-content: center; box-shadow: 0 1px 2px rgba(0,0,0,.12); user-select: none; }
.durak .playing-card .num { font-size: 1.45em; font-weight: 700; }
.durak .playing-card .weight { font-size: .75em; color: #545b69; }
.durak .playing-card.playable { border: 2px solid var(--accent); cursor: pointer; transform: translateY(-3px); }
.durak .playing-card.playable:hover { background: #eef2fb; }
.durak .playing-card.dim { opacity: .45; }
.durak .table { background: #2f6b45; color: #fff; border-radius: 8px; padding: .7em 1em; margin: 1em 0; display: flex; gap: 1.2em; align-items: center; min-height: 6.6em; }
.durak .table .playing-card { color: var(--fg); }
.durak .table button.move { background: #fff; color: #2457c5; }
.durak .seat-tag { font-size: .8em; padding: .05em .45em; border-radius: 9px; margin-left: .4em; background: var(--soft); color: var(--accent); }
@media (max-width: 760px) { .durak .hands { grid-template-columns: 1fr; } }
`;

export const scoreMeaning = "payoff (the cards left in the loser's hand, by their weights)";

// Why a result reads as it does: running out together scores 0, and only D-Durak calls it a draw.
export function explainResult(outcome, view, ctx) {
  if (!view || !view.together) return null;
  return view.draw_rule ? ctx.t("Both ran out of cards in the same move: under the D-Durak rule that is a draw, 0 : 0.")
    : ctx.t("Both ran out of cards in the same move, which scores 0; without the D-Durak rule the attacker, who laid "
      + "its last card first ({name}), still wins: 0 : 0.", { name: ctx.name(view.out) });
}

export function prompt(view, ctx) {
  return view.table === null || view.table === undefined
    ? ctx.t("You attack: click a card of yours to lay it.")
    : ctx.t("Card {card} is on the table: click a higher card to beat it, or take it.", { card: view.table });
}

export function describeMove(move, ctx) {
  const [kind, card] = move.trim().split(/\s+/);
  if (kind === "take") return ctx.t("took the card on the table");
  if (kind === "beat") return ctx.t("beat it with {card}", { card });
  return ctx.t("laid {card}", { card });
}

function cardEl(h, view, card, extra = {}, ctx) {
  const weight = view.weights ? view.weights[card - 1] : null;
  return h("div", { class: "playing-card", "data-card": card, ...extra },
    h("span", { class: "num" }, card), weight !== null ? h("span", { class: "weight" }, `${ctx.t("w")} ${weight}`) : null);
}

export function board(view, ctx) {
  const { h, players, t } = ctx;
  const legal = ctx.legal ? new Set(ctx.legal.moves) : new Set();
  const options = new Map(view.options.filter((o) => legal.has(o.move)).map((o) => [o.card === null ? "take" : o.card, o]));
  const over = view.out !== null && view.out !== undefined;
  const mine = (seat) => seat === ctx.me;
  const lastCard = ctx.last ? Number((ctx.last.move.trim().split(/\s+/)[1])) : null;
  let status;
  if (over) {
    const left = view.hands[1 - view.out].length;
    status = view.together ? t("Both ran out of cards in the same move")
      : t(ctx.me === 1 - view.out ? "{out} ran out of cards first; you are left with {left} cards" : "{out} ran out of cards first; {other} is left with {left} cards",
        { out: ctx.name(view.out), other: ctx.name(1 - view.out), left, count: left });
  } else if (view.table === null || view.table === undefined) {
    status = mine(view.attacker) ? t("Your turn: lay a card") : t("{name} to lay a card", { name: ctx.name(view.attacker) });
  } else {
    status = mine(view.defender) ? t("Your turn: take card {card} or beat it with a higher card", { card: view.table })
      : t("{name} to take card {card} or beat it with a higher card", { name: ctx.name(view.defender), card: view.table });
  }
  const where = new Map();
  view.hands.forEach((hand, seat) => hand.forEach((c) => where.set(c, `seat-${seat}`)));
  if (view.table !== null && view.table !== undefined) where.set(view.table, "on-table");
  for (const c of view.played) where.set(c, "played");
  const whose = (c) => {  // where a card is, in words (a screen reader's, and a tooltip)
    const place = where.get(c);
    if (place === "on-table") return t("card {c}: on the table", { c });
    if (place === "played") return t("card {c}: out of the game", { c });
    return place ? t("card {c}: {name}", { c, name: ctx.name(Number(place.slice(5))) }) : t("card {c}", { c });
  };
  const deck = h("div", { class: "deck", id: "deck", role: "list", "aria-label": t("every card and where it is") },
    Array.from({ length: view.cards }, (_, i) => i + 1).map((c) => h("span", { class: where.get(c) || "", "data-card": c,
      role: "listitem", title: whose(c), "aria-label": whose(c) }, c)));
  const hands = view.hands.map((hand, seat) => {
    const role = over ? "" : t(seat === view.attacker ? "attacks" : "defends");
    const cards = hand.map((card) => {
      const option = options.get(card);
      const defending = !over && view.table !== null && view.table !== undefined && seat === view.defender;
      const label = describeMove(option ? option.move : "", ctx);
      const attrs = option ? { class: "playing-card playable", "data-move": option.move, title: label,
        role: "button", tabindex: 0, "aria-label": label, onclick: () => ctx.play(option.move),
        onkeydown: (e) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); ctx.play(option.move); } } }
        : defending && card < view.table ? { class: "playing-card dim" } : {};
      return cardEl(h, view, card, attrs, ctx);
    });
    return h("section", { class: "player" + (seat === ctx.me ? " me" : "") + (seat === view.to_move ? " to-move" : ""), id: `hand-${seat}` },
      h("h3", {}, ctx.name(seat), role ? h("span", { class: "seat-tag" }, role) : null,
        h("span", { class: "score" }, ` ${t("{n} cards", { n: hand.length, count: hand.length })}${view.weights ? `, ${t("worth {w}", { w: view.worth[seat] })}` : ""}`)),
      h("div", { class: "cards" }, cards.length ? cards : h("span", { class: "muted" }, t("no cards"))));
  });
  const take = options.get("take");
  const table = h("section", { class: "table", id: "table" }, h("strong", {}, t("Table")),
    view.table !== null && view.table !== undefined
      ? cardEl(h, view, view.table, lastCard === view.table ? { class: "playing-card last-move", title: t("just laid") } : {}, ctx) : h("span", {}, t("empty")),
    ctx.last && /^take/.test(ctx.last.move) ? h("span", { class: "last-move-note" }, t("{name} took the card", { name: ctx.name(ctx.last.player) })) : null,
    ctx.last && /^beat/.test(ctx.last.move) ? h("span", { class: "last-move-note" }, t("{name} beat it with {card}", { name: ctx.name(ctx.last.player), card: lastCard })) : null,
    take ? h("button", { class: "move", "data-move": take.move, onclick: () => ctx.play(take.move) }, t("Take {card}", { card: view.table })) : null,
    view.played.length ? h("span", {}, t("out of the game: {cards}", { cards: view.played.join(", ") })) : null);
  const rules = [t("cards 1..{n}", { n: view.cards }), t(view.weights ? "weighted" : "each card counts 1"),
    view.draw_rule ? t("D-Durak: running out together is a draw") : null].filter(Boolean).join(" · ");
  return h("div", { class: "durak" },
    h("p", { class: "status turn", id: "status-line" }, status),
    h("p", { class: "muted" }, rules), deck,
    h("p", { class: "muted legend" }, t("Blue, underlined: {first} · orange, dotted underline: {second} · yellow, framed: on the table · struck out: out of the game.",
      { first: ctx.name(0), second: ctx.name(1) })),
    h("div", { class: "hands" }, hands[0], hands[1]), table);
}

function randomDeal(count) {
  // a shuffled deck dealt alternately: half the cards each
  const cards = Array.from({ length: count }, (_, i) => i);
  for (let i = cards.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [cards[i], cards[j]] = [cards[j], cards[i]];
  }
  const deal = Array(count).fill("1");
  cards.slice(0, Math.ceil(count / 2)).forEach((i) => { deal[i] = "0"; });
  return deal.join("");
}

export function settings(ctx) {
  const { h, game, t } = ctx;
  const lobby = game.lobby;
  const initial = (ctx.saved || {}).settings || lobby.settings || {};
  const mode = h("select", { id: "durak-deal" }, h("option", { value: "random" }, t("random, half the cards each")),
    h("option", { value: "given" }, t("as given below")));
  const size = h("input", { id: "durak-size", type: "number", min: 2, max: lobby.max_cards || 62, value: 8 });
  const cards = h("input", { id: "durak-cards", value: initial.cards || "01101001", size: 30, pattern: "[01]+" });
  const weights = h("input", { id: "durak-weights", placeholder: t("e.g. 1,1,2,3 (one per card; empty: all 1)"), size: 30 });
  const draw = h("input", { id: "durak-draw", type: "checkbox", checked: Boolean(initial.draw_rule) });
  const sync = () => { size.disabled = mode.value !== "random"; cards.disabled = mode.value === "random"; };
  mode.addEventListener("change", sync);
  sync();
  return {
    element: h("div", {}, h("label", {}, t("Deal"), " ", mode), h("label", {}, t("Cards in a random deal"), " ", size),
      h("label", {}, t("Given deal"), " ", cards, h("small", { class: "muted" }, " ", t("character i: who holds card i (0 first, 1 second)"))),
      h("label", {}, t("Weights"), " ", weights), h("label", {}, draw, " ", t("D-Durak: running out together is a draw"))),
    value: () => {
      let deal = cards.value.trim();
      if (mode.value === "random") {
        const count = Number(size.value);
        if (!Number.isInteger(count) || count < 2) throw new Error(t("a random deal needs at least 2 cards"));
        deal = randomDeal(count);
      }
      const settings = { cards: deal, draw_rule: draw.checked, first: 0 };
      if (weights.value.trim()) settings.weights = weights.value.trim();
      return { settings };
    },
  };
}

// The "how to play" page (#/howto?game=...): the rules in words and a worked example, a
// game's log replayed by the referee (POST /api/replay) with a note beside some moves.
export const howto = {
  rules: [
    "The cards 1..n are dealt between two players; every card is seen by both. The attacker lays one of its cards on the table.",
    "The defender either takes it (the card joins the defender's hand and the attacker lays again) or beats it with any higher card of its own: both cards leave the game and the defender becomes the attacker.",
    "Whoever first has no cards wins and scores the cards the other still holds (or their weights). If both run out in the same move the score is 0: the attacker wins, or in D-Durak it is a draw.",
  ],
  example: {
    log: `{"format":"arena-log","version":1,"game":"durak","id":"example-durak","players":["Anna","Boris"],"seed":1,"chance_name":"chance","settings":{"cards":"0110","draw_rule":false,"first":0}}
{"turn":0,"player":0,"move":"lay 4","hands":[[1],[2,3]]}
{"turn":1,"player":1,"move":"take","hands":[[1],[2,3,4]]}
{"turn":2,"player":0,"move":"lay 1","hands":[[],[2,3,4]]}
{"turn":3,"player":1,"move":"beat 2","hands":[[],[3,4]]}
{"result":"first","winner":0,"scores":[2,-2],"termination":"normal","loser":null,"detail":"player 0 ran out of cards first"}
`,
    notes: {
    1: "Anna holds 1 and 4, Boris 2 and 3. Anna attacks with 4.",
    2: "Boris has no card higher than 4: he takes it, and Anna lays again.",
    3: "Anna lays her last card, 1.",
    4: "Boris beats 1 with 2 and both cards leave the game. Anna has no cards left: she ran out first and wins 2, the two cards Boris still holds.",
    },
  },
};

// The referee's rejection codes of this game in words (ui.js's `rejectionText` says
// them in the page's language; the move and its step lead them).
export const rejections = {
  "no-such-card": "there is no such card",
  "must-answer": "a card is on the table: take it or beat it",
  "not-your-card": "this card is not in the mover's hand",
  "nothing-to-answer": "no card is on the table: lay one",
  "too-low": "this card is too low to beat the card on the table",
};

// Why the server refuses the lobby's settings (POST /api/settings/check's reason_code,
// its values in reason_params), led by "These settings are refused: ";
// tests/web/test_error_catalogue.py reads the codes from the game's source.
export const settingsReasons = {
  "deal-digits": "the deal “{deal}” is not a string of 0s and 1s",
  "deal-one-each": "in the deal “{deal}” a player has no card: each needs at least one",
  "deal-too-long": "a deal of {cards} cards: at most {limit} are supported",
  "weights-count": "{weights} weights for {cards} cards: give one per card",
  "weight-beyond": "the weight {weight} is beyond ±{limit}",
  "weights-not-integers": "the weights “{text}” are not whole numbers separated by commas",
  "deal-missing": "the settings give no deal (cards: a string of 0s and 1s such as “0110”)",
  "weight-not-integer": "the weight “{weight}” is not a whole number",
  "first-seat": "the first player is 0 or 1, not “{value}”",
  "draw-rule-flag": "draw_rule is true or false, not “{value}”",
  "settings-not-object": "the settings are an object of named values",
  "generator-first": "the generator's first is 0, 1 or “random”, not “{value}”",
};
