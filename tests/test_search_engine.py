"""Search strategies played by the engine, as any strategy is: seated by name with a budget
(two budgets of one strategy in one run, each with its own knobs, recorded in run.json),
reproducible on any number of workers, replayed move for move with what each search found,
honest at the driver (a choice depends only on what the seat observes), and every bad knob
refused in one line. The search kernels themselves are tested in test_search.py."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

import simkit
from simkit import registry
from simkit.cli import main
from simkit.runner import RunSpec, plan, run_games, workspace


def test_a_search_plays_through_the_engine_and_records_its_knobs():
    res = simkit.simulate("pig", 2, 12, seed=3, strategies="ismcts@40,hold-at",
                          progress=False)
    assert set(res.games["strategy_s1"]) == {"ismcts@40", "hold-at"}
    knobs = res.meta["strategy_weights"]["ismcts@40"]
    assert knobs["iterations"] == 40
    assert knobs["rollout"] == 0.0, "pig has no heuristic: auto rolls out at random"
    done = res.meta["search"]["ismcts@40"]
    assert done["decisions"] > 0 and done["iterations_per_decision"] == 40
    assert done["mean_depth"] > 1, "a tree, not one ply"


def test_a_search_without_a_budget_in_its_name_is_recorded_with_the_one_it_played():
    res = simkit.simulate("pig", 2, 2, strategies="ismcts,mc", progress=False,
                          weights=["mc.iterations=30"])
    assert set(res.games["strategy_s1"]) == {"ismcts@400", "mc@30"}


def test_two_budgets_of_one_strategy_play_with_knobs_of_their_own():
    res = simkit.simulate("pig", 2, 8, seed=1, strategies="ismcts@10,ismcts@80",
                          weights=["ismcts@80.exploration=1.5", "ismcts.widen_k=3"],
                          progress=False)
    w = res.meta["strategy_weights"]
    assert (w["ismcts@10"]["iterations"], w["ismcts@80"]["iterations"]) == (10, 80)
    assert (w["ismcts@10"]["exploration"], w["ismcts@80"]["exploration"]) == (0.7, 1.5)
    assert w["ismcts@10"]["widen_k"] == w["ismcts@80"]["widen_k"] == 3
    done = res.meta["search"]
    assert done["ismcts@10"]["iterations_per_decision"] == 10
    assert done["ismcts@80"]["iterations_per_decision"] == 80


def test_search_tables_are_the_same_on_one_or_two_workers_and_any_chunking():
    run = RunSpec.make("pig", 2, 12, 5, "mc@20,ismcts@30")
    one = run_games(run, workers=1)
    two = run_games(run, workers=2, chunk_size=5)
    pd.testing.assert_frame_equal(one.games, two.games)
    pd.testing.assert_frame_equal(one.items, two.items)
    assert one.meta["search"] == two.meta["search"]


def test_a_search_game_replays_move_for_move_with_what_the_search_found(tmp_path):
    out = tmp_path / "run"
    res = CliRunner().invoke(main, ["run", "pig", "--players", "2", "--games", "6",
                                    "--strategies", "ismcts@50,hold-at", "--out", str(out),
                                    "--quiet"])
    assert res.exit_code == 0, res.output
    res = CliRunner().invoke(main, ["replay", "--run", str(out), "--game", "3"])
    assert res.exit_code == 0, res.output
    assert "(matches the recorded row)" in res.output
    assert "search:" in res.output and "visits, mean reward" in res.output


SEARCHABLE = [g for g, s in registry.games().items() if hasattr(s.rules, "determinize")
              and 2 in s.players and g != "trap"]


@pytest.mark.parametrize("game", SEARCHABLE)
def test_a_search_choice_does_not_change_with_the_hidden_deal(game):
    """The driver hands a search only its seat's observation: from two true states with the
    same observation (the second dealt by determinize), the same streams give the same
    move."""
    p = plan(RunSpec.make(game, 2, 1, 0, "ismcts@24,random"))
    rules = registry.get_game(game).rules
    search_slot = p.slots.index("ismcts@24")
    slots = np.full(2, search_slot, np.int32)
    rng = np.random.default_rng(7)
    state = np.zeros(p.state_size, np.int32)
    rules.new_game(p.compiled, 2, state, np.array([11], np.uint64))
    moves = np.zeros(p.max_moves, np.int32)
    items = np.zeros((2, max(1, len(p.item_columns))), np.int32)
    differed = 0
    checked = 0
    for step in range(400):
        if rules.is_over(state) or checked == 6:
            break
        n = rules.legal_moves(p.compiled, state, moves)
        if n > 1 and step % 5 == 0:
            seat = int(rules.to_move(state))
            obs = np.zeros(p.state_size, np.int32)
            rules.observe(p.compiled, state, seat, obs)
            other = np.zeros(p.state_size, np.int32)
            rules.determinize(p.compiled, obs, seat, other, np.array([step + 99], np.uint64),
                              np.zeros(p.state_size, np.int32))
            seen = np.zeros(p.state_size, np.int32)
            rules.observe(p.compiled, other, seat, seen)
            assert (seen == obs).all(), "determinize kept what the seat sees"
            differed += int((other != state).any())
            chosen = []
            for true in (state, other):
                trace = np.full(1, -1, np.int32)
                _, arrays = workspace(p)
                p.driver.module.play_out(
                    p.compiled, 2, slots, p.kernels, p.weights, p.max_turns, true.copy(),
                    np.zeros(p.state_size, np.int32), np.zeros(p.max_moves, np.int32),
                    np.array([5, 6, 7], np.uint64), items.copy(), np.zeros(2),
                    np.zeros(2, np.int32), trace, np.int64(1), arrays)
                chosen.append(int(trace[0]))
            assert chosen[0] == chosen[1], f"step {step}: the hidden deal changed the move"
            checked += 1
        rules.apply_move(p.compiled, state, moves[rng.integers(n)],
                         np.array([step + 1], np.uint64), items)
    assert checked >= 3
    if game not in ("pig", "connect-four"):  # Pig and Connect Four hide nothing
        assert differed, "the other deal differed somewhere: the test tried hidden parts"


BAD = [
    (["--strategies", "ismcts@0"], "from 1 to 1,000,000"),
    (["--strategies", "ismcts@-5"], "from 1 to 1,000,000"),
    (["--strategies", "ismcts@10000000"], "from 1 to 1,000,000"),
    (["--strategies", "hold-at@10"], "takes no budget"),
    (["--strategies", "ismcts", "--weight", "ismcts.nope=1"], "no weight 'nope'"),
    (["--strategies", "ismcts", "--weight", "ismcts.rollout=foo"],
     "one of: auto, random, not 'foo'"),
    (["--strategies", "ismcts", "--weight", "ismcts.rollout=heuristic"],
     "one of: auto, random, not 'heuristic'"),
    (["--strategies", "ismcts", "--weight", "ismcts.exploration=-1"],
     "exploration must be a number from 0 to 100"),
    (["--strategies", "mc", "--weight", "mc.iterations=2.5"],
     "iterations must be a whole number from 1"),
    (["--strategies", "ismcts@5", "--weight", "ismcts@6.exploration=1"],
     "not in this run; its strategies: ismcts, ismcts@5"),
]


@pytest.mark.parametrize(("args", "message"), BAD)
def test_a_bad_search_knob_exits_2_with_one_line_and_writes_nothing(tmp_path, args, message):
    out = tmp_path / "out"
    res = CliRunner().invoke(main, ["run", "pig", "--players", "2", "--games", "2",
                                    "--out", str(out), *args])
    assert res.exit_code == 2, res.output
    assert message in res.output
    assert len(res.output.strip().splitlines()) == 1
    assert not out.exists()


def test_a_search_on_a_game_without_determinize_names_the_missing_kernel(tmp_path):
    import types
    from dataclasses import replace

    c4 = registry.get_game("connect-four")  # Connect Four without its determinize kernel
    rules = types.ModuleType("no_determinize")
    rules.__dict__.update({k: v for k, v in vars(c4.rules).items() if k != "determinize"})
    registry.register_game(replace(c4, name="connect-four-blind", rules=rules))
    registry.register_strategy(replace(registry.strategies_for("connect-four")["win-block"],
                                       game="connect-four-blind"))
    try:
        res = CliRunner().invoke(main, ["run", "connect-four-blind", "--games", "2",
                                        "--strategies", "ismcts", "--out",
                                        str(tmp_path / "o")])
    finally:
        registry._games.pop("connect-four-blind")
        registry._strategies.pop(("win-block", "connect-four-blind"))
    assert res.exit_code == 2
    assert "determinize kernel" in res.output and "win-block" in res.output
    assert not (tmp_path / "o").exists()


def test_a_game_sets_its_own_search_defaults_and_the_user_overrides_them(tmp_path):
    from dataclasses import replace

    from pig_game import GAME as PIG

    registry.register_game(replace(PIG, name="pig-tuned",
                                   search_knobs={"iterations": 12, "exploration": 1.1}))
    registry.register_strategy(replace(registry.strategies_for("pig")["hold-at"],
                                       game="pig-tuned"))
    res = simkit.simulate("pig-tuned", 2, 2, strategies="ismcts,mc@5", progress=False,
                          weights=["mc.exploration=0.3"])
    w = res.meta["strategy_weights"]
    assert set(w) == {"ismcts@12", "mc@5"}
    assert w["ismcts@12"]["exploration"] == 1.1 and w["mc@5"]["exploration"] == 0.3
    registry.register_game(replace(PIG, name="pig-typo", search_knobs={"iteration": 12}))
    res = CliRunner().invoke(main, ["run", "pig-typo", "--players", "2", "--strategies",
                                    "ismcts", "--games", "1", "--out", str(tmp_path / "o")])
    assert res.exit_code == 2 and "'iteration', which is not a search knob" in res.output


def test_simkit_games_lists_the_search_strategies_with_their_knobs_and_game_defaults():
    res = CliRunner().invoke(main, ["games"])
    assert res.exit_code == 0
    out = res.output
    assert "search strategies" in out and "ismcts" in out and "NAME@N" in out
    for knob in ("iterations", "exploration", "rollout", "rollout_depth", "cutoff"):
        assert f"    {knob} " in out
    assert "search defaults: iterations 250" in out  # rabbit-hunt's own
