"""War of the Wilds: the state layout, the move encoding and the parameter tables.

A state is one flat int32 array of STATE_SIZE (the same for 2, 3 and 4 players; seats that
do not play stay empty). -1 means empty. SEAT is whose turn it is; ACTOR is the seat that
decides now (a defender blocking, a player answering a trade offer, a player keeping cards).

    0                                                                          48
    +-------+-----+------+-------+-----+----------+-------+------+--------+----+-----+----
    |N_PLAY |PHASE|SEAT  |ACTOR  |DAY  |DAY_CARD  |TURNS  |WILD  |DECK_N  |DISC_N|SUB|...
    +-------+-----+------+-------+-----+----------+-------+------+--------+----+-----+----
      11 SLOT  12 DEFENDER  13 SWAP_TAKEN  bit c: a swap took kind c this turn  14
      OFFERS_USED  15 RALLY  16 OFFER_TO  the player offered a trade (-1: none)  17
      OFFER_BACK  the phase the offer was made in (the turn goes on there)  18 OFFER_LAST
      the last item added to the offer (0..4 mine, 5..9 theirs; -1 none)  20 FOX_MASK
      21 SETUP_SEAT
      23 FOUGHT  bit d: defender d's fight was fought this turn (it opens the step after the
                 attacks, and the transcript tells it; cleared when the attack step begins)
      24 PAY_CARD  the card being paid for (-1: none)   25 PAY_TARGET  the player its trick
      picks   26 PAY_MIN  the lowest kind the next card paid may be (payments are chosen in
      kind order, so each payment has one way to be chosen)   27 PAY_LEFT  cards still to
      pay   28..31 PAID[4]  cards paid so far, by kind
      32..36 OFFER_GIVE[5]  what the offer gives, by trade kind (4 resources, a stored acorn)
      37..41 OFFER_GET[5]   what it asks for
      42 MIX_N  cards a gathering ability (the Beaver's) takes, its mix to choose (PH_MIX;
                0: none)   43 MIX_BACK  the phase it was used in (the turn goes on there)
      44 MIX_CARD  the creature using it (-1: none)          19, 22, 45..47 free
    ROW      [48 .. 53)    card kind per row place (-1 empty)
    DAY_ORDER[53 .. 85)    day card kinds, shuffled; DAY_ORDER[d-1] is day d's card
    PILE     [85 .. 89)    resource cards left in each pile (berry, twig, pebble, feather)
    MORNING  [89 .. 101)   what this morning's day card did to each seat, 3 per seat:
                           stored change, buried change, the army places Mr. Buttons ate
                           (bit i: place i; 0 none) (for the transcript, which tells them
                           apart from the fights of the same move; the Fox's blocked fights
                           are moves of their own)
    DECK     [101 .. 229)  card kinds, the top of the deck is DECK[DECK_N-1]
    DISCARD  [229 .. 357)  card kinds in the discard pile, DISCARD_N of them
    PLAYERS  [357 .. 357 + 4*PS)   one block per seat (PS = 136):

        +0 HOME | +1..+4 RES[4] | +5 STORE | +6 BURIED | +7 HAND[32] (count per card kind)
                  (STORE follows RES: trade kind 4, a stored acorn, is RES + 4)
        +39 ARMY[16]  card kind per army place (-1 empty)
        +55 AFLAG[16] bits: TIRED 1, NEW 2 (played this turn), DECIDED 4 (attack/block asked)
        +71 ATGT[16]  the seats an attacker goes against this turn, bit t for seat t (0:
                      none; more than one bit only for a Relentless creature, 3+ players)
        +87 ALINK[16] an attacker: the army place of the first of its unit (a Band shares
                      one; its first survivor, when a Relentless unit goes on); a blocker:
                      the army place of the attacker it blocks, FOX_LINK for the Fox (-1 none)
        +103 KNOWN[32] cards of each kind the whole table knows are in the hand: taken from
                      the face-up row (or dealt openly, first game); one fewer when a card
                      of that kind leaves face up (played, discarded), since the table
                      cannot tell whether it was the known one. Public, like HAND_N.
        +135 HAND_N   how many cards are in the hand (resources not counted): public
    DECK_CAN [901 .. 933)  the most cards of each kind the deck can hold, as the whole table
                           knows: at the start every card of the kind, one fewer each time
                           one is turned face up from the deck (into the row, or taken out
                           openly at a first game), and when the discard pile is shuffled
                           in, that pile's cards of the kind. Public; the deck never holds
                           more (check_state), and a determinisation deals the deck from
                           these cards only (NOTES.md, Determinisation)

Moves (small ints), written once here:

    GATHER+g      g of the home's 2nd kind, the rest of its 1st kind   0 .. 6
    DRAW, DRAW_REFRESH (refresh the row first), FORAGE                 7, 8, 9
    BURY+n-1      bury n acorns                                        10 .. 15
    TAKE_ROW+i, TAKE_DECK                                              16 .. 20, 21
    END_PLAY      done playing: on to attacks; after attacks, done: the turn ends; also
                  the one move of PH_DAWN, the forced step after setup that turns over
                  the first day                                           22
    STAY, ATTACK+t                                                     23, 24 .. 27
    NO_BLOCK, BLOCK_FOX, BLOCK+j (attacker at army place j)            28, 29, 30 .. 45
    ACCEPT, DECLINE   a trade offer                                    46, 47
    DISCARD+k     discard (or, at setup, return to the deck) a card    48 .. 79
    RETURN_RES+r  at setup, put back a resource card                   80 .. 83
    PLAY+4k+t     play card kind k (t: the player a trick picks)       84 .. 211
    ABILITY+i     use the ability of the creature at army place i      212 .. 227
    SWAP+4*pair+c give resource pair (PAIRS), take 1 of kind c         228 .. 267
    OFFER_START+t begin an offer to player t                           268 .. 271
    OFFER_ADD+i   put one more item in the offer: i < 5 one of my trade kind i, i >= 5 one
                  of their kind i - 5 asked for (a trade kind is a resource 0..3 or 4, a
                  stored acorn, TRADE_ACORN); items go in the order of i, so each offer is
                  built one way only                                  272 .. 281
    OFFER_MAKE, OFFER_DROP   make the offer as it stands, or withdraw it   282, 283
    PAY_RES+r     pay one resource card of kind r for the card being played  284 .. 287
                  (PH_PAY: only when the cost can be paid in more than one way)
    MIX+g         a gathering ability's mix (PH_MIX): g of the home's 2nd kind, the
                  rest of its 1st kind, as GATHER+g; only mixes the piles can fill, and
                  only when there are two or more (else the one way is taken at once)
                                                                       288 .. 308

Abilities, swaps and offers ("free moves") may be made before the action (PH_ACTION), in the
play step (PH_MAIN) and after the attacks (PH_AFTER).
"""

