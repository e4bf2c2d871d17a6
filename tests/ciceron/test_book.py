"""The rule book, sentence by sentence: one test per rule not pinned elsewhere in
tests/ciceron. Each docstring quotes (or paraphrases) the book and names its section, or
the ruling (C#, C-C#) that settles the point (docs/rulings.md)."""

from __future__ import annotations

from importlib import resources

from games.ciceron.cardset import (
    CASTES,
    GUILDS,
    CardSet,
    load_default_card_set,
    parse_card_set,
    spot_names,
)
from games.ciceron.position import (
    Position,
    cenacle,
    hand,
    holder,
    influence,
    legal,
    mover,
    movers,
    of_kind,
    play,
    prestige,
    senator_where,
    step,
)
from games.ciceron.state import CiceronState

CARDS = load_default_card_set()
HORTENSIUS = "quintus-hortensius-hortalus"  # orator, 3 votes, orator influence 2
CATO = "marcus-porcius-cato"  # orator, 2 votes
ATTICUS = "titus-pomponius-atticus"  # mercator, 3 votes, 1 traders
LUCULLUS = "lucius-licinius-lucullus"  # mercator, 2 votes
METELLUS = "quintus-caecilius-metellus-pius"  # pontifex, 3 votes, 1 priests
LEPIDUS = "marcus-aemilius-lepidus"  # pontifex, 2 votes
CATILINA = "lucius-sergius-catilina"  # insidiator, 3 votes
CLODIUS = "publius-clodius-pulcher"  # plebeius, 3 votes, 1 artisans
VATINIUS = "publius-vatinius"  # plebeius, 2 votes
LABIENUS = "titus-labienus"  # belligerator, 3 votes
ANTONIUS = "marcus-antonius"  # belligerator, 2 votes
OP, MP, IB = "orator-pontifex", "mercator-plebeius", "insidiator-belligerator"
CURIO = "gaius-scribonius-curio"  # orator-pontifex pile, cost orator 4
BIBULUS = "marcus-calpurnius-bibulus"
CATULUS = "quintus-lutatius-catulus"
PHILIPPUS = "lucius-marcius-philippus"  # priests + strategists; 3 PP for those + artisans
BALBUS = "lucius-cornelius-balbus"
GABINIUS = "aulus-gabinius"
DALMATICUS = "lucius-caecilius-metellus-dalmaticus"  # pontifex, raises the limit by 2


def new(families: int, seed: int = 0) -> CiceronState:
    return CiceronState.new(CARDS, families, {}, seed)


def servants(families: int = 3, princeps: str = "aemilii") -> Position:
    return Position(families).at("servants").princeps(princeps)


# -- Mise en place, Matériel ---------------------------------------------------------------
def test_setup_fifteen_legions_in_the_box_none_deployed() -> None:
    """Matériel: "15 Légions romaines"; Mise en place: "Placez à proximité du plateau de
    jeu les Légions": none is on the map before a legion card is played."""
    st = new(3)
    assert st.legions_left == 15 and set(st.legions.values()) == {0}


def test_setup_six_action_decks_of_eighteen_each_shuffled() -> None:
    """Matériel: "108 cartes Actions (18 par Caste)"; Mise en place: "Mélangez une à une
    les 6 pioches de cartes Actions"."""
    one, other = new(3, seed=1), new(3, seed=2)
    for caste in CASTES:
        deck = one.decks[caste]
        assert len(deck) == 18 and {CARDS.action(c).caste for c in deck} == {caste}
    assert any(one.decks[c] != other.decks[c] for c in CASTES)  # shuffled by the seed


def test_setup_white_senators_set_aside_red_ones_in_three_piles_by_icon() -> None:
    """Mise en place: "Les cartes Sénateurs à dos blanc sont mises de côté jusqu'au début
    de la partie. Les cartes Sénateurs à dos rouge sont réparties en 3 piles en fonction
    de leurs icônes"."""
    st = new(3)
    whites = {s.id for s in CARDS.white_senators}
    assert len(whites) == 12 and len(st.piles) == 3
    for pile, senators in st.piles.items():
        assert len(senators) == 36 and not whites & set(senators)
        assert {CARDS.senator(s).pile for s in senators} == {pile}


