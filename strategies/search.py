"""The search strategies: ``mc`` (flat Monte Carlo) and ``ismcts`` (information-set Monte
Carlo tree search). Both are generic: the engine renders ``simkit/search_template.py`` for
every game that has a ``determinize`` kernel and calls it from the game's driver, so they
play every such game, simkit's own and a plugin's, and never see what the deciding seat has
not seen.

Knobs are ordinary weights (``--weight ismcts.iterations=1000``), and ``NAME@N`` sets the
budget, so one run can seat two budgets (``--strategies ismcts@200,ismcts@1000``); see
``simkit.search.KNOBS`` for what each knob does.
"""

from simkit.registry import StrategySpec, register_strategy
from simkit.search import CUTOFFS, GUIDED, KNOBS, ROLLOUTS

register_strategy(StrategySpec(
    "mc", None, search="mc", budget="iterations", weights=dict(KNOBS),
    named_weights={"rollout": dict(ROLLOUTS), "cutoff": dict(CUTOFFS)},
    summary="flat Monte Carlo: playouts of every legal move from determinised states, the "
            "best mean reward wins (mc@N: N playouts a decision)"))
register_strategy(StrategySpec(
    "ismcts", None, search="ismcts", budget="iterations", weights=dict(KNOBS),
    named_weights={"rollout": dict(ROLLOUTS), "cutoff": dict(CUTOFFS)},
    summary="information-set Monte Carlo tree search (Cowling, Powley and Whitehouse 2012), "
            "UCB1 with availability counts (ismcts@N: N iterations a decision)"))
register_strategy(StrategySpec(
    "ismcts+learned", None, search="guided", budget="iterations",
    weights={**KNOBS, **GUIDED},
    named_weights={"rollout": dict(ROLLOUTS), "cutoff": dict(CUTOFFS)},
    summary="ismcts guided by the learnt model (learned's): its values of a node's moves are "
            "a prior in selection, its values of a leaf score it (ismcts+learned@N)"))
