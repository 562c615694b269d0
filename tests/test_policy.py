"""``learned`` by a policy (docs/learning.md, "The policy"), on Pig: the policy kernel scores
each legal move from the observation alone as the model file says; ``learned.by=values``
and a model without a policy play by the afterstate values; ``learned.top`` values the
policy's shortlist; a distilled policy is the same bytes on one and two workers; a corrupt
policy is one line, exit 2."""

import numpy as np
import pytest
from click.testing import CliRunner
from pig_game import rules
from test_learned import MOVES, F, one_line_error, pig_model, position, with_policy

from simkit import learn
from simkit.cli import main
from simkit.results import read_run
from simkit.runner import RunSpec, plan
from simkit.search import load_search


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


@pytest.fixture(scope="module")
def p():
    return plan(RunSpec.make("pig", 2, 1))


def features_of(p, state, seat):
    out = np.zeros(len(F))
    rules.features(p.compiled, state.copy(), seat, out)
    return out


def built():
    """A model whose policy knows ROLL alone: seat 0's ROLL row weighs the turn total -0.5
    and a bias 1, the row of any other code (HOLD) a bias 0.25; seat 1's rows the reverse
    sign. Its values would hold always (own_banked +5)."""
    m = pig_model(own_banked=5.0)
    m.mean[:] = np.arange(len(F))  # a standardisation the kernel must apply
    m.std[:] = 2.0
    w = np.zeros((2, 2, len(F)))
    b = np.zeros((2, 2))
    w[0, 0, F["own_at_risk"]], b[0] = -0.5, (1.0, 0.25)
    w[1, 0, F["own_at_risk"]], b[1] = 0.5, (-1.0, -0.25)
    return with_policy(m, [rules.ROLL], w, b, temperature=0.1)


def test_the_policy_kernel_scores_each_move_from_the_observation(p):
    m = built()
    assert rules.HOLD not in m.policy_codes  # HOLD takes the row of an unknown code
    module = load_search("pig")
    state = position(p, seat=0, turn_total=6, banked=(9, 4))
    row = np.concatenate([np.array(list(learn.NAMED.values())), m.flat()])
    feat, values = np.zeros(len(F)), np.zeros(2)
    module.policy_values(p.compiled, state, 0, MOVES, 2, row, feat, values)
    z = (features_of(p, state, 0) - m.mean) / m.std
    roll = 0.1 * (-0.5 * z[F["own_at_risk"]] + 1.0)
    by_move = dict(zip(MOVES.tolist(), values, strict=True))
    assert by_move[rules.ROLL] == pytest.approx(roll, rel=1e-12)
    assert by_move[rules.HOLD] == pytest.approx(0.1 * 0.25, rel=1e-12)
    assert values == pytest.approx(m.policy_values(0, features_of(p, state, 0), MOVES))
    module.policy_values(p.compiled, state, 1, MOVES, 2, row, feat, values)  # seat 1's net
    assert values == pytest.approx(m.policy_values(1, features_of(p, state, 1), MOVES))


def test_learned_plays_the_policys_best_unless_told_to_play_by_values(p):
    m = built()
    chooser = learn.Learned(p, m)
    by_values = learn.Learned(p, m, {"by": learn.BY["values"]})
    no_policy = learn.Learned(p, m.without_policy())
    state = position(p, seat=0, turn_total=2, banked=(5, 12))  # the policy rolls here
    z = (features_of(p, state, 0) - m.mean) / m.std
    assert -0.5 * z[F["own_at_risk"]] + 1.0 > 0.25
    for s in range(10):
        stream = np.array([s], np.uint64)
        assert MOVES[chooser.decide(state, 0, MOVES, 2, stream)] == rules.ROLL
        assert MOVES[by_values.decide(state, 0, MOVES, 2, stream)] == rules.HOLD
        assert MOVES[no_policy.decide(state, 0, MOVES, 2, stream)] == rules.HOLD
    # top 2: the policy's two best are both valued by their afterstates, the values decide;
    # unless HOLD's score is further than the margin from ROLL's (0.1 * (0.75 - 0.25) apart)
    for margin, best in ((1.0, rules.HOLD), (0.06, rules.HOLD), (0.04, rules.ROLL)):
        top = learn.Learned(p, m, {"top": 2, "margin": margin})
        assert MOVES[top.decide(state, 0, MOVES, 2, np.array([3], np.uint64))] == best


