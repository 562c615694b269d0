"""Search strategies, written once for every game: the template of a game's search module.

Like ``driver_template`` this file is never imported as it is. ``simkit.search`` renders it
into a module per game, whose header binds ``game`` (the game's rules module, which must
have a ``determinize`` kernel) and ``rollout_choose`` (a dispatch over the game's non-search
strategies); the game's generated driver imports its kernels and calls them from
``choose``. Numba caches a function only when what it calls is a module-level
global, so search is rendered per game rather than handed the kernels as arguments.

Two strategies, both single-observer and honest: every iteration starts from a
*determinisation*, a full state drawn at random from those consistent with what the
deciding seat observes (``game.determinize``), so a search never sees a card its seat has
not seen. Both draw only from the deciding seat's stream (determinisations, the chance of
simulated moves, rollouts), never from the game's chance stream.

- ``mc_search``: flat Monte Carlo. The playouts are spread over the legal moves in turn;
  each applies its move to a fresh determinisation and plays out with the rollout policy;
  the move with the best mean reward for the deciding seat is chosen.
- ``ismcts_search``: information-set MCTS (Cowling, Powley and Whitehouse 2012, SO-ISMCTS).
  One tree of decisions (every seat's, from the deciding seat's information set); each
  iteration determinises, walks the tree choosing among the children whose move is legal
  in this determinisation by UCB1 with availability counts, expands one untried legal
  move, plays out, and backs up one reward per seat, so it serves 2 to 4 players and
  teams. Progressive widening caps a node's children at ``widen_k * visits^widen_alpha``
  where more than ``widen_above`` moves are legal.

Rewards are score shares, as the reports count them: 1 for every seat of the winning
team, 1/k for each seat of k teams tied at rank 1, 0 otherwise (and for everyone at the
turn cap). A playout cut off after ``rollout_depth`` decisions (0: never) scores 1/P for
every seat (``cutoff`` even), the score shares of the ranks the game's ``finish`` gives
the position as if the game ended there (``cutoff`` standing), or those of the seats that
lead by the game's ``progress`` measure (``cutoff`` progress, docs/metrics.md).

The workspace (tree arrays and scratch buffers) is allocated once per thread by the driver
and reused across decisions and games: a decision allocates nothing.

A third strategy, ``learned`` (docs/learning.md), searches nothing: it rates each legal
move by a learnt model's value of the position the move leads to (its *afterstate*, reached
in one determinisation, chance drawn from the seat's stream; a move that ends the game is
worth the seat's exact score share) and plays the best, or samples a softmax of the values.
``learned_values`` (the value of every legal move) is apart from the choice
(``learned_pick``), so a search can use the values as a prior or to score a cut playout.
``learned_games`` plays whole games with learnt models and records what the learner needs.

Weights (``weights`` row of the seat), in this order:
    0 iterations (playouts per decision)   1 exploration (UCB1's c)
    2 rollout (the dispatch code of the rollout policy)   3 rollout_depth
    4 widen_k   5 widen_alpha   6 widen_above
    7 cutoff (how a cut playout is scored: 0 even, 1 standing, 2 progress)
    8 rollout_random (in a heuristic rollout, the chance of a random move instead)
    9 cutoff_scale (``cutoff`` progress: 0 scores the leaders 1; more, a softmax of the
      standings with this temperature, in the game's progress unit)
"""
# --- bindings: replaced in a generated driver ---
import math

import numpy as np

from simkit.jit import copy_into, kernel
from simkit.rng import next_u64, rand_below, seed_streams

game = None


def rollout_choose(code, params, obs, seat, moves, n_moves, weights, stream):  # pragma: no cover
    raise NotImplementedError


def game_progress(params, state, out):  # pragma: no cover
    """The game's ``progress`` kernel (for ``cutoff`` progress), or a stand-in that is never
    called: the knob is refused for a game without one."""
    raise NotImplementedError


def game_features(params, obs, seat, out):  # pragma: no cover
    """The game's ``features`` kernel (for ``learned``), or a stand-in that is never called:
    ``learned`` is refused for a game without one."""
    raise NotImplementedError


def game_move_features(params, obs, seat, move, out):  # pragma: no cover
    """The game's ``move_features`` kernel (for a policy that reads them), or a stand-in
    that is never called: only a model distilled with move features reads them."""
    raise NotImplementedError


# --- end of bindings ---

W_ITERATIONS, W_EXPLORATION, W_ROLLOUT, W_DEPTH, W_WIDEN_K, W_WIDEN_ALPHA, W_WIDEN_ABOVE = (
    0, 1, 2, 3, 4, 5, 6)
W_CUTOFF, W_MIX, W_SCALE = 7, 8, 9
# the guided search's own (``ismcts+learned``), after the knobs above; its model from G_MODEL
W_PRIOR, W_PRIOR_TEMPERATURE, W_LEAF, W_PRIOR_ONCE, W_HALVING = 10, 11, 12, 13, 14
G_MODEL = 15
# tree_i columns: the move into the node, its parent, first child, next sibling, visits,
# availability, the seat that chose the move (whose reward UCB1 maximises), and (guided,
# ``prior_once``) where the model's values of the node's moves start in the pool and how
# many there are (-1: not valued yet)
T_MOVE, T_PARENT, T_CHILD, T_SIBLING, T_VISITS, T_AVAIL, T_SEAT = 0, 1, 2, 3, 4, 5, 6
T_POOLED, T_N_POOLED = 7, 8
TREE_COLUMNS = 9
# the pool's columns (float64[rows, 2]): a move's code and the model's value of its afterstate
PL_MOVE, PL_VALUE = 0, 1
# stats: iterations, summed depth of the leaves reached, deepest leaf, playout decisions,
# decisions searched
S_ITERATIONS, S_DEPTH, S_MAX_DEPTH, S_PLAYOUT, S_DECISIONS = 0, 1, 2, 3, 4
STATS = 5


@kernel
def score_shares(n_players, teams, ranks, out):
    """``out[s]``: 1 for each seat of a team that alone holds rank 1, 1/k for each rank-1
    seat when k teams share it, 0 otherwise."""
    k = 0
    for s in range(n_players):
        if ranks[s] == 1:
            first = True
            for t in range(s):
                if ranks[t] == 1 and teams[t] == teams[s]:
                    first = False
            if first:
                k += 1
    for s in range(n_players):
        out[s] = 1.0 / k if (k > 0 and ranks[s] == 1) else 0.0


