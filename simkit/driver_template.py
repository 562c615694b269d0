"""The game loop every game is played by: the template of a generated driver.

This file is never imported as it is. ``simkit.driver`` copies it into a small module per
game and set of strategies, whose header binds ``game`` (the game's rules module) and
``choose`` (a dispatch over those strategies by their integer code; a search strategy's
code calls the game's rendered search module, see ``simkit.search``). Numba caches a function
only when everything it calls is a module-level global, so a per-game module is how one
loop, written once, serves every game and every strategy with a warm on-disk cache. The
generated module's name carries a hash of every source it depends on, so a change to any of
them recompiles; a driver holds only the strategies a run uses, so a run compiles no other.

``game_loop`` is the loop of every game: it plays a game on from whatever ``state`` it is
given, into buffers its caller provides, allocating nothing. It is compiled into each of
three kernels (``inline_source``: no library of its own to compile):

- ``play_batch`` plays a run's chunk of games from their seeds (its arrays are ``borrow``ed,
  see ``simkit.jit``, so the rules kernels count no references atomically);
- ``play_out`` is the playout of a search: it plays on from a copy of a state (and of its
  streams), for a budget of decisions or to the end;
- ``play_game`` plays one game from its seed and records its moves (``simkit replay``).

Only the kernels a process calls are compiled: a run compiles ``play_batch`` alone (and
``log_batch``, which replays games decision by decision for ``--log-decisions``, only in a
run that logs).

When a game ends, and when ``finish`` is called:
- before every decision the loop asks ``is_over``; if the game is over, ``finish`` gives the
  scores, ranks and end reason;
- otherwise, if ``turn_number`` has reached ``max_turns``, the game ends as a timeout:
  ``finish`` is still called (its scores are kept) but every rank is set to 0 and the end
  reason to 0 (``timeout``), whatever ``finish`` returned;
- otherwise the next decision is made: ``legal_moves``; when there is a single legal move
  it is played without asking the strategy (nor drawing from the seat's stream); else
  ``to_move`` names the seat, its strategy gets ``observe``'s view (only if it needs one)
  and chooses.

Seats are played by *slots*: the distinct strategy names of a run (``ismcts@200`` and
``ismcts@1000`` are two slots of one strategy). ``slots[seat]`` is the seat's slot,
``kernels[slot]`` the strategy code that plays it and ``weights[slot]`` its weights, so two
slots of one strategy play with weights of their own. ``ws`` is the search workspace
(``simkit.search.Workspace.arrays``), allocated once per thread and reused by every search
decision; a run without search passes a small one that nothing reads.

A run whose strategies need no observation (``random``, ``first``) never calls
``observe``, and its driver does not even compile it.
"""
# --- bindings: replaced in a generated driver ---
import numpy as np

from simkit.jit import borrow, borrow_all, copy_into, inline, inline_source, kernel
from simkit.rng import GOLDEN, mix64, seed_streams

game = None
NOT_COMPILED = -1000


@inline
def choose(code, slot, params, state, obs, seat, moves, n_moves, weights, streams, n_players,
           max_turns, ws):  # pragma: no cover
    """Strategy ``code``'s choice for ``seat``: an index into ``moves[:n_moves]``, or
    ``NOT_COMPILED`` for a code this driver does not hold. For a strategy that needs an
    observation it first writes ``observe``'s view of ``state`` into ``obs``; it hands the
    strategy its slot's row of ``weights`` and the seat's stream,
    ``streams[1 + seat:2 + seat]``; a search also gets the player count, the turn cap and
    the workspace ``ws``."""
    raise NotImplementedError


HAS_PHASES = False
"""Whether the game has a ``phase`` kernel (a constant, so the loop of a game without one
compiles no per-phase counting)."""


@inline
def game_phase(params, state):  # pragma: no cover
    """The game's ``phase`` kernel, or 0 for a game without phases."""
    return 0


HAS_PROGRESS = False
"""Whether the game has a ``progress`` kernel (a constant: the decision log of a game
without one compiles no call to it)."""


