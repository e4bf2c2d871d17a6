#!/usr/bin/env node
// A Curia bot in Node.js that speaks the gRPC API itself (curia.v1.GameService).
//
//   CURIA_SEAT_TOKEN=... node bot.js --server HOST:PORT --game-id ID --seat N
//
// The client is generated at run time by @grpc/proto-loader from the contract in
// ../../proto/curia/v1/game_service.proto: no generated code is checked in. The bot
// follows its seat's WatchGame stream; whenever the view lists legal decisions it picks
// one (an exchange for a Decurion if offered, never `skip` when anything else is legal,
// otherwise at random from a PRNG seeded by CURIA_BOT_SEED) and submits it with
// expected_version = the view's version. After a dropped connection (a server restart)
// it reconnects and resumes the stream from the last version seen (and its lineage: should
// the store have rolled back, the stream goes on from the game's current version, marked
// rolled_back, and the bot decides again from there). Each decision names the lineage of
// the view it was taken on, so one taken on a view the store lost is refused, never
// applied. Exits 0 when the game is over. Logs go to stderr.
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
const NO_OBSERVATION = 'OBSERVATION_ENCODING_NONE';

const TRANSIENT = new Set([grpc.status.UNAVAILABLE, grpc.status.DEADLINE_EXCEEDED,
  grpc.status.CANCELLED, grpc.status.INTERNAL, grpc.status.UNKNOWN]);
const REFUSED = new Set([grpc.status.ABORTED, grpc.status.FAILED_PRECONDITION,
  grpc.status.INVALID_ARGUMENT]);
// Seconds of failures in a row before giving up (CURIA_RETRY_SECONDS, as every client we
// ship): enough for a Redis restart that reloads a large append-only file.
const RETRY_SECONDS = Number(process.env.CURIA_RETRY_SECONDS || 30);
const CALL_TIMEOUT_MS = 30000;

