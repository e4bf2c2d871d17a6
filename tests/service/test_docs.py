"""The grpcurl examples in docs/api.md are valid requests of the methods they call."""

from __future__ import annotations

import re
from pathlib import Path

from google.protobuf import json_format

from curia.v1 import game_service_pb2 as pb

DOC = Path(__file__).resolve().parents[2] / "docs" / "api.md"
EXAMPLE = re.compile(r"-d '(?P<body>[^']*)'\s*\\?\s*localhost:50051 "
                     r"curia\.v1\.GameService/(?P<method>\w+)", re.S)


def test_grpcurl_examples_parse_as_their_request_messages() -> None:
    examples = list(EXAMPLE.finditer(DOC.read_text()))
    assert len(examples) >= 6
    methods = pb.DESCRIPTOR.services_by_name["GameService"].methods_by_name
    for match in examples:
        request_type = getattr(pb, methods[match["method"]].input_type.name)
        message = json_format.Parse(match["body"], request_type())
        assert message.ByteSize() > 0, match["method"]
