"""Leges' card set file (ruling L3): the stand-in set parses and has the summary's counts;
every malformed variant is refused naming the card and the field; the digest follows the
text and is recorded in each game; CURIA_LEGES_CARDS chooses another file."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from importlib import resources
from pathlib import Path

import pytest

from games.leges import cardset
from games.leges.cardset import (
    ABILITIES,
    CARDS_ENV,
    LAW_COSTS,
    LAW_COUNTS,
    CardSet,
    CardSetError,
    card_set_from_env,
    load_default_card_set,
    parse_card_set,
)
from games.leges.observation import state_from_observation
from games.leges.state import LegesState
from games.leges.tools import make_standin_cards

DEFAULT_TEXT = resources.files("games.leges").joinpath("cards.toml").read_text("utf-8")
DOC = Path(__file__).resolve().parents[2].joinpath("docs", "leges-cards.md")


@pytest.fixture(scope="module")
def cards() -> CardSet:
    return load_default_card_set()


# -- the stand-in set ----------------------------------------------------------------

def test_l3_default_set_parses_and_says_it_is_a_stand_in(cards: CardSet) -> None:
    assert "stand-in" in cards.notice.lower() and "curia" in cards.notice.lower()
    head = DEFAULT_TEXT.splitlines()[0].lower()
    assert "stand-in" in head and "curia" in head
    assert "not the published" in DEFAULT_TEXT[:400].lower()
    assert CARDS_ENV in DEFAULT_TEXT[:800]
    assert cards.digest == parse_card_set(DEFAULT_TEXT).digest


def test_l3_counts_of_the_summary(cards: CardSet) -> None:
    assert len(cards.themes) == 84
    assert len(cards.track.spaces) == 5 and len(cards.track.bonus) == 5
    assert len(cards.colours) == 4
    assert cards.colour_ids == ("pietas", "virtus", "libertas", "concordia")
    assert LAW_COSTS == (5, 15, 20, 25) and LAW_COUNTS == (4, 3, 2, 1)


def test_l3_the_track_of_the_stand_in(cards: CardSet) -> None:
    track = cards.track
    assert track.spaces == (3, 3, 3, 3, 3) and track.length == 15
    assert track.bonus == (-2, -1, 0, 1, 2)
    assert (track.start_card, track.start_space, track.start) == (3, 2, 7)
    assert [track.card_at(s) for s in range(15)] == [1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4,
                                                     5, 5, 5]
    assert (track.first_space(2), track.last_space(4)) == (3, 11)
    assert [cards.value_bonus(s) for s in (0, 3, 7, 9, 14)] == [-2, -1, 0, 1, 2]
    assert track.space_on_card(10) == 2


def test_l4_the_colours_are_one_template_rotated(cards: CardSet) -> None:
    """Balance by construction: every colour has the same cards up to a rotation."""
    ids = cards.colour_ids
    for colour in ids:
        assert cards.colour(colour).law_vp == (1, 4, 8, 13)
    profiles = []
    for index, colour in enumerate(ids):
        def rel(c: str, index: int = index) -> int:
            return (ids.index(c) - index) % 4
        mine = [t for t in cards.themes if t.colour == colour]
        assert len(mine) == 21
        profiles.append(sorted(
            (t.points, tuple(sorted((rel(c), n) for c, n in t.shift)),
             (t.ability.kind, rel(t.ability.colour) if t.ability.colour else -1,
              t.ability.points, t.ability.whose, t.ability.amount) if t.ability else ())
            for t in mine))
    assert all(p == profiles[0] for p in profiles)
    pushes = Counter[str]()
    for theme in cards.themes:
        for colour, amount in theme.shift:
            pushes[colour] += amount
    assert len(set(pushes.values())) == 1, pushes
    kinds = Counter(t.ability.kind if t.ability else "none" for t in cards.themes)
    assert kinds == {"none": 32, "double": 12, "bonus": 24, "shift": 16}
    assert {t.ability.whose for t in cards.themes if t.ability and t.ability.kind == "bonus"} \
        == {"all", "yours"}
    assert all(2 <= t.points <= 8 for t in cards.themes)


def test_l3_lookups(cards: CardSet) -> None:
    theme = cards.theme("pietas-01")
    assert (theme.name, theme.colour, theme.points) == ("Sibylline Books", "pietas", 3)
    assert theme.ability is not None and theme.ability.kind == "double"
    assert cards.theme("virtus-13").ability == cardset.Ability(
        kind="bonus", colour="libertas", points=1, whose="all")
    assert cards.law_vp("libertas", 0) == 0 and cards.law_vp("libertas", 4) == 13
    with pytest.raises(KeyError):
        cards.theme("pietas-22")


def test_l3_generator_reproduces_the_committed_file() -> None:
    """cards.toml is make_standin_cards' output: edit the script, not the file."""
    assert make_standin_cards.render() == DEFAULT_TEXT
    assert make_standin_cards.main(["--check"]) == 0


