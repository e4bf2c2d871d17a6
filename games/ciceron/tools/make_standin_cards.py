"""Writes Curia's stand-in Cicéron card set, games/ciceron/cards.toml (ruling C3).

The rule book leaves the card texts out, so Curia ships a set of its own design. This
script is its source: the tables below (names, senator profiles, action cards, demands)
and the rules that spread castes, guilds and costs evenly. Change a number here, then

    python3 -m games.ciceron.tools.make_standin_cards            # rewrite cards.toml
    python3 -m games.ciceron.tools.make_standin_cards --check    # exit 1 if it differs
    python3 -m games.ciceron.tools.make_standin_cards --report   # balance figures

tests/ciceron/test_cardset.py checks that cards.toml is this script's output, so the two
never drift apart. A host who wants another set writes a TOML file instead (see
docs/ciceron-cards.md) and points the server at it with CURIA_CICERON_CARDS.

Design (ruling C4 checks the balance by simulation): every senator is worth about the
same by `strength` (votes 2, influence 1.5, guild symbol 1.5, prestige p needing r symbols
p - r/2, cénacle limit 3 a place); the 12 white senators about 10.5, the 108 red ones
about 8 (limit raisers a little more); every caste has 20 senators with the same profiles,
so caste and guild majorities are equally contested.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from games.ciceron.cardset import CASTES, GUILDS, parse_card_set

OUTPUT = Path(__file__).resolve().parent.parent / "cards.toml"

#: The guild each caste leans to (its action deck's patronage cards give this guild).
NATURAL_GUILD = dict(zip(CASTES, ("diplomats", "traders", "priests", "assassins",
                                  "artisans", "strategists"), strict=True))

#: The 3 red piles: the 2 castes their senators are paid in (together the 6 castes).
PILES = (("orator-pontifex", ("orator", "pontifex")),
         ("mercator-plebeius", ("mercator", "plebeius")),
         ("insidiator-belligerator", ("insidiator", "belligerator")))

#: Late-Republican Romans by caste: 2 white-backed, then 18 red (6 for each pile).
NAMES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "orator": (
        ("Quintus Hortensius Hortalus", "Marcus Porcius Cato"),
        ("Gaius Scribonius Curio", "Marcus Calpurnius Bibulus", "Quintus Lutatius Catulus",
         "Lucius Marcius Philippus", "Lucius Aurelius Cotta", "Gaius Aurelius Cotta",
         "Servius Sulpicius Rufus", "Gaius Licinius Calvus", "Marcus Calidius",
         "Lucius Licinius Crassus", "Marcus Caelius Rufus", "Quintus Tullius Cicero",
         "Marcus Favonius", "Lucius Calpurnius Piso Caesoninus", "Gaius Calpurnius Piso",
         "Marcus Pupius Piso Frugi", "Decimus Junius Silanus", "Lucius Domitius Ahenobarbus"),
    ),
    "mercator": (
        ("Titus Pomponius Atticus", "Lucius Licinius Lucullus"),
        ("Lucius Cornelius Balbus", "Gaius Rabirius Postumus", "Gaius Oppius",
         "Marcus Cluvius", "Gaius Matius", "Quintus Axius", "Gaius Vestorius",
         "Sextus Peducaeus", "Gaius Verres", "Lucius Lucceius",
         "Marcus Terentius Varro Lucullus", "Gaius Sallustius Crispus", "Lucius Egnatius",
         "Gaius Rabirius", "Quintus Valerius Orca", "Marcus Laenius Flaccus",
         "Gnaeus Plancius", "Aulus Caecina"),
    ),
    "pontifex": (
        ("Quintus Caecilius Metellus Pius", "Marcus Aemilius Lepidus"),
        ("Quintus Mucius Scaevola", "Publius Mucius Scaevola", "Lucius Cornelius Merula",
         "Appius Claudius Pulcher", "Publius Nigidius Figulus", "Marcus Terentius Varro",
         "Marcus Valerius Messalla Rufus", "Quintus Caecilius Metellus Scipio",
         "Lucius Julius Caesar", "Gnaeus Domitius Ahenobarbus",
         "Mamercus Aemilius Lepidus Livianus", "Gaius Claudius Marcellus",
         "Lucius Valerius Flaccus", "Lucius Cornelius Lentulus Niger",
         "Publius Cornelius Lentulus Spinther", "Publius Sulpicius Galba",
         "Marcus Aemilius Scaurus", "Lucius Caecilius Metellus Dalmaticus"),
    ),
    "insidiator": (
        ("Lucius Sergius Catilina", "Titus Annius Milo"),
        ("Publius Cornelius Lentulus Sura", "Gaius Cornelius Cethegus",
         "Publius Autronius Paetus", "Lucius Cassius Longinus", "Quintus Curius",
         "Lucius Vargunteius", "Gaius Manlius", "Lucius Statilius",
         "Publius Gabinius Capito", "Marcus Ceparius", "Quintus Annius Chilo",
         "Lucius Vettius", "Sextus Cloelius", "Marcus Perperna Veiento",
         "Gaius Flavius Fimbria", "Publius Cornelius Sulla", "Gaius Cassius Longinus",
         "Marcus Junius Brutus"),
    ),
    "plebeius": (
        ("Publius Clodius Pulcher", "Publius Vatinius"),
        ("Gaius Memmius", "Aulus Gabinius", "Gaius Manilius", "Gaius Cornelius",
         "Marcus Lollius Palicanus", "Lucius Quinctius", "Titus Munatius Plancus Bursa",
         "Quintus Pompeius Rufus", "Lucius Roscius Otho", "Publius Servilius Rullus",
         "Lucius Appuleius Saturninus", "Gaius Servilius Glaucia", "Marcus Livius Drusus",
         "Publius Sulpicius Rufus", "Gaius Papirius Carbo", "Gaius Porcius Cato",
         "Lucius Flavius", "Lucius Caecilius Metellus"),
    ),
    "belligerator": (
        ("Titus Labienus", "Marcus Antonius"),
        ("Lucius Afranius", "Marcus Petreius", "Quintus Sertorius", "Gaius Marius",
         "Lucius Cornelius Sulla", "Publius Sittius", "Lucius Aurunculeius Cotta",
         "Quintus Titurius Sabinus", "Decimus Junius Brutus Albinus", "Gaius Trebonius",
         "Gaius Caninius Rebilus", "Publius Attius Varus", "Gnaeus Domitius Calvinus",
         "Aulus Hirtius", "Publius Ventidius Bassus", "Lucius Munatius Plancus",
         "Publius Servilius Vatia Isauricus", "Gaius Pomptinus"),
    ),
}

#: The 4-influence costs of a red pile (castes a, b), rotated over its senators so that
#: both castes are asked for equally.
COST_PATTERNS = ((4, 0), (3, 1), (2, 2), (1, 3), (0, 4), (2, 2))

PROVINCES = ("gallia", "hispania", "africa", "sicilia", "corsica", "sardinia", "macedonia",
             "asia", "syria", "cilicia", "aegyptus")

#: Family boards in seat order: home caste and starting influence (2 home, 1 in 2 others).
FAMILIES = (("aemilii", "orator", {"orator": 2, "mercator": 1, "insidiator": 1}),
            ("iulii", "belligerator", {"belligerator": 2, "mercator": 1, "plebeius": 1}),
            ("cornelii", "pontifex", {"pontifex": 2, "plebeius": 1, "insidiator": 1}),
            ("claudii", "plebeius", {"plebeius": 2, "orator": 1, "insidiator": 1}),
            ("valerii", "mercator", {"mercator": 2, "pontifex": 1, "belligerator": 1}))

GUILD_POWERS: dict[str, dict[str, Any]] = {
    "artisans": {"kind": "extra_recruit"},
    "assassins": {"kind": "tax", "caste": "insidiator", "amount": 2},
    "diplomats": {"kind": "votes", "amount": 3},
    "traders": {"kind": "influence", "caste": "mercator", "amount": 3},
    "priests": {"kind": "tribute_exempt"},
    "strategists": {"kind": "draw", "caste": "belligerator", "count": 2},
}

# An action card: name, cost, timing, effect.
Card = tuple[str, dict[str, int], str, dict[str, Any]]
ORA, MER, PON, INS, PLE, BEL = CASTES


def _e(kind: str, **params: Any) -> dict[str, Any]:
    return {"kind": kind, **params}


def _legion(name: str, province: str, cost: dict[str, int], prestige: int, caste: str,
            influence: int) -> Card:
    rewards = {"prestige": prestige, f"influence:{caste}": influence}
    return (name, cost, "instant", _e("legion", province=province, rewards=rewards))


ACTIONS: dict[str, tuple[Card, ...]] = {
    ORA: (
        ("Oratio in Senatu", {ORA: 1}, "permanent", _e("votes", amount=1)),
        ("Contio", {ORA: 1}, "permanent", _e("votes", amount=1)),
        ("Suasoria", {ORA: 1, PLE: 1}, "permanent", _e("votes", amount=1)),
        ("Laudatio", {ORA: 2}, "permanent", _e("votes", amount=2)),
        ("Auctoritas Patrum", {ORA: 3}, "permanent", _e("votes", amount=2)),
        ("Ambitus", {MER: 1}, "senator", _e("bribe", votes=1)),
        ("Largitio", {ORA: 1}, "senator", _e("bribe", votes=1)),
        ("Sportula", {ORA: 1}, "senator", _e("bribe", votes=1)),
        ("Corruptio", {ORA: 1, MER: 1}, "senator", _e("bribe", votes=2)),
        ("Pactum", {ORA: 2}, "senator", _e("bribe", votes=2)),
        ("Legatio", {ORA: 1}, "senator", _e("patronage", guild="diplomats", count=1)),
        ("Foedus", {ORA: 1}, "senator", _e("patronage", guild="diplomats", count=1)),
        ("Commentarii", {ORA: 1}, "instant", _e("draw", caste=ORA, count=2)),
        ("Epistulae", {}, "end_of_turn", _e("draw", caste=ORA, count=2)),
        ("Rhetorica", {}, "instant", _e("influence", caste=ORA, amount=2)),
        ("Philippica", {ORA: 1}, "instant", _e("tax", caste=ORA, amount=1)),
        ("Invectiva", {}, "end_of_turn", _e("tax", caste=PLE, amount=1)),
        ("Clientela", {ORA: 2, MER: 1}, "permanent", _e("limit", amount=1)),
    ),
    MER: (
        ("Mercatura", {}, "instant", _e("influence", caste=MER, amount=2)),
        ("Negotium", {MER: 1}, "instant", _e("influence", caste=MER, amount=3)),
        ("Faenus", {MER: 1}, "instant", _e("influence", caste=ORA, amount=2)),
        ("Annona", {MER: 1}, "instant", _e("influence", caste=PLE, amount=2)),
        ("Publicani", {MER: 1}, "instant", _e("influence", caste=BEL, amount=2)),
        ("Argentarii", {MER: 1}, "instant", _e("influence", caste=INS, amount=2)),
        ("Donaria", {}, "end_of_turn", _e("influence", caste=PON, amount=2)),
        ("Navis Oneraria", {}, "instant", _e("draw", caste=MER, count=2)),
        ("Commeatus", {MER: 1}, "instant", _e("draw", caste=BEL, count=2)),
        ("Horrea", {}, "end_of_turn", _e("draw", caste=PLE, count=2)),
        ("Societas", {MER: 2}, "permanent", _e("income", caste=MER, amount=1)),
        ("Latifundium", {MER: 2}, "permanent", _e("income", caste=PLE, amount=1)),
        ("Vectigalia", {MER: 2}, "permanent", _e("income", caste=ORA, amount=1)),
        ("Collegium Mercatorum", {MER: 1}, "senator",
         _e("patronage", guild="traders", count=1)),
        ("Mensa Argentaria", {MER: 1}, "senator", _e("patronage", guild="traders", count=1)),
        ("Nundinae", {MER: 1}, "instant", _e("extra_recruit")),
        ("Pecunia Candidatorum", {MER: 3}, "permanent", _e("extra_recruit")),
        ("Domus Palatina", {MER: 2, ORA: 1}, "permanent", _e("limit", amount=1)),
    ),
    PON: (
        ("Sacrificium", {PON: 1}, "instant", _e("prestige", amount=2)),
        ("Supplicatio", {PON: 1}, "instant", _e("prestige", amount=2)),
        ("Lectisternium", {PON: 2}, "instant", _e("prestige", amount=3)),
        ("Votum", {PON: 1, MER: 1}, "instant", _e("prestige", amount=3)),
        ("Ver Sacrum", {PON: 2, ORA: 1}, "instant", _e("prestige", amount=4)),
        ("Auspicia", {}, "end_of_turn", _e("prestige", amount=2)),
        ("Augurium", {}, "end_of_turn", _e("prestige", amount=2)),
        ("Haruspex", {PON: 1}, "end_of_turn", _e("prestige", amount=3)),
        ("Decima", {PON: 1}, "permanent", _e("income", caste=PON, amount=1)),
        ("Virgines Vestales", {PON: 1}, "permanent", _e("income", caste=PON, amount=1)),
        ("Flamen Dialis", {PON: 2}, "permanent", _e("income", caste=ORA, amount=1)),
        ("Thesaurus Templi", {PON: 2}, "permanent", _e("income", caste=MER, amount=1)),
        ("Sodalitas", {PON: 1}, "senator", _e("patronage", guild="priests", count=1)),
        ("Sacerdotium", {PON: 1}, "senator", _e("patronage", guild="priests", count=1)),
        ("Libri Sibyllini", {}, "instant", _e("draw", caste=PON, count=2)),
        ("Oraculum", {PON: 1}, "instant", _e("draw", caste=PON, count=3)),
        ("Pax Deorum", {PON: 2}, "instant", _e("tribute_exempt")),
        ("Expiatio", {PON: 1, MER: 1}, "instant", _e("tribute_exempt")),
    ),
    INS: (
        ("Sica", {INS: 3}, "senator", _e("assassinate")),
        ("Venenum", {INS: 3}, "senator", _e("assassinate")),
        ("Pugio", {INS: 2, MER: 1}, "senator", _e("assassinate")),
        ("Proscriptio", {INS: 2, ORA: 1}, "senator", _e("assassinate")),
        ("Extortio", {INS: 1}, "instant", _e("tax", caste=MER, amount=1)),
        ("Rapina", {INS: 2}, "instant", _e("tax", caste=MER, amount=2)),
        ("Incendium", {INS: 1}, "instant", _e("tax", caste=PON, amount=1)),
        ("Seditio", {INS: 1}, "instant", _e("tax", caste=PLE, amount=1)),
        ("Calumnia", {}, "end_of_turn", _e("tax", caste=ORA, amount=1)),
        ("Latrocinium", {}, "end_of_turn", _e("tax", caste=BEL, amount=1)),
        ("Coniuratio", {INS: 1}, "instant", _e("tax", caste=INS, amount=2)),
        ("Delator", {}, "instant", _e("draw", caste=INS, count=2)),
        ("Speculatores", {}, "end_of_turn", _e("draw", caste=INS, count=2)),
        ("Manus", {}, "instant", _e("influence", caste=INS, amount=2)),
        ("Furtum", {INS: 1}, "instant", _e("influence", caste=MER, amount=2)),
        ("Lupanar", {}, "end_of_turn", _e("influence", caste=INS, amount=3)),
        ("Sicarii", {INS: 1}, "senator", _e("patronage", guild="assassins", count=1)),
        ("Sodalicium", {INS: 1}, "senator", _e("patronage", guild="assassins", count=1)),
    ),
    PLE: (
        ("Panem", {PLE: 1}, "permanent", _e("votes", amount=1)),
        ("Tribunus Plebis", {PLE: 1}, "permanent", _e("votes", amount=1)),
        ("Comitia Tributa", {PLE: 2, ORA: 1}, "permanent", _e("votes", amount=2)),
        ("Lex Frumentaria", {PLE: 1}, "instant", _e("tax", caste=MER, amount=1)),
        ("Secessio Plebis", {PLE: 2}, "instant", _e("tax", caste=ORA, amount=2)),
        ("Tumultus", {}, "end_of_turn", _e("tax", caste=PON, amount=1)),
        ("Intercessio", {PLE: 1}, "instant", _e("tax", caste=PLE, amount=1)),
        ("Ludi Circenses", {PLE: 1}, "instant", _e("prestige", amount=2)),
        ("Munus Gladiatorium", {PLE: 2}, "instant", _e("prestige", amount=3)),
        ("Quadrigae", {}, "end_of_turn", _e("prestige", amount=2)),
        ("Epulum Publicum", {PLE: 2, MER: 1}, "instant", _e("prestige", amount=4)),
        ("Congiarium", {}, "instant", _e("influence", caste=PLE, amount=2)),
        ("Turba", {PLE: 1}, "instant", _e("influence", caste=INS, amount=2)),
        ("Factio Veneta", {}, "instant", _e("draw", caste=PLE, count=2)),
        ("Factio Prasina", {}, "end_of_turn", _e("draw", caste=PLE, count=2)),
        ("Collegium Fabrum", {PLE: 1}, "senator", _e("patronage", guild="artisans", count=1)),
        ("Collegium Opificum", {PLE: 1}, "senator",
         _e("patronage", guild="artisans", count=1)),
        ("Suffragium", {PLE: 1}, "senator", _e("bribe", votes=1)),
    ),
    BEL: (
        _legion("Bellum Gallicum", "gallia", {BEL: 3}, 3, ORA, 2),
        _legion("Legio X Equestris", "gallia", {BEL: 2}, 2, PLE, 1),
        _legion("Bellum Sertorianum", "hispania", {BEL: 2, MER: 1}, 3, MER, 2),
        _legion("Legio VII Hispana", "hispania", {BEL: 1}, 1, BEL, 1),
        _legion("Bellum Parthicum", "syria", {BEL: 3}, 3, MER, 2),
        _legion("Legio in Syria", "syria", {BEL: 2}, 2, PON, 1),
        _legion("Bellum Iugurthinum", "africa", {BEL: 2}, 2, MER, 1),
        _legion("Bellum Servile", "sicilia", {BEL: 1}, 1, PLE, 1),
        _legion("Praesidium Corsicae", "corsica", {BEL: 2}, 2, INS, 1),
        _legion("Frumentatio Sardiniae", "sardinia", {BEL: 1}, 1, MER, 1),
        _legion("Bellum Macedonicum", "macedonia", {BEL: 2, ORA: 1}, 3, ORA, 2),
        _legion("Bellum Mithridaticum", "asia", {BEL: 3}, 3, PON, 2),
        _legion("Bellum Piraticum", "cilicia", {BEL: 1, MER: 1}, 2, INS, 1),
        _legion("Expeditio Aegyptia", "aegyptus", {BEL: 2}, 2, PON, 1),
        ("Dilectus", {}, "instant", _e("draw", caste=BEL, count=2)),
        ("Triumphus", {BEL: 2}, "instant", _e("prestige", amount=3)),
        ("Coloniae Veteranorum", {BEL: 1}, "permanent", _e("income", caste=BEL, amount=1)),
        ("Evocati", {BEL: 1}, "senator", _e("patronage", guild="strategists", count=1)),
    ),
}

#: (general, turn, legions, province): growing demands, one card per general and turn.
TRIUMVIRAT = (
    ("caesar", 1, 1, ""), ("crassus", 1, 2, ""), ("pompey", 1, 1, ""),
    ("caesar", 2, 2, "gallia"), ("crassus", 2, 3, ""), ("pompey", 2, 2, ""),
    ("caesar", 3, 4, ""), ("crassus", 3, 3, "syria"), ("pompey", 3, 3, ""),
    ("caesar", 4, 4, ""), ("crassus", 4, 5, ""), ("pompey", 4, 4, "hispania"),
    ("caesar", 5, 5, "gallia"), ("crassus", 5, 7, ""), ("pompey", 5, 6, ""),
)

#: Cicéron's pleas (his speeches): the 2 castes of a senator that may be given up, and
#: the 4 influences of which 2 may be paid. Each caste is named 3 times and shown 6 times.
CICERON = (
    ("In Verrem", (MER, PON), (INS, MER, BEL, BEL)),
    ("In Catilinam", (INS, PLE), (ORA, ORA, PON, INS)),
    ("Pro Murena", (BEL, ORA), (MER, PLE, PON, PON)),
    ("Pro Sestio", (PLE, BEL), (ORA, INS, MER, MER)),
    ("Pro Caelio", (INS, ORA), (PLE, PLE, BEL, MER)),
    ("In Pisonem", (PON, BEL), (ORA, INS, PLE, PLE)),
    ("Pro Milone", (INS, MER), (BEL, PON, ORA, PON)),
    ("Philippicae", (ORA, PLE), (BEL, INS, PON, MER)),
    ("Pro Roscio Amerino", (PON, MER), (INS, PLE, BEL, ORA)),
)

HEADER = """\
# Cicéron: STAND-IN CARD SET designed for Curia (ruling C3).
# This is NOT the published card list of Cicéron (Sweet November, 2024). The rule book
# leaves the card texts out, so every number below is our own design, under historical
# Roman names; its balance is checked by simulation (ruling C4).
#
# To play with another set (the published cards typed in, say), write a file in this
# format (docs/ciceron-cards.md) and start the server with
#     CURIA_CICERON_CARDS=/path/to/cards.toml curia serve
# This file is generated: edit games/ciceron/tools/make_standin_cards.py and run
#     python3 -m games.ciceron.tools.make_standin_cards
"""

DESCRIPTION = """\
Stand-in card set designed for Curia (ruling C3), not the published Cicéron card list.
Historical Roman names; numbers of our own design, balanced by simulation (ruling C4).
Replace it with CURIA_CICERON_CARDS=/path/to/cards.toml (docs/ciceron-cards.md).
"""


# -- the senators --------------------------------------------------------------------

def _shift(seq: tuple[str, ...], item: str, by: int) -> str:
    return seq[(seq.index(item) + by) % len(seq)]


class Spread:
    """Hands out castes or guilds so that each is used about equally: the least used
    one not excluded, ties going to the first after `prefer` in the rule book's order."""

    def __init__(self, names: tuple[str, ...]) -> None:
        self.names = names
        self.used = Counter[str]()

    def pick(self, prefer: str, exclude: set[str] | frozenset[str] = frozenset(),
             amount: int = 1) -> str:
        order = [_shift(self.names, prefer, step) for step in range(len(self.names))]
        choice = min((n for n in order if n not in exclude),
                     key=lambda n: (self.used[n], order.index(n)))
        self.used[choice] += amount
        return choice


