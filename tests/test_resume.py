"""Resuming an interrupted run gives the tables of the uninterrupted run; a second Ctrl-C
says what it discarded; a chunk's memory is bounded whatever --chunk-size says."""

import json
import os
import signal

import pandas as pd
import pytest
from click.testing import CliRunner

from simkit import runner
from simkit.cli import main
from simkit.errors import SimkitError
from simkit.results import read_run
from simkit.runner import RunSpec, run_games


def _interrupt_at(monkeypatch, call: int, twice: bool = False):
    """Ctrl-C (twice: two) while play_chunk is called for the ``call``-th time."""
    real = runner.play_chunk
    calls = {"n": 0}

    def interrupted(p, start, count):
        calls["n"] += 1
        if calls["n"] == call:
            os.kill(os.getpid(), signal.SIGINT)
            if twice:
                os.kill(os.getpid(), signal.SIGINT)
        return real(p, start, count)

    monkeypatch.setattr(runner, "play_chunk", interrupted)


def test_a_resumed_run_is_the_uninterrupted_run(tmp_path, monkeypatch):
    run = RunSpec.make("pig", 3, 5000, seed=4, strategies="hold-at,random,random")
    run_games(run, out=tmp_path / "whole", workers=1, chunk_size=1000)
    _interrupt_at(monkeypatch, 3)  # the warm-up game, a chunk, then Ctrl-C in the second
    with pytest.raises(runner.RunInterrupted):
        run_games(run, out=tmp_path / "cut", workers=1, chunk_size=1000)
    assert read_run(tmp_path / "cut").meta["games_completed"] == 2000
    monkeypatch.undo()
    res = run_games(run, out=tmp_path / "cut", workers=2, chunk_size=700, resume=True)
    assert res.meta["complete"] and res.meta["resumed_at"] == [2000]
    a, b = read_run(tmp_path / "whole"), read_run(tmp_path / "cut")
    pd.testing.assert_frame_equal(a.games, b.games)
    pd.testing.assert_frame_equal(a.items, b.items)
    assert b.meta["games_completed"] == 5000
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cut", "whole"]


def test_resuming_a_complete_run_leaves_it_as_it_is(tmp_path):
    run = RunSpec.make("pig", 2, 300, seed=1)
    run_games(run, out=tmp_path / "r", workers=1)
    before = (tmp_path / "r" / "games.parquet").stat().st_mtime_ns
    res = run_games(run, out=tmp_path / "r", workers=1, resume=True)
    assert res.meta["complete"] and res.tally is None
    assert (tmp_path / "r" / "games.parquet").stat().st_mtime_ns == before


def test_resuming_with_other_settings_is_refused(tmp_path):
    run_games(RunSpec.make("pig", 2, 300, seed=1), out=tmp_path / "r", workers=1)
    with pytest.raises(SimkitError, match="holds a run with seed 1, not 2"):
        run_games(RunSpec.make("pig", 2, 300, seed=2), out=tmp_path / "r", resume=True)


def test_a_second_ctrl_c_says_what_it_discarded(tmp_path, monkeypatch):
    run = RunSpec.make("pig", 2, 5000, seed=1)
    _interrupt_at(monkeypatch, 3, twice=True)
    with pytest.raises(runner.RunAbandoned, match="second Ctrl-C stopped at once: the 1,000 "
                                                  "games played were discarded"):
        run_games(run, out=tmp_path / "r", workers=1, chunk_size=1000)
    assert list(tmp_path.iterdir()) == []


def test_cli_resume_of_a_run_and_of_an_experiment(tmp_path, monkeypatch):
    exp = tmp_path / "e.toml"
    exp.write_text('[[run]]\nname = "a"\ngame = "pig"\nplayers = 2\ngames = 3000\n'
                   '[[run]]\nname = "b"\ngame = "pig"\nplayers = 3\ngames = 3000\n')
    out = tmp_path / "runs"
    res = CliRunner().invoke(main, ["run", str(exp), "--out", str(out), "--quiet"])
    assert res.exit_code == 0, res.output
    whole_b = read_run(out / "b").games
    # cut b short as Ctrl-C would have: b is played again from game 1000
    cut = run_games(RunSpec.make("pig", 3, 3000), out=tmp_path / "tmp", workers=1,
                    chunk_size=1000)
    assert cut.meta["complete"]
    _interrupt_at(monkeypatch, 3)
    with pytest.raises(runner.RunInterrupted):
        run_games(RunSpec.make("pig", 3, 3000), out=out / "b", workers=1, chunk_size=1000,
                  overwrite=True)
    monkeypatch.undo()
    a_before = (out / "a" / "games.parquet").stat().st_mtime_ns
    res = CliRunner().invoke(main, ["run", str(exp), "--out", str(out), "--resume",
                                    "--workers", "1"])
    assert res.exit_code == 0, res.output
    assert "first-player advantage" in res.output  # the summaries, read from the folders
    assert (out / "a" / "games.parquet").stat().st_mtime_ns == a_before  # complete: kept
    pd.testing.assert_frame_equal(read_run(out / "b").games, whole_b)
    res = CliRunner().invoke(main, ["run", "pig", "--players", "2", "--games", "3000",
                                    "--seed", "5", "--out", str(out / "a"), "--resume"])
    assert res.exit_code == 2 and "holds a run with seed 0, not 5" in res.output


def test_a_chunk_holds_no_more_than_its_memory_bound(tmp_path):
    run = RunSpec.make("dolina-krolikow", 4, 40, seed=1)
    p = runner.plan(run)
    cap = runner.chunk_cap(p)
    assert 1 <= cap < runner.DEFAULT_CHUNK  # Dolina's many card columns at 4 players
    per_game = runner.CHUNK_BYTES // cap
    assert per_game >= 4 * 4 * len(p.item_columns)  # at least the int32 item counts
    assert runner.chunk_bounds(10**6, 2, cap)[0] == (0, cap)
    res = run_games(RunSpec.make("dolina-krolikow", 4, cap + 5, seed=1),
                    out=tmp_path / "r", workers=1, chunk_size=10**6)
    assert res.meta["chunk_size"] == cap
    meta = json.loads((tmp_path / "r" / "run.json").read_text())
    assert meta["games_completed"] == cap + 5
