// Sim's web renderer (the contract is in docs/web.md): the graph (K_n, or the edge list of
// the settings) with its vertices on a circle (render() gives the coordinates and the
// edges), the edges in the players' colours, the free edges clickable in play mode (or
// click two vertices), the losing triangle at the end.

// Colours told apart with red-green colour blindness too (checked with Chromium's
// deuteranopia emulation), and line styles besides: red solid, green dashed.
const COLOUR = { red: "var(--sim-red, #cc3311)", green: "var(--sim-green, #0b7a55)" };  // darker or lighter per scheme
const DASH = { red: "none", green: "14 7" };

export const scoreMeaning = null;  // 1 : 0, nothing to read
const R = 150;  // the circle's radius in SVG units

export const css = `
.sim { display: grid; grid-template-columns: minmax(280px, 420px) 1fr; gap: 1.2em; align-items: start; }
.sim svg { width: 100%; background: var(--surface); border: 1px solid var(--line); border-radius: 8px; }
.sim .edge { stroke-linecap: round; }
.sim .edge.free { stroke: var(--line); stroke-width: 1.5; stroke-dasharray: 2 5; }
.sim .edge.free.playable { stroke: #8a94a6; stroke-dasharray: 2 5; }
@media (prefers-reduced-motion: no-preference) {
  .sim .edge.last { animation: drawn .6s ease-out; }
  @keyframes drawn { from { stroke-opacity: .1; } to { stroke-opacity: 1; } }
}
.sim .edge.free.candidate { stroke: #f59e0b; stroke-width: 3; stroke-dasharray: none; }
.sim .edge.red { stroke: ${COLOUR.red}; stroke-width: 6; stroke-dasharray: ${DASH.red}; stroke-linecap: round; }
.sim .edge.green { stroke: ${COLOUR.green}; stroke-width: 6; stroke-dasharray: ${DASH.green}; stroke-linecap: butt; }
.sim .edge.losing { stroke-width: 10; }
.sim .edge.last { filter: drop-shadow(0 0 3px #f59e0b) drop-shadow(0 0 2px #f59e0b); }
.sim .hit { stroke: transparent; stroke-width: 16; cursor: pointer; }
.sim .hit:hover { stroke: rgba(36, 87, 197, .35); }
.sim .triangle { opacity: .18; }
.sim .vertex circle { fill: #1d2330; stroke: #fff; stroke-width: 2; }
.sim .vertex text { fill: #fff; font: 600 15px system-ui, sans-serif; pointer-events: none; }
.sim .vertex.clickable { cursor: pointer; }
.sim .vertex.clickable circle { fill: #2457c5; }
.sim .vertex:focus { outline: none; }
.sim .vertex.clickable:focus-visible circle { stroke: #f59e0b; stroke-width: 4; }
.sim .vertex.selected circle { fill: #f59e0b; stroke: #1d2330; }
.sim .vertex.target circle { stroke: #f59e0b; stroke-width: 4; }
.sim .swatch { display: inline-block; width: 2.4em; height: .6em; vertical-align: middle; margin-right: .4em; }
.sim .player { margin-bottom: .6em; }
.sim .player.to-move { border-color: var(--accent); }
@media (max-width: 760px) { .sim { grid-template-columns: 1fr; } }
`;

export function prompt(view, ctx) {
  return ctx.t("Colour a free (grey) edge: click it, or click its two vertices. Avoid a triangle of your colour.");
}

export function describeMove(move, ctx) {
  const [a, b] = move.trim().split(/\s+/);
  return ctx.t("coloured {a}–{b}", { a, b });
}

function edgeKey(a, b) { return a < b ? `${a} ${b}` : `${b} ${a}`; }

