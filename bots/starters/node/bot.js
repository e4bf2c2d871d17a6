#!/usr/bin/env node
// starter-node: a Curia bot to copy and make your own (docs/bots.md, "stdio bots").
//
// The arena's stdio bridge talks to the game server for us. It writes one JSON message per
// line on our stdin; for each {"type": "decide", ...} we print one line, one of the strings
// in message.legal. {"type": "end", ...} (or the end of stdin) ends the game. stdout is
// for answers only: log to stderr (console.error). Plain Node.js, no npm packages.
//
// Your logic goes in `choose` below. Everything else is plumbing you can keep as it is.
"use strict";

const readline = require("readline");

// Seed every random choice from CURIA_BOT_SEED (an integer, up to 63 bits): the same seed
// gives the same game. Math.random cannot be seeded, so here is a tiny generator of our
// own: SplitMix64, on BigInt so that all 64 bits of the seed count.
const MASK64 = (1n << 64n) - 1n;
let rngState = BigInt.asUintN(64, BigInt(process.env.CURIA_BOT_SEED || "0"));

/** A random integer in [0, n). */
function randomBelow(n) {
  rngState = (rngState + 0x9e3779b97f4a7c15n) & MASK64;
  let z = rngState;
  z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & MASK64;
  z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & MASK64;
  z ^= z >> 31n;
  return Number(z % BigInt(n));
}

/** One element of a non-empty array, at random. */
function pick(items) {
  return items[randomBelow(items.length)];
}

// =======================================================================================
// YOUR BOT: choose one decision.
//
// `message` is the whole decide message, parsed:
//   message.game          "municipium", "ciceron" or "leges"
//   message.variant       e.g. "classic"
//   message.seat          your seat (0-based)
//   message.observation   what your seat may see: the game's JSON (docs/bots.md describes
//                         each game's; .asked is the question being asked)
//   message.legal         the notations of your legal decisions (strings)
//   message.time_left_ms  milliseconds left for this decision, or null: no limit
// Return one of message.legal, exactly as written.
// =======================================================================================
function choose(message) {
  const legal = message.legal;
  // A one-line heuristic to replace with your own: never "skip" when anything else is
  // legal. Then pick at random among what is left.
  const candidates = legal.filter((notation) => notation !== "skip");
  return pick(candidates.length > 0 ? candidates : legal);
}

function main() {
  console.error(`starter-node: seed ${process.env.CURIA_BOT_SEED || "0"}`);
  const lines = readline.createInterface({ input: process.stdin, terminal: false });
  lines.on("line", (line) => {
    if (line.trim() === "") return;
    const message = JSON.parse(line);
    if (message.type === "decide") {
      // One line per answer. Writes to a pipe are synchronous in Node.js on Linux: the
      // answer leaves at once, nothing to flush.
      process.stdout.write(choose(message) + "\n");
    } else if (message.type === "end") {
      const ranking = message.result ? message.result.ranking : null;
      console.error("game over, ranking:", JSON.stringify(ranking));
      process.exit(0);
    }
    // any other type: a message this bot does not know; skip it
  });
  lines.on("close", () => process.exit(0)); // stdin closed: the game is over
}

main();