@kernel
def progress_shares(n_players, teams, progress, ranks, out, scale):
    """The reward of a position by its ``progress`` (float64[P]): with ``scale`` 0 the
    score shares of the seats whose team leads (``ranks`` is scratch); else each team's
    softmax weight ``exp(progress / scale)`` over the teams' (partners share their team's),
    so a bigger lead earns more."""
    best = progress[0]
    for s in range(1, n_players):
        best = max(best, progress[s])
    if scale <= 0:
        for s in range(n_players):
            ranks[s] = 1 if progress[s] == best else 2
        score_shares(n_players, teams, ranks, out)
        return
    for s in range(n_players):
        out[s] = math.exp((progress[s] - best) / scale)
    team_shares(n_players, teams, out)


@kernel
def team_shares(n_players, teams, out):
    """Divide each seat's weight in ``out[:P]`` by the sum over the teams (each team's
    first seat counted, partners holding their team's weight), so they sum to 1 as score
    shares do."""
    total = 0.0
    for s in range(n_players):
        first = True
        for t in range(s):
            if teams[t] == teams[s]:
                first = False
        if first:
            total += out[s]
    for s in range(n_players):
        out[s] /= total


@kernel
def playout(params, n_players, max_turns, teams, state, obs, moves, items, scores, ranks,
            weights, rollout_weights, stream, reward, stats):
    """Play ``state`` out with the rollout policy (dispatch code ``rollout``; it and the
    other knobs are read from the search's ``weights`` row) and write each seat's reward in
    ``reward``; a playout longer than ``depth`` decisions (0: no limit) scores 1/P for every
    seat, or (``cutoff`` 1) the shares of the ranks ``finish`` gives the position where it
    was cut, (2) the leaders' by the progress measure, or (3, ``model``) -1 in
    ``reward[0]``, ``state`` left where it was cut for the caller to score (``score_leaf``).
    In a heuristic rollout each move is a random one with chance ``mix`` (per 1,000)."""
    rollout = int(weights[W_ROLLOUT])
    depth = int(weights[W_DEPTH])
    cutoff = int(weights[W_CUTOFF])
    mix = int(1000 * weights[W_MIX])
    scale = weights[W_SCALE]
    n_done = 0
    while not game.is_over(state):
        if game.turn_number(state) >= max_turns:
            reward[:n_players] = 0.0
            stats[S_PLAYOUT] += n_done
            return
        if depth > 0 and n_done >= depth:
            if cutoff == 1:
                game.finish(params, state, scores, ranks)
                score_shares(n_players, teams, ranks, reward)
            elif cutoff == 2:
                game_progress(params, state, scores)
                progress_shares(n_players, teams, scores, ranks, reward, scale)
            elif cutoff == 3:  # the model scores the cut (its caller reads ``state``)
                reward[0] = -1.0
            else:
                reward[:n_players] = 1.0 / n_players
            stats[S_PLAYOUT] += n_done
            return
        n = game.legal_moves(params, state, moves)
        k = 0
        if n > 1:
            if rollout == 0 or (mix > 0 and rand_below(stream, 1000) < mix):
                k = rand_below(stream, n)
            else:
                seat = game.to_move(state)
                game.observe(params, state, seat, obs)
                k = rollout_choose(rollout, params, obs, seat, moves, n, rollout_weights,
                                   stream)
        game.apply_move(params, state, moves[k], stream, items)
        n_done += 1
    game.finish(params, state, scores, ranks)
    score_shares(n_players, teams, ranks, reward)
    stats[S_PLAYOUT] += n_done


@kernel
def bare_playouts(params, source, n, weights, stream, n_players, max_turns, teams,
                  rollout_weights, state, obs2, moves2, items, scores, ranks, reward, stats):
    """``n`` playouts from copies of the full state ``source`` with the rollout policy of
    ``weights`` and nothing else: the yardstick of the time a search spends outside its
    playouts (``benchmarks/search_strength.py``)."""
    items[:, :] = 0
    for _ in range(n):
        copy_into(state, source)
        playout(params, n_players, max_turns, teams, state, obs2, moves2, items, scores,
                ranks, weights, rollout_weights, stream, reward, stats)


@kernel
def mc_search(params, obs, seat, moves, n_moves, weights, stream, n_players, max_turns,
              teams, rollout_weights, tree_i, tree_f, state, obs2, moves2, items, scores,
              ranks, reward, stats):
    """Flat Monte Carlo: ``weights[0]`` playouts shared out over the legal moves in turn;
    the index (into ``moves``) of the move with the best mean reward for ``seat``. Uses the
    first ``n_moves`` rows of ``tree_f`` for its sums."""
    budget = max(1, int(weights[W_ITERATIONS]))
    items[:, :] = 0  # a scratch counter: never read, kept from overflowing
    stats[S_DECISIONS] += 1
    for j in range(n_moves):
        tree_f[j, 0] = 0.0
        tree_f[j, 1] = 0.0
    for it in range(budget):
        j = it % n_moves
        game.determinize(params, obs, seat, state, stream, obs2)
        game.apply_move(params, state, moves[j], stream, items)
        playout(params, n_players, max_turns, teams, state, obs2, moves2, items, scores,
                ranks, weights, rollout_weights, stream, reward, stats)
        tree_f[j, 0] += reward[seat]
        tree_f[j, 1] += 1.0
        stats[S_ITERATIONS] += 1
        stats[S_DEPTH] += 1
        stats[S_MAX_DEPTH] = max(stats[S_MAX_DEPTH], 1.0)
    best = 0
    best_mean = -1.0
    for j in range(n_moves):
        if tree_f[j, 1] > 0:
            mean = tree_f[j, 0] / tree_f[j, 1]
            if mean > best_mean:
                best_mean = mean
                best = j
    return best


@kernel
def _new_node(tree_i, tree_f, n_nodes, parent, move, seat, n_players):
    node = n_nodes
    tree_i[node, T_MOVE] = move
    tree_i[node, T_PARENT] = parent
    tree_i[node, T_CHILD] = -1
    tree_i[node, T_SIBLING] = -1
    tree_i[node, T_VISITS] = 0
    tree_i[node, T_AVAIL] = 0
    tree_i[node, T_SEAT] = seat
    tree_i[node, T_POOLED] = -1
    tree_i[node, T_N_POOLED] = 0
    for s in range(n_players):
        tree_f[node, s] = 0.0
    if parent >= 0:
        tree_i[node, T_SIBLING] = tree_i[parent, T_CHILD]
        tree_i[parent, T_CHILD] = node
    return node


@kernel
def _is_legal(move, moves, n):
    for k in range(n):
        if moves[k] == move:
            return True
    return False


