// A minimal arena bot on Node: WebSocket (ws) + msgpack frames (subprotocol arena.v1.msgpack).
//
//   npm ci
//   ARENA_TOKEN=... node bot.js ws://127.0.0.1:8765/ [--games N]
//
// It plays any game: a random move from the turn's `legal` list or, when there are too
// many to list (the substitution game), a move built step by step with `legal` requests.
// docs/bots.md describes every message.
import WebSocket from "ws";
import { encode, decode } from "@msgpack/msgpack";

const args = process.argv.slice(2);
let games = null;
const at = args.indexOf("--games");
if (at >= 0) { games = Number(args[at + 1]); args.splice(at, 2); }
const url = args[0] || "ws://127.0.0.1:8765/";
const token = process.env.ARENA_TOKEN;

const ws = new WebSocket(url, ["arena.v1.msgpack"]);
const send = (message) => ws.send(encode(message));
const pick = (list) => list[Math.floor(Math.random() * list.length)];
let finished = 0;
const waiting = [];               // pending legal requests: answers come in order

function ask(turn, steps) {
  const reply = new Promise((resolve) => waiting.push(resolve));
  send({ type: "legal", game_id: turn.game_id, turn: turn.turn, steps });
  return reply;
}

async function build(turn) {
  let steps = "";
  let options = turn.legal_steps;
  while (options.steps.length > 0 && !(options.can_end && Math.random() < 0.3)) {
    const step = pick(options.steps);
    steps = steps === "" ? step : steps + options.separator + step;
    const reply = await ask(turn, steps);
    if (reply.type !== "legal_steps") throw new Error(reply.message);
    options = reply.legal_steps;
  }
  return steps;
}

async function move(turn) {
  const choice = turn.legal !== null ? pick(turn.legal) : await build(turn);
  send({ type: "log", game_id: turn.game_id, text: `playing ${JSON.stringify(choice)}` });
  send({ type: "move", game_id: turn.game_id, turn: turn.turn, move: choice });
}

ws.on("open", () => send({ type: "hello", protocol: 1, role: "bot", token,
  capabilities: ["legal-moves"], client: "node-example" }));

ws.on("message", (data) => {
  const message = decode(data);
  switch (message.type) {
    case "welcome":
      console.error(`connected as ${message.bot}; ladder: ${message.ladder ? message.ladder.game : "none"}`);
      break;
    case "your_turn":
      move(message).catch((error) => console.error(`move failed: ${error.message}`));
      break;
    case "legal_steps":
      waiting.shift()(message);
      break;
    case "error":
      if (waiting.length > 0 && message.game_id) { waiting.shift()(message); break; }
      console.error(`error ${message.code}: ${message.message}`);
      if (message.fatal) ws.close();
      break;
    case "game_over":
      finished += 1;
      console.error(`game ${message.game_id}: ${message.result} (${message.termination}: ${message.reason})`);
      if (games !== null && finished >= games) ws.close();
      break;
    default:
      break;
  }
});

ws.on("close", () => process.exit(0));
ws.on("error", (error) => { console.error(`connection failed: ${error.message}`); process.exit(1); });
