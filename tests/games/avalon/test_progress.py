"""The progress and phase kernels (NOTES.md, Progress measure): crowns held, plus the
cards and less the crowns at risk before the end; one scenario per term, the end against
``finish``, and random games. Slots are 0-based.

Run as a script for the NOTES figures:
``python tests/games/avalon/test_progress.py --games 2000``."""

import numpy as np
import pytest
from avalon_table import E, K, Table, attack

from simkit import registry
from simkit.games.avalon import rules as r
from simkit.games.avalon import state as S
from simkit.rng import game_seeds, rand_below, seed_streams
from simkit.runner import RunSpec, plan

P1, P2 = 0, 1
CROWNS = {"castle_hill": 3, "plain_a": 3, "hill_a": 2}   # data.toml's


def progress(t):
    out = np.full(2, np.nan)
    r.progress(t.params, t.state, out)
    return out


def card_worth(t):
    """24 crowns over 11 territories, over 3 x 1 + 1 cards a conquest costs: 0.545."""
    total = sum(int(t.state[S.P_CROWNS + c]) for c in range(S.N_TERR))
    return total / S.N_TERR / (3 * int(t.state[S.M_PER_SIDE]) + 1)


# ---- the terms ------------------------------------------------------------------------------

def test_a_card_is_worth_a_territorys_crowns_over_what_a_conquest_costs():
    t = Table()
    assert card_worth(t) == pytest.approx(24 / 11 / 4)
    assert r.card_crowns(t.state) == pytest.approx(card_worth(t))


def test_a_new_game_is_level_at_its_cards():
    t = Table()
    st = np.empty(t.plan.state_size, np.int32)
    r.new_game(t.params, 2, st, np.array([3], np.uint64))
    out = np.empty(2)
    r.progress(t.params, st, out)
    assert out.tolist() == pytest.approx([16 * card_worth(t)] * 2)  # 11 laid + 5 in hand


def test_crowns_held_count_whole_when_guarded():
    t = Table().territory(0, "plain_a", P1).pile(P1, 0, K("red"))
    assert progress(t).tolist() == pytest.approx([CROWNS["plain_a"] + card_worth(t), 0.0])


def test_cards_in_hand_and_in_the_layout_count_alike():
    t = Table().hand(P1, K("red"), E("blue")).pile(P2, 4, K("green"), E("green"))
    assert progress(t).tolist() == pytest.approx([2 * card_worth(t), 2 * card_worth(t)])


def test_a_territory_the_opponent_can_attack_is_partly_lost():
    # P2's side at plain_a is as high as P1's: P2 may attack it
    t = Table().territory(0, "plain_a", P1).pile(P1, 0, K("red")).pile(P2, 0, K("blue"))
    assert K("blue") != K("red")
    v = progress(t)
    assert v[P1] == pytest.approx((1 - r.AT_RISK) * CROWNS["plain_a"] + card_worth(t))
    assert v[P2] == pytest.approx(card_worth(t))
    # an unguarded territory is open to attack too
    t = Table().territory(0, "plain_a", P1)
    assert progress(t)[P1] == pytest.approx((1 - r.AT_RISK) * CROWNS["plain_a"])


def test_a_castle_needs_one_card_more_to_be_attacked():
    t = Table().territory(1, "castle_hill", P1).pile(P1, 1, K("red")).pile(P2, 1, K("blue"))
    guarded = CROWNS["castle_hill"] + card_worth(t)
    assert progress(t)[P1] == pytest.approx(guarded)                   # 1 + castle > 1
    t.pile(P2, 1, K("green"))
    assert progress(t)[P1] == pytest.approx((1 - r.AT_RISK) * CROWNS["castle_hill"]
                                            + card_worth(t))           # 2 >= 1 + 1


# ---- the end agrees with finish -------------------------------------------------------------

def end_turn(t):
    t.play(r.END_PLAYS).play(r.SUPPLY_TILE + S.TILE_FIXED_DARK)


def test_at_the_end_only_the_crowns_count():
    # P1 wins with 3 crowns against a P2 rich in cards and territory at risk
    t = Table(overrides={"rules.win_crowns": 3}).territory(0, "plain_a", P1)
    t.hand(P2, *[K("red")] * 6).territory(5, "hill_a", P2)
    before = progress(t)
    assert before[P2] > before[P1]
    end_turn(t)
    assert r.is_over(t.state)
    scores, ranks = np.zeros(2), np.zeros(2, np.int32)
    r.finish(t.params, t.state, scores, ranks)
    assert ranks.tolist() == [1, 2]
    assert progress(t).tolist() == scores.tolist() == [CROWNS["plain_a"], CROWNS["hill_a"]]


@pytest.mark.parametrize("rule,ranked", [("most_crowns", [2, 1]), ("draw", [1, 1])])
def test_cards_exhausted_ends_on_the_crowns(rule, ranked):
    t = Table(overrides={"rules.cards_exhausted": rule}).territory(0, "plain_a", P2)
    while t.state[S.DECK_N] > 0:
        t.pile(P1, 3, int(t.state[S.DECK + t.state[S.DECK_N] - 1]))
    t.play(r.END_PLAYS).play(r.SUPPLY_TILE + S.TILE_FIXED_LIGHT)
    assert r.is_over(t.state)
    scores, ranks = np.zeros(2), np.zeros(2, np.int32)
    r.finish(t.params, t.state, scores, ranks)
    assert ranks.tolist() == ranked
    assert progress(t).tolist() == [0.0, CROWNS["plain_a"]]   # 80 cards laid: not counted


