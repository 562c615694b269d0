"""What each seat sees: on many mid-game states of random games, changing what a seat has
not seen (the order of the rabbit deck, the House stack and the Forest pool, the secret
mission cards of the others that it never held, the secret setup choices the others have
made) leaves its observation alone; and what it was shown stays in it as long as the table
shows it (its own missions and choices, the House cards it draws while it chooses, face-up
missions, every rabbit, die and token)."""

import numpy as np
import pytest

from simkit.game import HIDDEN
from simkit.games.dolina_krolikow import rules as R
from simkit.games.dolina_krolikow import state as S
from simkit.games.dolina_krolikow.transcript import check_state
from simkit.registry import get_game
from simkit.rng import seed_streams
from simkit.runner import RunSpec, plan

GAME = get_game("dolina-krolikow")
SETUP = (S.PH_SETUP_FOREST, S.PH_SETUP_HOUSE, S.PH_REDEAL)


def held_cards(st, seat):
    """The House and Forest cards ``seat`` holds or is shown now."""
    houses = [int(x) for x in st[S.HOUSE_HAND + 4 * seat:S.HOUSE_HAND + 4 * seat + 4]]
    houses += [int(x) for x in st[S.HOUSE_CARD + seat * S.MAXH:S.HOUSE_CARD + (seat + 1)
                                  * S.MAXH]]
    if st[S.PHASE] == S.PH_KEEP and st[S.ACTOR] == seat:
        houses += [int(x) for x in st[S.DRAWN:S.DRAWN + 2]]
    forests = [int(x) for x in st[S.FOREST_HAND + 2 * seat:S.FOREST_HAND + 2 * seat + 2]]
    forests.append(int(st[S.FOREST_KEPT + seat]))
    return {h for h in houses if h >= 0}, {f for f in forests if f >= 0}


def random_states(n, games, seed, face_up):
    """Mid-game states of random games: yields (params, state, seen), ``seen[s]`` the
    House and Forest cards seat s has ever held or been shown."""
    over = {"missions.face_up": True} if face_up else {}
    p = plan(RunSpec.make("dolina-krolikow", n, 1, overrides=over))
    rng = np.random.default_rng(seed)
    moves = np.empty(p.max_moves, np.int32)
    items = np.zeros((n, len(GAME.item_columns)), np.int32)
    for g in range(games):
        streams = np.empty(1 + n, np.uint64)
        seed_streams(np.uint64(seed * 1000 + g), n, streams)
        chance = streams[0:1]
        st = np.empty(p.state_size, np.int32)
        R.new_game(p.compiled, n, st, chance)
        seen = [(set(), set()) for _ in range(n)]
        stops = set(rng.integers(0, 30 * n, 10).tolist())  # and every secret choice
        k = 0
        while True:
            for s in range(n):
                h, f = held_cards(st, s)
                seen[s][0].update(h)
                seen[s][1].update(f)
            secret = st[S.PHASE] in SETUP or st[S.PHASE] == S.PH_KEEP
            if k in stops or secret or R.is_over(st):
                yield p.compiled, st.copy(), seen
            if R.is_over(st):
                break
            m = R.legal_moves(p.compiled, st, moves)
            R.apply_move(p.compiled, st, moves[rng.integers(m)], chance, items)
            k += 1


def hidden_slots(params, st, seat):
    """Where ``seat`` cannot see which card lies: (House slots, Forest slots), as indices."""
    face_up = params[0][R.C_FACE_UP] != 0 and st[S.PHASE] not in SETUP
    houses = list(range(S.HSTACK, S.HSTACK + int(st[S.HSTACK_N])))
    forests = list(range(S.FPOOL, S.FPOOL + int(st[S.FPOOL_N])))
    for s in range(int(st[S.N_PLAYERS])):
        if s == seat:
            continue
        houses += [S.HOUSE_HAND + 4 * s + k for k in range(4)]
        forests += [S.FOREST_HAND + 2 * s + k for k in range(2)]
        if not face_up:
            houses += [S.HOUSE_CARD + s * S.MAXH + h for h in range(S.MAXH)]
            forests.append(S.FOREST_KEPT + s)
    if st[S.PHASE] == S.PH_KEEP and st[S.ACTOR] != seat:
        houses += [S.DRAWN, S.DRAWN + 1]
    return ([i for i in houses if st[i] >= 0], [i for i in forests if st[i] >= 0])


def unseen_changed(params, st, seat, seen, rng):
    """A copy of ``st`` with the rabbit deck shuffled, the mission cards ``seat`` never
    held dealt anew among the places it cannot see, and the others' secret setup choices
    made anew; the others forget what they saw go back into a stack (that memory is theirs
    alone, and the new deal may not fit it)."""
    out = st.copy()
    for s in range(int(st[S.N_PLAYERS])):
        if s != seat:
            out[S.HOUSE_BACK + s * S.MAXHC:S.HOUSE_BACK + (s + 1) * S.MAXHC] = 0
            out[S.FOREST_BACK + s * S.MAXF:S.FOREST_BACK + (s + 1) * S.MAXF] = 0
    dn = int(out[S.DECK_N])
    rng.shuffle(out[S.DECK:S.DECK + dn])
    for slots, known in zip(hidden_slots(params, out, seat), seen[seat], strict=True):
        free = [i for i in slots if int(out[i]) not in known]
        cards = out[free].copy()
        rng.shuffle(cards)
        out[free] = cards
    for s in range(int(st[S.N_PLAYERS])):
        if s != seat:
            choose_anew(params, out, s, rng)
    return out