class Designer:
    """Deals out the senators' profiles, spreading guilds and second castes evenly."""

    def __init__(self) -> None:
        self.symbols = Spread(GUILDS)
        self.needs = Spread(GUILDS)
        self.castes = Spread(CASTES)

    def other(self, caste: str) -> str:
        return self.castes.pick(_shift(CASTES, caste, 1), {caste})

    def guild(self, caste: str, taken: set[str] | None = None, amount: int = 1) -> str:
        return self.symbols.pick(NATURAL_GUILD[caste], taken or set(), amount)

    def requirement(self, caste: str, own: tuple[str, ...], count: int) -> dict[str, int]:
        """`own` (the senator's symbols) and `count` more guilds asked of the cénacle."""
        needs = {g: 1 for g in own}
        self.needs.used.update(own)
        for _ in range(count):
            needs[self.needs.pick(_shift(GUILDS, NATURAL_GUILD[caste], 3), set(needs))] = 1
        return needs

    def white(self, caste: str, slot: int) -> dict[str, Any]:
        """Slot 0 a 3-vote leader; slot 1 a 2-vote patron with prestige."""
        own = NATURAL_GUILD[caste]
        self.symbols.used[own] += 1
        if slot == 0:
            return {"votes": 3, "influences": {caste: 2}, "guilds": {own: 1}}
        return {"votes": 2, "influences": {caste: 2, self.other(caste): 1},
                "guilds": {own: 1}, "prestige": 2,
                "requires": self.requirement(caste, (own,), 1)}

    def red(self, caste: str, pile: int, slot: int) -> dict[str, Any]:
        """The `slot`-th (0..5) red senator of `caste` in pile `pile` (0..2).

        0 voter, 1 broker, 2 patron, 3 notable, 4 magnate, 5 a cénacle-limit raiser (+1
        for two castes of a pile, +2 for a third) or else a veteran (3 influence in its
        caste, or 2 and a double guild symbol).
        """
        ci = CASTES.index(caste)
        if slot == 0:
            return {"votes": 3, "influences": {caste: 1}}
        if slot == 1:
            return {"votes": 1, "influences": {caste: 2, self.other(caste): 1},
                    "guilds": {self.guild(caste): 1}}
        if slot == 2:
            guild = self.guild(caste)
            return {"votes": 2, "influences": {caste: 1}, "guilds": {guild: 1},
                    "prestige": 2, "requires": self.requirement(caste, (guild,), 1)}
        if slot == 3:
            first = self.guild(caste)
            second = self.guild(caste, {first})
            return {"votes": 1, "influences": {self.other(caste): 1},
                    "guilds": {first: 1, second: 1}, "prestige": 3,
                    "requires": self.requirement(caste, (first, second), 1)}
        if slot == 4:
            return {"votes": 2, "influences": {caste: 1, self.other(caste): 1},
                    "prestige": 2, "requires": self.requirement(caste, (), 2)}
        if ci in {2 * pile % 6, (2 * pile + 1) % 6}:
            return {"votes": 1, "influences": {caste: 1}, "guilds": {self.guild(caste): 1},
                    "limit_bonus": 1}
        if ci == (2 * pile + 4) % 6:
            return {"votes": 1, "influences": {caste: 1}, "limit_bonus": 2}
        if pile % 2 == 0:
            return {"votes": 1, "influences": {caste: 3}, "guilds": {self.guild(caste): 1}}
        return {"votes": 1, "influences": {caste: 2},
                "guilds": {self.guild(caste, amount=2): 2}}