def test_l3_every_ability_is_documented(cards: CardSet) -> None:
    text = DOC.read_text(encoding="utf-8")
    for kind, params in ABILITIES.items():
        assert f"| `{kind}` |" in text, kind
        for param in params:
            assert f"`{param}`" in text, (kind, param)
    assert "CURIA_LEGES_CARDS=/path/to/cards.toml curia serve" in text
    assert "stand-in" in text
    used = {t.ability.kind for t in cards.themes if t.ability}
    assert used == set(ABILITIES), "the stand-in set uses the whole vocabulary"


# -- malformed variants --------------------------------------------------------------

def edit(card_id: str, old: str, new: str) -> Callable[[str], str]:
    """Replace `old` (once) in the block of the card (or colour) whose id is `card_id`."""
    def mutate(text: str) -> str:
        start = text.index(f'\nid = "{card_id}"\n')
        end = text.index("\n\n", start + 1)
        block = text[start:end]
        assert block.count(old) == 1, (card_id, old)
        return text[:start] + block.replace(old, new) + text[end:]
    return mutate


def replace(old: str, new: str) -> Callable[[str], str]:
    """Replace `old` (it must occur exactly once in the file)."""
    def mutate(text: str) -> str:
        assert text.count(old) == 1, old
        return text.replace(old, new)
    return mutate


def drop_card(card_id: str) -> Callable[[str], str]:
    def mutate(text: str) -> str:
        start = text.index(f'[[themes]]\nid = "{card_id}"\n')
        end = text.index("\n\n", start) + 2
        return text[:start] + text[end:]
    return mutate


