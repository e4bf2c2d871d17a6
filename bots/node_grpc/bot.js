#!/usr/bin/env node
// A Curia bot in Node.js that speaks the gRPC API itself (curia.v1.GameService), on one
// Play stream: the same program in a tournament and in a league.
//
//   CURIA_SEAT_TOKEN=... node bot.js --server HOST:PORT --game-id ID --seat N   (arena)
//   CURIA_BOT_KEY=curia_bot_... node bot.js --server HOST:PORT [--concurrency N] [--games N]
//
// The client is generated at run time by @grpc/proto-loader from the contract in
// ../../proto/curia/v1/game_service.proto: no generated code is checked in. The bot opens
// one Play stream with its credential (a tournament seat's token, with the game named in
// the hello; or a league bot key) and answers every `turn`: it picks one of the legal
// decisions (an exchange for a Decurion if offered, never `skip` when anything else is
// legal, otherwise at random from a PRNG seeded by CURIA_BOT_SEED) and sends it with the
// view's version and lineage (a decision taken on a view the store lost is refused, never
// applied) and a request id naming them (a resend after a reconnection is applied once).
// A choice refused as stale (another seat decided first in a simultaneous choice) is sent
// again at the newer version, not chosen again. A dropped stream is reopened (every game
// resumes); with a seat token the bot gives up after CURIA_RETRY_SECONDS (30 s) without a
// server. A seat exits 0 when its game is over; a league bot after --games games (or
// never). An unknown, revoked or banned credential exits 1. Logs go to stderr.
'use strict';

const fs = require('fs');
const path = require('path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');

const PROTO_ROOT = path.resolve(__dirname, '..', '..', 'proto');
const definition = protoLoader.loadSync(path.join(PROTO_ROOT, 'curia', 'v1', 'game_service.proto'), {
  includeDirs: [PROTO_ROOT],
  keepCase: true, // field names as in the .proto: game_id, legal_decisions, ...
  longs: String, // uint64/int64 as decimal strings
  enums: String, // enum values by name: 'GAME_STATUS_FINISHED'
  defaults: true,
  oneofs: true,
});
const { GameService } = grpc.loadPackageDefinition(definition).curia.v1;

// The credential may not play (or the seat's game is unknown): the program ends.
const FATAL = new Set([grpc.status.UNAUTHENTICATED, grpc.status.PERMISSION_DENIED,
  grpc.status.NOT_FOUND, grpc.status.INVALID_ARGUMENT]);
const ABORTED = grpc.status.ABORTED;
// A decision refused with these (the server's store away) is sent again after a pause.
const STORE_AWAY = new Set([grpc.status.UNAVAILABLE, grpc.status.DEADLINE_EXCEEDED]);
// Seconds of failures in a row before a seat gives up (CURIA_RETRY_SECONDS, as every
// client we ship): enough for a Redis restart that reloads a large append-only file.
const RETRY_SECONDS = Number(process.env.CURIA_RETRY_SECONDS || 30);

// --- arguments: --server/--game-id/--seat (or CURIA_*), --concurrency/--games -----------
function options() {
  const found = {};
  const names = { '--server': 'server', '--game-id': 'gameId', '--seat': 'seat',
    '--concurrency': 'concurrency', '--games': 'games' };
  const argv = process.argv.slice(2);
  for (let i = 0; i < argv.length; i += 1) {
    const name = names[argv[i]];
    if (name) { found[name] = argv[i + 1]; i += 1; }
  }
  const env = process.env;
  const league = Boolean(env.CURIA_BOT_KEY);
  const opts = {
    server: found.server || env.CURIA_SERVER,
    gameId: league ? '' : (found.gameId || env.CURIA_GAME_ID || ''),
    seat: found.seat !== undefined ? found.seat : env.CURIA_SEAT,
    key: env.CURIA_BOT_KEY || env.CURIA_SEAT_TOKEN, // the secret: only from the environment
    seed: env.CURIA_BOT_SEED || '0',
    concurrency: Number(found.concurrency || 1),
    games: league ? Number(found.games || 0) : 1,
  };
  if (!opts.server || !opts.key || (!league && !opts.gameId)) {
    console.error('usage: CURIA_SEAT_TOKEN=... node bot.js --server HOST:PORT --game-id ID --seat N\n'
      + '   or: CURIA_BOT_KEY=... node bot.js --server HOST:PORT [--concurrency N] [--games N]');
    process.exit(2);
  }
  return opts;
}

// --- a small seeded PRNG (mulberry32) ----------------------------------------------------
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

function seed32(text) {
  const big = BigInt(text);
  return Number((big ^ (big >> 32n)) & 0xffffffffn);
}

const opts = options();
const random = mulberry32(seed32(opts.seed));
const who = opts.gameId ? `node-grpc[seat ${opts.seat}]` : 'node-grpc';
const log = (...words) => console.error(`${who}:`, ...words);
const sleep = (ms) => new Promise((resolve) => { setTimeout(resolve, ms); });

// --- the bot's choice --------------------------------------------------------------------
function choose(legal) {
  const exchanges = legal.filter((n) => n.startsWith('exchange '));
  const notSkip = legal.filter((n) => n !== 'skip');
  const pool = exchanges.length ? exchanges : (notSkip.length ? notSkip : legal);
  return pool[Math.floor(random() * pool.length)];
}