def strength(senator: dict[str, Any]) -> float:
    """The design's yardstick (see the module docstring)."""
    prestige = int(senator.get("prestige", 0))
    needed = sum(senator.get("requires", {}).values())
    return float(2 * senator["votes"] + 1.5 * sum(senator["influences"].values())
            + 1.5 * sum(senator.get("guilds", {}).values())
            + (prestige - needed / 2 if prestige else 0) + 3 * senator.get("limit_bonus", 0))


def slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


def senators() -> list[dict[str, Any]]:
    """The 120 senators: the white ones, then each red pile's 36 (6 per caste)."""
    out = []
    design = Designer()
    for caste in CASTES:
        for slot, name in enumerate(NAMES[caste][0]):
            out.append({"id": slug(name), "name": name, "caste": caste, "pile": "white",
                        **design.white(caste, slot)})
    for pile, (pile_id, (a, b)) in enumerate(PILES):
        for ci, caste in enumerate(CASTES):
            for slot in range(6):
                name = NAMES[caste][1][6 * pile + slot]
                pay_a, pay_b = COST_PATTERNS[(slot + ci) % len(COST_PATTERNS)]
                cost = {k: v for k, v in ((a, pay_a), (b, pay_b)) if v}
                out.append({"id": slug(name), "name": name, "caste": caste, "pile": pile_id,
                            "cost": cost, **design.red(caste, pile, slot)})
    return out


