"""High card's state layout: one flat int32 array, -1 meaning empty.

    0 TO_MOVE   the seat that decides now
    1 LEADER    the seat that leads the trick
    2 TRICKS    tricks completed (the turn number)
    3 DECK_N    cards left in the deck
    4 LED       the card led this trick, face up (-1: none yet)
    5 POINTS [2]          tricks won by each seat
    7 HAND [2][MAX_HAND]  each seat's cards, by rank (-1 empty); hidden from the other
   15 PLAYED [MAX_RANKS]  cards of each rank played so far (public)
   28 DECK [MAX_DECK]     the deck, DECK[DECK_N - 1] its top card (hidden)

Moves: a card's rank (1 .. ranks), the card played from the hand.
"""

MAX_RANKS, MAX_COPIES, MAX_HAND = 13, 4, 4
MAX_DECK = MAX_RANKS * MAX_COPIES

TO_MOVE, LEADER, TRICKS, DECK_N, LED = range(5)
POINTS = 5
HAND = POINTS + 2
PLAYED = HAND + 2 * MAX_HAND
DECK = PLAYED + MAX_RANKS
STATE_SIZE = DECK + MAX_DECK

# params[0]: the game's numbers, compiled from data.toml
P_RANKS, P_COPIES, P_HAND, P_MAX_TURNS = range(4)
