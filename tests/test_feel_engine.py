"""The engine's side of how a game feels: branching counters in every game, progress traced
turn by turn for a sample (``--trace-turns``), never changing a game, the same on any number
of workers, kept by --resume; and every registered game's progress kernel checked on play."""

import json

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from simkit import registry
from simkit.cli import main
from simkit.errors import SimkitError
from simkit.results import read_run
from simkit.runner import RunSpec, chunk_cap, plan, run_games

PROGRESS_GAMES = sorted(n for n, g in registry.games().items() if g.has_progress)


def _pig(games=600, trace=0):
    return RunSpec.make("pig", 3, games, seed=4, strategies="hold-at,random,hold-at", trace=trace)


def test_tracing_never_changes_a_game():
    plain = run_games(_pig(), workers=1).games
    traced = run_games(_pig(trace=200), workers=1)
    pd.testing.assert_frame_equal(plain, traced.games)
    assert traced.trace["game"].nunique() == 200
    assert traced.meta["trace_games"] == 200


def test_the_trace_is_the_same_on_any_number_of_workers_and_chunks(tmp_path):
    one = run_games(_pig(trace="all"), workers=1).trace
    two = run_games(_pig(trace="all"), out=tmp_path / "r", workers=2, chunk_size=37)
    pd.testing.assert_frame_equal(one, read_run(tmp_path / "r").trace)
    assert two.meta["trace_games"] == 600


def test_a_traced_game_has_a_row_per_turn_ending_at_its_result():
    res = run_games(_pig(trace=100), workers=1)
    g, t = res.games.set_index("game"), res.trace
    rows = t.groupby("game").size()
    assert (rows == g.loc[rows.index, "turns"] + 1).all()
    first = t[t["turn"] == 0]
    assert (first[["progress_s1", "progress_s2", "progress_s3"]] == 0).all().all()
    last = t.groupby("game").tail(1).set_index("game")
    for game, row in last.iterrows():
        winner = int(g.loc[game, "winner"])
        assert row[f"progress_s{winner}"] >= 30  # Pig's target: the winner banked it
        assert row[f"progress_s{winner}"] == pytest.approx(g.loc[game, f"score_s{winner}"])


def test_branching_counters_add_up():
    games = run_games(_pig(), workers=1).games
    # Pig offers roll alone (forced) or roll and hold
    assert (games["legal_moves"] == games["forced"] + 2 * (games["decisions"] - games["forced"])
            ).all()
    assert (games["legal_moves_sq"] == games["forced"]
            + 4 * (games["decisions"] - games["forced"])).all()


def test_the_summary_from_the_tables_is_the_one_counted_in_play(tmp_path):
    from simkit.reports.summary import summary_dict

    res = run_games(_pig(trace=300), out=tmp_path / "r", workers=2, tally=True)
    counted = summary_dict(res.tally, res.meta)["feel"]
    back = read_run(tmp_path / "r", items=False)
    read = summary_dict(back.games, back.meta, trace=tmp_path / "r" / "trace.parquet")["feel"]
    assert counted["traced_games"] == read["traced_games"] == 300
    for key in ("decided_at", "lead_changes", "drama", "stall", "comebacks", "branching",
                "forced", "uncertainty"):
        for k, v in counted[key].items():
            assert read[key][k] == pytest.approx(v, rel=1e-9, abs=1e-12), (key, k)
    assert counted["auc"] == read["auc"]


def test_a_resumed_trace_is_the_uninterrupted_one(tmp_path, monkeypatch):
    from simkit import runner

    whole = run_games(_pig(trace=400), workers=1).trace
    real, calls = runner.play_chunk, {"n": 0}

    def interrupted(p, start, count):
        calls["n"] += 1
        if calls["n"] == 3:
            import os
            import signal

            os.kill(os.getpid(), signal.SIGINT)
        return real(p, start, count)

    monkeypatch.setattr(runner, "play_chunk", interrupted)
    with pytest.raises(KeyboardInterrupt):
        run_games(_pig(trace=400), out=tmp_path / "r", workers=1, chunk_size=100)
    monkeypatch.setattr(runner, "play_chunk", real)
    run_games(_pig(trace=400), out=tmp_path / "r", workers=1, chunk_size=100, resume=True)
    pd.testing.assert_frame_equal(whole, read_run(tmp_path / "r").trace)


