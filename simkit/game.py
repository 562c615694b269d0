"""The game protocol: what a game package gives the engine.

A game is a package that exposes ``GAME = GameSpec(...)`` and registers it under the entry
point group ``simkit.games``. The engine only ever talks to a game through this object and
through the module-level kernels of its ``rules`` module, which every game writes with the
same names and signatures (all ``@kernel``, all on raw arrays):

    state_size(params, n_players) -> int
    max_moves(params, n_players) -> int
    new_game(params, n_players, state, chance) -> None
        Lay out a new game in ``state`` (int32[state_size]); ``chance`` is the uint64[1]
        stream for shuffles, deals and dice.
    to_move(state) -> int
        The seat that makes the next decision. It need not be the seat whose turn it is
        (a defender's reply, a player shown a hand, the second of two secret choices).
    legal_moves(params, state, moves) -> int
        Write the legal moves (small ints) into ``moves`` and return how many. Never 0
        before the game is over.
    apply_move(params, state, move, chance, items) -> None
        Play ``move``; resolve any chance with ``chance``; count item events in
        ``items`` (int32[n_players, len(item_columns)]).
    is_over(state) -> bool
    turn_number(state) -> int
        Completed turns so far; the engine ends a game as a ``timeout`` at ``max_turns``.
    finish(params, state, scores, ranks) -> int
        Fill ``scores`` (float64[n_players]) and ``ranks`` (int32[n_players], 1 = winner,
        ties share a rank) and return the end reason's index in ``end_reasons``.
    observe(params, state, seat, obs) -> None
        Fill ``obs`` (int32[state_size]) with what ``seat`` knows: the state with every
        entry the seat has not seen replaced by ``HIDDEN``. Strategies see only this, so a
        secret choice (a card played face down) stays secret until it is revealed.

Python-side hooks (plain functions, used by ``simkit replay`` and the tests, never in the
hot loop):

    describe_setup(params, n_players, state) -> list[str]
        The deal, as text; mark hidden facts with who could see them, e.g. "[seen by P1]".
    describe_move(params, n_players, before, move, after) -> list[str]
        One decision (``before`` and ``after`` are copies of the state): who did what, and
        every chance outcome and hidden fact it revealed, with who could see it.
    describe_choice(params, n_players, obs, move, after) -> str
        One line for a move a search weighed (a search summary in ``simkit replay``), as
        the deciding seat saw it: ``obs`` is its observation (``HIDDEN`` where it has not
        seen) and ``after`` the move played on one determinisation of ``obs``, one outcome
        the search could have imagined. Say only what ``obs`` and the move decide: an unseen
        card reads "an unseen card", and nothing of ``after`` that a hidden card or chance
        chose. Without it a search summary gives the move's number.
    check_state(params, n_players, state) -> list[str]
        The conservation laws and invariants of a state (cards, tokens, acorns...): a list
        of violations, empty when the state is sound. Run after every move in the tests.

Optional fields of ``GameSpec`` that reports use:

    seat_names(n_players) -> list[str]
        The name of each seat's side or role in an asymmetric game (Watership Down's
        "elil" and "hlessil"); reports then say "seat 1 (elil)".
    choice_events
        The item events (the part after ``:`` of an item column) that are a player's own
        choices (played, taken, bought, kept); every other event is an outcome (caught,
        lost, drawn). Card value ranks the choices and shows the outcomes apart; a game
        that declares none has all its events ranked as choices, with a note.
    item_columns_of(values) -> list[str]
        The item columns of a game with these effective data values (``{key: value}``, as
        ``compile`` gets them), for a game whose cards come from its data: a card kind added
        from a spreadsheet then has columns of its own, under its own name. ``item_columns``
        stays the columns of the default data; runs use this when it is given.

Optional kernels for how a game feels (``docs/metrics.md``), in the ``rules`` module beside
the others; a game without them plays and reports everything else:

    progress(params, state, out) -> None
        Fill ``out`` (float64[n_players]) with each seat's standing now: the game's own
        best estimate of how well each seat is doing (points so far, acorns stored and
        buried, crowns held, rabbits home), in the unit ``progress_unit`` names, higher is
        better and comparable between seats (an asymmetric game puts its sides on one
        scale, for example the share of the way to each side's win). In a team game both
        partners hold their team's value. When the game is over, a seat that ``finish``
        ranks 1 should hold the highest value. Allocates nothing: a traced run calls it
        after every completed turn.
    phase(params, state) -> int
        The phase of the decision about to be made, an index into ``phases`` (for a game
        whose turns have phases of different kinds: drafting, then placing). Branching
        factor and forced moves are then counted by phase too.

Two optional fields go with them:

    progress_unit
        What ``progress`` measures, for the reports' axes ("victory points").
    phases
        The names of the phases ``phase`` numbers (``("draft", "place")``).

An optional kernel for the learnt players (``docs/learning.md``), in the ``rules`` module
beside ``progress``:

    features(params, obs, seat, out) -> None
        Fill ``out`` (float64[len(features)]) with what a good player of ``seat`` would look
        at, read from ``obs`` (``observe``'s view for ``seat``) and ``params`` alone: its own
        visible resources, points and cards by kind, then each other seat's in play order
        from it (the next seat first), threats, goals in progress, the turn. One fixed
        length whatever the player count: the entries of seats absent at fewer players are
        0. Every entry is written on every call, finite, in the game's own units (the
        learner standardises them). Allocates nothing.

and the field that goes with it:

    features
        The name of each entry of ``features``' vector, in order (``("own_acorns", ...)``):
        a designer reads them on a model's card, so they say what the entry is in the
        game's own words.

An optional field for the search strategies (``docs/search.md``):

    search_knobs
        The game's defaults for the search knobs, by name, over simkit's (for example
        ``{"iterations": 250, "rollout": "random"}``): a budget that plays a decision in
        about 50 ms at 2 players, the rollout policy that plays the game best for its cost.
        The game's NOTES.md gives the figures they were chosen by. ``--weight`` and
        ``NAME@N`` override them.

    guided_knobs
        The game's defaults for the guided search ``ismcts+learned``, over its own
        (``simkit.search.knob_defaults``: ``search_knobs``, then the guided knobs): any
        search knob or ``prior``, ``prior_temperature``, ``leaf_value``.

An optional field for the reports (issue 28):

    strong
        The name of the game's strong fast player: the strongest strategy that plays a
        million 2-player games within an hour on a 2-core machine (``"heuristic"`` unless
        the game says otherwise). Headlines, the README's experiment and ``sensitivity
        --assumptions`` play it. A game with no strategy of that name falls back to
        ``random`` (``strong_strategy``).

Everything a designer may change lives in the game's ``data.toml``; ``compile`` turns the
effective values into a tuple of numpy arrays (``params``) that the kernels read.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from types import ModuleType
from typing import Any

from simkit.data import Param, load_data

HIDDEN = -2
"""What ``observe`` writes where a seat cannot see (``-1`` already means empty)."""

TIMEOUT = 0
"""End reason 0 of every game: the turn cap was reached."""


@dataclass(frozen=True)
class GameSpec:
    name: str
    package_dir: Path
    rules: ModuleType
    players: tuple[int, ...]
    compile: Callable[[dict[str, Any], int], tuple]
    item_columns: Sequence[str]
    end_reasons: Sequence[str]
    teams: Callable[[int], list[int]] = field(default=lambda n: list(range(n)))
    seat_names: Callable[[int], list[str]] | None = None
    choice_events: frozenset[str] | None = None
    describe_setup: Callable | None = None
    describe_move: Callable | None = None
    describe_choice: Callable | None = None
    check_state: Callable | None = None
    summary: str = ""
    search_knobs: dict[str, float | str] | None = None
    guided_knobs: dict[str, float | str] | None = None
    item_columns_of: Callable[[dict[str, Any]], Sequence[str]] | None = None
    progress_unit: str = "points"
    phases: tuple[str, ...] | None = None
    features: tuple[str, ...] | None = None
    strong: str = "heuristic"

    def __post_init__(self):
        if not self.end_reasons or self.end_reasons[TIMEOUT] != "timeout":
            raise ValueError(f"{self.name}: end_reasons must start with 'timeout'")
        for col in self.item_columns:
            if col.count(":") != 1:
                raise ValueError(f"{self.name}: item column {col!r} must be 'item:event'")
        if self.choice_events is not None:
            events = {c.partition(":")[2] for c in self.item_columns}
            unknown = set(self.choice_events) - events
            if unknown:
                raise ValueError(f"{self.name}: choice_events {sorted(unknown)} are not "
                                 f"events of its item columns ({sorted(events)})")
        if self.features is not None:
            names = list(self.features)
            if not names or len(set(names)) != len(names):
                raise ValueError(f"{self.name}: features must name each entry once")
            if not hasattr(self.rules, "features"):
                raise ValueError(f"{self.name}: features are named but its rules module has "
                                 f"no 'features' kernel")

    @property
    def has_progress(self) -> bool:
        """Whether the game gives the optional ``progress`` kernel (``docs/metrics.md``)."""
        return hasattr(self.rules, "progress")

    @property
    def has_features(self) -> bool:
        """Whether the game gives the optional ``features`` kernel and names its entries
        (``docs/learning.md``): the learnt players need it."""
        return self.features is not None and hasattr(self.rules, "features")

    @property
    def has_phases(self) -> bool:
        return self.phases is not None and hasattr(self.rules, "phase")

    def columns_for(self, values: dict[str, Any]) -> list[str]:
        """The item columns of a run with these effective data values."""
        if self.item_columns_of is None:
            return list(self.item_columns)
        return list(self.item_columns_of(values))

    @property
    def data_path(self) -> Path:
        return self.package_dir / "data.toml"

    @cached_property
    def version(self) -> str:
        return (self.package_dir / "VERSION").read_text(encoding="utf-8").strip()

    @cached_property
    def data(self) -> dict[str, Param]:
        params = load_data(self.data_path)
        if "max_turns" not in params:
            raise ValueError(f"{self.name}: data.toml must define max_turns")
        return params