import numpy as np

MAXP = 4
MAX_KINDS = 32
MAX_CARDS = 128
MAX_DAY_CARDS = 32
MAX_ROW = 5
MAX_ARMY = 16
FOX_LINK = MAX_ARMY

# globals
N_PLAYERS, PHASE, SEAT, ACTOR, DAY, DAY_CARD, TURNS, WILD, DECK_N, DISCARD_N = range(10)
SUB, SLOT, DEFENDER, SWAP_TAKEN, OFFERS_USED, RALLY = range(10, 16)
OFFER_TO, OFFER_BACK, OFFER_LAST = range(16, 19)
FOX_MASK, SETUP_SEAT = 20, 21
FOUGHT = 23
PAY_CARD, PAY_TARGET, PAY_MIN, PAY_LEFT, PAID = range(24, 29)  # PAID: 28..31
OFFER_GIVE, OFFER_GET = 32, 37  # [5] each
MIX_N, MIX_BACK, MIX_CARD = 42, 43, 44
ROW = 48
DAY_ORDER = ROW + MAX_ROW
PILE = DAY_ORDER + MAX_DAY_CARDS
MORNING = PILE + 4
DECK = MORNING + 3 * MAXP
DISCARD = DECK + MAX_CARDS
PLAYERS = DISCARD + MAX_CARDS
# per-player block
HOME, RES, STORE, BURIED, HAND = 0, 1, 5, 6, 7
ARMY = HAND + MAX_KINDS
AFLAG = ARMY + MAX_ARMY
ATGT = AFLAG + MAX_ARMY
ALINK = ATGT + MAX_ARMY
KNOWN = ALINK + MAX_ARMY
HAND_N = KNOWN + MAX_KINDS
PS = HAND_N + 1
DECK_CAN = PLAYERS + MAXP * PS
STATE_SIZE = DECK_CAN + MAX_KINDS

