"""``simkit train`` on Pig with tiny budgets (docs/learning.md): one seed gives the same
model bytes on one and two workers, after Ctrl-C and --resume, and from the --games that
a --time training records; a generation is accepted only when it beats the last accepted
one; the learner learns something real in a few seconds; bad input is one line, exit 2,
nothing written."""

import json

import numpy as np
import pytest
from click.testing import CliRunner

from simkit import learn, train
from simkit.cli import main

TINY = ["--generation-games", 100, "--match-games", 60, "--yardstick-games", 0,
        "--hidden", 8, "--seed", 5, "--quiet"]


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


def trained(tmp_path, name, *args):
    out = tmp_path / name / "pig.npz"
    res = invoke("train", "pig", "--players", 2, "--out", out, *TINY, *args)
    assert res.exit_code == 0, res.output
    return out


def test_same_model_bytes_on_one_and_two_workers_and_after_a_resume(tmp_path, monkeypatch):
    one = trained(tmp_path, "w1", "--games", 300, "--workers", 1)
    two = trained(tmp_path, "w2", "--games", 300, "--workers", 2)
    assert one.read_bytes() == two.read_bytes()
    card = learn.read_model(one).card
    assert [r["generation"] for r in card["curve"]] == [1, 2, 3]
    assert card["training"]["games"] == 300 and "--games 300" in card["training"]["command"]
    assert not learn.read_model(one).has_policy  # a policy only when --policy-games asks

    real = train.Trainer.generation

    def stopped_in_the_second(self, g, *args):
        if g == 2:
            real(self, g, *args)  # its files written, but not train.json: not finished
            raise KeyboardInterrupt
        return real(self, g, *args)

    monkeypatch.setattr(train.Trainer, "generation", stopped_in_the_second)
    out = tmp_path / "r" / "pig.npz"
    res = invoke("train", "pig", "--players", 2, "--out", out, "--games", 300, *TINY)
    assert res.exit_code == 130 and "kept 1 finished generations" in res.output
    assert "--resume" in res.output and not out.exists()
    monkeypatch.setattr(train.Trainer, "generation", real)
    res = invoke("train", "pig", "--players", 2, "--out", out, "--games", 300, "--resume",
                 *TINY)
    assert res.exit_code == 0, res.output
    assert out.read_bytes() == one.read_bytes()


def test_a_time_budget_records_the_games_that_reproduce_it(tmp_path, monkeypatch):
    # --time counts from this command, not from the test process's start (a command run
    # within FRESH_PROCESS seconds of it counts its imports, here pytest's), with the
    # kernels compiled first (a cold compile is no part of what this test measures), and
    # 3 s: at a high load, start-up alone once took 1 s
    from simkit import clock

    monkeypatch.setattr(clock, "FRESH_PROCESS", 0.0)
    trained(tmp_path, "warm", "--games", 100, "--workers", 1)
    timed = trained(tmp_path, "t", "--time", "3s", "--workers", 1)
    card = learn.read_model(timed).card
    games = card["training"]["games"]
    assert games > 0 and games % 100 == 0
    again = trained(tmp_path, "g", "--games", games, "--workers", 2)
    assert again.read_bytes() == timed.read_bytes()


@pytest.fixture(scope="module")
def table():
    return train.Table("pig", 2)


def test_a_generation_is_accepted_only_when_it_beats_the_last(table):
    ts = train.make_spec("pig", 2, games=100)
    trainer = train.Trainer(ts, "/nonexistent")  # no file is written here
    blank = trainer.initial()  # values every position alike: plays at random
    same = train.match(table, blank, blank, 200, seed=1)
    assert same["score"] == 0.5 and not train.accepts(same)
    sensible = learn.new_model(blank.card, len(table.spec.features), 0, [0, 1],
                               np.random.default_rng(0))
    i = {name: k for k, name in enumerate(table.spec.features)}
    sensible.w2[:, i["own_if_held"]] = 0.3  # points in hand are good, the other's bad
    sensible.w2[:, i["next_banked"]] = -0.3
    better = train.match(table, sensible, blank, 200, seed=1)
    assert better["score"] > 0.6 and better["p_value"] < 0.01 and train.accepts(better)
    worse = train.match(table, blank, sensible, 200, seed=1)
    assert not train.accepts(worse)
    assert train.accepts({"score": 0.56, "p_value": 0.04})
    assert not train.accepts({"score": 0.56, "p_value": 0.06})


def test_td_targets_bootstrap_along_each_seats_afterstates(table):
    ts = train.make_spec("pig", 2, games=100)
    m = train.Trainer(ts, "/nonexistent").initial()
    m.w2[:] = 0.0
    m.b2[:] = [0.0, np.log(3)]  # seat 0 values everything 0.5, seat 1 0.75
    games = train.Games(np.zeros((4, len(table.spec.features)), np.float32),
                        np.array([0, 1, 0, 1], np.int8), np.array([0, 0, 0, 0], np.int32),
                        np.array([False, False, True, False]), np.array([[1.0, 0.0]]),
                        np.array([3], np.int32))
    t = train.td_targets(m, games, lam=0.5)
    assert t[2] == 1.0 and t[3] == 0.0  # the last of each seat: its outcome
    assert t[0] == pytest.approx(0.5 * 0.5 + 0.5 * 1.0)
    assert t[1] == pytest.approx(0.5 * 0.75 + 0.5 * 0.0)
    assert np.array_equal(train.td_targets(m, games, lam=1.0), [1.0, 0.0, 1.0, 0.0])


