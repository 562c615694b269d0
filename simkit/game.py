"""The game protocol: what a game package gives the engine.

A game is a package that exposes ``GAME = GameSpec(...)`` and registers it under the entry
point group ``simkit.games``. The engine only ever talks to a game through this object and
through the module-level kernels of its ``rules`` module, which every game writes with the
same names and signatures (all ``@kernel``, all on raw arrays, none allocating).

Every kernel, required and optional (docs/adding-a-game.md has the same table); an absent
optional kernel costs nothing, and what needs it names it:

    kernel          needed for                 contract (in short; in full below)
    state_size      every run                  the state's length (an observation's too)
    max_moves       every run                  the most legal moves of any decision
    new_game        every game                 lay out and deal, chance only from ``chance``
    to_move         every decision             the seat deciding now
    legal_moves     every decision             the legal moves, never 0 before the end;
                                               ``random`` picks uniformly among them, so
                                               the encoding defines random play
    apply_move      every decision             play it, chance only from ``chance``,
                                               count item events
    is_over         every decision             the game has ended by its rules
    turn_number     every decision             completed turns (timeout at ``max_turns``)
    finish          every game                 scores, ranks, end reason; also on an
                                               unfinished state
    observe         strategies that look       ``seat``'s view, ``HIDDEN`` where unseen
    determinize     mc, ismcts, learned        a state drawn uniformly among those
                                               consistent with ``obs``; a copy when
                                               nothing is hidden
    progress        --trace-turns, cutoff      each seat's standing, comparable between
                    progress, the decision     seats, the winner highest at the end
                    log's progress column
    phase           counts by phase            the kind of decision about to be made
    features        simkit train, learned      a fixed-length, finite vector read from
                                               ``obs`` and ``params`` alone
    move_features   a policy that reads them   what one legal move does, a fixed-length,
                                               finite vector read from ``obs`` and
                                               ``params`` alone, no move applied

The required kernels:

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

An optional kernel for the search strategies (``mc``, ``ismcts``; ``learned`` too,
``docs/search.md``), in the ``rules`` module:

    determinize(params, obs, seat, state, stream, scratch) -> None
        Fill ``state`` with a full state drawn at random (from ``stream``), uniformly among
        the states consistent with ``obs``, what ``seat`` observes: every entry the seat has
        seen kept, everything it has not (other hands, the draw pile's order, face-down
        tiles, a secret choice) dealt among the places it could be, so that ``check_state``
        passes and ``observe`` from ``seat`` gives ``obs`` back. ``scratch``
        (int32[state_size]) is for pools and shuffles; allocates nothing (a search calls it
        every iteration). A game with nothing hidden copies ``obs``
        (``simkit.jit.copy_into(state, obs)``).

The search strategies play their playouts with the game's strategy named exactly
``heuristic``, when it has one (``rollout`` auto or heuristic); a strategy of another name
is never used in a playout.

Python-side hooks (plain functions, used by ``simkit replay``, the decision log and the
tests, never in the hot loop):

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
    move_label(params, n_players, move) -> str
        A short name for a move code, the same wherever it is played ("play Knight",
        "attack slot 3", "roll"): the ``label`` of the decision log (``--log-decisions``),
        whose report counts how often, when and by whom each label is chosen. Make a
        label name the card or action, not the state it is played in: a code that means
        "the card in hand slot 2" reads "hand slot 2". Without it a label is "move N".
    check_state(params, n_players, state) -> list[str]
        The conservation laws and invariants of a state (cards, tokens, acorns...): a list
        of violations, empty when the state is sound. Run after every move in the tests.

Optional fields of ``GameSpec`` that reports use:

    seat_names(n_players) -> list[str]
        The name of each seat's side or role in an asymmetric game (Watership Down's
        "elil" and "hlessil"); reports then say "seat 1 (elil)".
    choice_columns
        The item columns that are a player's own choices (a card played, a tile taken, a
        house kept), column by column: every other column is an outcome (drawn, caught,
        lost, dealt, or a step the game's state forces, such as Rabbit Hunt's bunny
        placement). Either the column names (a game whose columns are fixed) or a function
        of a run's columns that returns its choices (a game whose columns follow its data,
        ``item_columns_of``). Card value calls only choices "cards"; outcomes are shown
        apart as associations. It wins over ``choice_events``.
    choice_events
        The older, coarser form, kept for plugins: the item events (the part after ``:``)
        that are choices, every column with that event alike. A game that declares neither
        has all its events ranked as choices, with a note.
    remove_copy(values, item) -> dict
        The overrides that take one copy of card ``item`` (the part before ``:`` of an item
        column) out of a game with these effective data values, adjusting what the data ties
        to it (a deck size): what ``--check-cards`` plays. Raise ``SimkitError`` with the
        reason when it cannot be done (a single fixed card, a count at 0).
        ``simkit.cards.copies_rule`` builds it from a record list with a ``count`` field.
    item_names(item) -> str
        How a person reads item ``item`` ("Boar"); the default writes its code with spaces
        and a capital (``move_any_farmer`` -> "Move any farmer"). Reports, verdicts and the
        summary show these names; CSV and JSON keep the codes beside them.
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

A second optional kernel for a fast policy (``docs/learning.md``, "Move features"), only
with ``features``:

    move_features(params, obs, seat, move, out) -> None
        Fill ``out`` (float64[len(move_features)]) with what a good player of ``seat`` would
        look at about one legal ``move``, read from ``obs`` and ``params`` alone: what it
        gains or spends, which card, slot or cell it concerns and how that one stands (the
        things ``features`` sums over, for this move). Every entry is written on every call,
        finite; allocates nothing. A policy reads it once for each legal move, so it is
        cheap: no move is applied.

    move_features
        The name of each entry of ``move_features``' vector, in order.

An optional field for the search strategies (``docs/search.md``):

    search_knobs
        The game's defaults for the search knobs, by name, over simkit's (for example
        ``{"iterations": 250, "rollout": "random"}``): the budget read off a strength curve
        (``benchmarks/search_strength.py strength --budgets ...``: the smallest budget whose
        win rate is within the interval of the best; not a time a decision, which asks
        thousands of iterations of a short game already at its strength at 100), and the
        rollout policy that plays the game best for its cost. The game's NOTES.md gives the
        figures they were chosen by. ``--weight`` and ``NAME@N`` override them.

    guided_knobs
        The game's defaults for the guided search ``ismcts+learned``, over its own
        (``simkit.search.knob_defaults``: ``search_knobs``, then the guided knobs): any
        search knob or ``prior``, ``prior_temperature``, ``leaf_value``.

An optional field for the reports (issue 28):

    strong
        The name of the game's strong fast player: the strongest strategy that plays a
        million 2-player games within an hour on a 2-core machine (``"heuristic"`` unless
        the game says otherwise). Headlines, the README's experiment and ``sensitivity
        --assumptions`` play it. ``registry.strong_strategy(game, players, data_digest)``
        gives the strategy to play: a strong ``learned`` counts only at a player count and
        data its models fit (the heuristic plays elsewhere), and a game with no strategy of
        that name falls back to ``random``.

An optional field for ``simkit check`` and ``simkit.testing`` (docs/adding-a-game.md):

    hidden_zones
        Where the state holds dealt cards a seat may not see: a tuple of ``HiddenZone``
        (slices of the state, as slots holding a card each or as counts by kind), or a
        function ``(params, n_players) -> tuple`` for a layout that follows the data. The
        checks then test that ``determinize`` deals the unseen cards uniformly among the
        places they could be; ``()`` says the game hides nothing, and a game without the
        field is reported "uniform dealing: not checked (declare hidden zones)".

Everything a designer may change lives in the game's ``data.toml``; ``compile`` turns the
effective values into a tuple of numpy arrays (``params``) that the kernels read.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Sequence
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
class HiddenZone:
    """A stretch of the state that holds dealt cards (``GameSpec.hidden_zones``): data
    for the uniform-dealing check, not code.

    ``start`` and ``length`` are state offsets. ``counts`` 0: slots, one card code per
    entry (-1 empty), such as a draw pile or face-down cards; ``counts`` k: blocks of k
    counts by kind, one block per holder, such as hands kept by type. ``known`` (counts
    only): the offset of a parallel stretch of counts the other seats know are in each
    block (cards seen going there), which a determinisation keeps and the check leaves
    out. Zones with one ``pool`` are dealt from one set of cards (a hand and the pile it
    draws from); each pool is checked apart (cards and territories are different pools).
    ``kinds``: which cards are the pool's. Counts: how many of a block's first counts are
    (a hand's own bunnies, which no other place can hold, left out); slots: the codes 0 to
    ``kinds`` - 1 are, any other code (a bunny lying on the farmland, the warehouse) is
    another pool's and left out. All of them by default.
    ``away``: the offset of a count of the pool's cards put away unseen, at no place of the
    state (cards removed at setup): a determinisation may deal that many other cards of
    the pool to the zones, so the check asks that the zones hold as many of the pool's
    cards as the game's, at most ``state[away]`` of them others. Give it on one zone of
    the pool.
    ``complete`` False: the pool's cards may lie in places not declared too (face-down
    cards on a board), so a determinisation may deal the zones other cards; the check
    then tests only that each place gets each kind as often as the others.
    """

    name: str
    start: int
    length: int
    counts: int = 0
    known: int | None = None
    pool: str = ""
    kinds: int | None = None
    complete: bool = True
    away: int | None = None

    def __post_init__(self):
        if self.start < 0 or self.length < 0:
            raise ValueError(f"hidden zone {self.name!r}: start and length must be >= 0")
        if self.counts and self.length % self.counts:
            raise ValueError(f"hidden zone {self.name!r}: length {self.length} is not whole "
                             f"blocks of {self.counts} counts")
        if self.known is not None and not self.counts:
            raise ValueError(f"hidden zone {self.name!r}: known goes with counts")
        if self.kinds is not None and not 0 < self.kinds <= (self.counts or self.kinds):
            raise ValueError(f"hidden zone {self.name!r}: kinds {self.kinds} must be 1 to "
                             f"counts ({self.counts})")
        if self.away is not None and self.away < 0:
            raise ValueError(f"hidden zone {self.name!r}: away must be a state offset")


def plain_name(code: str) -> str:
    """A code as words: ``move_any_farmer`` -> "Move any farmer"."""
    words = code.replace("_", " ").strip()
    return words[:1].upper() + words[1:]


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
    choice_columns: Callable[[Sequence[str]], Iterable[str]] | Collection[str] | None = None
    choice_events: frozenset[str] | None = None
    remove_copy: Callable[[dict[str, Any], str], dict[str, Any]] | None = None
    item_names: Callable[[str], str] | None = None
    describe_setup: Callable | None = None
    describe_move: Callable | None = None
    describe_choice: Callable | None = None
    move_label: Callable[[tuple, int, int], str] | None = None
    check_state: Callable | None = None
    summary: str = ""
    search_knobs: dict[str, float | str] | None = None
    guided_knobs: dict[str, float | str] | None = None
    item_columns_of: Callable[[dict[str, Any]], Sequence[str]] | None = None
    progress_unit: str = "points"
    phases: tuple[str, ...] | None = None
    features: tuple[str, ...] | None = None
    move_features: tuple[str, ...] | None = None
    strong: str = "heuristic"
    hidden_zones: Sequence[HiddenZone] | Callable[[tuple, int], Sequence[HiddenZone]] | None \
        = None

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
        if self.choice_columns is not None:
            unknown = set(self.choices_of(self.item_columns, strict=False)) - set(
                self.item_columns)
            if unknown:
                raise ValueError(f"{self.name}: choice_columns {sorted(unknown)[:5]} are not "
                                 "among its item columns")
        if self.features is not None:
            names = list(self.features)
            if not names or len(set(names)) != len(names):
                raise ValueError(f"{self.name}: features must name each entry once")
            if not hasattr(self.rules, "features"):
                raise ValueError(f"{self.name}: features are named but its rules module has "
                                 f"no 'features' kernel")
        if self.move_features is not None:
            names = list(self.move_features)
            if not names or len(set(names)) != len(names):
                raise ValueError(f"{self.name}: move_features must name each entry once")
            if self.features is None or not hasattr(self.rules, "move_features"):
                raise ValueError(f"{self.name}: move_features are named but its rules module "
                                 f"has no 'move_features' kernel (or the game no features)")

    def choices_of(self, columns: Sequence[str], strict: bool = True) -> list[str] | None:
        """The item columns among ``columns`` (a run's) that are a player's choices, in
        their order: by ``choice_columns``, else by ``choice_events``; None when the game
        declares neither. ``strict`` False returns what ``choice_columns`` names as it is
        (to check it against the columns)."""
        if self.choice_columns is not None:
            declared = self.choice_columns(list(columns)) if callable(self.choice_columns) \
                else self.choice_columns
            declared = set(declared)
            if not strict:
                return sorted(declared)
            return [c for c in columns if c in declared]
        if self.choice_events is not None:
            return [c for c in columns if c.partition(":")[2] in self.choice_events]
        return None

    def item_name(self, item: str) -> str:
        """How a person reads an item (the part before ``:`` of an item column)."""
        if self.item_names is not None:
            return self.item_names(item)
        return plain_name(item)

    def column_name(self, column: str) -> str:
        """How a person reads an item column: "Move any farmer (placed)"."""
        item, _, event = column.partition(":")
        return f"{self.item_name(item)} ({event.replace('_', ' ')})" if event else \
            self.item_name(item)

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
    def has_move_features(self) -> bool:
        """Whether the game also gives the optional ``move_features`` kernel and names its
        entries (``docs/learning.md``, "Move features"): a policy then reads it."""
        return (self.has_features and self.move_features is not None
                and hasattr(self.rules, "move_features"))

    def zones(self, params: tuple, n_players: int) -> tuple[HiddenZone, ...] | None:
        """The game's hidden zones for these parameters (None: not declared)."""
        zones = self.hidden_zones
        if callable(zones):
            zones = zones(params, n_players)
        return None if zones is None else tuple(zones)

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
