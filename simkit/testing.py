"""The checks that make a game trustworthy, for any installed game: ours and a plugin's.

``simkit check GAME`` prints them as a checklist; a plugin's own pytest runs them with one
line (docs/adding-a-game.md, "Checking a game")::

    import simkit.testing

    def test_my_game_passes_simkit_check():
        simkit.testing.check_game("my-game")        # AssertionError with the checklist

Each check plays seeded games, so a failure comes back the same every time:

- random play at every player count, ``check_state`` after every move, a cap of
  100 x ``max_turns`` decisions and a wall-clock limit a game (a game stuck inside a turn
  is reported, not hung);
- observe and determinise: a determinisation is sound, observed as the observation, and
  dealt anew each time;
- uniform dealing, from the game's declared ``hidden_zones`` (``simkit.game.HiddenZone``);
- no peeking at the driver: a search decides the same from two true states with one
  observation (sized for short games: a check at each decision with a choice);
- the same tables on 1 and 2 workers; a replay equal to the recorded row; the tables'
  values in their bounds (and, at full size, every number of the data at its bounds);
- a dry run of every strategy;
- each optional kernel present (``progress``, ``phase``, ``features``; ``determinize``
  above): fixed length, finite, reading only the observation, allocating nothing. An
  absent one is "not applicable", never a failure.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass, field

import numpy as np

from simkit import registry
from simkit.errors import SimkitError, compile_error
from simkit.game import HIDDEN, GameSpec
from simkit.rng import game_seeds, seed_streams

OK, FAIL, NA, UNCHECKED = "ok", "FAIL", "n/a", "--"
DECISION_CAP = 100
"""A game is stuck when it makes more than this many times ``max_turns`` decisions."""
ALPHA = 1e-4
"""The uniform-dealing test's level, per state and pool (a fair deal fails 1 in 10,000)."""


@dataclass(frozen=True)
class Size:
    """How much each check plays (``--quick``, ``--full``)."""

    name: str
    games: int  # random games a player count
    seconds: float  # the wall-clock limit of one random game
    states: int  # mid-game states a player count for the determinisation checks
    draws: int  # determinisations of each observation (freshness, soundness)
    deal_draws: int  # determinisations of each observation for the uniform-deal test
    deal_states: int  # states a player count for the uniform-deal test
    peeks: int  # driver checks (a search from two true states) a player count
    run_games: int  # games of the 1-and-2-workers run
    data_bounds: bool  # every number of the data at its bounds


SIZES = {
    "quick": Size("quick", games=4, seconds=20.0, states=4, draws=8, deal_draws=400,
                  deal_states=2, peeks=3, run_games=8, data_bounds=False),
    "full": Size("full", games=16, seconds=60.0, states=16, draws=24, deal_draws=2000,
                 deal_states=4, peeks=10, run_games=40, data_bounds=True),
}


class Failed(Exception):
    """A check failed; the message explains it to the game's author."""


class NotApplicable(Exception):
    """A check that this game cannot have (an optional kernel it does not give)."""


class NotChecked(Exception):
    """A check that was not run (an undeclared fact, a size that skips it)."""


@dataclass
class Item:
    """One line of the checklist."""

    name: str
    status: str
    detail: str = ""

    def line(self) -> str:
        return f"  {self.status:<4}  {self.name}" + (f": {self.detail}" if self.detail else "")


@dataclass
class Game:
    """One played random game: its seed and copies of states at sampled decisions."""

    players: int
    seed: int
    decisions: int = 0
    states: list[np.ndarray] = field(default_factory=list)
    first_hidden: np.ndarray | None = None  # the first state whose mover does not see all
    # of the declared hidden zones (the opening, in most games)
    phases: dict[int, int] = field(default_factory=dict)  # decisions by phase index


def playable(game: str) -> list[str]:
    """The strategies that can play ``game``: a search needs its ``determinize`` kernel, a
    learnt player its ``features`` too (``simkit games`` lists the same)."""
    spec = registry.get_game(game)
    searchable = hasattr(spec.rules, "determinize")
    learnable = searchable and spec.has_features
    return [n for n, st in registry.strategies_for(game).items()
            if st.search is None or (st.searches and searchable)
            or (st.search == "learned" and learnable)]


class Context:
    """What the checks share for one game: its plans and the random games played."""

    def __init__(self, game: str, size: Size, players: tuple[int, ...] | None = None,
                 overrides=None):
        from simkit.runner import RunSpec, plan

        self.spec: GameSpec = registry.get_game(game)
        self.size = size
        self.players = tuple(players or self.spec.players)
        self.overrides = overrides
        self.plans = {n: plan(RunSpec.make(game, n, 1, overrides=overrides))
                      for n in self.players}
        self.played: dict[int, list[Game]] = {}
        # every run of the checks compiles one driver with every strategy that can play
        self.compile_with = tuple(playable(game))

    def run(self, n: int, games: int, seed: int, names: list[str]):
        from simkit.runner import RunSpec

        return RunSpec.make(self.spec.name, n, games, seed, names, self.overrides,
                            compile_with=self.compile_with)

    @property
    def rules(self):
        return self.spec.rules

    def states(self, n: int) -> Iterator[tuple[Game, np.ndarray]]:
        for g in self.played.get(n, []):
            for st in g.states:
                yield g, st


def _problems(spec: GameSpec, p, n: int, state: np.ndarray) -> list[str]:
    return list(spec.check_state(p.compiled, n, state)) if spec.check_state else []


# ---- random play ------------------------------------------------------------------------