def test_restandardising_changes_no_value(table):
    m = learn.new_model({}, 4, 3, [0, 1], np.random.default_rng(2))
    m.w2[:] = np.random.default_rng(3).normal(size=m.w2.shape)
    x = np.random.default_rng(4).normal(3, 2, (50, 4))
    before = m.value(1, x)
    train.restandardise(m, *train.standardisation(x))
    assert np.allclose(m.value(1, x), before, rtol=1e-12, atol=1e-14)


def test_the_fit_in_place_and_the_values_are_those_of_the_plain_formulas():
    """The learner spares copies of its window (the fit standardises it in place, a value
    is standardised in one array): the weights and values are the same to the bit."""
    rng = np.random.default_rng(7)
    x = rng.normal(3, 2, (700, 5)).astype(np.float32)
    seat = rng.integers(0, 2, 700).astype(np.int8)
    target = rng.random(700)
    ts = train.make_spec("pig", 2, games=100, batch=64, epochs=2)
    one = learn.new_model({}, 5, 3, [0, 1], np.random.default_rng(2))
    one.mean, one.std = train.standardisation(x.astype(np.float64))
    two = learn.Model(**{k: np.copy(getattr(one, k)) if k != "card" else {}
                         for k in ("card", *learn.ARRAYS)})
    kept = x.astype(np.float64)
    spent = x.astype(np.float64)
    a = train.fit(one, kept, seat, target, ts, np.random.default_rng(1))
    b = train.fit(two, spent, seat, target, ts, np.random.default_rng(1), overwrite=True)
    assert a == b and np.array_equal(kept, x.astype(np.float64))  # not spent unasked
    assert not np.array_equal(spent, kept)  # spent: standardised in place
    for k in learn.ARRAYS:
        assert np.array_equal(getattr(one, k), getattr(two, k)), k
    z = (np.asarray(x, np.float64) - one.mean) / one.std
    plain = np.tanh(z @ one.w1[1].T + one.b1[1]) @ one.w2[1] + one.b2[1]
    assert np.array_equal(one.logit(1, x), plain)


def test_a_training_reuses_freed_memory_and_then_gives_it_back(monkeypatch):
    """``reused_memory`` (glibc's mallopt: large arrays from the heap, kept when freed)
    around a training, glibc's defaults again after it, and the free memory trimmed."""
    calls = []

    class Libc:
        def mallopt(self, what, value):
            calls.append((what, value))
            return 1

        def malloc_trim(self, pad):
            calls.append(("trim", pad))
            return 1

    monkeypatch.setattr(train, "_glibc", lambda: Libc())
    with train.reused_memory():
        assert calls == [(-4, 0), (-1, 2**31 - 1)]
    assert calls[2:] == [(-4, 65536), (-1, 128 * 1024), ("trim", 0)]
    monkeypatch.setattr(train, "_glibc", lambda: None)  # not glibc: nothing to do
    with train.reused_memory():
        pass


def test_it_learns_pig_in_a_few_seconds(tmp_path):
    """After 2,000 self-play games the model beats random clearly on seeds training never
    used: a learner that learnt nothing plays at random and wins half."""
    out = tmp_path / "m" / "pig.npz"
    res = invoke("train", "pig", "--players", 2, "--games", 2000, "--generation-games", 500,
                 "--match-games", 200, "--yardstick-games", 0, "--seed", 2, "--out", out,
                 "--quiet", "--workers", 2)
    assert res.exit_code == 0, res.output
    model = learn.read_model(out)
    ts = train.make_spec("pig", 2, games=1)
    strength = train.yardstick(ts, model, 2, games=600, seed=987_654_321, against="random")
    assert strength["win_rate"] > 0.65, strength


@pytest.mark.parametrize("args,words", [
    (["--games", 0], ["--games must be"]),
    ([], ["--games N", "--time"]),
    (["--games", 10, "--time", "1m"], ["one of them"]),
    (["--games", 10, "--hidden", -1], ["hidden must be"]),
    (["--games", 10, "--yardstick", "smart"], ["unknown yardstick"]),
    (["--games", 10, "--resume"], ["holds no training"]),
])
def test_bad_input_is_one_line(tmp_path, args, words):
    out = tmp_path / "x" / "pig.npz"
    res = invoke("train", "pig", "--players", 2, "--out", out, *args)
    assert res.exit_code == 2, res.output
    lines = res.output.strip().splitlines()
    assert len(lines) == 1 and all(w in lines[0] for w in words), lines
    assert not (tmp_path / "x").exists()


def test_bad_games_and_places_are_one_line(tmp_path):
    (tmp_path / "file").write_text("")
    for args, words in ((["nope", "--players", 2], ["unknown game"]),
                        (["connect-four"], ["features kernel"]),
                        (["pig", "--players", 2, "--out", tmp_path / "file" / "m.npz"],
                         ["no permission", "file"])):
        res = invoke("train", *args, "--games", 10)
        assert res.exit_code == 2, res.output
        line = res.output.strip()
        assert "\n" not in line and all(w in line for w in words[:1]), line


def test_a_training_folder_is_not_replaced_unasked(tmp_path):
    out = trained(tmp_path, "a", "--games", 100, "--workers", 1)
    res = invoke("train", "pig", "--players", 2, "--out", out, "--games", 100, *TINY)
    assert res.exit_code == 2 and "--resume" in res.output and "--overwrite" in res.output
    doc = json.loads((train.folder_for(out) / "train.json").read_text())
    assert len(doc["generations"]) == 1
