"""The strong fast player of each game (``GameSpec.strong``, ``registry.strong_strategy``):
the learnt player where it is rated above the heuristic and fast enough (each game's NOTES.md,
"Strong player"), and the heuristic wherever no model fits the player count or the data."""

from simkit import registry


def test_learned_is_strong_where_rated_above_the_heuristic_and_fast_enough():
    assert registry.strong_strategy("avalon") == "learned"
    assert registry.strong_strategy("watership-down", 2) == "learned"
    # rated above the heuristic and fast by their policies over move features (NOTES.md)
    assert registry.strong_strategy("rabbit-hunt", 2) == "learned"
    assert registry.strong_strategy("war-of-the-wilds", 2) == "learned"
    # Dolina's model is far below its heuristic: the heuristic stays its strong player
    assert registry.strong_strategy("dolina-krolikow", 2) == "heuristic"


def test_a_model_counts_as_fast_only_with_a_policy():
    from simkit import learn

    assert registry.get_game("rabbit-hunt").strong == "learned"
    assert registry.strong_strategy("rabbit-hunt", 2) == "learned"  # its policy plays fast
    assert learn.has_model(registry.get_game("rabbit-hunt"), 3)  # a model, by values alone
    # its 3- and 4-player models have values alone: 20 to 60 times slower, not strong
    assert registry.strong_strategy("rabbit-hunt", 3) == "heuristic"
    assert registry.strong_strategy("rabbit-hunt", 4) == "heuristic"


def test_without_a_model_for_the_player_count_or_the_data_the_heuristic_plays():
    spec = registry.get_game("avalon")
    assert spec.strong == "learned"
    assert registry.strong_strategy("avalon", 3) == "heuristic"  # no 3-player model
    assert registry.strong_strategy("avalon", 2, data_digest="0" * 16) == "heuristic"
    # --assumptions varies the data at every point: no model fits them
    assert registry.strong_strategy("watership-down", 2, varied_data=True) == "heuristic"


def test_a_game_without_its_strong_strategy_falls_back_to_random(monkeypatch):
    from dataclasses import replace

    spec = registry.get_game("rabbit-hunt")
    monkeypatch.setitem(registry._games, "rabbit-hunt", replace(spec, strong="no-such"))
    assert registry.strong_strategy("rabbit-hunt") == "random"