export function board(view, ctx) {
  const { h, svg, players, t } = ctx;
  const n = view.vertices;
  const at = (v) => [view.points[v][0] * R, view.points[v][1] * R];
  const owner = new Map();
  view.colours.forEach((colour) => { for (const [a, b] of view[colour]) owner.set(edgeKey(a, b), colour); });
  const playable = new Set();
  if (ctx.legal) for (const option of view.options) if (ctx.legal.moves.includes(option.move)) playable.add(option.move);
  const local = ctx.local;
  const from = playable.size && local.from !== undefined ? local.from : null;
  const triangle = view.triangle || null;
  const losing = new Set();
  if (triangle) for (let i = 0; i < 3; i++) losing.add(edgeKey(triangle[i], triangle[(i + 1) % 3]));

  const complete = [];
  for (let a = 0; a < n; a++) for (let b = a + 1; b < n; b++) complete.push([a, b]);
  const graph = view.graph || complete;
  const isComplete = graph.length === complete.length;
  const name = isComplete ? `K${n}` : t("the graph ({n} vertices, {edges} edges)", { n, edges: graph.length });
  // a group, not an image: its vertices are buttons (an image has no controls in it)
  const picture = svg("svg", { viewBox: `${-R - 30} ${-R - 30} ${2 * R + 60} ${2 * R + 60}`, role: "group",
    id: "sim-board", "aria-label": t("{name}: {count} coloured edges", { name, count: owner.size }) });
  if (triangle && view.loser !== null && view.loser !== undefined) {
    picture.append(svg("polygon", { class: "triangle", points: triangle.map((v) => at(v).join(",")).join(" "),
      style: `fill: ${COLOUR[view.colours[view.loser]]}` }));
  }
  const hits = [];
  for (const [a, b] of graph) {
    const key = edgeKey(a, b);
    const colour = owner.get(key) || "free";
    const [x1, y1] = at(a), [x2, y2] = at(b);
    const classes = ["edge", colour];
    if (losing.has(key)) classes.push("losing");
    if (ctx.last && edgeKey(...ctx.last.move.trim().split(/\s+/).map(Number)) === key) classes.push("last");
    if (playable.has(key)) classes.push("playable");
    if (playable.has(key) && (a === from || b === from)) classes.push("candidate");
    picture.append(svg("line", { class: classes.join(" "), "data-edge": key, x1, y1, x2, y2 }));
    if (playable.has(key)) {
      hits.push(svg("line", { class: "hit", "data-move": key, x1, y1, x2, y2, onclick: () => ctx.play(key) },
        svg("title", {}, t("colour {a}–{b}", { a, b }))));
    }
  }
  picture.append(...hits);
  for (let v = 0; v < n; v++) {
    const [x, y] = at(v);
    const partners = [...Array(n).keys()].filter((w) => w !== v && playable.has(edgeKey(v, w)));
    const classes = ["vertex"];
    if (partners.length) classes.push("clickable");
    if (from === v) classes.push("selected");
    if (from !== null && from !== v && playable.has(edgeKey(from, v))) classes.push("target");
    const click = partners.length ? () => {
      if (from === null || from === v) local.from = from === v ? undefined : v;
      else if (playable.has(edgeKey(from, v))) { local.from = undefined; ctx.play(edgeKey(from, v)); return; }
      else local.from = v;
      ctx.redraw();
    } : null;
    const keys = click ? (e) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); click(); } } : null;
    picture.append(svg("g", { class: classes.join(" "), "data-vertex": v, onclick: click, onkeydown: keys,
      role: click ? "button" : null, tabindex: click ? 0 : null, "aria-label": t("vertex {v}", { v }) },
      svg("circle", { cx: x, cy: y, r: 16 }),
      svg("text", { x, y: y + 5, "text-anchor": "middle" }, v)));
  }

  const count = (colour) => view[colour].length;
  const seats = players.map((name, seat) => {
    const colour = view.colours[seat];
    return h("section", { class: "player" + (seat === ctx.me ? " me" : "") + (view.to_move === seat ? " to-move" : ""),
      id: `player-${seat}` },
    h("h3", {}, svg("svg", { class: "swatch", viewBox: "0 0 40 10", "aria-hidden": "true" },
      svg("line", { x1: 0, y1: 5, x2: 40, y2: 5, style: `stroke: ${COLOUR[colour]}`, "stroke-width": 6, "stroke-dasharray": DASH[colour] })),
      ctx.name(seat), h("span", { class: "muted" }, ` — ${t(DASH[colour] === "none" ? "{colour}, solid" : "{colour}, dashed", { colour: t(colour) })}`)),
    h("p", {}, h("span", { class: "count", "data-colour": colour }, count(colour)), " ",
      t(colour === "red" ? "red edges" : "green edges", { count: count(colour) })));
  });
  let status;
  if (view.to_move !== null && view.to_move !== undefined) {
    const mover = view.to_move;
    status = mover === ctx.me ? t("Your move ({colour})", { colour: t(view.colours[mover]) })
      : t("{name} ({colour}) to move", { name: ctx.name(mover), colour: t(view.colours[mover]) });
  } else if (view.loser !== null && view.loser !== undefined) {
    status = t("{name} ({colour}) completed the triangle {triangle}", { name: ctx.name(view.loser),
      colour: t(view.colours[view.loser]), triangle: triangle.join("–") });
  } else {
    status = t("Every edge is coloured without a triangle: a draw");
  }
  const free = graph.length - owner.size;
  return h("div", { class: "sim" }, picture,
    h("div", {}, h("p", { class: "status turn", id: "status-line" }, status),
      seats, h("p", { class: "muted", id: "sim-count" }, `${isComplete ? `K${n}` : t("A graph on {n} vertices", { n })}: `,
        t("{done} of {total} edges coloured, {free} free.", { done: owner.size, total: graph.length, free, count: graph.length })),
      from !== null ? h("p", { id: "sim-picked" }, t("Vertex {v} picked: now click the other end.", { v: from })) : null));
}

