"""How the `curia` command shows a game: one line per decision with the events it caused,
then the final result, the same whether the game was played in this process (`PlayLog`)
or followed on the service (`print_updates`). The result is built as plain data
(`FinalResult`, from an engine state or from a `curia.v1` View) and printed by one
function, `print_result`. Game-specific sentences come from the game's descriptor
(`Game.describe_event`, `Game.describe_end`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TextIO

from curia_api.v1 import game_service_pb2 as pb
from games import GAMES, Decision, Event, GameState, Result
from games.core import JSON, notation, parse_notation

#: Where an event's sentence starts, under its decision line.
EVENT_INDENT = " " * 8


# ---------------------------------------------------------------------------------------
# Decision and event lines
# ---------------------------------------------------------------------------------------
def decision_line(*, turn: int, seat_name: str, text: str, note: str = "") -> str:
    """`turn seat decision`, the turn being "setup" before the first."""
    label = "setup" if turn == 0 else str(turn)
    return f"{label:>5} {seat_name:<7} {text}{note}"


def event_lines(*, game: str, events: Iterable[Event], decision: Decision | None) -> list[str]:
    """The game's sentence for each event that has one, indented under its decision."""
    descriptor = GAMES.get(game)
    lines = []
    for event in events:
        text = (descriptor.describe_event(event, decision) if descriptor is not None
                else event.kind)  # a game this client does not know: its event kinds
        if text:
            lines.append(f"{EVENT_INDENT}{text}")
    return lines


class PlayLog:
    """Prints a game played in this process: a header, then a line per decision and a
    line per public event it caused (hooks of `arena.local.play_game`)."""

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.names: list[str] = []
        self.turn = 0

    def header(self, state: GameState, *, variant: str, seed: int,
               players: Sequence[str]) -> None:
        """The game, its seed and who sits where, then the sentences of its creation."""
        self.names = state.seat_names()
        seated = ", ".join(f"{name}={player}"
                           for name, player in zip(self.names, players, strict=True))
        self._print([f"{state.game} {variant}, seed {seed}: {seated}",
                     *event_lines(game=state.game, events=_public(state.events),
                                  decision=None)])

    def before(self, state: GameState, seat: int) -> None:
        self.turn = state.turn_number()

    def step(self, state: GameState, seat: int, decision: Decision,
             events: list[Event]) -> None:
        self._print([decision_line(turn=self.turn, seat_name=self.names[seat],
                                   text=notation(decision)),
                     *event_lines(game=state.game, events=_public(events),
                                  decision=decision)])

    def _print(self, lines: list[str]) -> None:
        for line in lines:
            print(line, file=self.out)


def _public(events: Iterable[Event]) -> list[Event]:
    return [event for event in events if event.visible_to(None)]


def print_updates(updates: Iterable[pb.WatchGameResponse], out: TextIO) -> pb.View:
    """Print a WatchGame stream as `PlayLog` prints a game, line by line; return the last
    view."""
    view = pb.View()
    turn = 0
    for update in updates:
        if update.rolled_back:
            print(f"-- the server lost later versions (its store rolled back): the game "
                  f"goes on from version {update.version} --", file=out, flush=True)
        if update.HasField("decision"):
            recorded = update.decision
            names = list(update.view.seat_names)
            text = "(a secret decision)" if recorded.secret else recorded.notation
            lines = [decision_line(turn=turn, seat_name=names[recorded.seat],
                                   text=text, note=_cause_note(recorded.cause)),
                     *event_lines(game=update.view.game, events=_events_of(update),
                                  decision=None if recorded.secret
                                  else parse_notation(recorded.notation))]
            print("\n".join(lines), file=out, flush=True)
        view = update.view
        turn = view.turn
    return view


def _cause_note(cause: int) -> str:
    """Nothing for a seat's own decision, else why the server took it, e.g. (timeout)."""
    if cause == pb.DECISION_CAUSE_SEAT:
        return ""
    return f"  ({pb.DecisionCause.Name(cause).split('_')[-1].lower()})"


def _events_of(update: pb.WatchGameResponse) -> list[Event]:
    return [Event(message.kind, json.loads(message.data_json)) for message in update.events]