def test_setup_triumvirat_turn_one_cards_on_top() -> None:
    """Mise en place: "Constituez la pioche Triumvirat en regroupant les cartes par tour de
    jeu ... (les 3 cartes du tour I sur le dessus)"; phase V: one of "les trois cartes du
    tour en cours"."""
    st = Position(3).at("tribute", turn=1).princeps("aemilii").build()
    assert st.triumvirat == ["caesar-1", "crassus-1", "pompey-1"]
    st = Position(3).at("tribute", turn=4).princeps("aemilii").build()
    assert st.triumvirat == ["caesar-4", "crassus-4", "pompey-4"]


def test_setup_ciceron_deck_shuffled_face_down() -> None:
    """Mise en place: "Mélangez la pile de cartes Cicéron et placez-la face cachée": its
    9 cards in a seeded order that nobody sees."""
    orders = {tuple(new(3, seed=s).ciceron_deck) for s in range(4)}
    assert len(orders) > 1 and all(len(order) == 9 for order in orders)
    seen = new(3).observation(0)
    assert seen["ciceron_deck"] == 9 and seen["ciceron"] is None


def test_setup_majority_cards_beside_the_board_nobody_holds_one() -> None:
    """Mise en place: "Les cartes majorités Guildes et Castes sont placées à proximité du
    plateau" (12 caste cards: a Primus and a Secundus per caste; 6 guild cards)."""
    st = new(4)
    assert len(st.primus) == len(st.secundus) == 6 and len(st.guilds) == 6
    assert set(st.primus.values()) == set(st.secundus.values()) == {None}
    assert {g["holder"] for g in st.guilds.values()} == {None}


def test_cenacle_holds_at_most_four_senators_at_the_start() -> None:
    """Sénateurs et cénacles: "En début de partie, le cénacle de chacun des joueurs est
    composé au maximum de 4 Sénateurs"."""
    st = new(5)
    assert [st.cenacle_limit(s) for s in range(5)] == [4] * 5


def test_c_c2_seat_i_plays_the_i_th_family_board() -> None:
    """C-C2: seat i plays the i-th board of the card set, its home caste and influence."""
    st = new(5)
    assert st.seat_names() == [b.name for b in CARDS.families]
    st = Position(5).at("ciceron").princeps("aemilii").influence(
        **{b.name: {"rest": 0} for b in CARDS.families}).build()
    for seat, board in enumerate(CARDS.families):
        assert st.families[seat]["influence"] == {c: 2 if c == board.home else 0
                                                  for c in CASTES}


# -- Rome: the six zones, the six guilds -------------------------------------------------
ROME = {"curia-hostilia": "orator", "emporium": "mercator", "temple-of-jupiter": "pontifex",
        "subura": "insidiator", "circus-maximus": "plebeius", "exercitus": "belligerator"}


def test_rome_each_zone_is_its_castes() -> None:
    """Rome: "La Curie Hostilia ... les Oratores", "L'Emporium ... Mercatores", "Le Temple de
    Jupiter ... Pontifes", "Subure ... Insidiator", "Le Circus Maximus ... Plébéiens",
    "L'Exercitus ... Belligeratores": a lower spot gives +1 in its zone's caste."""
    for zone, caste in ROME.items():
        st = servants().influence(aemilii={"rest": 0}).build()
        play(st, f"place {zone}-lower")
        assert influence(st, "aemilii") == {c: int(c == caste) for c in CASTES}, zone
        assert [CARDS.action(c).caste for c in hand(st, "aemilii")] == [caste]


def test_the_six_guilds() -> None:
    """Guildes: artisans, assassins, diplomates, négociants, prêtres, stratèges."""
    assert GUILDS == ("artisans", "assassins", "diplomats", "traders", "priests",
                      "strategists")


# -- Début de partie ------------------------------------------------------------------------
def test_draft_the_white_senators_not_dealt_go_back_to_the_box() -> None:
    """Sélection: "Il en extrait aléatoirement [2 × joueurs] cartes et remet les autres dans
    la boîte": the other white senators never come into play."""
    st = new(2, seed=3)
    dealt = set(st.draft["packet"])
    while step(st) == "draft":
        play(st, legal(st)[0])
    drafted = {sid for fam in st.families for sid in fam["senators"]}
    assert drafted == dealt and len(drafted) == 4
    in_play = {sid for pile in st.piles.values() for sid in pile} | set(st.discarded)
    assert not in_play & {s.id for s in CARDS.white_senators}