# -- writing TOML --------------------------------------------------------------------

def _key(key: str) -> str:
    return key if re.fullmatch(r"[A-Za-z0-9_-]+", key) else json.dumps(key)


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    if isinstance(value, dict):
        if not value:
            return "{}"
        return "{ " + ", ".join(f"{_key(k)} = {_value(v)}" for k, v in value.items()) + " }"
    raise TypeError(f"cannot write {value!r}")


def _table(header: str, fields: dict[str, Any]) -> str:
    lines = [f"[[{header}]]"]
    lines += [f"{_key(k)} = {_value(v)}" for k, v in fields.items()]
    return "\n".join(lines) + "\n"


def _section(title: str) -> str:
    return f"\n# {'-' * 4} {title} {'-' * (80 - len(title) - 8)}\n\n"


def render() -> str:
    """The whole cards.toml text."""
    parts = [HEADER, "\n", "format = 1\n", 'name = "curia-stand-in"\n',
             f'description = """\n{DESCRIPTION}"""\n', "legions = 15\n",
             f"provinces = {_value(PROVINCES)}\n"]
    parts.append(_section("Family boards, in seat order: home caste, starting influence"))
    parts += [_table("families", {"name": n, "home": h, "influence": i}) + "\n"
              for n, h, i in FAMILIES]
    parts.append(_section("Red senator piles (Senate spots): the 2 castes they cost"))
    parts += [_table("piles", {"id": p, "castes": list(c)}) + "\n" for p, c in PILES]
    parts.append(_section("Guild powers: for the turn after winning the guild"))
    parts.append("[guild_powers]\n")
    parts += [f"{g} = {_value(GUILD_POWERS[g])}\n" for g in GUILDS]
    pile = ""
    for senator in senators():
        if senator["pile"] != pile:
            pile = senator["pile"]
            title = ("White senators (opening draft)" if pile == "white"
                     else f"Red senators of pile {pile}")
            parts.append(_section(title))
        parts.append(_table("senators", senator) + "\n")
    for caste in CASTES:
        parts.append(_section(f"Action cards: the {caste} deck"))
        for number, (name, cost, timing, effect) in enumerate(ACTIONS[caste], start=1):
            parts.append(_table("actions", {
                "id": f"{caste}-{number:02d}", "name": name, "caste": caste, "cost": cost,
                "timing": timing, "effect": effect}) + "\n")
    parts.append(_section("Triumvirat: 3 demands a turn (legions deployed, province)"))
    for general, turn, legions, province in TRIUMVIRAT:
        card: dict[str, Any] = {"id": f"{general}-{turn}", "general": general, "turn": turn,
                                "legions": legions}
        if province:
            card["province"] = province
        parts.append(_table("triumvirat", card) + "\n")
    parts.append(_section("Cicéron: senator castes and the 4 influences of each plea"))
    parts += [_table("ciceron", {"id": slug(n), "name": n, "castes": list(c),
                                 "influences": list(i)}) + "\n" for n, c, i in CICERON]
    return "".join(parts).rstrip("\n") + "\n"


