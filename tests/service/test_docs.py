"""The `buf curl` examples of docs/api.md: each one runs, in order, against a real `curia
serve` and answers as its comment says; each JSON body is a valid request of its method.

How the doc is read: every ```sh block is one session. A `curia serve ...` line in it is
the server to start (with its flags; plain `curia serve` when there is none); comment
lines describe the next command; a comment naming a gRPC status code (`ABORTED`) means
that example must fail with that code, otherwise it must succeed, and a `"field": value`
quoted in the comment must appear in its answer. `GAME` and `TOKEN_<seat>` are the game
id and the seats' tokens of the last CreateGame (or JoinGame) answer of the block, and
`localhost:50051` is the test's server. The files the Security examples name (`ca.pem`,
`server.pem`, `operator.token`, ...) are made in the folder the examples run in.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import select
import shlex
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
import pytest
from google.protobuf import json_format

from curia_api.v1 import game_service_pb2 as pb
from tests.pki import make_pki
from tests.servers import REPO, ServiceProcess
from tests.service.test_ops import find_buf

DOC = REPO / "docs" / "api.md"
DOC_SERVER = "localhost:50051"
SH_BLOCK = re.compile(r"^```sh\n(.*?)^```", re.S | re.M)
STATUS = {code.name: code.value[0] for code in grpc.StatusCode
          if code is not grpc.StatusCode.OK}
STATUS_WORD = re.compile(r"\b(" + "|".join(STATUS) + r")\b")
FRAGMENT = re.compile(r'"\w+": (?:true|false|-?\d+|"[^"]*")')
BODY = re.compile(r"-d '(?P<body>[^']*)'")
METHOD = re.compile(r"/curia\.v1\.GameService/(?P<method>\w+)")
EXAMPLE_SECONDS = 60


# -- reading the doc ----------------------------------------------------------------------
@dataclass(frozen=True)
class Example:
    """One `buf curl` command and the comment above it."""

    command: str
    comment: str

    @property
    def expected_code(self) -> str | None:
        """The status code the comment names (None: the call succeeds)."""
        codes = set(STATUS_WORD.findall(self.comment))
        assert len(codes) <= 1, f"a comment names several codes: {self.comment}"
        return codes.pop() if codes else None

    @property
    def fragments(self) -> list[str]:
        """`"field": value` texts the comment says the answer holds."""
        return FRAGMENT.findall(self.comment)


@dataclass(frozen=True)
class Block:
    """A ```sh block: the `curia serve` flags it names and its examples, in order."""

    server_args: tuple[str, ...]
    examples: tuple[Example, ...]


def _balanced(text: str) -> bool:
    try:
        shlex.split(text, comments=True)
    except ValueError:
        return False
    return True


def shell_commands(text: str) -> Iterator[str]:
    """Whole commands: backslash continuations joined, quotes over several lines kept."""
    buffer = ""
    for line in text.splitlines():
        buffer = f"{buffer}\n{line}" if buffer else line
        if buffer.endswith("\\") or not _balanced(buffer):
            continue
        if buffer.strip():
            yield buffer.strip()
        buffer = ""
    assert not buffer, f"an unfinished command in docs/api.md: {buffer}"


def parse_block(text: str) -> Block:
    server: tuple[str, ...] = ()
    examples: list[Example] = []
    comment: list[str] = []
    for command in shell_commands(text):
        if command.startswith("#"):
            comment.append(command.lstrip("# "))
            continue
        if command.startswith("curia serve"):
            server = tuple(shlex.split(command, comments=True)[2:])
        elif command.startswith("buf curl"):
            examples.append(Example(command, " ".join(comment)))
        comment = []
    return Block(server, tuple(examples))


def doc_blocks() -> list[Block]:
    blocks = [parse_block(match[1]) for match in SH_BLOCK.finditer(DOC.read_text())]
    return [block for block in blocks if block.examples]


BLOCKS = doc_blocks()


# -- what the examples need ---------------------------------------------------------------
@pytest.fixture(scope="module")
def buf() -> str:
    found = find_buf()
    if found is None:
        pytest.skip("the buf CLI is not installed and npm is not available to install "
                    "@bufbuild/buf: the docs/api.md examples cannot run")
    return found


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The examples' current folder: certificates, the operator credential, and `proto`
    (the schema of `--schema proto`)."""
    folder = tmp_path_factory.mktemp("api-doc")
    make_pki(folder)  # ca.pem, server.pem/.key, client.pem/.key
    (folder / "operator.token").write_text(secrets.token_urlsafe(24) + "\n")
    (folder / "proto").symlink_to(REPO / "proto")
    return folder


class DocServer(ServiceProcess):
    """`curia serve` with a block's flags, ready once it prints its ready line (a port that
    wants client certificates cannot be probed with a plain channel)."""

    def _wait_ready(self, timeout: float = 20.0) -> None:
        assert self.process.stdout is not None and self.process.stderr is not None
        readable, _, _ = select.select([self.process.stdout], [], [], timeout)
        line = self.process.stdout.readline().decode() if readable else ""
        if "curia serving on port" not in line:
            self.stop()
            raise RuntimeError(f"curia serve did not start: {line}"
                               f"{self.process.stderr.read().decode()}")


def start_server(block: Block, redis_url: str, folder: Path) -> DocServer:
    args = tuple(str(folder / arg) if (folder / arg).is_file() else arg
                 for arg in block.server_args)
    return DocServer(redis_url, extra_args=args)


# -- running them -------------------------------------------------------------------------
@dataclass
class Session:
    """What earlier answers of a block told: the last game's id and its seats' tokens."""

    port: int
    game: str = ""
    tokens: dict[int, str] = field(default_factory=dict)

    def fill(self, command: str) -> str:
        """The command with the test's server and the placeholders' values."""
        if re.search(r"\bGAME\b", command):
            assert self.game, f"GAME before any CreateGame: {command}"
        command = re.sub(r"\bGAME\b", self.game, command.replace(DOC_SERVER,
                                                                 f"localhost:{self.port}"))
        return re.sub(r"\bTOKEN_(\d+)\b", lambda seat: self.tokens[int(seat[1])], command)

    def learn(self, answers: list[Any]) -> None:
        for answer in answers:
            if isinstance(answer, dict) and "gameId" in answer and "seats" in answer:
                self.game = answer["gameId"]
                self.tokens = {s.get("seat", 0): s["token"] for s in answer["seats"]}
            elif isinstance(answer, dict) and isinstance(answer.get("seat"), dict):
                self.tokens[answer["seat"].get("seat", 0)] = answer["seat"]["token"]


def json_documents(text: str) -> list[Any]:
    """The JSON values printed one after another (a stream prints one per message)."""
    decoder, found, index = json.JSONDecoder(), [], 0
    text = text.strip()
    while index < len(text):
        value, index = decoder.raw_decode(text, index)
        found.append(value)
        while index < len(text) and text[index].isspace():
            index += 1
    return found


def run_example(command: str, buf: str, folder: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PATH": f"{Path(buf).parent}{os.pathsep}{os.environ['PATH']}"}
    return subprocess.run(["bash", "-c", command], cwd=folder, env=env, capture_output=True,
                          text=True, timeout=EXAMPLE_SECONDS)


def check_answer(example: Example, done: subprocess.CompletedProcess[str]) -> list[Any]:
    """Assert the example answered as documented; its JSON answers."""
    where = f"docs/api.md example:\n{example.command}\n# {example.comment}\n"
    code = example.expected_code
    if code is not None:
        assert done.returncode == STATUS[code] << 3, \
            f"{where}expected {code}, exit {done.returncode}:\n{done.stdout[-2000:]}{done.stderr}"
        assert f'"code": "{code.lower()}"' in done.stderr, where + done.stderr
        return []
    assert done.returncode == 0, f"{where}exit {done.returncode}:\n{done.stderr}"
    assert done.stdout.strip(), where + "no answer"
    for fragment in example.fragments:
        assert fragment in done.stdout, f"{where}no {fragment} in:\n{done.stdout[-3000:]}"
    return json_documents(done.stdout) if done.stdout.lstrip().startswith("{") else []


@pytest.mark.parametrize("block", BLOCKS, ids=lambda b: " ".join(b.server_args) or "plain")
def test_every_buf_curl_example_answers_as_documented(
        block: Block, buf: str, workdir: Path, redis_url: str) -> None:
    server = start_server(block, redis_url, workdir)
    try:
        session = Session(server.port)
        for example in block.examples:
            done = run_example(session.fill(example.command), buf, workdir)
            session.learn(check_answer(example, done))
    finally:
        server.stop()


# -- the doc itself -----------------------------------------------------------------------
def test_the_doc_shows_the_calls_the_issue_asks_for() -> None:
    examples = [example for block in BLOCKS for example in block.examples]
    assert len(BLOCKS) >= 3 and len(examples) >= 25
    assert all("--protocol grpc" in example.command for example in examples)
    assert any("--reflect-protocol grpc-v1 " in example.command for example in examples)
    assert any("--schema proto " in example.command for example in examples)
    assert {"ALREADY_EXISTS", "ABORTED", "FAILED_PRECONDITION", "RESOURCE_EXHAUSTED",
            "UNAUTHENTICATED", "PERMISSION_DENIED", "INVALID_ARGUMENT"} <= {
        example.expected_code for example in examples}


def test_every_json_body_parses_as_its_request_message() -> None:
    methods = pb.DESCRIPTOR.services_by_name["GameService"].methods_by_name
    bodies = 0
    for example in (e for block in BLOCKS for e in block.examples):
        body, method = BODY.search(example.command), METHOD.search(example.command)
        if body is None or method is None:
            continue
        text = re.sub(r"\bTOKEN_\d+\b", "token", re.sub(r"\bGAME\b", "game", body["body"]))
        request_type = getattr(pb, methods[method["method"]].input_type.name)
        documents = json_documents(text)  # a stream's body holds one per message
        assert len(documents) == 1 or methods[method["method"]].client_streaming
        for document in documents:
            message = json_format.ParseDict(document, request_type())
            assert message.ByteSize() > 0, example.command
            bodies += 1
    assert bodies >= 20
