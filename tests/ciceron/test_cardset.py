"""Cicéron's card set file (ruling C3): the stand-in set parses and has the book's counts;
every malformed variant is refused naming the card and the field; the digest follows the
text; CURIA_CICERON_CARDS chooses another file."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from importlib import resources
from pathlib import Path

import pytest

from games.ciceron import cardset
from games.ciceron.cardset import (
    CARDS_ENV,
    CASTES,
    EFFECT_TIMINGS,
    EFFECTS,
    GUILDS,
    CardSet,
    CardSetError,
    card_set_from_env,
    load_default_card_set,
    parse_card_set,
)
from games.ciceron.tools import make_standin_cards

DEFAULT_TEXT = resources.files("games.ciceron").joinpath("cards.toml").read_text("utf-8")


@pytest.fixture(scope="module")
def cards() -> CardSet:
    return load_default_card_set()


# -- the stand-in set ----------------------------------------------------------------

def test_c3_default_set_parses_and_says_it_is_a_stand_in(cards: CardSet) -> None:
    assert "stand-in" in cards.notice.lower() and "curia" in cards.notice.lower()
    head = DEFAULT_TEXT.splitlines()[0].lower()
    assert "stand-in" in head and "curia" in head
    assert "not the published" in DEFAULT_TEXT[:400].lower()
    assert CARDS_ENV in DEFAULT_TEXT[:800]
    assert cards.digest == parse_card_set(DEFAULT_TEXT).digest


def test_c3_counts_of_the_rule_book(cards: CardSet) -> None:
    assert len(cards.white_senators) == 12
    assert len(cards.piles) == 3
    assert [len(cards.pile_senators(p.id)) for p in cards.piles] == [36, 36, 36]
    assert len(cards.senators) == 120
    assert Counter(a.caste for a in cards.actions) == dict.fromkeys(CASTES, 18)
    assert len(cards.triumvirat) == 15
    assert all(len(cards.triumvirat_of(turn)) == 3 for turn in range(1, 6))
    assert len(cards.ciceron) == 9
    assert sorted(cards.guild_powers) == sorted(GUILDS)
    assert len(cards.families) == 5
    assert cards.legions == 15


def test_c3_names_are_distinct_and_piles_partition_the_castes(cards: CardSet) -> None:
    assert len({s.name for s in cards.senators}) == 120
    assert sorted(c for p in cards.piles for c in p.castes) == sorted(CASTES)
    assert len({f.home for f in cards.families}) == 5
    assert {"gallia", "hispania", "syria", "aegyptus"} <= set(cards.provinces)
    assert {t.general for t in cards.triumvirat} == {"caesar", "crassus", "pompey"}


def test_c4_design_ranges_of_the_stand_in(cards: CardSet) -> None:
    """The numbers the design promises (the balance itself is checked by simulation)."""
    for s in cards.senators:
        assert 1 <= s.votes <= 3, s.id
        assert 1 <= len(s.influences) <= 2 and max(s.influences.values()) <= 3, s.id
        assert sum(s.guilds.values()) <= 2, s.id
        assert s.prestige == 0 or (1 <= s.prestige <= 5
                                   and 1 <= sum(s.requires.values()) <= 3), s.id
        assert sum(s.cost.values()) == (0 if s.pile == "white" else 4), s.id
    raisers = Counter(s.limit_bonus for s in cards.senators if s.limit_bonus)
    assert 0 < raisers[2] < raisers[1] <= 12
    for caste in CASTES:
        of_caste = [s for s in cards.senators if s.caste == caste]
        assert len(of_caste) == 20 and sum(s.votes for s in of_caste) == 35
    symbols = Counter[str]()
    for s in cards.senators:
        symbols.update(s.guilds)
    assert max(symbols.values()) - min(symbols.values()) <= 2
    strengths = [make_standin_cards.strength(s.__dict__) for s in cards.white_senators]
    assert max(strengths) - min(strengths) <= 1
    for a in cards.actions:
        assert sum(a.cost.values()) <= 3, a.id
    legions = [a for a in cards.actions if a.effect.kind == "legion"]
    assert len(legions) >= 12 and all(a.caste == "belligerator" for a in legions)
    assert len({a.effect.province for a in legions}) >= 8
    for turn in range(1, 5):
        assert max(t.legions for t in cards.triumvirat_of(turn)) <= min(
            t.legions for t in cards.triumvirat_of(turn + 1)) + 1
    assert [min(t.legions for t in cards.triumvirat_of(1)),
            max(t.legions for t in cards.triumvirat_of(5))] == [1, 7]


def test_c3_every_effect_kind_and_timing_is_documented(cards: CardSet) -> None:
    doc = Path(__file__).resolve().parents[2].joinpath("docs", "ciceron-cards.md")
    text = doc.read_text(encoding="utf-8")
    for kind, params in EFFECTS.items():
        assert f"| `{kind}` |" in text, kind
        for param in params:
            assert f"`{param}`" in text, (kind, param)
    for timing in {t for ts in EFFECT_TIMINGS.values() for t in ts}:
        assert f"**`{timing}`**" in text, timing
    assert "CURIA_CICERON_CARDS=/path/to/cards.toml curia serve" in text
    used = {a.effect.kind for a in cards.actions} | {e.kind for e in cards.guild_powers.values()}
    assert used == set(EFFECTS), "the stand-in set uses the whole vocabulary"


def test_c3_lookups(cards: CardSet) -> None:
    cato = cards.senator("marcus-porcius-cato")
    assert (cato.name, cato.pile) == ("Marcus Porcius Cato", "white")
    assert cards.action("belligerator-01").effect.kind == "legion"
    assert cards.triumvirat_card("caesar-5").province == "gallia"
    assert cards.ciceron_card("in-verrem").castes == ("mercator", "pontifex")
    assert [a.caste for a in cards.deck("orator")] == ["orator"] * 18
    assert cards.family("aemilii").home == "orator"
    assert cards.pile("orator-pontifex").castes == ("orator", "pontifex")
    with pytest.raises(KeyError):
        cards.senator("gaius-julius-caesar")


def test_c3_generator_reproduces_the_committed_file() -> None:
    """cards.toml is make_standin_cards' output: edit the script, not the file."""
    assert make_standin_cards.render() == DEFAULT_TEXT


