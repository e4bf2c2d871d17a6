"""curia.v1 on the web port (`curia serve --http-port`): the Connect protocol in JSON and
binary proto, the WatchGame stream, gRPC-Web; answered exactly as the gRPC port answers
(the same codes and `curia-reason`s, the same spectator view), CORS off unless an origin
is allowed, a malformed body refused and nothing changed, Play not over HTTP/1.1, the
stream caps and a stream's slot back when its client goes. Against real `curia serve`
processes (real Redis, real gRPC, real HTTP sockets: service/web/connect.py)."""

from __future__ import annotations

import http.client
import json
import os
import shutil
import signal
import socket
import struct
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
import redis

from client.channels import ClientSecurity
from client.unary import CuriaClient, refusal_reason
from curia_api.v1 import game_service_pb2 as pb
from service.redis_server import free_port
from tests.servers import ServiceProcess
from tests.timing import patient, wait_until

GAME, VARIANT = "municipium", "revised"
ALLOWED = "https://play.example"
STREAMS_PER_ADDRESS = 8  # the documented per-address stream cap (service/http_gateway.py)


class Web:
    """A `curia serve --http-port` process: its gRPC address and its web port."""

    def __init__(self, process: ServiceProcess, port: int) -> None:
        self.process, self.address, self.port = process, process.address, port

    def connection(self) -> http.client.HTTPConnection:
        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=patient(10))

    def post(self, method: str, body: bytes, content_type: str = "application/json",
             headers: dict[str, str] | None = None
             ) -> tuple[int, dict[str, str], bytes]:
        connection = self.connection()
        try:
            connection.request("POST", f"/curia.v1.GameService/{method}", body=body,
                               headers={"Content-Type": content_type, **(headers or {})})
            response = connection.getresponse()
            return (response.status, {k.lower(): v for k, v in response.getheaders()},
                    response.read())
        finally:
            connection.close()

    def call(self, method: str, message: dict[str, Any], **headers: str
             ) -> tuple[int, dict[str, str], dict[str, Any]]:
        """A Connect unary call in JSON: (HTTP status, headers, the answer's JSON)."""
        status, named, body = self.post(method, json.dumps(message).encode(),
                                        headers=headers)
        return status, named, json.loads(body)


def start(redis_url: str, *extra: str) -> Web:
    port = free_port()
    process = ServiceProcess(redis_url, extra_args=("--http-port", str(port), *extra))
    return Web(process, port)


@pytest.fixture(scope="module")
def web(redis_url: str) -> Iterator[Web]:
    served = start(redis_url, "--cors-origin", ALLOWED)
    yield served
    served.process.stop()


def grpc_refusal(call: Any) -> tuple[str, str]:
    """(Connect code name, curia-reason) of the gRPC port's refusal of `call`."""
    with pytest.raises(grpc.RpcError) as caught:
        call()
    error: Any = caught.value
    name = error.code().name.lower()
    return ("canceled" if name == "cancelled" else name), refusal_reason(error)


def connect_refusal(answer: tuple[int, dict[str, str], dict[str, Any]]) -> tuple[str, str]:
    """(Connect code, curia-reason) of a refused Connect unary call."""
    status, headers, body = answer
    assert status >= 400, body
    return body["code"], headers["trailer-curia-reason"]


def mover(web: Web, game_id: str, seats: list[dict[str, Any]]) -> tuple[str, dict[str, Any]]:
    """The token of the seat to move, and its view (with its legal decisions)."""
    _, _, spectator = web.call("GetView", {"gameId": game_id})
    seat = spectator["view"].get("toMove", [0])[0]
    token = {s.get("seat", 0): s["token"] for s in seats}[seat]
    _, _, own = web.call("GetView", {"gameId": game_id, "seatToken": token})
    return token, own["view"]


