"""High card: two players, a hidden hand, a shuffled deck, the higher card wins the trick.

Written by ``simkit new`` as a complete small game to change into your own; each part is
where docs/adding-a-game.md says it goes: the numbers in data.toml, the layout in
state.py, the kernels in rules.py, the text in transcript.py, the heuristic in
strategy.py, every reading of the rules in NOTES.md, and VERSION (raise it whenever the
rules change)."""

from pathlib import Path

import numpy as np

from simkit.errors import SimkitError
from simkit.game import GameSpec, HiddenZone

from . import rules, strategy  # noqa: F401  (strategy registers itself)
from .state import DECK, HAND, MAX_DECK, MAX_HAND
from .transcript import (
    check_state,
    describe_choice,
    describe_move,
    describe_setup,
    move_label,
)


def compile_params(values: dict, n_players: int) -> tuple:
    """Effective data values -> the kernels' parameter arrays (a value that cannot be
    played is refused in one line)."""
    ranks, copies, hand = values["ranks"], values["copies"], values["hand_size"]
    if 2 * hand > ranks * copies:
        raise SimkitError(f"hand_size {hand} deals {2 * hand} cards from a deck of "
                          f"{ranks * copies} (ranks x copies)")
    return (np.array([ranks, copies, hand, values["max_turns"]], dtype=np.int32),)


def item_columns_of(values: dict) -> list[str]:
    return rules.item_columns(values["ranks"])


GAME = GameSpec(
    name="high-card",
    package_dir=Path(__file__).parent,
    rules=rules,
    players=(2,),
    compile=compile_params,
    item_columns=rules.item_columns(8),
    item_columns_of=item_columns_of,
    choice_events=frozenset({"played"}),
    end_reasons=rules.END_REASONS,
    describe_setup=describe_setup,
    describe_move=describe_move,
    describe_choice=describe_choice,
    check_state=check_state,
    move_label=move_label,
    summary="a hidden hand, a shuffled deck: the higher card wins the trick",
    progress_unit="tricks won",
    phases=rules.PHASES,
    features=rules.FEATURES,
    # where dealt cards lie that a seat may not see: the hands and the deck, dealt from one
    # set of cards (simkit check tests that determinize deals them uniformly)
    hidden_zones=(HiddenZone("hands", HAND, 2 * MAX_HAND, pool="cards"),
                  HiddenZone("deck", DECK, MAX_DECK, pool="cards")),
)
