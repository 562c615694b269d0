"""The engine on its own terms: seeds and streams, data and overrides, strategies and seat
rotation, and the determinism of results whatever the workers, chunks or backend."""

import numpy as np
import pandas as pd
import pytest

from simkit import data, registry, simulate
from simkit.errors import SimkitError
from simkit.replay import replay
from simkit.rng import game_seeds, rand_below, seed_streams
from simkit.runner import RunSpec, plan, play_chunk, run_games, seat_codes


def test_game_seeds_depend_only_on_master_and_index():
    a = game_seeds(7, 0, 100)
    assert np.array_equal(a[40:60], game_seeds(7, 40, 20))
    assert len(set(a.tolist())) == 100
    assert not np.array_equal(a, game_seeds(8, 0, 100))


def test_streams_are_independent_and_uniform():
    streams = np.empty(5, np.uint64)
    seed_streams(np.uint64(123), 4, streams)
    assert len(set(streams.tolist())) == 5
    draws = np.array([rand_below(streams[1:2], 6) for _ in range(60000)])
    counts = np.bincount(draws, minlength=6)
    from scipy.stats import chisquare

    assert chisquare(counts).pvalue > 1e-4
    before = streams.copy()
    rand_below(streams[2:3], 10)
    assert streams[1] == before[1] and streams[2] != before[2]


def test_overrides_are_checked():
    params = registry.get_game("pig").data
    assert data.apply_overrides(params, {"target": 50})["target"].value == 50
    with pytest.raises(SimkitError, match="out of range"):
        data.apply_overrides(params, {"target": 0})
    with pytest.raises(SimkitError, match="must be an integer"):
        data.apply_overrides(params, {"target": 2.5})
    with pytest.raises(SimkitError, match="unknown parameter 'targt'.*did you mean 'target'"):
        data.apply_overrides(params, {"targt": 3})
    assert data.parse_overrides(["a=3", "b=[1, 2]", "c=true", "d=word"]) == {
        "a": 3, "b": [1, 2], "c": True, "d": "word"}


def test_bad_runs_are_refused():
    with pytest.raises(SimkitError, match="unknown game"):
        RunSpec.make("nope", 2, 10)
    with pytest.raises(SimkitError, match="for 2, 3, 4 players"):
        RunSpec.make("pig", 5, 10)
    with pytest.raises(SimkitError, match="unknown strategy"):
        RunSpec.make("pig", 2, 10, strategies="genius")
    with pytest.raises(SimkitError, match="3 strategies given for 2 players"):
        RunSpec.make("pig", 2, 10, strategies="random,random,first")
    with pytest.raises(SimkitError, match="no weight"):
        RunSpec.make("pig", 2, 10, strategies="hold-at", weights=["hold-at.nerve=3"])


def test_seats_rotate_strategies_evenly():
    p = plan(RunSpec.make("pig", 3, 1, strategies="hold-at,random,random"))
    codes = seat_codes(p, 0, 300)
    hold = p.slots.index("hold-at")
    assert [(codes[:, s] == hold).sum() for s in range(3)] == [100, 100, 100]
    fixed = plan(RunSpec.make("pig", 3, 1, strategies="hold-at,random,random", rotate=False))
    assert (seat_codes(fixed, 0, 300)[:, 0] == fixed.slots.index("hold-at")).all()


def test_changing_a_strategy_does_not_change_the_deal():
    """Chance has its own stream: the dice of the first roll do not depend on strategies."""
    a = replay("pig", 2, 42, "hold-at,random")
    b = replay("pig", 2, 42, "random,first")
    assert a.lines[3] == b.lines[3]  # decision 1: P1's first roll, same face


def test_strategy_weights_change_play():
    cautious = simulate("pig", 2, 300, seed=1, strategies="hold-at",
                        weights=["hold-at.threshold=5"])
    bold = simulate("pig", 2, 300, seed=1, strategies="hold-at",
                    weights=["hold-at.threshold=25"])
    assert cautious.games["decisions"].mean() != bold.games["decisions"].mean()
    assert cautious.meta["strategy_weights"]["hold-at"]["threshold"] == 5


def test_same_seed_same_tables_whatever_workers_and_chunks():
    run = RunSpec.make("pig", 3, 3000, seed=11, strategies="hold-at,random,first")
    one = run_games(run, workers=1, chunk_size=3000)
    two = run_games(run, workers=2, chunk_size=257)
    pd.testing.assert_frame_equal(one.games, two.games)
    pd.testing.assert_frame_equal(one.items, two.items)


def test_replay_reproduces_a_recorded_row():
    res = simulate("pig", 2, 50, seed=3, strategies="hold-at,random")
    row = res.games.iloc[37]
    names = [str(row["strategy_s1"]), str(row["strategy_s2"])]
    r = replay("pig", 2, int(row["seed"]), names)
    assert r.end_reason == row["end_reason"]
    assert r.turns == row["turns"] and len(r.moves) == row["decisions"]
    assert r.ranks == [int(row["rank_s1"]), int(row["rank_s2"])]


def test_turn_cap_ends_as_timeout():
    res = simulate("pig", 2, 50, seed=1, strategies="hold-at", overrides={"max_turns": 2})
    g = res.games
    assert (g["end_reason"] == "timeout").all()
    assert (g[["rank_s1", "rank_s2"]] == 0).all().all()
    assert (g["turns"] == 2).all()