# -- the Connect protocol in JSON --------------------------------------------------------
def test_a_game_over_connect_json_answers_as_the_grpc_port(web: Web) -> None:
    status, headers, created = web.call("CreateGame", {"game": GAME, "variant": VARIANT,
                                                       "numSeats": 3, "openSeats": [2]})
    assert status == 200 and headers["content-type"] == "application/json"
    game_id, seats = created["gameId"], created["seats"]
    _, _, joined = web.call("JoinGame", {"gameId": game_id})
    assert joined["seat"]["seat"] == 2 and joined["seat"]["token"]
    seats.append(joined["seat"])

    # a seat's view with its token; a wrong token refused as the gRPC port refuses it
    token, view = mover(web, game_id, seats)
    assert view["legalDecisions"] and int(view.get("version", 0)) == 0
    with CuriaClient(web.address) as client:
        assert connect_refusal(web.call("GetView", {"gameId": game_id, "seatToken": "x"})) \
            == grpc_refusal(lambda: client.view(game_id, "x")) \
            == ("unauthenticated", "unauthenticated")

        # a legal decision, then an illegal one: refused, nothing changed
        legal = view["legalDecisions"][0]
        status, _, decided = web.call("SubmitDecision", {
            "gameId": game_id, "seatToken": token, "expectedVersion": "0",
            "decision": legal, "requestId": "w-1"})
        assert status == 200 and int(decided["version"]) == 1
        token, view = mover(web, game_id, seats)
        illegal = {"gameId": game_id, "seatToken": token, "expectedVersion": "1",
                   "decision": {"notation": "no such decision"}, "requestId": "w-2"}
        refused = connect_refusal(web.call("SubmitDecision", illegal))
        again = pb.SubmitDecisionRequest(game_id=game_id, seat_token=token,
                                         expected_version=1, request_id="w-3",
                                         decision=pb.Decision(notation="no such decision"))
        assert refused == grpc_refusal(lambda: client.stub.SubmitDecision(again))
        assert refused[0] in ("invalid_argument", "failed_precondition")
        assert client.view(game_id).version == 1

        # the record: refused while the game is live, as on the gRPC port
        assert connect_refusal(web.call("GetGameRecord", {"gameId": game_id})) \
            == grpc_refusal(lambda: client.stub.GetGameRecord(
                pb.GetGameRecordRequest(game_id=game_id)))

        # a seat resigns (the server decides for it from then on)
        status, _, _ = web.call("ResignSeat", {"gameId": game_id,
                                               "seatToken": seats[-1]["token"]})
        assert status == 200
        assert client.view(game_id).status == pb.GAME_STATUS_IN_PROGRESS  # it goes on

    status, _, listed = web.call("ListGames", {})
    assert status == 200 and GAME in {g["name"] for g in listed["games"]}


def test_a_finished_games_record_over_connect(web: Web) -> None:
    _, _, created = web.call("CreateGame", {"game": GAME, "variant": VARIANT,
                                            "numSeats": 2})
    game_id = created["gameId"]
    for seat in created["seats"]:
        web.call("ResignSeat", {"gameId": game_id, "seatToken": seat["token"]})
    with CuriaClient(web.address) as client:
        wait_until(lambda: client.view(game_id).status == pb.GAME_STATUS_FINISHED, 30,
                   message="the abandoned game to finish")
        expected = client.stub.GetGameRecord(pb.GetGameRecordRequest(game_id=game_id))
    status, _, record = web.call("GetGameRecord", {"gameId": game_id})
    assert status == 200
    assert len(record["record"].get("decisions", [])) == len(expected.record.decisions)


def envelope(payload: bytes, flags: int = 0) -> bytes:
    return struct.pack(">BI", flags, len(payload)) + payload


def read_envelope(response: http.client.HTTPResponse) -> tuple[int, bytes]:
    flags, size = struct.unpack(">BI", response.read(5))
    return flags, response.read(size)