// --- the connection ----------------------------------------------------------------------
// TLS when CURIA_TLS_CA names the CA's PEM file (a client certificate too, for a server
// that asks for one, with CURIA_TLS_CERT and CURIA_TLS_KEY); plaintext otherwise.
function credentials() {
  const env = process.env;
  if (!env.CURIA_TLS_CA) return grpc.credentials.createInsecure();
  const read = (name) => (env[name] ? fs.readFileSync(env[name]) : null);
  return grpc.credentials.createSsl(read('CURIA_TLS_CA'), read('CURIA_TLS_KEY'),
    read('CURIA_TLS_CERT'));
}

// The stream's heartbeat: an HTTP/2 ping every 5 s; unanswered for 5 s, the connection is
// broken and the stream is reopened on a new one (a hung server is left within 10 s).
const channelOptions = {
  'grpc.keepalive_time_ms': 5000,
  'grpc.keepalive_timeout_ms': 5000,
  'grpc.http2.max_pings_without_data': 0,
  ...(process.env.CURIA_TLS_SERVER_NAME
    ? { 'grpc.ssl_target_name_override': process.env.CURIA_TLS_SERVER_NAME } : {}),
};

// --- the games ---------------------------------------------------------------------------
// Per game: its seat, and the choice not yet applied with the decisions it was made
// among (a simultaneous choice refused as stale is sent again, not chosen again).
const games = new Map();
let ended = 0;
let heardAt = Date.now(); // the last message from a server

function onTurn(stream, view) {
  const game = games.get(view.game_id) || { seat: view.seat, pending: null, version: 0, lineage: '' };
  games.set(view.game_id, game);
  const version = Number(view.version);
  // A turn older than the last, or of another lineage at its version: the store lost versions.
  if (version < game.version || (version === game.version && view.lineage !== game.lineage)) {
    log(`the game was rolled back to version ${version}; deciding again from there`);
    game.pending = null;
  }
  game.version = version;
  game.lineage = view.lineage;
  const legal = view.legal_decisions.map((d) => d.notation);
  if (legal.length === 0) return;
  const key = legal.join('\n');
  if (!game.pending || game.pending.legal !== key) game.pending = { legal: key, notation: choose(legal) };
  game.sent = { decision: {
    game_id: view.game_id, decision: { notation: game.pending.notation },
    expected_version: view.version, expected_lineage: view.lineage,
    request_id: `${view.version}-${view.lineage || 0}`,
  } };
  stream.write(game.sent);
}

function onEnded(message) {
  games.delete(message.game_id);
  ended += 1;
  const score = (message.result.scores || []).find((s) => s.seat === message.seat);
  const rank = score ? `ranked ${score.rank}${score.forfeited ? ', forfeited' : ''}` : '';
  log(`game over (${message.result.reason}): ${rank} (game ${message.game_id})`);
}

function onMessage(stream, message, resolve) {
  if (message.welcome) {
    if (!opts.gameId) log(`playing as ${message.welcome.bot} in ${message.welcome.league}`);
  } else if (message.turn) {
    onTurn(stream, message.turn);
  } else if (message.ack) {
    const game = games.get(message.ack.game_id);
    if (game) game.pending = null; // applied: the next turn is a new choice
    if (game && game.sent && game.sent.decision.request_id === message.ack.request_id) game.sent = null;
  } else if (message.refusal) {
    const { status } = message.refusal;
    if (status.code !== ABORTED) log(`refused in ${message.refusal.game_id}: ${status.message}`);
    const game = games.get(message.refusal.game_id);
    if (STORE_AWAY.has(status.code) && game && game.sent) { // the game did not move: send again
      const again = game.sent; // unless it was answered or replaced meanwhile (a new turn)
      setTimeout(() => { if (!stream.destroyed && game.sent === again) stream.write(again); }, 500);
    }
  } else if (message.game_ended) {
    onEnded(message.game_ended);
    if (opts.games && ended >= opts.games) { stream.end(); resolve('done'); }
  }
}

// One Play stream, until it ends: 'done', 'ended' or the error it failed with.
function session(client) {
  return new Promise((resolve) => {
    const metadata = new grpc.Metadata();
    metadata.set('authorization', `Bearer ${opts.key}`);
    const stream = client.Play(metadata);
    stream.write({ hello: {
      concurrency: opts.concurrency, client: 'node-grpc 2.0', game_id: opts.gameId,
      observation_encoding: 'OBSERVATION_ENCODING_NONE', // this bot reads only the legal decisions
    } });
    // A decision whose reply was lost with the last stream: the same request is applied once.
    for (const game of games.values()) if (game.sent) stream.write(game.sent);
    stream.on('data', (message) => { heardAt = Date.now(); onMessage(stream, message, resolve); });
    stream.on('error', (error) => resolve(error));
    stream.on('end', () => resolve('ended'));
  });
}

async function main() {
  let failures = 0;
  for (;;) {
    const client = new GameService(opts.server, credentials(), channelOptions);
    const before = heardAt;
    const outcome = await session(client);
    client.close();
    if (outcome === 'done' || (outcome === 'ended' && opts.games && ended >= opts.games)) return 0;
    if (outcome && FATAL.has(outcome.code)) {
      log(`the server refused the ${opts.gameId ? 'seat token' : 'bot key'}: ${outcome.details}`);
      return 1;
    }
    failures = heardAt > before ? 0 : failures + 1; // the server answered: a new run
    if (opts.gameId && Date.now() - heardAt > RETRY_SECONDS * 1000) {
      log(`giving up: no server for ${RETRY_SECONDS} s (${outcome.details || outcome})`);
      return 1;
    }
    log(`stream ended (${outcome.details || outcome}); reconnecting`);
    await sleep(Math.min(1000, 100 * 2 ** Math.min(failures, 10)) * (1 - 0.5 * Math.random()));
  }
}

main().then((code) => { process.exit(code); });