@kernel
def ismcts_search(params, obs, seat, moves, n_moves, weights, stream, n_players, max_turns,
                  teams, rollout_weights, tree_i, tree_f, state, obs2, moves2, items, scores,
                  ranks, reward, stats):
    """SO-ISMCTS with ``weights[0]`` iterations (at most ``len(tree_i) - 1``); the index
    (into ``moves``) of the root child visited most."""
    return tree_search(params, obs, seat, moves, n_moves, weights, stream, n_players,
                       max_turns, teams, rollout_weights, tree_i, tree_f, state, obs2, moves2,
                       items, scores, ranks, reward, stats, False, state, reward, reward,
                       tree_f)


@kernel
def guided_search(params, obs, seat, moves, n_moves, weights, stream, n_players, max_turns,
                  teams, rollout_weights, tree_i, tree_f, state, obs2, moves2, items, scores,
                  ranks, reward, stats, after, feat, values, pool):
    """``ismcts+learned``: SO-ISMCTS guided by the learnt model that follows its named
    weights in ``weights`` (from ``G_MODEL``): a prior over the moves of each node it
    expands, from the model's values of their afterstates, and the model's values of the
    leaf blended with the playout's reward; or, with ``W_HALVING`` k of 1 or more,
    ``halving_search`` over the k moves the model values most. ``after`` (int32[state]),
    ``feat`` (float64[F]), ``values`` (float64[max(moves, P)]) and ``pool`` (float64[rows,
    2], the nodes' values kept by ``prior_once``) are scratch."""
    if weights[W_HALVING] >= 1 and n_moves > 1:
        return halving_search(params, obs, seat, moves, n_moves, weights, stream, n_players,
                              max_turns, teams, rollout_weights, tree_i, tree_f, state, obs2,
                              moves2, items, scores, ranks, reward, stats, after, feat,
                              values)
    return tree_search(params, obs, seat, moves, n_moves, weights, stream, n_players,
                       max_turns, teams, rollout_weights, tree_i, tree_f, state, obs2, moves2,
                       items, scores, ranks, reward, stats, True, after, feat, values, pool)