def first_princeps(families: int, **cenacles: list[str]) -> CiceronState:
    return Position(families).at("first-princeps").senators(**cenacles).build()


def test_first_princeps_orator_tie_break_among_the_tied_families_only() -> None:
    """Premier Princeps: "En cas d'égalité, c'est le joueur ayant le plus de voix au sein
    de la Caste des Oratores": among the families tied for the most votes, not a family
    with fewer votes but more Orator votes."""
    st = first_princeps(3, aemilii=[CATILINA, LABIENUS], iulii=[CLODIUS, METELLUS],
                        cornelii=[HORTENSIUS, CATO])
    assert st.princeps == 1  # 6 = 6 (no orator: the oldest, C6); cornelii 5 with 5 orator


def test_c_c16_first_princeps_strictly_most_votes_not_half_of_all() -> None:
    """C-C16: "Si un joueur est strictement majoritaire" means more votes than each other
    family, not more than half of all votes."""
    st = first_princeps(4, aemilii=[HORTENSIUS, ATTICUS], iulii=[CATO, LUCULLUS],
                        cornelii=[LEPIDUS, VATINIUS], claudii=[ANTONIUS, METELLUS])
    assert st.princeps == 0  # 6 of 19 votes: less than half, still the Princeps
    assert of_kind(st.events, "princeps")[0]["how"] == "first election"


def test_c_c15_the_automatii_do_not_vote_for_the_first_princeps() -> None:
    """C-C15: the Automatii's 5 votes belong to phase I's election; the first Princeps is
    the family whose 2 senators have the most Senate votes."""
    st = first_princeps(2, aemilii=[HORTENSIUS, ATTICUS], iulii=[CATO, LUCULLUS])
    assert st.princeps == 0  # 6 against 4 (5 more to iulii would make it 9)
    assert of_kind(st.events, "princeps")[0]["votes"] == {"aemilii": 6, "iulii": 4}
    st = first_princeps(2, aemilii=[CATO, LUCULLUS], iulii=[HORTENSIUS, ATTICUS])
    assert st.princeps == 1  # 6 against 4 (5 more to aemilii would make it 9)


def test_c_c17_automatii_act_in_turn_one_after_the_first_princeps() -> None:
    """C-C17: "Au début de chaque tour, avant d'élire le Princeps" holds in turn 1 too: the
    first Princeps is named at the opening, then the three senators are revealed."""
    st = first_princeps(2, aemilii=[CATO, LUCULLUS], iulii=[HORTENSIUS, ATTICUS])
    kinds = [e.kind for e in st.events if e.kind in ("princeps", "automatii", "ciceron")]
    assert kinds == ["princeps", "automatii"] and st.turn == 1
    assert step(st) in ("secondary", "place")
    assert sum(holder == "automatii" for holder in st.spots.values()) >= 2


# -- I. Élection du Princeps -----------------------------------------------------------------
def test_election_automatii_votes_can_tie_and_the_outgoing_princeps_decides() -> None:
    """Règles à 2 joueurs: the Automatii's 5 votes go to the family with fewer PP; phase
    I: "En cas d'égalité, c'est le Princeps sortant qui décide du vainqueur"."""
    st = (Position(2).at("election", turn=2).princeps("aemilii").prestige(iulii=5)
          .senators(aemilii=[HORTENSIUS, ATTICUS], iulii=[VATINIUS]).build())
    play(st, "aemilii: vote aemilii", "iulii: vote iulii")
    assert st.election is not None and st.election["totals"] == {"aemilii": 6, "iulii": 7}
    assert st.princeps == 1
    st = (Position(2).at("election", turn=2).princeps("aemilii").prestige(iulii=5)
          .senators(aemilii=[HORTENSIUS, ATTICUS], iulii=[])
          .effects(iulii=["votes=1"]).build())
    play(st, "aemilii: vote aemilii", "iulii: vote iulii")
    assert step(st) == "elect" and mover(st) == "aemilii"  # 6 = 1 + 5
    play(st, "elect aemilii")
    assert st.princeps == 0


def prestige_power_set() -> CardSet:
    """The stand-in set with the traders' power turned into 3 PP at the turn's start."""
    text = resources.files("games.ciceron").joinpath("cards.toml").read_text("utf-8")
    power = 'traders = { kind = "influence", caste = "mercator", amount = 3 }'
    assert power in text
    return parse_card_set(text.replace(power, 'traders = { kind = "prestige", amount = 3 }'))