def test_bad_traces_are_refused_in_one_line(tmp_path):
    with pytest.raises(SimkitError, match="more games than the run has"):
        _pig(games=100, trace=101)
    with pytest.raises(SimkitError, match="connect-four has no progress kernel"):
        RunSpec.make("connect-four", 2, 10, trace=5)
    r = CliRunner().invoke(main, ["run", "pig", "--players", "2", "--games", "10",
                                  "--trace-turns", "many", "--out", str(tmp_path / "x")])
    assert r.exit_code == 2 and "--trace-turns must be a number of games or 'all'" in r.output
    assert not (tmp_path / "x").exists()
    r = CliRunner().invoke(main, ["run", "connect-four", "--games", "10", "--trace-turns",
                                  "5", "--out", str(tmp_path / "y")])
    assert r.exit_code == 2 and "no progress kernel" in r.output
    assert not (tmp_path / "y").exists()


def test_a_game_without_progress_still_counts_its_branching():
    res = run_games(RunSpec.make("connect-four", 2, 200, seed=1), workers=1, tally=True)
    from simkit.reports.summary import summary_dict

    feel = summary_dict(res.tally, res.meta)["feel"]
    assert feel["traced_games"] == 0 and feel["branching"]["mean"] > 3
    assert (res.games["forced"] >= 0).all()


def test_a_traced_chunk_is_bounded_in_memory():
    p, q = plan(_pig()), plan(_pig(trace=100))
    assert chunk_cap(q) < chunk_cap(p)
    per_game = 64 * 2**20 / chunk_cap(q)
    assert per_game >= (q.max_turns + 1) * 3 * 4  # at least the curve itself


def test_cli_json_carries_the_feel(tmp_path):
    r = CliRunner().invoke(main, ["run", "pig", "--players", "2", "--games", "300",
                                  "--strategies", "hold-at", "--trace-turns", "all", "--json",
                                  "--quiet", "--out", str(tmp_path / "r")])
    assert r.exit_code == 0, r.output
    feel = json.loads(r.output)["feel"]
    assert feel["traced_games"] == 300 and len(feel["auc"]) == 11
    assert 0 <= feel["decided_at"]["mean"] <= 1


@pytest.mark.parametrize("game", PROGRESS_GAMES)
def test_progress_is_finite_and_names_the_winner_at_the_end(game):
    """Every game with a progress kernel, random play at its smallest and largest player
    count: finite values from start to end, and in a finished game a winning seat holds the
    highest progress at the end (the kernel's contract, ``simkit/game.py``)."""
    spec = registry.get_game(game)
    for players in sorted({min(spec.players), max(spec.players)}):
        res = run_games(RunSpec.make(game, players, 100, seed=11, trace="all"), workers=1)
        t = res.trace
        cols = [f"progress_s{s}" for s in range(1, players + 1)]
        assert np.isfinite(t[cols].to_numpy()).all()
        last = t.groupby("game").tail(1).set_index("game")[cols].to_numpy()
        g = res.games.set_index("game").loc[t["game"].unique()]
        ranks = g[[f"rank_s{s}" for s in range(1, players + 1)]].to_numpy()
        finished = (g["end_reason"] != "timeout").to_numpy() & (ranks == 1).any(axis=1)
        best = last.max(axis=1, keepdims=True)
        agree = ((ranks == 1) & (last == best)).any(axis=1)
        assert finished.sum() >= 50
        assert agree[finished].mean() >= 0.9, f"{game} at {players}: {agree[finished].mean()}"


def _kings(games=300, kingmaking=60):
    return RunSpec.make("pig", 3, games, seed=2, strategies="hold-at", kingmaking=kingmaking)


def test_kingmaking_replays_the_games_without_changing_them(tmp_path):
    plain = run_games(_kings(kingmaking=0), workers=1).games
    res = run_games(_kings(), out=tmp_path / "k", workers=2, chunk_size=25, tally=True)
    games = read_run(tmp_path / "k", items=False).games
    pd.testing.assert_frame_equal(plain, games[plain.columns])
    king = games[[f"kingmaker_s{s}" for s in (1, 2, 3)]].to_numpy()
    pivotal = games[[f"pivotal_s{s}" for s in (1, 2, 3)]].to_numpy()
    ranks = games[[f"rank_s{s}" for s in (1, 2, 3)]].to_numpy()
    assert (king[60:] == -1).all() and (pivotal[60:] == -1).all()
    watched = king[:60] >= 0  # the seats that finished last, and no other
    assert (watched == (ranks[:60] == ranks[:60].max(axis=1, keepdims=True))
            & (ranks[:60] > 1)).all()
    assert (king[:60] <= pivotal[:60]).all() and (pivotal[:60][~watched] == -1).all()
    assert pivotal[:60][watched].sum() > 0  # Pig's holds and rolls do decide who wins
    one = run_games(_kings(), workers=1).games
    pd.testing.assert_frame_equal(one, games)
    from simkit.reports.summary import summary_dict

    counted = summary_dict(res.tally, res.meta)["feel"]
    read = summary_dict(games, res.meta)["feel"]
    assert counted["kingmaking"] == read["kingmaking"]
    assert counted["kingmaking_games"] == read["kingmaking_games"] > 0