def test_runs_by_policy_and_by_values_differ_and_the_weight_is_checked(tmp_path):
    path = tmp_path / "m.npz"
    learn.write_model(built(), path)
    args = ["run", "pig", "--players", 2, "--games", 40, "--strategies", "learned,random",
            "--weight", f"learned.model={path}", "--workers", 1, "--quiet"]
    by_policy = invoke(*args, "--out", tmp_path / "a")
    by_values = invoke(*args, "--weight", "learned.by=values", "--out", tmp_path / "b")
    assert by_policy.exit_code == 0 and by_values.exit_code == 0, by_policy.output
    a, b = read_run(tmp_path / "a").games, read_run(tmp_path / "b").games
    assert len(a) == len(b) == 40 and not a["decisions"].equals(b["decisions"])
    one_line_error(invoke(*args, "--weight", "learned.by=policies", "--out", tmp_path / "c"),
                   "learned.by", "policy, values")


def test_a_distilled_policy_is_the_same_bytes_on_one_and_two_workers(tmp_path):
    base = tmp_path / "base.npz"
    learn.write_model(pig_model(hidden=4, seed=2, own_banked=1.0, own_at_risk=0.3), base)
    outs = []
    for workers in (1, 2):
        out = tmp_path / f"w{workers}.npz"
        res = invoke("train", "pig", "--players", 2, "--from", base, "--distill-only",
                     "--policy-games", 40, "--seed", 4, "--workers", workers, "--out", out,
                     "--quiet")
        assert res.exit_code == 0, res.output
        outs.append(out)
    assert outs[0].read_bytes() == outs[1].read_bytes()
    m, b = learn.read_model(outs[0]), learn.read_model(base)
    assert m.has_policy and not b.has_policy
    for k in learn.ARRAYS:  # the values are the base model's
        assert np.array_equal(getattr(m, k), getattr(b, k))
    policy = m.card["policy"]
    assert "--distill-only --seed 4 --policy-games 40" in policy["command"]
    assert policy["games"] == 40 and policy["decisions"] > 40
    assert set(m.policy_codes.tolist()) == {rules.ROLL, rules.HOLD}
    assert m.move_features == list(rules.MOVE_FEATURES) and m.policy_a.shape[1] == 4


def test_distill_only_needs_a_model_and_no_values_budget(tmp_path):
    one_line_error(invoke("train", "pig", "--players", 2, "--distill-only"), "--from MODEL")
    base = tmp_path / "base.npz"
    learn.write_model(pig_model(), base)
    one_line_error(invoke("train", "pig", "--players", 2, "--from", base, "--distill-only",
                          "--games", 100), "--policy-games")
    one_line_error(invoke("train", "pig", "--players", 2, "--from", base, "--distill-only",
                          "--policy-temperature", 0, "--out", tmp_path / "x.npz"),
                   "--policy-temperature")
    assert not (tmp_path / "x.npz").exists()


def test_the_policys_knobs_are_refused_before_any_training(tmp_path):
    out = tmp_path / "m.npz"
    args = ("train", "pig", "--players", 2, "--games", 100, "--out", out)
    one_line_error(invoke(*args, "--policy-temperature", 0.1), "--policy-games")
    one_line_error(invoke(*args, "--policy-games", 40, "--policy-temperature", 0),
                   "--policy-temperature")
    assert not out.exists() and not list(tmp_path.iterdir())


@pytest.mark.parametrize("damage,words", [
    ("shape", "policy_w has shape"), ("half", "a policy without its policy_b array"),
    ("temperature", "no positive temperature"), ("order", "not a sorted list")])
