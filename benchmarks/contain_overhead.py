"""What the containment of unsandboxed bots (hosting/contain.py) costs per bot start.

    python3 benchmarks/contain_overhead.py [--starts 300] [-- BOT COMMAND...]

Starts a trivial bot (default `/bin/true`; e.g. `-- python3 -c pass`) `--starts` times
each way, alternated, and times each from launch to exit with everything cleaned up:

- before: the command behind `setpriv --pdeathsig KILL` (hosting.limits.ended_with_parent)
  in a new session, limits set with prlimit after the start, the process group killed;
- shepherd: under the shepherd (no cgroup), its limits set before exec, swept at exit;
- shepherd + cgroup: the same in a cgroup of its own (the freezer hierarchy here, else
  cgroup v2), made, joined, emptied and removed.

Prints the median, mean and 90th percentile of each, and the medians' differences.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import statistics
import subprocess
import time
from collections.abc import Callable

from hosting.contain import Containment, cgroup_parent
from hosting.limits import Limits, apply_limits, ended_with_parent

LIMITS = Limits(memory_mb=1024, cpu_seconds=60)


def before(command: list[str]) -> float:
    """Seconds from launch to cleaned up, the way bots were started before."""
    start = time.perf_counter()
    process = subprocess.Popen(ended_with_parent(command), stdin=subprocess.DEVNULL,
                               stdout=subprocess.DEVNULL, start_new_session=True)
    apply_limits(process.pid, LIMITS)
    process.wait()
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    return time.perf_counter() - start


def contained(command: list[str], cgroup: bool) -> float:
    """Seconds from launch to cleaned up, under the shepherd (and in a cgroup)."""
    start = time.perf_counter()
    containment = Containment.make() if cgroup else Containment(None)
    process = subprocess.Popen(containment.command(command, limits=LIMITS),
                               stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                               start_new_session=True)
    process.wait()
    containment.end(process)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--starts", type=int, default=300)
    parser.add_argument("command", nargs="*", default=["/bin/true"])
    args = parser.parse_args()
    ways: dict[str, Callable[[], float]] = {
        "before": lambda: before(args.command),
        "shepherd": lambda: contained(args.command, cgroup=False)}
    if cgroup_parent() is not None:
        ways["shepherd + cgroup"] = lambda: contained(args.command, cgroup=True)
    times: dict[str, list[float]] = {name: [] for name in ways}
    for _ in range(args.starts):
        for name, way in ways.items():
            times[name].append(way() * 1000)
    print(f"{args.starts} starts each of {args.command} (cgroup: {cgroup_parent()}, "
          f"load {os.getloadavg()[0]:.1f}), launch to cleaned up, ms:")
    medians = {name: statistics.median(found) for name, found in times.items()}
    for name, found in times.items():
        p90 = sorted(found)[int(0.9 * len(found))]
        print(f"  {name:18s} median {medians[name]:6.1f}  mean {statistics.mean(found):6.1f}"
              f"  p90 {p90:6.1f}  (+{medians[name] - medians['before']:.1f} on the median)")


if __name__ == "__main__":
    main()