def test_c_c15_automatii_votes_go_by_the_prestige_at_the_count() -> None:
    """C-C15: the family with fewer PP when the votes are counted, after the guild powers
    of the turn's start (iulii: 8 PP, then 11 with its power; aemilii 10)."""
    st = (Position(2, cards=prestige_power_set()).at("turn", turn=2).princeps("aemilii")
          .prestige(iulii=8).guild_powers(iulii=["traders"])
          .senators(aemilii=[CATO], iulii=[HORTENSIUS]).build())
    assert prestige(st, "iulii") == 11
    while step(st) == "secondary":
        play(st, "gain")
    play(st, "aemilii: vote aemilii", "iulii: vote iulii")
    assert st.election is not None and st.election["totals"] == {"aemilii": 7, "iulii": 3}


def test_election_only_families_are_candidates_never_the_automatii() -> None:
    """Règles à 2 joueurs: the Automatii "contribuent au vote" but have no cénacle and
    score nothing: a family votes for one of the two families."""
    st = Position(2).at("election", turn=2).princeps("iulii").build()
    assert movers(st) == ["aemilii", "iulii"]
    assert legal(st, "aemilii") == ["vote aemilii", "vote iulii"]


# -- II. Accusation de Cicéron ----------------------------------------------------------------
def test_phase_two_a_new_ciceron_card_every_turn() -> None:
    """Phase II: "révélez la carte au sommet de la pioche des cartes Cicéron", each turn:
    the last turn's plea is put aside."""
    st = (Position(3).at("end", turn=1).princeps("aemilii").ciceron("in-verrem")
          .senators(aemilii=[HORTENSIUS]).draws("ciceron", "pro-murena").build())
    play(st, "aemilii: vote aemilii", "iulii: vote aemilii", "cornelii: vote aemilii")
    assert st.ciceron == "pro-murena" and st.ciceron_past == ["in-verrem"]
    assert len(st.ciceron_deck) == 7


# -- III. Pose des serviteurs -----------------------------------------------------------------
def test_senate_recruiting_always_costs_four_of_the_piles_two_influences() -> None:
    """Sénat: "rallier un Sénateur coûte toujours 4 influences, mais toutes les combinaisons
    sont possibles": each red senator's cost is 4 of its pile's two castes (C3), and every
    split of the two appears in each pile."""
    for pile in CARDS.piles:
        splits = set()
        for senator in CARDS.pile_senators(pile.id):
            assert sum(senator.cost.values()) == 4 and set(senator.cost) <= set(pile.castes)
            splits.add(senator.cost.get(pile.castes[0], 0))
        assert splits == {0, 1, 2, 3, 4}


def test_a_free_action_card_needs_no_influence() -> None:
    """Comment jouer une carte Action: "Dépensez autant d'influences qu'indiqué sur la carte
    (certaines sont gratuites)"."""
    assert CARDS.action("orator-15").cost == {}
    st = servants().influence(aemilii={"rest": 0}).hand(aemilii=["orator-15"]).build()
    play(st, "place curia-hostilia-upper")
    assert "play orator-15" in legal(st)
    play(st, "play orator-15")
    assert influence(st, "aemilii")["orator"] == 2 and "orator-15" in st.removed


def test_fifteen_spots_three_senate_and_two_per_zone() -> None:
    """Phase III: "un des 15 emplacements du plateau": the 3 Senate spots and the 12
    spots of the 6 zones (one above, one below)."""
    spots = spot_names(CARDS)
    assert len(spots) == 15
    assert sorted(s for s in spots if s.startswith("senate-")) == [
        f"senate-{p}" for p in sorted((OP, MP, IB))]
    levels = [s.rsplit("-", 1)[1] for s in spots if not s.startswith("senate-")]
    assert levels.count("upper") == levels.count("lower") == 6
    st = servants().build()
    assert len(legal(st)) == 15


def test_upper_spot_placer_must_take_the_influence() -> None:
    """Premier emplacement: "il augmente immédiatement de X l'influence": the placer may
    not skip the gain (only the card is optional)."""
    st = (servants().senators(aemilii=[HORTENSIUS]).influence(aemilii={"orator": 1})
          .hand(aemilii=["orator-15"]).build())
    play(st, "place curia-hostilia-upper")
    assert "done" not in legal(st) and legal(st) == ["gain", "play orator-15"]
    play(st, "play orator-15")
    assert influence(st, "aemilii")["orator"] == 5  # 1 + 2 (card) + 2 (X), taken anyway