def test_a_watch_stream_brings_the_next_version(web: Web) -> None:
    _, _, created = web.call("CreateGame", {"game": GAME, "variant": VARIANT,
                                            "numSeats": 2})
    game_id, seats = created["gameId"], created["seats"]
    connection = web.connection()
    try:
        connection.request("POST", "/curia.v1.GameService/WatchGame",
                           body=envelope(json.dumps({"gameId": game_id}).encode()),
                           headers={"Content-Type": "application/connect+json"})
        response = connection.getresponse()
        assert response.status == 200
        assert response.getheader("Content-Type") == "application/connect+json"
        flags, first = read_envelope(response)
        assert flags == 0 and int(json.loads(first).get("version", 0)) == 0
        token, view = mover(web, game_id, seats)
        status, _, _ = web.call("SubmitDecision", {
            "gameId": game_id, "seatToken": token, "expectedVersion": "0",
            "decision": view["legalDecisions"][0], "requestId": "watched-1"})
        assert status == 200
        flags, second = read_envelope(response)
        assert flags == 0 and int(json.loads(second)["version"]) == 1
        response.close()  # (the socket stays open while its response is)
    finally:
        connection.close()


# -- binary proto, gRPC-Web ---------------------------------------------------------------
def test_the_same_calls_in_binary_proto(web: Web) -> None:
    request = pb.CreateGameRequest(game=GAME, variant=VARIANT, num_seats=2)
    status, headers, body = web.post("CreateGame", request.SerializeToString(),
                                     "application/proto")
    assert status == 200 and headers["content-type"] == "application/proto"
    created = pb.CreateGameResponse.FromString(body)
    with CuriaClient(web.address) as client:
        seat = client.view(created.game_id).to_move[0]
        token = created.seats[seat].token
        status, _, body = web.post("GetView", pb.GetViewRequest(
            game_id=created.game_id, seat_token=token).SerializeToString(),
            "application/proto")
        view = pb.GetViewResponse.FromString(body).view
        assert status == 200 and view.legal_decisions
        status, _, body = web.post("SubmitDecision", pb.SubmitDecisionRequest(
            game_id=created.game_id, seat_token=token, expected_version=0,
            decision=view.legal_decisions[0], request_id="p-1").SerializeToString(),
            "application/proto")
        assert status == 200 and pb.SubmitDecisionResponse.FromString(body).version == 1

        # the stream in binary proto: the view at version 1, as the gRPC port sends it
        connection = web.connection()
        try:
            watch = pb.WatchGameRequest(game_id=created.game_id)
            connection.request("POST", "/curia.v1.GameService/WatchGame",
                               body=envelope(watch.SerializeToString()),
                               headers={"Content-Type": "application/connect+proto"})
            response = connection.getresponse()
            flags, first = read_envelope(response)
            assert flags == 0
            response.close()
            assert pb.WatchGameResponse.FromString(first) == next(iter(
                client.stub.WatchGame(watch, timeout=patient(10))))
        finally:
            connection.close()


def grpc_web_frames(body: bytes) -> tuple[list[bytes], dict[str, str]]:
    """The messages and the trailers of a gRPC-Web answer."""
    messages, trailers, at = [], {}, 0
    while at < len(body):
        flags, size = struct.unpack_from(">BI", body, at)
        payload = body[at + 5:at + 5 + size]
        at += 5 + size
        if flags & 0x80:
            for line in payload.decode().split("\r\n"):
                if line:
                    name, _, value = line.partition(":")
                    trailers[name.strip().lower()] = value.strip()
        else:
            messages.append(payload)
    return messages, trailers


def test_a_call_over_grpc_web(web: Web) -> None:
    _, _, created = web.call("CreateGame", {"game": GAME, "variant": VARIANT,
                                            "numSeats": 2})
    request = pb.GetViewRequest(game_id=created["gameId"])
    status, headers, body = web.post("GetView", envelope(request.SerializeToString()),
                                     "application/grpc-web+proto",
                                     {"X-Grpc-Web": "1"})
    assert status == 200 and headers["content-type"] == "application/grpc-web+proto"
    messages, trailers = grpc_web_frames(body)
    assert trailers["grpc-status"] == "0"
    with CuriaClient(web.address) as client:
        assert pb.GetViewResponse.FromString(messages[0]).view \
            == client.view(created["gameId"])
        # a refusal: the gRPC status and the curia-reason in the trailers frame
        wrong = pb.GetViewRequest(game_id=created["gameId"], seat_token="x")
        _, _, body = web.post("GetView", envelope(wrong.SerializeToString()),
                              "application/grpc-web+proto")
        messages, trailers = grpc_web_frames(body)
        assert not messages
        assert trailers["grpc-status"] == str(grpc.StatusCode.UNAUTHENTICATED.value[0])
        assert trailers["curia-reason"] == grpc_refusal(lambda: client.view(
            created["gameId"], "x"))[1]


