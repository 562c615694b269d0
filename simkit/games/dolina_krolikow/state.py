"""The state layout of Dolina królików: one flat int32 array with named offsets.

Capacities are fixed (up to 4 players, 9 dice, 8 positions, 64 rabbit cards, 24 House cards,
12 Forest cards, 6 Houses a player); the game's data must fit in them (checked when the data
is compiled). ``-1`` means empty everywhere. 723 ints in all.

    +-- header [0..20) ----------------------------------------------------------------+
    | N_PLAYERS PHASE ACTOR FIRST ROUND STEP OVER PLACE_FOR PEND_N PEND_I DECK_N        |
    | HSTACK_N FPOOL_N DRAWN_N NEW_HOUSE PICKER                                         |
    | PAY_POS PAY_LEFT PAY_MIN: a die's pip change being paid (PH_PAY): the position    |
    |   of its card, tokens still to pay, the lowest kind the next may be (in kind      |
    |   order, so each payment is chosen one way only)                                  |
    | CLOCK: mission draws so far (each redeal, each House draw), public: the setup     |
    |   deal is time 0, and the n-th draw time n                                        |
    +-- dice ---------------------------------------------------------------------------+
    | DIE_FACE[9]  rolled face = colour*6 + pips-1 (0 orange, 1 green, 2 blue)          |
    | DIE_USE[9]   -1 on the table | 0..7 on that position | USE_GARDEN | USE_LEFTOVER  |
    +-- table: one column per position 1..8 --------------------------------------------+
    | POS_CARD[8]  rabbit card           | POS_OWNER[8] seat whose marker lies on it    |
    | POS_D1[8] POS_D2[8]  effective (modified) faces of the dice on it                 |
    | POS_TOK[8*3] tokens paid for modifications, by kind (back to the Garden at the end)|
    +-- resources ----------------------------------------------------------------------+
    | GARDEN[3] carrot cabbage cornflower | TOKENS[4*3] each seat's tokens              |
    +-- rabbit cards -------------------------------------------------------------------+
    | DECK[64]     face-down stack, top = DECK[DECK_N-1]                                |
    | CARD_LOC[64] LOC_DECK | LOC_TABLE | LOC_PENDING | LOC_SEAT + 8*seat + house 0..5  |
    |              | LOC_SEAT + 8*seat + LOC_WANDER (a Wanderer)                        |
    +-- Houses: [seat*6 + house] -------------------------------------------------------+
    | HSTACK[24] face-down House stack    | HOUSE_CARD[24] mission card of each House   |
    | HOUSE_N HOUSE_LARGE HOUSE_C1 HOUSE_C2 [24]: rabbits, Large ones, colours of the    |
    |   first two (for the colour table)  | HOUSE_COLS[24*3] rabbits of each colour     |
    | HOUSE_COUNT[4] | HOUSE_HAND[4*4] dealt at setup | DRAWN[2] drawn this round        |
    +-- Forest, Wanderers, placements ---------------------------------------------------+
    | FOREST_HAND[4*2] FOREST_KEPT[4] REDEAL[4] FPOOL[12] (undealt or returned)         |
    | WAND[4*2] each seat's Wanderers | PEND_SEAT[16] PEND_CARD[16] rabbits to place    |
    | CHOSEN_FOREST[4] CHOSEN_HOUSE[4] each seat's secret setup choice (Setup 5),      |
    |   made in turn, carried out when every seat has chosen: the Forest card kept (its |
    |   place in FOREST_HAND) or CHOSE_REDEAL; the House card discarded (its place in   |
    |   HOUSE_HAND) or CHOSE_KEEP_ALL; -1 not chosen, or carried out. Seen by the seat  |
    |   alone                                                                           |
    +-- when each mission came, and what each seat saw go back (NOTES.md) -------------+
    | HOUSE_AT[24] the CLOCK when each House's card came (public)                        |
    | FOREST_AT[4] the CLOCK when the seat's Forest cards were dealt: 0, or its redeal  |
    |   (public)                                                                        |
    | HOUSE_BACK[4*24] seat s, House card c: 1 + the CLOCK when s saw c go back into   |
    |   the House stack (0: never); seen by s alone                                     |
    | FOREST_BACK[4*12] the same for the Forest cards s saw go back into the pool       |
    +-----------------------------------------------------------------------------------+

Hidden in ``observe``: the order of DECK, HSTACK and FPOOL, other seats' FOREST_HAND,
HOUSE_HAND, DRAWN, CHOSEN_FOREST, CHOSEN_HOUSE, HOUSE_BACK, FOREST_BACK and (face-down
missions) FOREST_KEPT and HOUSE_CARD.

A card s saw go back at time t is, as s knows, in its stack or in a place filled after t
(a place's time: the stack never, a House its HOUSE_AT, a dealt House card 0, a seat's
Forest cards its FOREST_AT, the House cards being chosen from the CLOCK); check_state
holds every seat's memory to that, and a determinisation deals by it.
"""