@inline
def game_progress(params, state, out):  # pragma: no cover
    """The game's ``progress`` kernel; never called for a game without one (a run traces
    only a game that has it)."""
    raise NotImplementedError


# --- end of bindings ---

NO_BUDGET = np.int64(-1)  # play on to the end (an int64, not a literal: one specialisation)


@inline
def record_progress(params, state, curve, prog, last):
    """Write each seat's progress into the rows of ``curve`` from ``last + 1`` to the turn
    the game has reached (every completed turn a row; a move that completes several fills
    them all with the standing after it); returns the last row written."""
    t = min(game.turn_number(state), curve.shape[0] - 1)
    if t > last:
        game_progress(params, state, prog)
        for r in range(last + 1, t + 1):
            for s in range(prog.shape[0]):
                curve[r, s] = prog[s]
    return max(t, last)


@inline
def count_decision(params, state, counts, n):
    """Count a decision of ``n`` legal moves in its phase's row of ``counts``: decisions,
    forced (one legal move), the sum of ``n`` and of its square."""
    ph = game_phase(params, state)
    counts[ph, 0] += 1
    if n == 1:
        counts[ph, 1] += 1
    counts[ph, 2] += n
    counts[ph, 3] += n * n


@inline
def store_counts(counts, decisions, forced, total, squares):
    """The counters of a game without phases, kept in registers while it is played, into
    ``counts``'s one row."""
    counts[0, 0] = decisions
    counts[0, 1] = forced
    counts[0, 2] = total
    counts[0, 3] = squares


@inline_source
def game_loop(params, n_players, slots, kernels, weights, max_turns, state, obs, moves,
              streams, items, scores, ranks, trace, budget, ws, counts, curve, prog):
    """Play the game in ``state`` on, for at most ``budget`` decisions (no limit when it is
    negative), allocating nothing.

    Seat ``s`` is played by slot ``slots[s]`` (see the module's docstring); ``streams``
    (uint64[1 + P]) are the chance stream and each seat's, in the state they have reached;
    ``items`` (int32[P, n_items]) counts on from what it holds. Fills ``scores``
    (float64[P]) and ``ranks`` (int32[P]) when the game ends, and records the moves in
    ``trace`` while it has room. Returns (end reason, turns, decisions made here); the end
    reason is -1 when the budget ran out first (scores and ranks untouched), 0 for a timeout
    (see the module's docstring for when ``finish`` is called).

    How the game feels (``docs/metrics.md``): when ``counts`` has rows (int64[phases, 4]),
    every decision is counted (by phase, ``count_decision``, in a game with phases; else in
    local sums, ``store_counts``, written when the game ends); when ``curve`` has
    rows (float32[max_turns + 1, P]), row ``t`` gets each seat's ``progress`` after turn
    ``t`` (row 0 the start; the row of the last turn the final state), with ``prog``
    (float64[P]) as scratch. Empty ones (a playout's) cost a test of their length."""
    decisions = 0
    forced = 0
    total = 0
    squares = 0
    last = -1
    if curve.shape[0] > 0:
        last = record_progress(params, state, curve, prog, last)
    while not game.is_over(state):
        if game.turn_number(state) >= max_turns:
            game.finish(params, state, scores, ranks)
            for s in range(ranks.shape[0]):
                ranks[s] = 0
            if curve.shape[0] > 0:
                record_progress(params, state, curve, prog, last)
            if not HAS_PHASES and counts.shape[0] > 0:
                store_counts(counts, decisions, forced, total, squares)
            return 0, game.turn_number(state), decisions
        if decisions == budget:
            if not HAS_PHASES and counts.shape[0] > 0:
                store_counts(counts, decisions, forced, total, squares)
            return -1, game.turn_number(state), decisions
        n = game.legal_moves(params, state, moves)
        if n <= 0:
            raise RuntimeError("a game offered no legal move before its end")
        if n == 1:
            forced += 1
        total += n
        squares += n * n
        if HAS_PHASES and counts.shape[0] > 0:
            count_decision(params, state, counts, n)
        k = 0
        if n > 1:
            seat = game.to_move(state)
            slot = slots[seat]
            k = choose(kernels[slot], slot, params, state, obs, seat, moves, n, weights,
                       streams, n_players, max_turns, ws)
            if k == NOT_COMPILED:
                raise RuntimeError("a seat's strategy is not compiled into this driver")
            if k < 0 or k >= n:
                raise RuntimeError("a strategy chose a move outside the legal list")
        if decisions < trace.shape[0]:
            trace[decisions] = moves[k]
        game.apply_move(params, state, moves[k], streams[0:1], items)
        decisions += 1
        if curve.shape[0] > 0:
            last = record_progress(params, state, curve, prog, last)
    if not HAS_PHASES and counts.shape[0] > 0:
        store_counts(counts, decisions, forced, total, squares)
    end = game.finish(params, state, scores, ranks)
    if curve.shape[0] > 0:  # the final state (a game may end within a turn)
        t = min(game.turn_number(state), curve.shape[0] - 1)
        record_progress(params, state, curve, prog, t - 1)
    return end, game.turn_number(state), decisions


