"""The workbench's "ask": what a strategy would play at a decision and how it rates each
legal move, from the deciding seat's observation only (``simkit.advise``), for a live
game (``simkit.serve.table``) or a decision of a run's replay."""

from __future__ import annotations

import time

from simkit import registry
from simkit.errors import SimkitError


def _advise():
    try:
        from simkit import advise
    except ImportError:  # the advice function is not in this build of simkit
        raise SimkitError("advice needs simkit.advise, which this simkit does not have") \
            from None
    return advise


def advice_doc(a, seconds: float) -> dict:
    """An ``Advice`` as the page shows it: the move, then every legal move's rating."""
    return {"seat": f"P{a.seat + 1}", "strategy": a.strategy, "move": a.move,
            "label": a.label, "played": a.played, "seconds": round(seconds, 3),
            "ratings": [{"move": r.move, "label": r.label, "visits": r.visits,
                         "mean_reward": r.mean_reward, "value": r.value,
                         "chosen": r.move == a.move} for r in a.ratings]}


def default_strategy(game: str) -> str:
    """The strategy asked when the page names none: the game's strong player."""
    return registry.strong_strategy(game)


def ask_table(table, observation, seat: int, strategy: str | None) -> dict:
    """Advice for ``seat`` of a live table, from its ``observation`` alone."""
    advise = _advise()
    start = time.perf_counter()
    a = advise.advice(table.game, observation, seat, strategy or default_strategy(table.game),
                      players=table.players, overrides=table.overrides or None)
    return advice_doc(a, time.perf_counter() - start)


def ask_replay(folder, game_index: int, decision: int, strategy: str | None) -> dict:
    """Advice at decision ``decision`` of game ``game_index`` of a run folder, from the
    observation of the seat that moved there (even though the replay shows everything)."""
    advise = _advise()
    start = time.perf_counter()
    a = advise.advice_at(folder, game_index, decision, strategy)
    return advice_doc(a, time.perf_counter() - start)