def play_random(ctx: Context, n: int, seed: int, rng, keep: int) -> Game:
    """One random game stepped from Python, every state checked; ``keep`` states sampled
    (every decision's state is a candidate) for the later checks."""
    spec, rules, p = ctx.spec, ctx.rules, ctx.plans[n]
    g = Game(n, seed)
    streams = np.empty(1 + n, np.uint64)
    seed_streams(np.uint64(seed), n, streams)
    chance = streams[0:1]
    state = np.empty(p.state_size, np.int32)
    moves = np.empty(p.max_moves, np.int32)
    obs = np.empty(p.state_size, np.int32)
    items = np.zeros((n, max(1, len(p.item_columns))), np.int32)
    where = f"{n} players, game seed {seed}"
    rules.new_game(p.compiled, n, state, chance)
    if problems := _problems(spec, p, n, state):
        raise Failed(f"check_state after setup ({where}): {'; '.join(problems[:3])}")
    cap = DECISION_CAP * p.max_turns
    zones = spec.zones(p.compiled, n) if spec.hidden_zones is not None else None
    start = time.monotonic()
    trail = []
    path: list[tuple[int, int]] = []  # (seat, move) of every decision, for a failure
    phased = spec.has_phases
    trail_phase: list[int] = []  # the phase of each state of the trail
    kept = ctx.__dict__.setdefault("phases_kept", {}).setdefault(n, set())
    while not rules.is_over(state) and rules.turn_number(state) < p.max_turns:
        at = f"decision {g.decisions + 1} ({where})"
        if g.decisions >= cap:
            raise Failed(f"the game is stuck: {cap:,} decisions (100 x max_turns) and "
                         f"still at turn {rules.turn_number(state)} ({where}); a turn that "
                         "never ends, or turn_number that never counts up")
        if g.decisions == 1:  # the first decision compiled the kernels: not the game's time
            start = time.monotonic()
        if time.monotonic() - start > ctx.size.seconds:
            raise Failed(f"a random game ran over {ctx.size.seconds:g} s at {at}, turn "
                         f"{rules.turn_number(state)}: stuck inside a turn?")
        k = rules.legal_moves(p.compiled, state, moves)
        if not 0 < k <= p.max_moves:
            raise Failed(f"legal_moves gave {k} moves at {at} (1 to max_moves "
                         f"{p.max_moves} before the game is over)")
        if len(set(moves[:k].tolist())) != k:
            raise Failed(f"legal_moves gave a move twice at {at}: {moves[:k].tolist()}")
        seat = int(rules.to_move(state))
        if not 0 <= seat < n:
            raise Failed(f"to_move gave seat {seat} at {at}")
        before = state.copy()
        rules.observe(p.compiled, state, seat, obs)
        if not np.array_equal(before, state):
            raise Failed(f"observe changed the state at {at}")
        if phased:
            phased = _count_phase(rules, p, state, g, trail_phase)
        trail.append(before)
        if g.first_hidden is None and zones and any(
                (obs[z.start:z.start + z.length] == HIDDEN).any() for z in zones):
            g.first_hidden = before
        move = int(moves[rng.integers(k)])
        rules.apply_move(p.compiled, state, move, chance, items)
        g.decisions += 1
        if problems := _problems(spec, p, n, state):
            raise Failed(f"check_state after move {_move(spec, p, n, move)} at {at}: "
                         f"{'; '.join(problems[:3])}{_path(spec, p, n, path)}")
        path.append((seat, move))
    if trail:
        picks = rng.choice(len(trail), size=min(keep, len(trail)), replace=False)
        if len(trail_phase) == len(trail):  # else the phase kernel raised: told later
            picks = _with_every_phase(set(picks.tolist()), trail_phase, kept)
        g.states = [trail[i] for i in sorted(picks)]
    g.states.append(state.copy())  # the end, for progress
    return g


def _move(spec: GameSpec, p, n: int, move: int) -> str:
    """A move code, with the game's own label when it gives one: "11 (play Constable)"."""
    label = spec.move_label(p.compiled, n, move) if spec.move_label else ""
    return f"{move} ({label})" if label else str(move)


def _path(spec: GameSpec, p, n: int, path: list[tuple[int, int]], last: int = 6) -> str:
    """The decisions that led to a failure (the random moves cannot be replayed from the
    game seed alone: they come from the check's own generator)."""
    if not path:
        return ""
    told = [f"P{seat + 1} {_move(spec, p, n, m)}" for seat, m in path[-last:]]
    more = "..., " if len(path) > last else ""
    return f"; the moves before it: {more}{', '.join(told)}"


def _count_phase(rules, p, state, g: Game, trail_phase: list[int]) -> bool:
    """Counts the decision's phase in ``g.phases`` and notes it for the state about to join
    the trail; False when the kernel raises (the phase check calls it again and tells)."""
    try:
        k = int(rules.phase(p.compiled, state))
    except Exception:  # noqa: BLE001 - told by the phase check
        return False
    g.phases[k] = g.phases.get(k, 0) + 1
    trail_phase.append(k)
    return True


def _with_every_phase(picks: set[int], trail_phase: list[int], kept: set[int]) -> set[int]:
    """The sampled states, and the trail's first state of each phase that no sampled state
    of this game or an earlier one has, so the checks of states see every kind of decision
    random play reached (a rare phase, such as a reply by another seat, is easily missed by
    a sample). ``kept``: the phases sampled so far at this player count, updated."""
    kept.update(trail_phase[i] for i in picks)
    for i, k in enumerate(trail_phase):
        if k not in kept:
            kept.add(k)
            picks.add(i)
    return picks


def _context_of(p, size: Size = SIZES["full"]) -> Context:
    """A Context of one plan ``p`` (one player count, its data), without planning again."""
    ctx = Context.__new__(Context)
    ctx.spec, ctx.size, ctx.players = registry.get_game(p.run.game), size, (p.run.players,)
    ctx.plans, ctx.played, ctx.overrides = {p.run.players: p}, {}, dict(p.run.overrides)
    return ctx


