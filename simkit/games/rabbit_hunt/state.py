"""Rabbit Hunt's state layout, its move encoding and its compiled parameters.

The farmland is a hex grid of ``n_cells`` cells (axial coordinates, radius ``board_radius``)
with the warehouse in the centre cell; "crisscross, at least two neighbours" is exactly a
hex grid's rule. A state is one int32 array:

    +----------------------------------------------------------------------------------+
    | header (16)  N_PLAYERS TURN_SEAT TO_MOVE PHASE ACTIONS_LEFT TURNS END PILE_LEN   |
    |              AUX_CELL AUX_COUNT LOOKER SUPPLY REMOVED ...                        |
    | per seat     FARMER[4] CARROTS[4] CAUGHT[4] LOST[4] ELIMINATED[4] IN_HAND[4]     |
    |              IN_HAND: cards held (public: everyone sees how many)                |
    | hands        HAND[4][15]   counts by kind: 0..13 farmland events, 14 own bunny   |
    | pile         PILE[75]      farmland kinds, top of the pile at PILE[PILE_LEN-1]   |
    |              PILE_TAGS[75] memory tags of each pile card (below)                 |
    | memory       GROUPS[4][16][19]  per seat 16 groups:                              |
    |                            OWNER LOCS UNKNOWN BUNNY_CAP KNOWN[15]                |
    | cells        CARD[n_cells] -1 empty, 0..13 farmland kind, 14+s bunny of seat s,  |
    |                            30 warehouse                                          |
    |              FACE_UP[n_cells]  1 once revealed                                   |
    |              SEEN[n_cells]     bit s set: seat s knows what the card is          |
    |              PLACER[n_cells]   seat that put the card there, -1 none (public)    |
    |              NEXT_TO[n_cells]  cards on the neighbouring cells (cards never      |
    |                                leave the farmland, so this only grows)           |
    |              CELL_TAGS[n_cells] memory tags of each card (below)                 |
    +----------------------------------------------------------------------------------+

Memory (NOTES.md: What a seat remembers). What seat ``v`` knows of the cards it cannot see
is a few *groups*: a set of places (a player's hand, face-down cards, cards at the bottom of
the pile) that together hold KNOWN (counts by hand kind, bunnies at 14) plus UNKNOWN cards
it knows nothing about, which come from the cards it has not seen anywhere. Group row
``GROUPS[v][g]``:

    OWNER      whose cards they are, -1 a free row
    LOCS       how many face-down cards and pile cards of the group are tagged with it
    UNKNOWN    cards of the group the seat does not know
    BUNNY_CAP  hand groups: the most bunnies the hand can hold (it only shrinks when the
               hand does: a drawn card is never a bunny); 0 in the other rows
    KNOWN      [15] cards of the group it knows, by kind

Rows 0..3 are the hand groups: row ``o`` is seat o's hand plus the cards it laid or put back
since ``v`` last knew that hand exactly (row ``v`` itself is unused: a seat sees its hand).
Rows 4..15 hold cards cut off from a hand when ``v`` learnt the hand (a look, a show): they
still hold what the hand's group held and the hand no longer does. A tag word (one per cell,
one per pile card) keeps 7 bits per seat, seat s at bits 7s..7s+6: 0 the card is in none
of s's groups (seen by s, or a card s knows nothing special about), g+1 it is in s's group
g, 127 s knows it (a card it put back under the pile). The pile never holds a bunny.

The seat whose turn it is (TURN_SEAT) is kept apart from the seat that decides (TO_MOVE):
a player whose hand was looked at decides which cards to put back during another's turn.
"""

import numpy as np

from simkit.data import fixed_records
from simkit.errors import SimkitError

MAX_SEATS = 4
KINDS = [
    "empty", "take_1_carrot", "take_2_carrots", "draw_1_card", "draw_2_cards", "move_1_step",
    "move_any_farmer", "farmer_to_warehouse", "peek", "place_a_card", "show_hand",
    "show_hand_or_lose_carrots", "everyone_shows", "turn_ends",
]
(EMPTY, CARROT_1, CARROT_2, DRAW_1, DRAW_2, STEP_1, MOVE_ANY, TO_WAREHOUSE, PEEK, PLACE_CARD,
 SHOW, SHOW_OR_LOSE, ALL_SHOW, TURN_ENDS) = range(14)
N_FARMLAND = 14
BUNNY = 14  # hand kind of one's own bunny; on a cell, BUNNY + owner seat
N_KINDS = 15
WAREHOUSE = 30
NO_CARD = -1
DECK_MAX = 75

