"""Watership Down: the state layout, the move encoding and the game's fixed names.

A state is one flat int32 array. Seat 0 is the elil player (side ELIL = 0, who moves
first), seat 1 the hlessil player (side HLESSIL = 1); a side's number is its seat.

    0                                          HEADER (48)
    +------------------------------------------------------------------------+
    | SIDE DECIDER PHASE STEP TURN WINNER END SETUP | MOVER ORIGIN BSPACE ATT |
    | DEF CARD_E CARD_H CARDS_OPEN ROUND PIPKIN_ON HAZEL_ON NOCARDS PRE       |
    | RET_CHAR RET_DIRS RESUME FLAME_USED QUESTION DAND HOLLY ENSNARED        |
    | SNARE_FREED ATTACKING ELIL_FIRST DOWN_SEEN  JOIN_AT[5] OPT_USED GIFT    |
    | POST CAUGHT CATCHES BB_ONTO_SNARE (spare)                              |
    +------------------------------------------------------------------------+
    LOC[23]    space of each character, -1 off the board        (48 .. 70)
    STAT[23]   PENDING 0 / IN_PLAY 1 / DEFEATED 2 / LOST 3      (71 .. 93)
    KNOWN[23]  1 when the opponent knows which token it is      (94 .. 116)
    LOCK[23]   1 for an elil Holly looked at: cannot be mixed   (117 .. 139)
    HAND[2][11] 1 when the card is in the side's hand; a card chosen face
               down stays until both cards are revealed           (140 .. 161)
    CNT[2][16] tokens of each side on each space (public)       (162 .. 193)
    SEEN_AT[23] the space the opponent knows a character stands on though it
               no longer knows which token it is, -1 none (public)  (194 .. 216)

Characters 0..13 are the rabbits (hlessil), 14..22 the elil. -1 means empty or none.

KNOWN says the opponent can tell which token a character is; SEEN_AT keeps what it still
knows of a character after a shuffle hides its token: the space, for as long as no unseen
token leaves that space (NOTES.md, Hidden identities and shuffling).
PHASE says which decision is awaited from seat DECIDER; STEP is where the automatic
resolution resumes after it (battle sub-steps, escapes, the end of a turn).
"""

ELIL, HLESSIL = 0, 1

# characters
HAZEL, FIVER, BIGWIG, BLACKBERRY, DANDELION, PIPKIN, SILVER, BUCKTHORN, HAWKBIT = range(9)
HOLLY, STRAWBERRY, CLOVER, HYZENTHLAY, BLACKAVAR = range(9, 14)
WOUNDWORT, CAMPION, VERVAIN, CAT, DOG, FOX, RATS, KESTREL, SNARE = range(14, 23)
N_RABBITS, N_CHARS, FIRST_JOINER, N_JOINERS = 14, 23, 9, 5
CHAR_NAMES = ["Hazel", "Fiver", "Bigwig", "Blackberry", "Dandelion", "Pipkin", "Silver",
              "Buckthorn", "Hawkbit", "Holly", "Strawberry", "Clover", "Hyzenthlay",
              "Blackavar", "Woundwort", "Campion", "Vervain", "Cat", "Dog", "Fox", "Rats",
              "Kestrel", "Snare"]
CHAR_KEYS = [n.lower() for n in CHAR_NAMES]

# character status
PENDING, IN_PLAY, DEFEATED, LOST = 0, 1, 2, 3

N_SPACES = 16
N_CARDS = 11          # nine battle cards + two optional cards (index 9, 10)
HAND_SIZE = 9

# directions, relative to the side of the character
D_FWD, D_BACK, D_SIDE = 0, 1, 2
DIR_NAMES = ["forward", "backward", "sideways"]

# card kinds
K_NUM, K_RET_BACK, K_RET_SIDE, K_RET_FWD, K_KEHAAR, K_TRACKER, K_FLAME = range(7)
KIND_NAMES = ["number", "retreat_backward", "retreat_sideways", "retreat_forward", "kehaar",
              "tracker", "flaming_stick"]

# header offsets
(SIDE, DECIDER, PHASE, STEP, TURN, WINNER, END, SETUP, MOVER, ORIGIN, BSPACE, ATT, DEF,
 CARD_E, CARD_H, CARDS_OPEN, ROUND, PIPKIN_ON, HAZEL_ON, NOCARDS, PRE, RET_CHAR, RET_DIRS,
 RESUME, FLAME_USED, QUESTION, DAND, HOLLY_LOOK, ENSNARED, SNARE_FREED, ATTACKING,
 ELIL_FIRST, DOWN_SEEN) = range(33)