# -- malformed variants --------------------------------------------------------------

def edit(card_id: str, old: str, new: str) -> Callable[[str], str]:
    """Replace the line `old` (once) in the block of the card whose id is `card_id`."""
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


MALFORMED: list[tuple[str, Callable[[str], str], tuple[str, ...]]] = [
    ("red cost not totalling 4",
     edit("marcus-calpurnius-bibulus", "cost = { orator = 3, pontifex = 1 }",
          "cost = { orator = 3 }"),
     ('senator "marcus-calpurnius-bibulus"', "cost", "must total 4", "orator, pontifex",
      '{"orator": 3}')),
    ("red cost outside the pile's castes",
     edit("gaius-scribonius-curio", "cost = { orator = 4 }", "cost = { mercator = 4 }"),
     ('senator "gaius-scribonius-curio"', "cost")),
    ("white senator with a cost of 3",
     edit("marcus-porcius-cato", 'pile = "white"', 'pile = "white"\ncost = { orator = 3 }'),
     ('senator "marcus-porcius-cato"', "cost")),
    ("unknown caste",
     edit("marcus-calpurnius-bibulus", 'caste = "orator"', 'caste = "gladiator"'),
     ('senator "marcus-calpurnius-bibulus"', "caste", "gladiator")),
    ("unknown guild symbol",
     edit("marcus-calpurnius-bibulus", "guilds = { diplomats = 1 }", "guilds = { bakers = 1 }"),
     ('senator "marcus-calpurnius-bibulus"', "guilds", "bakers")),
    ("prestige without a requirement",
     edit("quintus-lutatius-catulus", "\nrequires = { traders = 1, strategists = 1 }", ""),
     ('senator "quintus-lutatius-catulus"', "requires")),
    ("cénacle bonus of 3",
     edit("gaius-aurelius-cotta", "limit_bonus = 1", "limit_bonus = 3"),
     ('senator "gaius-aurelius-cotta"', "limit_bonus", "0..2")),
    ("votes as a string",
     edit("gaius-scribonius-curio", "votes = 3", 'votes = "3"'),
     ('senator "gaius-scribonius-curio"', "votes")),
    ("misspelt field",
     edit("gaius-scribonius-curio", "votes = 3", "vote = 3"),
     ('senator "gaius-scribonius-curio"', "vote is not a known field")),
    ("duplicate id",
     edit("marcus-calpurnius-bibulus", 'id = "marcus-calpurnius-bibulus"',
          'id = "gaius-scribonius-curio"'),
     ('senator "gaius-scribonius-curio"', "id", "already used")),
    ("a 13th white senator",
     edit("gaius-scribonius-curio", 'pile = "orator-pontifex"', 'pile = "white"'),
     ('senator "gaius-scribonius-curio"', "pile", "12")),
    ("unknown timing",
     edit("orator-01", 'timing = "permanent"', 'timing = "sometimes"'),
     ('action "orator-01"', "timing", "sometimes")),
    ("timing not allowed for the effect",
     edit("orator-01", 'timing = "permanent"', 'timing = "instant"'),
     ('action "orator-01"', "timing", "votes")),
    ("unknown effect kind",
     edit("orator-02", 'kind = "votes"', 'kind = "charm"'),
     ('action "orator-02"', "effect.kind", "charm")),
    ("effect parameter missing",
     edit("orator-01", 'effect = { kind = "votes", amount = 1 }', 'effect = { kind = "votes" }'),
     ('action "orator-01"', "effect.amount", "missing")),
    ("effect parameter of another kind",
     edit("orator-01", "amount = 1 }", 'amount = 1, caste = "orator" }'),
     ('action "orator-01"', "effect.caste", "votes")),
    ("effect amount out of range",
     edit("orator-01", "amount = 1 }", "amount = 0 }"),
     ('action "orator-01"', "effect.amount", "1..10")),
    ("legion on an orator card",
     edit("orator-01", 'effect = { kind = "votes", amount = 1 }',
          'effect = { kind = "legion", province = "gallia", rewards = { prestige = 1 } }'),
     ('action "orator-01"', "effect.kind", "belligerator")),
    ("legion in an unknown province",
     edit("belligerator-01", 'province = "gallia"', 'province = "britannia"'),
     ('action "belligerator-01"', "effect.province", "britannia")),
    ("legion reward of an unknown kind",
     edit("belligerator-01", '"influence:orator" = 2', "glory = 2"),
     ('action "belligerator-01"', "effect.rewards", "glory")),
    ("legion without rewards",
     edit("belligerator-01", 'rewards = { prestige = 3, "influence:orator" = 2 }',
          "rewards = {}"),
     ('action "belligerator-01"', "effect.rewards")),
    ("a 19th orator card",
     edit("mercator-01", '\ncaste = "mercator"', '\ncaste = "orator"'),
     ('action "mercator-01"', "caste", "18")),
    ("Triumvirat turn 6",
     edit("caesar-5", "turn = 5", "turn = 6"),
     ('Triumvirat card "caesar-5"', "turn", "1..5")),
    ("a 4th Triumvirat card in turn 1",
     edit("caesar-2", "turn = 2", "turn = 1"),
     ('Triumvirat card "caesar-2"', "turn", "3")),
    ("Triumvirat demanding more legions than the box holds",
     edit("crassus-5", "legions = 7", "legions = 16"),
     ('Triumvirat card "crassus-5"', "legions", "1..15")),
    ("Triumvirat in an unknown province",
     edit("caesar-5", 'province = "gallia"', 'province = "britannia"'),
     ('Triumvirat card "caesar-5"', "province", "britannia")),
    ("an unknown general",
     edit("caesar-5", 'general = "caesar"', 'general = "sulla"'),
     ('Triumvirat card "caesar-5"', "general", "sulla")),
    ("Cicéron card naming one caste twice",
     edit("in-verrem", 'castes = ["mercator", "pontifex"]', 'castes = ["mercator", "mercator"]'),
     ('Cicéron card "in-verrem"', "castes")),
    ("Cicéron card with 3 influences",
     edit("in-verrem", 'influences = ["insidiator", "mercator", "belligerator", "belligerator"]',
          'influences = ["insidiator", "mercator", "belligerator"]'),
     ('Cicéron card "in-verrem"', "influences", "4")),
    ("two families of one home caste",
     replace('home = "belligerator"', 'home = "orator"'),
     ('family "iulii"', "home", "aemilii")),
    ("starting influence above 10",
     replace("influence = { orator = 2, mercator = 1, insidiator = 1 }",
             "influence = { orator = 11, mercator = 1, insidiator = 1 }"),
     ('family "aemilii"', "influence", "0..10")),
    ("piles not partitioning the castes",
     replace('castes = ["mercator", "plebeius"]', 'castes = ["mercator", "orator"]'),
     ('pile "mercator-plebeius"', "castes", "orator")),
    ("a guild without its power",
     replace('priests = { kind = "tribute_exempt" }\n', ""),
     ("guild_powers", "priests")),
    ("a guild power aimed at a senator",
     replace('diplomats = { kind = "votes", amount = 3 }',
             'diplomats = { kind = "bribe", votes = 1 }'),
     ('guild power "diplomats"', "kind must be a known guild power kind", "bribe")),
    ("a province listed twice",
     replace('provinces = ["gallia",', 'provinces = ["gallia", "gallia",'),
     ("provinces", "gallia", "twice")),
    ("another format version",
     replace("format = 1\n", "format = 2\n"),
     ("format must be 1", "got 2")),
    ("an unknown top-level key",
     replace("legions = 15\n", "legions = 15\nlegion = 15\n"),
     ("the card set", "legion")),
    ("not TOML at all",
     replace("legions = 15\n", "legions = = 15\n"),
     ("not valid TOML",)),
]


