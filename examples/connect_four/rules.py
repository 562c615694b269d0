"""Connect Four's kernels.

State (int32[state_size]); the frame's numbers are copied from ``params`` by ``new_game``,
so no other kernel takes an array out of the params tuple:

    0 SEAT (who drops next) | 1 DROPS (discs dropped: the completed turns)
    2 WINNER (-1 none)      | 3 OVER (1 once won or full)
    4 ROWS | 5 COLUMNS | 6 CONNECT
    7 .. 7+C-1                 HEIGHT[c]: discs in column c
    7+C .. 7+C+R*C-1           BOARD[r * C + c]: the seat whose disc fills row r (0 = the
                               bottom) of column c, -1 empty

Moves: the column to drop into, 0 .. C-1.
"""

from simkit.jit import copy_into, inline, kernel

SEAT, DROPS, WINNER, OVER, ROWS, COLUMNS, CONNECT, HEIGHT = 0, 1, 2, 3, 4, 5, 6, 7
P_ROWS, P_COLUMNS, P_CONNECT = 0, 1, 2

ITEM_COLUMNS = ["centre_column:dropped", "edge_column:dropped", "line_up:made",
                "line_across:made", "line_diagonal:made"]
I_CENTRE, I_EDGE, I_UP, I_ACROSS, I_DIAGONAL = 0, 1, 2, 3, 4
END_REASONS = ["timeout", "connected", "frame_full"]
REASON_CONNECTED, REASON_FULL = 1, 2


@kernel
def state_size(params, n_players):
    p = params[0]
    return HEIGHT + p[P_COLUMNS] + p[P_ROWS] * p[P_COLUMNS]


@kernel
def max_moves(params, n_players):
    return params[0][P_COLUMNS]


@kernel
def new_game(params, n_players, state, chance):
    p = params[0]
    state[:] = -1
    state[SEAT] = 0
    state[DROPS] = 0
    state[OVER] = 0
    state[ROWS] = p[P_ROWS]
    state[COLUMNS] = p[P_COLUMNS]
    state[CONNECT] = p[P_CONNECT]
    state[HEIGHT:HEIGHT + p[P_COLUMNS]] = 0


@kernel
def to_move(state):
    return state[SEAT]


@kernel
def legal_moves(params, state, moves):
    rows = state[ROWS]
    n = 0
    for c in range(state[COLUMNS]):
        if state[HEIGHT + c] < rows:
            moves[n] = c
            n += 1
    return n


@inline
def run_length(state, r, c, dr, dc, seat):
    """How many of ``seat``'s discs follow (r, c) in direction (dr, dc), not counting it."""
    rows = state[ROWS]
    columns = state[COLUMNS]
    board = HEIGHT + columns
    n = 0
    r += dr
    c += dc
    while 0 <= r < rows and 0 <= c < columns and state[board + r * columns + c] == seat:
        n += 1
        r += dr
        c += dc
    return n


@inline
def line_through(state, r, c, seat):
    """The item of the line of ``connect`` that ``seat``'s disc at (r, c) completes, or -1."""
    need = state[CONNECT] - 1
    if run_length(state, r, c, -1, 0, seat) >= need:
        return I_UP
    if run_length(state, r, c, 0, -1, seat) + run_length(state, r, c, 0, 1, seat) >= need:
        return I_ACROSS
    if run_length(state, r, c, -1, -1, seat) + run_length(state, r, c, 1, 1, seat) >= need:
        return I_DIAGONAL
    if run_length(state, r, c, -1, 1, seat) + run_length(state, r, c, 1, -1, seat) >= need:
        return I_DIAGONAL
    return -1


@kernel
def apply_move(params, state, move, chance, items):
    seat = state[SEAT]
    rows = state[ROWS]
    columns = state[COLUMNS]
    r = state[HEIGHT + move]
    state[HEIGHT + columns + r * columns + move] = seat
    state[HEIGHT + move] = r + 1
    state[DROPS] += 1
    if move == columns // 2:
        items[seat, I_CENTRE] += 1
    if move == 0 or move == columns - 1:
        items[seat, I_EDGE] += 1
    line = line_through(state, r, move, seat)
    if line >= 0:
        items[seat, line] += 1
        state[WINNER] = seat
        state[OVER] = 1
    elif state[DROPS] == rows * columns:
        state[OVER] = 1
    state[SEAT] = 1 - seat


@kernel
def is_over(state):
    return state[OVER] != 0


@kernel
def turn_number(state):
    return state[DROPS]


@kernel
def finish(params, state, scores, ranks):
    winner = state[WINNER]
    if winner < 0:
        for s in range(2):
            scores[s] = 0.5
            ranks[s] = 1
        return REASON_FULL
    for s in range(2):
        scores[s] = 1.0 if s == winner else 0.0
        ranks[s] = 1 if s == winner else 2
    return REASON_CONNECTED


@kernel
def observe(params, state, seat, obs):
    copy_into(obs, state)  # nothing is hidden in Connect Four


@kernel
def determinize(params, obs, seat, state, stream, scratch):
    """The one state consistent with ``obs``: nothing is hidden, so the search strategies
    (``mc``, ``ismcts``) play Connect Four with this line."""
    copy_into(state, obs)