MAXP, MAXD, MAXPOS, MAXC, MAXHC, MAXF, MAXH = 4, 9, 8, 64, 24, 12, 6
MAXPEND = 16
N_FACES = 18  # 3 colours x 6 pips

(N_PLAYERS, PHASE, ACTOR, FIRST, ROUND, STEP, OVER, PLACE_FOR, PEND_N, PEND_I, DECK_N,
 HSTACK_N, FPOOL_N, DRAWN_N, NEW_HOUSE, PICKER, PAY_POS, PAY_LEFT, PAY_MIN, CLOCK) = range(20)
HEADER = 20

DIE_FACE = HEADER
DIE_USE = DIE_FACE + MAXD
POS_CARD = DIE_USE + MAXD
POS_OWNER = POS_CARD + MAXPOS
POS_D1 = POS_OWNER + MAXPOS
POS_D2 = POS_D1 + MAXPOS
POS_TOK = POS_D2 + MAXPOS
GARDEN = POS_TOK + MAXPOS * 3
TOKENS = GARDEN + 3
DECK = TOKENS + MAXP * 3
CARD_LOC = DECK + MAXC
HSTACK = CARD_LOC + MAXC
HOUSE_CARD = HSTACK + MAXHC
HOUSE_N = HOUSE_CARD + MAXP * MAXH
HOUSE_LARGE = HOUSE_N + MAXP * MAXH
HOUSE_C1 = HOUSE_LARGE + MAXP * MAXH
HOUSE_C2 = HOUSE_C1 + MAXP * MAXH
HOUSE_COLS = HOUSE_C2 + MAXP * MAXH
HOUSE_COUNT = HOUSE_COLS + MAXP * MAXH * 3
HOUSE_HAND = HOUSE_COUNT + MAXP
DRAWN = HOUSE_HAND + MAXP * 4
FOREST_HAND = DRAWN + 2
FOREST_KEPT = FOREST_HAND + MAXP * 2
REDEAL = FOREST_KEPT + MAXP
FPOOL = REDEAL + MAXP
WAND = FPOOL + MAXF
PEND_SEAT = WAND + MAXP * 2
PEND_CARD = PEND_SEAT + MAXPEND
CHOSEN_FOREST = PEND_CARD + MAXPEND
CHOSEN_HOUSE = CHOSEN_FOREST + MAXP
HOUSE_AT = CHOSEN_HOUSE + MAXP
FOREST_AT = HOUSE_AT + MAXP * MAXH
HOUSE_BACK = FOREST_AT + MAXP
FOREST_BACK = HOUSE_BACK + MAXP * MAXHC
STATE_SIZE = FOREST_BACK + MAXP * MAXF

# the secret setup choices beyond a card's place: the move less F_KEEP (F_REDEAL is F_KEEP
# + 2) and less H_DISCARD (H_KEEP_ALL is H_DISCARD + 4); rules.py checks that these agree
CHOSE_REDEAL, CHOSE_KEEP_ALL = 2, 4
# DIE_USE values beyond a position
USE_GARDEN, USE_LEFTOVER = 8, 9
# CARD_LOC values
LOC_DECK, LOC_TABLE, LOC_PENDING, LOC_SEAT, LOC_WANDER = 0, 1, 2, 10, 6

# phases
(PH_SETUP_FOREST, PH_SETUP_HOUSE, PH_REDEAL, PH_DRAW, PH_KEEP, PH_WANDER_ADD, PH_PICK,
 PH_LEFTOVER, PH_PLACE, PH_OVER, PH_PAY) = range(11)
PHASE_NAMES = ("setup-forest", "setup-house", "redeal", "house-draw", "house-keep",
               "wanderer-add", "pick", "leftover", "place", "over", "pay")
