"""Writes Curia's stand-in Leges card set, games/leges/cards.toml (ruling L3).

The rule summary leaves the card texts and the Value track's numbers out, so Curia ships
a set of its own design. This script is its source. Change a number here, then

    python3 -m games.leges.tools.make_standin_cards            # rewrite cards.toml
    python3 -m games.leges.tools.make_standin_cards --check    # exit 1 if it differs
    python3 -m games.leges.tools.make_standin_cards --report   # design figures

tests/leges/test_cardset.py checks that cards.toml is this script's output, so the two
never drift apart. A host who wants another set writes a TOML file instead (see
docs/leges-cards.md) and points the server at it with CURIA_LEGES_CARDS.

Design (ruling L4 checks the balance by simulation, tests/leges/test_balance.py):

- The four colours are the same up to a rotation: each has 21 Theme cards made from one
  template of 21 profiles (`TEMPLATE`), where a profile names colours relative to its own
  ("own", "next", "opposite", "previous" in the order pietas, virtus, libertas,
  concordia). So no colour, and no Value token, is favoured by the cards.
- Base points 2..8 (mean about 4.2), lower on cards with an ability: ×2 cards (3 per
  colour) score 2-3, bonus cards 2-3, shift cards 3-5; the plain cards that pull their own
  Value down score most (6-8).
- Most cards push their own Value up and another down: societal Values compete.
- The track: 5 Value cards of 3 spaces; the tokens start on the middle space of card 3;
  the bonus/malus is -2, -1, 0, +1, +2 from card 1 to card 5.
- The Laws' VP per tier, 1 / 4 / 8 / 13, follow their cumulated cost (5, 20, 40, 65
  points) at about one VP per 5 points, so spreading over colours and climbing one
  colour pay alike; the scarce top tiers are what players contest.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from games.leges.cardset import parse_card_set

OUTPUT = Path(__file__).resolve().parent.parent / "cards.toml"

#: The four colours (societal Values), in track and seat-board order.
COLOURS = (
    ("pietas", "Pietas", "duty to the gods, to the family and to the city"),
    ("virtus", "Virtus", "courage and excellence, in war and in office"),
    ("libertas", "Libertas", "the freedom of the citizen and of the assemblies"),
    ("concordia", "Concordia", "harmony between the orders and the peoples"),
)
LAW_VP = (1, 4, 8, 13)
TRACK_SPACES = (3, 3, 3, 3, 3)
TRACK_BONUS = (-2, -1, 0, 1, 2)
TRACK_START = (3, 2)  # card, space

#: Relative colours of a profile: own, next, opposite, previous.
OWN, NEXT, OPP, PREV = 0, 1, 2, 3

#: The 21 profiles of every colour: (base points, {relative colour: shift}, ability).
#: An ability is ("double",), ("shift", amount) or ("bonus", relative colour, points,
#: whose).
TEMPLATE: tuple[tuple[int, dict[int, int], tuple[Any, ...] | None], ...] = (
    (3, {OWN: 1}, ("double",)),
    (3, {OWN: 1, OPP: -1}, ("double",)),
    (2, {OWN: 2}, ("double",)),
    (5, {OWN: 1}, None),
    (5, {OWN: 1, NEXT: -1}, None),
    (5, {OWN: 1, PREV: -1}, None),
    (6, {OWN: -1}, None),
    (6, {NEXT: -1}, None),
    (6, {PREV: -1}, None),
    (7, {OWN: -1, OPP: 1}, None),
    (8, {OWN: -2}, None),
    (3, {OWN: 1}, ("bonus", OWN, 1, "all")),
    (3, {OWN: 1, NEXT: -1}, ("bonus", NEXT, 1, "all")),
    (3, {OWN: 1, PREV: -1}, ("bonus", PREV, 1, "all")),
    (2, {OWN: 1}, ("bonus", OWN, 2, "yours")),
    (3, {OPP: -1}, ("bonus", OPP, 1, "all")),
    (3, {NEXT: 1}, ("bonus", OWN, 2, "yours")),
    (4, {OWN: 1}, ("shift", 1)),
    (4, {OWN: -1, NEXT: 1}, ("shift", 1)),
    (3, {OWN: 1}, ("shift", 2)),
    (5, {OPP: -1}, ("shift", 1)),
)

#: Campaign Themes, 21 per colour, in template order.
NAMES: dict[str, tuple[str, ...]] = {
    "pietas": (
        "Sibylline Books", "Vows to Jupiter", "Piety of Aeneas", "Temple Restoration",
        "Ancestral Rites", "Household Gods", "Funeral Law", "Oath of Office",
        "Pontifical Calendar", "Festival of Ceres", "Purification of the City",
        "Sacred Games", "Vestal Privileges", "College of Augurs", "Filial Duty",
        "Lectisternium", "Rites of Vesta", "Augury Reform", "Sacred Groves",
        "Votive Offerings", "Temple Treasury"),
    "virtus": (
        "Triumph", "Spolia Opima", "Civic Crown", "Legion Reform", "Veterans' Land",
        "Naval Power", "Fortified Frontier", "Military Roads", "Spoils of War",
        "Cavalry Levy", "Siege Engines", "Arms Drill", "War Chest", "Camp Discipline",
        "Colonies of Veterans", "Standard Bearers", "Mural Crown", "Victory Games",
        "Border Watch", "Recruitment Drive", "Shield Wall"),
    "libertas": (
        "Secret Ballot", "Tribune's Veto", "Cap of Liberty", "Right of Appeal",
        "Free Speech", "Debt Relief", "Land Reform", "Citizenship for Allies",
        "Assembly Rights", "End of Bondage", "Grain Dole", "Open Courts",
        "Freedmen's Vote", "Twelve Tables", "Public Archives", "Plebeian Magistrates",
        "Term Limits", "Repeal of Sumptuary Laws", "Free Markets", "Writ of Provocatio",
        "Popular Assemblies"),
    "concordia": (
        "Temple of Concord", "Alliance of Orders", "Harmony of the Republic",
        "Marriage Alliances", "Public Banquet", "Reconciliation", "Harbour Works",
        "Aqueduct", "Public Baths", "Census", "Grain Reserve", "Treaty with the Latins",
        "Amnesty", "Roads and Bridges", "Common Festival", "Arbitration Courts",
        "Patronage Networks", "Forum Renewal", "Water Rights", "Peace Embassy",
        "Shared Magistracy"),
}

HEADER = """\
# Leges: STAND-IN CARD SET designed for Curia (ruling L3).
# This is NOT the published card list of the game. The rule summary leaves the Theme
# cards and the Value track's numbers out, so every number below is our own design,
# balanced by construction (the four colours are one template rotated) and checked by
# simulation (ruling L4).
#
# To play with another set (the published cards typed in, say), write a file in this
# format (docs/leges-cards.md) and start the server with
#     CURIA_LEGES_CARDS=/path/to/cards.toml curia serve
# This file is generated: edit games/leges/tools/make_standin_cards.py and run
#     python3 -m games.leges.tools.make_standin_cards
"""

DESCRIPTION = """\
Stand-in card set designed for Curia (ruling L3), not the published card list.
Four colours made from one template of 21 Theme cards; numbers of our own design.
Replace it with CURIA_LEGES_CARDS=/path/to/cards.toml (docs/leges-cards.md)."""


def _ids() -> list[str]:
    return [c[0] for c in COLOURS]


def themes() -> list[dict[str, Any]]:
    """Every Theme card of the set, as the file writes it, colour by colour."""
    ids = _ids()
    out = []
    for index, colour in enumerate(ids):
        def rel(r: int, index: int = index) -> str:
            return ids[(index + r) % len(ids)]

        for number, (points, shift, ability) in enumerate(TEMPLATE, start=1):
            card: dict[str, Any] = {
                "id": f"{colour}-{number:02d}", "name": NAMES[colour][number - 1],
                "colour": colour, "points": points,
                "shift": {rel(r): amount for r, amount in sorted(shift.items())},
            }
            if ability is not None:
                if ability[0] == "double":
                    card["ability"] = {"kind": "double"}
                elif ability[0] == "shift":
                    card["ability"] = {"kind": "shift", "amount": ability[1]}
                else:
                    card["ability"] = {"kind": "bonus", "colour": rel(ability[1]),
                                       "points": ability[2], "whose": ability[3]}
            out.append(card)
    return out


def _value(value: Any) -> str:
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{k} = {_value(v)}" for k, v in value.items()) + " }"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    return str(value)


def render() -> str:
    """The text of cards.toml."""
    lines = [HEADER, "format = 1", 'name = "curia-stand-in"',
             f'description = """\n{DESCRIPTION}\n"""', "",
             "# ---- The Value track: 5 Value cards, spaces on each, bonus/malus per card ----",
             "", "[track]", f"spaces = {_value(TRACK_SPACES)}",
             f"bonus = {_value(TRACK_BONUS)}",
             f"start = {{ card = {TRACK_START[0]}, space = {TRACK_START[1]} }}", "",
             "# ---- The colours: the four societal Values and the VP of their Laws ----", ""]
    for ident, name, meaning in COLOURS:
        lines += ["[[colours]]", f"id = {_value(ident)}", f"name = {_value(name)}",
                  f"meaning = {_value(meaning)}", f"law_vp = {_value(LAW_VP)}", ""]
    lines += ["# ---- The 84 Theme cards ----", ""]
    for card in themes():
        lines += ["[[themes]]"]
        lines += [f"{key} = {_value(card[key])}"
                  for key in ("id", "name", "colour", "points", "shift", "ability")
                  if key in card]
        lines.append("")
    return "\n".join(lines).rstrip("\n") + "\n"


def report() -> str:
    """Design figures: per colour the points, shifts and abilities (all equal)."""
    cards = parse_card_set(render())
    rows = []
    for colour in cards.colour_ids:
        mine = [t for t in cards.themes if t.colour == colour]
        pushes: Counter[str] = Counter()
        for t in cards.themes:
            for c, amount in t.shift:
                if c == colour:
                    pushes[t.colour] += amount
        abilities = Counter(t.ability.kind if t.ability else "none" for t in mine)
        rows.append(f"{colour:10} cards {len(mine)}  points {sum(t.points for t in mine)} "
                    f"(mean {sum(t.points for t in mine) / len(mine):.2f})  "
                    f"token pushed by all cards {sum(pushes.values()):+d}  "
                    f"abilities {dict(sorted(abilities.items()))}")
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if cards.toml differs")
    parser.add_argument("--report", action="store_true", help="print design figures")
    args = parser.parse_args(argv)
    text = render()
    parse_card_set(text)
    if args.report:
        print(report())
        return 0
    if args.check:
        same = OUTPUT.read_text(encoding="utf-8") == text
        print("cards.toml is up to date" if same else "cards.toml differs: regenerate it")
        return 0 if same else 1
    OUTPUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUTPUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
