"""Avalon's state layout: one flat int32 array, -1 meaning empty.

Cards are kept by *type*, since two cards of one colour and kind are interchangeable:
``type = colour * 2 + kind`` with kind 0 = knight, 1 = enchantress (10 types for the five
colours). Territories lie in a row of 11 slots; slot order is adjacency ("connected").

    0  PLAYER          seat whose turn it is (seat 0 begins)
    1  PHASE           MAIN / COUNTER / DEFEND / LOSS / SUPPLY / DISCARD (see below)
    2  TURNS           completed turns
    3  WINNER          -1 until someone ends a turn with >= win_crowns; 2 = cards exhausted
    4  CONQUESTS       conquests made this turn (at most max_conquests)
    5  AVALON_USED     1 once Avalon's reduction has been used this turn
    6  LOSS_LEFT       additional conquest losses still to pay
    7  PENDING_TERR    slot of the announced enchantment / attack (-1 none)
    8  PENDING_TYPE    card type of the announced enchantress / attacking card (-1 none)
    9  DECK_N          cards left in the draw pile
   10  START_DRAWN     cards drawn from a dark tile at the start of this turn
   +-----------------+-----------------+
   | HAND  seat 0 [10 types]           |  11 ..  30  counts by type (hidden from the other)
   | HAND  seat 1 [10 types]           |
   +-----------------------------------+
   | HAND_SIZE [2]                     |  31 ..  32  (visible: a hand's size is seen)
   | DARK_PENDING [2]                  |  33 ..  34  dark tile kind lying before a seat, -1
   | TILE_AVAIL [6]                    |  35 ..  40  face-up tiles of each kind
   | OWNER [11]                        |  41 ..  51  owner of each slot, -1 = face down
   | TERR_CARD [11]                    |  52 ..  62  territory card in each slot (hidden
   |                                   |             while face down)
   | HEIGHT [2][11]                    |  63 ..  84  cards on each side at each slot
   | DISCARD [10 types]                |  85 ..  94  the discard pile, counts by type
   | SHOWN [2][10 types]               |  95 .. 114  cards in a seat's hand the other
   |                                   |             seat knows are there (see below)
   +-----------------------------------+
   | RULES [59]                        | 115 .. 173  a copy of params[0] made by new_game:
   |   M_* main numbers, P_CROWNS /    |             the hot kernels read the game's numbers
   |   P_TERRAIN / P_SPECIAL by card,  |             here, never from the params tuple
   |   P_TILE_COUNT / P_TILE_CARDS     |             (taking an array out of a tuple costs
   |   by tile kind                    |             reference counts on every move)
   +-----------------------------------+
   | DECK [ncards]                     | 174 ..      draw pile, DECK[DECK_N-1] is the top
   | STACK [2][11][ncards]             |  each side's pile at each slot, bottom first;
   |                                   |  STACK[s][i][HEIGHT[s][i]-1] is the top card
   +-----------------------------------+

SHOWN is the other seat's memory of a hand: the enchantress a counter-spell brings into the
defender's hand is seen going there, so it counts one there; each card of a type that
leaves the hand face up (laid, announced, lost, discarded) takes one off, since the other
seat cannot tell whether it was the one it knew of. It never exceeds the hand's count.

Phases (who decides in each, see ``rules.to_move``):

    MAIN     the player: strengthen, enchant, attack, or end his plays
    COUNTER  the defender: counter-spell the announced enchantment or not
    DEFEND   the defender: ward off the announced attack or not
    LOSS     the conqueror: pay one additional conquest loss (hand card, a pile's top
             card, or Avalon's reduction)
    SUPPLY   the player: take a supply tile
    DISCARD  the player: discard one card down to the hand limit

"""

N_TERR = 11
N_COLOURS_MAX = 5
N_TYPES = 2 * N_COLOURS_MAX
N_TILE_KINDS = 6
KNIGHT, ENCHANTRESS = 0, 1

PLAYER, PHASE, TURNS, WINNER, CONQUESTS, AVALON_USED, LOSS_LEFT = 0, 1, 2, 3, 4, 5, 6
PENDING_TERR, PENDING_TYPE, DECK_N, START_DRAWN = 7, 8, 9, 10
HAND = 11
HAND_SIZE = HAND + 2 * N_TYPES
DARK_PENDING = HAND_SIZE + 2
TILE_AVAIL = DARK_PENDING + 2
OWNER = TILE_AVAIL + N_TILE_KINDS
TERR_CARD = OWNER + N_TERR
HEIGHT = TERR_CARD + N_TERR
DISCARD = HEIGHT + 2 * N_TERR
SHOWN = DISCARD + N_TYPES
RULES = SHOWN + 2 * N_TYPES

# the rules block: absolute state offsets; params[0][k - RULES] holds the same number
M_COLOURS, M_KNIGHTS, M_ENCH, M_NCARDS = RULES, RULES + 1, RULES + 2, RULES + 3
M_WIN, M_HAND_LIMIT, M_MAX_CONQ, M_CASTLE_DEF = RULES + 4, RULES + 5, RULES + 6, RULES + 7
M_CASTLE_LOSS, M_AVALON_RED, M_START_HAND = RULES + 8, RULES + 9, RULES + 10
M_PER_SIDE, M_EXHAUSTED_DRAW = RULES + 11, RULES + 12
M_MAX_TURNS = RULES + 13  # the engine's turn cap: no rule reads it, the features' clock does
P_CROWNS = RULES + 14  # per territory card id
P_TERRAIN = P_CROWNS + N_TERR
P_SPECIAL = P_TERRAIN + N_TERR
P_TILE_COUNT = P_SPECIAL + N_TERR  # per supply tile kind
P_TILE_CARDS = P_TILE_COUNT + N_TILE_KINDS
N_PARAMS = P_TILE_CARDS + N_TILE_KINDS - RULES
DECK = RULES + N_PARAMS

MAIN, COUNTER, DEFEND, LOSS, SUPPLY, DISCARD_PHASE = 0, 1, 2, 3, 4, 5
PHASE_NAMES = ["main", "counter", "defend", "loss", "supply", "discard"]

# terrains and special functions of territory cards (data.toml names -> codes)
PLAIN, FOREST, HILL, NO_TERRAIN = 0, 1, 2, 3
TERRAIN_NAMES = ["plain", "forest", "hill", "none"]
SP_NONE, SP_CASTLE, SP_AVALON, SP_SWAMP, SP_CIRCLE = 0, 1, 2, 3, 4
SPECIAL_NAMES = ["none", "castle", "avalon", "swamp", "stone_circle"]

# supply tile kinds, in data.toml order
TILE_FIXED_LIGHT, TILE_TERRAIN_LIGHT, TILE_CONNECTED_LIGHT = 0, 1, 2
TILE_FIXED_DARK, TILE_TERRAIN_DARK, TILE_PER_TERRITORY_DARK = 3, 4, 5
TILE_NAMES = ["light_2_cards", "light_per_terrain", "light_per_connected",
              "dark_4_cards", "dark_per_terrain", "dark_per_territory"]
FIRST_DARK = 3

COLOUR_NAMES = ["red", "blue", "green", "yellow", "violet"]


def stack_offset(ncards: int, seat: int, slot: int) -> int:
    """Python-side offset of STACK[seat][slot][0] (the kernels compute it the same way)."""
    return DECK + ncards + (seat * N_TERR + slot) * ncards
