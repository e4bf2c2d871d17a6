"""Mutation testing of one game's rules engine with mutmut (docs/mutation-testing.md).

    python3 tools/mutation.py leges            # run, then report
    python3 tools/mutation.py municipium --report     # report the last run only
    python3 tools/mutation.py ciceron --again  # re-run only the mutants not killed last time

mutmut (`pip install -e '.[test,mutation]'`, configured in pyproject.toml's
`[tool.mutmut]`) copies the project into `mutants/`, changes one thing at a time in the
game's modules (a `<` for a `<=`, a constant, a deleted call...) and runs the tests that
reach the changed function. A mutant that no test fails on has "survived": either a rule
no test pins down, or a change that makes no difference (an *equivalent* mutant).

The report counts each module's mutants by outcome and lists every mutant not killed;
those named in docs/mutation-testing.md (a line starting with the name in backticks,
saying why the mutant is equivalent, or why no game can reach its code) are explained.
A timeout (the tests hang on the mutant, an endless loop) counts as detected. It exits
with status 1 while some mutant is neither detected nor explained there. `mutmut show
NAME` prints a mutant's diff, `mutmut apply NAME` writes it into the source tree (undo
with git).

Runs under `nice -n 19`; `--max-children` (default 2) sets the parallel test runs.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "mutation-testing.md"

#: The modules mutated per game (each must be in `only_mutate` in pyproject.toml).
MODULES = {
    "leges": ["rules", "state", "observation"],
    "municipium": ["rules", "state", "pending"],
    "ciceron": ["rules", "state", "observation", "effects"],
}

#: mutmut's exit codes (mutmut.stats.status_by_exit_code) -> outcome.
OUTCOMES = {1: "killed", 3: "killed", 0: "survived", 5: "no tests", 33: "no tests",
            34: "skipped", 35: "suspicious", 36: "timeout", 24: "timeout", -24: "timeout",
            152: "timeout", 255: "timeout", 37: "type check", None: "not checked"}
COLUMNS = ("killed", "survived", "no tests", "timeout", "suspicious", "not checked")
#: Outcomes of a mutant no test detected: it survived them, or no test reaches its
#: function (code no game can reach, explained as such, or a gap to fill).
UNDETECTED = ("survived", "no tests")


def mutant_globs(game: str) -> list[str]:
    return [f"games.{game}.{module}.*" for module in MODULES[game]]


def results(game: str) -> dict[str, dict[str, str]]:
    """module -> {mutant name: outcome}, from mutmut's files in mutants/."""
    found: dict[str, dict[str, str]] = {}
    for module in MODULES[game]:
        meta = ROOT / "mutants" / "games" / game / f"{module}.py.meta"
        if not meta.exists():
            found[module] = {}
            continue
        codes = json.loads(meta.read_text())["exit_code_by_key"]
        found[module] = {name: OUTCOMES.get(code, "suspicious") for name, code in codes.items()}
    return found


def equivalents() -> dict[str, str]:
    """Mutant name -> why it is equivalent, from docs/mutation-testing.md: a list item
    naming mutants in backticks (`games.leges.rules.x_prompt__mutmut_46`, several
    allowed, or `…__mutmut_46..47` for a range), then the reason."""
    if not DOC.exists():
        return {}
    name = re.compile(r"`(games\.[\w.ǁ]+__mutmut_)(\d+)(?:\.\.(\d+))?`")
    found = {}
    for line in DOC.read_text().splitlines():
        if not line.startswith("- `games."):
            continue
        for base, low, high in name.findall(line):
            for n in range(int(low), int(high or low) + 1):
                found[f"{base}{n}"] = line
    return found


def report(game: str) -> int:
    """Print the counts per module and the mutants not killed; 1 if some is unexplained."""
    found, explained = results(game), equivalents()
    width = max(len(f"games/{game}/{m}.py") for m in MODULES[game])
    print(f"\n{'module':<{width}}  " + "  ".join(f"{c:>11}" for c in (*COLUMNS, "total")))
    totals: Counter[str] = Counter()
    for module, outcomes in found.items():
        counts = Counter(outcomes.values())
        totals += counts
        print(f"{f'games/{game}/{module}.py':<{width}}  "
              + "  ".join(f"{counts[c]:>11}" for c in COLUMNS)
              + f"  {sum(counts.values()):>11}")
    print(f"{'all':<{width}}  " + "  ".join(f"{totals[c]:>11}" for c in COLUMNS)
          + f"  {sum(totals.values()):>11}")
    unexplained = []
    for outcomes in found.values():
        for name, outcome in sorted(outcomes.items(), key=lambda kv: _natural(kv[0])):
            if outcome in ("killed", "timeout"):  # a timeout: the tests hang, so fail
                continue
            if outcome in UNDETECTED and name in explained:
                continue
            unexplained.append((name, outcome))
    survivors = sum(o in UNDETECTED for outcomes in found.values() for o in outcomes.values())
    known = sum(1 for outcomes in found.values() for n, o in outcomes.items()
                if o in UNDETECTED and n in explained)
    print(f"\nnot detected (survived or no tests): {survivors}, of which equivalent "
          f"(docs/mutation-testing.md): {known}")
    if not any(found.values()):
        print(f"no results for {game}: run `python3 tools/mutation.py {game}` first")
        return 1
    if unexplained:
        print(f"not killed and not explained ({len(unexplained)}); `mutmut show NAME`:")
        for name, outcome in unexplained:
            print(f"  {outcome:>11}  {name}")
        return 1
    print("every mutant is killed or documented as equivalent")
    return 0


def _natural(name: str) -> tuple[str, int]:
    base, _, number = name.rpartition("__mutmut_")
    return base, int(number) if number.isdigit() else 0


def run(game: str, max_children: int, again: bool) -> int:
    if again:
        names = [name for outcomes in results(game).values()
                 for name, outcome in outcomes.items() if outcome not in ("killed", "timeout")]
        if not names:
            print("nothing to run again: every mutant was killed")
            return 0
    else:
        names = mutant_globs(game)
    command = ["mutmut", "run", "--max-children", str(max_children), *names]
    print("$", " ".join(command[:4]), *(names if not again else [f"<{len(names)} mutants>"]))
    start = time.monotonic()
    done = subprocess.run(command, cwd=ROOT, check=False)
    minutes = (time.monotonic() - start) / 60
    print(f"\nmutmut exited with {done.returncode} after {minutes:.1f} minutes")
    return done.returncode


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("game", choices=sorted(MODULES))
    parser.add_argument("--report", action="store_true", help="only report the last run")
    parser.add_argument("--again", action="store_true",
                        help="run again only the mutants the last run did not kill")
    parser.add_argument("--max-children", type=int, default=2, metavar="N",
                        help="mutants tested at once (default 2)")
    args = parser.parse_args(argv)
    os.chdir(ROOT)
    if not args.report:
        os.nice(19)  # a long CPU-bound run: let everything else go first
        code = run(args.game, args.max_children, args.again)
        if code != 0:
            return code
    return report(args.game)


if __name__ == "__main__":
    sys.exit(main())