def test_a_corrupt_policy_is_one_line(tmp_path, damage, words):
    m = built()
    if damage == "shape":
        m.policy_w = m.policy_w[:, :1]
    elif damage == "temperature":
        m.card["policy"] = {"temperature": -1}
    else:
        m.policy_codes = np.array([5, 2])
        m.policy_w, m.policy_b = np.zeros((2, 3, len(F))), np.zeros((2, 3))
    m._bytes = None
    path = tmp_path / "bad.npz"
    if damage == "half":  # a file holding a policy's codes and weights but not its biases
        import io
        import zipfile

        with zipfile.ZipFile(io.BytesIO(m.to_bytes())) as src, \
                zipfile.ZipFile(path, "w") as dst:
            for name in src.namelist():
                if name != "policy_b.npy":
                    dst.writestr(name, src.read(name))
    else:
        path.write_bytes(m.to_bytes())
    res = invoke("run", "pig", "--players", 2, "--games", 4, "--strategies", "learned",
                 "--weight", f"learned.model={path}", "--out", tmp_path / "r")
    one_line_error(res, "corrupt model file", words)
    assert not (tmp_path / "r").exists()


def test_advice_rates_each_move_by_the_policys_score(p, tmp_path):
    import simkit

    m = built()
    path = tmp_path / "m.npz"
    learn.write_model(m, path)
    state = position(p, seat=0, turn_total=2, banked=(5, 12))
    a = simkit.advice("pig", state.copy(), 0, "learned", weights=[f"learned.model={path}"])
    want = dict(zip(MOVES.tolist(), m.policy_values(0, features_of(p, state, 0), MOVES),
                    strict=True))
    assert a.move == rules.ROLL and a.ratings[0].move == rules.ROLL
    assert {r.move: r.value for r in a.ratings} == pytest.approx(want)