def test_upper_spot_placer_plays_one_card_only() -> None:
    """Premier emplacement: "il peut aussi jouer une carte Action de cette Caste": one."""
    st = (servants().influence(aemilii={"orator": 5})
          .hand(aemilii=["orator-15", "orator-16"]).build())
    play(st, "place curia-hostilia-upper", "gain", "play orator-15")
    assert mover(st) == "iulii" and hand(st, "aemilii") == ["orator-16"]


def test_action_cards_are_played_only_at_an_upper_spot_of_their_caste() -> None:
    """Comment jouer une carte Action: "il faut bénéficier de l'action «Jouer une carte
    Action» de cette caste": not at a lower spot, not at another caste's zone."""
    st = servants().influence(aemilii={"rest": 5}).hand(aemilii=["orator-15"]).build()
    play(st, "place curia-hostilia-lower")
    assert not any(d.startswith("play") for d in legal(st))
    st = servants().influence(aemilii={"rest": 5}).hand(aemilii=["orator-15"]).build()
    play(st, "place emporium-upper")
    assert legal(st) == ["gain"]


def test_no_limit_to_the_action_cards_in_hand() -> None:
    """"Il n'y a pas de limite au nombre de cartes Action que le joueur a en main."""
    full = [f"orator-{n:02d}" for n in range(1, 13)]
    st = servants().hand(aemilii=full).deck("orator", "orator-13").build()
    play(st, "place curia-hostilia-lower")
    assert len(hand(st, "aemilii")) == 13 and "orator-13" in hand(st, "aemilii")


def test_c_c6_others_answer_an_upper_spot_clockwise_from_the_placer() -> None:
    """C-C6 (C12): "tous les autres joueurs, à leur tour": clockwise from the placer."""
    st = servants(4, princeps="cornelii").build()
    play(st, "place circus-maximus-upper", "gain", "done")
    answering = []
    while step(st) == "upper_other":
        answering.append(mover(st))
        play(st, "gain")
    assert answering == ["claudii", "aemilii", "iulii"]


def test_c_c6_others_answer_a_lower_spot_clockwise_from_the_placer() -> None:
    """C-C6 (C12): "tous les autres joueurs, chacun leur tour" at a lower spot."""
    st = servants(4, princeps="iulii").build()
    play(st, "place subura-lower")
    answering = []
    while step(st) == "secondary":
        answering.append(mover(st))
        play(st, "gain")
    assert answering == ["cornelii", "claudii", "aemilii"]


def test_senate_spot_others_recruit_from_their_own_two_cards_only() -> None:
    """Sénat: "Les autres joueurs piochent en même temps 2 cartes chacun et vont pouvoir
    ... rallier un de ces deux Sénateurs": not one of the placer's four."""
    st = (servants().influence(aemilii={"orator": 10, "pontifex": 10},
                               iulii={"orator": 10, "pontifex": 10})
          .draws("senator", CURIO, BIBULUS, CATULUS, PHILIPPUS, BALBUS, GABINIUS).build())
    play(st, f"place senate-{OP}", "done")
    assert mover(st) == "iulii"
    assert [d for d in legal(st) if d.startswith("recruit")] == [
        f"recruit {BALBUS}", f"recruit {GABINIUS}"]


def test_c_c14_extra_recruits_do_not_stack() -> None:
    """C-C14: a permanent extra recruit and one for the turn still give one more recruit."""
    st = (servants().permanents(aemilii=["mercator-17"]).effects(aemilii=["extra_recruit"])
          .influence(aemilii={"orator": 10, "pontifex": 10})
          .draws("senator", CURIO, BIBULUS, CATULUS, PHILIPPUS).build())
    play(st, f"place senate-{OP}")
    assert st.frames[-1]["most"] == 3
    play(st, f"recruit {CURIO}", f"recruit {BIBULUS}", f"recruit {CATULUS}")
    assert len(cenacle(st, "aemilii")) == 3 and mover(st) == "iulii"