# ---- phase -------------------------------------------------------------------------------------

PHASES = registry.get_game("avalon").phases


def test_phase_names_are_the_specs():
    assert PHASES == r.PHASES == ("play", "answer", "losses", "supply", "discard")


def test_phase_of_the_plays_the_answer_and_the_losses():
    t = Table().pile(P1, 6, E("red")).pile(P2, 6, K("blue")).hand(P1, K("violet"), K("red"))
    t.hand(P2, K("violet"))
    assert PHASES[r.phase(t.params, t.state)] == "play"
    t.play(attack(K("violet"), 6))
    assert t.state[S.PHASE] == S.DEFEND and PHASES[r.phase(t.params, t.state)] == "answer"
    t.state[S.PHASE] = S.COUNTER
    assert PHASES[r.phase(t.params, t.state)] == "answer"
    t = Table().territory(2, "plain_a").pile(P1, 2, E("red"), K("blue"))
    t.pile(P2, 2, K("yellow")).hand(P1, K("green"), *[E("violet")] * 4)
    t.play(attack(K("green"), 2))
    assert t.state[S.PHASE] == S.LOSS and PHASES[r.phase(t.params, t.state)] == "losses"


def test_phase_of_the_supply_and_the_discards():
    t = Table().hand(P1, *[K("red")] * 7)
    t.play(r.END_PLAYS)
    assert t.state[S.PHASE] == S.SUPPLY and PHASES[r.phase(t.params, t.state)] == "supply"
    t.play(r.SUPPLY_TILE + S.TILE_FIXED_LIGHT)            # 9 cards: over the hand limit
    assert t.state[S.PHASE] == S.DISCARD_PHASE
    assert PHASES[r.phase(t.params, t.state)] == "discard"

# ---- random games ------------------------------------------------------------------------------

def play(n_games, seed=2026, strategy="random"):
    """Games of ``strategy`` (``random`` draws from each seat's own stream), with progress
    read after every completed turn. Yields (values float64[turns + 1, 2] indexed by
    completed turns, ranks, timed out)."""
    spec = registry.get_game("avalon")
    chooser = registry.strategies_for("avalon")[strategy]
    weights = np.array(list(chooser.weights.values()), np.float64)
    p = plan(RunSpec.make("avalon", 2, 1))
    params, max_turns = p.compiled, spec.data["max_turns"].value
    st, obs = np.empty(p.state_size, np.int32), np.empty(p.state_size, np.int32)
    moves = np.empty(p.max_moves, np.int32)
    items = np.zeros((2, len(spec.item_columns)), np.int32)
    out, scores, ranks = np.empty(2), np.empty(2), np.empty(2, np.int32)
    streams = np.empty(3, np.uint64)
    for g_seed in game_seeds(seed, 0, n_games):
        seed_streams(np.uint64(g_seed), 2, streams)
        r.new_game(params, 2, st, streams[0:1])
        values, turn = [], -1
        while True:
            if r.turn_number(st) != turn or r.is_over(st):
                turn = r.turn_number(st)
                r.progress(params, st, out)
                del values[turn:]
                values.append(out.copy())
            if r.is_over(st) or turn >= max_turns:
                break
            k = r.legal_moves(params, st, moves)
            seat = r.to_move(st)
            stream = streams[1 + seat:2 + seat]
            if strategy == "random":
                j = rand_below(stream, k)
            else:
                r.observe(params, st, seat, obs)
                j = chooser.kernel(params, obs, seat, moves, k, weights, stream)
            r.apply_move(params, st, moves[j], streams[0:1], items)
        r.finish(params, st, scores, ranks)
        yield np.array(values), ranks.copy(), not r.is_over(st)


def figures(n_games, seed=2026, strategy="random"):
    """(a) the share of finished games with one winner in which it holds the most at the
    end; (b) the share in which it holds the most after 50% and 75% of the turns (a tie is
    a miss); and how many finished games had one winner."""
    ends, at = [], {0.5: [], 0.75: []}
    for values, ranks, timed_out in play(n_games, seed, strategy):
        assert np.isfinite(values).all()
        if timed_out or (ranks == 1).all():
            continue
        w = int(np.argmin(ranks))
        ends.append(bool(values[-1, w] > values[-1, 1 - w]))
        for f in at:
            v = values[int(f * (len(values) - 1))]
            at[f].append(bool(v[w] > v[1 - w]))
    return np.mean(ends), {f: np.mean(x) for f, x in at.items()}, len(ends)


def test_random_games_finite_and_the_winner_ends_ahead():
    end, at, n = figures(200)
    assert n >= 180
    assert end == 1.0                 # the crowns, as finish ranks
    assert at[0.75] >= 0.70           # measured 0.80 (200 games)


if __name__ == "__main__":
    import argparse

    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--strategy", default="random")
    a = ap.parse_args()
    end, at, n = figures(a.games, a.seed, a.strategy)
    print(f"{a.strategy}: {n} finished games with one winner: the winner holds the most at "
          f"the end in {end:.1%}, after 50% of the turns in {at[0.5]:.1%}, after 75% in "
          f"{at[0.75]:.1%}")
