"""The guided search ``ismcts+learned`` (docs/search.md) and advice from Python: it plays
whole games reproducibly, its prior moves the visits toward the moves its model values, it
refuses a game without features in one line, and advice from one observation is one advice
whatever the hidden deal."""

import numpy as np
import pytest
from click.testing import CliRunner
from pig_game import rules as pig_rules
from test_learned import features_after, pig_model, position

import simkit
from simkit import registry
from simkit.cli import main
from simkit.runner import RunSpec, plan
from simkit.search import GUIDED, KNOBS, Search
from simkit.search_template import (
    G_MODEL,
    PL_MOVE,
    PL_VALUE,
    T_N_POOLED,
    T_POOLED,
    W_HALVING,
    W_LEAF,
    W_PRIOR,
    W_PRIOR_ONCE,
    W_PRIOR_TEMPERATURE,
)

MOVES = np.array([pig_rules.ROLL, pig_rules.HOLD], np.int32)


def test_its_weights_row_matches_the_kernels_order():
    names = list(KNOBS) + list(GUIDED)
    assert names.index("prior") == W_PRIOR
    assert names.index("prior_temperature") == W_PRIOR_TEMPERATURE
    assert names.index("leaf_value") == W_LEAF
    assert names.index("prior_once") == W_PRIOR_ONCE
    assert names.index("halving") == W_HALVING
    assert len(names) == G_MODEL
    spec = registry.strategies_for("pig")["ismcts+learned"]
    assert list(spec.weights) == names and spec.needs_model and spec.searches


@pytest.mark.parametrize("prior_once", [0, 1])
def test_it_plays_complete_games_the_same_on_any_number_of_workers(prior_once):
    model = {"ismcts+learned@6": pig_model(own_banked=1.0, hidden=3, seed=2)}
    runs = [simkit.runner.run_games(
        RunSpec.make("pig", 2, 8, 5, "ismcts+learned@6,hold-at", models=model,
                     weights=[f"ismcts+learned.prior_once={prior_once}"]), workers=w)
        for w in (1, 2)]
    a, b = (r.games for r in runs)
    assert (a.end_reason != "timeout").all()
    assert a.drop(columns=[c for c in a if "time" in c]).equals(
        b.drop(columns=[c for c in b if "time" in c]))
    stats = runs[0].meta["search"]["ismcts+learned@6"]
    assert stats["decisions"] > 0 and stats["iterations_per_decision"] == 6


def visits(p, model, prior, seed=3):
    """The root's visits of ROLL and HOLD from a Pig position, playouts alone scoring the
    leaves (``leaf_value`` 0): only the prior can differ between models."""
    search = Search(p, "guided", {"iterations": 60, "prior": prior, "leaf_value": 0.0,
                                  "prior_temperature": 0.05}, model=model)
    state = position(p, turn_total=12, banked=(10, 10))
    search.decide(state, 0, MOVES, 2, np.array([seed], np.uint64))
    found = {int(MOVES[k]): v for k, v, _ in search.root(MOVES, 2, 0)}
    return found.get(pig_rules.ROLL, 0), found.get(pig_rules.HOLD, 0)


def test_the_prior_moves_the_visits_to_the_move_its_model_values():
    p = plan(RunSpec.make("pig", 2, 1))
    holds, rolls = pig_model(own_banked=0.1), pig_model(own_banked=-0.1)
    assert visits(p, holds, 0) == visits(p, rolls, 0)  # no prior: the model is not read
    roll_h, hold_h = visits(p, holds, 5)
    roll_r, hold_r = visits(p, rolls, 5)
    assert hold_h > hold_r + 10 and roll_r > roll_h + 10
    assert hold_h + roll_h == 60 == hold_r + roll_r


def searched(p, model, state, prior_once, pool_rows=0):
    """The guided search after one decision from ``state`` (prior 5, playouts alone scoring
    the leaves), with a pool of ``pool_rows`` rows when that is given."""
    search = Search(p, "guided", {"iterations": 60, "prior": 5.0, "leaf_value": 0.0,
                                  "prior_once": prior_once}, model=model)
    if pool_rows:
        search.ws.pool = np.zeros((pool_rows, 2), np.float64)
    search.decide(state, 0, MOVES, 2, np.array([3], np.uint64))
    return search


