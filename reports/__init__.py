"""simkit's analysis and report pipeline: result tables -> statistics -> figures -> HTML/Markdown.

Reports read run folders (``games.parquet``, ``items.parquet``, ``run.json``) and never run
games. ``reports.analysis`` computes the tables, ``reports.figures`` draws them and
``reports.build`` writes a self-contained report folder.
"""

from simkit.reports.analysis import (
    compare_runs,
    endings,
    first_player_advantage,
    game_length,
    item_value,
    seat_win_rates,
    strategy_win_rates,
    summary_text,
)

__all__ = [
    "compare_runs",
    "endings",
    "first_player_advantage",
    "game_length",
    "item_value",
    "seat_win_rates",
    "strategy_win_rates",
    "summary_text",
    "build_report",
    "build_whatif_report",
]


def __getattr__(name):
    # build pulls in matplotlib; import it only when asked for
    if name in ("build_report", "build_whatif_report"):
        from simkit.reports import build

        return getattr(build, name)
    raise AttributeError(name)
