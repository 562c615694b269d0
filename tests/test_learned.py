"""The ``learned`` strategy (docs/learning.md) on Pig with hand-made models: it plays the
move whose afterstate its model values most, samples by temperature, values a move that
ends the game by the exact score share, allocates nothing a decision; its model files are
checked (one line, exit 2), a run refuses a model of other data unless told, copies its
model into its folder, and ``replay --run`` plays the same game from that copy."""

import json

import numpy as np
import pytest
from click.testing import CliRunner
from numba.core.runtime import _nrt_python, rtsys
from pig_game import rules

from simkit import data, learn, registry
from simkit.cli import main
from simkit.runner import RunSpec, plan, workspace
from simkit.search import load_search

PIG = registry.get_game("pig")
F = {name: i for i, name in enumerate(PIG.features)}


def pig_model(players=2, hidden=0, seed=0, digest=None, game="pig", **coef) -> learn.Model:
    """A Pig model whose every seat's value is sigmoid(sum coef[name] * feature) (hidden
    0), or a random network of ``hidden`` units."""
    card = {"kind": learn.KIND, "format": learn.FORMAT, "game": game, "players": players,
            "game_version": PIG.version,
            "data_digest": digest or data.data_digest(PIG.data),
            "features": list(PIG.features)}
    rng = np.random.default_rng(seed)
    m = learn.new_model(card, len(F), hidden, list(range(players)), rng)
    for name, c in coef.items():
        m.w2[:, F[name]] = c
    if hidden:
        m.w2[:] = rng.normal(0, 1, m.w2.shape)
        m.mean[:] = rng.normal(0, 5, len(F))
        m.std[:] = rng.uniform(1, 10, len(F))
    return m


def position(p, seat=0, turn_total=0, banked=(0, 0)):
    state = np.zeros(p.state_size, np.int32)
    state[rules.N_PLAYERS] = len(banked)
    state[rules.SEAT] = seat
    state[rules.TURN_TOTAL] = turn_total
    state[rules.WINNER] = -1
    state[rules.BANKED:rules.BANKED + len(banked)] = banked
    return state


def features_after(p, state, move, seat, chance=1):
    after = state.copy()
    rules.apply_move(p.compiled, after, move, np.array([chance], np.uint64),
                     np.zeros((2, 3), np.int32))
    obs = after.copy()
    out = np.zeros(len(F))
    rules.features(p.compiled, obs, seat, out)
    return out


@pytest.fixture(scope="module")
def p():
    return plan(RunSpec.make("pig", 2, 1))


MOVES = np.array([rules.ROLL, rules.HOLD], np.int32)


def test_it_plays_the_move_whose_afterstate_the_model_values_most(p):
    state = position(p, turn_total=10, banked=(5, 12))
    for sign, best in ((1.0, rules.HOLD), (-1.0, rules.ROLL)):
        chooser = learn.Learned(p, pig_model(own_banked=sign))
        for s in range(20):  # whatever the die shows after a roll: banking adds 10
            k = chooser.decide(state, 0, MOVES, 2, np.array([s], np.uint64))
            assert MOVES[k] == best


def test_its_values_are_the_networks_of_each_afterstate(p):
    m = pig_model(hidden=5, seed=3)
    chooser = learn.Learned(p, m)
    state = position(p, seat=1, turn_total=6, banked=(9, 4))
    v = chooser.values(state, 1, MOVES, 2, np.array([7], np.uint64))
    hold = features_after(p, state, rules.HOLD, 1)
    assert v[1] == pytest.approx(m.value(1, hold[None])[0], rel=1e-12)
    assert 0 < v[0] < 1 and v[0] != v[1]


@pytest.mark.parametrize("hidden", [0, 3, 8, 11, 32])
def test_the_kernel_sums_each_hidden_unit_in_feature_order_to_the_last_bit(hidden):
    """The kernel's value is the network's summed one unit at a time, each unit from its
    bias over the features in order: the same bits, whatever the units' layout in the row
    and however many of them are summed together (Dolina królików's 94 features, where
    another order of the sums would differ in the last bits)."""
    import math

    game = "dolina-krolikow"
    spec = registry.get_game(game)
    base = learn.read_model(learn.shipped_model_path(spec, 2), game, 2, tuple(spec.features))
    rng = np.random.default_rng(hidden)
    k_nets, f = base.w1.shape[0], base.n_features
    m = learn.Model(base.card, base.mean, base.std, rng.normal(0, 0.3, (k_nets, hidden, f)),
                    rng.normal(0, 1, (k_nets, hidden)),
                    rng.normal(0, 1, (k_nets, hidden if hidden else f)),
                    rng.normal(0, 1, k_nets), base.seat_net)
    row = np.concatenate([np.array(list(learn.NAMED.values())), m.flat()])
    value = load_search(game).model_value
    for seat in (0, 1):
        for _ in range(20):
            x = m.mean + m.std * rng.normal(0, 2, f)
            k = int(m.seat_net[seat])
            z = [(x[i] - m.mean[i]) * (1.0 / m.std[i]) for i in range(f)]
            out = m.b2[k]
            if hidden:
                for h in range(hidden):
                    a = m.b1[k, h]
                    for i in range(f):
                        a += m.w1[k, h, i] * z[i]
                    out += m.w2[k, h] * math.tanh(a)
            else:
                for i in range(f):
                    out += m.w2[k, i] * z[i]
            assert value(row, seat, x.copy()) == 0.5 * (1.0 + math.tanh(0.5 * out))