def test_prior_once_values_a_nodes_moves_at_its_first_expansion_and_keeps_them():
    """The root's two moves are valued once and kept in the pool's first rows (holding's
    value is the model's of the position after it); every node valued has rows of its own,
    one a legal move there, one node's after another's."""
    p = plan(RunSpec.make("pig", 2, 1))
    model = pig_model(own_banked=0.1, hidden=3, seed=5)
    state = position(p, turn_total=12, banked=(10, 10))
    search = searched(p, model, state, 1)
    tree, pool = search.ws.tree_i[:61], search.ws.pool
    assert (tree[0, T_POOLED], tree[0, T_N_POOLED]) == (0, 2)
    assert list(pool[:2, PL_MOVE]) == list(MOVES)
    hold = features_after(p, state, pig_rules.HOLD, 0)
    assert pool[1, PL_VALUE] == pytest.approx(model.value(0, hold[None])[0], rel=1e-12)
    # (rows past the tree's last node are never written: zeros, no moves)
    spans = sorted((int(a), int(n)) for a, n in tree[:, [T_POOLED, T_N_POOLED]] if n > 0)
    assert len(spans) > 5
    assert all(a + n == b for (a, n), (b, _) in zip(spans, spans[1:], strict=False))


def test_without_room_in_the_pool_prior_once_searches_as_without_it():
    """A node met when the pool is full is valued at every expansion, as with
    ``prior_once`` 0: the same visits, to the last one; with room, the kept values change
    the search."""
    p = plan(RunSpec.make("pig", 2, 1))
    model = pig_model(own_banked=0.1, hidden=3, seed=5)
    state = position(p, turn_total=12, banked=(10, 10))
    fresh = searched(p, model, state, 0).root(MOVES, 2, 0)
    assert searched(p, model, state, 1, pool_rows=1).root(MOVES, 2, 0) == fresh
    assert searched(p, model, state, 1).root(MOVES, 2, 0) != fresh


def test_a_leaf_is_valued_by_the_model():
    """With the model scoring the leaves alone (``leaf_value`` 1, no prior), two iterations
    try each root move once: holding's mean reward is the model's values of the position
    after it, each seat's divided by their sum."""
    p = plan(RunSpec.make("pig", 2, 1))
    state = position(p, turn_total=12, banked=(10, 10))
    model = pig_model(own_banked=0.1, hidden=3, seed=5)
    search = Search(p, "guided", {"iterations": 2, "prior": 0.0, "leaf_value": 1.0},
                    model=model)
    search.decide(state, 0, MOVES, 2, np.array([4], np.uint64))
    found = {int(MOVES[k]): (v, mean) for k, v, mean in search.root(MOVES, 2, 0)}
    v = [model.value(s, features_after(p, state, pig_rules.HOLD, s)[None])[0] for s in (0, 1)]
    assert found[pig_rules.HOLD] == (1, pytest.approx(v[0] / (v[0] + v[1]), rel=1e-9))


def halved(p, model, moves, k, iterations=64, seed=3):
    """The guided search by sequential halving (``halving`` k, playouts alone scoring the
    leaves) after one decision from a Pig position: (the index it chose, its root)."""
    search = Search(p, "guided", {"iterations": iterations, "halving": k, "leaf_value": 0.0},
                    model=model)
    state = position(p, turn_total=12, banked=(10, 10))
    chosen = search.decide(state, 0, moves, len(moves), np.array([seed], np.uint64))
    return chosen, search.root(moves, len(moves), 0)


def test_halving_of_one_plays_the_move_its_model_values_most():
    p = plan(RunSpec.make("pig", 2, 1))
    for sign, best in ((1.0, pig_rules.HOLD), (-1.0, pig_rules.ROLL)):
        for seed in range(5):
            chosen, root = halved(p, pig_model(own_banked=sign), MOVES, 1, seed=seed)
            assert MOVES[chosen] == best and root == []  # no playout: nothing visited


def test_halving_plays_every_candidate_on_the_same_dice_and_keeps_the_better_half():
    """The same move twice (two candidates with one effect) gets the same reward to the
    last bit in every sample, because each sample plays both from one determinisation
    and one point of the stream; and of two different moves the one with the better mean
    is played, after both got an equal share of a single round."""
    p = plan(RunSpec.make("pig", 2, 1))
    model = pig_model(own_banked=0.1, hidden=3, seed=5)
    twice = np.array([pig_rules.ROLL, pig_rules.ROLL], np.int32)
    for seed in range(4):
        _, root = halved(p, model, twice, 2, seed=seed)
        (_, v0, m0), (_, v1, m1) = root
        assert v0 == v1 == 32 and m0 == m1 and 0 < m0 < 1
    chosen, root = halved(p, model, MOVES, 2)
    assert sorted(v for _, v, _ in root) == [32, 32]
    best = max(root, key=lambda r: r[2])
    assert chosen == best[0]