@kernel
def halving_search(params, obs, seat, moves, n_moves, weights, stream, n_players, max_turns,
                   teams, rollout_weights, tree_i, tree_f, state, obs2, moves2, items, scores,
                   ranks, reward, stats, after, feat, values):
    """The guided search's root by sequential halving (Karnin, Koren and Somekh 2013, as
    Gumbel AlphaZero's root, Danihelka et al. 2022) with common random numbers: the model
    values every legal move's afterstate in one determinisation, the ``W_HALVING`` best
    (ties: the first) become the candidates, and ``weights[0]`` playouts are spread over
    ceil(log2 k) rounds, each giving every candidate still in an equal share and then
    keeping the better half by mean reward (all rounds' playouts counted). A round's
    playouts come in samples: one determinisation and one point of the seat's stream,
    from which every candidate's move and playout is played, so two candidates are
    compared on the same hidden cards and the same dice, and their difference is not
    drowned in the luck of the draw. A playout and a leaf are scored as ``tree_search``
    scores them (``leaf_value``). The candidates are the root's children in ``tree_i`` /
    ``tree_f`` (their playouts as visits, their summed rewards), so ``root_moves`` and
    advice read them as a tree's; the index (into ``moves``) of the best candidate left."""
    budget = max(1, int(weights[W_ITERATIONS]))
    items[:, :] = 0  # a scratch counter: never read, kept from overflowing
    stats[S_DECISIONS] += 1
    leaf = weights[W_LEAF]
    k = min(int(weights[W_HALVING]), n_moves, tree_i.shape[0] - 1)
    # the model's value of every legal move, in one determinisation
    game.determinize(params, obs, seat, state, stream, obs2)
    for j in range(n_moves):
        copy_into(after, state)
        game.apply_move(params, after, moves[j], stream, items)
        values[j] = afterstate_value_at(params, after, seat, weights, G_MODEL, n_players,
                                        max_turns, teams, obs2, scores, ranks, reward, feat)
    # the k best become the root's children 1..k, best first; T_POOLED holds the index of
    # each one's move, T_N_POOLED whether it is still in (1) or out (0)
    _new_node(tree_i, tree_f, 0, -1, -1, -1, n_players)
    for c in range(1, k + 1):
        best = -1
        for j in range(n_moves):
            taken = False
            for d in range(1, c):
                if tree_i[d, T_POOLED] == j:
                    taken = True
                    break
            if not taken and (best < 0 or values[j] > values[best]):
                best = j
        _new_node(tree_i, tree_f, c, -1, moves[best], seat, n_players)
        tree_i[c, T_PARENT] = 0
        if c > 1:
            tree_i[c - 1, T_SIBLING] = c
        tree_i[c, T_POOLED] = best
        tree_i[c, T_N_POOLED] = 1
    tree_i[0, T_CHILD] = 1
    if k == 1:  # the model's best, searched no further
        return tree_i[1, T_POOLED]
    left = k
    rounds = 0
    while (1 << rounds) < k:
        rounds += 1
    rounds = max(rounds, 1)
    for _ in range(rounds):
        samples = max(1, budget // (rounds * left))
        for _ in range(samples):
            game.determinize(params, obs, seat, after, stream, obs2)
            at = stream[0]
            for c in range(1, k + 1):
                if tree_i[c, T_N_POOLED] == 0:
                    continue
                copy_into(state, after)
                stream[0] = at  # every candidate meets the same chance
                game.apply_move(params, state, moves[tree_i[c, T_POOLED]], stream, items)
                score_leaf(params, state, weights, leaf, n_players, max_turns, teams, obs2,
                           moves2, items, scores, ranks, rollout_weights, stream, reward,
                           stats, feat, values)
                tree_i[c, T_VISITS] += 1
                tree_i[c, T_AVAIL] += 1
                tree_i[0, T_VISITS] += 1
                for s in range(n_players):
                    tree_f[c, s] += reward[s]
                    tree_f[0, s] += reward[s]
                stats[S_ITERATIONS] += 1
                stats[S_DEPTH] += 1
        stats[S_MAX_DEPTH] = max(stats[S_MAX_DEPTH], 1.0)
        # keep the better half (rounded up) by mean reward; ties keep the better prior
        keep = (left + 1) // 2
        for c in range(1, k + 1):
            if tree_i[c, T_N_POOLED] == 0:
                continue
            mean = tree_f[c, seat] / max(1, tree_i[c, T_VISITS])
            better = 0
            for d in range(1, k + 1):
                if d != c and tree_i[d, T_N_POOLED] != 0:  # in this round, marked or not
                    other = tree_f[d, seat] / max(1, tree_i[d, T_VISITS])
                    if other > mean or (other == mean and d < c):
                        better += 1
            if better >= keep:
                tree_i[c, T_N_POOLED] = 2  # out after this round (marked, then dropped)
        for c in range(1, k + 1):
            if tree_i[c, T_N_POOLED] == 2:
                tree_i[c, T_N_POOLED] = 0
        left = keep
        if left == 1:
            break
    best_c = 1
    best_mean = -1.0
    for c in range(1, k + 1):
        if tree_i[c, T_N_POOLED] == 1:
            mean = tree_f[c, seat] / max(1, tree_i[c, T_VISITS])
            if mean > best_mean:
                best_mean = mean
                best_c = c
    return tree_i[best_c, T_POOLED]


@kernel
def pooled(pool, first, count, k, move):
    """The pool row of ``move`` among the ``count`` rows from ``first`` (-1: none), looked
    for at row ``first + k`` first: a node's legal moves mostly come in the same order."""
    if k < count and pool[first + k, PL_MOVE] == move:
        return first + k
    for r in range(first, first + count):
        if pool[r, PL_MOVE] == move:
            return r
    return -1


@kernel
def move_priors(params, state, mover, moves2, n, w, stream, n_players, max_turns, teams,
                after, obs2, items, scores, ranks, shares, feat, values, temperature, pool,
                first, count, keep):
    """``values[:n]``: the prior of each of ``mover``'s legal moves ``moves2[:n]`` in the
    determinised ``state``, the softmax at ``temperature`` (in score shares) of the model's
    values of their afterstates: a move's value from the ``count`` pool rows from ``first``
    when it is there, else valued here (``afterstate_value``, chance from ``stream``). With
    ``keep`` 0 or more, the moves and their values are kept in the pool from that row."""
    best = -1.0
    for k in range(n):
        r = pooled(pool, first, count, k, moves2[k]) if count > 0 else -1
        if r >= 0:
            values[k] = pool[r, PL_VALUE]
        else:
            copy_into(after, state)
            game.apply_move(params, after, moves2[k], stream, items)
            values[k] = afterstate_value_at(params, after, mover, w, G_MODEL, n_players,
                                            max_turns, teams, obs2, scores, ranks, shares,
                                            feat)
        best = max(best, values[k])
    if keep >= 0:
        for k in range(n):
            pool[keep + k, PL_MOVE] = moves2[k]
            pool[keep + k, PL_VALUE] = values[k]
    total = 0.0
    for k in range(n):
        values[k] = math.exp((values[k] - best) / temperature)
        total += values[k]
    for k in range(n):
        values[k] /= total


@kernel
def leaf_values(params, state, w, n_players, teams, obs2, feat, out):
    """``out[:P]``: every seat's reward of the position ``state`` (not over) by the model:
    each seat's value from its own observation, divided by the sum over the teams (each
    counted once), so the rewards are score shares as a finished game's are."""
    for s in range(n_players):
        game.observe(params, state, s, obs2)
        game_features(params, obs2, s, feat)
        out[s] = model_value_at(w, G_MODEL, s, feat)
    team_shares(n_players, teams, out)


@kernel
def score_leaf(params, state, weights, leaf, n_players, max_turns, teams, obs2, moves2, items,
               scores, ranks, rollout_weights, stream, reward, stats, feat, values):
    """``reward[:P]``: every seat's reward of the leaf ``state`` (played on): its exact
    score shares when the game is over (0 for everyone at the turn cap), else ``leaf`` x the
    model's values of it (``leaf_values``, into ``values``) + (1 - ``leaf``) x a playout's
    reward, a playout cut and scored by ``cutoff`` model getting the model's values of the
    position where it was cut (AlphaGo's mix; ``leaf`` 0: the playout alone, and the model
    is never read)."""
    if game.is_over(state) or game.turn_number(state) >= max_turns:
        if game.is_over(state):
            game.finish(params, state, scores, ranks)
            score_shares(n_players, teams, ranks, reward)
        else:
            reward[:n_players] = 0.0
        return
    if leaf > 0:  # the model's values of the leaf, before a playout moves it on
        leaf_values(params, state, weights, n_players, teams, obs2, feat, values)
    if leaf < 1:
        playout(params, n_players, max_turns, teams, state, obs2, moves2, items, scores,
                ranks, weights, rollout_weights, stream, reward, stats)
        if int(weights[W_CUTOFF]) == 3 and reward[0] < 0:  # cut: the model's rewards
            leaf_values(params, state, weights, n_players, teams, obs2, feat, reward)
    else:
        reward[:n_players] = 0.0
    if leaf > 0:
        for s in range(n_players):
            reward[s] = (1.0 - leaf) * reward[s] + leaf * values[s]


@kernel
def tree_search(params, obs, seat, moves, n_moves, weights, stream, n_players, max_turns,
                teams, rollout_weights, tree_i, tree_f, state, obs2, moves2, items, scores,
                ranks, reward, stats, guided, after, feat, values, pool):
    """SO-ISMCTS with ``weights[0]`` iterations (at most ``len(tree_i) - 1``); the index
    (into ``moves``) of the root child visited most. ``guided``: the model of ``weights``
    (from ``G_MODEL``) gives priors (``W_PRIOR`` above 0) and values the leaves
    (``W_LEAF`` above 0); with ``W_PRIOR_ONCE`` a node's moves are valued at its first
    expansion and their values kept in ``pool`` (while it has room) for its later ones;
    otherwise ``after``, ``feat``, ``values`` and ``pool`` are not read."""
    budget = min(max(1, int(weights[W_ITERATIONS])), tree_i.shape[0] - 1)
    items[:, :] = 0  # a scratch counter: never read, kept from overflowing
    stats[S_DECISIONS] += 1
    c = weights[W_EXPLORATION]
    widen_k = weights[W_WIDEN_K]
    widen_alpha = weights[W_WIDEN_ALPHA]
    widen_above = int(weights[W_WIDEN_ABOVE])
    prior_weight = weights[W_PRIOR] if guided else 0.0
    prior_temperature = weights[W_PRIOR_TEMPERATURE] if guided else 1.0
    leaf = weights[W_LEAF] if guided else 0.0
    prior_once = guided and weights[W_PRIOR_ONCE] > 0
    n_pooled = 0
    prior_col = tree_f.shape[1] - 1  # a child's prior (its move's, where it was expanded)
    n_nodes = 1
    _new_node(tree_i, tree_f, 0, -1, -1, -1, n_players)
    for _ in range(budget):
        game.determinize(params, obs, seat, state, stream, obs2)
        node = 0
        level = 0
        expanded = False
        while not expanded and not game.is_over(state) and game.turn_number(state) < max_turns:
            n = game.legal_moves(params, state, moves2)
            mover = game.to_move(state)
            # availability, children already tried among the legal moves, the best by UCB1
            n_children = 0
            child = tree_i[node, T_CHILD]
            while child >= 0:
                if _is_legal(tree_i[child, T_MOVE], moves2, n):
                    tree_i[child, T_AVAIL] += 1
                    n_children += 1
                child = tree_i[child, T_SIBLING]
            room = n_children < n
            if room and n > widen_above:
                cap = widen_k * (tree_i[node, T_VISITS] + 1) ** widen_alpha
                room = n_children < max(1.0, cap)
            if room and n_nodes < tree_i.shape[0]:
                # expand one untried legal move: at random, or (guided) the one of the
                # highest prior (ties at random)
                if prior_weight > 0:
                    first = tree_i[node, T_POOLED]
                    count = tree_i[node, T_N_POOLED] if first >= 0 else 0
                    keep = -1
                    if prior_once and first < 0 and n_pooled + n <= pool.shape[0]:
                        keep = n_pooled  # the node's first valuation, kept for its next
                        tree_i[node, T_POOLED] = keep
                        tree_i[node, T_N_POOLED] = n
                        n_pooled += n
                    move_priors(params, state, mover, moves2, n, weights, stream, n_players,
                                max_turns, teams, after, obs2, items, scores, ranks, reward,
                                feat, values, prior_temperature, pool, first, count, keep)
                pick = rand_below(stream, n - n_children) if prior_weight <= 0 else 0
                chosen = -1
                chosen_prior = 0.0
                ties = 0
                for k in range(n):
                    tried = False
                    child = tree_i[node, T_CHILD]
                    while child >= 0:
                        if tree_i[child, T_MOVE] == moves2[k]:
                            tried = True
                            break
                        child = tree_i[child, T_SIBLING]
                    if tried:
                        continue
                    if prior_weight > 0:
                        if chosen < 0 or values[k] > chosen_prior:
                            chosen, chosen_prior, ties = moves2[k], values[k], 1
                        elif values[k] == chosen_prior:
                            ties += 1  # reservoir: each tied move kept with chance 1/ties
                            if rand_below(stream, ties) == 0:
                                chosen = moves2[k]
                    else:
                        if pick == 0:
                            chosen = moves2[k]
                            break
                        pick -= 1
                node = _new_node(tree_i, tree_f, n_nodes, node, chosen, mover, n_players)
                tree_f[node, prior_col] = chosen_prior
                tree_i[node, T_AVAIL] = 1
                n_nodes += 1
                game.apply_move(params, state, chosen, stream, items)
                expanded = True
            else:
                best = -1
                best_value = -1e300
                child = tree_i[node, T_CHILD]
                while child >= 0:
                    if _is_legal(tree_i[child, T_MOVE], moves2, n):
                        v = tree_i[child, T_VISITS]
                        if v == 0:
                            value = 1e300
                        else:
                            value = (tree_f[child, mover] / v
                                     + c * math.sqrt(math.log(tree_i[child, T_AVAIL]) / v))
                            if prior_weight > 0:  # PUCT's prior term (AlphaZero)
                                value += (prior_weight * tree_f[child, prior_col]
                                          * math.sqrt(tree_i[child, T_AVAIL]) / (1 + v))
                        if value > best_value:
                            best_value = value
                            best = child
                    child = tree_i[child, T_SIBLING]
                if best < 0:
                    break
                node = best
                game.apply_move(params, state, tree_i[node, T_MOVE], stream, items)
            level += 1
        score_leaf(params, state, weights, leaf, n_players, max_turns, teams, obs2, moves2,
                   items, scores, ranks, rollout_weights, stream, reward, stats, feat, values)
        stats[S_ITERATIONS] += 1
        stats[S_DEPTH] += level
        stats[S_MAX_DEPTH] = max(stats[S_MAX_DEPTH], float(level))
        while node >= 0:
            tree_i[node, T_VISITS] += 1
            for s in range(n_players):
                tree_f[node, s] += reward[s]
            node = tree_i[node, T_PARENT]
    # the root move visited most (ties: the better mean), as an index into ``moves``
    best_k = 0
    best_visits = -1
    best_mean = -1.0
    for k in range(n_moves):
        child = tree_i[0, T_CHILD]
        while child >= 0:
            if tree_i[child, T_MOVE] == moves[k]:
                v = tree_i[child, T_VISITS]
                mean = tree_f[child, seat] / v if v > 0 else -1.0
                if v > best_visits or (v == best_visits and mean > best_mean):
                    best_visits = v
                    best_mean = mean
                    best_k = k
                break
            child = tree_i[child, T_SIBLING]
    return best_k


# ---------------------------------------------------------------- learned (docs/learning.md)
# The learned strategy's weights row: its named weights, then the model (simkit.learn.flat):
# F, H, K, P, seat_net[P], mean[F], 1/std[F], then per network W1 transposed [F, H] (a
# feature's H weights together), b1[H], w2[H], b2 (H > 0), or w[F], b (H = 0); then the
# policy: M (0: none), and when M > 0 its temperature, the move codes it knows (codes[M],
# sorted), and per network (M + 1) rows of F weights and a bias, row M for a code it does
# not know.
L_TEMPERATURE, L_EPSILON, L_SAMPLES, L_BY, L_TOP, L_MARGIN = 0, 1, 2, 3, 4, 5
L_MODEL = 6
M_FEATURES, M_HIDDEN, M_NETS, M_PLAYERS, M_SEAT_NET = 0, 1, 2, 3, 4
BY_POLICY, BY_VALUES = 0, 1  # ``by``: the policy when the model has one, or the values


@kernel
def model_value(w, seat, feat):
    """The value (the expected score share, in (0, 1)) that the model in the learned row
    ``w`` gives ``seat``'s position of features ``feat`` (float64[F], standardised here in
    place)."""
    return model_value_at(w, L_MODEL, seat, feat)


@kernel
def model_value_at(w, at_model, seat, feat):
    """``model_value`` of the model that starts at ``w[at_model]`` (``L_MODEL`` in a
    ``learned`` row, ``G_MODEL`` in a guided search's)."""
    F = int(w[at_model + M_FEATURES])
    H = int(w[at_model + M_HIDDEN])
    mean = at_model + M_SEAT_NET + int(w[at_model + M_PLAYERS])
    scale = mean + F
    size = H * F + 2 * H + 1 if H > 0 else F + 1
    at = scale + F + int(w[at_model + M_SEAT_NET + seat]) * size
    for i in range(F):
        feat[i] = (feat[i] - w[mean + i]) * w[scale + i]
    if H == 0:
        x = w[at + F]
        for i in range(F):
            x += w[at + i] * feat[i]
    else:
        b1 = at + H * F
        w2 = b1 + H
        x = w[w2 + H]
        # W1 is stored a feature at a time (F x H, ``learn.Model.flat``): eight hidden units
        # at a time read eight neighbouring weights a feature, which the compiler turns into
        # vector arithmetic, and each unit's sum still runs over the features in order from
        # its bias, so the value is the same to the last bit as one unit at a time
        # (docs/learning.md, Models: what it saves)
        h = 0
        while h + 8 <= H:
            a0 = w[b1 + h]
            a1 = w[b1 + h + 1]
            a2 = w[b1 + h + 2]
            a3 = w[b1 + h + 3]
            a4 = w[b1 + h + 4]
            a5 = w[b1 + h + 5]
            a6 = w[b1 + h + 6]
            a7 = w[b1 + h + 7]
            r = at + h
            for i in range(F):
                f = feat[i]
                a0 += w[r] * f
                a1 += w[r + 1] * f
                a2 += w[r + 2] * f
                a3 += w[r + 3] * f
                a4 += w[r + 4] * f
                a5 += w[r + 5] * f
                a6 += w[r + 6] * f
                a7 += w[r + 7] * f
                r += H
            x += w[w2 + h] * math.tanh(a0)
            x += w[w2 + h + 1] * math.tanh(a1)
            x += w[w2 + h + 2] * math.tanh(a2)
            x += w[w2 + h + 3] * math.tanh(a3)
            x += w[w2 + h + 4] * math.tanh(a4)
            x += w[w2 + h + 5] * math.tanh(a5)
            x += w[w2 + h + 6] * math.tanh(a6)
            x += w[w2 + h + 7] * math.tanh(a7)
            h += 8
        while h < H:
            a = w[b1 + h]
            r = at + h
            for i in range(F):
                a += w[r] * feat[i]
                r += H
            x += w[w2 + h] * math.tanh(a)
            h += 1
    return 0.5 * (1.0 + math.tanh(0.5 * x))


@kernel
def afterstate_value(params, after, seat, w, n_players, max_turns, teams, obs2, scores,
                     ranks, shares, feat):
    """``seat``'s value of the full state ``after``: its exact score share when the game is
    over (0 at the turn cap, as for everyone), else the model's value of its features from
    ``seat``'s observation (``obs2``, ``scores``, ``ranks``, ``shares`` and ``feat`` are
    scratch)."""
    return afterstate_value_at(params, after, seat, w, L_MODEL, n_players, max_turns, teams,
                               obs2, scores, ranks, shares, feat)


@kernel
def afterstate_value_at(params, after, seat, w, at_model, n_players, max_turns, teams, obs2,
                        scores, ranks, shares, feat):
    """``afterstate_value`` by the model that starts at ``w[at_model]``."""
    if game.is_over(after):
        game.finish(params, after, scores, ranks)
        score_shares(n_players, teams, ranks, shares)
        return shares[seat]
    if game.turn_number(after) >= max_turns:
        return 0.0
    game.observe(params, after, seat, obs2)
    game_features(params, obs2, seat, feat)
    return model_value_at(w, at_model, seat, feat)


@kernel
def learned_values(params, obs, seat, moves, n_moves, w, stream, n_players, max_turns, teams,
                   state, after, obs2, items, scores, ranks, shares, feat, values):
    """Fill ``values[:n_moves]`` with ``seat``'s value of each legal move, from its
    observation ``obs``: ``w[L_SAMPLES]`` times (at least once) a determinisation is drawn
    from ``stream`` into ``state``, and each move is applied to a copy of it (``after``,
    chance from ``stream``) and valued by ``afterstate_value``; a move's value is the mean.
    Draws only from ``stream``; allocates nothing (every other array is scratch)."""
    samples = max(1, int(w[L_SAMPLES]))
    items[:, :] = 0  # a scratch counter: never read, kept from overflowing
    for j in range(n_moves):
        values[j] = 0.0
    for _ in range(samples):
        game.determinize(params, obs, seat, state, stream, obs2)
        for j in range(n_moves):
            copy_into(after, state)
            game.apply_move(params, after, moves[j], stream, items)
            values[j] += afterstate_value(params, after, seat, w, n_players, max_turns, teams,
                                          obs2, scores, ranks, shares, feat)
    for j in range(n_moves):
        values[j] /= samples


@kernel
def uniform(stream):
    """A uniform float in [0, 1) from ``stream`` (53 bits)."""
    return (next_u64(stream) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@kernel
def learned_pick(values, n_moves, w, stream):
    """The index of the move to play by ``values``: with chance ``w[L_EPSILON]`` a uniformly
    random one; else with ``w[L_TEMPERATURE]`` above 0 a draw from the softmax of the values
    at that temperature (in score shares); else the best, ties broken at random. Draws from
    ``stream`` only when one of these needs it."""
    epsilon = w[L_EPSILON]
    if epsilon > 0 and uniform(stream) < epsilon:
        return rand_below(stream, n_moves)
    best = values[0]
    for j in range(1, n_moves):
        best = max(best, values[j])
    temperature = w[L_TEMPERATURE]
    if temperature > 0:
        total = 0.0
        for j in range(n_moves):
            total += math.exp((values[j] - best) / temperature)
        u = uniform(stream) * total
        for j in range(n_moves):
            u -= math.exp((values[j] - best) / temperature)
            if u < 0:
                return j
        return n_moves - 1
    ties = 0
    for j in range(n_moves):
        if values[j] == best:
            ties += 1
    if ties == 1:
        for j in range(n_moves):
            if values[j] == best:
                return j
    pick = rand_below(stream, ties)
    for j in range(n_moves):
        if values[j] == best:
            if pick == 0:
                return j
            pick -= 1
    return 0


@kernel
def policy_at(w):
    """Where the policy of the model in the learned row ``w`` starts (its M), after the
    value networks."""
    F = int(w[L_MODEL + M_FEATURES])
    H = int(w[L_MODEL + M_HIDDEN])
    size = H * F + 2 * H + 1 if H > 0 else F + 1
    return (L_MODEL + M_SEAT_NET + int(w[L_MODEL + M_PLAYERS]) + 2 * F
            + int(w[L_MODEL + M_NETS]) * size)


@kernel
def by_policy(w):
    """Whether ``learned`` with the row ``w`` plays by its model's policy: it has one, and
    ``by`` does not ask for the values."""
    return int(w[L_BY]) == BY_POLICY and int(w[policy_at(w)]) > 0


@kernel
def move_bucket(w, codes_at, m, move):
    """The policy's row of ``move``: its index among the ``m`` sorted codes from
    ``w[codes_at]``, or ``m`` for a code it does not know; by the dense table that follows
    the codes when the model has one (``learn.Model.flat``: one load), else a binary
    search."""
    dense = int(w[codes_at + m])
    if dense > 0:
        if 0 <= move < dense:
            return int(w[codes_at + m + 1 + move])
        return m
    lo = 0
    hi = m
    while lo < hi:
        mid = (lo + hi) // 2
        if w[codes_at + mid] < move:
            lo = mid + 1
        else:
            hi = mid
    if lo < m and w[codes_at + lo] == move:
        return lo
    return m


@kernel
def policy_values(params, obs, seat, moves, n_moves, w, feat, values):
    """Fill ``values[:n_moves]`` with the policy's score of each legal move, from ``seat``'s
    observation ``obs`` alone (no move applied): the features once (standardised in place
    in ``feat[:F]``), then per move ``temperature * (W[b] . z + c[b])``, ``b`` the move's
    row, so the scores are in score shares as ``learned_values``' are. A policy that reads
    move features (G > 0) adds ``u . y + v . tanh(A z + B y + hb)``, ``y`` the move's
    standardised features (written in ``feat[F:F + G]``), the hidden layer's position part
    ``A z + hb`` computed once (in ``feat[F + G:F + G + Q]``). Draws nothing; allocates
    nothing."""
    F = int(w[L_MODEL + M_FEATURES])
    mean = L_MODEL + M_SEAT_NET + int(w[L_MODEL + M_PLAYERS])
    scale = mean + F
    at = policy_at(w)
    m = int(w[at])
    temperature = w[at + 1]
    codes_at = at + 2
    net = int(w[L_MODEL + M_SEAT_NET + seat])
    rows_at = codes_at + m + 1 + int(w[codes_at + m])  # after the codes and the dense table
    rows = rows_at + net * (m + 1) * (F + 1)
    game_features(params, obs, seat, feat)
    for i in range(F):
        feat[i] = (feat[i] - w[mean + i]) * w[scale + i]
    mf_at = rows_at + int(w[L_MODEL + M_NETS]) * (m + 1) * (F + 1)
    G = int(w[mf_at])
    Q = int(w[mf_at + 1])
    u = mf_at + 2 + net * (G + 1 + Q * F + Q * G + 2 * Q)
    a = u + G + 1
    b = a + Q * F
    hb = b + Q * G
    v = hb + Q
    for q in range(Q):
        feat[F + G + q] = w[hb + q] + dot4(w, a + q * F, feat, 0, F)
    for j in range(n_moves):
        row = rows + move_bucket(w, codes_at, m, moves[j]) * (F + 1)
        x = w[row + F] + dot4(w, row, feat, 0, F)
        if G > 0:
            # the move's raw features: their standardisation is folded into u, B and hb
            y = feat[F:F + G]
            game_move_features(params, obs, seat, moves[j], y)
            x += w[u + G] + dot4(w, u, y, 0, G)
            for q in range(Q):
                h = feat[F + G + q] + dot4(w, b + q * G, y, 0, G)
                if h > 0:  # ReLU: a tanh a unit and a move cost more than the rest
                    x += w[v + q] * h
        values[j] = temperature * x


@kernel
def dot4(w, at, x, x_at, n):
    """``w[at:at + n] . x[x_at:x_at + n]`` in four independent sums, added in a fixed order
    (one running sum waits on its last addition; four keep the core busy)."""
    a0 = 0.0
    a1 = 0.0
    a2 = 0.0
    a3 = 0.0
    i = 0
    while i + 4 <= n:
        a0 += w[at + i] * x[x_at + i]
        a1 += w[at + i + 1] * x[x_at + i + 1]
        a2 += w[at + i + 2] * x[x_at + i + 2]
        a3 += w[at + i + 3] * x[x_at + i + 3]
        i += 4
    while i < n:
        a0 += w[at + i] * x[x_at + i]
        i += 1
    return (a0 + a1) + (a2 + a3)


@kernel
def learned_scores(params, obs, seat, moves, n_moves, w, stream, n_players, max_turns, teams,
                   state, after, obs2, items, scores, ranks, shares, feat, values):
    """Fill ``values[:n_moves]`` with ``learned``'s score of each legal move: the model's
    policy (``policy_values``) when it has one and ``by`` says so, else its afterstate
    values (``learned_values``)."""
    if by_policy(w):
        policy_values(params, obs, seat, moves, n_moves, w, feat, values)
        if int(w[L_TOP]) > 1 and n_moves > 1:
            shortlist_values(params, obs, seat, moves, n_moves, w, stream, n_players,
                             max_turns, teams, state, after, obs2, items, scores, ranks,
                             shares, feat, values)
    else:
        learned_values(params, obs, seat, moves, n_moves, w, stream, n_players, max_turns,
                       teams, state, after, obs2, items, scores, ranks, shares, feat, values)


SHORTLISTED = 2.0  # a shortlisted move's value is kept above this mark while it is summed


@kernel
def shortlist_values(params, obs, seat, moves, n_moves, w, stream, n_players, max_turns,
                     teams, state, after, obs2, items, scores, ranks, shares, feat, values):
    """From the policy's scores in ``values[:n_moves]``: the ``w[L_TOP]`` best moves whose
    score is within ``w[L_MARGIN]`` of the best's get their afterstate value (as
    ``learned_values``, over ``w[L_SAMPLES]`` determinisations), every other move -1, below
    any value; when the best alone is that close, it is played without values. The scores
    are first mapped below -1 (monotone), so a shortlisted move (marked from
    ``SHORTLISTED``) is told apart in place: allocates nothing."""
    top = values[0]
    for j in range(n_moves):
        top = max(top, values[j])
    low = -1.0 - math.exp(min(-(top - w[L_MARGIN]), 700.0))  # the margin, mapped
    for j in range(n_moves):
        values[j] = -1.0 - math.exp(min(-values[j], 700.0))
    chosen = 0
    for _ in range(min(int(w[L_TOP]), n_moves)):
        best = -1
        for j in range(n_moves):
            if values[j] < SHORTLISTED and (best < 0 or values[j] > values[best]):
                best = j
        if chosen > 0 and values[best] < low:
            break
        values[best] = SHORTLISTED
        chosen += 1
    if chosen == 1:  # no other move is close: the policy's best, without values
        for j in range(n_moves):
            values[j] = 0.0 if values[j] >= SHORTLISTED else -1.0
        return
    samples = max(1, int(w[L_SAMPLES]))
    items[:, :] = 0  # a scratch counter: never read, kept from overflowing
    for _ in range(samples):
        game.determinize(params, obs, seat, state, stream, obs2)
        for j in range(n_moves):
            if values[j] >= SHORTLISTED:
                copy_into(after, state)
                game.apply_move(params, after, moves[j], stream, items)
                values[j] += afterstate_value(params, after, seat, w, n_players, max_turns,
                                              teams, obs2, scores, ranks, shares,
                                              feat) / samples
    for j in range(n_moves):
        values[j] = values[j] - SHORTLISTED if values[j] >= SHORTLISTED else -1.0


@kernel
def learned_choose(params, obs, seat, moves, n_moves, w, stream, n_players, max_turns, teams,
                   state, after, obs2, items, scores, ranks, shares, feat, values):
    """``learned``: the index (into ``moves``) of the move ``seat`` plays, by
    ``learned_scores`` and ``learned_pick``."""
    learned_scores(params, obs, seat, moves, n_moves, w, stream, n_players, max_turns, teams,
                   state, after, obs2, items, scores, ranks, shares, feat, values)
    return learned_pick(values, n_moves, w, stream)


@kernel
def learned_games(params, n_players, seeds, first, seat_rows, rows, max_turns, teams, state,
                  obs, moves, streams, items, det, after, obs2, scratch_items, scores, ranks,
                  shares, feat, values, out_feat, out_seat, out_game, out_ended, out_shares,
                  out_turns):
    """Play games ``first``.. of ``seeds`` as the runner plays them (the same streams, a
    forced move played without asking), seat ``s`` of game ``g`` by ``learned`` with the row
    ``rows[seat_rows[g, s]]`` (named weights, then a model), and record every decision of
    more than one move: the features of the position it led to, as its seat sees it
    (``out_feat`` float32[R, F], the real afterstate, chance drawn by the game), the seat,
    the game, and whether the game ended there (a timeout too). ``out_shares`` (float64[G,
    P]) gets each game's score shares, ``out_turns`` (int32[G]) its turns. With no room left
    for a decision, stops before that game: returns (the first game not played, records);
    with ``out_feat`` of no rows records nothing. Allocates nothing."""
    cap = out_feat.shape[0]
    r = 0
    for g in range(first, seeds.shape[0]):
        at_start = r
        seed_streams(seeds[g], n_players, streams)
        game.new_game(params, n_players, state, streams[0:1])
        items[:, :] = 0
        while not game.is_over(state) and game.turn_number(state) < max_turns:
            n = game.legal_moves(params, state, moves)
            k = 0
            seat = game.to_move(state)
            if n > 1:
                if cap > 0 and r >= cap:
                    return g, at_start
                w = rows[seat_rows[g, seat]]
                stream = streams[1 + seat:2 + seat]
                game.observe(params, state, seat, obs)
                k = learned_choose(params, obs, seat, moves, n, w, stream, n_players,
                                   max_turns, teams, det, after, obs2, scratch_items, scores,
                                   ranks, shares, feat, values)
            game.apply_move(params, state, moves[k], streams[0:1], items)
            if n > 1 and cap > 0:
                game.observe(params, state, seat, obs2)
                game_features(params, obs2, seat, feat)
                for i in range(out_feat.shape[1]):
                    out_feat[r, i] = feat[i]
                out_seat[r] = seat
                out_game[r] = g
                out_ended[r] = game.is_over(state) or game.turn_number(state) >= max_turns
                r += 1
        if game.is_over(state):
            game.finish(params, state, scores, ranks)
            score_shares(n_players, teams, ranks, shares)
        else:
            for s in range(n_players):
                shares[s] = 0.0
        for s in range(n_players):
            out_shares[g, s] = shares[s]
        out_turns[g] = game.turn_number(state)
    return seeds.shape[0], r


@kernel
def distill_games(params, n_players, seeds, first, w, w_play, max_turns, teams, state, obs,
                  moves, streams, items, det, after, obs2, scratch_items, scores, ranks, shares,
                  feat, values, out_feat, out_seat, out_start, out_n, out_moves, out_values,
                  out_move_feat):
    """Self-play of games ``first``.. of ``seeds`` by ``learned`` with the row ``w_play``
    (the teacher itself, or a policy learning from it: DAgger), seeded as the runner seeds
    a run, labelled by the afterstate values of the row ``w`` (the teacher of a policy:
    ``simkit.distill``): at every decision of more than one move a record: the features
    of the deciding seat's observation (``out_feat`` float32[R, F]), the seat, where its
    moves start in ``out_moves`` / ``out_values`` and how many there are, each legal move's
    code and the teacher's value of it (float32), and when ``out_move_feat`` (float32[C, G])
    has columns, each legal move's move features. With no room left for a decision, stops
    before that game: returns (the first game not played, records, moves recorded).
    Allocates nothing."""
    cap = out_feat.shape[0]
    cap_moves = out_moves.shape[0]
    r = 0
    c = 0
    for g in range(first, seeds.shape[0]):
        r_start = r
        c_start = c
        seed_streams(seeds[g], n_players, streams)
        game.new_game(params, n_players, state, streams[0:1])
        items[:, :] = 0
        while not game.is_over(state) and game.turn_number(state) < max_turns:
            n = game.legal_moves(params, state, moves)
            k = 0
            seat = game.to_move(state)
            if n > 1:
                if r >= cap or c + n > cap_moves:
                    return g, r_start, c_start
                stream = streams[1 + seat:2 + seat]
                game.observe(params, state, seat, obs)
                game_features(params, obs, seat, feat)
                for i in range(out_feat.shape[1]):
                    out_feat[r, i] = feat[i]
                learned_values(params, obs, seat, moves, n, w, stream, n_players, max_turns,
                               teams, det, after, obs2, scratch_items, scores, ranks, shares,
                               feat, values)
                out_seat[r] = seat
                out_start[r] = c
                out_n[r] = n
                for j in range(n):
                    out_moves[c + j] = moves[j]
                    out_values[c + j] = values[j]
                n_move_feat = out_move_feat.shape[1]
                if n_move_feat > 0:
                    y = feat[out_feat.shape[1]:out_feat.shape[1] + n_move_feat]
                    for j in range(n):
                        game_move_features(params, obs, seat, moves[j], y)
                        for i in range(n_move_feat):
                            out_move_feat[c + j, i] = y[i]
                r += 1
                c += n
                if w_play.shape[0] == 0:  # the teacher plays
                    k = learned_pick(values, n, w, stream)
                else:
                    k = learned_choose(params, obs, seat, moves, n, w_play, stream, n_players,
                                       max_turns, teams, det, after, obs2, scratch_items,
                                       scores, ranks, shares, feat, values)
            game.apply_move(params, state, moves[k], streams[0:1], items)
    return seeds.shape[0], r, c
