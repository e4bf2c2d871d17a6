"""Municipium's `Game` descriptor: its static facts and entry points for the registry."""

from __future__ import annotations

from games.core import JSON, Decision, Event, Game, OptionSpec, Result, VariantSpec
from games.municipium import narration, svg
from games.municipium.board import DEFAULT_OPTIONS, OPTION_RANGES, VARIANTS
from games.municipium.state import MunicipiumState

_DESCRIPTIONS = {
    "classic": "the original rule book, 3-5 families",
    "revised": "the later edition, 2-4 families (Grande Famille, Temple power compulsory)",
}


class Municipium(Game):
    """Municipium (Reiner Knizia): every decision is public, chance is the bag and the deck."""

    name = "municipium"
    title = "Municipium"
    variants = tuple(VariantSpec(v.name, v.min_seats, v.max_seats, _DESCRIPTIONS[v.name])
                     for v in VARIANTS.values())
    options = tuple(OptionSpec(name, description, DEFAULT_OPTIONS[name], low, high)
                    for name, (description, low, high) in OPTION_RANGES.items())
    simultaneous = False
    private_information = False
    arrow_verbs = frozenset({"move", "reposition"})
    format_version = MunicipiumState.format_version
    seat_noun = "families"

    def new(self, variant: str, num_seats: int, options: JSON, seed: int) -> MunicipiumState:
        return MunicipiumState.new(variant, num_seats, options, seed)

    def load(self, data: JSON) -> MunicipiumState:
        return MunicipiumState.from_json(data)

    def from_observation(self, observation: JSON, seed: int) -> MunicipiumState:
        return MunicipiumState.from_observation(observation, seed)

    def describe_event(self, event: Event, decision: Decision | None) -> str | None:
        return narration.describe_event(event, decision)

    def describe_end(self, result: Result, options: JSON) -> str:
        return narration.describe_end(result.reason, options)

    def render_svg(self, observation: JSON) -> str:
        return svg.render_svg(observation)
