"""Every numeric value of every game's data, at its declared minimum and at its maximum, at
every player count: the game either plays a random game cleanly (check_state after every
move; reaching a tiny turn cap is a clean end) or the value is refused with one line."""

from __future__ import annotations

import numpy as np
import pytest

from simkit import registry
from simkit.errors import SimkitError
from simkit.rng import seed_streams
from simkit.runner import RunSpec, plan


def _first_records(spec) -> set[str]:
    """The first record of each card list: its fields' bounds are every record's, so the
    first stands for the rest (twenty cards of eleven fields would be a thousand games)."""
    from simkit import data

    return {f"{key}.{data.table(spec.data, key)[0][0]}" for key in data.lists_of(spec.data)}


CASES = [(name, key, v, n) for name, spec in registry.games().items()
         for key, p in spec.data.items()
         if isinstance(p.default, int | float) and not isinstance(p.default, bool)
         and (p.records is None or f"{p.records.key}.{p.record}" in _first_records(spec))
         for v in {p.min, p.max} - {None, p.default} for n in spec.players]


def play_checked(p) -> None:
    spec = registry.get_game(p.run.game)
    rules, n = spec.rules, p.run.players
    streams = np.empty(1 + n, np.uint64)
    seed_streams(np.uint64(12345), n, streams)
    state = np.empty(p.state_size, np.int32)
    moves = np.empty(p.max_moves, np.int32)
    items = np.zeros((n, len(spec.item_columns)), np.int32)
    rng = np.random.default_rng(0)
    rules.new_game(p.compiled, n, state, streams[0:1])
    problems = spec.check_state(p.compiled, n, state) if spec.check_state else []
    assert not problems, f"after setup: {problems}"
    while not rules.is_over(state) and rules.turn_number(state) < p.max_turns:
        k = rules.legal_moves(p.compiled, state, moves)
        assert 0 < k <= p.max_moves
        rules.apply_move(p.compiled, state, moves[rng.integers(k)], streams[0:1], items)
        if spec.check_state:
            problems = spec.check_state(p.compiled, n, state)
            assert not problems, problems


@pytest.mark.slow
@pytest.mark.parametrize("game", sorted({c[0] for c in CASES}))
def test_every_value_at_its_bounds_plays_or_is_refused(game):
    for _, key, value, players in (c for c in CASES if c[0] == game):
        try:
            p = plan(RunSpec.make(game, players, 1, overrides={key: value}))
        except SimkitError as exc:
            assert "\n" not in str(exc)
            continue
        try:
            play_checked(p)
        except AssertionError as exc:
            raise AssertionError(f"{game} at {players} players with {key}={value}: "
                                 f"{exc}") from exc


def test_the_constraints_the_audit_found_are_refused():
    for game, players, key, value, words in [
        ("rabbit-hunt", 2, "carrots.cap", 1, "below carrots.start"),
        ("dolina-krolikow", 2, "houses.limit_two_players", 1, "below houses.dealt_two"),
        ("dolina-krolikow", 3, "houses.limit_more_players", 1, "below houses.dealt_more"),
    ]:
        with pytest.raises(SimkitError, match=words):
            RunSpec.make(game, players, 1, overrides={key: value})