# ---------------------------------------------------------------------------------------
# The final result
# ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Standing:
    """One seat's final standing."""

    name: str
    #: Who played the seat (a bot's name); "" when not known.
    player: str
    #: The figures the game ranks by, most important first.
    figures: tuple[tuple[str, object], ...]
    forfeited: bool = False
    #: Why it forfeited (SeatScore.forfeit_reason: "time", a resignation's words); "".
    forfeit_reason: str = ""


@dataclass(frozen=True)
class FinalResult:
    """A finished game, whichever way it was played, as `print_result` shows it."""

    #: Why the game ended, as the game says it.
    reason: str
    #: Groups of tied seats, best first.
    ranking: tuple[tuple[int, ...], ...]
    #: Per seat, in seat order.
    standings: tuple[Standing, ...]
    #: The game's turn at the end (0: the game does not count turns).
    turns: int
    decisions: int
    #: What `turns` counts, in the game's words (`Game.turn_unit`: "turns", "rounds").
    turn_unit: str = "turns"


def end_sentence(game: str, result: Result, options: JSON) -> str:
    """The game's sentence for why it ended (the bare reason for a game not known here)."""
    descriptor = GAMES.get(game)
    return descriptor.describe_end(result, options) if descriptor is not None else result.reason


def final_of_state(state: GameState, *, players: Sequence[str],
                   decisions: int) -> FinalResult | None:
    """The final result of a game played in this process (None if it is not over)."""
    result = state.result()
    if result is None:
        return None
    names = state.seat_names()
    standings = tuple(Standing(names[seat], players[seat], tuple(result.scores[seat].items()))
                      for seat in range(state.num_seats))
    return FinalResult(end_sentence(state.game, result, state.options), result.ranking,
                       standings, state.turn_number(), decisions, turn_unit(state.game))


def final_of_view(view: pb.View, *, options: JSON,
                  players: Sequence[str] = ()) -> FinalResult | None:
    """The final result in a view of the service (None if the game is not over);
    `options` are the game's (from its record), for the end sentence."""
    if not view.HasField("result"):
        return None
    names = list(view.seat_names)
    scores = sorted(view.result.scores, key=lambda score: score.seat)
    figures = [tuple((f.name, f.value) for f in score.ordered_figures) for score in scores]
    result = Result(tuple(tuple(group.seats) for group in view.result.ranking),
                    tuple(dict(pairs) for pairs in figures), view.result.reason)
    standings = tuple(
        Standing(names[score.seat], players[score.seat] if players else "", pairs,
                 score.forfeited, score.forfeit_reason)
        for score, pairs in zip(scores, figures, strict=True))
    return FinalResult(end_sentence(view.game, result, options), result.ranking, standings,
                       view.turn, view.version, turn_unit(view.game))


def turn_unit(game: str) -> str:
    descriptor = GAMES.get(game)
    return descriptor.turn_unit if descriptor is not None else "turns"


def result_lines(final: FinalResult | None, *, reasons: bool = False) -> list[str]:
    """The end sentence, the ranking (ties share a rank, marked '='), each seat's figures
    (with why a seat forfeited, if `reasons`), and the game's length."""
    if final is None:
        return ["the game did not finish"]
    lines = [f"result: {final.reason}"]
    with_players = any(standing.player for standing in final.standings)
    place = 1
    for group in final.ranking:
        mark = "=" if len(group) > 1 else "."
        for seat in group:
            lines.append(_standing_line(f"{place}{mark}", final.standings[seat], reasons,
                                        with_players))
        place += len(group)
    turns = f"{final.turns} {final.turn_unit}, " if final.turns else ""
    lines.append(f"game length: {turns}{final.decisions} decisions")
    return lines


def _standing_line(rank: str, standing: Standing, reasons: bool, with_players: bool) -> str:
    player = f" {standing.player:<7}" if with_players else ""
    figures = ", ".join(f"{name.replace('_and_', '+').replace('_', ' ')} {value}"
                        for name, value in standing.figures)
    lost = ""
    if standing.forfeited:
        why = standing.forfeit_reason[:80] if reasons else ""
        lost = f"  (forfeited: {why})" if why else "  (forfeited)"
    return f"  {rank} {standing.name:<7}{player} {figures}{lost}"


def print_result(final: FinalResult | None, out: TextIO) -> None:
    """Print a game's final result: the one way every path shows it."""
    print("\n".join(result_lines(final)), file=out, flush=True)