def test_a_spectators_stream_shows_what_the_grpc_port_shows(web: Web) -> None:
    _, _, created = web.call("CreateGame", {"game": "ciceron", "variant": "standard",
                                            "numSeats": 3})
    game_id = created["gameId"]
    watch = pb.WatchGameRequest(game_id=game_id)
    connection = web.connection()
    try:
        connection.request("POST", "/curia.v1.GameService/WatchGame",
                           body=envelope(watch.SerializeToString()),
                           headers={"Content-Type": "application/connect+proto"})
        response = connection.getresponse()
        _, first = read_envelope(response)
        response.close()
    finally:
        connection.close()
    seen = pb.WatchGameResponse.FromString(first)
    with CuriaClient(web.address) as client:
        assert seen == next(iter(client.stub.WatchGame(watch, timeout=patient(10))))
        seat_view = client.view(game_id, created["seats"][0]["token"])
    assert not seen.view.legal_decisions
    assert seen.view != seat_view  # a seat sees more than a spectator


# -- the docs' curl examples, as written ---------------------------------------------------
def docs_curl_commands() -> list[str]:
    """The commands of docs/api.md's curl block ("Over HTTP"), one string each."""
    text = (Path(__file__).resolve().parents[2] / "docs" / "api.md").read_text()
    block = text.split("With `curia serve --http-port 8080`", 1)[1]
    block = block.split("```sh\n", 1)[1].split("```", 1)[0]
    commands, current = [], ""
    for line in block.splitlines():
        if line.startswith("#") or not line.strip():
            if current:
                commands.append(current)
            current = ""
            continue
        current += line + "\n"
    return [*commands, current] if current else commands


@pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed")
def test_the_docs_curl_examples_play_as_written(web: Web) -> None:
    """Create, a seat's view, a decision and the stream, each docs/api.md command run by
    the shell with only the port, GAME and TOKEN_0 filled in."""
    create, view, submit, watch = docs_curl_commands()

    def run(command: str, game_id: str = "", token: str = "") -> str:
        filled = (command.replace("8080", str(web.port)).replace("GAME", game_id)
                  .replace("TOKEN_0", token))
        return subprocess.run(["bash", "-c", filled], capture_output=True, check=True,
                              timeout=patient(10)).stdout.decode()

    created = json.loads(run(create))
    game_id = created["gameId"]
    token = {s.get("seat", 0): s["token"] for s in created["seats"]}[0]
    seat_view = json.loads(run(view, game_id, token))["view"]
    assert int(seat_view.get("seat", 0)) == 0 and seat_view["legalDecisions"]
    decided = json.loads(run(submit, game_id, token))
    assert int(decided["version"]) == 1
    filled = watch.replace("8080", str(web.port)).replace("GAME", game_id)
    with subprocess.Popen(["bash", "-c", filled], stdout=subprocess.PIPE,
                          start_new_session=True) as stream:  # curl and printf: one group
        try:
            assert stream.stdout is not None
            versions: list[int] = []
            while not versions or versions[-1] < 1:  # (pytest-timeout ends a silent one)
                flags, size = struct.unpack(">BI", stream.stdout.read(5))
                assert flags == 0  # a message, not the stream's end
                versions.append(int(json.loads(stream.stdout.read(size)).get("version", 0)))
            assert versions[-1] == 1
        finally:
            os.killpg(stream.pid, signal.SIGKILL)