@kernel
def play_out(params, n_players, slots, kernels, weights, max_turns, state, obs, moves, streams,
             items, scores, ranks, trace, budget, ws):
    """``game_loop`` as a kernel of its own, for a test or a tool to call: play the game in
    ``state`` on for at most ``budget`` decisions (no limit when negative), into the
    caller's buffers, allocating nothing; see ``game_loop``."""
    none = items[0:0]  # nothing counted, no curve
    return game_loop(params, n_players, slots, kernels, weights, max_turns, state, obs, moves,
                     streams, items, scores, ranks, trace, budget, ws, none, none, scores)


@kernel
def play_game(params, n_players, seed, slots, kernels, weights, max_turns, state, obs, moves,
              items, scores, ranks, trace, ws):
    """Play one game from its ``seed``; seat ``s`` is played by slot ``slots[s]``.

    Fills ``items`` (int32[P, n_items], counting from what it holds), ``scores``
    (float64[P]) and ``ranks`` (int32[P]); records the first ``len(trace)`` moves in
    ``trace``. Returns (end reason, turns, decisions)."""
    streams = np.empty(1 + n_players, np.uint64)
    seed_streams(seed, n_players, streams)
    game.new_game(params, n_players, state, streams[0:1])
    none = items[0:0]  # nothing counted, no curve
    return game_loop(params, n_players, slots, kernels, weights, max_turns, state, obs, moves,
                     streams, items, scores, ranks, trace, NO_BUDGET, ws, none, none, scores)


@kernel
def play_batch(params, n_players, seeds, slots, kernels, weights, max_turns, state, obs, moves,
               streams, ws, out_end, out_turns, out_decisions, out_scores, out_ranks,
               out_items, out_counts, out_curve, prog):
    """Play ``len(seeds)`` games; game ``g`` uses ``seeds[g]`` and seat slots ``slots[g]``
    (int32[G, P]). ``state``, ``obs`` (int32[state_size]), ``moves`` (int32[max_moves]),
    ``streams`` (uint64[1 + P]), ``prog`` (float64[P]) and ``ws`` are scratch. Outputs are
    per game: ``out_end``/``out_turns``/``out_decisions`` int32[G], ``out_scores``
    float64[G, P], ``out_ranks`` int32[G, P], ``out_items`` int32[G, P, n_items],
    ``out_counts`` int64[G, phases, 4] (see ``count_decision``); the first
    ``len(out_curve)`` games are traced into ``out_curve`` (float32[T, max_turns + 1, P],
    see ``game_loop``; an untraced run passes float32[1, 0, P]). Per-decision data is never kept
here: the decision log replays the games it logs (``log_batch``), so this loop pays nothing
for it."""
    # every array here is kept alive by the caller for the whole call
    params = borrow_all(params)
    slots = borrow(slots)
    kernels = borrow(kernels)
    weights = borrow(weights)
    state = borrow(state)
    obs = borrow(obs)
    moves = borrow(moves)
    streams = borrow(streams)
    ws = borrow_all(ws)
    out_scores = borrow(out_scores)
    out_ranks = borrow(out_ranks)
    out_items = borrow(out_items)
    out_counts = borrow(out_counts)
    out_curve = borrow(out_curve)
    prog = borrow(prog)
    trace = moves[0:0]
    untraced = out_curve[0][0:0]  # out_curve has a game at least (of no rows: no trace)
    for g in range(seeds.shape[0]):
        items = out_items[g]
        for s in range(items.shape[0]):
            for j in range(items.shape[1]):
                items[s, j] = 0
        counts = out_counts[g]
        for ph in range(counts.shape[0]):
            for j in range(4):
                counts[ph, j] = 0
        curve = out_curve[g] if g < out_curve.shape[0] else untraced
        seed_streams(seeds[g], n_players, streams)
        game.new_game(params, n_players, state, streams[0:1])
        end, turns, decisions = game_loop(
            params, n_players, slots[g], kernels, weights, max_turns, state, obs, moves,
            streams, items, out_scores[g], out_ranks[g], trace, NO_BUDGET, ws, counts, curve,
            prog)
        out_end[g] = end
        out_turns[g] = turns
        out_decisions[g] = decisions


