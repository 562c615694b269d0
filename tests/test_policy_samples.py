"""``--policy-samples`` (docs/learning.md, "The policy"): the determinisations the values
average a move's value over while they label a distillation. The card records it in the
command that reproduces the policy, its labels change with it, and a bad count is one line."""

import numpy as np
from click.testing import CliRunner
from test_learned import one_line_error, pig_model

from simkit import learn
from simkit.cli import main


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


def test_the_teachers_samples_are_a_knob_the_card_records(tmp_path):
    base = tmp_path / "base.npz"
    learn.write_model(pig_model(hidden=4, seed=2, own_banked=1.0, own_at_risk=0.3), base)
    models = {}
    for samples in (None, 3):
        out = tmp_path / f"s{samples}.npz"
        extra = () if samples is None else ("--policy-samples", samples)
        res = invoke("train", "pig", "--players", 2, "--from", base, "--distill-only",
                     "--policy-games", 20, "--seed", 4, *extra, "--out", out, "--quiet")
        assert res.exit_code == 0, res.output
        models[samples] = m = learn.read_model(out)
        assert m.card["policy"]["knobs"]["samples"] == (samples or 1)  # the model's own: 1
        assert ("--policy-samples" in m.card["policy"]["command"]) == (samples is not None)
    assert "--policy-samples 3" in models[3].card["policy"]["command"]
    assert not np.array_equal(models[None].policy_w, models[3].policy_w)
    one_line_error(invoke("train", "pig", "--players", 2, "--from", base, "--distill-only",
                          "--policy-samples", 0, "--out", tmp_path / "x.npz"),
                   "--policy-samples")
    assert not (tmp_path / "x.npz").exists()