MALFORMED: list[tuple[str, Callable[[str], str], tuple[str, ...]]] = [
    ("unknown colour",
     edit("pietas-04", 'colour = "pietas"', 'colour = "gravitas"'),
     ('theme "pietas-04"', "colour", "gravitas")),
    ("points as a string",
     edit("pietas-04", "points = 5", 'points = "5"'),
     ('theme "pietas-04"', "points", "whole number")),
    ("points out of range",
     edit("pietas-04", "points = 5", "points = 21"),
     ('theme "pietas-04"', "points", "0..20", "21")),
    ("points missing",
     edit("pietas-04", "\npoints = 5", ""),
     ('theme "pietas-04"', "points is missing")),
    ("misspelt field",
     edit("pietas-04", "points = 5", "point = 5"),
     ('theme "pietas-04"', "point is not a known field")),
    ("duplicate id",
     edit("pietas-05", 'id = "pietas-05"', 'id = "pietas-04"'),
     ('theme "pietas-04"', "id", "already used")),
    ("id that is not a slug",
     edit("pietas-05", 'id = "pietas-05"', 'id = "Pietas 5"'),
     ("theme #5", "id", "lowercase")),
    ("empty shift",
     edit("pietas-04", "shift = { pietas = 1 }", "shift = {}"),
     ('theme "pietas-04"', "shift", "non-empty")),
    ("shift of an unknown colour",
     edit("pietas-04", "shift = { pietas = 1 }", "shift = { gravitas = 1 }"),
     ('theme "pietas-04"', "shift", "gravitas")),
    ("shift of 0",
     edit("pietas-04", "shift = { pietas = 1 }", "shift = { pietas = 0 }"),
     ('theme "pietas-04"', "shift", "other than 0")),
    ("shift too large",
     edit("pietas-04", "shift = { pietas = 1 }", "shift = { pietas = 4 }"),
     ('theme "pietas-04"', "shift", "-3..3")),
    ("unknown ability kind",
     edit("pietas-01", 'ability = { kind = "double" }', 'ability = { kind = "triple" }'),
     ('theme "pietas-01"', "ability.kind", "triple")),
    ("ability parameter of another kind",
     edit("pietas-01", 'ability = { kind = "double" }',
          'ability = { kind = "double", amount = 1 }'),
     ('theme "pietas-01"', "ability.amount", "not a parameter of \"double\"")),
    ("shift ability without its amount",
     edit("pietas-18", 'ability = { kind = "shift", amount = 1 }',
          'ability = { kind = "shift" }'),
     ('theme "pietas-18"', "ability.amount is missing")),
    ("shift ability amount out of range",
     edit("pietas-18", "amount = 1 }", "amount = 4 }"),
     ('theme "pietas-18"', "ability.amount", "1..3")),
    ("bonus of an unknown colour",
     edit("pietas-13", 'colour = "virtus", points = 1', 'colour = "gravitas", points = 1'),
     ('theme "pietas-13"', "ability.colour", "gravitas")),
    ("bonus points out of range",
     edit("pietas-13", 'colour = "virtus", points = 1', 'colour = "virtus", points = 6'),
     ('theme "pietas-13"', "ability.points", "1..5")),
    ("bonus of an unknown owner",
     edit("pietas-13", 'whose = "all"', 'whose = "theirs"'),
     ('theme "pietas-13"', "ability.whose", "theirs")),
    ("ability not a table",
     edit("pietas-01", 'ability = { kind = "double" }', 'ability = "double"'),
     ('theme "pietas-01"', "ability must be a table")),
    ("an 85th Theme card",
     lambda text: text + '\n[[themes]]\nid = "extra-01"\nname = "Extra"\n'
                         'colour = "pietas"\npoints = 1\nshift = { pietas = 1 }\n',
     ('theme "extra-01"', "one too many", "84")),
    ("83 Theme cards",
     drop_card("concordia-20"),
     ("themes", "84", "got 83")),
    ("Law VP not rising",
     edit("virtus", "law_vp = [1, 4, 8, 13]", "law_vp = [1, 4, 4, 13]"),
     ('colour "virtus"', "law_vp", "rise")),
    ("Law VP of 3 tiers",
     edit("virtus", "law_vp = [1, 4, 8, 13]", "law_vp = [1, 4, 8]"),
     ('colour "virtus"', "law_vp", "4 whole numbers")),
    ("a colour named twice",
     edit("virtus", 'id = "virtus"', 'id = "pietas"'),
     ('colour "pietas"', "id", "another colour")),
    ("a fifth colour",
     replace('[[colours]]\nid = "pietas"', '[[colours]]\nid = "gravitas"\nname = "Gravitas"\n'
             'law_vp = [1, 2, 3, 4]\n\n[[colours]]\nid = "pietas"'),
     ("colours", "must hold 4 colours", "got 5")),
    ("a track of 4 cards",
     replace("spaces = [3, 3, 3, 3, 3]", "spaces = [3, 3, 3, 3]"),
     ("track", "spaces", "5 whole numbers")),
    ("a Value card without spaces",
     replace("spaces = [3, 3, 3, 3, 3]", "spaces = [3, 0, 3, 3, 3]"),
     ("track", "spaces", "1..9")),
    ("a start beyond its card",
     replace("start = { card = 3, space = 2 }", "start = { card = 3, space = 4 }"),
     ("track", "start.space", "1..3")),
    ("bonus out of range",
     replace("bonus = [-2, -1, 0, 1, 2]", "bonus = [-20, -1, 0, 1, 2]"),
     ("track", "bonus", "-9..9")),
    ("another format version",
     replace("format = 1\n", "format = 2\n"),
     ("format must be 1", "got 2")),
    ("an unknown top-level key",
     replace("format = 1\n", "format = 1\nlaws = 4\n"),
     ("the card set", "laws is not a known field")),
    ("not TOML at all",
     replace("format = 1\n", "format = = 1\n"),
     ("not valid TOML",)),
]


