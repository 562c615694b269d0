"""Pig's kernels.

State (int32[STATE_SIZE]):

    0 N_PLAYERS | 1 SEAT (whose turn) | 2 TURN_TOTAL | 3 TURNS | 4 WINNER (-1 none)
    5 .. 8 BANKED[4]

Moves: ROLL = 0, HOLD = 1.
"""


from simkit.jit import copy_into, kernel
from simkit.rng import rand_below

N_PLAYERS, SEAT, TURN_TOTAL, TURNS, WINNER, BANKED = 0, 1, 2, 3, 4, 5
STATE_SIZE = BANKED + 4
ROLL, HOLD = 0, 1
P_TARGET, P_FACES, P_MAX_TURNS = 0, 1, 2

ITEM_COLUMNS = ["roll:made", "hold:made", "bust:suffered"]
I_ROLL, I_HOLD, I_BUST = 0, 1, 2
END_REASONS = ["timeout", "target_reached"]


@kernel
def state_size(params, n_players):
    return STATE_SIZE


@kernel
def max_moves(params, n_players):
    return 2


@kernel
def new_game(params, n_players, state, chance):
    state[:] = 0
    state[N_PLAYERS] = n_players
    state[WINNER] = -1


@kernel
def to_move(state):
    return state[SEAT]


@kernel
def legal_moves(params, state, moves):
    moves[0] = ROLL
    if state[TURN_TOTAL] == 0:
        return 1
    moves[1] = HOLD
    return 2


@kernel
def end_turn(state):
    state[TURN_TOTAL] = 0
    state[SEAT] = (state[SEAT] + 1) % state[N_PLAYERS]
    state[TURNS] += 1


@kernel
def apply_move(params, state, move, chance, items):
    seat = state[SEAT]
    if move == HOLD:
        items[seat, I_HOLD] += 1
        state[BANKED + seat] += state[TURN_TOTAL]
        if state[BANKED + seat] >= params[0][P_TARGET]:
            state[WINNER] = seat
        end_turn(state)
        return
    items[seat, I_ROLL] += 1
    face = 1 + rand_below(chance, params[0][P_FACES])
    if face == 1:
        items[seat, I_BUST] += 1
        end_turn(state)
    else:
        state[TURN_TOTAL] += face


@kernel
def is_over(state):
    return state[WINNER] >= 0


@kernel
def turn_number(state):
    return state[TURNS]


@kernel
def finish(params, state, scores, ranks):
    n = state[N_PLAYERS]
    for s in range(n):
        scores[s] = state[BANKED + s]
        ranks[s] = 1 if s == state[WINNER] else 2
    return 1


@kernel
def observe(params, state, seat, obs):
    copy_into(obs, state)  # nothing is hidden in Pig


@kernel
def determinize(params, obs, seat, state, stream, scratch):
    copy_into(state, obs)  # nothing is hidden in Pig: the one state consistent with obs


@kernel
def progress(params, state, out):
    """Each seat's standing, in points: what it has banked, and for the seat on turn what
    holding now would bank (its turn total, still at risk)."""
    for s in range(state[N_PLAYERS]):
        out[s] = state[BANKED + s]
    out[state[SEAT]] += state[TURN_TOTAL]


FEATURES = (
    "own_banked", "own_at_risk", "own_if_held", "own_to_go", "own_on_turn",
    "next_banked", "next_at_risk", "next_to_go", "next_on_turn",
    "second_banked", "second_to_go", "second_on_turn",
    "third_banked", "third_to_go", "third_on_turn",
    "best_other_banked", "lead", "target", "turn_fraction",
)
"""What a Pig player looks at, from ``seat``'s side (``features``): points banked, the turn
total at risk, what holding would bank, the points still to go, whose turn it is; then the
same of each other seat in play order (the next first); the best opponent's bank and the
seat's lead over it; the target and the turns played as a fraction of the cap."""
F_NEXT, F_SECOND, F_THIRD = 5, 9, 12
F_BEST, F_LEAD, F_TARGET, F_TURN = 15, 16, 17, 18

MOVE_FEATURES = ("rolls", "banks", "risks", "wins_now")
"""What one move does, from the mover's side (``move_features``): whether it rolls, the
points it banks (holding), the points it puts at risk (rolling), and whether it wins the
game at once (holding at or over the target)."""


@kernel
def features(params, obs, seat, out):
    """Fill ``out`` (float64[len(FEATURES)]) from ``obs`` for ``seat`` (Pig hides nothing,
    so ``obs`` is the state); seats absent at fewer players are 0."""
    n = obs[N_PLAYERS]
    target = params[0][P_TARGET]
    on_turn = obs[SEAT]
    at_risk = obs[TURN_TOTAL]
    for i in range(F_TURN + 1):
        out[i] = 0.0
    own = obs[BANKED + seat]
    out[0] = own
    out[1] = at_risk if on_turn == seat else 0
    out[2] = own + out[1]
    out[3] = max(0, target - own)
    out[4] = 1.0 if on_turn == seat else 0.0
    best = 0
    for k in range(1, n):
        other = (seat + k) % n
        banked = obs[BANKED + other]
        best = max(best, banked)
        base = F_NEXT if k == 1 else (F_SECOND if k == 2 else F_THIRD)
        out[base] = banked
        if k == 1:
            out[base + 1] = at_risk if on_turn == other else 0
            out[base + 2] = max(0, target - banked)
            out[base + 3] = 1.0 if on_turn == other else 0.0
        else:
            out[base + 1] = max(0, target - banked)
            out[base + 2] = 1.0 if on_turn == other else 0.0
    out[F_BEST] = best
    out[F_LEAD] = own - best
    out[F_TARGET] = target
    out[F_TURN] = obs[TURNS] / params[0][P_MAX_TURNS]


@kernel
def move_features(params, obs, seat, move, out):
    """Fill ``out`` (float64[len(MOVE_FEATURES)]) with what ``move`` does for ``seat``, from
    ``obs``."""
    at_risk = obs[TURN_TOTAL] if obs[SEAT] == seat else 0
    rolls = move == ROLL
    out[0] = 1.0 if rolls else 0.0
    out[1] = 0.0 if rolls else at_risk
    out[2] = at_risk if rolls else 0.0
    out[3] = 1.0 if not rolls and obs[BANKED + seat] + at_risk >= params[0][P_TARGET] else 0.0
