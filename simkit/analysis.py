"""The analysis functions, in their public home: statistics on the tables that
``simkit.simulate`` returns and that a run folder holds (``simkit.read_run``).

    >>> import simkit
    >>> from simkit import analysis
    >>> res = simkit.simulate("rabbit-hunt", 2, 2_000, seed=1, strategies="heuristic,random")
    >>> analysis.seat_outcomes(res.games, res.meta)           # wins, ties, losses by seat
    >>> analysis.first_player_advantage(res.games, res.meta)
    >>> analysis.item_value(res.games, res.meta, res.items, by_strategy=True)
    >>> print(analysis.summary_text(res.games, res.meta, res.items))
    >>> traced = simkit.simulate("rabbit-hunt", 2, 2_000, trace_turns=500)
    >>> analysis.feel(traced)["decided_at"]                     # docs/metrics.md

Every function takes a games table (a row per game; seats are numbered 1 to P in its
columns: ``rank_s1``, ``strategy_s1``, ...) and the run's ``meta`` (run.json as a dict, or
None), and returns a DataFrame; every interval is 95%. The definitions (outright win, tie,
score share, first-player advantage, item value) are in ``docs/statistics.md``; the
implementation lives in ``simkit.reports``, the first stage of the report pipeline.
"""

from simkit.reports.analysis import (
    compare_runs,
    endings,
    first_player_advantage,
    game_length,
    item_counts,
    item_kind,
    item_name,
    item_value,
    mean_ci,
    scores,
    seat_outcomes,
    strategy_outcomes,
    team_outcomes,
    wilson,
)
from simkit.reports.summary import summary_dict, summary_text
from simkit.reports.verdict import (
    DEFAULT_FAIR,
    Verdict,
    item_verdicts,
    seat_verdict,
    strategy_verdict,
    whatif_verdicts,
)


def feel(result, trace=None) -> dict:
    """How the game of a ``RunResult`` (``simkit.simulate`` or ``simkit.read_run``) plays:
    branching, forced moves, timeouts, and for its traced games decisiveness, lead changes,
    drama, comebacks, stalls, the leader's AUC and uncertainty, each with its 95% interval
    (``docs/metrics.md``). ``trace``: a trace table or trace.parquet's path, if not the
    result's own."""
    from simkit.reports.feel import FeelTally

    return FeelTally.from_tables(result.games, result.meta,
                                 result.trace if trace is None else trace).metrics(
        result.meta.get("master_seed") or 0)


__all__ = [
    "DEFAULT_FAIR",
    "Verdict",
    "compare_runs",
    "endings",
    "feel",
    "first_player_advantage",
    "game_length",
    "item_counts",
    "item_kind",
    "item_name",
    "item_value",
    "item_verdicts",
    "mean_ci",
    "scores",
    "seat_outcomes",
    "seat_verdict",
    "strategy_outcomes",
    "strategy_verdict",
    "summary_dict",
    "summary_text",
    "team_outcomes",
    "wilson",
    "whatif_verdicts",
]