@pytest.mark.parametrize(("mutate", "expected"), [(m, e) for _, m, e in MALFORMED],
                         ids=[name for name, _, _ in MALFORMED])
def test_l3_malformed_variant_names_the_card_and_the_field(
        mutate: Callable[[str], str], expected: tuple[str, ...]) -> None:
    text = mutate(DEFAULT_TEXT)
    assert text != DEFAULT_TEXT
    with pytest.raises(CardSetError) as raised:
        parse_card_set(text)
    message = str(raised.value)
    for part in expected:
        assert part in message, (part, message)


def test_l3_an_example_message_in_full() -> None:
    text = edit("libertas-13", "points = 3", "points = -1")(DEFAULT_TEXT)
    with pytest.raises(CardSetError, match=re.escape(
            'theme "libertas-13": points must be 0..20, got -1')):
        parse_card_set(text)


# -- digest, the environment, games recording their set ------------------------------

def _other_set() -> str:
    return DEFAULT_TEXT.replace('name = "curia-stand-in"', 'name = "host-set"').replace(
        'id = "pietas-04"\nname = "Temple Restoration"\ncolour = "pietas"\npoints = 5',
        'id = "pietas-04"\nname = "Temple Restoration"\ncolour = "pietas"\npoints = 9')


def test_l3_digest_changes_with_the_text() -> None:
    base = parse_card_set(DEFAULT_TEXT)
    assert len(base.digest) == 64
    comment = parse_card_set(DEFAULT_TEXT + "# a comment changes the digest too\n")
    assert comment.digest != base.digest
    assert comment.themes == base.themes


def test_l3_env_points_at_another_file(tmp_path: Path) -> None:
    path = tmp_path / "cards.toml"
    path.write_text(_other_set(), encoding="utf-8")
    chosen = card_set_from_env({CARDS_ENV: str(path)})
    assert chosen.name == "host-set"
    assert chosen.theme("pietas-04").points == 9
    assert card_set_from_env({}).name == "curia-stand-in"
    assert card_set_from_env({CARDS_ENV: "  "}) is load_default_card_set()


def test_l3_env_reads_os_environ(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "cards.toml"
    path.write_text(_other_set(), encoding="utf-8")
    monkeypatch.setenv(CARDS_ENV, str(path))
    assert card_set_from_env().name == "host-set"
    monkeypatch.delenv(CARDS_ENV)
    assert card_set_from_env().name == "curia-stand-in"


def test_l3_env_errors_name_the_file(tmp_path: Path) -> None:
    with pytest.raises(CardSetError, match="nowhere.toml: cannot read"):
        card_set_from_env({CARDS_ENV: str(tmp_path / "nowhere.toml")})
    bad = tmp_path / "bad.toml"
    bad.write_text(DEFAULT_TEXT.replace("points = 5", "points = 50", 1), encoding="utf-8")
    with pytest.raises(CardSetError, match=r"bad\.toml: theme \"[a-z0-9-]+\": points"):
        cardset.load_card_set_file(bad)


def test_l3_a_game_records_its_set_and_refuses_another(cards: CardSet) -> None:
    st = LegesState.new(cards, 3, {}, seed=5)
    assert st.card_set == {"name": "curia-stand-in", "digest": cards.digest}
    assert st.observation(None)["card_set"]["digest"] == cards.digest
    other = parse_card_set(_other_set())
    assert LegesState.from_json(st.to_json(), cards).to_bytes() == st.to_bytes()
    with pytest.raises(ValueError, match="played with card set 'curia-stand-in'"):
        LegesState.from_json(st.to_json(), other)
    with pytest.raises(ValueError, match="another card set"):
        state_from_observation(LegesState, other, st.observation(0), 1)
