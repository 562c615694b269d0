"""Run folders of the old layout (schema 1: seats counted from 0) stay readable, and read
exactly as the same run written today."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from simkit.reports.analysis import compare_runs, seat_outcomes
from simkit.reports.build import build_report, build_whatif_report, load_run

import simkit
from simkit.errors import SimkitError
from simkit.registry import get_game
from simkit.results import SCHEMA_VERSION, read_meta
from simkit.runner import RunSpec, run_games

FIXTURES = Path(__file__).parent / "fixtures"
OLD = {"avalon": FIXTURES / "run-v1-avalon", "rabbit-hunt": FIXTURES / "run-v1-rabbit-hunt-4p"}


def _replayed(folder: Path):
    """The old run's games played again by today's simkit, if its rules are unchanged."""
    meta = json.loads((folder / "run.json").read_text())
    if get_game(meta["game"]).version != meta["game_version"]:
        pytest.skip(f"{meta['game']} changed version since the fixture was written "
                    f"({meta['game_version']} -> {get_game(meta['game']).version})")
    spec = meta["run_spec"]
    run = RunSpec.make(spec["game"], spec["players"], spec["games"], spec["seed"],
                       spec["strategies"], dict(spec["overrides"]), spec["rotate"])
    return run_games(run, workers=1)


@pytest.mark.parametrize("game", sorted(OLD))
def test_an_old_run_reads_as_the_same_run_written_today(game):
    old = simkit.read_run(OLD[game])
    assert old.meta["schema_version"] == 1
    players = old.meta["players"]
    assert "rank_s0" not in old.games.columns
    assert [c for c in old.games.columns if c.startswith("rank_s")] == \
        [f"rank_s{s}" for s in range(1, players + 1)]
    assert set(old.items["seat"]) == set(range(1, players + 1))
    new = _replayed(OLD[game])
    assert new.meta["schema_version"] == SCHEMA_VERSION
    # today's tables add the branching counters (docs/results.md) after the old columns
    assert list(new.games.columns[:len(old.games.columns)]) == list(old.games.columns)
    added = set(new.games.columns) - set(old.games.columns)
    assert {"forced", "legal_moves", "legal_moves_sq"} <= added
    assert all(c.split(":")[0] in ("forced", "legal_moves", "legal_moves_sq", "decisions")
               for c in added)
    pd.testing.assert_frame_equal(old.games, new.games[old.games.columns],
                                  check_categorical=False)
    pd.testing.assert_frame_equal(old.items, new.items)


def test_team_and_winner_columns_count_from_one():
    g = simkit.read_run(OLD["rabbit-hunt"]).games
    assert set(np.unique(g[[f"team_s{s}" for s in range(1, 5)]])) == {1, 2}
    assert (g["team_s1"] == 1).all() and (g["team_s2"] == 2).all()
    assert set(g["winning_team"]) <= {0, 1, 2} and (g["winning_team"] > 0).any()
    assert set(g["winner"]) <= {0, 1, 2, 3, 4}
    won = g[[f"rank_s{s}" for s in range(1, 5)]].to_numpy() == 1
    alone = won.sum(axis=1) == 1
    assert (g["winner"][alone].to_numpy() == won[alone].argmax(axis=1) + 1).all()
    assert (g["winner"][~alone] == 0).all()


def test_reports_and_comparisons_read_old_runs(tmp_path):
    old = OLD["avalon"]
    assert seat_outcomes(load_run(old).games)["seat"].tolist() == [1, 2]
    build_report([old], tmp_path / "report")
    assert "Outcome by seat" in (tmp_path / "report" / "index.html").read_text()
    new = tmp_path / "new"
    meta = json.loads((old / "run.json").read_text())["run_spec"]
    run_games(RunSpec.make("avalon", 2, meta["games"], meta["seed"], "random"), out=new,
              workers=1)
    a, b = load_run(old), load_run(new)
    table = compare_runs(a.games, b.games, a.meta, b.meta, a.items_path, b.items_path)
    occurrence = table[table["measure"] == "item occurrence"]
    assert len(occurrence) and (occurrence["difference"] == 0).all()
    build_whatif_report(old, new, tmp_path / "whatif")


def test_replay_of_an_old_run_matches_its_row():
    out = subprocess.run([sys.executable, "-m", "simkit", "replay", "--run",
                          str(OLD["rabbit-hunt"]), "--game", "17"],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "(matches the recorded row)" in out.stdout


def test_a_run_of_a_newer_schema_is_refused_in_one_line(tmp_path):
    folder = tmp_path / "future"
    shutil.copytree(OLD["avalon"], folder)
    meta = json.loads((folder / "run.json").read_text())
    meta["schema_version"] = SCHEMA_VERSION + 1
    (folder / "run.json").write_text(json.dumps(meta))
    with pytest.raises(SimkitError, match="newer simkit.*upgrade simkit"):
        read_meta(folder)
    out = subprocess.run([sys.executable, "-m", "simkit", "report", str(folder), "--out",
                          str(tmp_path / "r")], capture_output=True, text=True)
    assert out.returncode == 2
    assert out.stderr.count("\n") == 1 and "schema" in out.stderr
    assert not (tmp_path / "r").exists()
