"""Leges' `Game` descriptor: its static facts and entry points for the registry."""

from __future__ import annotations

from functools import cached_property

from games.card_files import chosen_card_text
from games.core import JSON, Decision, Event, Game, Result, VariantSpec
from games.leges import narration, svg
from games.leges.cardset import (
    CARDS_ENV,
    DEFAULT_CARDS,
    CardSet,
    card_set_from_env,
    parse_card_set,
)
from games.leges.observation import state_from_observation
from games.leges.state import LegesState


class Leges(Game):
    """Leges: campaign Themes chosen face down at the same time, four societal Values on
    a track, Laws bought with the points of their colour. The cards come from a card set
    file (ruling L3; `CURIA_LEGES_CARDS`)."""

    name = "leges"
    title = "Leges"
    turn_unit = "rounds"  # 3 a season
    variants = (VariantSpec("standard", 2, 5,
                            "2-5 players; 4 seasons of 3 rounds (3 seasons with 5)"),)
    options = ()
    simultaneous = True
    private_information = True
    format_version = LegesState.format_version
    has_card_set = True
    seat_noun = "players"

    @cached_property
    def cards(self) -> CardSet:
        """The card set, read once (the packaged stand-in unless the host names another)."""
        return card_set_from_env()

    def card_set_text(self, path: str | None = None) -> str:
        return chosen_card_text(CARDS_ENV, "games.leges", DEFAULT_CARDS, path, parse_card_set)

    def new(self, variant: str, num_seats: int, options: JSON, seed: int) -> LegesState:
        return LegesState.new(self.cards, num_seats, options, seed)

    def load(self, data: JSON) -> LegesState:
        return LegesState.from_json(data, self.cards)

    def from_observation(self, observation: JSON, seed: int) -> LegesState:
        return state_from_observation(LegesState, self.cards, observation, seed)

    def describe_event(self, event: Event, decision: Decision | None) -> str | None:
        return narration.describe_event(event, decision)

    def describe_end(self, result: Result, options: JSON) -> str:
        return ("the last season is over: most VP of visible Laws wins, then most VP in "
                "one colour; players still equal share the place")

    def describe_moment(self, observation: JSON) -> str:
        return (f"Season {observation.get('season', 1)} of {observation.get('seasons', 4)}, "
                f"round {observation.get('round', 1)} of {observation.get('rounds', 3)}")

    def render_svg(self, observation: JSON) -> str:
        digest = (observation.get("card_set") or {}).get("digest")
        return svg.render_svg(observation, self.cards if digest == self.cards.digest else None)
