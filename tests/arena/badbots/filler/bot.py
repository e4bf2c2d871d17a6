"""A bot that fills its disk (test fixture): on its first decision it writes files into
its own folder (`folder`) or its /tmp (`tmp`) until a write fails, then lets the error
end it, as a careless bot would; the arena must call it "exceeded disk_mb".

    python3 bot.py folder|tmp
"""

import json
import os
import random
import sys
from pathlib import Path

where = Path("." if sys.argv[1] == "folder" else os.environ.get("TMPDIR", "/tmp"))
rng = random.Random(int(os.environ.get("CURIA_BOT_SEED", "0")))
chunk = b"x" * (1 << 20)
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "end":
        break
    if message["type"] == "decide":
        written = 0
        with (where / "filler.bin").open("wb") as handle:
            while written < (4 << 30):  # a write fails long before: disk_mb
                handle.write(chunk)
                handle.flush()
                written += len(chunk)
        print(rng.choice(message["legal"]), flush=True)
