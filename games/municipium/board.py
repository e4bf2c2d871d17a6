"""Municipium's static data: Institutions, streets (M1), citizens, cards and variants."""

from __future__ import annotations

from dataclasses import dataclass

INSTITUTIONS = ("temple", "tavern", "baths", "emporium", "basilica", "forum", "praetorium")
TEMPLE, TAVERN, BATHS, EMPORIUM, BASILICA, FORUM, PRAETORIUM = range(7)
INSTITUTION_INDEX = {name: i for i, name in enumerate(INSTITUTIONS)}

#: M1: the numbered Institutions form a ring I-VI, the Temple joins Tavern, Emporium, Forum.
STREETS: tuple[tuple[int, int], ...] = (
    (TAVERN, BATHS), (BATHS, EMPORIUM), (EMPORIUM, BASILICA), (BASILICA, FORUM),
    (FORUM, PRAETORIUM), (PRAETORIUM, TAVERN),
    (TEMPLE, TAVERN), (TEMPLE, EMPORIUM), (TEMPLE, FORUM),
)


def neighbours_of(streets: tuple[tuple[int, int], ...]) -> tuple[tuple[int, ...], ...]:
    """Adjacency lists of a street map."""
    adjacent: list[list[int]] = [[] for _ in INSTITUTIONS]
    for a, b in streets:
        adjacent[a].append(b)
        adjacent[b].append(a)
    return tuple(tuple(sorted(n)) for n in adjacent)


NEIGHBOURS = neighbours_of(STREETS)

COLOURS = ("priest", "militia", "merchant", "advocate")
PRIEST, MILITIA, MERCHANT, ADVOCATE = range(4)
COLOUR_INDEX = {name: i for i, name in enumerate(COLOURS)}
FAVOUR = "favour"

#: M13: where a citizen of each colour may be placed.
PLACES_FOR: tuple[tuple[int, ...], ...] = (
    tuple(range(7)),                # priest: any Institution, Temple included
    (TAVERN, PRAETORIUM),           # militia
    (BATHS, EMPORIUM),              # merchant
    (BASILICA, FORUM),              # advocate
)

#: The citizen on each Institution's banner at setup (M3: it counts as a citizen there).
BANNERS = (PRIEST, MILITIA, MERCHANT, MERCHANT, ADVOCATE, ADVOCATE, MILITIA)

#: M2: the Praefect's route, clockwise I..VI, starting at the Basilica.
PRAEFECT_START = BASILICA
MEETING_ROOMS = (TAVERN, BATHS, EMPORIUM, BASILICA, FORUM, PRAETORIUM)


def next_room(inst: int) -> int:
    """The meeting room the Praefect visits after `inst` (M2)."""
    return TAVERN if inst == PRAETORIUM else inst + 1


#: Every family colour of either edition (001: five; 003: four, no black).
FAMILIES = ("blue", "orange", "yellow", "black", "pink")

# Cards
PRAEFECT_VISIT, CITIZEN_VISIT, ONE_POWER, ALL_POWERS = (
    "praefect-visit", "citizen-visit", "one-power", "all-powers")
COMMON_DECK = (ALL_POWERS,) + (ONE_POWER,) * 2 + (PRAEFECT_VISIT,) * 5 + (CITIZEN_VISIT,) * 4
YOUR_POWERS, PRAEFECT, INVITATIONS, GRANDE_FAMILLE = (
    "powers", "praefect", "invitations", "grande-famille")


@dataclass(frozen=True)
class Variant:
    """The numbers and switches that differ between rule sets (see rulings table)."""

    name: str
    families: tuple[str, ...]
    min_seats: int
    max_seats: int
    citizens_per_colour: int
    favours: int
    wreaths: int
    family_cards: tuple[str, ...]
    temple_power_compulsory: bool
    temple_order_during_setup: bool
    reposition_all: bool
    favours_break_ties: bool

    def meeting_room_citizens(self, seats: int) -> bool:
        """Whether the meeting rooms hold a citizen (revised, 2 families: no)."""
        return not (self.name == "revised" and seats == 2)


VARIANTS = {
    "classic": Variant("classic", FAMILIES, 3, 5, 20, 20, 13, (YOUR_POWERS, PRAEFECT, INVITATIONS),
                       temple_power_compulsory=False, temple_order_during_setup=True,
                       reposition_all=True, favours_break_ties=True),
    "revised": Variant("revised", ("blue", "orange", "yellow", "pink"), 2, 4, 15, 15, 10,
                       (YOUR_POWERS, GRANDE_FAMILLE, INVITATIONS),
                       temple_power_compulsory=True, temple_order_during_setup=False,
                       reposition_all=False, favours_break_ties=False),
}

MEMBERS_PER_FAMILY = 7
DEFAULT_OPTIONS = {"target_decurions": 5, "max_turns": 600}
#: name -> (description, smallest, largest) of each option.
OPTION_RANGES = {
    "target_decurions": ("Decurions that end the game: 5, or 4 for the short game", 4, 5),
    "max_turns": ("safety limit on turns; the game is then ranked as it stands",
                  1, 10_000),
}
