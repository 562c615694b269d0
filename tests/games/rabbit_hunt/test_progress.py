"""The progress and phase kernels (NOTES.md, Progress measure): each side's standing in
bunnies, one scenario per term, the end against ``finish``, and random games.

Run as a script for the NOTES figures:
``python tests/games/rabbit_hunt/test_progress.py --players 2 --games 2000``."""

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))

from rh_table import E, Table  # noqa: E402

from simkit import registry  # noqa: E402
from simkit.games.rabbit_hunt import rules as R  # noqa: E402
from simkit.games.rabbit_hunt import state as S  # noqa: E402
from simkit.rng import game_seeds, rand_below, seed_streams  # noqa: E402
from simkit.runner import RunSpec, plan  # noqa: E402

LINE = [(0, 2), (0, 3), (0, 4)]


def progress(t):
    out = np.full(t.n, np.nan)
    R.progress(t.params, t.st, out)
    return out


def bonus(t):
    """Rule a's bonus: one more than all the bunnies in the game."""
    return t.p[S.P_BUNNIES] * t.n + 1


def pile_start(t):
    return t.p[S.P_DECK] - t.p[S.P_REMOVED] - R.RING - t.n * t.p[S.P_HAND_SIZE]


def quiet(n=2):
    """A table with the setup ring turned up empty (no face-down card, nothing to catch)."""
    t = Table(n)
    t.strip_ring()
    t.to_actions(0)
    for seat in range(n):              # no carrots: the catches they buy are tested apart
        t.set_carrots(seat, 0)
    return t


def whole_pile(t):
    """The pile as long as at the start (laying cards took some): rule a is sure then."""
    t.set_pile([S.EMPTY] * pile_start(t))


def steps_term(steps):
    return R.STEPS_TIE * (R.NO_BUNNY_STEPS - steps) / R.NO_BUNNY_STEPS


# ---- the terms -----------------------------------------------------------------------------

def test_a_new_game_is_level_at_rule_as_bonus():
    for n in (2, 3, 4):
        t = Table(n)
        assert t[S.PILE_LEN] == pile_start(t)
        assert progress(t).tolist() == [bonus(t)] * n   # the pile whole: a met for sure