def test_halving_spends_its_budget_over_rounds_on_the_candidates_its_model_values_most():
    """Four candidates among a Dolina królików draft's legal moves, by the shipped model's
    values: two rounds, the first giving each a quarter of half the budget, the second the
    better two the rest; a move outside the four is never played out."""
    from simkit import learn

    game = "dolina-krolikow"
    spec = registry.get_game(game)
    p = plan(RunSpec.make(game, 2, 1))
    model = learn.read_model(learn.shipped_model_path(spec, 2), game, 2, tuple(spec.features))
    rules = spec.rules
    state = np.zeros(p.state_size, np.int32)
    chance = np.array([7], np.uint64)
    rules.new_game(p.compiled, 2, state, chance)
    moves = np.zeros(p.max_moves, np.int32)
    items = np.zeros((2, len(p.item_columns)), np.int32)
    while (n := rules.legal_moves(p.compiled, state, moves)) < 8:  # on to the first draft
        rules.apply_move(p.compiled, state, moves[0], chance, items)
    seat = rules.to_move(state)
    obs = np.zeros(p.state_size, np.int32)
    rules.observe(p.compiled, state, seat, obs)
    values = learn.Learned(p, model).values(obs, seat, moves, n, np.array([2], np.uint64))
    search = Search(p, "guided", {"iterations": 80, "halving": 4, "leaf_value": 0.0},
                    model=model)
    chosen = search.decide(obs, seat, moves, n, np.array([2], np.uint64))
    root = search.root(moves, n, seat)
    assert {k for k, _, _ in root} == set(np.argsort(-values, kind="stable")[:4])
    assert sorted(v for _, v, _ in root) == [10, 10, 30, 30]
    assert chosen == root[0][0] and root[0][1] == 30


def test_cutoff_model_scores_a_cut_playout_by_the_models_values():
    """A playout cut after one decision is scored by the model's rewards of the position
    where it was cut: with a model that values every position alike for each seat (its
    biases alone), both root moves' mean reward is seat 0's value over the two seats' sum,
    wherever the cut fell (the root alone, by halving: no game ends within a move and one
    decision here)."""
    import math

    p = plan(RunSpec.make("pig", 2, 1))
    model = pig_model()
    model.b2[:] = [0.8, -0.3]
    v0, v1 = (1 / (1 + math.exp(-b)) for b in (0.8, -0.3))
    state = position(p, turn_total=12, banked=(10, 10))
    search = Search(p, "guided", {"iterations": 40, "halving": 2, "leaf_value": 0.0,
                                  "rollout_depth": 1, "cutoff": 3.0}, model=model)
    search.decide(state, 0, MOVES, 2, np.array([3], np.uint64))
    root = search.root(MOVES, 2, 0)
    assert sum(v for _, v, _ in root) == 40
    assert all(mean == pytest.approx(v0 / (v0 + v1), rel=1e-12) for _, _, mean in root)
    tree = Search(p, "guided", {"iterations": 2, "prior": 0.0, "leaf_value": 0.0,
                                "rollout_depth": 1, "cutoff": 3.0}, model=model)
    tree.decide(state, 0, MOVES, 2, np.array([3], np.uint64))  # each root move a leaf once
    assert sorted((v, mean) for _, v, mean in tree.root(MOVES, 2, 0)) == [
        (1, pytest.approx(v0 / (v0 + v1), rel=1e-12))] * 2
    even = Search(p, "guided", {"iterations": 40, "halving": 2, "leaf_value": 0.0,
                                "rollout_depth": 1, "cutoff": 0.0}, model=model)
    even.decide(state, 0, MOVES, 2, np.array([3], np.uint64))
    assert all(mean == 0.5 for _, _, mean in even.root(MOVES, 2, 0))


def test_cutoff_model_without_a_model_is_refused_in_one_line():
    result = CliRunner().invoke(main, ["run", "pig", "--players", "2", "--games", "2",
                                       "--strategies", "ismcts@10,hold-at", "--weight",
                                       "ismcts.cutoff=model"])
    assert result.exit_code == 2
    assert "cutoff model scores a cut playout by a learnt model, which only " \
        "ismcts+learned has; cutoff choices: even, standing, progress" in result.output


