"""High card told as text, for ``simkit replay``, and its conservation law."""

from .state import DECK, DECK_N, HAND, LED, MAX_HAND, PLAYED, POINTS, TO_MOVE, TRICKS


def _hand(state, seat) -> list[int]:
    return sorted(int(r) for r in state[HAND + seat * MAX_HAND:HAND + (seat + 1) * MAX_HAND]
                  if r > 0)


def describe_setup(params, n_players, state):
    return [f"P{s + 1} holds {_hand(state, s)} [seen by P{s + 1}]" for s in range(2)] + \
        [f"{state[DECK_N]} cards in the deck"]


def describe_move(params, n_players, before, move, after):
    seat = int(before[TO_MOVE])
    if before[LED] < 0:
        return [f"leads a {move}"]
    if move == before[LED]:
        result = "a tie: nobody wins the trick"
    else:
        winner = seat if move > before[LED] else 1 - seat
        result = f"P{winner + 1} wins the trick ({after[POINTS + winner]} points)"
    lines = [f"answers a {before[LED]} with a {move}: {result}"]
    for s in range(2):
        got = len(_hand(after, s)) - len(_hand(before, s)) + (1 if s == seat else 0)
        if got > 0:
            lines.append(f"P{s + 1} draws to {_hand(after, s)} [seen by P{s + 1}]")
    return lines


def move_label(params, n_players, move) -> str:
    """A move's short name, for the decision log and the checklist: "card 5"."""
    return f"card {move}"


def describe_choice(params, n_players, obs, move, after):
    """A move a search weighed, from its seat's view: the card, and the card it answers."""
    if obs[LED] < 0:
        return f"leads a {move}"
    return f"answers a {obs[LED]} with a {move}"


def check_state(params, n_players, state):
    """Every card is in one place: a hand, the deck or played; points never exceed tricks."""
    ranks, copies, hand_size = (int(x) for x in params[0][:3])
    problems = []
    held = [0] * (ranks + 1)
    for r in list(state[HAND:HAND + 2 * MAX_HAND]) + list(state[DECK:DECK + state[DECK_N]]):
        if r > 0:
            held[r] += 1
    for r in range(1, ranks + 1):
        if held[r] + state[PLAYED + r - 1] != copies:
            problems.append(f"rank {r}: {held[r]} held, {state[PLAYED + r - 1]} played, "
                            f"not {copies} in all")
    for s in range(2):
        if len(_hand(state, s)) > hand_size:
            problems.append(f"P{s + 1} holds more than {hand_size} cards")
    if state[POINTS] + state[POINTS + 1] > state[TRICKS]:
        problems.append("more points than tricks")
    return problems
