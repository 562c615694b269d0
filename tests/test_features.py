"""The optional ``features`` kernel (``docs/learning.md``) as the spec declares it. Its
contract on states of random play (the declared length, every entry written and finite,
the observation left alone, one vector for two true states with one observation, nothing
allocated) is ``simkit check``'s, run on every game by tests/test_check.py."""

import pytest

from simkit import registry

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