# -- Les Légions romaines, V. Le Triumvirat ---------------------------------------------------
def test_c_c12_the_triumvirat_counts_legions_of_earlier_turns() -> None:
    """C-C12: "Il doit y avoir au moins N Légions déployées sur la carte": those deployed
    in earlier turns stay on the map and count; one played this turn adds to them."""
    st = (servants().influence(aemilii={"belligerator": 5}).legions(gallia=1)
          .hand(aemilii=["belligerator-09"]).triumvirat("crassus-1").build())
    play(st, "place exercitus-upper", "play belligerator-09", "reward prestige")
    assert st.legions == {**dict.fromkeys(CARDS.provinces, 0), "gallia": 1, "corsica": 1}
    while st.phase == "servants":
        play(st, legal(st)[0])
    while step(st) == "pay":
        play(st, "disgrace")
    met = of_kind(st.events, "triumvirat")
    assert met == [{"card": "crassus-1", "general": "crassus", "legions": 2, "province": None,
                    "deployed": 2, "met": True}]


def test_triumvirat_the_next_turn_offers_the_next_turns_cards() -> None:
    """Phase V: the Princeps draws "une des trois cartes du tour en cours (indiqué au dos
    des cartes)": each turn its own three."""
    st = Position(3).at("end", turn=2).princeps("aemilii").build()
    assert st.turn == 3 and st.triumvirat == ["caesar-3", "crassus-3", "pompey-3"]


# -- IV. Payer son tribut ---------------------------------------------------------------------
def test_tribute_two_of_the_four_symbols_only() -> None:
    """Phase IV: "dépensez 2 influences parmi les 4 proposées": a symbol shown once is paid
    once, a caste not shown cannot pay."""
    st = (Position(3).at("tribute", turn=2).princeps("aemilii").ciceron("in-verrem")
          .influence(aemilii={"rest": 10}).build())
    pays = [d for d in legal(st) if d.startswith("pay")]
    assert "pay insidiator insidiator" not in pays and "pay mercator mercator" not in pays
    assert all(set(d.split()[1:]) <= {"insidiator", "mercator", "belligerator"} for d in pays)


def test_c_c9_a_senator_given_as_tribute_leaves_with_the_cards_on_him() -> None:
    """C-C9: a senator discarded as tribute leaves the game with the cards lying on him."""
    st = (Position(3).at("tribute", turn=2).princeps("aemilii").ciceron("in-verrem")
          .senators(aemilii=[ATTICUS, HORTENSIUS])
          .attached(aemilii={ATTICUS: ["orator-09"]}).build())
    play(st, f"sacrifice {ATTICUS}")
    assert cenacle(st, "aemilii") == [HORTENSIUS] and st.families[0]["attached"] == {}
    assert "orator-09" in st.removed and ATTICUS in st.discarded
    assert st.senate_votes(0) == 3


def test_c_c9_giving_up_a_limit_raiser_forces_a_discard_down_to_the_limit() -> None:
    """Limite du cénacle: "si la limite de votre cénacle venait à diminuer ... vous soyez
    obligé de défausser"; C-C9: at once."""
    assert CARDS.senator(DALMATICUS).caste == "pontifex"  # In Verrem: mercator or pontifex
    six = [DALMATICUS, HORTENSIUS, CATO, CATILINA, LABIENUS, CLODIUS]
    st = (Position(3).at("tribute", turn=2).princeps("aemilii").ciceron("in-verrem")
          .senators(aemilii=six).build())
    assert st.cenacle_limit(0) == 6
    play(st, f"sacrifice {DALMATICUS}")
    assert step(st) == "trim" and mover(st) == "aemilii" and st.cenacle_limit(0) == 4
    play(st, f"discard {LABIENUS}")
    assert cenacle(st, "aemilii") == [HORTENSIUS, CATO, CATILINA, CLODIUS]
    assert mover(st) == "iulii"


# -- VI. Majorités -----------------------------------------------------------------------------
def test_c_c10_majorities_settled_caste_by_caste_then_guild_by_guild() -> None:
    """C-C10: castes in the book's order, each Primus then Secundus, then the guilds."""
    st = (Position(3).at("majorities", turn=2).princeps("aemilii")
          .senators(aemilii=[HORTENSIUS, LABIENUS], iulii=[CATO]).build())
    events = list(st.events)
    while step(st) in ("guild_choice", "award"):
        events += play(st, legal(st)[-1])
    cards = [e["card"] for e in of_kind(events, "majority")]
    assert cards == [f"{k}-{c}" for c in CASTES for k in ("primus", "secundus")] + [
        f"guild-{g}" for g in GUILDS]


