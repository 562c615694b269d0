"""``learned``: plays by a model that learnt the game by self-play (``simkit train``,
docs/learning.md). It searches nothing: it values the position each legal move leads to
(reached in one determinisation of what its seat knows) by the model and plays the best.
Generic: the engine renders it with the search strategies (``simkit/search_template.py``)
for every game with a ``features`` and a ``determinize`` kernel.

Its model is ``--weight learned.model=FILE``, else the one that matches the run's game,
player count, VERSION and data (the user's, in simkit's cache, then the game's shipped
one); its weights: ``temperature`` (0: the best move; more: a softmax of the values),
``epsilon`` (the chance of a random move) and ``samples`` (determinisations a decision)."""

from simkit.learn import NAMED
from simkit.registry import StrategySpec, register_strategy

register_strategy(StrategySpec(
    "learned", None, search="learned", weights=dict(NAMED),
    summary="a model learnt by self-play (simkit train) values the position after each "
            "legal move; the best is played (no search)"))