@pytest.mark.parametrize(("mutate", "expected"), [(m, e) for _, m, e in MALFORMED],
                         ids=[name for name, _, _ in MALFORMED])
def test_c3_malformed_variant_names_the_card_and_the_field(
        mutate: Callable[[str], str], expected: tuple[str, ...]) -> None:
    text = mutate(DEFAULT_TEXT)
    assert text != DEFAULT_TEXT
    with pytest.raises(CardSetError) as raised:
        parse_card_set(text)
    message = str(raised.value)
    for part in expected:
        assert part in message, (part, message)


def test_c3_the_brief_s_example_message() -> None:
    text = edit("gaius-scribonius-curio", "cost = { orator = 4 }", 'cost = { "orator" = 3 }')(
        DEFAULT_TEXT)
    with pytest.raises(CardSetError, match=re.escape(
            'senator "gaius-scribonius-curio": cost must total 4 influences of its pile\'s '
            'castes (orator, pontifex), got {"orator": 3}')):
        parse_card_set(text)


# -- digest and the environment -------------------------------------------------------

def test_c3_digest_changes_with_the_text() -> None:
    base = parse_card_set(DEFAULT_TEXT)
    assert len(base.digest) == 64
    renamed = parse_card_set(DEFAULT_TEXT.replace('name = "curia-stand-in"',
                                                  'name = "curia-stand-in-b"'))
    assert renamed.digest != base.digest
    comment = parse_card_set(DEFAULT_TEXT + "# a comment changes the digest too\n")
    assert comment.digest != base.digest
    assert comment.senators == base.senators


