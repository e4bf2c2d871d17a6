// Plays one whole game through curia.v1 on the web port with a client generated from
// proto/ (protoc-gen-es) and @connectrpc/connect-web: every seat takes its first legal
// decision. Prints one JSON line: the game, its last version, its status and result.
import { createClient } from "@connectrpc/connect";
import { createConnectTransport, createGrpcWebTransport } from "@connectrpc/connect-web";
import { GameService, GameStatus } from "./gen/curia/v1/game_service_pb.js";

const [, , baseUrl, protocol, game, variant, seats] = process.argv;
const transport = protocol === "grpc-web"
  ? createGrpcWebTransport({ baseUrl })
  : createConnectTransport({ baseUrl, useBinaryFormat: protocol === "connect-proto" });
const client = createClient(GameService, transport);

const created = await client.createGame({ game, variant, numSeats: Number(seats) });
const gameId = created.gameId;
const tokens = new Map(created.seats.map((seat) => [seat.seat, seat.token]));
let sent = 0;
for (;;) {
  const { view } = await client.getView({ gameId });
  if (view.status === GameStatus.FINISHED) {
    console.log(JSON.stringify({ gameId, version: String(view.version), decisions: sent,
                                 finished: true, result: view.result ? "yes" : "no" }));
    break;
  }
  for (const seat of view.toMove) {
    const own = (await client.getView({ gameId, seatToken: tokens.get(seat) })).view;
    if (!own.toMove.includes(seat) || own.legalDecisions.length === 0) continue;
    await client.submitDecision({
      gameId, seatToken: tokens.get(seat), expectedVersion: own.version,
      expectedLineage: own.lineage, decision: own.legalDecisions[0],
      requestId: `node-${++sent}`,
    });
  }
}
