"""Connect Four (examples/connect_four): scenario tests of every rule on hand-built frames,
its strategy, and its random games against an independent pure-Python reading of the rules
and of simkit's streams."""

import numpy as np
import pytest
from connect_four import rules as R

from simkit import registry, simulate
from simkit.errors import SimkitError
from simkit.rng import game_seeds
from simkit.runner import RunSpec, plan

GOLDEN = 0x9E3779B97F4A7C15
MASK = (1 << 64) - 1


@pytest.fixture
def frame():
    """A new standard frame: (plan, state, items)."""
    p = plan(RunSpec.make("connect-four", 2, 1))
    state = np.empty(p.state_size, np.int32)
    R.new_game(p.compiled, 2, state, np.zeros(1, np.uint64))
    return p, state, np.zeros((2, len(R.ITEM_COLUMNS)), np.int32)


def drop_all(p, state, items, columns):
    """Drop in ``columns`` (1-based, as the transcript numbers them), alternating seats."""
    for c in columns:
        assert not R.is_over(state)
        R.apply_move(p.compiled, state, c - 1, np.zeros(1, np.uint64), items)
    spec = registry.get_game("connect-four")
    assert spec.check_state(p.compiled, 2, state) == []


def finished(p, state):
    scores, ranks = np.zeros(2), np.zeros(2, np.int32)
    reason = R.END_REASONS[R.finish(p.compiled, state, scores, ranks)]
    return reason, ranks.tolist(), scores.tolist()


def test_discs_fall_and_full_columns_are_not_legal(frame):
    p, state, items = frame
    drop_all(p, state, items, [4, 4, 4, 4, 4, 4])
    moves = np.empty(p.max_moves, np.int32)
    n = R.legal_moves(p.compiled, state, moves)
    assert moves[:n].tolist() == [0, 1, 2, 4, 5, 6]
    assert state[R.HEIGHT + 3] == 6 and R.turn_number(state) == 6
    assert items[:, R.I_CENTRE].tolist() == [3, 3]


@pytest.mark.parametrize("columns,item", [
    ([1, 2, 1, 2, 1, 2, 1], R.I_UP),
    ([1, 1, 2, 2, 3, 3, 4], R.I_ACROSS),
    ([1, 2, 2, 3, 4, 3, 3, 4, 5, 4, 4], R.I_DIAGONAL),   # rising to the right, ends at (4, 4)
    ([7, 6, 6, 5, 4, 5, 5, 4, 3, 4, 4], R.I_DIAGONAL),   # rising to the left
    ([1, 1, 2, 2, 4, 4, 3], R.I_ACROSS),                 # the gap filled last
])
def test_four_in_a_row_wins(frame, columns, item):
    p, state, items = frame
    drop_all(p, state, items, columns)
    winner = (len(columns) - 1) % 2
    assert R.is_over(state) and state[R.WINNER] == winner
    assert finished(p, state) == ("connected", [1, 2] if winner == 0 else [2, 1],
                                  [1.0, 0.0] if winner == 0 else [0.0, 1.0])
    assert items[winner, item] == 1 and items[:, R.I_UP:].sum() == 1


def test_three_in_a_row_and_broken_lines_do_not_win(frame):
    p, state, items = frame
    drop_all(p, state, items, [1, 1, 2, 2, 3, 5, 5, 4])  # P1 has 1-3, P2 4: no line of four
    assert not R.is_over(state)


def test_a_full_frame_without_a_line_is_a_draw(frame):
    p, state, items = frame
    # columns filled in pairs 1-2, 3-4, 5-6 in a pattern that never lines up four, then 7
    order = []
    for a, b in ((1, 2), (3, 4), (5, 6)):
        order += [a, b, a, b, a, b, b, a, b, a, b, a]
    order += [7] * 6
    drop_all(p, state, items, order)
    assert R.is_over(state) and state[R.WINNER] == -1
    assert finished(p, state) == ("frame_full", [1, 1], [0.5, 0.5])