def test_kingmaking_needs_a_third_seat():
    with pytest.raises(SimkitError, match="3 or 4 players"):
        RunSpec.make("pig", 2, 10, kingmaking=5)
    with pytest.raises(SimkitError, match="more games than the run has"):
        _kings(games=10, kingmaking=11)


def test_kingmaking_under_random_play_is_refused(tmp_path):
    # random playouts make every decision look pivotal: "chose the winner in 100%" is noise
    for strategies in ("random", "hold-at,random,hold-at"):
        with pytest.raises(SimkitError, match="play to win.*--strategies hold-at"):
            RunSpec.make("pig", 3, 10, strategies=strategies, kingmaking=5)
    res = CliRunner().invoke(main, ["run", "rabbit-hunt", "--players", "3", "--games", "10",
                                    "--kingmaking", "5", "--out", str(tmp_path / "r")])
    assert res.exit_code == 2 and "--strategies heuristic" in res.output
    assert len(res.output.strip().splitlines()) == 1 and not (tmp_path / "r").exists()
    exp = tmp_path / "e.toml"
    exp.write_text('[[run]]\ngame = "rabbit-hunt"\nplayers = 3\ngames = 10\nkingmaking = 5\n'
                   'strategies = "heuristic,random,heuristic"\n')
    res = CliRunner().invoke(main, ["run", str(exp), "--out", str(tmp_path / "e")])
    assert res.exit_code == 2 and "--strategies heuristic" in res.output
    assert not (tmp_path / "e").exists()


def test_a_search_can_score_cut_playouts_by_progress():
    run = RunSpec.make("pig", 2, 6, seed=3, strategies="ismcts@20,hold-at",
                       weights=["ismcts.rollout_depth=4", "ismcts.cutoff=progress"])
    assert plan(run).slot_weights(plan(run).slots.index("ismcts@20"))["cutoff"] == 2
    one = run_games(run, workers=1).games
    pd.testing.assert_frame_equal(one, run_games(run, workers=2, chunk_size=2).games)


def test_cutoff_progress_needs_the_kernel():
    import types
    from dataclasses import replace

    from simkit.search import check_knobs

    pig = registry.get_game("pig")
    rules = types.ModuleType("no_progress")
    rules.__dict__.update({k: v for k, v in vars(pig.rules).items() if k != "progress"})
    registry.register_game(replace(pig, name="pig-without-progress", rules=rules))
    try:
        with pytest.raises(SimkitError, match="needs the game's progress kernel"):
            check_knobs("pig-without-progress", "ismcts", {"cutoff": 2.0})
        check_knobs("pig", "ismcts", {"cutoff": 2.0})
    finally:
        registry._games.pop("pig-without-progress")


PHASE_GAMES = sorted(n for n, g in registry.games().items() if g.has_phases)


@pytest.mark.parametrize("game", PHASE_GAMES)
def test_phase_counters_add_up_to_the_game(game):
    """A game with phases counts every decision in exactly one of them."""
    spec = registry.get_game(game)
    players = min(spec.players)
    games = run_games(RunSpec.make(game, players, 60, seed=5), workers=1).games
    for kind in ("decisions", "forced", "legal_moves", "legal_moves_sq"):
        total = sum(games[f"{kind}:{ph}"] for ph in spec.phases)
        assert (total == games[kind]).all(), kind
    assert all(games[f"decisions:{ph}"].sum() > 0 for ph in spec.phases), \
        "a phase that never happens in 60 random games"


def test_progress_rewards_of_a_cut_playout():
    from simkit.search import load_search

    shares = load_search("pig").progress_shares
    out, ranks = np.zeros(3), np.zeros(3, np.int32)
    teams = np.array([0, 1, 2], np.int32)
    shares(3, teams, np.array([5.0, 9.0, 9.0]), ranks, out, 0.0)
    assert out.tolist() == [0.0, 0.5, 0.5]  # the leaders share the win
    shares(3, teams, np.array([5.0, 9.0, 7.0]), ranks, out, 2.0)
    assert out.sum() == pytest.approx(1.0) and out[1] > out[2] > out[0]
    assert out[1] / out[2] == pytest.approx(np.exp(1.0))
    out4, ranks4 = np.zeros(4), np.zeros(4, np.int32)
    shares(4, np.array([0, 1, 0, 1], np.int32), np.array([3.0, 1.0, 3.0, 1.0]), ranks4,
           out4, 1.0)  # partners share their team's weight
    assert out4[0] == out4[2] and out4[0] + out4[1] == pytest.approx(1.0)
