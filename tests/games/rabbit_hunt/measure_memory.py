"""How often the memory forgets (NOTES.md: What a seat remembers), measured in seeded games
played with the kernels, under random play and under the heuristic:

    python tests/games/rabbit_hunt/measure_memory.py --games 1000

Prints per player count and strategy: the games, how often a card put under the pile was
drawn by a third player (a group loses track of it), how many eliminations dumped a
non-empty hand into the pile, how many games filled all the rows for groups cut off from
hands (two are then merged), and the most rows one seat used at once."""

import argparse

import numpy as np
from simkit.strategies.rabbit_hunt import WEIGHTS, choose_rabbit_hunt

from simkit import registry
from simkit.games.rabbit_hunt import memory as M
from simkit.games.rabbit_hunt import state as S
from simkit.rng import game_seeds, seed_streams
from simkit.runner import RunSpec, plan

SPEC = registry.get_game("rabbit-hunt")
R = SPEC.rules
HEURISTIC = np.array(list(WEIGHTS.values()), np.float64)


def cut_off_rows(st, v):
    return sum(st[M.group_at(v, g) + S.G_OWNER] >= 0 for g in range(S.MAX_SEATS, S.N_GROUPS))


def third_party_draws(before, st, n):
    """Cards under the pile that this move's draws took into a hand the seat cannot follow
    them into (not its own, nor the hand of the group's owner)."""
    drawer, out = before[S.TO_MOVE], 0
    for i in range(st[S.PILE_LEN], before[S.PILE_LEN]):
        for v in range(n):
            tag = M.tag_of(int(before[S.PILE_TAGS + i]), v)
            if v != drawer and 0 < tag < S.KNOWN_TAG:
                owner = before[M.group_at(v, tag - 1) + S.G_OWNER]
                out += owner != drawer
    return out


def measure(n, games, heuristic):
    p = plan(RunSpec.make("rabbit-hunt", n, 1))
    params = p.compiled
    st = np.empty(p.state_size, np.int32)
    obs = np.empty_like(st)
    moves = np.empty(p.max_moves, np.int32)
    rng = np.random.default_rng(n)
    out = {"games": games, "third-party draws": 0, "eliminations dumping a hand": 0,
           "games filling the rows": 0, "most rows": 0}
    for seed in game_seeds(11, 0, games):
        streams = np.empty(1 + n, np.uint64)
        seed_streams(np.uint64(seed), n, streams)
        chance = streams[0:1]
        items = np.zeros((n, len(SPEC.item_columns)), np.int32)
        R.new_game(params, n, st, chance)
        full = False
        while not R.is_over(st):
            k = R.legal_moves(params, st, moves)
            seat = R.to_move(st)
            if heuristic and k > 1:
                R.observe(params, st, seat, obs)
                j = choose_rabbit_hunt(params, obs, seat, moves, k, HEURISTIC,
                                       streams[1 + seat:2 + seat])
            else:
                j = int(rng.integers(k))
            before = st.copy()
            R.apply_move(params, st, moves[j], chance, items)
            out_before = [before[S.ELIMINATED + o] for o in range(n)]
            if all(st[S.ELIMINATED + o] == out_before[o] for o in range(n)):
                out["third-party draws"] += third_party_draws(before, st, n)
            for o in range(n):
                if st[S.ELIMINATED + o] and not out_before[o] and before[S.IN_HAND + o]:
                    out["eliminations dumping a hand"] += 1
            rows = max(cut_off_rows(st, v) for v in range(n))
            out["most rows"] = max(out["most rows"], rows)
            full |= rows == S.N_SPLIT
        out["games filling the rows"] += full
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=300)
    args = ap.parse_args()
    for n in (2, 3, 4):
        for heuristic in (False, True):
            res = measure(n, args.games, heuristic)
            print(f"{n} players, {'heuristic' if heuristic else 'random'}: "
                  + ", ".join(f"{k} {v}" for k, v in res.items()))


if __name__ == "__main__":
    main()