def test_a_game_without_features_is_refused_naming_the_kernel(tmp_path):
    res = CliRunner().invoke(main, ["run", "connect-four", "--games", "2", "--strategies",
                                    "ismcts+learned@5", "--out", str(tmp_path / "r")])
    assert res.exit_code == 2
    lines = [ln for ln in res.output.splitlines() if ln.strip()]
    assert len(lines) == 1 and "features" in lines[0] and "ismcts+learned" in lines[0]
    assert "Traceback" not in res.output


# ---------------------------------------------------------------- advice


def other_deal(p, rules, state, seat, seed):
    obs = np.zeros(p.state_size, np.int32)
    rules.observe(p.compiled, state, seat, obs)
    other = np.zeros(p.state_size, np.int32)
    rules.determinize(p.compiled, obs, seat, other, np.array([seed], np.uint64),
                      np.zeros(p.state_size, np.int32))
    return obs, other


@pytest.mark.parametrize("strategy", ["ismcts+learned@12", "learned"])
def test_two_true_states_with_one_observation_get_one_advice(strategy):
    game = "rabbit-hunt"
    p = plan(RunSpec.make(game, 2, 1))
    rules = registry.get_game(game).rules
    state = np.zeros(p.state_size, np.int32)
    rules.new_game(p.compiled, 2, state, np.array([21], np.uint64))
    moves = np.zeros(p.max_moves, np.int32)
    items = np.zeros((2, max(1, len(p.item_columns))), np.int32)
    rng = np.random.default_rng(3)
    for _ in range(9):  # a few moves in: cards placed, some unseen
        n = rules.legal_moves(p.compiled, state, moves)
        rules.apply_move(p.compiled, state, moves[rng.integers(n)], np.array([5], np.uint64),
                         items)
    seat = int(rules.to_move(state))
    obs, other = other_deal(p, rules, state, seat, 77)
    assert (other != state).any(), "the other true state differs in what the seat cannot see"
    seen = np.zeros_like(obs)
    advices = []
    for true in (state, other):
        rules.observe(p.compiled, true, seat, seen)
        advices.append(simkit.advice(game, seen.copy(), seat, strategy, seed=9))
    assert advices[0] == advices[1]
    a = advices[0]
    n = rules.legal_moves(p.compiled, state, moves)
    assert sorted(r.move for r in a.ratings) == sorted(moves[:n].tolist())
    assert a.ratings[0].move == a.move and a.label == a.ratings[0].label
    if strategy == "learned":  # by its policy: scores in score shares, the best first
        assert all(np.isfinite(r.value) for r in a.ratings)
        assert a.ratings[0].value == max(r.value for r in a.ratings)
    else:
        assert sum(r.visits for r in a.ratings) == 12
    assert len(a.table()) == n and a.label in str(a)


def test_advice_at_a_recorded_decision_gives_the_move_the_search_played(tmp_path):
    out = tmp_path / "run"
    res = CliRunner().invoke(main, ["run", "pig", "--players", "2", "--games", "2",
                                    "--strategies", "ismcts@20,hold-at", "--out", str(out),
                                    "--quiet"])
    assert res.exit_code == 0, res.output
    run, row, names = simkit.replay.run_game(out, 1)
    q = plan(run)
    seat = names.index("ismcts@20")
    decision = next(d for d in range(1, 40)
                    if simkit.replay.state_at(q, int(row["seed"]), names, d)[1] == seat)
    a = simkit.advice_at(out, 1, decision, seed=0)
    assert a.seat == seat and a.strategy == "ismcts@20" and a.played is not None
    assert sum(x.visits for x in a.ratings) == 20
    with pytest.raises(simkit.errors.SimkitError, match="decision must be a number"):
        simkit.advice_at(out, 1, 10**6)


def test_simkit_games_lists_it_with_its_defaults():
    res = CliRunner().invoke(main, ["games"])
    assert res.exit_code == 0, res.output
    lines = res.output.splitlines()
    at = next(i for i, ln in enumerate(lines) if ln.startswith("rabbit-hunt "))
    assert "ismcts+learned" in lines[at]
    assert any("ismcts+learned defaults: iterations 500" in ln for ln in lines[at:at + 8])
    assert any(ln.strip().startswith("prior_temperature") for ln in lines)
    four = next(ln for ln in lines if ln.startswith("connect-four "))
    assert "ismcts+learned" not in four  # no features kernel