def test_a_training_stopped_while_distilling_resumes_to_the_same_bytes(tmp_path, monkeypatch):
    from simkit import distill

    args = ["train", "pig", "--players", 2, "--games", 100, "--generation-games", 100,
            "--match-games", 60, "--yardstick-games", 0, "--hidden", 4, "--seed", 5,
            "--workers", 1, "--quiet", "--policy-games", 30]
    whole = invoke(*args, "--out", tmp_path / "a.npz")
    assert whole.exit_code == 0, whole.output
    real = distill.fit

    def stopped(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(distill, "fit", stopped)
    cut = invoke(*args, "--out", tmp_path / "b.npz")
    assert cut.exit_code == 130 and "--resume" in cut.output
    assert not (tmp_path / "b.npz").exists()
    monkeypatch.setattr(distill, "fit", real)
    again = invoke(*args, "--out", tmp_path / "b.npz", "--resume")
    assert again.exit_code == 0, again.output
    assert (tmp_path / "b.npz").read_bytes() == (tmp_path / "a.npz").read_bytes()
    assert "--policy-games 30" in learn.read_model(tmp_path / "a.npz").card["training"][
        "command"]


MF = rules.MOVE_FEATURES


def with_move_features(m: learn.Model, seed: int = 3, hidden: int = 3) -> learn.Model:
    """``m``'s policy reading Pig's move features: drawn weights, a standardisation the
    kernel must apply."""
    rng = np.random.default_rng(seed)
    k, f, g = m.w1.shape[0], m.n_features, len(MF)
    m.policy_mmean, m.policy_mstd = rng.normal(0, 1, g), rng.uniform(0.5, 2, g)
    m.policy_u = rng.normal(0, 1, (k, g))
    m.policy_a, m.policy_bm = rng.normal(0, 1, (k, hidden, f)), rng.normal(0, 1, (k, hidden, g))
    m.policy_hb, m.policy_v = rng.normal(0, 1, (k, hidden)), rng.normal(0, 1, (k, hidden))
    m.card["policy"]["move_features"] = list(MF)
    m._bytes = None
    return m


def move_features_of(p, state, seat):
    out = np.zeros((len(MOVES), len(MF)))
    for j, move in enumerate(MOVES):
        rules.move_features(p.compiled, state.copy(), seat, move, out[j])
    return out


def test_a_policy_reads_each_moves_features_as_the_model_file_says(p, tmp_path):
    m = with_move_features(built())
    path = tmp_path / "m.npz"
    learn.write_model(m, path)
    m = learn.read_model(path, "pig", 2, tuple(F))  # the file round trip keeps every array
    module = load_search("pig")
    row = np.concatenate([np.array(list(learn.NAMED.values())), m.flat()])
    feat, values = np.zeros(len(F) + learn.SCRATCH), np.zeros(2)
    for seat, turn_total in ((0, 6), (1, 11)):
        state = position(p, seat=seat, turn_total=turn_total, banked=(9, 24))
        module.policy_values(p.compiled, state, seat, MOVES, 2, row, feat, values)
        want = m.policy_values(seat, features_of(p, state, seat), MOVES,
                               move_features_of(p, state, seat))
        assert values == pytest.approx(want, rel=1e-12)
        # the move features count: without them the scores differ
        plain = m.policy_w[m.seat_net[seat]][learn.move_rows(m.policy_codes, MOVES)]
        assert not np.allclose(values / 0.1, plain @ ((features_of(p, state, seat) - m.mean)
                                                      / m.std))


def test_a_policy_of_other_move_features_is_refused_in_one_line(tmp_path):
    m = with_move_features(built())
    m.card["policy"]["move_features"] = ["rolls", "banks", "risks", "doubles"]
    path = tmp_path / "m.npz"
    learn.write_model(m, path)
    res = invoke("run", "pig", "--players", 2, "--games", 4, "--strategies", "learned",
                 "--weight", f"learned.model={path}", "--out", tmp_path / "r")
    one_line_error(res, "other move features", "doubles", "--distill-only")
    assert not (tmp_path / "r").exists()
    m.card["policy"]["move_features"] = list(MF)
    m.policy_v = m.policy_v[:, :1]
    m._bytes = None
    path.write_bytes(m.to_bytes())
    res = invoke("run", "pig", "--players", 2, "--games", 4, "--strategies", "learned",
                 "--weight", f"learned.model={path}", "--out", tmp_path / "r")
    one_line_error(res, "corrupt model file", "policy_v has shape")


def test_a_distilled_policy_reads_the_move_features_with_the_hidden_units_asked(tmp_path):
    base = tmp_path / "base.npz"
    learn.write_model(pig_model(hidden=4, seed=2, own_banked=1.0, own_at_risk=0.3), base)
    for hidden in (0, 5):
        out = tmp_path / f"h{hidden}.npz"
        res = invoke("train", "pig", "--players", 2, "--from", base, "--distill-only",
                     "--policy-games", 30, "--seed", 4, "--policy-hidden", hidden,
                     "--out", out, "--quiet")
        assert res.exit_code == 0, res.output
        m = learn.read_model(out)
        assert m.move_features == list(MF) and m.policy_a.shape == (2, hidden, len(F))
        assert m.card["policy"]["knobs"]["hidden"] == hidden
        assert f"--policy-hidden {hidden}" in m.card["policy"]["command"]
        assert np.any(m.policy_u != 0)  # the linear term learnt from the move features
    one_line_error(invoke("train", "pig", "--players", 2, "--from", base, "--distill-only",
                          "--policy-hidden", 65, "--out", tmp_path / "x.npz"),
                   "--policy-hidden", "64")


@pytest.mark.parametrize("dense", [True, False])
def test_a_moves_row_is_found_by_the_dense_table_or_by_a_binary_search(p, monkeypatch, dense):
    if not dense:  # no code below the bound: the codes are searched
        monkeypatch.setattr(learn, "DENSE_CODES", 0)
    m = with_move_features(built())
    m.policy_codes = np.array([rules.HOLD], np.int64)  # HOLD known, ROLL not: rows swap
    flat = m.flat()
    assert learn._dense_rows(m.policy_codes)[0] == (rules.HOLD + 1 if dense else 0)
    module = load_search("pig")
    row = np.concatenate([np.array(list(learn.NAMED.values())), flat])
    feat, values = np.zeros(len(F) + learn.SCRATCH), np.zeros(2)
    state = position(p, seat=0, turn_total=6, banked=(9, 24))
    module.policy_values(p.compiled, state, 0, MOVES, 2, row, feat, values)
    want = m.policy_values(0, features_of(p, state, 0), MOVES, move_features_of(p, state, 0))
    assert values == pytest.approx(want, rel=1e-12)
