"""Watership Down's kernels. The state layout and move encoding are in ``state.py``.

A turn: the side to play makes a move (P_MOVE). A move into an opponent's space starts a
battle, which runs as automatic steps (STEP) that stop whenever a decision is needed
(PHASE, DECIDER): the elil's choice of the ensnared target, the hlessil's pre-card
options, the Cat's choice, the two secret cards, Blackberry's replay, retreat
destinations, Flaming Stick retreats, Efrafa escapes. ``run`` drives the steps.

params = (table int32[PARAMS_SIZE],): one flat table, laid out in ``state.py``. Kernels
index it directly; a tuple of many arrays would be copied into every call.
"""

from simkit.game import HIDDEN
from simkit.jit import copy_into, inline, kernel
from simkit.rng import rand_below, shuffle

from . import state as _state
from .state import (
    ATT,
    ATTACKING,
    BB_ONTO_SNARE,
    BIGWIG,
    BLACKAVAR,
    BLACKBERRY,
    BSPACE,
    CAMPION,
    CARD_E,
    CARD_H,
    CARDS_OPEN,
    CAT,
    CATCHES,
    CAUGHT,
    CHAR_KEYS,
    CLOVER,
    CNT,
    D_BACK,
    D_FWD,
    D_SIDE,
    DAND,
    DANDELION,
    DECIDER,
    DEF,
    DEFEATED,
    DOG,
    DOWN_SEEN,
    E_DOES,
    E_ELEVEN,
    E_IMPOSSIBLE,  # noqa: F401
    E_NO_MOVE,
    E_WARREN,
    ELIL,
    ELIL_FIRST,
    END,
    ENSNARED,
    FIRST_JOINER,
    FIVER,
    FLAME_USED,
    FOX,
    GIFT,
    HAND,
    HAWKBIT,
    HAZEL,
    HAZEL_ON,
    HLESSIL,
    HOLLY,
    HOLLY_LOOK,
    HYZENTHLAY,
    IN_PLAY,
    JOIN_AT,
    K_FLAME,
    K_KEHAAR,
    K_NUM,
    K_RET_BACK,
    K_RET_FWD,
    K_RET_SIDE,
    K_TRACKER,
    KESTREL,
    KNOWN,
    LOC,
    LOCK,
    LOST,
    M_CARD,
    M_CHAR,
    M_GIFT,
    M_NO,
    M_NOCARD,
    M_PASS,
    M_SPACE,
    M_YES,
    MAX_MOVES,
    MOVER,
    N_CARDS,
    N_CHARS,
    N_JOINERS,
    N_RABBITS,
    N_SPACES,
    NOCARDS,
    O_CARDS,
    O_CH,
    O_JOIN,
    O_LEVELS,
    O_NB,
    O_NBM,
    O_SETUP,
    O_SP,
    OPT_USED,
    ORIGIN,
    P_CARD,
    P_DAND,
    P_ESCAPE,
    P_FLAME,
    P_GROUP,
    P_HOLLY,
    P_MOVE,
    P_OVER,
    P_QUESTION,
    P_RETREAT,
    P_SETUP,
    PENDING,
    PHASE,
    PIPKIN,
    PIPKIN_ON,
    POST,
    PRE,
    Q_BLACKAVAR,
    Q_BLACKBERRY,
    Q_CAT,
    Q_EL_E,
    Q_EL_H,
    Q_HYZ,
    Q_PIPKIN,
    Q_TARGET,
    QUESTION,
    RATS,
    RESUME,
    RET_CHAR,
    RET_DIRS,
    ROUND,
    S_ARRIVED,
    S_BATTLE_END,
    S_BLACKBERRY,
    S_CARDS,
    S_CAT,
    S_ENDTURN,
    S_FIGHT,
    S_POSTMOVE,
    S_PRE,
    S_RESOLVE,
    S_SELECT,
    S_WAIT,
    SEEN_AT,
    SETUP,
    SIDE,
    SILVER,
    SNARE,
    SNARE_FREED,
    STAT,
    STATE_SIZE,
    STEP,
    STRAWBERRY,
    TURN,
    VERVAIN,
    WINNER,
    WOUNDWORT,
)

END_REASONS = list(_state.END_REASONS)

# params[0] (G) indices
(G_EFRAFA, G_SANDLEFORD, G_DOWN_A, G_DOWN_B, G_DOWN_BONUS, G_STRAW_DOWN, G_DOG_WOOD,
 G_FOX_WOOD, G_PIPKIN, G_FIVER_HAZEL, G_SNARE_GROUP, G_WOOD_CAP, G_WARREN, G_ELIL_WIN,
 G_HOME_COUNT, G_REFILL, G_WIN_ANY, G_WOOD_BITS, G_OPTIONAL, G_GIFT_BONUS,
 G_BB_SNARE_ANY, G_MIDDLE_ROW, G_MAX_TURNS) = range(23)
JOIN_ENTER, JOIN_ESCAPE, JOIN_DEFEAT, JOIN_DEFEAT_ATTACKING = 0, 1, 2, 3

# ---- items: "item:event" columns, and their indices -------------------------------------
H_CARDS = ["1", "2", "3", "4", "5", "retreat_backward", "retreat_sideways",
           "retreat_forward", "kehaar"]
E_CARDS = ["1", "2", "3", "4", "5", "6", "retreat_backwards", "tracker", "flaming_stick"]
"""The battle cards' names in data.toml (a run's own are its data's: item_columns)."""
_ABILITIES = ["hazel_group", "fiver_elil_first", "fiver_hazel", "bigwig_first",
              "blackberry_replay", "blackberry_snare", "dandelion_double", "pipkin_reveal",
              "silver_rats", "holly_look", "hyzenthlay_retreat", "blackavar_retreat",
              "vervain_first", "cat_no_cards", "kestrel_far", "woundwort_any_direction",
              "kehaar_return", "tracker_cancel", "flaming_stick", "snare_ensnare",
              "snare_defeated_group", "snare_defeated_efrafa", "efrafa_escape",
              "campion_no_retreat", "down_cross_attack", "el_ahrairah", "gift_to_the_thousand"]


def item_columns(h_cards, e_cards) -> list[str]:
    """The item columns, each side's battle cards (in hand order) under these names."""
    return ([f"card_hlessil_{c}:{e}" for c in h_cards for e in ("played", "won", "lost")]
            + [f"card_elil_{c}:{e}" for c in e_cards for e in ("played", "won", "lost")]
            + [f"{k}:{e}" for k in CHAR_KEYS for e in ("entered", "defeated")]
            + [f"{k}:reached_down" for k in CHAR_KEYS]
            + [f"{k}:{e}" for k in CHAR_KEYS[FIRST_JOINER:N_RABBITS]
               for e in ("joined", "lost")]
            + [f"{a}:used" for a in _ABILITIES])


ITEM_COLUMNS = item_columns(H_CARDS, E_CARDS)
I_CARDS = 0                        # + (side_block * 9 + card) * 3 + event; hlessil block 0
I_CHARS = 54                       # + char * 2 + (0 entered, 1 defeated)
I_DOWN = I_CHARS + 2 * N_CHARS     # + character
I_JOIN = I_DOWN + N_CHARS          # + joiner * 2 + (0 joined, 1 lost)
I_AB = I_JOIN + 2 * N_JOINERS
(A_HAZEL_GROUP, A_FIVER_FIRST, A_FIVER_HAZEL, A_BIGWIG, A_BB_REPLAY, A_BB_SNARE, A_DAND,
 A_PIPKIN, A_SILVER, A_HOLLY, A_HYZ, A_BLACKAVAR, A_VERVAIN, A_CAT, A_KESTREL, A_WOUNDWORT,
 A_KEHAAR, A_TRACKER, A_FLAME, A_ENSNARE, A_SNARE_GROUP, A_SNARE_EFRAFA, A_ESCAPE,
 A_CAMPION, A_DOWN_CROSS, A_EL_AHRAIRAH, A_GIFT) = range(I_AB, I_AB + len(_ABILITIES))
EV_PLAYED, EV_WON, EV_LOST = 0, 1, 2
assert I_AB + len(_ABILITIES) == len(ITEM_COLUMNS)


# ---- small facts -------------------------------------------------------------------------

@inline
def side_of(c):
    return HLESSIL if c < N_RABBITS else ELIL


@inline
def alive_at(state, c, s):
    return state[STAT + c] == IN_PLAY and state[LOC + c] == s


@inline
def snare_busy(state):
    """The Snare holds a rabbit: it cannot move and does not battle."""
    return state[ENSNARED] >= 0


@inline
def n_at(state, side, s):
    """``side``'s characters on ``s`` (CNT is kept up to date by every move and defeat)."""
    return state[CNT + side * N_SPACES + s]


@inline
def count(state, c, delta):
    s = state[LOC + c]
    if s >= 0 and state[STAT + c] == IN_PLAY:
        state[CNT + side_of(c) * N_SPACES + s] += delta


@inline
def n_fighting_elil(state, s):
    """Elil on ``s`` that a rabbit entering must battle (a busy Snare does not battle)."""
    n = n_at(state, ELIL, s)
    if snare_busy(state) and alive_at(state, SNARE, s):
        n -= 1
    return n


@inline
def is_attack(state, side, s):
    if side == HLESSIL:
        return n_fighting_elil(state, s) > 0
    return n_at(state, HLESSIL, s) > 0


@inline
def wood_full(params, state, side, s, extra):
    """Would ``extra`` more of ``side``'s characters break the wood cap on ``s``?"""
    return params[0][O_SP + s * 3 + 1] == 1 and n_at(state, side, s) + extra > params[0][G_WOOD_CAP]


@inline
def is_down(table, s):
    """Is ``s`` one of Watership Down's two spaces? (``table`` is params[0])"""
    return s >= 0 and table[O_SP + s * 3 + 2] == 1


@inline
def other_down(g, s):
    return g[G_DOWN_B] if s == g[G_DOWN_A] else g[G_DOWN_A]


@inline
def paralysed(state, c):
    return c == state[ENSNARED] or (c == SNARE and snare_busy(state))


@inline
def item(items, c, col):
    items[side_of(c), col] += 1


# ---- strength --------------------------------------------------------------------------

@inline
def rabbit_strength(params, state, r, s):
    g = params[0]
    st = params[0][O_CH + r * 4]
    if r == STRAWBERRY and is_down(params[0], s):
        st = g[G_STRAW_DOWN]
    if r == FIVER and state[HAZEL_ON] == 1:
        st = g[G_FIVER_HAZEL]
    if is_down(params[0], s):
        st += g[G_DOWN_BONUS]
    if state[PIPKIN_ON] == 1 and r != PIPKIN and alive_at(state, PIPKIN, s):
        st += g[G_PIPKIN]
    return st


@inline
def elil_strength(params, state, e, s):
    st = params[0][O_CH + e * 4]
    if params[0][O_SP + s * 3 + 1] == 1:
        if e == DOG:
            st = params[0][G_DOG_WOOD]
        elif e == FOX:
            st = params[0][G_FOX_WOOD]
    return st


# ---- placing characters --------------------------------------------------------------

@inline
def note_arrival(params, state, r, s, items):
    """A rabbit arrives on ``s``: the entering-a-space join triggers."""
    table = params[0]
    for j in range(N_JOINERS):
        if table[O_JOIN + j * 3] == JOIN_ENTER and (table[O_JOIN + j * 3 + 1] >> s) & 1 == 1:
            trigger(params, state, j, s)


@inline
def trigger(params, state, j, s):
    if state[STAT + FIRST_JOINER + j] == PENDING and state[JOIN_AT + j] < 0:
        appear = params[0][O_JOIN + j * 3 + 2]
        state[JOIN_AT + j] = s if appear < 0 else appear


@inline
def unlock_at(state, s):
    for e in range(N_RABBITS, N_CHARS):
        if state[LOC + e] == s:
            state[LOCK + e] = 0