def test_a_move_that_ends_the_game_is_worth_its_exact_score_share(p):
    state = position(p, turn_total=10, banked=(25, 3))  # holding reaches 30: a win
    chooser = learn.Learned(p, pig_model(own_banked=-5.0))  # the model hates banking
    v = chooser.values(state, 0, MOVES, 2, np.array([1], np.uint64))
    assert v[1] == 1.0 and v[0] < 0.5
    assert MOVES[chooser.decide(state, 0, MOVES, 2, np.array([1], np.uint64))] == rules.HOLD


def test_temperature_samples_a_softmax_of_the_values_and_ties_split():
    pick = load_search("pig").learned_pick
    values = np.array([0.50, 0.55, 0.40])
    row = np.zeros(3)
    stream = np.array([5], np.uint64)
    assert {pick(values, 3, row, stream) for _ in range(50)} == {1}  # greedy
    row[0] = 0.05  # temperature
    draws = np.bincount([pick(values, 3, row, stream) for _ in range(6000)], minlength=3)
    want = np.exp(values / 0.05) / np.exp(values / 0.05).sum()
    assert np.all(np.abs(draws / 6000 - want) < 4 * np.sqrt(want * (1 - want) / 6000))
    row[0] = 0.0
    tied = np.array([0.3, 0.7, 0.7])
    draws = np.bincount([pick(tied, 3, row, stream) for _ in range(2000)], minlength=3)
    assert draws[0] == 0 and 900 < draws[1] < 1100
    row[1] = 1.0  # epsilon 1: uniform whatever the values
    draws = np.bincount([pick(values, 3, row, stream) for _ in range(3000)], minlength=3)
    assert np.all(np.abs(draws - 1000) < 130)


def with_policy(m: learn.Model, codes, w, b, temperature=0.02) -> learn.Model:
    """``m`` with a hand-made policy: ``codes`` (sorted), ``w`` float[K, M + 1, F], ``b``
    float[K, M + 1]."""
    m.policy_codes = np.asarray(codes, np.int64)
    m.policy_w, m.policy_b = np.asarray(w, float), np.asarray(b, float)
    m.card["policy"] = {"temperature": temperature}
    m._bytes = None
    return m


def policy_model(seed=1) -> learn.Model:
    """A network of 4 hidden units with a random policy over Pig's two moves."""
    rng = np.random.default_rng(seed)
    return with_policy(pig_model(hidden=4, seed=seed), MOVES[np.argsort(MOVES)],
                       rng.normal(0, 1, (2, 3, len(F))), rng.normal(0, 1, (2, 3)))


@pytest.mark.parametrize("strategy,policy,weights", [
    ("learned", False, []), ("learned", True, []), ("learned", True, ["learned.top=2"]),
    ("ismcts+learned@8", False, [])])
def test_a_decision_allocates_nothing(strategy, policy, weights):
    """A game played on by seats that play by a model, ``learned`` (by values, by a policy,
    by a policy's shortlist valued) or the guided search (the driver's own ``play_out``,
    called from Python), allocates as much for one decision as for a whole game: nothing a
    decision."""
    model = policy_model() if policy else pig_model(hidden=4, seed=1)
    run = RunSpec.make("pig", 2, 1, strategies=strategy, models={strategy: model},
                       weights=weights)
    q = plan(run)
    start = position(q)

    def play(budget):
        return q.driver.module.play_out(
            q.compiled, 2, q.seat_codes, q.kernels, q.weights, q.max_turns, start.copy(),
            np.empty_like(start), np.empty(q.max_moves, np.int32),
            np.arange(1, 4, dtype=np.uint64), np.zeros((2, 3), np.int32), np.zeros(2),
            np.zeros(2, np.int32), np.zeros(0, np.int32), budget, workspace(q)[1])[2]

    def allocations(budget):
        before = rtsys.get_allocation_stats()
        decisions = play(budget)
        return rtsys.get_allocation_stats().alloc - before.alloc, decisions

    play(-1)  # compiled
    was_on = _nrt_python.memsys_stats_enabled()
    _nrt_python.memsys_enable_stats()
    try:
        one, _ = allocations(1)
        whole, decisions = allocations(-1)
    finally:
        if not was_on:
            _nrt_python.memsys_disable_stats()
    assert decisions > 10
    assert one == whole


