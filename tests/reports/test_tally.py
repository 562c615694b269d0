"""The summary ``simkit run`` prints from the counts kept while it played (``Tally``) is the
summary of its run folder: the same text, and the same figures up to the order of sums."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pytest
from simkit.reports import analysis as A
from simkit.reports.build import load_run
from simkit.reports.summary import summary_dict, summary_text
from simkit.reports.tally import _hist_stats

from simkit import registry
from simkit.runner import RunSpec, run_games

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "fixtures"))
from dice_duel import GAME as DUEL  # noqa: E402

registry.register_game(DUEL)


def assert_same_figures(a, b, where=""):
    """Equal, floats to 1e-9 relative (the tally sums in another order)."""
    if isinstance(a, dict):
        assert a.keys() == b.keys(), where
        for k in a:
            assert_same_figures(a[k], b[k], f"{where}/{k}")
    elif isinstance(a, list):
        assert len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            assert_same_figures(x, y, f"{where}[{i}]")
    elif isinstance(a, float) or isinstance(b, float):
        assert a == b or math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12), (where, a, b)
    else:
        assert a == b, (where, a, b)


CASES = [
    # ties, team wins and three-way ties (shares of 1/3); seats fixed and rotating
    ("dice-duel", 2, "random", {}, False),
    ("dice-duel", 3, "random", {"faces": [2, 2, 2, 2]}, True),
    ("dice-duel", 4, "random", {"faces": [2, 2, 2, 2]}, True),
    ("dice-duel", 2, "random", {"max_turns": 1}, True),  # every game a timeout
    # three strategies rotating, item events by strategy
    ("pig", 3, "hold-at,random,first", {}, True),
    ("connect-four", 2, "win-block,random", {}, True),
]


@pytest.mark.parametrize("game,players,strategies,overrides,rotate", CASES)
def test_summary_from_the_tally_is_the_run_folders(tmp_path, game, players, strategies,
                                                   overrides, rotate):
    run = RunSpec.make(game, players, 2_500, seed=7, strategies=strategies,
                       overrides=overrides, rotate=rotate)
    res = run_games(run, out=tmp_path / "run", workers=2, chunk_size=700, tally=True)
    assert len(res.tally) == 2_500
    folder = load_run(tmp_path / "run")
    from_folder = summary_text(folder.games, folder.meta, folder.items_path)
    assert summary_text(res.tally, res.meta) == from_folder
    assert_same_figures(summary_dict(res.tally, res.meta),
                        summary_dict(folder.games, folder.meta, folder.items_path))


def test_tally_counts_exactly(tmp_path):
    run = RunSpec.make("pig", 3, 1_000, seed=2, strategies="hold-at,random,first")
    res = run_games(run, out=tmp_path / "run", workers=1, chunk_size=300, tally=True)
    folder = load_run(tmp_path / "run")
    t = res.tally.tables(res.meta)
    for key, frame in (("seats", A.seat_outcomes(folder.games, folder.meta)),
                       ("endings", A.endings(folder.games, folder.meta))):
        cols = ["wins", "ties", "losses"] if key == "seats" else ["count"]
        assert [[r[c] for c in cols] for r in t[key]] == frame[cols].to_numpy().tolist()
    for key, frame in (("seats", A.seat_outcomes), ("teams", A.team_outcomes),
                       ("strategies", A.strategy_outcomes), ("fpa", A.first_player_advantage),
                       ("scores", A.scores), ("length", A.game_length)):
        assert [list(r) for r in t[key]] == [list(frame(folder.games, folder.meta).columns)] * \
            len(t[key]), f"{key}: analysis' columns in its order"
    counts = A.item_counts(folder.items_path, folder.games, folder.meta, by_strategy=True)
    assert res.tally.item_counts(by_strategy=True) == counts.to_dict("records")


def test_a_run_with_its_summary_imports_no_pandas(tmp_path):
    """The summary at the end of `simkit run` comes from the tally: no pandas, no scipy.stats,
    no statsmodels, no matplotlib in the process."""
    import subprocess

    code = (f"import sys; sys.path.insert(0, {str(Path(__file__).parents[2] / 'examples')!r})\n"
            "from pig_game import GAME\nfrom simkit import registry\n"
            "registry.register_game(GAME)\nfrom simkit.cli import main\n"
            f"main(['run', 'pig', '--players', '2', '--games', '300', '--out', "
            f"{str(tmp_path / 'run')!r}], standalone_mode=False)\n"
            "heavy = [m for m in ('pandas', 'scipy.stats', 'statsmodels', 'matplotlib') "
            "if m in sys.modules]\nprint('HEAVY', heavy)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert "pig (version" in out and "Verdict" in out
    assert "HEAVY []" in out


def test_no_tally_unless_asked(tmp_path):
    res = run_games(RunSpec.make("pig", 2, 50, seed=1), out=tmp_path / "run", workers=1)
    assert res.tally is None


@pytest.mark.parametrize("seed", range(5))
def test_length_from_a_histogram_is_numpys(seed):
    rng = np.random.default_rng(seed)
    x = rng.integers(1, 60, rng.integers(1, 3000)) * rng.integers(1, 3)
    got = _hist_stats(np.bincount(x))
    q = np.quantile(x.astype(float), list(A._QUANTILES.values()))
    assert [got[k] for k in A._QUANTILES] == q.tolist()
    assert (got["min"], got["max"], got["mean"]) == (x.min(), x.max(), x.mean())
    if len(x) > 1:
        assert got["sd"] == pytest.approx(x.std(ddof=1), rel=1e-12)