def test_bunnies_in_hand_weigh_more_as_the_pile_runs_down():
    t = quiet()
    t.lay(t.cell(1, 0), S.BUNNY + 1, up=1, seen=15, placer=1)
    # seat 0 holds its three bunnies, seat 1 two; half the pile is left
    start = pile_start(t)
    t.set_pile([S.EMPTY] * (start // 2))
    x = (start // 2) / start
    e = R.HAND_BUNNY_EXPONENT
    v = progress(t)
    assert v[0] == pytest.approx(bonus(t) * x ** (e * 3))
    assert v[1] == pytest.approx(bonus(t) * x ** (e * 2) + steps_term(1))
    t.set_pile([S.EMPTY] * 2)
    assert progress(t)[0] < v[0]
    # no bunny in hand: rule a's whole bonus, however short the pile
    for x_ in [t.cell(1, -1), t.cell(0, -1), t.cell(-1, 0)]:
        t.lay(x_, S.BUNNY + 0, up=1, seen=15, placer=0)
    assert progress(t)[0] == pytest.approx(bonus(t) + steps_term(1))


def test_a_bunny_caught_is_a_bunny_and_one_lost_a_tenth():
    t = quiet(3)
    before = progress(t)
    t.lose_bunnies(1, 0, 2)
    t.lose_bunnies(2, 1, 1)
    v = progress(t) - before
    assert v.tolist() == pytest.approx([2.0, 1.0 - 2 * R.LOST_TIE, -R.LOST_TIE])


def test_the_nearest_own_bunny_is_rule_ds_tie_break():
    t = quiet()
    t.chain([t.cell(q, r) for q, r in LINE])
    far = t.cell(0, 4)
    t.lay(far, S.BUNNY + 0, up=1, seen=15, placer=0)
    whole_pile(t)
    base = bonus(t)                # the pile is whole: rule a's bonus for both
    assert t.steps(t.center, far) == 4
    assert progress(t)[0] == pytest.approx(base + steps_term(4))
    t.lay(t.cell(-1, 0), S.BUNNY + 0, up=1, seen=15, placer=0)   # one step: the nearest
    whole_pile(t)
    assert progress(t)[0] == pytest.approx(base + steps_term(1))
    assert progress(t)[1] == pytest.approx(base)                 # none on the farmland


def test_the_steps_go_over_cards_not_across_gaps():
    # the rule-d table of test_end: (3,-3) is 3 hex cells from the warehouse, 6 steps
    t = quiet()
    t.chain([t.cell(q, r) for q, r in [(2, 0), (3, -1), (4, -2), (4, -3), (3, -3)]])
    c = t.cell(3, -3)
    t.lay(c, S.BUNNY + 1, up=1, seen=15, placer=1)
    whole_pile(t)
    assert t.steps(t.center, c) == 6
    assert progress(t)[1] == pytest.approx(bonus(t) + steps_term(6))


def test_carrots_buy_catches_at_the_share_of_bunnies_face_down():
    t = quiet()
    cells = [t.cell(q, r) for q, r in LINE]
    t.chain(cells[:1])
    t.lay(cells[1], S.EMPTY, seen=2, placer=1)           # face down
    t.lay(cells[2], S.BUNNY + 1, seen=2, placer=1)       # face down: one card in two
    t.set_carrots(0, 4)
    t.set_carrots(1, 4)
    whole_pile(t)
    v = progress(t)
    price = t.p[S.P_COST_23]
    assert v[0] == pytest.approx(bonus(t) + 4 / price * (1 / 2))
    # seat 1's own bunny is nothing it can catch
    assert v[1] == pytest.approx(bonus(t) + steps_term(4))


def test_a_player_out_holds_the_least():
    t = quiet(3)
    t.lose_bunnies(1, 0, 3)
    t[S.ELIMINATED + 1] = 1
    t[S.FARMER + 1] = -1
    t.set_hand(1, {})
    v = progress(t)
    assert v[1] == R.OUT and v[1] < min(v[0], v[2])


def test_partners_share_their_teams_value():
    t = quiet(4)
    t.chain([t.cell(q, r) for q, r in LINE])
    t.lose_bunnies(1, 0, 1)                       # P1 caught one of P2's
    t.lay(t.cell(0, 4), S.BUNNY + 2, up=1, seen=15, placer=2)   # P3's bunny, 4 steps
    t.set_carrots(2, 5)
    v = progress(t)
    assert v[0] == v[2] and v[1] == v[3]
    assert v[0] > v[1]


# ---- the end agrees with finish -------------------------------------------------------------

def dispose(t, seat, cells):
    for x in cells:
        t.lay(x, S.BUNNY + seat, seen=1 << seat, placer=seat)


def end_a(t):          # P1 caught two but holds a bunny: P2 wins by rule a
    t.lose_bunnies(1, 0, 2)
    t.lay(t.cell(1, 0), S.BUNNY + 1, seen=2, placer=1)
    dispose(t, 0, [t.cell(0, 1), t.cell(-1, 1)])


def end_b(t):
    t.lose_bunnies(1, 0, 2)
    t.lose_bunnies(0, 1, 1)
    dispose(t, 0, [t.cell(0, 1), t.cell(-1, 1)])
    dispose(t, 1, [t.cell(1, 0)])


def end_c(t):          # 3 players: P1 and P2 caught one each, P2 lost none
    t.lose_bunnies(2, 0, 1)
    t.lose_bunnies(2, 1, 1)
    t.lose_bunnies(0, 2, 1)
    dispose(t, 0, [t.cell(0, 1), t.cell(-1, 1)])
    dispose(t, 1, [t.cell(1, 0), t.cell(1, -1), t.cell(0, -1)])
    dispose(t, 2, [t.cell(-1, 0)])


def end_d(t):          # b and c tied: the nearer bunny in steps over cards
    t.chain([t.cell(q, r) for q, r in [(2, 0), (3, -1), (4, -2), (4, -3), (3, -3)] + LINE])
    t.lose_bunnies(0, 1, 2)
    t.lose_bunnies(1, 0, 2)
    dispose(t, 0, [t.cell(0, 4)])
    dispose(t, 1, [t.cell(3, -3)])


def end_e(t):          # 3 players: P1 and P2 tie through d, P3 holds its bunnies
    dispose(t, 0, [t.cell(1, 0), t.cell(1, -1), t.cell(0, -1)])
    dispose(t, 1, [t.cell(-1, 0), t.cell(-1, 1), t.cell(0, 1)])


def end_teams(t):      # 4 players: team P2+P4 caught more
    t.chain([t.cell(q, r) for q, r in LINE])
    t.lose_bunnies(1, 0, 1)
    t.lose_bunnies(0, 3, 1)
    t.lose_bunnies(3, 1, 1)
    dispose(t, 0, [t.cell(1, 0), t.cell(1, -1)])
    dispose(t, 1, [t.cell(0, -1), t.cell(-1, 0)])
    dispose(t, 2, [t.cell(-1, 1), t.cell(0, 1), t.cell(0, 2)])
    dispose(t, 3, [t.cell(0, 3), t.cell(0, 4)])


@pytest.mark.parametrize("n,build", [(2, end_a), (2, end_b), (3, end_c), (2, end_d),
                                     (3, end_e), (4, end_teams)])
def test_at_the_end_the_values_order_the_seats_as_finish_ranks_them(n, build):
    t = quiet(n)
    build(t)
    t.set_carrots(0, 6)               # carrots count for nothing once the game is over
    t.set_pile([])
    t[S.END] = S.PILE_EMPTY
    _, ranks, _ = t.finish()
    v = progress(t)
    assert 1 in ranks
    for a in range(n):
        for b in range(n):
            assert (ranks[a] < ranks[b]) == (v[a] > v[b]), (ranks, v)


def test_the_last_one_standing_holds_the_most():
    t = quiet()
    t.lose_bunnies(1, 0, 3)
    t[S.ELIMINATED + 1] = 1
    t[S.FARMER + 1] = -1
    t.set_hand(1, {})
    t[S.END] = S.LAST_STANDING
    _, ranks, _ = t.finish()
    v = progress(t)
    assert ranks == [1, 2] and v[0] == bonus(t) + 3 and v[1] == R.OUT   # P1 holds bunnies


# ---- phase -------------------------------------------------------------------------------------

PHASES = registry.get_game("rabbit-hunt").phases


def test_phase_names_are_the_specs():
    assert PHASES == R.PHASES == ("place", "action", "event", "return")


def test_phase_of_the_placement_and_the_actions():
    t = Table(2)
    assert t[S.PHASE] == S.PH_PLACE and PHASES[R.phase(t.params, t.st)] == "place"
    t.to_actions(0)
    assert PHASES[R.phase(t.params, t.st)] == "action"


@pytest.mark.parametrize("ph,name", [(S.PH_EXTRA_PLACE, "place"), (S.PH_SWAP, "place"),
                                     (S.PH_STEP, "event"), (S.PH_MOVE_ANY, "event"),
                                     (S.PH_TO_WAREHOUSE, "event"), (S.PH_PEEK, "event")])
def test_phase_of_the_events_decisions(ph, name):
    t = Table(2)
    t[S.PHASE] = ph
    assert PHASES[R.phase(t.params, t.st)] == name


def test_phase_of_the_looked_at_players_put_backs():
    t = quiet()
    t.set_carrots(0, 3)
    t.apply(E(S.M_LOOK, 1))
    assert t[S.PHASE] == S.PH_RETURN and t[S.TO_MOVE] == 1
    assert PHASES[R.phase(t.params, t.st)] == "return"

# ---- random games ------------------------------------------------------------------------------

def play(n_players, n_games, seed=2026, strategy="random"):
    """Games of ``strategy`` (``random`` draws from each seat's own stream), with progress
    read after every completed turn. Yields (values float64[turns + 1, n] indexed by
    completed turns, ranks, timed out)."""
    spec = registry.get_game("rabbit-hunt")
    chooser = registry.strategies_for("rabbit-hunt")[strategy]
    weights = np.array(list(chooser.weights.values()), np.float64)
    p = plan(RunSpec.make("rabbit-hunt", n_players, 1))
    params, max_turns = p.compiled, spec.data["max_turns"].value
    st, obs = np.empty(p.state_size, np.int32), np.empty(p.state_size, np.int32)
    moves = np.empty(p.max_moves, np.int32)
    items = np.zeros((n_players, len(spec.item_columns)), np.int32)
    out, scores = np.empty(n_players), np.empty(n_players)
    ranks = np.empty(n_players, np.int32)
    streams = np.empty(1 + n_players, np.uint64)
    for g_seed in game_seeds(seed, 0, n_games):
        seed_streams(np.uint64(g_seed), n_players, streams)
        R.new_game(params, n_players, st, streams[0:1])
        values, turn = [], -1
        while True:
            if R.turn_number(st) != turn or R.is_over(st):
                turn = R.turn_number(st)
                R.progress(params, st, out)
                del values[turn:]
                values.append(out.copy())
            if R.is_over(st) or turn >= max_turns:
                break
            k = R.legal_moves(params, st, moves)
            seat = R.to_move(st)
            stream = streams[1 + seat:2 + seat]
            if strategy == "random":
                j = rand_below(stream, k)
            else:
                R.observe(params, st, seat, obs)
                j = chooser.kernel(params, obs, seat, moves, k, weights, stream)
            R.apply_move(params, st, moves[j], streams[0:1], items)
        R.finish(params, st, scores, ranks)
        yield np.array(values), ranks.copy(), not R.is_over(st)


def ahead(v, ranks):
    """Every rank-1 seat holds more than every other seat."""
    win = ranks == 1
    return bool(win.all() or v[win].min() > v[~win].max())


def figures(n_players, n_games, seed=2026, strategy="random"):
    """(a) the share of finished games with a winner in which the winners hold the most at
    the end; (b) the share in which they hold the most after 50% and 75% of the turns;
    and how many finished games had a winner, and how many nobody (rule a)."""
    ends, at = [], {0.5: [], 0.75: []}
    nobody = 0
    for values, ranks, timed_out in play(n_players, n_games, seed, strategy):
        assert np.isfinite(values).all()
        if timed_out:
            continue
        if 1 not in ranks:
            nobody += 1
            continue
        ends.append(ahead(values[-1], ranks))
        for f in at:
            at[f].append(ahead(values[int(f * (len(values) - 1))], ranks))
    return np.mean(ends), {f: np.mean(x) for f, x in at.items()}, len(ends), nobody


@pytest.mark.parametrize("n_players", [2, 4])
def test_random_games_finite_and_the_winners_end_ahead(n_players):
    end, at, n, _ = figures(n_players, 200)
    assert n >= 150
    assert end == 1.0                 # the end agrees with finish exactly
    assert at[0.75] >= 0.65           # measured 0.77 (2 players) and 0.70 (4), 200 games


if __name__ == "__main__":
    import argparse

    ap = argparse.ArgumentParser()
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--games", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--strategy", default="random")
    a = ap.parse_args()
    end, at, n, nobody = figures(a.players, a.games, a.seed, a.strategy)
    print(f"{a.players} players, {a.strategy}: {n} finished games with a winner ({nobody} "
          f"with nobody): the winners hold the most at the end in {end:.1%}, after 50% of "
          f"the turns in {at[0.5]:.1%}, after 75% in {at[0.75]:.1%}")
