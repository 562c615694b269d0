"""Layer 1 for the optional ``features`` kernel (``docs/learning.md``): for every registered
game that has one, at every player count, on states of random play: the vector has the
declared length, every entry is written and finite, the kernel leaves the observation alone,
and two true states with one observation (the second drawn by ``determinize``) give one
vector, so a learnt player can know nothing its seat has not seen."""

import pytest

from simkit import registry

GAMES_PER_COUNT = 2
DECISIONS_CHECKED = 40  # per game: every third decision, from its start
CASES = [(name, n) for name, spec in registry.games().items() if spec.has_features
         for n in spec.players]

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
