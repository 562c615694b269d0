"""Connect Four told as text, for ``simkit replay``, and its invariants, for the tests."""

from .rules import COLUMNS, CONNECT, DROPS, HEIGHT, OVER, ROWS, SEAT, WINNER


def describe_setup(params, n_players, state):
    return [f"{state[ROWS]} rows x {state[COLUMNS]} columns, {state[CONNECT]} in a row wins; "
            "P1 drops first"]


def describe_move(params, n_players, before, move, after):
    seat = before[SEAT]
    text = f"drops in column {move + 1} (row {before[HEIGHT + move] + 1})"
    if after[WINNER] == seat:
        text += f", connecting {after[CONNECT]}"
    elif after[OVER]:
        text += ": the frame is full"
    return [text]


def check_state(params, n_players, state):
    """Discs rest on discs, the heights count them, the seats alternate, and a winner is
    recorded exactly when the game is over with a line."""
    problems = []
    rows, columns = int(state[ROWS]), int(state[COLUMNS])
    board = HEIGHT + columns
    counts = [0, 0]
    for c in range(columns):
        h = int(state[HEIGHT + c])
        if not 0 <= h <= rows:
            problems.append(f"column {c + 1} holds {h} discs in a frame {rows} high")
            continue
        for r in range(rows):
            cell = int(state[board + r * columns + c])
            if r < h and cell not in (0, 1):
                problems.append(f"column {c + 1}, row {r + 1}: a gap below the top disc")
            elif r >= h and cell != -1:
                problems.append(f"column {c + 1}, row {r + 1}: a disc above the column's top")
            elif r < h:
                counts[cell] += 1
    if sum(counts) != state[DROPS]:
        problems.append(f"{sum(counts)} discs in the frame but {state[DROPS]} drops recorded")
    if counts[0] - counts[1] not in (0, 1):
        problems.append(f"P1 has {counts[0]} discs and P2 {counts[1]}: turns did not alternate")
    if state[SEAT] != state[DROPS] % 2:
        problems.append(f"seat {state[SEAT]} to drop after {state[DROPS]} drops")
    if state[WINNER] not in (-1, 0, 1) or (state[WINNER] >= 0 and not state[OVER]):
        problems.append(f"winner {state[WINNER]} in a game that is not over")
    if state[OVER] and state[WINNER] < 0 and state[DROPS] != rows * columns:
        problems.append("over without a winner before the frame is full")
    return problems