def test_items_count_what_happened():
    res = simulate("pig", 2, 200, seed=2, strategies="hold-at,random")
    merged = res.items.merge(res.games[["game", "decisions"]], on="game")
    per_game = merged.groupby("game")[["roll:made", "hold:made"]].sum().sum(axis=1)
    assert (per_game.to_numpy() == res.games["decisions"].to_numpy()).all()


def test_interrupted_run_keeps_finished_games(tmp_path, monkeypatch):
    """Ctrl-C while the third chunk is played: that chunk is finished and written, then the
    run stops with a sound folder marked incomplete."""
    import os
    import signal

    from simkit import runner

    run = RunSpec.make("pig", 2, 6000, seed=1, strategies="random")
    real = runner.play_chunk
    calls = {"n": 0}

    def interrupted(p, start, count):
        calls["n"] += 1
        if calls["n"] == 4:  # the warm-up game, two chunks, then Ctrl-C during the third
            os.kill(os.getpid(), signal.SIGINT)
        return real(p, start, count)

    monkeypatch.setattr(runner, "play_chunk", interrupted)
    before = signal.getsignal(signal.SIGINT)  # SIG_IGN in a job started in the background
    with pytest.raises(runner.RunInterrupted):
        run_games(run, out=tmp_path / "r", workers=1, chunk_size=1000)
    from simkit.results import read_run

    kept = read_run(tmp_path / "r")
    assert kept.meta["complete"] is False and kept.meta["games_completed"] == 3000
    assert kept.games["game"].tolist() == list(range(3000))
    assert len(kept.items) == 2 * 3000
    assert [p.name for p in tmp_path.iterdir()] == ["r"]
    assert signal.getsignal(signal.SIGINT) is before  # the handler put back


def test_failed_run_leaves_no_folder(tmp_path, monkeypatch):
    from simkit import runner

    def broken(p, start, count):
        if start > 0:
            raise RuntimeError("disk on fire")
        return play_chunk(p, start, count)

    monkeypatch.setattr(runner, "play_chunk", broken)
    with pytest.raises(RuntimeError):
        run_games(RunSpec.make("pig", 2, 3000, seed=1), out=tmp_path / "r", workers=1,
                  chunk_size=1000)
    assert list(tmp_path.iterdir()) == []


def test_a_broken_strategy_module_is_reported_not_fatal(tmp_path, monkeypatch):
    import simkit.strategies as strategies

    (tmp_path / "broken_one.py").write_text("def oops(:\n")
    monkeypatch.setattr(strategies, "__path__", [*strategies.__path__, str(tmp_path)])
    monkeypatch.setattr(registry, "_loaded", False)
    monkeypatch.setattr(registry, "_games_loaded", set())
    monkeypatch.setattr(registry, "_modules_loaded", set(registry._modules_loaded))
    monkeypatch.setattr(registry, "_broken_strategies", {})
    with pytest.warns(UserWarning, match="broken_one failed to load"):
        assert "random" in registry.strategies_for("pig")
    with pytest.raises(SimkitError, match="simkit.strategies.broken_one"):
        registry.resolve_strategies("pig", "nonexistent", 2)


def test_a_kernel_sets_up_its_disk_cache_when_first_compiled(tmp_path, monkeypatch):
    """Defining a kernel costs no cache set-up (a process defines every game's kernels and
    uses a few); its first call sets it up and writes the cache, and a fresh definition of
    the same function loads it from there."""
    import importlib.util

    import numba
    from numba.core.caching import NullCache

    monkeypatch.setattr(numba.config, "CACHE_DIR", str(tmp_path / "cache"))
    source = tmp_path / "lazy_cache_kernel.py"
    source.write_text("from simkit.jit import kernel\n\n\n@kernel\ndef twice(x):\n"
                      "    return 2 * x\n")

    def load():
        spec = importlib.util.spec_from_file_location("lazy_cache_kernel", source)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module.twice

    twice = load()
    assert isinstance(twice._cache, NullCache) and not (tmp_path / "cache").exists()
    assert twice(21) == 42  # from Python: its Python copy (see simkit.jit.LinkedKernel)
    assert not isinstance(twice.python_copy._cache, NullCache)
    assert any(p.suffix == ".nbi" for p in (tmp_path / "cache").rglob("*"))
    again = load()
    assert again(4) == 8
    assert again.python_copy.stats.cache_hits, "the second definition loads the first's cache"


def test_a_command_about_one_game_imports_no_other(tmp_path):
    """The registry loads the game asked for, its own strategies and the generic ones only
    (issue 13: a tenth of a second of every run); ``simkit games`` still lists every one."""
    import subprocess
    import sys

    code = ("import sys; from simkit import registry; registry.get_game('avalon'); "
            "names = sorted(registry.strategies_for('avalon')); "
            "games = sorted(m for m in sys.modules if m.startswith('simkit.games.') "
            "and m.count('.') == 2); print(games, names); "
            "print(sorted(registry.games()))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.splitlines()
    assert out[0].startswith("['simkit.games.avalon'] ")
    assert "'heuristic'" in out[0] and "'random'" in out[0] and "'ismcts'" in out[0]
    assert "rabbit-hunt" in out[1] and "watership-down" in out[1]
