"""A client generated from proto/ by the Connect project's own JavaScript tools
(`protoc-gen-es`, `@connectrpc/connect-web`) plays whole games through the web port of a
real `curia serve --http-port`: one title over gRPC-Web, one over Connect in binary proto,
one over Connect in JSON (tests/web/connect_node/play.mjs takes every seat's first legal
decision). What it reports is checked against the gRPC port."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from client.unary import CuriaClient
from curia_api.v1 import game_service_pb2 as pb
from service.redis_server import free_port
from tests.servers import ServiceProcess
from tests.timing import patient

CLIENT = Path(__file__).resolve().parent / "connect_node"
PROTO = Path(__file__).resolve().parents[2] / "proto"


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The client's folder in a temporary copy: its locked packages installed (`npm ci`)
    and the curia.v1 modules generated from proto/ (grpcio-tools' protoc with the
    protoc-gen-es plugin)."""
    if shutil.which("node") is None or shutil.which("npm") is None:
        pytest.skip("node and npm are needed for the generated JavaScript client")
    folder = tmp_path_factory.mktemp("connect_node")
    for name in ("package.json", "package-lock.json", "play.mjs"):
        shutil.copy(CLIENT / name, folder / name)
    run(["npm", "ci", "--no-audit", "--no-fund"], folder)
    (folder / "gen").mkdir()
    run([sys.executable, "-m", "grpc_tools.protoc", f"-I{PROTO}",
         f"--plugin=protoc-gen-es={folder / 'node_modules' / '.bin' / 'protoc-gen-es'}",
         f"--es_out={folder / 'gen'}", "--es_opt=target=js,import_extension=js",
         *map(str, sorted((PROTO / "curia" / "v1").glob("*.proto")))], folder)
    return folder


def run(command: list[str], folder: Path) -> str:
    done = subprocess.run(command, cwd=folder, capture_output=True, text=True,
                          timeout=patient(300), stdin=subprocess.DEVNULL)
    assert done.returncode == 0, f"{command[0]} failed:\n{done.stdout}\n{done.stderr}"
    return done.stdout


@pytest.fixture(scope="module")
def web(redis_url: str) -> Iterator[tuple[ServiceProcess, int]]:
    port = free_port()
    served = ServiceProcess(redis_url, extra_args=("--http-port", str(port)))
    yield served, port
    served.stop()


@pytest.mark.parametrize(("game", "variant", "seats", "protocol"), [
    ("municipium", "revised", 3, "grpc-web"),
    ("ciceron", "standard", 3, "connect-proto"),
    ("leges", "standard", 4, "connect-json")])
def test_a_generated_client_plays_a_whole_game(generated: Path,
                                               web: tuple[ServiceProcess, int], game: str,
                                               variant: str, seats: int,
                                               protocol: str) -> None:
    served, port = web
    played = json.loads(run(["node", "play.mjs", f"http://127.0.0.1:{port}", protocol, game,
                             variant, str(seats)], generated))
    assert played["finished"] and played["result"] == "yes"
    with CuriaClient(served.address) as client:
        view = client.view(played["gameId"])
    assert view.status == pb.GAME_STATUS_FINISHED
    assert view.version == int(played["version"]) and view.version >= played["decisions"] > 0