// "0-1 1-2, 2-0" -> [[0, 1], [1, 2], [2, 0]]; the server names whatever is wrong.
export function parseEdges(text, t = (s, p) => s.replace("{token}", p ? p.token : "")) {
  const tokens = text.trim().split(/[\s,;]+/).filter((token) => token);
  if (!tokens.length) throw new Error(t("Type the graph's edges, e.g. 0-1 1-2 2-0."));
  return tokens.map((token) => {
    const match = /^(\d{1,3})-(\d{1,3})$/.exec(token);
    if (!match) throw new Error(t("{token} is not an edge like 0-1.", { token }));
    return [Number(match[1]), Number(match[2])];
  });
}

export function settings(ctx) {
  const { h, game, t } = ctx;
  const [low, high] = game.lobby.vertices || [3, 8];
  const initial = ((ctx.saved || {}).settings || {}).vertices || (game.lobby.settings || {}).vertices || 6;
  const graphs = game.lobby.graphs || {};
  const vertices = h("select", { id: "sim-vertices" }, Array.from({ length: high - low + 1 }, (_, i) => low + i)
    .map((v) => h("option", { value: v, selected: v === initial }, t("{n} vertices", { n: v, count: v }))));
  const shape = h("select", { id: "sim-graph" },
    h("option", { value: "" }, t("the complete graph K_n")),
    Object.keys(graphs).map((name) => h("option", { value: name }, t(name))),
    h("option", { value: "custom" }, t("my edge list:")));
  const edges = h("input", { id: "sim-edges", type: "text", size: 36, placeholder: "0-1 1-2 2-0 2-3 ...", "aria-label": t("the edges") });
  return {
    element: h("span", {}, h("label", {}, t("Board"), " ", vertices), " ", h("label", {}, t("graph"), " ", shape), " ",
      edges),
    value: () => {
      if (shape.value === "") return { settings: { vertices: Number(vertices.value) } };
      if (shape.value === "custom") return { settings: { vertices: Number(vertices.value), edges: parseEdges(edges.value, t) } };
      return { settings: graphs[shape.value] };
    },
  };
}

// The "how to play" page (#/howto?game=...): the rules in words and a worked example, a
// game's log replayed by the referee (POST /api/replay) with a note beside some moves.
export const howto = {
  rules: [
    "Two players take turns colouring one free edge of the graph each, red first (a solid line), then green (a dashed line). An edge once coloured stays so, and nobody may pass.",
    "Whoever completes a triangle of their own colour (three vertices joined by three edges of one colour) loses. Only triangles of the graph's vertices count, not crossings inside the circle.",
    "On the complete graph of six or more vertices a draw is impossible (Ramsey's theorem); on five, or on a graph given as an edge list, every edge may be coloured without a triangle: a draw.",
    "To play, click a free (grey) edge, or click its two vertices one after the other.",
  ],
  example: {
    log: `{"format":"arena-log","version":1,"game":"sim","id":"example-sim","players":["Anna","Boris"],"seed":3,"chance_name":"chance","settings":{"vertices":5}}
{"turn":0,"player":0,"move":"0 4"}
{"turn":1,"player":1,"move":"1 2"}
{"turn":2,"player":0,"move":"0 3"}
{"turn":3,"player":1,"move":"1 3"}
{"turn":4,"player":0,"move":"1 4"}
{"turn":5,"player":1,"move":"0 1"}
{"turn":6,"player":0,"move":"2 4"}
{"turn":7,"player":1,"move":"3 4"}
{"turn":8,"player":0,"move":"2 3"}
{"turn":9,"player":1,"move":"0 2","triangle":[0,1,2]}
{"result":"first","winner":0,"scores":[1,0],"termination":"normal","loser":null,"detail":"green completed the triangle 0-1-2"}
`,
    notes: {
    1: "Anna (red) colours the edge 0–4: one free edge a move.",
    6: "Boris (green) has coloured 1–2 and now 0–1: should he ever colour 0–2, the green triangle 0–1–2 is complete.",
    9: "Anna colours 2–3. One edge is still free: 0–2.",
    10: "Boris must colour the last free edge, 0–2, and so completes the triangle 0–1–2 in his own colour: he loses, Anna wins.",
    },
  },
};

// The referee's rejection codes of this game in words (ui.js's `rejectionText` says
// them in the page's language; the move and its step lead them).
export const rejections = {
  "vertex-out-of-range": "the graph has no such vertex",
  "same-vertex": "an edge joins two different vertices",
  "not-an-edge": "the graph has no such edge",
  "edge-taken": "this edge is coloured already",
};

// Why the server refuses the lobby's settings (POST /api/settings/check's reason_code,
// its values in reason_params), led by "These settings are refused: ";
// tests/web/test_error_catalogue.py reads the codes from the game's source.
export const settingsReasons = {
  "vertices-range": "the graph has {minimum} to {maximum} vertices, not {value}",
  "no-edges": "the graph needs at least one edge",
  "edge-vertex": "the edge {edge}: the vertices are numbered 0 to {last}",
  "edge-loop": "the edge {edge} joins a vertex to itself",
  "edge-twice": "the edge {edge} is given twice",
};