def test_c_c10_a_family_tied_for_primus_and_not_chosen_takes_the_secundus() -> None:
    """Castes: "Le joueur qui est le plus influent ... la carte Primus ..., le deuxième de
    la carte Secundus"; the Princeps settles the tie, the other tied family is second."""
    st = (Position(3).at("majorities", turn=2).princeps("cornelii")
          .senators(aemilii=[HORTENSIUS], iulii=[CATILINA, senator_where(
              pile=OP, caste="orator", votes=3)], cornelii=[CATO]).build())
    assert step(st) == "award" and st.frames[-1]["card"] == "primus-orator"
    play(st, "award iulii")
    assert holder(st, "primus-orator") == "iulii" and holder(st, "secundus-orator") == "aemilii"


def test_guild_card_kept_until_lost_to_a_family_with_more_symbols() -> None:
    """Guildes: "Procédez de même pour les 6 Guildes": a guild card is kept until another
    family has more symbols, then it passes to that family."""
    st = (Position(3).at("majorities", turn=2).princeps("aemilii")
          .guilds(priests={"holder": "iulii", "choice": "prestige"})
          .senators(aemilii=[METELLUS, LEPIDUS], iulii=[]).build())
    assert holder(st, "guild-priests") == "aemilii"


def test_guild_power_chosen_gives_no_three_pp() -> None:
    """Phase VII: "3 PP par carte dont il a choisi de ne pas utiliser le pouvoir": none for
    a guild whose power was chosen."""
    st = Position(3).at("majorities", turn=2).princeps("aemilii").senators(
        iulii=[CLODIUS]).build()
    assert mover(st) == "iulii" and holder(st, "guild-artisans") == "iulii"
    play(st, "choose power")
    assert prestige(st, "iulii") == 10 + 6  # the plebeius Primus alone


# -- VII. Prestige ----------------------------------------------------------------------------
def test_prestige_senator_needs_every_guild_it_names_from_any_senators() -> None:
    """Phase VII (the book's example): the cénacle holds a symbol of each of the 3 guilds
    the senator asks for, brought by several senators: he scores his PP."""
    requires = CARDS.senator(PHILIPPUS).requires
    assert requires == {"priests": 1, "strategists": 1, "artisans": 1}
    st = (Position(3).at("prestige", turn=2).princeps("aemilii")
          .senators(aemilii=[PHILIPPUS, CLODIUS]).build())
    assert prestige(st, "aemilii") == 10 + CARDS.senator(PHILIPPUS).prestige
    st = (Position(3).at("prestige", turn=2).princeps("aemilii")
          .senators(aemilii=[PHILIPPUS, HORTENSIUS]).build())
    assert prestige(st, "aemilii") == 10  # no artisans symbol: nothing


def test_c_c8_a_patronage_card_on_a_senator_meets_a_prestige_requirement() -> None:
    """C-C8: a patronage card lying on a senator adds its guild symbol for the prestige
    phase (Cato asks 1 diplomats + 1 strategists and brings the diplomats)."""
    assert CARDS.senator(CATO).requires == {"diplomats": 1, "strategists": 1}
    assert CARDS.action("belligerator-18").effect.guild == "strategists"
    st = Position(3).at("prestige", turn=2).princeps("aemilii").senators(
        aemilii=[CATO]).build()
    assert prestige(st, "aemilii") == 10
    st = (Position(3).at("prestige", turn=2).princeps("aemilii").senators(aemilii=[CATO])
          .attached(aemilii={CATO: ["belligerator-18"]}).build())
    assert prestige(st, "aemilii") == 10 + CARDS.senator(CATO).prestige


def test_prestige_counts_cards_held_from_earlier_turns() -> None:
    """Phase VII: "les éventuelles majorités de ses cartes Castes": every Primus (6) and
    Secundus (3) held, whenever it was taken."""
    st = (Position(3).at("prestige", turn=3).princeps("aemilii")
          .primus(orator="iulii", mercator="iulii").secundus(pontifex="iulii").build())
    assert prestige(st, "iulii") == 10 + 6 + 6 + 3