# header
N_PLAYERS, TURN_SEAT, TO_MOVE, PHASE, ACTIONS_LEFT, TURNS, END, PILE_LEN = range(8)
AUX_CELL, AUX_COUNT, LOOKER, SUPPLY, REMOVED = range(8, 13)
HEADER = 16
FARMER = HEADER
CARROTS = FARMER + MAX_SEATS
CAUGHT = CARROTS + MAX_SEATS
LOST = CAUGHT + MAX_SEATS
ELIMINATED = LOST + MAX_SEATS
IN_HAND = ELIMINATED + MAX_SEATS
HAND = IN_HAND + MAX_SEATS
PILE = HAND + MAX_SEATS * N_KINDS
PILE_TAGS = PILE + DECK_MAX

# memory: each seat's groups (see the layout above)
N_SPLIT = 12  # groups cut off from hands, per seat (beyond them two are merged): 1,000
# random 4-player games need at most 13, 2 of them more than 12; heuristic games at most 9
N_GROUPS = MAX_SEATS + N_SPLIT
G_OWNER, G_LOCS, G_UNKNOWN, G_BUNNY_CAP, G_KNOWN = range(5)
GROUP_W = G_KNOWN + N_KINDS
GROUPS = PILE_TAGS + DECK_MAX
TAG_BITS, TAG_MASK = 7, 127
KNOWN_TAG = 127  # a pile card the seat knows (it put it back)

CELLS = GROUPS + MAX_SEATS * N_GROUPS * GROUP_W
# CARD, FACE_UP, SEEN, PLACER, NEXT_TO, CELL_TAGS follow, n_cells each
N_CELL_FIELDS = 6

# phases: what the next decision is about
(PH_PLACE, PH_ACTION, PH_SWAP, PH_STEP, PH_MOVE_ANY, PH_TO_WAREHOUSE, PH_PEEK, PH_EXTRA_PLACE,
 PH_RETURN) = range(9)
PHASE_NAMES = ["place", "action", "swap", "step", "move_any", "to_warehouse", "peek",
               "extra_place", "return"]

# end reasons (0 is the engine's timeout)
END_REASONS = ["timeout", "pile_empty", "last_standing"]
RUNNING, PILE_EMPTY, LAST_STANDING = 0, 1, 2

# Moves: kind << 16 | argument.
#   PLACE     kind * 256 + cell   a card of that kind (14 = a bunny) on that cell
#   DRAW, CARROT                  the draw and carrot actions
#   MOVE      cell                move the farmer there, paying by distance
#   LOOK      seat                3 carrots: look at that seat's hand
#   SWAP      kind                after revealing one's own bunny: the card that replaces it
#   STEP      cell                the "move 1 step" event's step
#   MOVE_ANY  seat * 256 + cell   the "move any farmer" event
#   TO_HOME   seat                the "farmer to warehouse" event
#   PEEK      cell                the "peek" event
#   RETURN    kind                the looked-at player puts a card of that kind back
#   DONE                          ... and stops putting cards back
(M_PLACE, M_DRAW, M_CARROT, M_MOVE, M_LOOK, M_SWAP, M_STEP, M_MOVE_ANY, M_TO_HOME, M_PEEK,
 M_RETURN, M_DONE) = range(12)
MOVE_NAMES = ["place", "draw", "carrot", "move", "look", "swap", "step", "move_any",
              "to_warehouse", "peek", "return", "done"]

# The kernels' parameters are one flat int32 array (params[0]): 19 scalars, then the
# neighbour table (n_cells x 6, -1 off the board) at NEIGH, then the deck counts by kind at
# DECK (they follow the table: DECK = NEIGH + 6 * n_cells, stored as P_DECK_AT), then the
# window table (n_cells x WINDOW_CELLS, below) at P_WINDOW_AT. P_MAX_TURNS, the engine's turn
# cap, is read by no rule: the learnt players' features give the turn as a share of it.
(P_CELLS, P_CENTER, P_CARROTS_TOTAL, P_CARROTS_START, P_CARROT_CAP, P_HAND_SIZE, P_BUNNIES,
 P_REMOVED, P_COST_1, P_COST_23, P_COST_ANY, P_COST_LOOK, P_ACTIONS, P_PARTNERS_CATCH,
 P_MOVE_ANY_REVEALS, P_DECK, P_DECK_AT, P_WINDOW_AT, P_MAX_TURNS) = range(19)
NEIGH = 19

# The window round a cell: the cells within WINDOW_REACH steps of it (the farthest a 2-3
# step move goes), as bits of one int64, bit a * WINDOW + b for the axial offset
# (a - WINDOW_REACH, b - WINDOW_REACH). Cells are numbered in (q, r) order and so are the
# bits: a set's bits in rising order are its cells in rising order. A move's reach is then
# a few shifts of one word (rules.window_reach), nothing allocated. The window table gives
# each cell's window cells, -1 off the board or more than WINDOW_REACH steps away.
WINDOW_REACH = 3
WINDOW = 2 * WINDOW_REACH + 1
WINDOW_CELLS = WINDOW * WINDOW
WINDOW_MIDDLE = WINDOW_REACH * WINDOW + WINDOW_REACH

