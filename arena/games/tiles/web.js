// The dice-tile game's web renderer (the contract is in docs/web.md): each player's row of
// tiles, up or turned down, the roll (two dice), and the legal choices under it (render()'s
// `options`: turn down the pair, the sum, or pass) as buttons.

const PIPS = { 1: [[1, 1]], 2: [[0, 0], [2, 2]], 3: [[0, 0], [1, 1], [2, 2]], 4: [[0, 0], [0, 2], [2, 0], [2, 2]],
  5: [[0, 0], [0, 2], [1, 1], [2, 0], [2, 2]], 6: [[0, 0], [0, 1], [0, 2], [2, 0], [2, 1], [2, 2]] };

export const css = `
.tiles-game .dice { display: flex; gap: .6em; align-items: center; margin: .5em 0; }
.tiles-game .die { width: 46px; height: 46px; }
.tiles-game .rows { display: grid; gap: .8em; }
.tiles-game .player.to-move { border-color: var(--accent); }
.tiles-game .row { display: flex; flex-wrap: wrap; gap: 5px; margin: .3em 0; }
.tiles-game .tile { width: 2.4em; height: 3.3em; border-radius: 5px; display: flex; align-items: center; justify-content: center;
  font-weight: 700; font-size: 1.1em; font-variant-numeric: tabular-nums; }
.tiles-game .tile.up { background: #fffdf5; color: #1d2330; border: 1px solid #b8a67a; box-shadow: 0 2px 0 #b8a67a; }
.tiles-game .tile.down { background: #5b4a2e; border: 1px solid #3f3420; color: #e8dcc0; transform: translateY(2px); }
.tiles-game .tile.just { outline: 3px solid #f59e0b; }
.tiles-game .tile.hint { outline: 3px dashed var(--accent); }
.tiles-game .moves button small { color: var(--muted); }
`;

export const scoreMeaning = "tiles left face up (fewer is better)";

export function prompt(view, ctx) {
  return ctx.t("Choose what to turn down for this roll.");
}

function die(svg, value, t) {
  const picture = svg("svg", { class: "die", viewBox: "0 0 46 46", role: "img", "aria-label": t("die showing {n}", { n: value }), "data-die": value },
    svg("rect", { x: 1, y: 1, width: 44, height: 44, rx: 8, fill: "#fff", stroke: "#1d2330", "stroke-width": 2 }));
  for (const [row, col] of PIPS[value] || []) {
    picture.append(svg("circle", { cx: 10 + col * 13, cy: 10 + row * 13, r: 4.2, fill: "#1d2330" }));
  }
  return picture;
}

// The tiles a move turns down under the roll [x, y].
function turned(move, roll) {
  if (!roll) return [];
  const [x, y] = roll;
  const word = move.trim().toLowerCase();
  if (word === "pair") return x === y ? [x] : [x, y];
  if (word === "sum") return [x + y];
  if (word === "pass" || !word) return [];
  return word.split(/[\s,]+/).map(Number);
}

export function describeChance(chance, ctx) {
  return ctx.t("rolled {x} and {y}", { x: chance[0], y: chance[1] });
}

export function describeMove(move, ctx) {
  const tiles = turned(move, ctx.chance);
  return tiles.length ? ctx.t("turned down {tiles}", { tiles: tiles.join(` ${ctx.t("and")} `) }) : ctx.t("passed");
}

export function board(view, ctx) {
  const { h, svg, players, t } = ctx;
  const legal = ctx.legal ? new Set(ctx.legal.moves) : new Set();
  const frame = ctx.frame;
  const roll = view.roll || (frame && frame.chance) || null;
  // the tiles the last move turned down (in a replay: the frame's move)
  const last = ctx.last;
  const just = last ? new Set(turned(last.move, last.chance)) : new Set();
  const over = view.winner !== null && view.winner !== undefined || view.stopped;
  const moverTiles = new Map();  // hovering a choice outlines the tiles it turns down
  const rows = view.boards.map((up, seat) => {
    const upSet = new Set(up);
    const down = view.tiles - up.length;
    const tiles = Array.from({ length: view.tiles }, (_, i) => i + 1).map((n) => {
      const classes = ["tile", upSet.has(n) ? "up" : "down"];
      if (last && seat === last.player && just.has(n)) classes.push("just", "last-move");
      const tile = h("div", { class: classes.join(" "), "data-tile": n, title: t(upSet.has(n) ? "tile {n} up" : "tile {n} down", { n }) }, n);
      if (seat === view.to_move) moverTiles.set(n, tile);
      return tile;
    });
    return h("section", { class: "player" + (seat === ctx.me ? " me" : "") + (!over && seat === view.to_move ? " to-move" : ""),
      id: `tiles-${seat}` },
    h("h3", {}, ctx.name(seat),
      h("span", { class: "score" }, ` ${t("{down} of {tiles} down", { down, tiles: view.tiles })} · ${t("{n} turns", { n: view.turns[seat], count: view.turns[seat] })}`)),
    h("div", { class: "row" }, tiles));
  });
  let status;
  if (view.winner !== null && view.winner !== undefined) status = t("{name} turned all tiles down", { name: ctx.name(view.winner) });
  else if (view.stopped) status = t("Stopped after {n} turns: a draw", { n: view.max_turns });
  else if (!view.roll) status = t("{name} to roll", { name: ctx.name(view.to_move) });
  else status = view.to_move === ctx.me ? t("Your turn: choose") : t("{name} to choose", { name: ctx.name(view.to_move) });
  const choices = view.options.length ? h("div", { class: "moves", id: "tiles-choices" }, view.options.map((o) => h("button", {
    class: "move", "data-move": o.move, disabled: !legal.has(o.move), onclick: () => ctx.play(o.move),
    onmouseenter: () => o.tiles.forEach((n) => moverTiles.get(n)?.classList.add("hint")),
    onmouseleave: () => o.tiles.forEach((n) => moverTiles.get(n)?.classList.remove("hint")),
  }, o.tiles.length ? t("Turn down {tiles}", { tiles: o.tiles.join(` ${t("and")} `) }) : t("Pass"),
  h("small", {}, ` (${["pair", "sum", "pass"].includes(o.move) ? t(o.move) : o.move})`)))) : null;
  return h("div", { class: "tiles-game" },
    h("p", { class: "status turn", id: "status-line" }, status),
    roll ? h("div", { class: "dice", id: "dice" }, die(svg, roll[0], t), die(svg, roll[1], t),
      h("span", {}, frame ? t("{name} rolled {x} and {y}", { name: ctx.name(frame.player), x: roll[0], y: roll[1] })
        : t("pair {pair} or sum {sum}", { pair: roll[0] === roll[1] ? roll[0] : `${roll[0]} ${t("and")} ${roll[1]}`, sum: roll[0] + roll[1] })))
      : null,
    choices,
    h("div", { class: "rows" }, rows),
    h("p", { class: "muted" }, t(view.voluntary_skip ? "Tiles 1..{n}; passing is always allowed; the first to turn all tiles down wins."
      : "Tiles 1..{n}; pass only when no move exists; the first to turn all tiles down wins.", { n: view.tiles })));
}