@inline
def place(params, state, c, s, items):
    """Move ``c`` to ``s`` (no battle): Holly's lock lifts when an elil leaves or enters."""
    old = state[LOC + c]
    follow_seen(state, c, old, s)
    count(state, c, -1)
    state[LOC + c] = s
    count(state, c, 1)
    if is_down(params[0], s) and (state[DOWN_SEEN] >> c) & 1 == 0:
        state[DOWN_SEEN] |= 1 << c
        items[side_of(c), I_DOWN + c] += 1
    if c >= N_RABBITS:
        unlock_at(state, old)
        unlock_at(state, s)
    else:
        note_arrival(params, state, c, s, items)
        if c == BLACKBERRY and state[ENSNARED] >= 0 and state[LOC + SNARE] == s:
            state[BB_ONTO_SNARE] = 1


@inline
def follow_seen(state, c, old, s):
    """Keep SEEN_AT, what the opponent knows of where characters stand, as ``c`` moves from
    ``old`` to ``s``. A known token, or an attacker (revealed before anyone decides), is
    seen to go: it needs no SEEN_AT. An unknown token that was the only unknown one of its
    side on ``old`` is seen to go too, and followed. Otherwise the opponent cannot tell
    which of the unknown tokens on ``old`` left, and loses the space of every one of them.
    Inlined: every move calls it."""
    if state[KNOWN + c] == 1 or c == state[ATT] or old < 0:
        state[SEEN_AT + c] = -1           # its place is seen, or it enters the board
        return
    lo = 0 if c < N_RABBITS else N_RABBITS
    hi = N_RABBITS if c < N_RABBITS else N_CHARS
    n = 0
    for x in range(lo, hi):
        n += state[STAT + x] == IN_PLAY and state[LOC + x] == old and state[KNOWN + x] == 0
    if n == 1:
        if state[SEEN_AT + c] >= 0:
            state[SEEN_AT + c] = s
        return
    for x in range(lo, hi):
        if state[LOC + x] == old and state[KNOWN + x] == 0:
            state[SEEN_AT + x] = -1


@inline
def defeat(params, state, c, items):
    state[SEEN_AT + c] = -1
    count(state, c, -1)
    state[STAT + c] = DEFEATED
    state[LOC + c] = -1
    state[KNOWN + c] = 1
    state[LOCK + c] = 0
    items[side_of(c), I_CHARS + 2 * c + 1] += 1
    if c == state[ENSNARED]:
        state[ENSNARED] = -1
        state[SNARE_FREED] = 1
    if c == SNARE and state[ENSNARED] >= 0:
        state[ENSNARED] = -1      # face down again; mixed with the others at the turn's end


@inline
def defeat_by_rabbit(params, state, e, s, items):
    """The rabbits defeat ``e`` on ``s``: the defeat join triggers (``defeat_elil`` in any
    battle, ``defeat_elil_attacking`` only on the hlessil's own turn)."""
    defeat(params, state, e, items)
    for j in range(N_JOINERS):
        kind = params[0][O_JOIN + j * 3]
        if kind == JOIN_DEFEAT or (kind == JOIN_DEFEAT_ATTACKING and state[SIDE] == HLESSIL):
            trigger(params, state, j, s)


# ---- where a character may go ----------------------------------------------------------

@inline
def attack_mask(params, state, side):
    """Spaces where a move by ``side`` would be an attack, as a bitmask (a busy Snare
    does not battle)."""
    m = 0
    opp = CNT + (1 - side) * N_SPACES
    for t in range(N_SPACES):
        if state[opp + t] > 0:
            m |= 1 << t
    if side == HLESSIL and state[ENSNARED] >= 0:
        s = state[LOC + SNARE]
        if state[opp + s] == 1:
            m &= ~(1 << s)
    return m


@inline
def full_mask(params, state, side):
    """Wooded spaces already holding the cap of ``side``'s characters."""
    m = 0
    wood = params[0][G_WOOD_BITS]
    for t in range(N_SPACES):
        if (wood >> t) & 1 == 1 and n_at(state, side, t) >= params[0][G_WOOD_CAP]:
            m |= 1 << t
    return m


@inline
def dest_mask(params, state, c):
    """Bitmask of the spaces ``c`` may move to this turn (moves and attacks)."""
    side = side_of(c)
    return dest_mask_fast(params, state, c, attack_mask(params, state, side),
                          full_mask(params, state, side))


@inline
def dest_mask_fast(params, state, c, attacks, full):
    """``dest_mask`` given the side's attack and full-wood masks (one table per call).
    Written flat: small helpers taking ``params`` cost a call each in the hot loop."""
    if state[STAT + c] != IN_PLAY or c == state[ENSNARED]:
        return 0
    if c == SNARE and state[ENSNARED] >= 0:
        return 0
    side = HLESSIL if c < N_RABBITS else ELIL
    s = state[LOC + c]
    nbm = O_NBM + side * 48 + s
    cand = params[0][nbm + D_FWD * 16]
    if c == WOUNDWORT:
        cand |= (params[0][nbm + D_BACK * 16] | params[0][nbm + D_SIDE * 16]) & attacks
    elif c == KESTREL:
        cand |= attacks & ~(1 << s)
    if params[0][O_SP + s * 3 + 2] == 1:
        g = params[0]
        cand |= attacks & ((1 << g[G_DOWN_A]) | (1 << g[G_DOWN_B])) & ~(1 << s)
    cand &= ~full
    if c == HAWKBIT:
        cand &= ~attacks
    return cand


@inline
def has_move(params, state, side):
    lo = 0 if side == HLESSIL else N_RABBITS
    hi = N_RABBITS if side == HLESSIL else N_CHARS
    attacks = attack_mask(params, state, side)
    full = full_mask(params, state, side)
    for c in range(lo, hi):
        if dest_mask_fast(params, state, c, attacks, full) != 0:
            return True
    return False


@inline
def retreat_ok(params, state, c, t):
    side = side_of(c)
    return n_at(state, 1 - side, t) == 0 and not wood_full(params, state, side, t, 1)


@inline
def retreat_mask(params, state, c, dirs, used):
    """Spaces ``c`` may retreat to in the directions of bitmask ``dirs`` (not ``used``)."""
    side = side_of(c)
    s = state[LOC + c]
    mask = 0
    for d in range(3):
        if (dirs >> d) & 1 == 1 and (used >> d) & 1 == 0:
            for k in range(2):
                t = params[0][O_NB + side * 96 + d * 32 + s * 2 + k]
                if t >= 0 and retreat_ok(params, state, c, t):
                    mask |= 1 << t
    return mask


@inline
def direction(params, side, a, b):
    for d in range(3):
        for k in range(2):
            if params[0][O_NB + side * 96 + d * 32 + a * 2 + k] == b:
                return d
    return -1


@inline
def escape_ok(params, state, t, group):
    return (t != params[0][G_EFRAFA] and n_at(state, ELIL, t) == 0
            and not wood_full(params, state, HLESSIL, t, group))


@inline
def popcount(m):
    n = 0
    while m != 0:
        n += m & 1
        m >>= 1
    return n


@inline
def nth_bit(m, k):
    for t in range(32):
        if (m >> t) & 1 == 1:
            if k == 0:
                return t
            k -= 1
    return -1


# ---- setup -----------------------------------------------------------------------------

@kernel
def state_size(params, n_players):
    return STATE_SIZE


@kernel
def max_moves(params, n_players):
    return MAX_MOVES


@kernel
def new_game(params, n_players, state, chance):
    state[:] = 0
    for k in (MOVER, ORIGIN, BSPACE, ATT, DEF, CARD_E, CARD_H, RET_CHAR, QUESTION, ENSNARED,
              WINNER, END, CAUGHT):
        state[k] = -1
    for j in range(N_JOINERS):
        state[JOIN_AT + j] = -1
    for c in range(N_CHARS):
        state[LOC + c] = -1
        state[SEEN_AT + c] = -1
    for k in range(9):
        state[HAND + k] = 1
        state[HAND + N_CARDS + k] = 1
    state[OPT_USED] = 0 if params[0][G_OPTIONAL] == 1 else 15
    state[GIFT] = -1
    state[SIDE] = ELIL
    ask(state, P_SETUP, ELIL, -1)


@inline
def ask(state, phase, decider, question):
    state[PHASE] = phase
    state[DECIDER] = decider
    state[QUESTION] = question
    state[STEP] = S_WAIT


@inline
def setup_place(params, state, c, items):
    side = side_of(c)
    k = state[SETUP] % 5
    state[LOC + c] = params[0][O_SETUP + side * 5 + k]
    state[STAT + c] = IN_PLAY
    count(state, c, 1)
    items[side, I_CHARS + 2 * c] += 1
    state[SETUP] += 1
    if state[SETUP] % 5 == 0:
        home = params[0][G_SANDLEFORD] if side == HLESSIL else params[0][G_EFRAFA]
        lo = 0 if side == HLESSIL else N_RABBITS
        for x in range(lo, lo + 9 + (5 if side == HLESSIL else 0)):
            if state[STAT + x] == PENDING and params[0][O_CH + x * 4 + 3] == 1:
                state[LOC + x] = home
                state[STAT + x] = IN_PLAY
                count(state, x, 1)
                items[side, I_CHARS + 2 * x] += 1
        if side == ELIL:
            ask(state, P_SETUP, HLESSIL, -1)
        else:
            state[SIDE] = ELIL
            ask(state, P_MOVE, ELIL, -1)


# ---- the protocol ----------------------------------------------------------------------

@kernel
def to_move(state):
    return state[DECIDER]


@kernel
def is_over(state):
    return state[WINNER] >= 0


@kernel
def turn_number(state):
    return state[TURN]


@kernel
def finish(params, state, scores, ranks):
    w = state[WINNER]
    for s in range(2):
        scores[s] = 1.0 if s == w else 0.0
        ranks[s] = 1 if s == w else 2
    if w < 0:
        ranks[:] = 0
        return 0
    return state[END]


@kernel
def observe(params, state, seat, obs):
    copy_into(obs, state)
    opp = 1 - seat
    lo = 0 if opp == HLESSIL else N_RABBITS
    hi = N_RABBITS if opp == HLESSIL else N_CHARS
    for c in range(lo, hi):
        if state[KNOWN + c] == 0 and state[STAT + c] == IN_PLAY:
            obs[LOC + c] = HIDDEN
    m = state[MOVER]
    if m >= 0 and side_of(m) == opp and state[KNOWN + m] == 0:
        obs[MOVER] = HIDDEN
    obs[DOWN_SEEN] = HIDDEN           # who reached the Down (for the items only)
    if seat == ELIL:                  # whether Holly moved
        obs[HOLLY_LOOK] = HIDDEN
    own_card = CARD_H if seat == HLESSIL else CARD_E
    opp_card = CARD_E if seat == HLESSIL else CARD_H
    if state[opp_card] >= 0 and state[CARDS_OPEN] == 0:
        if not (seat == HLESSIL and state[ELIL_FIRST] == 1):
            obs[opp_card] = HIDDEN
    obs[own_card] = state[own_card]


# ---- determinisation (for the search strategies) ---------------------------------------

@kernel
def determinize(params, obs, seat, state, stream, scratch):
    """Fill ``state`` with a full state drawn uniformly from those ``seat`` cannot tell
    from ``obs``: the opponent's unseen characters are dealt to its unseen tokens, the
    face-down card is drawn from the hand it lies in, and the unseen mover, whether Holly
    moved and who has reached the Down are filled in to match (NOTES.md, Determinisation).
    ``scratch`` (int32[STATE_SIZE]) holds the free tokens per space, the characters to
    deal and the tokens they go to."""
    table = params[0]
    copy_into(state, obs)
    opp = 1 - seat
    deal_characters(state, opp, seat, stream, scratch)
    if obs[MOVER] == HIDDEN:
        state[MOVER] = unseen_mover(table, state, opp, stream)
    if obs[HOLLY_LOOK] == HIDDEN:
        # set when Holly moves, cleared once his move is resolved (P_HOLLY or the turn's end)
        looks = state[MOVER] == HOLLY and state[PHASE] != P_HOLLY and state[WINNER] < 0
        state[HOLLY_LOOK] = 1 if looks else 0
    if obs[DOWN_SEEN] == HIDDEN:
        state[DOWN_SEEN] = reached_down(table, state, stream)
    opp_card = CARD_E if opp == ELIL else CARD_H
    if obs[opp_card] == HIDDEN:
        state[opp_card] = face_down_card(state, opp, stream)


