"""The analysis functions, in their public home: statistics on the tables that
``simkit.simulate`` returns and that a run folder holds (``simkit.read_run``).

    >>> import simkit
    >>> from simkit import analysis
    >>> res = simkit.simulate("rabbit-hunt", 2, 2_000, seed=1, strategies="heuristic,random")
    >>> analysis.seat_win_rates(res.games, res.meta)          # doctest: +SKIP

Every function takes a games table (a row per game; seats are numbered 1 to P in its
columns: ``rank_s1``, ``strategy_s1``, ...) and the run's ``meta`` (run.json as a dict, or
None), and returns a DataFrame. The definitions are in ``docs/statistics.md``; the
implementation lives in ``simkit.reports.analysis``, the first stage of the report pipeline.
"""

from simkit.reports.analysis import (
    compare_runs,
    endings,
    first_player_advantage,
    game_length,
    item_counts,
    item_value,
    seat_win_rates,
    strategy_win_rates,
    summary_text,
    wilson,
)

__all__ = [
    "compare_runs",
    "endings",
    "first_player_advantage",
    "game_length",
    "item_counts",
    "item_value",
    "seat_win_rates",
    "strategy_win_rates",
    "summary_text",
    "wilson",
]