# item columns: per farmland kind drawn / placed / triggered, then bunnies
ITEM_COLUMNS = [f"{k}:{e}" for k in KINDS for e in ("drawn", "placed", "triggered")]
ITEM_COLUMNS += ["bunny:placed", "bunny:caught", "bunny:lost"]
IT_DRAWN, IT_PLACED, IT_TRIGGERED = 0, 1, 2
IT_BUNNY_PLACED, IT_BUNNY_CAUGHT, IT_BUNNY_LOST = 42, 43, 44


def hex_board(radius: int):
    """Cells of a hex grid of ``radius`` round the centre: (axial coords, neighbour table
    int32[n, 6] with -1 off the board, index of the centre)."""
    coords = [(q, r) for q in range(-radius, radius + 1) for r in range(-radius, radius + 1)
              if abs(q + r) <= radius]
    index = {c: i for i, c in enumerate(coords)}
    steps = [(1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1)]
    neigh = np.full((len(coords), 6), -1, dtype=np.int32)
    for i, (q, r) in enumerate(coords):
        for d, (dq, dr) in enumerate(steps):
            neigh[i, d] = index.get((q + dq, r + dr), -1)
    return np.array(coords, dtype=np.int32), neigh, index[(0, 0)]


def window_table(coords) -> np.ndarray:
    """int32[n, WINDOW_CELLS]: for each cell, the cell at each window offset (see WINDOW),
    -1 off the board or more than WINDOW_REACH steps away."""
    index = {(int(q), int(r)): i for i, (q, r) in enumerate(coords)}
    table = np.full((len(coords), WINDOW_CELLS), -1, dtype=np.int32)
    for i, (q, r) in enumerate(coords):
        for a in range(WINDOW):
            for b in range(WINDOW):
                dq, dr = a - WINDOW_REACH, b - WINDOW_REACH
                if abs(dq + dr) <= WINDOW_REACH:
                    table[i, a * WINDOW + b] = index.get((int(q) + dq, int(r) + dr), -1)
    return table


def compile_params(values: dict, n_players: int) -> tuple:
    """Effective data values -> (flat int32 parameters for the kernels, coordinates
    int32[C, 2] of the cells for the transcript)."""
    farmland = fixed_records(values, "farmland", KINDS, "event")
    deck = np.array([farmland[k]["count"] for k in KINDS], dtype=np.int32)
    total = int(deck.sum())
    removed = int(values["removed_cards"][n_players - 2])
    needed = values["cards_round_warehouse"] + n_players * values["hand_size"] + 1
    if total > DECK_MAX:
        raise SimkitError(f"farmland: the counts add up to {total}; at most {DECK_MAX} fit")
    if total - removed < needed:
        raise SimkitError(
            f"farmland: the counts add up to {total} cards and removed_cards puts {removed} "
            f"away for {n_players} players, leaving {total - removed}; the warehouse ring and "
            f"the deals need at least {needed}")
    if n_players * values["carrots.start"] > values["carrots.total"]:
        raise SimkitError("carrots.start times the players exceeds carrots.total")
    if values["carrots.cap"] < values["carrots.start"]:
        raise SimkitError(f"carrots.cap ({values['carrots.cap']}) is below carrots.start "
                          f"({values['carrots.start']}): players would start over the cap")
    coords, neigh, center = hex_board(values["board_radius"])
    scalars = np.zeros(NEIGH, dtype=np.int32)
    scalars[:] = [
        len(coords), center, values["carrots.total"], values["carrots.start"],
        values["carrots.cap"], values["hand_size"], values["bunnies_per_player"], removed,
        values["costs.move_1_step"], values["costs.move_2_to_3_steps"],
        values["costs.move_anywhere"], values["costs.look_at_hand"], values["actions_per_turn"],
        int(values["partners_can_catch"]), int(values["move_any_reveals_own"]), total,
        NEIGH + neigh.size, NEIGH + neigh.size + deck.size, values["max_turns"],
    ]
    window = window_table(coords)
    flat = np.concatenate([scalars, neigh.ravel(), deck, window.ravel()])
    return flat.astype(np.int32), coords


def teams(n_players: int) -> list[int]:
    """Four players play as two teams, partners sitting opposite (seats 1+3 and 2+4)."""
    return [0, 1, 0, 1] if n_players == 4 else list(range(n_players))


def state_size_for(n_cells: int) -> int:
    return CELLS + N_CELL_FIELDS * n_cells
