"""Generate the Python code of the public contract: `python3 proto/generate.py [OUT_DIR]`.

Writes curia_api/v1/*_pb2.py, *_pb2.pyi and *_pb2_grpc.py from proto/curia/v1/*.proto
(protoc names the modules after the proto files, `curia.v1`; their imports of each other
are then pointed at the contract package, `curia_api.v1`). The generated files are
committed; tests/service/test_ops.py fails when they drift.
"""

from __future__ import annotations

import re
import shutil
import sys
import tempfile
from importlib import resources
from pathlib import Path

from grpc_tools import protoc

PROTO_ROOT = Path(__file__).resolve().parent
REPO_ROOT = PROTO_ROOT.parent


def generate(out_dir: Path = REPO_ROOT) -> list[Path]:
    """Run protoc on every .proto under proto/; return the files written (in
    `out_dir`/curia_api/v1)."""
    sources = sorted(str(p.relative_to(PROTO_ROOT)) for p in PROTO_ROOT.rglob("*.proto"))
    well_known = str(resources.files("grpc_tools") / "_proto")
    target = out_dir / "curia_api" / "v1"
    target.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as scratch:
        args = ["protoc", f"-I{PROTO_ROOT}", f"-I{well_known}", f"--python_out={scratch}",
                f"--pyi_out={scratch}", f"--grpc_python_out={scratch}", *sources]
        if protoc.main(args) != 0:
            raise SystemExit(f"protoc failed: {' '.join(args)}")
        for path in sorted((Path(scratch) / "curia" / "v1").glob("*_pb2*.py*")):
            code = IMPORTS.sub(r"\1curia_api.v1", path.read_text())
            (target / path.name).write_text(code)
        shutil.rmtree(Path(scratch) / "curia")
    return sorted(target.glob("*_pb2*.py*"))


#: The generated modules' imports of each other (`from curia.v1 import …`).
IMPORTS = re.compile(r"^((?:from|import) )curia\.v1\b", re.MULTILINE)


if __name__ == "__main__":
    for path in generate(Path(sys.argv[1]) if len(sys.argv) > 1 else REPO_ROOT):
        print(path)