def choose_anew(params, st, s, rng):
    """Seat s's secret setup choices, where made, drawn anew among those its cards allow."""
    if st[S.CHOSEN_FOREST + s] >= 0:
        forest = list(range(int(params[0][R.C_FOREST_DEALT])))
        forest += [S.CHOSE_REDEAL] if R.may_redeal(params, st, s) else []
        st[S.CHOSEN_FOREST + s] = rng.choice(forest)
    if st[S.CHOSEN_HOUSE + s] >= 0:
        house = [k for k in range(4) if st[S.HOUSE_HAND + 4 * s + k] >= 0]
        st[S.CHOSEN_HOUSE + s] = rng.choice(house + [S.CHOSE_KEEP_ALL])


@pytest.mark.parametrize("n", [2, 3, 4])
@pytest.mark.parametrize("face_up", [False, True])
def test_what_a_seat_has_not_seen_does_not_change_its_observation(n, face_up):
    rng = np.random.default_rng(n)
    changed = 0
    for params, st, seen in random_states(n, 20, n, face_up):
        for seat in range(n):
            other = unseen_changed(params, st, seat, seen, rng)
            assert check_state(params, n, other) == []
            a = np.empty_like(st)
            b = np.empty_like(st)
            R.observe(params, st, seat, a)
            R.observe(params, other, seat, b)
            diff = np.nonzero(a != b)[0]
            assert len(diff) == 0, (int(st[S.PHASE]), seat, diff[:10].tolist())
            changed += not np.array_equal(st, other)
    assert changed > 100  # the changes were real


@pytest.mark.parametrize("n", [2, 3, 4])
@pytest.mark.parametrize("face_up", [False, True])
def test_what_a_seat_was_shown_stays_in_its_observation(n, face_up):
    h = S.MAXP * S.MAXH
    public = [(S.DIE_FACE, S.MAXD), (S.DIE_USE, S.MAXD), (S.POS_CARD, S.MAXPOS),
              (S.POS_OWNER, S.MAXPOS), (S.POS_D1, S.MAXPOS), (S.POS_D2, S.MAXPOS),
              (S.POS_TOK, 3 * S.MAXPOS), (S.GARDEN, 3), (S.TOKENS, 3 * S.MAXP),
              (S.CARD_LOC, S.MAXC), (S.HOUSE_N, h), (S.HOUSE_LARGE, h), (S.HOUSE_C1, h),
              (S.HOUSE_C2, h), (S.HOUSE_COLS, 3 * h), (S.HOUSE_COUNT, S.MAXP),
              (S.REDEAL, S.MAXP), (S.WAND, 2 * S.MAXP), (S.PEND_SEAT, S.MAXPEND),
              (S.PEND_CARD, S.MAXPEND), (S.HOUSE_AT, h), (S.FOREST_AT, S.MAXP)]
    obs = np.empty(S.STATE_SIZE, np.int32)
    shown = chosen = 0
    for params, st, _ in random_states(n, 12, 50 + n, face_up):
        revealed = face_up and st[S.PHASE] not in SETUP
        for seat in range(n):
            R.observe(params, st, seat, obs)
            assert (obs[:S.HEADER] == st[:S.HEADER]).all()
            for start, size in public:  # every rabbit, die, token and House's Family
                assert (obs[start:start + size] == st[start:start + size]).all(), start
            for s in range(n):
                kept = slice(S.HOUSE_CARD + s * S.MAXH, S.HOUSE_CARD + (s + 1) * S.MAXH)
                if s == seat or revealed:  # your own missions; everyone's when face up
                    assert (obs[kept] == st[kept]).all()
                    assert obs[S.FOREST_KEPT + s] == st[S.FOREST_KEPT + s]
                    shown += s != seat
                else:
                    assert ((obs[kept] == HIDDEN) | (st[kept] < 0)).all()
                    assert obs[S.FOREST_KEPT + s] in (HIDDEN, -1)
            for s in range(n):  # the secret setup choices: the seat's own, not the others'
                for i in (S.CHOSEN_FOREST + s, S.CHOSEN_HOUSE + s):
                    assert obs[i] == st[i] if s == seat or st[i] < 0 else obs[i] == HIDDEN
                    chosen += st[i] >= 0 and s != seat
            drawer = st[S.PHASE] == S.PH_KEEP and st[S.ACTOR] == seat
            if drawer:  # the House cards offered, while the seat chooses
                assert (obs[S.DRAWN:S.DRAWN + 2] == st[S.DRAWN:S.DRAWN + 2]).all()
    assert shown > 0 or not face_up
    assert chosen > 0
