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


def _biased_deal(rules):
    """A copy of Rabbit Hunt's rules whose ``determinize`` then trades, for each other hand
    it dealt, the hand's highest farmland card for a lower one from a uniformly chosen
    pile place: sound (every card is somewhere, the observation unchanged) and every pile
    place alike, but the hands hold lower cards than a uniform deal gives them."""
    import types

    from simkit.game import HIDDEN
    from simkit.games.rabbit_hunt import state as S

    rng = np.random.default_rng(0)
    faulty = types.ModuleType("rabbit_hunt_biased")
    faulty.__dict__.update(vars(rules))

    def determinize(params, obs, seat, state, stream, scratch):
        rules.determinize(params, obs, seat, state, stream, scratch)
        for other in range(int(state[S.N_PLAYERS])):
            hand = state[S.HAND + other * S.N_KINDS:S.HAND + other * S.N_KINDS + S.N_FARMLAND]
            if other == seat or obs[S.HAND + other * S.N_KINDS] != HIDDEN or not hand.any():
                continue
            high, i = np.flatnonzero(hand)[-1], S.PILE + rng.integers(state[S.PILE_LEN])
            if obs[i] == HIDDEN and state[i] < high:
                hand[high] -= 1
                hand[state[i]] += 1
                state[i] = high

    faulty.determinize = determinize
    return faulty


def test_rabbit_hunts_hands_are_dealt_uniformly_and_a_biased_deal_of_them_is_caught():
    """Rabbit Hunt declares its hands and cells with the pile (``HiddenZone.kinds`` leaves
    the bunnies out, ``away`` allows for the cards put away at setup): a determinisation
    that deals the hands lower cards than the pile is caught, where the pile alone, as
    declared before, saw nothing wrong."""
    import dataclasses

    from simkit.game import HiddenZone
    from simkit.games.rabbit_hunt import state as S

    size = dataclasses.replace(testing.SIZES["quick"], games=2, deal_states=2)
    ctx = testing.Context("rabbit-hunt", size, players=(3,))
    testing.check_random_play(ctx)
    spec = ctx.spec
    assert {z.name for z in spec.zones(ctx.plans[3].compiled, 3)} == {"pile", "hands", "cells"}
    assert "6 deals" in testing.check_uniform_deal(ctx)
    ctx.spec = dataclasses.replace(spec, rules=_biased_deal(spec.rules))
    with pytest.raises(testing.Failed, match="not dealt uniformly.*pool 'farmland'"):
        testing.check_uniform_deal(ctx)
    ctx.spec = dataclasses.replace(ctx.spec, hidden_zones=(
        HiddenZone("pile", S.PILE, S.DECK_MAX, complete=False),))
    testing.check_uniform_deal(ctx)  # the old declaration: the fault goes unseen


def test_a_pool_with_cards_put_away_may_deal_as_many_others_and_no_more():
    """``HiddenZone.away``: a pool's cards put away unseen may stand in for as many dealt
    ones; ``kinds`` on slots leaves another pool's codes out (a bunny on a cell)."""
    from simkit.game import HiddenZone

    zones = (HiddenZone("pile", 0, 4, pool="cards", away=7),
             HiddenZone("cells", 4, 3, kinds=5, pool="cards"))
    # the pile, three cells (14: a bunny, 30: the house), two cards put away
    state = np.array([0, 1, 2, -1, 3, 14, 30, 2], np.int32)
    swapped = np.array([0, 4, 2, -1, 4, 14, 30, 2], np.int32)  # the two put away stand in
    assert testing._pool_change(zones, state, swapped) is None
    for away in (1, 0):
        state[7] = away
        assert f"({away} put away" in testing._pool_change(zones, state, swapped)
    made = np.array([0, 1, 2, 4, 3, 14, 30, 2], np.int32)  # one card more
    assert "more" in testing._pool_change(zones, state, made)
    assert testing._pool_cards(zones, state)["cards"] == [0, 1, 2, 3]


def test_the_features_check_reads_every_legal_moves_features(monkeypatch):
    import dataclasses
    import types

    from pig_game import rules as pig_rules

    from simkit import registry
    from simkit.jit import kernel

    @kernel
    def half_written(params, obs, seat, move, out):
        out[0] = 1.0 if move == pig_rules.ROLL else 0.0  # the other entries left unwritten

    spec = registry.get_game("pig")
    ok = testing.run_checks("pig", players=(2,), only=["features kernel"])
    assert "move features of" in next(i for i in ok if i.name == "features kernel").line()
    rules = types.SimpleNamespace(**{k: getattr(spec.rules, k) for k in dir(spec.rules)
                                     if not k.startswith("_")})
    rules.move_features = half_written
    rules.__name__ = spec.rules.__name__
    monkeypatch.setitem(registry._games, "pig-half",
                        dataclasses.replace(spec, name="pig-half", rules=rules))
    items = testing.run_checks("pig-half", players=(2,), only=["features kernel"])
    item = next(i for i in items if i.name == "features kernel")
    assert item.status == testing.FAIL
    assert "move_features left entries unwritten or not finite" in item.line()
    assert "banks" in item.line()