def _other_set() -> str:
    return DEFAULT_TEXT.replace('name = "curia-stand-in"', 'name = "host-set"').replace(
        edit_target := "votes = 3\ninfluences = { orator = 2 }",
        edit_target.replace("votes = 3", "votes = 4"), 1)


def test_c3_env_points_at_another_file(tmp_path: Path) -> None:
    path = tmp_path / "cards.toml"
    path.write_text(_other_set(), encoding="utf-8")
    chosen = card_set_from_env({CARDS_ENV: str(path)})
    assert chosen.name == "host-set"
    assert chosen.senator("quintus-hortensius-hortalus").votes == 4
    assert card_set_from_env({}).name == "curia-stand-in"
    assert card_set_from_env({CARDS_ENV: "  "}) is load_default_card_set()


def test_c3_env_reads_os_environ(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "cards.toml"
    path.write_text(_other_set(), encoding="utf-8")
    monkeypatch.setenv(CARDS_ENV, str(path))
    assert card_set_from_env().name == "host-set"
    monkeypatch.delenv(CARDS_ENV)
    assert card_set_from_env().name == "curia-stand-in"


def test_c3_env_errors_name_the_file(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere.toml"
    with pytest.raises(CardSetError, match="nowhere.toml: cannot read"):
        card_set_from_env({CARDS_ENV: str(missing)})
    bad = tmp_path / "bad.toml"
    bad.write_text(DEFAULT_TEXT.replace("votes = 3", "votes = 11", 1), encoding="utf-8")
    with pytest.raises(CardSetError, match=r"bad\.toml: senator \"[a-z-]+\": votes"):
        cardset.load_card_set_file(bad)
