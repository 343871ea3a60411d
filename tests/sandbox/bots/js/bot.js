// A line-protocol bot on Node: the first legal move, or one built step by step.
const readline = require("readline");
const lines = readline.createInterface({ input: process.stdin });
const iterator = lines[Symbol.asyncIterator]();

async function next() {
  const { value, done } = await iterator.next();
  return done ? null : value;
}

async function main() {
  for (let line = await next(); line !== null; line = await next()) {
    const space = line.indexOf(" ");
    const keyword = space < 0 ? line : line.slice(0, space);
    if (keyword === "turn") {
      const turn = JSON.parse(line.slice(space + 1));
      let move = "";
      if (turn.legal && turn.legal.length) {
        move = turn.legal[0];
      } else {
        let options = turn.legal_steps;
        while (options.steps.length) {
          move = move === "" ? options.steps[0] : move + options.separator + options.steps[0];
          process.stdout.write(`?legal ${move}\n`);
          const answer = JSON.parse((await next()).slice(6));
          if (answer.error) break;
          options = answer.legal_steps;
        }
      }
      process.stdout.write(`# node playing ${JSON.stringify(move)}\n${move}\n`);
    } else if (keyword === "quit") {
      break;
    }
  }
}

main();