# -- refusals, CORS, credentials ---------------------------------------------------------
def test_a_malformed_body_is_invalid_argument_and_changes_nothing(web: Web) -> None:
    _, _, created = web.call("CreateGame", {"game": GAME, "variant": VARIANT,
                                            "numSeats": 2})
    game_id = created["gameId"]
    for body, kind in ((b'{"gameId": "' + game_id.encode() + b'", "decision": ',
                        "application/json"),
                       (b'{"gameId": "x", "notAField": 1}', "application/json"),
                       (b"\xff\xff\xff\xff", "application/proto")):
        status, headers, answer = web.post("SubmitDecision", body, kind)
        assert status == 400
        assert json.loads(answer)["code"] == "invalid_argument"
        assert headers["trailer-curia-reason"] == "invalid_argument"
    status, _, answer = web.post("WatchGame", envelope(b"\xff\xff"),
                                 "application/grpc-web+proto")
    assert grpc_web_frames(answer)[1]["grpc-status"] == "3"  # INVALID_ARGUMENT
    with CuriaClient(web.address) as client:
        assert client.view(game_id).version == 0


def test_a_body_over_the_request_cap_is_refused_and_creates_nothing(web: Web,
                                                                     redis_url: str) -> None:
    admin = redis.Redis.from_url(redis_url)
    _, _, created = web.call("CreateGame", {"game": GAME, "variant": VARIANT, "numSeats": 2})
    before = set(admin.scan_iter(match="curia:{*}:game"))
    assert any(created["gameId"].encode() in key for key in before)  # the count counts
    padding = "x" * (64 * 1024 + 1024)  # past the gRPC port's 64 KiB
    status, headers, answer = web.post("CreateGame", json.dumps(
        {"game": GAME, "variant": VARIANT, "numSeats": 2,
         "options": {"padding": padding}}).encode())
    assert status == 413
    assert json.loads(answer)["code"] == "resource_exhausted"
    assert headers["trailer-curia-reason"] == "request_too_large"
    assert set(admin.scan_iter(match="curia:{*}:game")) == before


def test_a_large_body_sent_with_its_head_is_not_counted_as_the_head(web: Web) -> None:
    """A 40 KB call (under the 64 KiB cap, over the 16 KiB head cap) written in one go
    reaches the servicer (which refuses its unknown option), not the head's 431."""
    body = json.dumps({"game": GAME, "variant": VARIANT, "numSeats": 2,
                       "options": {"x" * 40_000: 1}}).encode()
    head = (f"POST /curia.v1.GameService/CreateGame HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n"
            f"Connection: close\r\n\r\n").encode()
    with socket.create_connection(("127.0.0.1", web.port), timeout=patient(10)) as sock:
        sock.sendall(head + body)
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    status_line, _, rest = answer.partition(b"\r\n")
    assert status_line.split()[1] == b"400", answer[:300]
    assert json.loads(rest.partition(b"\r\n\r\n")[2])["code"] == "invalid_argument"


def test_play_session_and_grpc_itself_are_not_over_http1(web: Web) -> None:
    for method in ("Play", "Session"):
        status, _, body = web.post(method, envelope(b"{}"), "application/connect+json")
        assert status == 501 and json.loads(body)["code"] == "unimplemented"
    status, _, body = web.post("GetView", envelope(b""), "application/grpc+proto")
    assert status == 415 and json.loads(body)["code"] == "unimplemented"  # the gRPC port's