# ---------------------------------------------------------------- files and runs

def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


def one_line_error(res, *words):
    assert res.exit_code == 2, res.output
    lines = res.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:"), res.output
    for w in words:
        assert w in lines[0], lines[0]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    root = tmp_path_factory.mktemp("models")
    out = {}
    for name, model in (("good", pig_model(own_if_held=0.3, next_banked=-0.3)),
                        ("three", pig_model(players=3)),
                        ("other", pig_model(game="connect-four"))):
        learn.write_model(model, root / f"{name}.npz")
        out[name] = root / f"{name}.npz"
    raw = out["good"].read_bytes()
    (root / "corrupt.npz").write_bytes(raw[: len(raw) // 2])
    out["corrupt"] = root / "corrupt.npz"
    np.savez(root / "foreign.npz", a=np.arange(3))
    out["foreign"] = root / "foreign.npz"
    out["missing"] = root / "nope.npz"
    return out


@pytest.mark.parametrize("which,words", [
    ("missing", ["does not exist"]), ("corrupt", ["corrupt model file"]),
    ("foreign", ["not a simkit model"]), ("other", ["a model of connect-four, not of pig"]),
    ("three", ["at 3 players, not 2"])])
def test_a_bad_model_file_is_one_line(files, which, words, tmp_path):
    res = invoke("run", "pig", "--players", 2, "--games", 10, "--strategies", "learned",
                 "--weight", f"learned.model={files[which]}", "--out", tmp_path / "r")
    one_line_error(res, *words)
    assert not (tmp_path / "r").exists()


def test_a_model_file_for_a_run_without_learned_is_one_line(files, tmp_path):
    res = invoke("run", "pig", "--players", 2, "--games", 10, "--weight",
                 f"learned.model={files['good']}", "--out", tmp_path / "r")
    one_line_error(res, "no seat of this run plays learned", "its strategies: random")


def test_a_model_of_other_data_is_refused_unless_told(files, tmp_path):
    args = ["run", "pig", "--players", 2, "--games", 40, "--strategies", "learned,random",
            "--weight", f"learned.model={files['good']}", "--set", "target=40", "--workers", 1]
    one_line_error(invoke(*args, "--out", tmp_path / "a"), "default data",
                   "--model-mismatch ok")
    res = invoke(*args, "--out", tmp_path / "b", "--model-mismatch", "ok")
    assert res.exit_code == 0, res.output
    assert "played with the model of the default data" in res.output
    meta = json.loads((tmp_path / "b" / "run.json").read_text())
    assert meta["model_mismatch"] and meta["models"]["learned"]["mismatch"]


def test_a_run_keeps_its_model_and_replays_from_it(files, tmp_path):
    folder = tmp_path / "r"
    res = invoke("run", "pig", "--players", 2, "--games", 30, "--strategies", "learned,random",
                 "--weight", f"learned.model={files['good']}", "--out", folder, "--quiet",
                 "--workers", 1)
    assert res.exit_code == 0, res.output
    meta = json.loads((folder / "run.json").read_text())
    copy = folder / meta["models"]["learned"]["file"]
    assert copy.read_bytes() == files["good"].read_bytes()
    assert meta["models"]["learned"]["digest"] == learn.read_model(copy).digest
    assert meta["data_digest"] == data.data_digest(PIG.data)
    files["good"].rename(files["good"].with_suffix(".gone"))  # the copy alone is left
    try:
        for game in (4, 17):
            res = invoke("replay", "--run", folder, "--game", game)
            assert res.exit_code == 0, res.output
            assert "(matches the recorded row)" in res.output
    finally:
        files["good"].with_suffix(".gone").rename(files["good"])


def test_a_game_without_features_is_refused_naming_the_kernel(tmp_path):
    res = invoke("run", "connect-four", "--games", 5, "--strategies", "learned",
                 "--out", tmp_path / "r")
    one_line_error(res, "features kernel")


def test_a_dask_worker_plays_the_model_it_is_sent():
    """A worker's process starts with no model: ``remote_chunk`` gets the run's models
    with the chunk and plays the games a local thread plays."""
    from simkit import runner

    m = pig_model(hidden=3, seed=9)
    run = RunSpec.make("pig", 2, 6, seed=4, strategies="learned,random",
                       models={"learned": m})
    local = runner.play_chunk(plan(run), 0, 6)
    files = runner.model_files(run)
    learn._STORE.clear()
    runner.plan.cache_clear()
    with pytest.raises(Exception, match="not loaded"):
        runner.remote_chunk(run, 0, 6)
    far = runner.remote_chunk(run, 0, 6, {m.digest: files["models/learned.npz"]})
    assert np.array_equal(far.ranks, local.ranks) and np.array_equal(far.turns, local.turns)


def test_a_user_model_of_other_features_is_one_line_naming_the_way_back(tmp_path,
                                                                       monkeypatch):
    """A model the user trained (simkit's cache) before the game's features changed is
    refused in one line that says to train it again or remove it (the shipped one then
    plays), not passed over in silence."""
    monkeypatch.setenv("SIMKIT_CACHE_DIR", str(tmp_path / "cache"))
    old = pig_model()
    old.card["features"] = [*old.card["features"][:-1], "a_feature_since_renamed"]
    path = learn.user_model_path("pig", 2, data.data_digest(PIG.data))
    learn.write_model(old, path)
    args = ["run", "pig", "--players", 2, "--games", 10, "--strategies", "learned,random"]
    one_line_error(invoke(*args, "--out", tmp_path / "a"), str(path), "other features",
                   "a_feature_since_renamed", "train it again", "remove it")
    path.unlink()
    assert invoke(*args, "--out", tmp_path / "b").exit_code == 0


def test_a_run_that_plays_the_users_own_model_says_so(tmp_path, monkeypatch):
    """``simkit train`` writes to simkit's cache, and a run plays that model in place of the
    shipped one: the summary says so, naming the file."""
    monkeypatch.setenv("SIMKIT_CACHE_DIR", str(tmp_path / "cache"))
    path = learn.user_model_path("pig", 2, data.data_digest(PIG.data))
    learn.write_model(pig_model(own_if_held=0.3), path)
    args = ["run", "pig", "--players", 2, "--games", 10, "--strategies", "learned,random",
            "--workers", 1]
    res = invoke(*args, "--out", tmp_path / "a")
    assert res.exit_code == 0, res.output
    said = " ".join(res.output.split())
    assert f"learned played your model {path}" in said and "remove it" in said
    path.unlink()
    res = invoke(*args, "--out", tmp_path / "b")
    assert res.exit_code == 0 and "your model" not in res.output


SHIPPED = [(name, path) for name, spec in registry.games().items()
           for path in sorted((spec.package_dir / "models").glob("*.npz"))]


@pytest.mark.parametrize("game,path", SHIPPED, ids=[f"{g}-{p.stem}" for g, p in SHIPPED])
def test_a_shipped_model_fits_its_game_as_it_is(game, path):
    """A model a game ships is of its VERSION, its default data and its features now, at
    the player count its name says: a rules or data change fails here until it is trained
    again (the README gives each model's command)."""
    spec = registry.get_game(game)
    players = int(path.stem.removesuffix("p"))
    model = learn.read_model(path, game, players, tuple(spec.features))
    assert model.card["game_version"] == spec.version, "trained on another VERSION"
    assert model.card["data_digest"] == data.data_digest(spec.data), "trained on other data"
    assert model.card["training"]["command"].startswith(f"simkit train {game} ")


def test_a_resumed_run_plays_the_model_it_kept(files, tmp_path, monkeypatch):
    """Ctrl-C keeps the model with the games; ``--resume`` plays that copy (the file it came
    from may be gone) and gives the tables of the uninterrupted run."""
    import os
    import shutil
    import signal

    import pandas as pd

    from simkit import runner
    from simkit.results import read_run

    model = tmp_path / "m.npz"
    shutil.copy(files["good"], model)
    args = ["run", "pig", "--players", 2, "--games", 900, "--strategies", "learned,random",
            "--chunk-size", 300, "--workers", 1, "--quiet"]
    assert invoke(*args, "--weight", f"learned.model={model}", "--out",
                  tmp_path / "whole").exit_code == 0
    real, calls = runner.play_chunk, {"n": 0}

    def interrupted(p, start, count):
        calls["n"] += 1
        if calls["n"] == 3:  # the warm-up game, a chunk, then Ctrl-C in the second
            os.kill(os.getpid(), signal.SIGINT)
        return real(p, start, count)

    monkeypatch.setattr(runner, "play_chunk", interrupted)
    res = invoke(*args, "--weight", f"learned.model={model}", "--out", tmp_path / "cut")
    assert res.exit_code == 130
    monkeypatch.undo()
    assert (tmp_path / "cut" / "models" / "learned.npz").is_file()
    model.unlink()
    res = invoke(*args, "--out", tmp_path / "cut", "--resume")
    assert res.exit_code == 0, res.output
    pd.testing.assert_frame_equal(read_run(tmp_path / "whole").games,
                                  read_run(tmp_path / "cut").games)