@kernel
def log_batch(params, n_players, seeds, slots, kernels, weights, max_turns, state, obs, moves,
              streams, items, ws, prog, offsets, out_log, out_progress):
    """The decision log (``--log-decisions``): replay each game of ``seeds`` (seat slots
    ``slots[g]``) decision by decision exactly as ``game_loop`` plays it in ``play_batch``
    (the same seeds, strategies and streams make the same choices), writing decision ``d``
    of game ``g`` into row ``offsets[g] + d`` of ``out_log`` (int32[R, 5]: turn, seat,
    phase, move, legal moves) and ``out_progress`` (float32[R]: the deciding seat's
    ``progress`` before it decides, NaN for a game without the kernel). ``offsets``
    (int64[G + 1]) comes from the decisions ``play_batch`` counted, so a replay that
    differs from its game is an error, never a silent log of another game. Kept apart from
    ``play_batch`` so a run that logs nothing compiles and pays nothing for it."""
    for g in range(seeds.shape[0]):
        for s in range(items.shape[0]):
            for j in range(items.shape[1]):
                items[s, j] = 0
        seed_streams(seeds[g], n_players, streams)
        game.new_game(params, n_players, state, streams[0:1])
        row = offsets[g]
        while not game.is_over(state) and game.turn_number(state) < max_turns:
            if row >= offsets[g + 1]:
                raise RuntimeError("a replayed game made more decisions than it did in its run")
            n = game.legal_moves(params, state, moves)
            seat = game.to_move(state)
            out_log[row, 0] = game.turn_number(state)
            out_log[row, 1] = seat
            out_log[row, 2] = game_phase(params, state)
            out_log[row, 4] = n
            out_progress[row] = np.nan
            if HAS_PROGRESS:
                game_progress(params, state, prog)
                out_progress[row] = prog[seat]
            k = 0
            if n > 1:
                slot = slots[g][seat]
                k = choose(kernels[slot], slot, params, state, obs, seat, moves, n, weights,
                           streams, n_players, max_turns, ws)
            out_log[row, 3] = moves[k]
            game.apply_move(params, state, moves[k], streams[0:1], items)
            row += 1
        if row != offsets[g + 1]:
            raise RuntimeError("a replayed game made fewer decisions than it did in its run")


KINGMAKING_BRANCHES = 4
"""Moves of a decision played out by ``kingmaking_batch`` (evenly spaced in the legal
list: all of them when there are no more)."""
KINGMAKING_PLAYOUTS = 4
"""Playouts of each of those moves: the first with the game's own chance stream from there
(common random numbers), the others with chance streams of their own, so that a move is
judged by who tends to win after it, not by how it happens to reshuffle the dice."""