def step_random_game(p, seed: int, rng) -> int:
    """One random game of plan ``p`` (``simkit.runner.plan``), every state checked as the
    random-play check does: its number of decisions, or an ``AssertionError`` saying what
    broke (for scripts that play many games: a game's NOTES.md measures this way)."""
    try:
        return play_random(_context_of(p), p.run.players, int(seed), rng, 0).decisions
    except Failed as exc:
        raise AssertionError(str(exc)) from None


def check_random_play(ctx: Context) -> str:
    rules, total, timeouts, decisions = ctx.rules, 0, 0, 0
    for n in ctx.players:
        p = ctx.plans[n]
        rng = np.random.default_rng(n)
        keep = -(-ctx.size.states // ctx.size.games) + 1
        games = ctx.played.setdefault(n, [])
        for seed in game_seeds(99, 0, ctx.size.games):
            g = play_random(ctx, n, int(seed), rng, keep)
            games.append(g)
            end = g.states[-1]
            decisions += g.decisions
            total += 1
            if not rules.is_over(end):
                timeouts += 1
                continue
            scores, ranks = np.zeros(n), np.zeros(n, np.int32)
            reason = rules.finish(p.compiled, end, scores, ranks)
            if not 1 <= reason < len(ctx.spec.end_reasons):
                raise Failed(f"finish gave end reason {reason} (1 to "
                             f"{len(ctx.spec.end_reasons) - 1}) ({n} players, seed {g.seed})")
            if not ((ranks >= 1) & (ranks <= n)).all() or not np.isfinite(scores).all():
                raise Failed(f"finish gave ranks {ranks.tolist()} and scores "
                             f"{scores.tolist()} ({n} players, seed {g.seed})")
    if timeouts > max(0, 0.05 * total):
        raise Failed(f"{timeouts} of {total} random games reached the turn cap (max_turns "
                     "in data.toml): a game that never ends, or a cap too low")
    counts = ", ".join(map(str, ctx.players))
    return (f"{total} games at {counts} players, {decisions:,} decisions, check_state "
            f"after each{', ' + str(timeouts) + ' at the turn cap' if timeouts else ''}")


# ---- determinisation --------------------------------------------------------------------

def _determinize(ctx, p, obs, seat, out, stream, scratch):
    ctx.rules.determinize(p.compiled, obs, seat, out, stream, scratch)


def check_determinize(ctx: Context) -> str:
    if not hasattr(ctx.rules, "determinize"):
        raise NotApplicable("no determinize kernel (the search strategies need it)")
    spec, rules = ctx.spec, ctx.rules
    checked = fresh = 0
    for n in ctx.players:
        p = ctx.plans[n]
        obs, again, det, scratch = (np.empty(p.state_size, np.int32) for _ in range(4))
        stream = np.array([12345], np.uint64)
        zones = spec.zones(p.compiled, n)
        for g, state in ctx.states(n):
            if rules.is_over(state):
                continue
            for seat in range(n):
                at = f"seat {seat + 1}, {n} players, game seed {g.seed}"
                rules.observe(p.compiled, state, seat, obs)
                hidden = obs == HIDDEN
                dealt = set()
                for _ in range(ctx.size.draws):
                    before = obs.copy()
                    _determinize(ctx, p, obs, seat, det, stream, scratch)
                    if not np.array_equal(before, obs):
                        raise Failed(f"determinize changed the observation ({at})")
                    if zones is not None and (why := _pool_change(zones, state, det)):
                        raise Failed(f"a determinisation holds other cards than the game "
                                     f"({at}): {why}; observe shows a card that determinize "
                                     "deals again, or determinize loses or makes one")
                    if problems := _problems(spec, p, n, det):
                        raise Failed(f"a determinisation fails check_state ({at}): "
                                     + "; ".join(problems[:3]))
                    # (-2 may be a value of the game's own, a change of -2 say)
                    left = (det == HIDDEN) & (state != HIDDEN)
                    if left.any():
                        raise Failed(f"a determinisation left entries HIDDEN ({at}): "
                                     f"{np.flatnonzero(left)[:10].tolist()}")
                    rules.observe(p.compiled, det, seat, again)
                    if not np.array_equal(again, obs):
                        raise Failed(
                            f"observing a determinisation does not give back the observation "
                            f"({at}): entries {np.flatnonzero(again != obs)[:10].tolist()} "
                            "differ; determinize must keep all the seat has seen")
                    dealt.add(det[hidden].tobytes())
                checked += 1
                if len(set(state[hidden].tolist())) > 1:
                    if dealt == {state[hidden].tobytes()}:
                        continue  # every draw dealt the truth, which determinize never
                        # sees: the observation leaves one deal (a count that settles it)
                    if len(dealt) < 2:
                        raise Failed(f"{ctx.size.draws} determinisations dealt the unseen "
                                     f"parts the same way every time ({at})")
                    fresh += 1
    if not checked:
        raise Failed("no state to check (no random game had a decision)")
    return (f"{checked} observations x {ctx.size.draws} determinisations sound and observed "
            f"as their observation; dealt anew in {fresh}")


def _unseen_rows(zones, obs, dets, rng) -> dict[str, list[list[int]]]:
    """Each determinisation's unseen cards, pool by pool: a slot zone's hidden non-empty
    slots in order, then each hidden block of a count zone as its cards (less those known
    to be there) in a random order (a hand has no order; shuffling makes each of its
    places a uniform pick from it)."""
    rows: dict[str, list[list[int]]] = {}
    for det in dets:
        mine: dict[str, list[int]] = {}
        for z in zones:
            pool = mine.setdefault(z.pool or z.name, [])
            zone = slice(z.start, z.start + z.length)
            if not z.counts:
                values = det[zone][obs[zone] == HIDDEN]
                pool += values[_of_pool(z, values)].tolist()
                continue
            for b in range(z.length // z.counts):
                block = slice(z.start + b * z.counts, z.start + (b + 1) * z.counts)
                if not (obs[block] == HIDDEN).any():
                    continue
                held = det[block].astype(np.int64)
                if z.known is not None:
                    off = z.known + b * z.counts
                    held = held - np.maximum(det[off:off + z.counts], 0)
                held = held[:z.kinds or z.counts]
                pool += rng.permutation(np.repeat(np.arange(len(held)),
                                                  np.maximum(held, 0))).tolist()
        for name, values in mine.items():
            rows.setdefault(name, []).append(values)
    return rows


def _of_pool(z, values: np.ndarray) -> np.ndarray:
    """Which of a slot zone's ``values`` are cards of its pool: not empty (-1), and below
    ``kinds`` when the zone gives it (a bunny on the farmland is another pool's)."""
    keep = values >= 0
    return keep & (values < z.kinds) if z.kinds else keep


def _pool_cards(zones, state: np.ndarray) -> dict[str, list[int]]:
    """Every card the zones of ``state`` hold, pool by pool, sorted."""
    out: dict[str, list[int]] = {}
    for z in zones:
        values = state[z.start:z.start + z.length].astype(np.int64)
        if z.counts:
            blocks = values.reshape(-1, z.counts)[:, :z.kinds or z.counts]
            cards = np.repeat(np.tile(np.arange(blocks.shape[1]), len(blocks)),
                              np.maximum(blocks, 0).ravel())
        else:
            cards = values[_of_pool(z, values)]
        out.setdefault(z.pool or z.name, []).extend(cards.tolist())
    return {k: sorted(v) for k, v in out.items()}


def _away(zones, state: np.ndarray) -> dict[str, int]:
    """The cards of each pool put away unseen (``HiddenZone.away``), pool by pool."""
    out: dict[str, int] = {}
    for z in zones:
        if z.away is not None:
            out[z.pool or z.name] = out.get(z.pool or z.name, 0) + int(state[z.away])
    return out


def _pool_change(zones, state: np.ndarray, det: np.ndarray) -> str | None:
    """How the cards of a determinisation's zones differ from the true state's (None: the
    same cards, dealt anew; or, for a pool with cards put away, as many cards, no more of
    them others than were put away)."""
    from collections import Counter

    true, dealt = _pool_cards(zones, state), _pool_cards(zones, det)
    partial = {z.pool or z.name for z in zones if not z.complete}
    away = _away(zones, state)
    for pool, cards in true.items():
        if pool in partial or cards == dealt.get(pool):
            continue
        more = Counter(dealt.get(pool, [])) - Counter(cards)
        less = Counter(cards) - Counter(dealt.get(pool, []))
        if pool in away and more.total() == less.total() <= away[pool]:
            continue  # cards swapped with some of those put away
        return (f"pool {pool!r} has {dict(more) or 'nothing'} more and "
                f"{dict(less) or 'nothing'} fewer" + (
                    f" ({away[pool]} put away, which may stand in for as many)"
                    if pool in away else ""))
    return None


def uniform_deal_problem(dealt, alpha: float = ALPHA, same_cards: bool | int = True
                         ) -> str | None:
    """``dealt`` (int[D, K]): the card found at each of K unseen places in each of D
    determinisations. None when every draw deals the same multiset (nothing created or
    lost; not asked when ``same_cards`` is False; an int: at most that many cards may
    differ, as many as the pool put away unseen) and each kind is spread over the places
    as a uniform deal spreads it (a chi-square test of independence of place and kind,
    ``scipy.stats.chi2_contingency``); else what is wrong."""
    from collections import Counter

    from scipy import stats

    dealt = np.asarray(dealt)
    slack = 0 if same_cards is True else same_cards
    first = Counter(dealt[0].tolist())
    for row in dealt[1:] if same_cards is not False else ():
        if (Counter(row.tolist()) - first).total() > 2 * slack:
            return "two determinisations deal different cards (one is lost or made)"
    kinds = np.unique(dealt)
    if len(kinds) < 2 or dealt.shape[1] < 2:
        return None
    table = np.stack([(dealt == k).sum(axis=0) for k in kinds], axis=1)  # places x kinds
    p = stats.chi2_contingency(table, correction=False).pvalue
    if p <= alpha:
        return f"the unseen cards are not dealt uniformly among their places (p = {p:.2g})"
    return None


def check_uniform_deal(ctx: Context) -> str:
    spec, rules = ctx.spec, ctx.rules
    first = ctx.plans[ctx.players[0]]
    zones = spec.zones(first.compiled, ctx.players[0])
    if zones is None:
        raise NotChecked("not checked (declare hidden zones: GameSpec.hidden_zones)")
    if not zones:
        raise NotApplicable("the game declares that it hides nothing")
    if not hasattr(rules, "determinize"):
        raise NotApplicable("no determinize kernel")
    rng = np.random.default_rng(5)
    tested = 0
    for n in ctx.players:
        p = ctx.plans[n]
        zones = spec.zones(p.compiled, n)
        obs, scratch = (np.empty(p.state_size, np.int32) for _ in range(2))
        stream = np.array([777], np.uint64)
        for g, state in _deal_states(ctx, n):
            for seat in range(n):
                rules.observe(p.compiled, state, seat, obs)
                dets = np.empty((ctx.size.deal_draws, p.state_size), np.int32)
                for d in dets:
                    rules.determinize(p.compiled, obs, seat, d, stream, scratch)
                for pool, rows in _unseen_rows(zones, obs, dets, rng).items():
                    at = f"pool {pool!r}, seat {seat + 1}, {n} players, game seed {g.seed}"
                    if len({len(r) for r in rows}) > 1:
                        raise Failed(f"determinisations deal different numbers of unseen "
                                     f"cards ({at}): a card lost or made")
                    if not rows[0]:
                        continue
                    whole = pool not in {z.pool or z.name for z in zones if not z.complete}
                    same = _away(zones, state).get(pool, True) if whole else False
                    if problem := uniform_deal_problem(np.array(rows), same_cards=same):
                        raise Failed(f"{problem} ({at}, {ctx.size.deal_draws} draws)")
                    tested += 1
    if not tested:
        raise NotApplicable("no unseen card in the zones at the states checked")
    return (f"{tested} deals of {ctx.size.deal_draws} draws, chi-square of place and kind "
            f"(level {ALPHA:g})")


def _deal_states(ctx: Context, n: int) -> list[tuple[Game, np.ndarray]]:
    """The states of the uniform-deal test: in each of the first games, the first decision
    at which the seat to move does not see all of the hidden zones (the opening, in most
    games: nothing is known yet but one's own cards, so the deal is uniform over every
    unseen place)."""
    games = ctx.played.get(n, [])[:ctx.size.deal_states]
    return [(g, g.first_hidden) for g in games if g.first_hidden is not None]


# ---- the optional kernels ---------------------------------------------------------------

_loops: dict[tuple, Callable] = {}


def allocations(fn, args: tuple, times: int) -> int:
    """NRT allocations of ``times`` calls of kernel ``fn`` in a jitted loop."""
    from numba import njit
    from numba.core.runtime import _nrt_python, rtsys

    key = (id(fn), len(args))
    if key not in _loops:
        if len(args) == 3:
            def many(a, b, c, times):
                for _ in range(times):
                    fn(a, b, c)
        elif len(args) == 4:
            def many(a, b, c, d, times):
                for _ in range(times):
                    fn(a, b, c, d)
        elif len(args) == 5:
            def many(a, b, c, d, e, times):
                for _ in range(times):
                    fn(a, b, c, d, e)
        else:
            def many(a, b, c, d, e, f, times):
                for _ in range(times):
                    fn(a, b, c, d, e, f)
        _loops[key] = njit(many)
    loop = _loops[key]
    loop(*args, 1)  # compile
    was_on = _nrt_python.memsys_stats_enabled()
    _nrt_python.memsys_enable_stats()
    try:
        before = rtsys.get_allocation_stats().alloc
        loop(*args, times)
        return rtsys.get_allocation_stats().alloc - before
    finally:
        if not was_on:
            _nrt_python.memsys_disable_stats()


def _allocates(fn, args: tuple) -> bool:
    return allocations(fn, args, 1) != allocations(fn, args, 50)


def check_progress(ctx: Context) -> str:
    if not ctx.spec.has_progress:
        raise NotApplicable("no progress kernel")
    rules, checked, last = ctx.rules, 0, None
    for n in ctx.players:
        p = ctx.plans[n]
        for g, state in ctx.states(n):
            out = np.full(n, np.nan)
            before = state.copy()
            rules.progress(p.compiled, state, out)
            at = f"{n} players, game seed {g.seed}"
            if not np.array_equal(before, state):
                raise Failed(f"progress changed the state ({at})")
            if not np.isfinite(out).all():
                raise Failed(f"progress gave {out.tolist()}: every seat's entry must be "
                             f"written and finite ({at})")
            checked += 1
            last = (p, state)
            if state is g.states[-1] and rules.is_over(state):
                scores, ranks = np.zeros(n), np.zeros(n, np.int32)
                rules.finish(p.compiled, state.copy(), scores, ranks)
                winners = out[ranks == 1]  # (none when every seat lost: a game of teams)
                if winners.size and (out[ranks > 1] > winners.min() + 1e-9).any():
                    raise Failed(f"at the end a seat finish ranks 1 holds less progress than "
                                 f"one it ranks lower ({out.tolist()}, ranks "
                                 f"{ranks.tolist()}; {at})")
    if last is None:
        raise Failed("no state to check")
    p, state = last
    if _allocates(ctx.rules.progress, (p.compiled, state, np.empty(p.run.players))):
        raise Failed("progress allocates: the calls' allocations grow with their number")
    return f"{checked} states: {n} finite entries, winners ahead at the end, no allocation"


def check_phase(ctx: Context) -> str:
    if not ctx.spec.has_phases:
        raise NotApplicable("no phase kernel (and phases)")
    phases, seen = ctx.spec.phases, set()
    for n in ctx.players:
        p = ctx.plans[n]
        for g, state in ctx.states(n):
            if ctx.rules.is_over(state):
                continue
            k = int(ctx.rules.phase(p.compiled, state))
            if not 0 <= k < len(phases):
                raise Failed(f"phase gave {k}, not an index into phases {list(phases)} "
                             f"({n} players, game seed {g.seed})")
            seen.add(phases[k])
    counts: dict[int, int] = {}
    for n in ctx.players:
        for g in ctx.played.get(n, []):
            for k, c in g.phases.items():
                if not 0 <= k < len(phases):
                    raise Failed(f"phase gave {k}, not an index into phases {list(phases)} "
                                 f"({n} players, game seed {g.seed})")
                counts[k] = counts.get(k, 0) + c
    seen |= {phases[k] for k in counts}
    text = f"indices into {len(phases)} phases; seen: {', '.join(sorted(seen))}"
    never = [name for name in phases if name not in seen]
    if never:
        text += (f"; never reached in random play: {', '.join(never)} (no check saw such a "
                 "decision: --full plays more games, or a rule never lets it happen)")
    return text


def check_features(ctx: Context) -> str:
    spec, rules = ctx.spec, ctx.rules
    if not spec.has_features:
        raise NotApplicable("no features kernel (the learnt players need it)")
    names = spec.features
    has_det = hasattr(rules, "determinize")
    by_move = spec.has_move_features
    checked, moves_checked, last, last_move = 0, 0, None, 0
    for n in ctx.players:
        p = ctx.plans[n]
        obs, obs2, other, scratch = (np.empty(p.state_size, np.int32) for _ in range(4))
        moves = np.empty(p.max_moves, np.int32)
        stream = np.array([4242], np.uint64)
        for g, state in ctx.states(n):
            if rules.is_over(state):
                continue
            seat = int(rules.to_move(state))
            at = f"seat {seat + 1}, {n} players, game seed {g.seed}"
            rules.observe(p.compiled, state, seat, obs)
            v = _features(ctx, p, obs, seat, at)
            if has_det:
                rules.determinize(p.compiled, obs, seat, other, stream, scratch)
                rules.observe(p.compiled, other, seat, obs2)
                w = _features(ctx, p, obs2, seat, at)
                if not np.array_equal(v, w):
                    diff = [names[i] for i in np.flatnonzero(v != w)[:5]]
                    raise Failed(f"one observation gave two vectors ({at}): {diff} read "
                                 "what the seat cannot see")
            if by_move:
                count = int(rules.legal_moves(p.compiled, state.copy(), moves))
                for move in moves[:count].tolist():
                    where = f"move {move}, {at}"
                    v = _move_features(ctx, p, obs, seat, move, where)
                    if has_det:
                        w = _move_features(ctx, p, obs2, seat, move, where)
                        if not np.array_equal(v, w):
                            diff = [spec.move_features[i] for i in np.flatnonzero(v != w)[:5]]
                            raise Failed(f"one observation gave two move-feature vectors "
                                         f"({where}): {diff} read what the seat cannot see")
                moves_checked += count
                last_move = int(moves[0])
            checked += 1
            last = (p, obs.copy(), seat)
    if last is None:
        raise Failed("no state to check")
    p, obs, seat = last
    if _allocates(rules.features, (p.compiled, obs, seat, np.empty(len(names)))):
        raise Failed("features allocates: the calls' allocations grow with their number")
    text = f"{checked} observations: {len(names)} finite entries, read only the view, " \
           "no allocation"
    if by_move:
        g = len(spec.move_features)
        if _allocates(rules.move_features, (p.compiled, obs, seat, last_move, np.empty(g))):
            raise Failed("move_features allocates: the calls' allocations grow with their "
                         "number")
        text += f"; move features of {moves_checked} legal moves: {g} finite entries each, " \
                "read only the view, no allocation"
    return text


def _move_features(ctx, p, obs, seat, move, at) -> np.ndarray:
    return _vector(ctx, "move_features", ctx.spec.move_features, (p.compiled, obs, seat, move),
                   obs, at)


def _features(ctx, p, obs, seat, at) -> np.ndarray:
    return _vector(ctx, "features", ctx.spec.features, (p.compiled, obs, seat), obs, at)


def _vector(ctx, kernel: str, names, args: tuple, obs, at) -> np.ndarray:
    """The vector the rules' ``kernel`` fills after ``args``, checked: the observation left
    alone, every one of ``names``' entries written and finite."""
    out = np.full(len(names), np.nan)
    before = obs.copy()
    getattr(ctx.rules, kernel)(*args, out)
    if not np.array_equal(before, obs):
        raise Failed(f"{kernel} changed the observation ({at})")
    bad = [names[i] for i in np.flatnonzero(~np.isfinite(out))]
    if bad:
        raise Failed(f"{kernel} left entries unwritten or not finite ({at}): {bad[:5]}")
    return out


def check_determinize_allocations(ctx: Context) -> str:
    if not hasattr(ctx.rules, "determinize"):
        raise NotApplicable("no determinize kernel")
    for n in ctx.players:
        p = ctx.plans[n]
        for _, state in ctx.states(n):
            if ctx.rules.is_over(state):
                continue
            obs = np.empty(p.state_size, np.int32)
            ctx.rules.observe(p.compiled, state, 0, obs)
            args = (p.compiled, obs, 0, np.empty(p.state_size, np.int32),
                    np.array([1], np.uint64), np.empty(p.state_size, np.int32))
            if _allocates(ctx.rules.determinize, args):
                raise Failed("determinize allocates: the calls' allocations grow with "
                             "their number (a search calls it every iteration)")
            return "no allocation"
    raise Failed("no state to check")


# ---- at the driver ----------------------------------------------------------------------

def check_no_peeking(ctx: Context) -> str:
    """A search's choice depends only on its seat's observation: from the true state and
    another one dealt by ``determinize`` from the same observation, with the same streams,
    the driver plays the same move. Checked at every decision with a choice of a few
    random games, so a game of a handful of decisions is checked too."""
    from simkit.runner import plan, workspace

    rules = ctx.rules
    if not hasattr(rules, "determinize"):
        raise NotApplicable("no determinize kernel, so no search plays the game")
    n = 2 if 2 in ctx.players else ctx.players[0]
    p = plan(ctx.run(n, 1, 0, ["ismcts@24"] + ["random"] * (n - 1)))
    slots = np.full(n, p.slots.index("ismcts@24"), np.int32)
    rng = np.random.default_rng(7)
    moves = np.zeros(p.max_moves, np.int32)
    items = np.zeros((n, max(1, len(p.item_columns))), np.int32)
    obs, seen, other = (np.zeros(p.state_size, np.int32) for _ in range(3))
    checked = differed = 0
    for seed in game_seeds(11, 0, 4 * ctx.size.peeks):
        state = np.zeros(p.state_size, np.int32)
        rules.new_game(p.compiled, n, state, np.array([seed], np.uint64))
        step = 0
        while not rules.is_over(state) and rules.turn_number(state) < p.max_turns:
            if checked >= ctx.size.peeks:
                break
            k = rules.legal_moves(p.compiled, state, moves)
            if k > 1 and rng.random() < 0.5:
                seat = int(rules.to_move(state))
                rules.observe(p.compiled, state, seat, obs)
                rules.determinize(p.compiled, obs, seat, other,
                                  np.array([step + 99], np.uint64),
                                  np.zeros(p.state_size, np.int32))
                differed += int((other != state).any())
                chosen = []
                for true in (state, other):
                    trace = np.full(1, -1, np.int32)
                    _, arrays = workspace(p)
                    p.driver.module.play_out(
                        p.compiled, n, slots, p.kernels, p.weights, p.max_turns, true.copy(),
                        np.zeros(p.state_size, np.int32), np.zeros(p.max_moves, np.int32),
                        np.array([5, 6, 7, 8, 9][:1 + n], np.uint64), items.copy(),
                        np.zeros(n), np.zeros(n, np.int32), trace, np.int64(1), arrays)
                    chosen.append(int(trace[0]))
                if chosen[0] != chosen[1]:
                    raise Failed(
                        f"from two true states with one observation of seat {seat + 1} "
                        f"(game seed {seed}, decision {step + 1}) a search chose moves "
                        f"{chosen[0]} and {chosen[1]}: observe shows it something the seat "
                        "cannot see, or determinize keeps it")
                checked += 1
            rules.apply_move(p.compiled, state, moves[rng.integers(k)],
                             np.array([step + 1], np.uint64), items)
            step += 1
        if checked >= ctx.size.peeks:
            break
    if not checked:
        raise NotApplicable("no decision with more than one move in the games tried")
    return f"{checked} decisions ({differed} with another hidden deal), one move each"


def _row_problem(ctx: Context, games, n: int) -> str | None:
    spec, p = ctx.spec, ctx.plans[n]
    reasons = set(spec.end_reasons)
    for _, row in games.iterrows():
        ranks = [int(row[f"rank_s{s}"]) for s in range(1, n + 1)]
        scores = [float(row[f"score_s{s}"]) for s in range(1, n + 1)] \
            if "score_s1" in row else []
        at = f"game {row['game']} ({n} players)"
        if row["end_reason"] not in reasons:
            return f"end reason {row['end_reason']!r} is not one of {sorted(reasons)} ({at})"
        if row["end_reason"] != "timeout" and not all(1 <= r <= n for r in ranks):
            return f"ranks {ranks} are not 1 to {n} ({at})"
        if not all(np.isfinite(scores)):
            return f"scores {scores} are not finite ({at})"
        if not 0 <= int(row["turns"]) <= p.max_turns:
            return f"{row['turns']} turns, not 0 to max_turns {p.max_turns} ({at})"
    return None


def check_tables(ctx: Context, results: dict) -> str:
    """The same tables on 1 and 2 workers (and another chunking), with the game's strong
    player in seat 1 against random."""
    import pandas as pd

    from simkit.runner import run_games

    strong = registry.strong_strategy(ctx.spec.name)
    for n in ctx.players:
        run = ctx.run(n, ctx.size.run_games, 3, [strong] + ["random"] * (n - 1))
        one = run_games(run, workers=1, progress=False)
        two = run_games(run, workers=2, chunk_size=max(1, ctx.size.run_games // 3),
                        progress=False)
        results[n] = (run, one)
        for what in ("games", "items"):
            try:
                pd.testing.assert_frame_equal(getattr(one, what), getattr(two, what))
            except AssertionError as exc:
                first = str(exc).strip().splitlines()[0]
                raise Failed(f"the {what} table differs on 1 and 2 workers ({n} players, "
                             f"{strong} against random): {first}; a kernel reads something "
                             "other than its arguments and streams") from None
    return f"{ctx.size.run_games} games a player count, {strong} against random, equal"


def check_replay(ctx: Context, results: dict) -> str:
    from simkit.replay import replay_game
    from simkit.runner import plan

    if not results:
        raise NotChecked("no run to replay (the tables check failed)")
    replayed = 0
    for n, (run, res) in results.items():
        p = plan(run)
        for _, row in res.games.head(2).iterrows():
            names = [str(row[f"strategy_s{s}"]) for s in range(1, n + 1)]
            r = replay_game(p, int(row["seed"]), names)
            recorded = [int(row[f"rank_s{s}"]) for s in range(1, n + 1)]
            if (r.end_reason, r.ranks, r.turns) != (row["end_reason"], recorded,
                                                    int(row["turns"])):
                raise Failed(f"the replay of game {row['game']} ({n} players) ends "
                             f"{r.end_reason}, ranks {r.ranks}, {r.turns} turns; the row "
                             f"says {row['end_reason']}, {recorded}, {row['turns']}")
            replayed += 1
    return f"{replayed} games replayed move for move, equal to their rows"


def check_bounds(ctx: Context, results: dict) -> str:
    if not results:
        raise NotChecked("no run to read (the tables check failed)")
    rows = 0
    for n, (_, res) in results.items():
        if problem := _row_problem(ctx, res.games, n):
            raise Failed(problem)
        if (res.items.select_dtypes("number") < 0).any().any():
            raise Failed(f"a negative item count ({n} players)")
        rows += len(res.games)
    text = f"{rows} rows: end reasons, ranks, finite scores, turns, item counts"
    if not ctx.size.data_bounds:
        return text + "; data at its bounds: at --full"
    return text + "; " + _data_at_bounds(ctx)


def _data_at_bounds(ctx: Context) -> str:
    """Every numeric value of the data at its declared minimum and maximum, at every player
    count: one random game plays cleanly, or the value is refused with one line."""
    from simkit import data
    from simkit.runner import RunSpec, plan

    spec = ctx.spec
    played = refused = 0
    # the first record of each card list stands for the rest: its fields' bounds are every
    # record's (twenty cards of eleven fields would be a thousand games)
    first = {f"{key}.{data.table(spec.data, key)[0][0]}" for key in data.lists_of(spec.data)}
    for key, prm in spec.data.items():
        if not isinstance(prm.default, int | float) or isinstance(prm.default, bool):
            continue
        if prm.records is not None and f"{prm.records.key}.{prm.record}" not in first:
            continue
        for value in {prm.min, prm.max} - {None, prm.default}:
            for n in ctx.players:
                try:
                    over = {**dict(ctx.plans[n].run.overrides), key: value}
                    p = plan(RunSpec.make(spec.name, n, 1, overrides=over))
                except SimkitError as exc:
                    if "\n" in str(exc):
                        raise Failed(f"{key}={value} is refused in more than one line") from None
                    refused += 1
                    continue
                try:
                    play_random(_context_of(p, ctx.size), n, 12345, np.random.default_rng(0), 0)
                except Failed as exc:
                    raise Failed(f"with {key}={value}: {exc}") from None
                played += 1
    return f"data at its bounds: {played} games played, {refused} values refused"


def check_strategies(ctx: Context) -> str:
    """Each strategy that can play the game plays two games in seat 1 against random (a
    search at a budget of 8, ``learned`` where it has a model)."""
    from simkit.runner import run_games

    n = 2 if 2 in ctx.players else ctx.players[0]
    known = registry.strategies_for(ctx.spec.name)
    played, skipped = [], []
    names = [f"{name}@8" if known[name].budget else name for name in ctx.compile_with]
    unable = sorted(set(known) - set(ctx.compile_with))
    for name in names:
        try:
            run = ctx.run(n, 2, 1, [name] + ["random"] * (n - 1))
        except SimkitError as exc:
            skipped.append(f"{name} ({str(exc).split('; ')[0]})")
            continue
        try:
            run_games(run, workers=1, progress=False)
        except Exception as exc:  # noqa: BLE001 - the checklist explains any failure
            raise Failed(f"{name} failed in a game: {_raised(exc, '')}") from None
        played.append(name)
    if unable:
        skipped.append(f"{', '.join(unable)} (no determinize or features kernel)")
    text = f"{len(played)} played two games each: {', '.join(played)}"
    return text + (f"; cannot play: {'; '.join(skipped)}" if skipped else "")


# ---- the checklist ----------------------------------------------------------------------

def _raised(exc: Exception, verb: str = "raised ") -> str:
    """An exception as the checklist tells it: a kernel that does not compile in one line
    (numba's message repeats every caller, once in each check that compiles it)."""
    return compile_error(exc) or f"{verb}{type(exc).__name__}: {exc}"


def run_checks(game: str, size: str | Size = "quick", players=None,
               on_item: Callable[[Item], None] | None = None, overrides=None,
               only: Collection[str] | None = None) -> list[Item]:
    """Every check of ``game`` at ``size`` ("quick" or "full"), as checklist items in
    order; ``on_item`` is told each as it is done (``simkit check`` prints it).
    ``players``: the player counts to check (all by default); ``overrides``: the data
    changes to check the game at (as ``simkit run --set``); ``only``: the names of the
    checks to run (``CHECKS``), "random play" always among them."""
    size = SIZES[size] if isinstance(size, str) else size
    items: list[Item] = []

    def record(name: str, fn, *args) -> None:
        if only is not None and name not in only and name != "random play":
            return
        try:
            item = Item(name, OK, fn(*args))
        except Failed as exc:
            item = Item(name, FAIL, str(exc))
        except NotApplicable as exc:
            item = Item(name, NA, f"not applicable ({exc})")
        except NotChecked as exc:
            item = Item(name, UNCHECKED, str(exc))
        except SimkitError as exc:
            item = Item(name, FAIL, str(exc))
        except Exception as exc:  # noqa: BLE001 - a kernel that raises is a failure to explain
            item = Item(name, FAIL, _raised(exc))
        items.append(item)
        if on_item:
            on_item(item)

    def on_states(name: str, fn, *args) -> None:
        """A check of the random games' states: not checked when they could not be played."""
        if only is not None and name not in only:
            return
        if items[0].status == FAIL:
            item = Item(name, UNCHECKED, "not checked (random play failed)")
            items.append(item)
            if on_item:
                on_item(item)
        else:
            record(name, fn, *args)

    unknown = set(only or ()) - set(CHECKS)
    if unknown:
        raise SimkitError(f"no check named {sorted(unknown)[0]!r}; the checks: "
                          + ", ".join(CHECKS))
    ctx = Context(game, size, players, overrides)
    record("random play", check_random_play, ctx)
    on_states("observe and determinise", check_determinize, ctx)
    on_states("uniform dealing", check_uniform_deal, ctx)
    on_states("determinize allocates nothing", check_determinize_allocations, ctx)
    record("no peeking at the driver", check_no_peeking, ctx)
    results: dict = {}
    record("same tables on 1 and 2 workers", check_tables, ctx, results)
    record("replay equals the recorded row", check_replay, ctx, results)
    record("data bounds", check_bounds, ctx, results)
    record("every strategy plays", check_strategies, ctx)
    on_states("progress kernel", check_progress, ctx)
    on_states("phase kernel", check_phase, ctx)
    on_states("features kernel", check_features, ctx)
    return items


CHECKS = ("random play", "observe and determinise", "uniform dealing",
          "determinize allocates nothing", "no peeking at the driver",
          "same tables on 1 and 2 workers", "replay equals the recorded row", "data bounds",
          "every strategy plays", "progress kernel", "phase kernel", "features kernel")
"""The checks, in the checklist's order."""


def checklist(game: str, items: list[Item]) -> str:
    failed = sum(i.status == FAIL for i in items)
    head = f"simkit check {game}: " + (f"{failed} failed" if failed else "all passed")
    return "\n".join([head] + [i.line() for i in items])


def check_game(game: str, size: str = "quick", players=None, overrides=None,
               only: Collection[str] | None = None) -> list[Item]:
    """Run every check of ``game`` (for a pytest test; arguments as ``run_checks``): the
    checklist items when all pass, an ``AssertionError`` with the checklist when one
    fails."""
    items = run_checks(game, size, players, overrides=overrides, only=only)
    if any(i.status == FAIL for i in items):
        raise AssertionError(checklist(game, items))
    return items
