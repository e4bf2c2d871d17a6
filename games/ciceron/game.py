"""Cicéron's `Game` descriptor: its static facts and entry points for the registry."""

from __future__ import annotations

from functools import cached_property

from games.card_files import chosen_card_text
from games.ciceron import narration, svg
from games.ciceron.cardset import (
    CARDS_ENV,
    DEFAULT_CARDS,
    CardSet,
    card_set_from_env,
    parse_card_set,
)
from games.ciceron.observation import state_from_observation
from games.ciceron.state import CiceronState
from games.core import JSON, Decision, Event, Game, Result, VariantSpec


class Ciceron(Game):
    """Cicéron (François Delbosc): secret simultaneous Princeps votes, private hands and
    draws. The cards come from a card set file (ruling C3; `CURIA_CICERON_CARDS`)."""

    name = "ciceron"
    title = "Cicéron"
    variants = (VariantSpec("standard", 2, 5,
                            "2-5 families; 2 families play with the Automatii"),)
    options = ()
    simultaneous = True
    private_information = True
    format_version = CiceronState.format_version
    has_card_set = True
    seat_noun = "families"

    @cached_property
    def cards(self) -> CardSet:
        """The card set, read once (the packaged stand-in unless the host names another)."""
        return card_set_from_env()

    def card_set_text(self, path: str | None = None) -> str:
        return chosen_card_text(CARDS_ENV, "games.ciceron", DEFAULT_CARDS, path, parse_card_set)

    def new(self, variant: str, num_seats: int, options: JSON, seed: int) -> CiceronState:
        return CiceronState.new(self.cards, num_seats, options, seed)

    def load(self, data: JSON) -> CiceronState:
        return CiceronState.from_json(data, self.cards)

    def from_observation(self, observation: JSON, seed: int) -> CiceronState:
        return state_from_observation(CiceronState, self.cards, observation, seed)

    def describe_event(self, event: Event, decision: Decision | None) -> str | None:
        return narration.describe_event(event, decision)

    def describe_end(self, result: Result, options: JSON) -> str:
        return "the last turn's prestige phase is over: equal prestige shares a place"

    def describe_moment(self, observation: JSON) -> str:
        turn = observation.get("turn")
        if not isinstance(turn, int) or turn == 0:
            return "The draft"
        return f"Turn {turn} of {observation.get('turns', '?')}"

    def render_svg(self, observation: JSON) -> str:
        return svg.render_svg(observation)
