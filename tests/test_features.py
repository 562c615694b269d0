"""Layer 1 for the optional ``features`` kernel (``docs/learning.md``): for every registered
game that has one, at every player count, on states of random play: the vector has the
declared length, every entry is written and finite, the kernel leaves the observation alone,
and two true states with one observation (the second drawn by ``determinize``) give one
vector, so a learnt player can know nothing its seat has not seen."""

import numpy as np
import pytest

from simkit import registry
from simkit.rng import game_seeds, seed_streams
from simkit.runner import RunSpec, plan

GAMES_PER_COUNT = 2
DECISIONS_CHECKED = 40  # per game: every third decision, from its start
CASES = [(name, n) for name, spec in registry.games().items() if spec.has_features
         for n in spec.players]


def features_of(spec, params, obs, seat):
    out = np.full(len(spec.features), np.nan)
    before = obs.copy()
    spec.rules.features(params, obs, seat, out)
    assert np.array_equal(before, obs), "features changed the observation"
    return out


@pytest.mark.parametrize("game,players", CASES)
def test_features_read_only_the_seats_view(game, players):
    spec = registry.get_game(game)
    rules = spec.rules
    p = plan(RunSpec.make(game, players, 1))
    rng = np.random.default_rng(players)
    state = np.empty(p.state_size, np.int32)
    other = np.empty(p.state_size, np.int32)
    obs = np.empty(p.state_size, np.int32)
    obs2 = np.empty(p.state_size, np.int32)
    scratch = np.empty(p.state_size, np.int32)
    moves = np.empty(p.max_moves, np.int32)
    items = np.zeros((players, len(spec.item_columns)), np.int32)
    has_determinize = hasattr(rules, "determinize")
    checked = 0
    for seed in game_seeds(7, 0, GAMES_PER_COUNT):
        streams = np.empty(1 + players, np.uint64)
        seed_streams(np.uint64(seed), players, streams)
        rules.new_game(p.compiled, players, state, streams[0:1])
        decisions = 0
        here = 0
        while not rules.is_over(state) and rules.turn_number(state) < p.max_turns:
            seat = rules.to_move(state)
            if decisions % 3 == 0:
                rules.observe(p.compiled, state, seat, obs)
                v = features_of(spec, p.compiled, obs, seat)
                assert v.shape == (len(spec.features),)
                bad = [spec.features[i] for i in np.flatnonzero(~np.isfinite(v))]
                assert not bad, f"decision {decisions}: not written or not finite: {bad}"
                if has_determinize:
                    rules.determinize(p.compiled, obs, seat, other, streams[1:2], scratch)
                    rules.observe(p.compiled, other, seat, obs2)
                    assert np.array_equal(obs, obs2), "determinize changed the seat's view"
                    w = features_of(spec, p.compiled, obs2, seat)
                    assert np.array_equal(v, w), "one observation gave two vectors"
                checked += 1
                here += 1
            k = rules.legal_moves(p.compiled, state, moves)
            rules.apply_move(p.compiled, state, moves[rng.integers(k)], streams[0:1], items)
            decisions += 1
            if here >= DECISIONS_CHECKED:
                break
    assert checked > 0


def test_a_game_naming_features_without_the_kernel_is_refused():
    import dataclasses
    import types

    spec = next(iter(registry.games().values()))
    bare = types.SimpleNamespace(**{k: getattr(spec.rules, k) for k in dir(spec.rules)
                                    if not k.startswith("_") and k != "features"})
    with pytest.raises(ValueError, match="no 'features' kernel"):
        dataclasses.replace(spec, rules=bare, features=("own_points",))
    with pytest.raises(ValueError, match="each entry once"):
        dataclasses.replace(spec, features=("a", "a"))


def test_every_shipped_game_has_features():
    shipped = ["avalon", "dolina-krolikow", "rabbit-hunt", "war-of-the-wilds",
               "watership-down"]
    missing = [g for g in shipped if not registry.get_game(g).has_features]
    assert not missing, f"no features kernel: {missing}"
    assert {g for g, _ in CASES} >= set(shipped)