# -- the report ----------------------------------------------------------------------

def report() -> str:
    """Balance figures of the set: strength per pile, totals per caste and guild."""
    cards = parse_card_set(render())
    rows = senators()
    lines = []
    for pile in ("white", *(p for p, _ in PILES)):
        values = [strength(s) for s in rows if s["pile"] == pile]
        lines.append(f"strength {pile:24} min {min(values):5.1f}  mean "
                     f"{sum(values) / len(values):5.2f}  max {max(values):5.1f}")
    votes = Counter[str]()
    influence = Counter[str]()
    symbols = Counter[str]()
    needs = Counter[str]()
    for s in cards.senators:
        votes[s.caste] += s.votes
        influence.update(s.influences)
        symbols.update(s.guilds)
        needs.update(s.requires)
    for caste in CASTES:
        lines.append(f"{caste:13} senate votes {votes[caste]:3}  senator influence "
                     f"{influence[caste]:3}")
    for guild in GUILDS:
        lines.append(f"{guild:13} symbols {symbols[guild]:3}  asked by prestige "
                     f"{needs[guild]:3}")
    raisers = Counter(s.limit_bonus for s in cards.senators if s.limit_bonus)
    lines.append(f"limit raisers: {dict(sorted(raisers.items()))}")
    kinds = Counter(f"{a.caste}:{a.effect.kind}" for a in cards.actions)
    lines.append("actions: " + ", ".join(f"{k} {n}" for k, n in sorted(kinds.items())))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true",
                        help="exit 1 if cards.toml is not this script's output")
    parser.add_argument("--report", action="store_true", help="print balance figures")
    parser.add_argument("--output", type=Path, default=OUTPUT, help="file to write")
    args = parser.parse_args(argv)
    text = render()
    parse_card_set(text)  # never write a set that does not validate
    if args.report:
        print(report())
        return 0
    if args.check:
        same = args.output.exists() and args.output.read_text(encoding="utf-8") == text
        print(f"{args.output}: {'up to date' if same else 'differs from the generator'}")
        return 0 if same else 1
    args.output.write_text(text, encoding="utf-8")
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