@inline
def deal_characters(state, opp, seat, stream, scratch):
    """Deal ``opp``'s characters whose place is hidden to its tokens no seen character
    accounts for (CNT is public), uniformly, but for those the observation pins to a space
    (``forced_space``: a mixed character's SEEN_AT, the attacker before the reveal,
    Blackberry just joined to the busy Snare)."""
    lo = 0 if opp == HLESSIL else N_RABBITS
    hi = N_RABBITS if opp == HLESSIL else N_CHARS
    free = 0                              # scratch[0:16] free tokens per space
    chars = N_SPACES                      # scratch[16:39] characters to deal
    tokens = N_SPACES + N_CHARS           # scratch[39:62] their tokens' spaces
    for s in range(N_SPACES):
        scratch[free + s] = state[CNT + opp * N_SPACES + s]
    for c in range(lo, hi):
        if state[STAT + c] == IN_PLAY and state[LOC + c] != HIDDEN:
            scratch[free + state[LOC + c]] -= 1
    n = 0
    for c in range(lo, hi):
        if state[STAT + c] == IN_PLAY and state[LOC + c] == HIDDEN:
            s = forced_space(state, seat, c)
            if s >= 0:
                state[LOC + c] = s
                scratch[free + s] -= 1
            else:
                scratch[chars + n] = c
                n += 1
    k = 0
    for s in range(N_SPACES):
        for _ in range(scratch[free + s]):
            scratch[tokens + k] = s
            k += 1
    shuffle(stream, scratch[tokens:tokens + k], k)
    for i in range(n):
        state[LOC + scratch[chars + i]] = scratch[tokens + i]


@inline
def forced_space(state, seat, c):
    """Where ``c``, hidden from ``seat``, must stand by what ``seat`` sees, or -1."""
    if state[SEEN_AT + c] >= 0:
        return state[SEEN_AT + c]         # its token was mixed where it stood
    if c == state[ATT]:
        return state[BSPACE]              # named as attacker before the battle reveals it
    if c == BLACKBERRY and state[BB_ONTO_SNARE] == 1:
        return state[LOC + SNARE]         # the Snare falls to him when his move ends
    return -1


@inline
def unseen_mover(table, state, opp, stream):
    """The mover, one of ``opp``'s unknown characters: the attacker, the character the
    phase names (Dandelion's second move, Hazel's group, Holly's look), one of those in
    Efrafa when they are to escape, or any (a state no seat decides in)."""
    if state[ATTACKING] == 1 and state[ATT] >= 0:
        return state[ATT]
    ph = state[PHASE]
    if ph == P_DAND:
        return DANDELION
    if ph == P_GROUP:
        return HAZEL
    if ph == P_HOLLY:
        return HOLLY
    lo = 0 if opp == HLESSIL else N_RABBITS
    hi = N_RABBITS if opp == HLESSIL else N_CHARS
    at = table[G_EFRAFA] if ph == P_ESCAPE else -1
    n = 0
    for c in range(lo, hi):
        n += unknown_on(state, c, at)
    if n == 0:                            # never seen in play: any unknown character
        at = -1
        for c in range(lo, hi):
            n += unknown_on(state, c, at)
    k = rand_below(stream, n)
    for c in range(lo, hi):
        if unknown_on(state, c, at):
            if k == 0:
                return c
            k -= 1
    return -1


@inline
def unknown_on(state, c, at):
    """``c`` is in play, its token unknown, and on space ``at`` (-1: anywhere)."""
    return (state[STAT + c] == IN_PLAY and state[KNOWN + c] == 0
            and (at < 0 or state[LOC + c] == at))


@inline
def reached_down(table, state, stream):
    """Who has reached the Down (it feeds the items only): every character on it now, a
    coin for every other one that has been on the board, none of the others."""
    seen = 0
    maybe = 0
    for c in range(N_CHARS):
        st = state[STAT + c]
        if st == IN_PLAY and is_down(table, state[LOC + c]):
            seen |= 1 << c
        elif st == IN_PLAY or st == DEFEATED:
            maybe |= 1 << c
    return seen | (rand_below(stream, 1 << N_CHARS) & maybe)


@inline
def face_down_card(state, side, stream):
    """The card ``side`` chose face down: one of the cards in its hand, uniformly."""
    hand = HAND + side * N_CARDS
    n = 0
    for k in range(9):
        n += state[hand + k]
    j = rand_below(stream, n)
    for k in range(9):
        if state[hand + k] == 1:
            if j == 0:
                return k
            j -= 1
    return -1


@kernel
def legal_moves(params, state, moves):
    ph = state[PHASE]
    if ph == P_MOVE or ph == P_DAND:
        return main_moves(params, state, moves, ph == P_DAND)
    if ph == P_SETUP:
        return setup_moves(params, state, moves)
    if ph == P_GROUP:
        return group_moves(params, state, moves)
    if ph == P_ESCAPE:
        return escape_moves(params, state, moves)
    if ph == P_HOLLY:
        return holly_moves(params, state, moves)
    if ph == P_QUESTION:
        moves[0] = M_NO
        moves[1] = M_YES
        return 2
    if ph == P_CARD:
        return card_moves(state, moves)
    if ph == P_RETREAT:
        c = state[RET_CHAR]
        return space_moves(retreat_mask(params, state, c, state[RET_DIRS], 0), c * 16, moves, 0)
    if ph == P_FLAME:
        return flame_moves(params, state, moves)
    return 0


@inline
def space_moves(mask, base, moves, n):
    """Append ``base + t`` for every space ``t`` in ``mask``."""
    t = 0
    while mask != 0:
        if mask & 1 == 1:
            moves[n] = base + t
            n += 1
        mask >>= 1
        t += 1
    return n


@inline
def main_moves(params, state, moves, dandelion):
    """Every (character, space) move of the side to play. ``dest_mask_fast`` written out
    in the loop: this is the hottest function of a random game, and numba does not
    inline kernel calls."""
    side = state[DECIDER]
    lo = 0 if side == HLESSIL else N_RABBITS
    hi = N_RABBITS if side == HLESSIL else N_CHARS
    n = 0
    if dandelion:
        lo, hi = DANDELION, DANDELION + 1
        moves[0] = M_PASS
        n = 1
    table = params[0]
    attacks = attack_mask(params, state, side)
    full = full_mask(params, state, side)
    gift = (state[OPT_USED] >> (2 * side + 1)) & 1 == 0
    ens = state[ENSNARED]
    downs = (1 << table[G_DOWN_A]) | (1 << table[G_DOWN_B])
    for c in range(lo, hi):
        if state[STAT + c] != IN_PLAY or c == ens or (c == SNARE and ens >= 0):
            continue
        s = state[LOC + c]
        nbm = O_NBM + side * 48 + s
        cand = table[nbm + D_FWD * 16]
        if c == WOUNDWORT:
            cand |= (table[nbm + D_BACK * 16] | table[nbm + D_SIDE * 16]) & attacks
        elif c == KESTREL:
            cand |= attacks & ~(1 << s)
        if (downs >> s) & 1 == 1:
            cand |= attacks & downs & ~(1 << s)
        cand &= ~full
        if c == HAWKBIT:
            cand &= ~attacks
        t = 0
        m = cand
        while m != 0:
            if m & 1 == 1:
                moves[n] = c * 16 + t
                n += 1
                if gift and (attacks >> t) & 1 == 1:
                    moves[n] = M_GIFT + c * 16 + t
                    n += 1
            m >>= 1
            t += 1
    return n


@inline
def setup_moves(params, state, moves):
    n = 0
    lo = 0 if state[DECIDER] == HLESSIL else N_RABBITS
    for c in range(lo, lo + 9):
        if state[STAT + c] == PENDING and params[0][O_CH + c * 4 + 3] == 1:
            moves[n] = M_CHAR + c
            n += 1
    return n


@inline
def escape_moves(params, state, moves):
    g = n_escapers(params, state)
    n = 0
    for t in range(N_SPACES):
        if escape_ok(params, state, t, g):
            moves[n] = M_SPACE + t
            n += 1
    return n


@inline
def card_moves(state, moves):
    hand = HAND + state[DECIDER] * N_CARDS
    n = 0
    for k in range(N_CARDS):
        if state[hand + k] == 1:
            moves[n] = M_CARD + k
            n += 1
    if n == 0:
        moves[0] = M_NOCARD
        n = 1
    return n


@inline
def group_moves(params, state, moves):
    moves[0] = M_PASS
    n = 1
    o, t = state[ORIGIN], state[LOC + HAZEL]
    if wood_full(params, state, HLESSIL, t, 1):
        return n
    for r in range(N_RABBITS):
        if r != HAZEL and alive_at(state, r, o) and not paralysed(state, r):
            moves[n] = M_CHAR + r
            n += 1
    return n


@inline
def n_escapers(params, state):
    return n_at(state, HLESSIL, params[0][G_EFRAFA])


@inline
def holly_moves(params, state, moves):
    moves[0] = M_PASS
    n = 1
    s = state[LOC + HOLLY]
    for d in range(3):
        for k in range(2):
            t = params[0][O_NB + HLESSIL * 96 + d * 32 + s * 2 + k]
            if t >= 0 and n_unknown_elil(state, t) > 0:
                moves[n] = M_SPACE + t
                n += 1
    return n


@inline
def n_unknown_elil(state, t):
    n = 0
    for e in range(N_RABBITS, N_CHARS):
        if alive_at(state, e, t) and state[KNOWN + e] == 0:
            n += 1
    return n


@inline
def flame_moves(params, state, moves):
    n = 0
    b = state[BSPACE]
    for r in range(N_RABBITS):
        if alive_at(state, r, b):
            m = retreat_mask(params, state, r, 7, state[FLAME_USED])
            n = space_moves(m, r * 16, moves, n)
    return n


# ---- applying a decision --------------------------------------------------------------