JOIN_AT = 33          # 5 entries: where a triggered joiner will appear, -1 none
OPT_USED = 38         # optional cards used: bit 2*side (El-ahrairah), 2*side+1 (Gift)
GIFT = 39             # the character fighting with Gift to the Thousand this turn, -1
POST = 40             # next post-reveal question: 0 Blackberry, 1 and 2 El-ahrairah
CAUGHT = 41           # the rabbit the Snare caught most recently, -1 none (public)
CATCHES = 42          # how many times the Snare has caught a rabbit (for the transcript)
BB_ONTO_SNARE = 43    # 1 when Blackberry has just moved onto the busy Snare's space
HEADER = 48
LOC = HEADER
STAT = LOC + N_CHARS
KNOWN = STAT + N_CHARS
LOCK = KNOWN + N_CHARS
HAND = LOCK + N_CHARS
CNT = HAND + 2 * N_CARDS
SEEN_AT = CNT + 2 * N_SPACES
STATE_SIZE = SEEN_AT + N_CHARS

# phases (the decision awaited)
(P_SETUP, P_MOVE, P_GROUP, P_ESCAPE, P_DAND, P_HOLLY, P_QUESTION, P_CARD, P_RETREAT,
 P_FLAME, P_OVER) = range(11)
PHASE_NAMES = ["setup", "move", "hazel_group", "escape", "dandelion", "holly", "question",
               "card", "retreat", "flaming_stick", "over"]

# automatic steps
(S_WAIT, S_SELECT, S_FIGHT, S_PRE, S_CAT, S_CARDS, S_BLACKBERRY, S_RESOLVE, S_BATTLE_END,
 S_ARRIVED, S_POSTMOVE, S_ENDTURN) = range(12)

# yes/no questions (PHASE == P_QUESTION, QUESTION says which)
Q_HYZ, Q_BLACKAVAR, Q_PIPKIN, Q_HAZEL, Q_CAT, Q_BLACKBERRY, Q_TARGET, Q_EL_H, Q_EL_E = range(9)
QUESTION_NAMES = ["Hyzenthlay retreats sideways?", "Blackavar retreats forward?",
                  "reveal Pipkin (+1)?", "reveal Hazel (Fiver 2)?", "Cat: no cards?",
                  "Blackberry: cancel and play again?", "attack the ensnared rabbit?",
                  "hlessil: play El-ahrairah (cancel, play again)?",
                  "elil: play El-ahrairah (cancel, play again)?"]

# moves
#   0 .. 367      char * 16 + space   (a move, Dandelion's second move, a retreat, a
#                                      Flaming Stick retreat: the character and where to)
#   368 .. 383    M_SPACE + space     (escape destination, Holly's look)
#   384 .. 394    M_CARD + card       (a card from the decider's hand)
#   395 M_NOCARD, 396 M_NO, 397 M_YES, 398 M_PASS (Dandelion stops, Hazel's group done,
#                                      Holly does not look)
#   400 .. 422    M_CHAR + char       (setup placement, Hazel's companion)
#   512 .. 879    M_GIFT + char * 16 + space  (an attack with Gift to the Thousand played)
M_SPACE, M_CARD, M_NOCARD, M_NO, M_YES, M_PASS, M_CHAR = 368, 384, 395, 396, 397, 398, 400
M_GIFT = 512
MAX_MOVES = 200

# params: one flat int32 table (a 1-tuple), so kernels pass a single small array around
#
#   0    G[32]            game facts and switches (G_* in rules.py)
#   32   NB[2][3][16][2]  neighbours by side, direction, space (-1 none)
#   224  NBM[2][3][16]    the same neighbours as bitmasks
#   320  SP[16][3]        row, wooded, Watership Down
#   368  CH[23][4]        strength, side, doe, starts the game
#   460  CARDS[2][11][2]  kind, value of each side's cards
#   504  JOIN[5][3]       trigger kind, trigger spaces (bitmask), appear space (-1: there)
#   519  SETUP[2][5]      the five non-home spaces of each side, in placement order
#   529  NAMES[16][32]    space names as code points, 0-padded (for the transcript only)
#   1041 LEVELS[16]       bitmask of the spaces n forward moves of the hlessil from a Down
#                         space or Efrafa, by n (0 past the last; for the features)
NAME_LEN = 32
O_NB, O_NBM, O_SP, O_CH, O_CARDS, O_JOIN, O_SETUP, O_NAMES = (32, 224, 320, 368, 460, 504, 519,
                                                              529)
O_LEVELS = O_NAMES + N_SPACES * NAME_LEN
PARAMS_SIZE = O_LEVELS + N_SPACES

# end reasons
END_REASONS = ["timeout", "warren", "does_defeated", "eleven_defeated", "warren_impossible",
               "no_legal_move"]
E_TIMEOUT, E_WARREN, E_DOES, E_ELEVEN, E_IMPOSSIBLE, E_NO_MOVE = range(6)