@inline
def modal_mask(masks):
    """The winner set (a bit mask of seats) most of ``masks`` share, or -2 when two sets tie
    for most."""
    best, count, tie = -2, 0, False
    for i in range(masks.shape[0]):
        c = 0
        for j in range(masks.shape[0]):
            if masks[j] == masks[i]:
                c += 1
        if c > count:
            best, count, tie = masks[i], c, False
        elif c == count and masks[i] != best:
            tie = True
    return -2 if tie else best


@kernel
def kingmaking_batch(params, n_players, seeds, slots, kernels, weights, max_turns, state, obs,
                     moves, streams, items, ws, branch, b_obs, b_moves, b_streams, b_items,
                     scores, ranks, watch, out_king, out_pivotal):
    """Replay each game of ``seeds`` (seat slots ``slots[g]``) decision by decision, as
    ``play_batch`` plays it; at every decision with several legal moves of a seat that
    ``watch[g]`` marks (the seats that finished last: the run knows its games), play the game out
    ``KINGMAKING_PLAYOUTS`` times after each of up to ``KINGMAKING_BRANCHES`` of them, by
    the same strategies, from copies of the state and the streams (``branch``,
    ``b_streams``, with ``b_obs``, ``b_moves``, ``b_items`` as scratch). A move's outcome is
    the set of winners (rank 1; a timeout has none) most of its playouts end with. The
    decision is *pivotal* when two of its moves have different outcomes, and a
    *kingmaker's* when it is pivotal and the deciding seat wins in none of the playouts.
    Counts them per watched seat: ``out_king``/``out_pivotal`` int32[G, P] (-1 for a seat
    not watched). The game itself is played on exactly as in the run (the playouts draw from
    copies)."""
    trace = moves[0:0]
    none = b_items[0:0]
    masks = np.empty(KINGMAKING_PLAYOUTS, np.int64)
    for g in range(seeds.shape[0]):
        for s in range(n_players):
            out_king[g, s] = 0 if watch[g, s] else -1
            out_pivotal[g, s] = 0 if watch[g, s] else -1
        for s in range(items.shape[0]):
            for j in range(items.shape[1]):
                items[s, j] = 0
                b_items[s, j] = 0
        seed_streams(seeds[g], n_players, streams)
        game.new_game(params, n_players, state, streams[0:1])
        while not game.is_over(state) and game.turn_number(state) < max_turns:
            n = game.legal_moves(params, state, moves)
            k = 0
            if n > 1:
                seat = game.to_move(state)
                tried = min(n, KINGMAKING_BRANCHES) if watch[g, seat] else 0
                first = -1
                differ = False
                own = False
                for j in range(tried):
                    for m in range(KINGMAKING_PLAYOUTS):
                        copy_into(branch, state)
                        copy_into(b_streams, streams)
                        if m > 0:  # a chance stream of its own
                            b_streams[0] = mix64(streams[0] + np.uint64(m) * GOLDEN)
                        game.apply_move(params, branch, moves[j * n // tried],
                                        b_streams[0:1], b_items)
                        game_loop(params, n_players, slots[g], kernels, weights, max_turns,
                                  branch, b_obs, b_moves, b_streams, b_items, scores, ranks,
                                  trace, NO_BUDGET, ws, none, none, scores)
                        mask = 0
                        for s in range(n_players):
                            if ranks[s] == 1:
                                mask |= 1 << s
                        if ranks[seat] == 1:
                            own = True
                        masks[m] = mask
                    outcome = modal_mask(masks)
                    if outcome == -2:
                        continue
                    if first == -1:
                        first = outcome
                    elif outcome != first:
                        differ = True
                if differ:
                    out_pivotal[g, seat] += 1
                    if not own:
                        out_king[g, seat] += 1
                slot = slots[g][seat]
                k = choose(kernels[slot], slot, params, state, obs, seat, moves, n, weights,
                           streams, n_players, max_turns, ws)
            game.apply_move(params, state, moves[k], streams[0:1], items)
