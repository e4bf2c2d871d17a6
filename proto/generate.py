"""Generate the Python code of the public contract: `python3 proto/generate.py [OUT_DIR]`.

Writes curia/v1/*_pb2.py, *_pb2.pyi and *_pb2_grpc.py from proto/curia/v1/*.proto. The
generated files are committed; tests/service/test_ops.py fails when they drift.
"""

from __future__ import annotations

import sys
from importlib import resources
from pathlib import Path

from grpc_tools import protoc

PROTO_ROOT = Path(__file__).resolve().parent
REPO_ROOT = PROTO_ROOT.parent


def generate(out_dir: Path = REPO_ROOT) -> list[Path]:
    """Run protoc on every .proto under proto/; return the files written."""
    sources = sorted(str(p.relative_to(PROTO_ROOT)) for p in PROTO_ROOT.rglob("*.proto"))
    well_known = str(resources.files("grpc_tools") / "_proto")
    args = ["protoc", f"-I{PROTO_ROOT}", f"-I{well_known}", f"--python_out={out_dir}",
            f"--pyi_out={out_dir}", f"--grpc_python_out={out_dir}", *sources]
    if protoc.main(args) != 0:
        raise SystemExit(f"protoc failed: {' '.join(args)}")
    return sorted((out_dir / "curia" / "v1").glob("*_pb2*.py*"))


if __name__ == "__main__":
    for path in generate(Path(sys.argv[1]) if len(sys.argv) > 1 else REPO_ROOT):
        print(path)
