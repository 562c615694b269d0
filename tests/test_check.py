"""Layer 1 for every game, ours and the examples: ``simkit.testing`` (what ``simkit check``
runs) at its quick size, in place of the per-game copies of these checks that the suite
held before (random play with check_state, determinisations sound, fresh and uniform,
no peeking at the driver, the optional kernels finite and allocating nothing). The
checks' own power to fail is tested on planted faults in tests/test_new_game.py."""

from __future__ import annotations

import numpy as np
import pytest
from click.testing import CliRunner

from simkit import testing
from simkit.cli import main

GAMES = ["avalon", "connect-four", "dolina-krolikow", "pig", "rabbit-hunt",
         "war-of-the-wilds", "watership-down"]


@pytest.mark.parametrize("game", GAMES)
def test_the_game_passes_every_check(game):
    items = testing.check_game(game, "quick")
    status = {i.name: i.status for i in items}
    assert status["random play"] == testing.OK
    if game not in ("pig", "connect-four"):  # the five hide cards and declare where
        assert status["uniform dealing"] == testing.OK, items
        assert status["no peeking at the driver"] == testing.OK
        assert status["features kernel"] == testing.OK


def test_the_uniformity_check_fails_a_kernel_that_always_deals_the_same_way():
    rng = np.random.default_rng(1)
    pool = np.array([0, 0, 1, 1, 2, 3])
    fair = np.stack([rng.permutation(pool) for _ in range(2000)])
    assert testing.uniform_deal_problem(fair) is None
    assert "not dealt uniformly" in testing.uniform_deal_problem(np.tile(pool, (2000, 1)))
    biased = fair.copy()
    biased[:600] = pool  # 30% of draws the same deal
    assert "not dealt uniformly" in testing.uniform_deal_problem(biased)
    lost = fair.copy()
    lost[5, 0] = 3
    assert "different cards" in testing.uniform_deal_problem(lost)


def test_a_game_without_hidden_zones_is_reported_not_checked(monkeypatch):
    import dataclasses

    from simkit import registry

    bare = dataclasses.replace(registry.get_game("pig"), name="pig-bare", hidden_zones=None)
    monkeypatch.setitem(registry._games, "pig-bare", bare)
    items = testing.run_checks("pig-bare", players=(2,), only=["uniform dealing"])
    deal = next(i for i in items if i.name == "uniform dealing")
    assert deal.status == testing.UNCHECKED
    assert "not checked (declare hidden zones" in deal.line()


def test_simkit_check_prints_the_checklist():
    res = CliRunner().invoke(main, ["check", "pig", "--players", "2", "--set", "target=20"])
    assert res.exit_code == 0, res.output
    lines = res.output.splitlines()
    assert lines[0].startswith("simkit check pig v") and "with target=20" in lines[0]
    assert any(line.startswith("  ok    random play:") for line in lines)
    assert "  n/a   phase kernel: not applicable (no phase kernel" in res.output
    assert lines[-1] == "simkit check pig: all passed"


@pytest.mark.parametrize("args,words", [
    (["check", "no-such-game"], "unknown game 'no-such-game'"),
    (["check", "pig", "--players", "7"], "pig is for 2, 3, 4 players, not 7"),
    (["check", "pig", "--players", "x"], "--players"),
    (["check", "pig", "--set", "target=0"], "target"),
    (["check", "pig", "--set", "nope=1"], "nope"),
])
def test_simkit_check_refuses_bad_input_in_one_line(args, words):
    res = CliRunner().invoke(main, args)
    assert res.exit_code == 2
    assert words in res.output and res.output.count("\n") == 1, res.output
