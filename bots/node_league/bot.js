#!/usr/bin/env node
// A Curia league bot in Node.js, written from docs/league.md alone.
//
//   CURIA_BOT_KEY=curia_bot_... node bot.js --server HOST:PORT [--concurrency N] [--games N]
//
// It opens one Play stream with its bot key, says hello, and answers every `turn` with a
// random legal decision (a PRNG seeded by CURIA_BOT_SEED), naming the view's version and
// lineage and using the version as the request id. A refusal is logged (a stale view is
// normal: a new turn follows). A dropped stream is reopened after a short pause (every
// game resumes); UNAUTHENTICATED or PERMISSION_DENIED ends the program with status 1.
// With --games N it exits 0 after N games have ended. Logs go to stderr.
'use strict';

const path = require('path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');

const PROTO_ROOT = path.resolve(__dirname, '..', '..', 'proto');
const definition = protoLoader.loadSync(path.join(PROTO_ROOT, 'curia', 'v1', 'game_service.proto'), {
  includeDirs: [PROTO_ROOT], keepCase: true, longs: String, enums: String, defaults: true,
  oneofs: true,
});
const { GameService } = grpc.loadPackageDefinition(definition).curia.v1;
const FATAL = new Set([grpc.status.UNAUTHENTICATED, grpc.status.PERMISSION_DENIED]);

function options() {
  const argv = process.argv.slice(2);
  const found = { concurrency: '1', games: '0' };
  for (let i = 0; i < argv.length; i += 2) found[argv[i].replace(/^--/, '')] = argv[i + 1];
  if (!found.server || !process.env.CURIA_BOT_KEY) {
    console.error('usage: CURIA_BOT_KEY=... node bot.js --server HOST:PORT [--concurrency N] [--games N]');
    process.exit(2);
  }
  return { server: found.server, concurrency: Number(found.concurrency), games: Number(found.games) };
}

function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6D2B79F5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const opts = options();
const random = mulberry32(Number(process.env.CURIA_BOT_SEED || 0));
const log = (...words) => console.error('node-league:', ...words);
let ended = 0;

function session(client) {
  return new Promise((resolve) => {
    const metadata = new grpc.Metadata();
    metadata.set('authorization', `Bearer ${process.env.CURIA_BOT_KEY}`);
    const stream = client.Play(metadata);
    stream.write({ hello: { concurrency: opts.concurrency, client: 'node-league 1.0' } });
    stream.on('data', (message) => {
      if (message.welcome) {
        log(`playing as ${message.welcome.bot} in ${message.welcome.league}`);
      } else if (message.turn) {
        const view = message.turn;
        const choice = view.legal_decisions[Math.floor(random() * view.legal_decisions.length)];
        stream.write({ decision: {
          game_id: view.game_id, decision: { notation: choice.notation },
          expected_version: view.version, expected_lineage: view.lineage,
          request_id: String(view.version),
        } });
      } else if (message.refusal) {
        log(`refused in ${message.refusal.game_id}: ${message.refusal.status.message}`);
      } else if (message.game_ended) {
        ended += 1;
        log(`game ${message.game_ended.game_id} over (${ended} played)`);
        if (opts.games && ended >= opts.games) { stream.end(); resolve('done'); }
      }
    });
    stream.on('error', (error) => resolve(error));
    stream.on('end', () => resolve('ended'));
  });
}

async function main() {
  const client = new GameService(opts.server, grpc.credentials.createInsecure());
  for (;;) {
    const outcome = await session(client);
    if (outcome === 'done') process.exit(0);
    if (outcome && FATAL.has(outcome.code)) {
      log(`the server refused the key: ${outcome.details}`);
      process.exit(1);
    }
    log(`stream ended (${outcome.details || outcome}); reconnecting`);
    await new Promise((resolve) => { setTimeout(resolve, 500); });
  }
}

main();
