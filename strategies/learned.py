"""``learned``: plays by a model that learnt the game by self-play (``simkit train``,
docs/learning.md). It searches nothing: by the model's policy when it has one (a score for
each legal move from the seat's observation alone, distilled from the model's values), else
it values the position each legal move leads to (reached in one determinisation of what its
seat knows) by the model; it plays the best.
Generic: the engine renders it with the search strategies (``simkit/search_template.py``)
for every game with a ``features`` and a ``determinize`` kernel.

Its model is ``--weight learned.model=FILE``, else the one that matches the run's game,
player count, VERSION and data (the user's, in simkit's cache, then the game's shipped
one); its weights: ``temperature`` (0: the best move; more: a softmax of the values),
``epsilon`` (the chance of a random move), ``samples`` (determinisations a decision, by
values), ``by`` (``policy``, the default, or ``values``: the afterstate values even when
the model has a policy), and by a policy ``top`` and ``margin`` (its best moves, those
within the margin of its best, valued by their afterstates)."""

from simkit.learn import BY, NAMED
from simkit.registry import StrategySpec, register_strategy

register_strategy(StrategySpec(
    "learned", None, search="learned", weights=dict(NAMED), named_weights={"by": BY},
    summary="a model learnt by self-play (simkit train) scores each legal move, by its "
            "policy or its values of the position after it; the best is played (no search)"))