// --- arguments: --server/--game-id/--seat, or the same from the environment ------------
function options() {
  const found = {};
  const argv = process.argv.slice(2);
  for (let i = 0; i < argv.length; i += 1) {
    const name = { '--server': 'server', '--game-id': 'gameId', '--seat': 'seat' }[argv[i]];
    if (name) { found[name] = argv[i + 1]; i += 1; }
  }
  const env = process.env;
  const opts = {
    server: found.server || env.CURIA_SERVER,
    gameId: found.gameId || env.CURIA_GAME_ID,
    seat: Number(found.seat !== undefined ? found.seat : env.CURIA_SEAT),
    token: env.CURIA_SEAT_TOKEN, // the secret: only ever from the environment
    seed: env.CURIA_BOT_SEED || '0',
  };
  if (!opts.server || !opts.gameId || Number.isNaN(opts.seat) || !opts.token) {
    console.error('usage: CURIA_SEAT_TOKEN=... node bot.js --server HOST:PORT --game-id ID --seat N');
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

// --- the player --------------------------------------------------------------------------
const opts = options();
const random = mulberry32(seed32(opts.seed));
const log = (...words) => console.error(`node-grpc[seat ${opts.seat}]:`, ...words);
const sleep = (ms) => new Promise((resolve) => { setTimeout(resolve, ms); });

function choose(legal) {
  const exchanges = legal.filter((n) => n.startsWith('exchange '));
  const notSkip = legal.filter((n) => n !== 'skip');
  const pool = exchanges.length ? exchanges : (notSkip.length ? notSkip : legal);
  return pool[Math.floor(random() * pool.length)];
}

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
// broken and the watch resumes on a new one (a hung server is left within about 10 s).
const channelOptions = {
  'grpc.keepalive_time_ms': 5000,
  'grpc.keepalive_timeout_ms': 5000,
  'grpc.http2.max_pings_without_data': 0,
  ...(process.env.CURIA_TLS_SERVER_NAME
    ? { 'grpc.ssl_target_name_override': process.env.CURIA_TLS_SERVER_NAME } : {}),
};
let client = new GameService(opts.server, credentials(), channelOptions);
let failures = 0;
let failingSince = 0; // when the current run of failures began (ms)

function reconnect() {
  client.close();
  client = new GameService(opts.server, credentials(), channelOptions);
}

function unary(method, request) {
  return new Promise((resolve, reject) => {
    const deadline = new Date(Date.now() + CALL_TIMEOUT_MS);
    client[method](request, { deadline }, (error, response) => (error ? reject(error) : resolve(response)));
  });
}

// A unary call, retried after transient failures (with a new channel each time).
async function call(method, request) {
  for (;;) {
    try {
      const response = await unary(method, request);
      failures = 0;
      return response;
    } catch (error) {
      await failed(error);
    }
  }
}

async function failed(error) {
  if (!TRANSIENT.has(error.code)) throw error;
  if (failures === 0) failingSince = Date.now();
  failures += 1;
  const pause = Math.min(1000, 100 * 2 ** Math.min(failures - 1, 10)) * (1 - 0.5 * Math.random());
  if (Date.now() + pause - failingSince > RETRY_SECONDS * 1000) throw error;
  log(`connection lost (${error.details || error.message}); retry ${failures}`);
  await sleep(pause);
  reconnect();
}

// The seat's updates from `after` on, one at a time, resuming after a dropped stream.
async function* follow(after) {
  let version = after;
  let lineage = '';
  for (;;) {
    const call = client.WatchGame({
      game_id: opts.gameId, seat_token: opts.token, after_version: String(version),
      after_lineage: lineage, observation_encoding: NO_OBSERVATION,
    });
    try {
      for await (const update of call) {
        failures = 0;
        if (Number(update.version) <= version && lineage && !update.rolled_back) continue;
        version = Number(update.version);
        lineage = update.view.lineage;
        yield update;
        if (update.view.status === 'GAME_STATUS_FINISHED') return;
      }
      await failed({ code: grpc.status.UNAVAILABLE, details: 'the stream ended early' });
    } catch (error) {
      await failed(error);
    }
  }
}

async function play() {
  // This bot reads only the legal decisions: its views carry no observation.
  const seatToken = { game_id: opts.gameId, seat_token: opts.token, observation_encoding: NO_OBSERVATION };
  let start = (await call('GetView', seatToken)).view;
  while (start.status === 'GAME_STATUS_WAITING_FOR_SEATS') { // the stream says nothing then
    await sleep(250);
    start = (await call('GetView', seatToken)).view;
  }
  let latest = Number(start.version);
  let applied = -1;
  let forfeited = false;
  // The choice not yet applied, with the decisions it was made among: a simultaneous
  // choice refused as stale (another seat decided first) is sent again at the newer
  // version, not chosen again, so the game does not depend on who answered first.
  let pending = null;
  for await (const update of follow(latest)) {
    const { view } = update;
    const version = Number(view.version);
    if (view.status === 'GAME_STATUS_FINISHED') return view;
    if (update.rolled_back) { // the store lost later versions: decide again from here
      log(`the game was rolled back to version ${version}; deciding again from there`);
      latest = version;
      applied = -1;
      pending = null;
    }
    if (version < latest) continue; // stale: the game is already further
    latest = version;
    if (view.forfeited_seats.includes(opts.seat)) {
      if (!forfeited) log('this seat forfeited; following the game to its end');
      forfeited = true;
      continue;
    }
    if (view.legal_decisions.length === 0 || applied === version) continue;
    const legal = view.legal_decisions.map((d) => d.notation);
    if (!pending || pending.legal !== legal.join('\n')) {
      pending = { legal: legal.join('\n'), notation: choose(legal) };
    }
    const { notation } = pending;
    try {
      const response = await call('SubmitDecision', {
        ...seatToken,
        expected_version: view.version,
        expected_lineage: view.lineage,
        decision: { notation },
        // a retry is applied at most once; a version replayed after a rollback is new
        request_id: `${opts.seat}-${version}-${view.lineage || 0}`,
      });
      applied = version;
      pending = null;
      latest = Math.max(latest, Number(response.version));
    } catch (error) {
      // ABORTED: a stale view; FAILED_PRECONDITION / INVALID_ARGUMENT: an illegal decision,
      // or too late. The game is as it was: the stream goes on.
      if (!REFUSED.has(error.code)) throw error;
      log(`${notation} at version ${version} refused: ${error.details || error.message}`);
    }
  }
  return start;
}

play().then((view) => {
  const score = (view.result && view.result.scores || []).find((s) => s.seat === opts.seat);
  if (score) log(`game over (${view.result.reason}): ranked ${score.rank}${score.forfeited ? ', forfeited' : ''}`);
  client.close();
  process.exitCode = 0;
}, (error) => {
  log(`giving up: ${error.details || error.message}`);
  client.close();
  process.exit(1);
});