@kernel
def apply_move(params, state, move, chance, items):
    ph = state[PHASE]
    if ph == P_SETUP:
        setup_place(params, state, move - M_CHAR, items)
    elif ph == P_MOVE:
        main_move(params, state, move, items)
    elif ph == P_DAND:
        if move == M_PASS:
            state[STEP] = S_POSTMOVE
        else:
            item(items, DANDELION, A_DAND)
            main_move(params, state, move, items)
    elif ph == P_GROUP:
        apply_group(params, state, move, items)
    elif ph == P_ESCAPE:
        apply_escape(params, state, move - M_SPACE, items)
    elif ph == P_HOLLY:
        if move != M_PASS:
            holly_look(params, state, move - M_SPACE, chance, items)
        state[STEP] = S_ENDTURN
    elif ph == P_QUESTION:
        answer(params, state, move == M_YES, chance, items)
    elif ph == P_CARD:
        apply_card(params, state, move, items)
    elif ph == P_RETREAT:
        place(params, state, move // 16, move % 16, items)
        state[STEP] = state[RESUME]
    elif ph == P_FLAME:
        apply_flame(params, state, move // 16, move % 16, items)
    run(params, state, chance, items)


@inline
def main_move(params, state, move, items):
    """A move (or attack); ``M_GIFT + ...`` plays Gift to the Thousand first."""
    if move >= M_GIFT:
        move -= M_GIFT
        c = move // 16
        state[GIFT] = c
        state[OPT_USED] |= 1 << (2 * side_of(c) + 1)
        item(items, c, A_GIFT)
    begin_move(params, state, move // 16, move % 16, items)


@inline
def recount(state):
    for k in range(2 * N_SPACES):
        state[CNT + k] = 0
    for c in range(N_CHARS):
        if state[STAT + c] == IN_PLAY and state[LOC + c] >= 0:
            state[CNT + side_of(c) * N_SPACES + state[LOC + c]] += 1


@inline
def begin_move(params, state, c, t, items):
    side = side_of(c)
    s = state[LOC + c]
    state[MOVER] = c
    state[ORIGIN] = s
    if c == HOLLY:
        state[HOLLY_LOOK] = 1
    if is_attack(state, side, t):
        note_attack_kind(params, state, c, s, t, items)
        state[ATTACKING] = 1
        state[BSPACE] = t
        state[ATT] = c
        state[PIPKIN_ON] = 0              # reveals hold for the whole battle
        state[HAZEL_ON] = 0
        place(params, state, c, t, items)
        state[STEP] = S_SELECT
        return
    place(params, state, c, t, items)
    if c == HAZEL and group_possible(params, state, s, t):
        ask(state, P_GROUP, HLESSIL, -1)
    else:
        state[STEP] = S_ARRIVED


@inline
def note_attack_kind(params, state, c, s, t, items):
    if direction(params, side_of(c), s, t) != D_FWD:
        if is_down(params[0], s) and is_down(params[0], t):
            item(items, c, A_DOWN_CROSS)
        elif c == KESTREL:
            item(items, c, A_KESTREL)
        elif c == WOUNDWORT:
            item(items, c, A_WOUNDWORT)


@inline
def group_possible(params, state, o, t):
    if wood_full(params, state, HLESSIL, t, 1):
        return False
    for r in range(N_RABBITS):
        if r != HAZEL and alive_at(state, r, o) and not paralysed(state, r):
            return True
    return False


@inline
def apply_group(params, state, move, items):
    if move == M_PASS:
        state[STEP] = S_ARRIVED
        return
    item(items, HAZEL, A_HAZEL_GROUP)
    place(params, state, move - M_CHAR, state[LOC + HAZEL], items)
    if group_possible(params, state, state[ORIGIN], state[LOC + HAZEL]):
        ask(state, P_GROUP, HLESSIL, -1)
    else:
        state[STEP] = S_ARRIVED


@inline
def apply_escape(params, state, t, items):
    ef = params[0][G_EFRAFA]
    for r in range(N_RABBITS):
        if alive_at(state, r, ef):
            place(params, state, r, t, items)
            item(items, r, A_ESCAPE)
    for j in range(N_JOINERS):
        if params[0][O_JOIN + j * 3] == JOIN_ESCAPE:
            trigger(params, state, j, t)
    state[STEP] = state[RESUME]


@inline
def holly_look(params, state, t, chance, items):
    k = rand_below(chance, n_unknown_elil(state, t))
    for e in range(N_RABBITS, N_CHARS):
        if alive_at(state, e, t) and state[KNOWN + e] == 0:
            if k == 0:
                state[KNOWN + e] = 1
                state[LOCK + e] = 1
                break
            k -= 1
    state[KNOWN + HOLLY] = 1
    item(items, HOLLY, A_HOLLY)


@inline
def apply_card(params, state, move, items):
    """A battle card chosen. It stays in the hand (as far as anyone can tell, it is one of
    the hand's cards lying face down) until both are chosen; then both are revealed and
    leave the hands. Removing it at once would show the opponent which card it was."""
    side = state[DECIDER]
    k = -1 if move == M_NOCARD else move - M_CARD
    if k >= 0:
        items[side, card_col(side, k, EV_PLAYED)] += 1
    if side == HLESSIL:
        state[CARD_H] = k
    else:
        state[CARD_E] = k
    state[ROUND] |= 2 if side == HLESSIL else 4     # bit 1/2: this side has chosen
    if state[ROUND] & 6 == 6:
        state[CARDS_OPEN] = 1
        play_card(params, state, HLESSIL, state[CARD_H])
        play_card(params, state, ELIL, state[CARD_E])
        state[STEP] = S_BLACKBERRY
    else:
        state[STEP] = S_CARDS


@inline
def play_card(params, state, side, k):
    """A revealed card leaves the hand; the last one played brings the whole hand back."""
    if k < 0:
        return
    state[HAND + side * N_CARDS + k] = 0
    if params[0][G_REFILL] == 1:
        left = 0
        for x in range(9):
            left += state[HAND + side * N_CARDS + x]
        if left == 0:
            for x in range(9):
                state[HAND + side * N_CARDS + x] = 1


@inline
def card_col(side, k, ev):
    return I_CARDS + ((0 if side == HLESSIL else 9) + k) * 3 + ev


# ---- the automatic steps ----------------------------------------------------------------

@inline
def run(params, state, chance, items):
    while state[WINNER] < 0 and state[STEP] != S_WAIT:
        st = state[STEP]
        if st == S_SELECT:
            step_select(params, state, chance, items)
        elif st == S_FIGHT:
            step_fight(params, state, items)
        elif st == S_PRE:
            step_pre(params, state)
        elif st == S_CAT:
            step_cat(state)
        elif st == S_CARDS:
            step_cards(state, items)
        elif st == S_BLACKBERRY:
            step_blackberry(state)
        elif st == S_RESOLVE:
            step_resolve(params, state, items)
        elif st == S_BATTLE_END:
            step_battle_end(params, state, chance, items)
        elif st == S_ARRIVED:
            step_arrived(params, state, S_POSTMOVE, items)
        elif st == S_POSTMOVE:
            step_postmove(params, state, items)
        else:
            step_endturn(params, state, items)


@inline
def need_escape(params, state, resume, in_battle, items):
    """Rabbits standing in Efrafa escape (all to one space, the hlessil choose where);
    an attacker still fighting there escapes only when its battle ends."""
    ef = params[0][G_EFRAFA]
    if n_at(state, HLESSIL, ef) == 0:
        return False
    for r in range(N_RABBITS):
        if alive_at(state, r, ef) and not (in_battle and r == state[ATT]):
            state[RESUME] = resume
            ask(state, P_ESCAPE, HLESSIL, -1)
            if not has_escape(params, state):
                for x in range(N_RABBITS):       # nowhere to go: caught (NOTES.md)
                    if alive_at(state, x, ef):
                        defeat(params, state, x, items)
                state[STEP] = resume
            return True
    return False


@inline
def has_escape(params, state):
    g = n_escapers(params, state)
    for t in range(N_SPACES):
        if escape_ok(params, state, t, g):
            return True
    return False


@inline
def step_arrived(params, state, resume, items):
    if not need_escape(params, state, resume, False, items):
        state[STEP] = resume


@inline
def pool_mask(state, side, b, a):
    """Defenders ``a`` may be matched against on ``b``, as a bitmask of characters."""
    m = 0
    if side == HLESSIL:
        for r in range(N_RABBITS):
            if alive_at(state, r, b):
                m |= 1 << r
        if (m >> BIGWIG) & 1 == 1:
            return 1 << BIGWIG
        if m != (1 << CLOVER):
            m &= ~(1 << CLOVER)
        return m
    for e in range(N_RABBITS, N_CHARS):
        if alive_at(state, e, b) and not paralysed(state, e):
            m |= 1 << e
    return m


@inline
def pick(chance, m):
    return nth_bit(m, rand_below(chance, popcount(m)))


@inline
def step_select(params, state, chance, items):
    if need_escape(params, state, S_SELECT, True, items):
        return
    a, b = state[ATT], state[BSPACE]
    if not alive_at(state, a, b):
        state[STEP] = S_BATTLE_END
        return
    m = pool_mask(state, 1 - side_of(a), b, a)
    if m == 0:
        state[STEP] = S_BATTLE_END
        return
    ens = state[ENSNARED]
    if side_of(a) == ELIL and a != SNARE and ens >= 0 and (m >> ens) & 1 == 1 and m != 1 << ens:
        ask(state, P_QUESTION, ELIL, Q_TARGET)
        return
    state[DEF] = pick(chance, m)
    state[STEP] = S_FIGHT


@inline
def battlers(state):
    a, d = state[ATT], state[DEF]
    if a < N_RABBITS:
        return a, d
    return d, a


@inline
def step_fight(params, state, items):
    a, d = state[ATT], state[DEF]
    r, e = battlers(state)
    b = state[BSPACE]
    state[KNOWN + a] = 1
    state[KNOWN + d] = 1
    for k in (CARD_E, CARD_H):
        state[k] = -1
    for k in (CARDS_OPEN, ROUND, NOCARDS, PRE, ELIL_FIRST, POST):
        state[k] = 0
    if d == BIGWIG:
        item(items, BIGWIG, A_BIGWIG)
    if e == SNARE:
        snare_meets(params, state, r, b, items)
        state[STEP] = S_BATTLE_END if a == SNARE else S_SELECT
    elif r == SILVER and e == RATS:
        item(items, SILVER, A_SILVER)
        defeat_by_rabbit(params, state, RATS, b, items)
        state[STEP] = S_SELECT
    else:
        state[STEP] = S_PRE


@inline
def snare_meets(params, state, r, b, items):
    """The Snare encounters rabbit ``r`` on ``b``: defeated by Blackberry or in Efrafa,
    otherwise the rabbit is caught and both lie face up."""
    if r == BLACKBERRY:
        item(items, BLACKBERRY, A_BB_SNARE)
        defeat_by_rabbit(params, state, SNARE, b, items)
    elif b == params[0][G_EFRAFA]:
        item(items, r, A_SNARE_EFRAFA)
        defeat_by_rabbit(params, state, SNARE, b, items)
    else:
        item(items, SNARE, A_ENSNARE)
        state[ENSNARED] = r
        state[CAUGHT] = r
        state[CATCHES] += 1
        state[KNOWN + r] = 1
        state[KNOWN + SNARE] = 1


@inline
def pre_applies(params, state, q):
    r, e = battlers(state)
    b = state[BSPACE]
    free = not paralysed(state, r)
    if q == Q_HYZ:
        return (r == HYZENTHLAY and state[DEF] == r and e != CAMPION and free
                and retreat_mask(params, state, r, 1 << D_SIDE, 0) != 0)
    if q == Q_BLACKAVAR:
        return (r == BLACKAVAR and state[ATT] == r and e != CAMPION and free
                and retreat_mask(params, state, r, 1 << D_FWD, 0) != 0)
    if q == Q_PIPKIN:
        return r != PIPKIN and state[PIPKIN_ON] == 0 and alive_at(state, PIPKIN, b)
    return r == FIVER and state[DEF] == FIVER and alive_at(state, HAZEL, b)


@inline
def step_pre(params, state):
    while state[PRE] < 4:
        q = state[PRE]
        state[PRE] += 1
        if pre_applies(params, state, q):
            ask(state, P_QUESTION, HLESSIL, q)
            return
    state[STEP] = S_CAT


@inline
def step_cat(state):
    r, e = battlers(state)
    if e == CAT:
        ask(state, P_QUESTION, ELIL, Q_CAT)
    else:
        state[STEP] = S_CARDS


@inline
def step_cards(state, items):
    r, e = battlers(state)
    first = ELIL if (r == FIVER or e == VERVAIN) else HLESSIL
    state[ELIL_FIRST] = 1 if first == ELIL else 0
    chosen = state[ROUND] & 6
    if chosen == 0:
        ask(state, P_CARD, first, -1)
        if first == ELIL and state[ROUND] == 0:
            ab = A_FIVER_FIRST if r == FIVER else A_VERVAIN
            items[HLESSIL if r == FIVER else ELIL, ab] += 1
    else:
        ask(state, P_CARD, 1 - first, -1)


@inline
def step_blackberry(state):
    """After the reveal: Blackberry's cancel, then El-ahrairah (hlessil, then elil), once
    per fight in all; the second round cannot be cancelled."""
    r, e = battlers(state)
    while state[ROUND] & 1 == 0 and state[POST] < 3:
        q = state[POST]
        state[POST] += 1
        if q == 0 and r == BLACKBERRY:
            ask(state, P_QUESTION, HLESSIL, Q_BLACKBERRY)
            return
        if q > 0 and (state[OPT_USED] >> (2 * (2 - q))) & 1 == 0:
            ask(state, P_QUESTION, 2 - q, Q_EL_H if q == 1 else Q_EL_E)
            return
    state[STEP] = S_RESOLVE


@inline
def answer(params, state, yes, chance, items):
    q = state[QUESTION]
    r, e = battlers(state)
    state[STEP] = S_PRE
    if q == Q_TARGET:
        m = pool_mask(state, HLESSIL, state[BSPACE], state[ATT])
        ens = state[ENSNARED]
        # Asked only when another rabbit could be drawn; a search's determinisation may
        # deal Clover (drawn last) as the only other one, and then the ensnared is drawn.
        others = m & ~(1 << ens)
        state[DEF] = ens if yes or others == 0 else pick(chance, others)
        state[STEP] = S_FIGHT
    elif q == Q_CAT:
        state[NOCARDS] = 1 if yes else 0
        state[STEP] = S_RESOLVE if yes else S_CARDS
        if yes:
            item(items, CAT, A_CAT)
    elif q == Q_BLACKBERRY or q == Q_EL_H or q == Q_EL_E:
        state[STEP] = S_BLACKBERRY
        if yes:
            if q == Q_BLACKBERRY:
                item(items, BLACKBERRY, A_BB_REPLAY)
            else:
                side = HLESSIL if q == Q_EL_H else ELIL
                state[OPT_USED] |= 1 << (2 * side)
                items[side, A_EL_AHRAIRAH] += 1
            state[ROUND] = 1
            state[CARD_E] = -1
            state[CARD_H] = -1
            state[CARDS_OPEN] = 0
            state[STEP] = S_CARDS
    elif yes:
        answer_pre(params, state, q, r, items)


@inline
def answer_pre(params, state, q, r, items):
    if q == Q_HYZ or q == Q_BLACKAVAR:
        item(items, r, A_HYZ if q == Q_HYZ else A_BLACKAVAR)
        start_retreat(params, state, r, 1 << (D_SIDE if q == Q_HYZ else D_FWD), 0, items)
    elif q == Q_PIPKIN:
        state[PIPKIN_ON] = 1
        state[KNOWN + PIPKIN] = 1
        item(items, PIPKIN, A_PIPKIN)
    else:
        state[HAZEL_ON] = 1
        state[KNOWN + HAZEL] = 1
        item(items, FIVER, A_FIVER_HAZEL)


@inline
def start_retreat(params, state, c, dirs, used, items):
    """Retreat ``c`` (one option: at once; more: its owner chooses); resume at S_SELECT.
    Returns False when no space is available (the card cannot be carried out)."""
    m = retreat_mask(params, state, c, dirs, used)
    if m == 0:
        return False
    state[RESUME] = S_SELECT
    if popcount(m) == 1:
        place(params, state, c, nth_bit(m, 0), items)
        state[STEP] = S_SELECT
    else:
        state[RET_CHAR] = c
        state[RET_DIRS] = dirs
        ask(state, P_RETREAT, side_of(c), -1)
    return True


@inline
def base_strength(params, r, s):
    """A rabbit's strength on ``s`` before battle-only bonuses (Pipkin, Hazel for Fiver)."""
    st = params[0][O_CH + r * 4]
    if is_down(params[0], s):
        if r == STRAWBERRY:
            st = params[0][G_STRAW_DOWN]
        st += params[0][G_DOWN_BONUS]
    return st


@inline
def card_effect(params, state, side, card):
    """(kind, value) of the card ``side`` played, or a plain 0 when it has no effect."""
    if state[NOCARDS] == 1 or card < 0:
        return K_NUM, 0
    if side == HLESSIL and battlers(state)[0] == state[ENSNARED]:
        return K_NUM, 0
    return params[0][O_CARDS + side * 22 + card * 2], params[0][O_CARDS + side * 22 + card * 2 + 1]


@inline
def step_resolve(params, state, items):
    """Text cards (the elil's first), then strengths if both battlers are still there."""
    r, e = battlers(state)
    b = state[BSPACE]
    hk, hv = card_effect(params, state, HLESSIL, state[CARD_H])
    ek, ev = card_effect(params, state, ELIL, state[CARD_E])
    state[STEP] = S_SELECT
    e_gone = False
    r_gone = False
    if ek == K_RET_BACK:
        e_gone = start_retreat(params, state, e, 1 << D_BACK, 0, items)
    elif ek == K_FLAME:
        item(items, e, A_FLAME)
        start_flame(params, state, items)
        r_gone = True
    if hk == K_RET_BACK or hk == K_RET_SIDE or hk == K_RET_FWD:
        if ek == K_TRACKER and not r_gone and not e_gone:
            item(items, e, A_TRACKER)
        elif e == CAMPION and not r_gone and not e_gone:
            item(items, e, A_CAMPION)
        elif not r_gone and not e_gone:
            d = D_BACK if hk == K_RET_BACK else (D_SIDE if hk == K_RET_SIDE else D_FWD)
            r_gone = start_retreat(params, state, r, 1 << d, 0, items)
    elif hk == K_KEHAAR and not r_gone and b != params[0][G_EFRAFA]:
        kehaar(params, state, e, e_gone, items)
        e_gone = True
    if not e_gone and not r_gone:
        compare(params, state, r, e, b, hv, ev, items)
    card_outcomes(state, r, e, e_gone, r_gone, items)


@inline
def compare(params, state, r, e, b, hv, ev, items):
    rs = rabbit_strength(params, state, r, b) + hv
    es = elil_strength(params, state, e, b) + ev
    if state[GIFT] == r:
        rs += params[0][G_GIFT_BONUS]
    elif state[GIFT] == e:
        es += params[0][G_GIFT_BONUS]
    if rs <= es:
        defeat(params, state, r, items)
    if rs >= es:
        defeat_by_rabbit(params, state, e, b, items)


@inline
def card_outcomes(state, r, e, e_gone, r_gone, items):
    r_def = state[STAT + r] == DEFEATED
    e_def = state[STAT + e] == DEFEATED
    ch, ce = state[CARD_H], state[CARD_E]
    if ch >= 0 and ch < 9:
        if r_def:
            items[HLESSIL, card_col(HLESSIL, ch, EV_LOST)] += 1
        elif (e_def or e_gone) and not r_gone:
            items[HLESSIL, card_col(HLESSIL, ch, EV_WON)] += 1
    if ce >= 0 and ce < 9:
        if e_def:
            items[ELIL, card_col(ELIL, ce, EV_LOST)] += 1
        elif (r_def or r_gone) and not e_gone:
            items[ELIL, card_col(ELIL, ce, EV_WON)] += 1


@inline
def kehaar(params, state, e, e_gone, items):
    """Every elil on the battle space (but a busy Snare) returns to Efrafa."""
    b = state[BSPACE]
    item(items, HAZEL, A_KEHAAR)
    for x in range(N_RABBITS, N_CHARS):
        snare_held = x == SNARE and state[SNARE_FREED] == 1   # still lying face up here
        if (alive_at(state, x, b) and not paralysed(state, x) and not (x == e and e_gone)
                and not snare_held):
            place(params, state, x, params[0][G_EFRAFA], items)


@inline
def start_flame(params, state, items):
    b = state[BSPACE]
    ens = state[ENSNARED]
    if ens >= 0 and alive_at(state, ens, b):
        defeat(params, state, ens, items)
    state[FLAME_USED] = 0
    flame_continue(params, state, items)


@inline
def flame_continue(params, state, items):
    """Ask for the next Flaming Stick retreat, or defeat the rabbits that cannot go."""
    b = state[BSPACE]
    for r in range(N_RABBITS):
        if alive_at(state, r, b) and retreat_mask(params, state, r, 7, state[FLAME_USED]) != 0:
            ask(state, P_FLAME, HLESSIL, -1)
            return
    for r in range(N_RABBITS):
        if alive_at(state, r, b):
            defeat(params, state, r, items)
    state[STEP] = S_SELECT


@inline
def apply_flame(params, state, r, t, items):
    b = state[BSPACE]
    state[FLAME_USED] |= 1 << direction(params, HLESSIL, b, t)
    place(params, state, r, t, items)
    flame_continue(params, state, items)


@inline
def step_battle_end(params, state, chance, items):
    """A Snare whose rabbit fell meets one of those left, or is laid face down again."""
    b = state[BSPACE]
    if alive_at(state, SNARE, b) and state[ENSNARED] < 0 and state[ATT] != SNARE:
        m = pool_mask(state, HLESSIL, b, -1)
        if m != 0 and state[SNARE_FREED] == 1:
            snare_meets(params, state, pick(chance, m), b, items)
    state[SNARE_FREED] = 0        # face down again: unknown once mixed with other elil
    state[STEP] = S_ARRIVED


@inline
def holly_targets(params, state):
    s = state[LOC + HOLLY]
    n = 0
    for d in range(3):
        for k in range(2):
            t = params[0][O_NB + HLESSIL * 96 + d * 32 + s * 2 + k]
            if t >= 0 and n_unknown_elil(state, t) > 0:
                n += 1
    return n


@inline
def step_postmove(params, state, items):
    if state[ENSNARED] >= 0:
        snare_check(params, state, items)
    if (state[MOVER] == DANDELION and state[DAND] == 0 and state[ATTACKING] == 0
            and dest_mask(params, state, DANDELION) != 0):
        state[DAND] = 1
        ask(state, P_DAND, HLESSIL, -1)
        return
    state[DAND] = 1
    if state[HOLLY_LOOK] == 1:
        state[HOLLY_LOOK] = 0
        if (state[STAT + HOLLY] == IN_PLAY and not paralysed(state, HOLLY)
                and holly_targets(params, state) > 0):
            ask(state, P_HOLLY, HLESSIL, -1)
            return
    state[STEP] = S_ENDTURN


@inline
def snare_check(params, state, items):
    """A busy Snare falls to Blackberry when he has moved onto its space (or, with
    ``abilities.blackberry_snare_on_his_space``, whenever he is there) or to a group of
    strength 6+."""
    if state[ENSNARED] < 0 or state[STAT + SNARE] != IN_PLAY:
        return
    s = state[LOC + SNARE]
    onto = state[BB_ONTO_SNARE] == 1 or params[0][G_BB_SNARE_ANY] == 1
    state[BB_ONTO_SNARE] = 0
    if onto and alive_at(state, BLACKBERRY, s):
        item(items, BLACKBERRY, A_BB_SNARE)
        defeat_by_rabbit(params, state, SNARE, s, items)
        return
    tot = 0
    for r in range(N_RABBITS):
        if alive_at(state, r, s):
            tot += base_strength(params, r, s)
    if tot >= params[0][G_SNARE_GROUP]:
        for r in range(N_RABBITS):
            if alive_at(state, r, s):
                state[KNOWN + r] = 1
        item(items, SNARE, A_SNARE_GROUP)
        defeat_by_rabbit(params, state, SNARE, s, items)


@inline
def joins(params, state, items):
    """Triggered joiners appear: on their space, else Sandleford, else they are lost."""
    sand = params[0][G_SANDLEFORD]
    for j in range(N_JOINERS):
        c = FIRST_JOINER + j
        t = state[JOIN_AT + j]
        if state[STAT + c] != PENDING or t < 0:
            continue
        if (n_at(state, ELIL, t) > 0 or wood_full(params, state, HLESSIL, t, 1)
                or t == params[0][G_EFRAFA]):
            t = sand
        if n_at(state, ELIL, t) > 0:
            state[STAT + c] = LOST
            items[HLESSIL, I_JOIN + 2 * j + 1] += 1
            continue
        state[STAT + c] = IN_PLAY
        state[KNOWN + c] = 1
        items[HLESSIL, I_JOIN + 2 * j] += 1
        items[HLESSIL, I_CHARS + 2 * c] += 1
        place(params, state, c, t, items)


@inline
def mixable(state, c):
    return (state[STAT + c] == IN_PLAY and state[LOCK + c] == 0 and not paralysed(state, c))


@inline
def mix(state):
    """Each player shuffles every space where two or more of its tokens can be mixed.
    Written flat (no helper calls): it runs at the end of every turn."""
    ens = state[ENSNARED]
    once, twice, known = 0, 0, 0      # bit side * 16 + space; ``known``: bit c
    for c in range(N_CHARS):
        if (state[STAT + c] == IN_PLAY and state[LOCK + c] == 0 and c != ens
                and not (c == SNARE and ens >= 0)):
            bit = 1 << ((0 if c < N_RABBITS else N_SPACES) + state[LOC + c])
            twice |= once & bit
            once |= bit
            if state[KNOWN + c] == 1:
                known |= 1 << c
    if known == 0 or twice == 0:
        return
    for c in range(N_CHARS):
        if (known >> c) & 1 == 1:
            if (twice >> ((0 if c < N_RABBITS else N_SPACES) + state[LOC + c])) & 1 == 1:
                state[KNOWN + c] = 0
                state[SEEN_AT + c] = state[LOC + c]   # which token, not where, is hidden


@inline
def win(state, side, reason):
    state[WINNER] = side
    state[END] = reason
    state[PHASE] = P_OVER
    state[STEP] = S_WAIT


@inline
def check_winner(params, state, ended):
    g = params[0]
    if ended == HLESSIL or g[G_WIN_ANY] == 1:
        da, db = g[G_DOWN_A], g[G_DOWN_B]
        n = n_at(state, HLESSIL, da) + n_at(state, HLESSIL, db)
        doe = 0
        if n >= g[G_WARREN]:
            for r in range(N_RABBITS):
                loc = state[LOC + r]
                if state[STAT + r] == IN_PLAY and (loc == da or loc == db):
                    doe += g[O_CH + r * 4 + 2]
        if n >= g[G_WARREN] and doe > 0:
            win(state, HLESSIL, E_WARREN)
            return
    gone, does, does_gone, here = 0, 0, 0, 0
    for r in range(N_RABBITS):
        out = state[STAT + r] == DEFEATED or state[STAT + r] == LOST
        gone += 1 if out else 0
        does += params[0][O_CH + r * 4 + 2]
        does_gone += params[0][O_CH + r * 4 + 2] if out else 0
        here += 1 if state[STAT + r] == IN_PLAY else 0
    if does > 0 and does_gone == does:
        win(state, ELIL, E_DOES)
    elif gone >= g[G_ELIL_WIN]:
        win(state, ELIL, E_ELEVEN)
    elif here == 0 or N_RABBITS - gone < g[G_WARREN]:
        win(state, ELIL, E_IMPOSSIBLE)


@inline
def step_endturn(params, state, items):
    if state[ENSNARED] >= 0:
        snare_check(params, state, items)
    pending = False
    for j in range(N_JOINERS):
        pending = pending or state[JOIN_AT + j] >= 0 and state[STAT + FIRST_JOINER + j] == PENDING
    if pending:
        joins(params, state, items)
        snare_check(params, state, items)
    mix(state)
    ended = state[SIDE]
    check_winner(params, state, ended)
    if state[WINNER] >= 0:
        return
    side = 1 - ended
    state[SIDE] = side
    state[TURN] += 1
    for k in (MOVER, ORIGIN, BSPACE, ATT, DEF, CARD_E, CARD_H, GIFT):
        state[k] = -1
    for k in (DAND, HOLLY_LOOK, ATTACKING, CARDS_OPEN, ROUND, PIPKIN_ON, HAZEL_ON, NOCARDS,
              BB_ONTO_SNARE):
        state[k] = 0
    if not has_move(params, state, side):
        win(state, ended, E_NO_MOVE)
        return
    ask(state, P_MOVE, side, -1)


# ---- how each side is doing (the optional progress and phase kernels) --------------------
#
# progress: each side's share of the way to its own win, 0..1, so the two sides sit on one
# scale (NOTES.md, Progress measure). The hlessil's share is the nearer of their two wins:
# the warren (a doe and three more rabbits on the Down) or the elil left without a move
# (their forward moves spent); the elil's is the nearer of theirs: both does, or eleven
# rabbits, defeated.

MOVE_DISCOUNT = 0.5
"""A rabbit ``n`` moves from the Down counts ``MOVE_DISCOUNT ** n`` of a place in the
warren: every move left can be blocked or cost a battle. Of 0.3, 0.5 and 0.7, 0.5 told the
eventual winner best, in random and in heuristic play (NOTES.md)."""

LOSER_CAP = 0.99
"""Once the game is over the winner holds 1 (it has reached a win) and the other side at most
this: a share of the way that is not the whole way (a sudden end, the elil stranded, can
leave the loser's share high)."""


@inline
def warren_share(table, state):
    """The bottleneck of the warren's two needs: the nearest doe, and the mean of the
    ``G_WARREN - 1`` nearest other rabbits, each counted ``MOVE_DISCOUNT ** moves`` (a doe
    not in play counts 0). Moves are forward steps to a Down space, or to Efrafa, whose
    escape may land on the Down; rabbits are taken nearest first, one distance at a time."""
    need = table[G_WARREN] - 1
    reach = (1 << table[G_DOWN_A]) | (1 << table[G_DOWN_B]) | (1 << table[G_EFRAFA])
    taken, n_others = 0, 0
    doe, others, weight = -1.0, 0.0, 1.0
    for _ in range(N_SPACES):
        for r in range(N_RABBITS):
            if (state[STAT + r] == IN_PLAY and (taken >> r) & 1 == 0
                    and (reach >> state[LOC + r]) & 1 == 1):
                taken |= 1 << r
                if table[O_CH + r * 4 + 2] == 1 and doe < 0.0:
                    doe = weight
                elif n_others < need:
                    others += weight
                    n_others += 1
        if doe >= 0.0 and n_others >= need:
            break
        grown = reach
        for s in range(N_SPACES):
            if table[O_NBM + HLESSIL * 3 * N_SPACES + D_FWD * N_SPACES + s] & reach != 0:
                grown |= 1 << s
        if grown == reach:
            break
        reach = grown
        weight *= MOVE_DISCOUNT
    rest = others / need if need > 0 else 1.0
    return min(max(doe, 0.0), rest)


@inline
def stranding_share(table, state):
    """The share of the elil's forward moves spent: 1 - (rows still ahead of the elil in
    play) / (rows ahead of the whole army at the setup). A defeated elil's rows are spent;
    before the elil are all placed (the setup), nothing is."""
    base = table[O_SP + table[G_SANDLEFORD] * 3]
    start = table[G_HOME_COUNT] * (table[O_SP + table[G_EFRAFA] * 3] - base)
    for k in range(5):
        start += table[O_SP + table[O_SETUP + ELIL * 5 + k] * 3] - base
    left = 0
    for e in range(N_RABBITS, N_CHARS):
        if state[STAT + e] == PENDING:
            return 0.0
        if state[STAT + e] == IN_PLAY:
            left += table[O_SP + state[LOC + e] * 3] - base
    return max(0.0, 1.0 - left / start)


@inline
def hunt_share(table, state):
    """The nearer of the elil's wins: the share of the does defeated, or of the rabbits
    defeated (lost joiners included) toward eleven, or toward too few for a warren."""
    gone, does, does_gone = 0, 0, 0
    for r in range(N_RABBITS):
        out = state[STAT + r] == DEFEATED or state[STAT + r] == LOST
        is_doe = table[O_CH + r * 4 + 2]
        gone += 1 if out else 0
        does += is_doe
        does_gone += is_doe if out else 0
    need = min(table[G_ELIL_WIN], N_RABBITS - table[G_WARREN] + 1)
    share = gone / need
    if does > 0:
        share = max(share, does_gone / does)
    return min(share, 1.0)


@kernel
def progress(params, state, out):
    """``out`` (float64[2]): each side's share of the way to its own win, 0..1; the winner
    holds 1 once the game is over."""
    table = params[0]
    out[ELIL] = hunt_share(table, state)
    out[HLESSIL] = max(warren_share(table, state), stranding_share(table, state))
    w = state[WINNER]
    if w >= 0:
        out[w] = 1.0
        out[1 - w] = min(out[1 - w], LOSER_CAP)


# phase: the kind of decision awaited, an index into GameSpec.phases
PHASES = ("setup", "move", "question", "card", "retreat")
F_SETUP, F_MOVE, F_QUESTION, F_CARD, F_RETREAT = range(5)


@kernel
def phase(params, state):
    """The setup placements; a move (Dandelion's second, Hazel's group, Holly's look and
    the escape from Efrafa are parts of one); a yes/no question of a battle (an ability, the
    Cat, the ensnared target, El-ahrairah); a battle card; a retreat (the Flaming Stick's
    included)."""
    p = state[PHASE]
    if p == P_SETUP:
        return F_SETUP
    if p == P_QUESTION:
        return F_QUESTION
    if p == P_CARD:
        return F_CARD
    if p == P_RETREAT or p == P_FLAME:
        return F_RETREAT
    return F_MOVE


# ---- what a seat looks at (the optional features kernel, issue 29) -----------------------
#
# features: the vector a learnt player of ``seat`` reads (NOTES.md, Features), from the seat's
# observation alone. The sides are unlike, but each notion both sides have (progress, forces,
# reach, hands) is written for the seat's side first ("own_") and then for the other ("next_");
# the notions of one side (the does and the warren, the joiners, the Snare, the Kestrel, the
# text cards) are named by side. The seat "places" a character when it sees its space (its
# own, a known token, or one seen mixed on a space: SEEN_AT); a token it cannot place counts
# at the mean strength of the characters it cannot place.
#
# Written for speed (a learnt player calls it once per legal move): one pass over the board,
# one over each side's characters, then the few spaces in reach, on scalars and bitmasks.
# What needs a value per space goes to ``out`` as scratch until its entries are written,
# after every value is computed: each side's placed strength per space to the last 32
# entries (STRENGTHS), its strongest attacker of each space to the first 32 (ATTACKERS).

TURN_FEATURES = ("turns_played", "turns_fraction_of_cap", "own_turn", "own_decision",
                 "decision_is_setup", "decision_is_move", "decision_is_question",
                 "decision_is_card", "decision_is_retreat")
SIDE_FEATURES = ("progress", "characters_in_play", "characters_defeated", "strength_in_play",
                 "tokens_at_home", "tokens_on_down", "forward_moves_left", "strength_at_front",
                 "tokens_unseen", "unseen_mean_strength", "attacks_available",
                 "best_attack_margin", "tokens_threatened", "cards_in_hand",
                 "number_cards_total", "best_number_card", "text_cards_in_hand",
                 "optional_cards_left")
"""Written twice, ``own_<name>`` for the seat's side and ``next_<name>`` for the other,
side by side."""
BATTLE_FEATURES = ("own_characters_with_a_move", "in_battle", "own_side_attacking",
                   "own_battler_strength", "next_battler_strength",
                   "own_tokens_on_battle_space", "next_tokens_on_battle_space",
                   "own_battle_card_value", "own_battle_card_is_text", "next_battle_card_value",
                   "next_battle_card_is_text", "next_battle_card_face_down")
HLESSIL_FEATURES = (("warren_share", "doe_nearness", "others_nearness", "does_in_play",
                     "does_lost", "does_on_down", "does_threatened", "rabbits_next_to_efrafa")
                    + tuple(f"{k}_to_join" for k in CHAR_KEYS[FIRST_JOINER:N_RABBITS])
                    + ("rabbit_ensnared",))
ELIL_FEATURES = ("elil_down_spaces_held", "kestrel_in_play", "hlessil_kehaar_in_hand",
                 "hlessil_retreat_cards_in_hand", "elil_tracker_in_hand",
                 "elil_flaming_stick_in_hand", "elil_retreat_cards_in_hand")
FEATURES = (TURN_FEATURES
            + tuple(f"{who}_{name}" for name in SIDE_FEATURES for who in ("own", "next"))
            + BATTLE_FEATURES + HLESSIL_FEATURES + ELIL_FEATURES)
F_TURN = 0
F_SIDES = F_TURN + len(TURN_FEATURES)
F_BATTLE = F_SIDES + 2 * len(SIDE_FEATURES)
F_HLESSIL = F_BATTLE + len(BATTLE_FEATURES)
F_ELIL = F_HLESSIL + len(HLESSIL_FEATURES)
STRENGTHS = len(FEATURES) - 2 * N_SPACES
"""out[STRENGTHS + side * 16 + s] (scratch): the strength of ``side``'s placed characters
on ``s``; under the blocks written last."""
ATTACKERS = 0
"""out[ATTACKERS + side * 16 + s] (scratch): the strength of ``side``'s strongest token that
could attack ``s`` on its next move; under the turn's and the sides' entries."""
assert F_ELIL + len(ELIL_FEATURES) == len(FEATURES)
assert STRENGTHS >= F_BATTLE and ATTACKERS + 2 * N_SPACES <= F_BATTLE

SNARE_WORTH = 2.0
"""The Snare in a sum of strengths: it has none, but the rabbit it meets is caught without
cards; the heuristic weighs it 2 in a fight, and so do the features."""
NO_ATTACKER = -1e9


@inline
def seen_place(obs, c):
    """Where ``c`` stands as the observation shows it: its space, or the space its token was
    seen on before a shuffle (SEEN_AT), or -1 (out of play, or a token the seat cannot
    place)."""
    if obs[STAT + c] != IN_PLAY:
        return -1
    s = obs[LOC + c]
    return obs[SEEN_AT + c] if s == HIDDEN else s


@inline
def worth_on(params, obs, c, s):
    """``c``'s strength on ``s`` before the battle-only bonuses (the Snare: SNARE_WORTH)."""
    if c < N_RABBITS:
        return float(base_strength(params, c, s))
    if c == SNARE:
        return SNARE_WORTH
    return float(elil_strength(params, obs, c, s))


@inline
def low_bit(m):
    """The index of the lowest set bit of ``m`` (a mask of spaces, ``m`` > 0)."""
    low = m & -m
    t = 0
    if low >= 256:
        t += 8
        low >>= 8
    if low >= 16:
        t += 4
        low >>= 4
    if low >= 4:
        t += 2
        low >>= 2
    if low >= 2:
        t += 1
    return t


@inline
def tokens_in(obs, side, mask):
    """``side``'s tokens on the spaces of ``mask``."""
    n = 0
    while mask != 0:
        n += obs[CNT + side * N_SPACES + low_bit(mask)]
        mask &= mask - 1
    return n


@inline
def board_masks(params, obs):
    """One pass over the spaces: (the spaces holding elil, those holding rabbits, the woods
    each side has filled (elil, hlessil), the rows ahead of each side's tokens toward the
    other's home (elil, hlessil)); all public (CNT)."""
    table = params[0]
    top = table[O_SP + table[G_EFRAFA] * 3]
    base = table[O_SP + table[G_SANDLEFORD] * 3]
    cap = table[G_WOOD_CAP]
    wood = table[G_WOOD_BITS]
    held_e, held_h, full_e, full_h, ahead_e, ahead_h = 0, 0, 0, 0, 0, 0
    for s in range(N_SPACES):
        ne = obs[CNT + ELIL * N_SPACES + s]
        nh = obs[CNT + HLESSIL * N_SPACES + s]
        row = table[O_SP + s * 3]
        if ne > 0:
            held_e |= 1 << s
            ahead_e += ne * (row - base)
            if (wood >> s) & 1 == 1 and ne >= cap:
                full_e |= 1 << s
        if nh > 0:
            held_h |= 1 << s
            ahead_h += nh * (top - row)
            if (wood >> s) & 1 == 1 and nh >= cap:
                full_h |= 1 << s
    return held_e, held_h, full_e, full_h, ahead_e, ahead_h


@inline
def attack_targets(obs, side, held_e, held_h, full):
    """The spaces ``side`` would attack by moving there (``attack_mask``) less its ``full``
    woods."""
    if side == ELIL:
        return held_h & ~full
    m = held_e
    if obs[ENSNARED] >= 0 and obs[CNT + ELIL * N_SPACES + obs[LOC + SNARE]] == 1:
        m &= ~(1 << obs[LOC + SNARE])     # the busy Snare alone does not battle
    return m & ~full


@inline
def token_reach(table, side, u, targets):
    """The ``targets`` a token of ``side`` on ``u`` may attack: forward, or across the Down."""
    m = table[O_NBM + side * 3 * N_SPACES + D_FWD * N_SPACES + u]
    downs = (1 << table[G_DOWN_A]) | (1 << table[G_DOWN_B])
    if (downs >> u) & 1 == 1:
        m |= downs & ~(1 << u)
    return m & targets


@inline
def note_attacker(params, obs, side, c, strength, m, out):
    """Raise ``side``'s ATTACKERS of each space of ``m`` to the strength there of ``c`` (-1:
    a token the seat cannot place, of ``strength``, plus the Down's bonus for a rabbit)."""
    table = params[0]
    while m != 0:
        t = low_bit(m)
        m &= m - 1
        if c >= 0:
            att = worth_on(params, obs, c, t)
        else:
            att = strength + (table[G_DOWN_BONUS] if side == HLESSIL and is_down(table, t) else 0)
        k = ATTACKERS + side * N_SPACES + t
        out[k] = max(out[k], att)


@inline
def census(params, obs, side, seat, targets, full, out):
    """One pass over ``side``'s characters. To the scratch: the strength of those the seat
    places, per space (STRENGTHS), and the strongest that could attack each space of
    ``targets`` on its next move (ATTACKERS). Returns (characters in play, defeated or
    lost, their strength in play, tokens the other side cannot name, the mean strength of
    those it cannot place (0 when none), how many the seat places on each space (packed
    four bits a space: at most 14), the spaces they could attack, how many of them could
    move (the seat's own side; 0 for the other)). A placed character attacks forward and
    across the Down, Woundwort backward and sideways too; Hawkbit, the ensnared rabbit and
    the busy Snare never; the Kestrel's attack from anywhere is left out (it would put every
    rabbit in reach while he lives: ``kestrel_in_play``)."""
    table = params[0]
    for s in range(N_SPACES):
        out[STRENGTHS + side * N_SPACES + s] = 0.0
        out[ATTACKERS + side * N_SPACES + s] = NO_ATTACKER
    lo = 0 if side == HLESSIL else N_RABBITS
    hi = N_RABBITS if side == HLESSIL else N_CHARS
    in_play, gone, strength, unnamed, unplaced, unplaced_sum = 0, 0, 0, 0, 0, 0.0
    packed, reach, movable = 0, 0, 0
    for c in range(lo, hi):
        st = obs[STAT + c]
        if st == DEFEATED or st == LOST:
            gone += 1
        if st != IN_PLAY:
            continue
        in_play += 1
        strength += table[O_CH + c * 4]
        if obs[KNOWN + c] == 0:
            unnamed += 1
            if obs[SEEN_AT + c] < 0:      # the other side cannot place it
                unplaced += 1
                unplaced_sum += SNARE_WORTH if c == SNARE else table[O_CH + c * 4]
        if side == seat and dest_mask_fast(params, obs, c, targets, full) != 0:
            movable += 1
        u = seen_place(obs, c)
        if u < 0:
            continue
        out[STRENGTHS + side * N_SPACES + u] += worth_on(params, obs, c, u)
        packed += 1 << (4 * u)
        if c == HAWKBIT or paralysed(obs, c):
            continue
        m = token_reach(table, side, u, targets)
        if c == WOUNDWORT:
            nbm = O_NBM + side * 3 * N_SPACES + u
            m |= (table[nbm + D_BACK * N_SPACES] | table[nbm + D_SIDE * N_SPACES]) & targets
        reach |= m
        note_attacker(params, obs, side, c, 0.0, m, out)
    mean = unplaced_sum / unplaced if unplaced > 0 else 0.0
    return in_play, gone, strength, unnamed, mean, packed, reach, movable


@inline
def unplaced_on(obs, side, packed, u):
    """``side``'s tokens on ``u`` the seat cannot place (``packed``: from ``census``)."""
    return obs[CNT + side * N_SPACES + u] - ((packed >> (4 * u)) & 15)


@inline
def unplaced_reach(params, obs, side, targets, held, packed, mean, out):
    """The ``targets`` that ``side``'s tokens the seat cannot place could attack (forward,
    across the Down), each at ``mean``, noted in ATTACKERS (``held``: the side's spaces)."""
    table = params[0]
    reach = 0
    while held != 0:
        u = low_bit(held)
        held &= held - 1
        if unplaced_on(obs, side, packed, u) > 0:
            m = token_reach(table, side, u, targets)
            reach |= m
            note_attacker(params, obs, side, -1, mean, m, out)
    return reach


@inline
def tokens_worth(params, obs, side, t, packed, mean, out):
    """The summed strength of ``side``'s tokens on ``t`` as the seat sees them: those it
    places at their strength there (STRENGTHS), any other at ``mean`` (plus the Down's
    bonus for a rabbit)."""
    n = unplaced_on(obs, side, packed, t)
    tot = out[STRENGTHS + side * N_SPACES + t]
    if n > 0:
        bonus = params[0][G_DOWN_BONUS] if side == HLESSIL and is_down(params[0], t) else 0
        tot += n * (mean + bonus)
    return tot


@inline
def best_margin(params, obs, side, reach, other_packed, other_mean, out):
    """The best margin of ``side``'s attacks on the spaces of ``reach``: its strongest
    attacker's strength there (ATTACKERS) less the first defender's, expected (Bigwig when
    the seat sees him there, for he is always first; else the defenders' mean); 0 when
    ``reach`` is empty."""
    if reach == 0:
        return 0.0
    other = 1 - side
    bigwig = seen_place(obs, BIGWIG) if other == HLESSIL else -1
    best = NO_ATTACKER
    while reach != 0:
        t = low_bit(reach)
        reach &= reach - 1
        if t == bigwig:
            d = float(base_strength(params, BIGWIG, t))
        else:
            d = (tokens_worth(params, obs, other, t, other_packed, other_mean, out)
                 / obs[CNT + other * N_SPACES + t])
        best = max(best, out[ATTACKERS + side * N_SPACES + t] - d)
    return best


@inline
def front_worth(params, obs, side, packed, mean, out):
    """The strength of ``side``'s tokens on its front row, the row before the middle."""
    table = params[0]
    front = table[G_MIDDLE_ROW] + (-1 if side == HLESSIL else 1)
    tot = 0.0
    for s in range(N_SPACES):
        if table[O_SP + s * 3] == front and obs[CNT + side * N_SPACES + s] > 0:
            tot += tokens_worth(params, obs, side, s, packed, mean, out)
    return tot


@inline
def doe_census(params, obs, elil_reach):
    """(does in play, does defeated or lost, does the seat places on the Down, and in the
    elil's reach, the spaces of the does it places, whether one in play is unplaced)."""
    table = params[0]
    in_play, gone, on_down, threatened, spaces, unplaced = 0, 0, 0, 0, 0, False
    for r in range(N_RABBITS):
        if table[O_CH + r * 4 + 2] == 0:
            continue
        st = obs[STAT + r]
        gone += 1 if st == DEFEATED or st == LOST else 0
        if st != IN_PLAY:
            continue
        in_play += 1
        s = seen_place(obs, r)
        if s < 0:
            unplaced = True
            continue
        spaces |= 1 << s
        on_down += 1 if is_down(table, s) else 0
        threatened += (elil_reach >> s) & 1
    return in_play, gone, on_down, threatened, spaces, unplaced


@inline
def warren_view(params, obs, packed, doe_spaces, unplaced_doe):
    """(doe nearness, others' nearness): ``warren_share``'s two terms on the rabbits' tokens
    as the seat sees them, one level of forward moves at a time (LEVELS). A doe the seat
    cannot place counts on the nearest rabbit token it cannot place (the worst the elil must
    fear); the others are the nearest tokens. ``packed``: the rabbits' census."""
    table = params[0]
    need = table[G_WARREN] - 1
    if unplaced_doe:                      # where a token may be the unplaced doe
        for s in range(N_SPACES):
            if unplaced_on(obs, HLESSIL, packed, s) > 0:
                doe_spaces |= 1 << s
    n_others = 0
    doe, others, weight = -1.0, 0.0, 1.0
    for n in range(N_SPACES):
        level = table[O_LEVELS + n]
        if level == 0:
            break
        k = tokens_in(obs, HLESSIL, level)
        if doe < 0.0 and doe_spaces & level != 0:
            doe = weight
            k -= 1
        take = min(k, need - n_others)
        others += weight * take
        n_others += take
        if doe >= 0.0 and n_others >= need:
            break
        weight *= MOVE_DISCOUNT
    return max(doe, 0.0), (others / need if need > 0 else 1.0)


@inline
def stranding_view(table, obs, ahead_e):
    """``stranding_share`` from the public token counts (the same value): ``ahead_e`` is
    the rows ahead of the elil's tokens."""
    base = table[O_SP + table[G_SANDLEFORD] * 3]
    start = table[G_HOME_COUNT] * (table[O_SP + table[G_EFRAFA] * 3] - base)
    for k in range(5):
        start += table[O_SP + table[O_SETUP + ELIL * 5 + k] * 3] - base
    for e in range(N_RABBITS, N_CHARS):
        if obs[STAT + e] == PENDING:
            return 0.0
    return max(0.0, 1.0 - ahead_e / start)


@inline
def progress_view(params, obs, side, warren, ahead_e):
    """``progress`` of ``side`` as the seat sees it (``warren``: the warren share seen)."""
    table = params[0]
    if side == ELIL:
        v = hunt_share(table, obs)
    else:
        v = max(warren, stranding_view(table, obs, ahead_e))
    w = obs[WINNER]
    if w >= 0:
        v = 1.0 if w == side else min(v, LOSER_CAP)
    return v


@inline
def hand_census(table, obs, side):
    """The side's battle hand (public): (cards, number cards' total, best number card,
    text cards, retreat cards, Kehaar, Tracker, Flaming Stick)."""
    n, total, best, text, retreats, kehaar, tracker, flame = 0, 0, 0, 0, 0, 0, 0, 0
    for k in range(9):
        if obs[HAND + side * N_CARDS + k] == 1:
            n += 1
            kind = table[O_CARDS + side * 22 + k * 2]
            if kind == K_NUM:
                v = table[O_CARDS + side * 22 + k * 2 + 1]
                total += v
                best = max(best, v)
                continue
            text += 1
            retreats += 1 if kind == K_RET_BACK or kind == K_RET_SIDE or kind == K_RET_FWD else 0
            kehaar += 1 if kind == K_KEHAAR else 0
            tracker += 1 if kind == K_TRACKER else 0
            flame += 1 if kind == K_FLAME else 0
    return n, total, best, text, retreats, kehaar, tracker, flame


@inline
def turn_features(params, obs, seat, out):
    table = params[0]
    out[F_TURN] = obs[TURN]
    out[F_TURN + 1] = obs[TURN] / max(1, table[G_MAX_TURNS])
    out[F_TURN + 2] = 1.0 if obs[SIDE] == seat else 0.0
    out[F_TURN + 3] = 1.0 if obs[DECIDER] == seat and obs[WINNER] < 0 else 0.0
    for k in range(5):
        out[F_TURN + 4 + k] = 0.0
    if obs[WINNER] < 0:
        out[F_TURN + 4 + phase(params, obs)] = 1.0


@inline
def write_side(out, w, j, v):
    """SIDE_FEATURES[j] of the own (``w`` 0) or next (``w`` 1) side."""
    out[F_SIDES + 2 * j + w] = v


@inline
def battler_strength(params, obs, c):
    """A battler's strength on the battle space now (the Down, a wood, Pipkin's and Hazel's
    reveals, Gift to the Thousand), 0 once it is off that space."""
    b = obs[BSPACE]
    if c < 0 or b < 0 or obs[STAT + c] != IN_PLAY or obs[LOC + c] != b:
        return 0.0
    st = rabbit_strength(params, obs, c, b) if c < N_RABBITS else elil_strength(params, obs, c, b)
    if obs[GIFT] == c:
        st += params[0][G_GIFT_BONUS]
    return float(st)


@inline
def card_seen(params, obs, side, k, o, out):
    """The battle card ``k`` that ``side`` chose, as far as the seat sees it, to ``out[o]``
    (its number) and ``out[o + 1]`` (1 for a text card): 0 and 0 for none or face down."""
    value, text = 0, 0
    if 0 <= k < 9:
        kind = params[0][O_CARDS + side * 22 + k * 2]
        if kind == K_NUM:
            value = params[0][O_CARDS + side * 22 + k * 2 + 1]
        else:
            text = 1
    out[o] = value
    out[o + 1] = text


@inline
def battle_features(params, obs, seat, movable, out):
    """BATTLE_FEATURES: the seat's characters that could move, then this turn's battle."""
    o = F_BATTLE
    out[o] = movable
    on = obs[ATTACKING] == 1 and obs[BSPACE] >= 0 and obs[WINNER] < 0
    a, d, b = obs[ATT], obs[DEF], obs[BSPACE]
    r, e = (a, d) if a < N_RABBITS else (d, a)
    mine, theirs = (r, e) if seat == HLESSIL else (e, r)
    own_card = obs[CARD_H] if seat == HLESSIL else obs[CARD_E]
    their_card = obs[CARD_E] if seat == HLESSIL else obs[CARD_H]
    out[o + 1] = 1.0 if on else 0.0
    out[o + 2] = 1.0 if on and a >= 0 and side_of(a) == seat else 0.0
    out[o + 3] = battler_strength(params, obs, mine) if on else 0.0
    out[o + 4] = battler_strength(params, obs, theirs) if on else 0.0
    out[o + 5] = obs[CNT + seat * N_SPACES + b] if on else 0.0
    out[o + 6] = obs[CNT + (1 - seat) * N_SPACES + b] if on else 0.0
    card_seen(params, obs, seat, own_card if on else -1, o + 7, out)
    card_seen(params, obs, 1 - seat, their_card if on else -1, o + 9, out)
    out[o + 11] = 1.0 if on and their_card == HIDDEN else 0.0


@kernel
def features(params, obs, seat, out):
    """Fill ``out`` (float64[len(FEATURES)]) with what a player of ``seat`` looks at, from
    its observation ``obs`` (``observe``'s) alone (NOTES.md, Features). Allocates nothing:
    ``out`` holds the per-space values while they are needed (STRENGTHS, ATTACKERS)."""
    table = params[0]
    downs = (1 << table[G_DOWN_A]) | (1 << table[G_DOWN_B])
    held_e, held_h, full_e, full_h, ahead_e, ahead_h = board_masks(params, obs)
    e_targets = attack_targets(obs, ELIL, held_e, held_h, full_e)
    h_targets = attack_targets(obs, HLESSIL, held_e, held_h, full_h)
    e_in, e_gone, e_strength, e_unnamed, e_mean, e_packed, e_reach, e_movable = census(
        params, obs, ELIL, seat, e_targets, full_e, out)
    h_in, h_gone, h_strength, h_unnamed, h_mean, h_packed, h_reach, h_movable = census(
        params, obs, HLESSIL, seat, h_targets, full_h, out)
    e_reach |= unplaced_reach(params, obs, ELIL, e_targets, held_e, e_packed, e_mean, out)
    h_reach |= unplaced_reach(params, obs, HLESSIL, h_targets, held_h, h_packed, h_mean, out)
    e_margin = best_margin(params, obs, ELIL, e_reach, h_packed, h_mean, out)
    h_margin = best_margin(params, obs, HLESSIL, h_reach, e_packed, e_mean, out)
    e_front = front_worth(params, obs, ELIL, e_packed, e_mean, out)
    h_front = front_worth(params, obs, HLESSIL, h_packed, h_mean, out)
    does_in, does_gone, does_down, does_threatened, doe_spaces, unplaced_doe = doe_census(
        params, obs, e_reach)
    doe, others = warren_view(params, obs, h_packed, doe_spaces, unplaced_doe)
    e_hand = hand_census(table, obs, ELIL)
    h_hand = hand_census(table, obs, HLESSIL)
    # every value is computed: the scratch may be overwritten
    turn_features(params, obs, seat, out)
    for w in range(2):
        side = seat if w == 0 else 1 - seat
        elil = side == ELIL
        hand = e_hand if elil else h_hand
        write_side(out, w, 0, progress_view(params, obs, side, min(doe, others), ahead_e))
        write_side(out, w, 1, e_in if elil else h_in)
        write_side(out, w, 2, e_gone if elil else h_gone)
        write_side(out, w, 3, e_strength if elil else h_strength)
        write_side(out, w, 4, obs[CNT + side * N_SPACES + table[G_EFRAFA if elil
                                                                 else G_SANDLEFORD]])
        write_side(out, w, 5, tokens_in(obs, side, downs))
        write_side(out, w, 6, ahead_e if elil else ahead_h)
        write_side(out, w, 7, e_front if elil else h_front)
        write_side(out, w, 8, e_unnamed if elil else h_unnamed)
        write_side(out, w, 9, e_mean if elil else h_mean)
        write_side(out, w, 10, popcount(e_reach if elil else h_reach))
        write_side(out, w, 11, e_margin if elil else h_margin)
        write_side(out, w, 12, tokens_in(obs, side, h_reach if elil else e_reach))
        write_side(out, w, 13, hand[0])   # cards
        write_side(out, w, 14, hand[1])   # the number cards' total
        write_side(out, w, 15, hand[2])   # the best number card
        write_side(out, w, 16, hand[3])   # text cards
        write_side(out, w, 17, 2 - popcount((obs[OPT_USED] >> (2 * side)) & 3))
    battle_features(params, obs, seat, e_movable if seat == ELIL else h_movable, out)
    o = F_HLESSIL
    out[o] = min(doe, others)
    out[o + 1] = doe
    out[o + 2] = others
    out[o + 3] = does_in
    out[o + 4] = does_gone
    out[o + 5] = does_down
    out[o + 6] = does_threatened
    near_efrafa = 0
    for s in range(N_SPACES):
        if (table[O_NBM + HLESSIL * 3 * N_SPACES + D_FWD * N_SPACES + s] >> table[G_EFRAFA]) & 1:
            near_efrafa |= 1 << s
    out[o + 7] = tokens_in(obs, HLESSIL, near_efrafa)
    for j in range(N_JOINERS):
        out[o + 8 + j] = 1.0 if obs[STAT + FIRST_JOINER + j] == PENDING else 0.0
    out[o + 8 + N_JOINERS] = 1.0 if obs[ENSNARED] >= 0 else 0.0
    o = F_ELIL
    out[o] = popcount(held_e & downs)
    out[o + 1] = 1.0 if obs[STAT + KESTREL] == IN_PLAY else 0.0
    out[o + 2] = h_hand[5]                # Kehaar
    out[o + 3] = h_hand[4]                # retreat cards
    out[o + 4] = e_hand[6]                # Tracker
    out[o + 5] = e_hand[7]                # Flaming Stick
    out[o + 6] = e_hand[4]                # retreat cards