TIRED, NEW, DECIDED = 1, 2, 4

# phases
(PH_SETUP, PH_ACTION, PH_DRAW, PH_MAIN, PH_REPLY, PH_ASSIGN, PH_BLOCK, PH_FOX_BLOCK,
 PH_DISCARD, PH_OVER, PH_DAWN, PH_PAY, PH_AFTER, PH_OFFER, PH_MIX) = range(15)
PHASE_NAMES = ["setup", "action", "draw", "play", "reply", "assign", "block", "fox-block",
               "discard", "over", "dawn", "pay", "after-attacks", "offer", "mix"]

# moves
GATHER = 0
DRAW, DRAW_REFRESH, FORAGE = 7, 8, 9
BURY = 10
TAKE_ROW, TAKE_DECK = 16, 21
END_PLAY = 22
STAY, ATTACK = 23, 24
NO_BLOCK, BLOCK_FOX, BLOCK = 28, 29, 30
ACCEPT, DECLINE = 46, 47
DISCARD_CARD = 48
RETURN_RES = 80
PLAY = 84
ABILITY = 212
SWAP = 228
OFFER_START = 268
OFFER_ADD = 272
OFFER_MAKE, OFFER_DROP = 282, 283
TRADE_ACORN = 4  # trade kinds: the four resources, then a stored acorn
N_TRADE_KINDS = 5
assert STORE == RES + TRADE_ACORN  # so a player's holding of trade kind c is at RES + c
PAY_RES = 284
MIX = 288
MAX_AMOUNT = 20  # data.toml's bound on a card's amount: a mix takes at most this many
MAX_MOVES = MIX + MAX_AMOUNT + 1

# the resource pairs a swap gives (first kind gives ceil(n/2) cards, second floor(n/2))
PAIRS = np.array([[a, b] for a in range(4) for b in range(a, 4)], dtype=np.int32)

RESOURCE_NAMES = ["berry", "twig", "pebble", "feather"]

# card table columns (params[0], int32[n_kinds, N_CARD_COLS])
# C_ATTACKS: how many attacks (each against a different player) the creature may go on in a
# turn: 1, or `relentless_attacks` for the word "relentless"
(C_COUNT, C_BERRY, C_TWIG, C_PEBBLE, C_FEATHER, C_ANY, C_STR, C_HP, C_FLY, C_RANGED, C_BAND,
 C_WAITS, C_TRICK, C_EFFECT, C_AMOUNT, C_TARGETED, C_ATTACKS) = range(17)
N_CARD_COLS = 17
C_COST = C_BERRY

EFFECTS = ["none", "defend_strength", "unblocked_dig", "unblocked_steal", "tire_forage",
           "tire_bury", "tire_draw", "tire_gather", "forage", "bury", "draw", "steal_store",
           "dig_up", "ambush", "rally"]
(E_NONE, E_DEFEND, E_UNBLOCKED_DIG, E_UNBLOCKED_STEAL, E_TIRE_FORAGE, E_TIRE_BURY, E_TIRE_DRAW,
 E_TIRE_GATHER, E_FORAGE, E_BURY, E_DRAW, E_STEAL_STORE, E_DIG_UP, E_AMBUSH,
 E_RALLY) = range(15)