export function settings(ctx) {
  const { h, game, t } = ctx;
  const lobby = game.lobby;
  const initial = (ctx.saved || {}).settings || lobby.settings || {};
  const count = h("input", { id: "tiles-count", type: "number", min: 1, max: lobby.max_tiles || 12, value: initial.tiles || 12 });
  const skip = h("input", { id: "tiles-skip", type: "checkbox", checked: initial.voluntary_skip === true });
  return {
    element: h("div", {}, h("label", {}, t("Tiles per row"), " ", count),
      h("label", {}, skip, " ", t("a player may pass even when a move exists"))),
    value: () => ({ settings: { tiles: Number(count.value), players: 2, voluntary_skip: skip.checked } }),
  };
}

// The "how to play" page (#/howto?game=...): the rules in words and a worked example, a
// game's log replayed by the referee (POST /api/replay) with a note beside some moves.
export const howto = {
  rules: [
    "Each player has a row of tiles 1..n face up. On your turn two dice are rolled, x and y.",
    "Turn down tiles x and y (one tile on a double), or the tile x + y. If neither is possible you pass; you may pass at will only when the game is set so.",
    "The first player to turn all their tiles down wins.",
  ],
  example: {
    log: `{"format":"arena-log","version":1,"game":"tiles","id":"example-tiles","players":["Anna","Boris"],"seed":2,"chance_name":"dice","settings":{"tiles":4,"players":2,"voluntary_skip":false,"max_turns":1000}}
{"turn":0,"player":0,"dice":[5,6],"move":"pass","boards":[[1,2,3,4],[1,2,3,4]]}
{"turn":1,"player":1,"dice":[5,6],"move":"pass","boards":[[1,2,3,4],[1,2,3,4]]}
{"turn":2,"player":0,"dice":[1,2],"move":"pair","boards":[[3,4],[1,2,3,4]]}
{"turn":3,"player":1,"dice":[1,3],"move":"pair","boards":[[3,4],[2,4]]}
{"turn":4,"player":0,"dice":[4,6],"move":"pass","boards":[[3,4],[2,4]]}
{"turn":5,"player":1,"dice":[3,6],"move":"pass","boards":[[3,4],[2,4]]}
{"turn":6,"player":0,"dice":[3,5],"move":"pass","boards":[[3,4],[2,4]]}
{"turn":7,"player":1,"dice":[2,2],"move":"pair","boards":[[3,4],[4]]}
{"turn":8,"player":0,"dice":[3,4],"move":"pair","boards":[[],[4]]}
{"result":"first","winner":0,"scores":[0,1],"termination":"normal","loser":null,"detail":"player 0 turned all tiles down"}
`,
    notes: {
    1: "Anna rolls 5 and 6: there is no tile 5, 6 or 11 in a row of four, so she must pass.",
    3: "Anna rolls 1 and 2: she turns down the pair, tiles 1 and 2 (tile 3, their sum, was the other choice).",
    9: "Anna rolls 3 and 4 and turns both down: all her tiles are down, and she wins.",
    },
  },
};

// The referee's rejection codes of this game in words (ui.js's `rejectionText` says
// them in the page's language; the move and its step lead them).
export const rejections = {
  "no-such-tile": "there is no such tile",
  "wrong-tiles": "the roll of the dice does not turn down these tiles",
  "must-move": "a move is possible, so the turn cannot be passed",
  "tile-down": "a tile of this move is turned down already",
};

// Why the server refuses the lobby's settings (POST /api/settings/check's reason_code,
// its values in reason_params), led by "These settings are refused: ";
// tests/web/test_error_catalogue.py reads the codes from the game's source.
export const settingsReasons = {
  "setting-range": "{name} is a whole number from {minimum} to {maximum}, not “{value}”",
  "settings-not-object": "the settings are an object of named values",
  "skip-flag": "voluntary_skip is true or false, not “{value}”",
};