def test_other_frames_and_lines(frame):
    p = plan(RunSpec.make("connect-four", 2, 1, overrides={"rows": 3, "columns": 3,
                                                           "connect": 3}))
    state = np.empty(p.state_size, np.int32)
    items = np.zeros((2, len(R.ITEM_COLUMNS)), np.int32)
    R.new_game(p.compiled, 2, state, np.zeros(1, np.uint64))
    drop_all(p, state, items, [1, 2, 1, 2, 1])
    assert state[R.WINNER] == 0 and items[0, R.I_UP] == 1
    with pytest.raises(SimkitError, match="connect = 8 is longer"):
        RunSpec.make("connect-four", 2, 1, overrides={"connect": 8})


def test_win_block_connects_then_blocks():
    from connect_four.strategy import choose_win_block

    p = plan(RunSpec.make("connect-four", 2, 1))
    state = np.empty(p.state_size, np.int32)
    items = np.zeros((2, len(R.ITEM_COLUMNS)), np.int32)
    R.new_game(p.compiled, 2, state, np.zeros(1, np.uint64))
    drop_all(p, state, items, [1, 2, 1, 2, 1])  # P1 threatens column 1; P2 to drop
    moves = np.empty(p.max_moves, np.int32)
    n = R.legal_moves(p.compiled, state, moves)
    w = np.array([1.0])
    stream = np.zeros(1, np.uint64)
    assert moves[choose_win_block(p.compiled, state, 1, moves, n, w, stream)] == 0  # blocks
    drop_all(p, state, items, [3])  # P2 elsewhere; now P1 connects in column 1
    n = R.legal_moves(p.compiled, state, moves)
    assert moves[choose_win_block(p.compiled, state, 0, moves, n, w, stream)] == 0
    res = simulate("connect-four", 2, 600, seed=2, strategies="win-block,random", workers=1)
    g = res.games
    won = ((g["strategy_s1"] == "win-block") & (g["winner"] == 1)) | (
        (g["strategy_s2"] == "win-block") & (g["winner"] == 2))
    assert won.mean() > 0.9


def reference_game(seed: int) -> tuple[int, int]:
    """A random game read from the rules in plain Python, with simkit's SplitMix64 streams:
    (winning seat or -1, drops)."""
    def mix(z):
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        return z ^ (z >> 31)

    streams = [mix((seed + (k + 1) * GOLDEN) & MASK) for k in range(3)]
    board = [[-1] * 7 for _ in range(6)]
    seat, drops = 0, 0
    while True:
        legal = [c for c in range(7) if board[5][c] < 0]
        k = 0
        if len(legal) > 1:
            streams[1 + seat] = (streams[1 + seat] + GOLDEN) & MASK
            k = mix(streams[1 + seat]) % len(legal)
        c = legal[k]
        r = next(r for r in range(6) if board[r][c] < 0)
        board[r][c] = seat
        drops += 1
        for dr, dc in ((1, 0), (0, 1), (1, 1), (1, -1)):
            run = 1
            for sign in (1, -1):
                rr, cc = r + sign * dr, c + sign * dc
                while 0 <= rr < 6 and 0 <= cc < 7 and board[rr][cc] == seat:
                    run, rr, cc = run + 1, rr + sign * dr, cc + sign * dc
            if run >= 4:
                return seat, drops
        if drops == 42:
            return -1, drops
        seat = 1 - seat


def test_random_games_match_a_plain_python_reading_of_the_rules():
    res = simulate("connect-four", 2, 300, seed=9, strategies="random", workers=1)
    g = res.games
    seeds = game_seeds(9, 0, 300)
    assert np.array_equal(seeds, g["seed"].to_numpy(np.uint64))
    for row, seed in zip(g.itertuples(), seeds.tolist(), strict=True):
        winner, drops = reference_game(seed)
        assert (row.winner, row.decisions) == (winner + 1, drops)


def test_search_plays_connect_four_now_that_it_has_determinize():
    """Nothing is hidden, so ``determinize`` is one copy; with it ``ismcts`` plays the game
    (before, asking for it named the missing kernel) and beats random play."""
    assert hasattr(R, "determinize")
    res = simulate("connect-four", 2, 30, seed=3, strategies="ismcts@100,random", workers=1)
    g = res.games
    won = ((g["strategy_s1"] == "ismcts@100") & (g["winner"] == 1)) | (
        (g["strategy_s2"] == "ismcts@100") & (g["winner"] == 2))
    assert won.mean() >= 0.8
    assert res.meta["search"]["ismcts@100"]["iterations_per_decision"] == 100
