"""Pig told as text, for ``simkit replay``."""

from .rules import BANKED, HOLD, SEAT, TURN_TOTAL


def describe_setup(params, n_players, state):
    return [f"target {int(params[0][0])} points; P1 starts"]


def describe_move(params, n_players, before, move, after):
    seat = before[SEAT]
    if move == HOLD:
        return [f"holds, banking {before[TURN_TOTAL]} (total {after[BANKED + seat]})"]
    if after[SEAT] != seat:
        return ["rolls a 1: loses the turn total"]
    face = after[TURN_TOTAL] - before[TURN_TOTAL]
    return [f"rolls a {face} (turn total {after[TURN_TOTAL]})"]


def describe_choice(params, n_players, obs, move, after):
    """A move a search weighed, as its seat saw it: the roll it would make is chance's."""
    if move == HOLD:
        return describe_move(params, n_players, obs, move, after)[0]
    return "rolls"


def check_state(params, n_players, state):
    problems = []
    if any(state[BANKED + s] < 0 for s in range(n_players)):
        problems.append("a negative bank")
    if not 0 <= state[SEAT] < n_players:
        problems.append(f"seat {state[SEAT]} out of range")
    return problems