def test_cors_only_for_an_allowed_origin(web: Web) -> None:
    def preflight(origin: str) -> http.client.HTTPResponse:
        connection = web.connection()
        connection.request("OPTIONS", "/curia.v1.GameService/GetView", headers={
            "Origin": origin, "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "content-type"})
        response = connection.getresponse()
        response.read()
        connection.close()
        return response

    allowed = preflight(ALLOWED)
    assert allowed.status == 204
    assert allowed.getheader("Access-Control-Allow-Origin") == ALLOWED
    assert "POST" in (allowed.getheader("Access-Control-Allow-Methods") or "")
    assert "content-type" in (allowed.getheader("Access-Control-Allow-Headers") or "")
    other = preflight("https://elsewhere.example")
    assert other.status == 405
    assert not [h for h, _ in other.getheaders() if h.lower().startswith("access-control")]

    _, headers, _ = web.call("ListGames", {}, Origin=ALLOWED)
    assert headers["access-control-allow-origin"] == ALLOWED
    assert "trailer-curia-reason" in headers["access-control-expose-headers"]
    _, headers, _ = web.call("ListGames", {}, Origin="https://elsewhere.example")
    assert not [h for h in headers if h.startswith("access-control")]


def test_a_loopback_port_refuses_other_host_names(web: Web) -> None:
    status, _, _ = web.post("ListGames", b"{}", headers={"Host": "evil.example"})
    assert status == 421


def test_the_operator_credential_and_no_cors_by_default(redis_url: str,
                                                        tmp_path: Path) -> None:
    token_file = tmp_path / "operator-token"
    token_file.write_text("s3cret-operator-credential\n")
    served = start(redis_url, "--admin-token-file", str(token_file))
    try:
        create = {"game": GAME, "variant": VARIANT, "numSeats": 2}
        request = pb.CreateGameRequest(game=GAME, variant=VARIANT, num_seats=2)
        with CuriaClient(served.address, security=ClientSecurity()) as anyone:
            assert connect_refusal(served.call("CreateGame", create)) \
                == grpc_refusal(lambda: anyone.stub.CreateGame(request))
            assert connect_refusal(served.call("CreateGame", create))[0] \
                == "unauthenticated"
            wrong = {"authorization": "Bearer not-it"}
            refused = connect_refusal(served.call("CreateGame", create,
                                                  Authorization="Bearer not-it"))
            assert refused == grpc_refusal(lambda: anyone.stub.CreateGame(
                request, metadata=tuple(wrong.items())))
            assert refused[0] == "permission_denied"
        status, headers, created = served.call(
            "CreateGame", create, Authorization="Bearer s3cret-operator-credential",
            Origin=ALLOWED)
        assert status == 200 and created["gameId"]
        assert not [h for h in headers if h.startswith("access-control")]
        connection = served.connection()
        connection.request("OPTIONS", "/curia.v1.GameService/CreateGame",
                           headers={"Origin": ALLOWED,
                                    "Access-Control-Request-Method": "POST"})
        response = connection.getresponse()
        assert response.status == 405
        assert not [h for h, _ in response.getheaders()
                    if h.lower().startswith("access-control")]
        connection.close()
    finally:
        served.process.stop()


# -- the stream caps, and a stream's slot back when its client goes -----------------------
def open_watch(web: Web, game_id: str) -> tuple[socket.socket, int]:
    """A raw WatchGame stream: the socket and the answer's status."""
    sock = socket.create_connection(("127.0.0.1", web.port), timeout=patient(10))
    body = envelope(json.dumps({"gameId": game_id}).encode())
    head = (f"POST /curia.v1.GameService/WatchGame HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            f"Content-Type: application/connect+json\r\nContent-Length: {len(body)}\r\n\r\n")
    sock.sendall(head.encode() + body)
    data = b""
    while b"\r\n" not in data:
        chunk = sock.recv(4096)
        if not chunk:
            break
        data += chunk
    return sock, int(data.split()[1]) if data else 0


def test_watch_streams_count_against_the_caps_and_free_their_slot(web: Web) -> None:
    _, _, created = web.call("CreateGame", {"game": GAME, "variant": VARIANT,
                                            "numSeats": 2})
    game_id = created["gameId"]
    streams = []
    try:
        def another_opens() -> bool:
            sock, status = open_watch(web, game_id)
            if status == 200:
                streams.append(sock)
            else:
                sock.close()
            return status == 200

        for _ in range(STREAMS_PER_ADDRESS):  # (other tests' streams may be closing)
            wait_until(another_opens, 10, message="a stream slot")
        sock, status = open_watch(web, game_id)
        sock.close()
        assert status == 429
        streams.pop().close()  # a client goes: its slot comes back
        wait_until(another_opens, 10, message="the closed stream's slot to come back")
    finally:
        for sock in streams:
            sock.close()