CREATURE_EFFECTS = {"none", "defend_strength", "unblocked_dig", "unblocked_steal",
                    "tire_forage", "tire_bury", "tire_draw", "tire_gather"}
TARGETED_EFFECTS = {"steal_store", "dig_up", "ambush"}
WORDS = {"flying", "ranged", "band", "relentless", "waits", "trick"}

# day card kinds (fixed: each is an effect the kernels implement)
DAY_NAMES = ["quiet_day", "mr_buttons", "the_fox", "the_jay", "lost_hoard", "heavy_rain",
             "hard_frost", "windy_day", "full_moon", "call_to_arms", "good_harvest",
             "travelling_pedlar", "thick_fog", "market_day", "spring_thaw", "bumper_crop",
             "spring_flood", "busy_day"]
(D_QUIET, D_BUTTONS, D_FOX, D_JAY, D_LOST_HOARD, D_RAIN, D_FROST, D_WINDY, D_MOON, D_CALL,
 D_HARVEST, D_PEDLAR, D_FOG, D_MARKET, D_THAW, D_BUMPER, D_FLOOD, D_BUSY) = range(18)
N_DAY_KINDS = 18
# days whose effect happens when turned over; each has an "affected" item column
IMMEDIATE_DAYS = [D_BUTTONS, D_FOX, D_JAY, D_LOST_HOARD, D_HARVEST, D_PEDLAR, D_THAW,
                  D_FLOOD]

# the rules' numbers: P[0 .. N_RULES)
(R_DAYS, R_HAND_LIMIT, R_SWAP_GIVE, R_GATHER, R_DRAW, R_FORAGE, R_BURY, R_ROW, R_DEAL,
 R_SETUP_RES, R_KEEP, R_ACORNS_PP, R_RES_PER_KIND, R_FIRST_GAME, R_OFFERS_PT,
 R_ARMY_LIMIT, R_NK, R_ND, R_NDAYS, R_FIRST_A, R_FIRST_B, R_IT_DAY, R_IT_AFF, R_IT_HOME,
 R_N_HOMES, R_MAX_GIVE, R_MAX_GET, R_MAX_TURNS) = range(28)
N_RULES = 28

# item events per card kind (columns k*5 + event)
EV_DRAWN, EV_PLAYED, EV_ATTACKED, EV_BLOCKED, EV_DIED = range(5)
CARD_EVENTS = ["drawn", "played", "attacked", "blocked", "died"]

# params[FLAT]: every table in one int32 array (the kernels' ``P``)
#   [0, N_RULES) the rules' numbers | CARD: cards[k, col] at CARD + k*N_CARD_COLS + col
#   DAYV: day_vals[d, j] at DAYV + 4d + j | HOMES: homes[h, i] at HOMES + 2h + i
#   DECK0: the deck's card kinds | DAYD: the day deck's kinds
FLAT = 0
CARD = 32
DAYV = CARD + MAX_KINDS * N_CARD_COLS
HOMES = DAYV + N_DAY_KINDS * 4
MAX_HOMES = 16
DECK0 = HOMES + 2 * MAX_HOMES
DAYD = DECK0 + MAX_CARDS
P_SIZE = DAYD + MAX_DAY_CARDS


def tables(params):
    """Python's view of the flat parameters: (cards int32[K, N_CARD_COLS], day_vals
    int32[N_DAY_KINDS, 4], homes int32[H, 2], rules int32[N_RULES])."""
    P = params[FLAT]
    nk, nh = int(P[R_NK]), int(P[R_N_HOMES])
    return (P[CARD:CARD + nk * N_CARD_COLS].reshape(nk, N_CARD_COLS),
            P[DAYV:DAYV + N_DAY_KINDS * 4].reshape(N_DAY_KINDS, 4),
            P[HOMES:HOMES + 2 * nh].reshape(nh, 2), P[:N_RULES])