# -- C-C7: guild powers -----------------------------------------------------------------------
def test_c_c7_a_family_with_several_guilds_uses_every_power() -> None:
    """C-C7: a family holding several guilds with their powers chosen uses each of them at
    the next turn's start."""
    st = (Position(3).at("turn", turn=2).princeps("aemilii")
          .influence(aemilii={"mercator": 0, "insidiator": 0}, iulii={"insidiator": 5})
          .guild_powers(aemilii=["traders", "assassins"]).build())
    assert influence(st, "aemilii")["mercator"] == 3  # traders: +3 mercator
    assert influence(st, "iulii")["insidiator"] == 3  # assassins: a tax of 2
    assert step(st) == "election"


def test_c_c7_priests_power_spares_the_next_turns_tribute() -> None:
    """C-C7 (stand-in priests: no tribute): the power chosen in phase VI holds during the
    next turn's phase IV."""
    st = (Position(3).at("turn", turn=3).princeps("aemilii").guild_powers(iulii=["priests"])
          .build())
    play(st, "aemilii: vote aemilii", "iulii: vote aemilii", "cornelii: vote aemilii")
    while st.phase == "servants":
        play(st, legal(st)[0])
    payers = []
    while step(st) == "pay":
        payers.append(mover(st))
        play(st, "disgrace")
    assert "iulii" not in payers and prestige(st, "iulii") == 10


# -- Règles spéciales pour 2 joueurs ----------------------------------------------------------
def test_two_families_automatii_leave_the_upper_spot_of_their_zone_free() -> None:
    """2 joueurs: "On place ensuite un Serviteur sur le deuxième emplacement de la zone":
    the first (upper) spot of that zone stays open."""
    st = (Position(2).at("turn").princeps("aemilii").pile(OP, CURIO)
          .pile(MP, senator_where(pile=MP, caste="mercator", votes=3))
          .pile(IB, senator_where(pile=IB, caste="insidiator", votes=3)).build())
    while step(st) == "secondary":
        play(st, "gain")
    assert "place curia-hostilia-lower" not in legal(st)
    assert "place curia-hostilia-upper" in legal(st)


def test_two_families_automatii_duplicate_with_an_empty_deck_gives_the_influence() -> None:
    """2 joueurs, cas particuliers: "récupèrent alors une influence ET piochent une carte";
    C12: an empty deck gives no card, the influence stays."""
    st = (Position(2).at("turn").princeps("aemilii")
          .influence(aemilii={"rest": 0}, iulii={"rest": 0}).deck("orator", exact=True)
          .pile(OP, CURIO).pile(MP, senator_where(pile=MP, caste="orator", votes=3))
          .pile(IB, senator_where(pile=IB, caste="insidiator", votes=3)).build())
    for family in ("aemilii", "iulii"):
        assert influence(st, family)["orator"] == 1 and hand(st, family) == []


def test_two_families_automatii_collect_nothing_and_hold_no_card() -> None:
    """2 joueurs: "Les Automatii ne marquent pas de Points de Prestige ... ne collectent pas
    d'influence, n'ont pas de cénacle": only the two families are scored."""
    st = (Position(2).at("majorities", turn=5).princeps("aemilii")
          .spots({"curia-hostilia-lower": "automatii"})
          .senators(aemilii=[HORTENSIUS]).build())
    play(st, "choose prestige")
    result = st.result()
    assert result is not None and len(result.scores) == 2 and len(st.families) == 2
    held = [*st.primus.values(), *st.secundus.values(),
            *(g["holder"] for g in st.guilds.values())]
    assert "automatii" not in held and st.primus["orator"] == 0


def test_each_family_announces_the_votes_it_casts() -> None:
    """Phase I: each family announces its total of votes, action cards included. The
    spectator's `election_votes` of every board, read while the votes are cast, add up
    (Automatii apart) to the totals the election then reveals."""
    import random

    import games

    checked = 0
    for seed in range(12):
        state = games.new_game("ciceron", "", 3, {}, seed)
        rng = random.Random(seed)
        announced: dict[str, int] = {}
        while not state.is_over:
            seat = state.to_move()[0]
            boards = state.observation(None)["boards"]
            decision = rng.choice(state.legal_decisions(seat))
            if decision.verb == "vote":
                announced[boards[seat]["family"]] = boards[seat]["election_votes"]
            events = state.apply(seat, decision)
            for event in events:
                if event.kind != "election":
                    continue
                expected = dict.fromkeys(event.data["totals"], 0)
                for voter, choice in event.data["votes"].items():
                    expected[choice] += announced[voter]
                assert expected == event.data["totals"]
                checked += 1
                announced = {}
    assert checked > 10
