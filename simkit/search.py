"""The search strategies' per-game module: ``search_template.py`` rendered for one game, its
workspace, and a Python face for one decision.

Numba caches a function only when what it calls is a module-level global, so the generic
search is rendered per game (as the driver is), binding ``game`` to the game's rules and
``rollout_choose`` to a dispatch over the game's own (non-search) strategies, and cached on
disk under a digest of every source it depends on.

``Search.decide`` makes one decision from a seat's observation, for tests, benchmarks and
``simkit replay``; the runner's game loop calls the same kernels with a workspace allocated
once per thread.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path
from types import ModuleType

import numpy as np

from simkit import learn, registry
from simkit.driver import SEARCH_KERNELS as KERNELS
from simkit.driver import load_generated
from simkit.errors import SimkitError
from simkit.registry import TREE_SEARCHES

TEMPLATE = Path(__file__).with_name("search_template.py")
_BINDINGS_END = "# --- end of bindings ---"


@dataclass(frozen=True)
class Knob:
    """A search strategy's weight: its default, its range, and what it does."""

    default: float
    low: float
    high: float
    whole: bool
    doc: str


KNOBS_SPEC = {
    "iterations": Knob(400, 1, 1_000_000, True,
                       "playouts a decision, the budget (NAME@N sets it)"),
    "exploration": Knob(0.7, 0, 100, False,
                        "UCB1's exploration constant c (ismcts; rewards are score shares "
                        "from 0 to 1)"),
    "rollout": Knob(-1, -1, 1, True,
                    "the policy of the playouts: random, heuristic (the game's), or auto: "
                    "the heuristic where the game has one, else random"),
    "rollout_depth": Knob(0, 0, 1_000_000, True,
                          "cut a playout after this many decisions and score it 1/P for "
                          "every seat (0: play to the end)"),
    "widen_k": Knob(2, 0.01, 1_000_000, False,
                    "progressive widening (ismcts): a node with more than widen_above legal "
                    "moves keeps at most widen_k * visits^widen_alpha children"),
    "widen_alpha": Knob(0.5, 0, 1, False, "the exponent of progressive widening"),
    "widen_above": Knob(16, 0, 1_000_000, True,
                        "widen only the nodes with more legal moves than this"),
    "cutoff": Knob(0, 0, 3, True,
                   "how a playout cut by rollout_depth is scored: even (1/P each), standing "
                   "(the ranks the game's finish gives the position where it was cut), "
                   "progress (the leaders by the game's progress measure) or, for "
                   "ismcts+learned only, model (each seat's value by the learnt model)"),
    "rollout_random": Knob(0, 0, 1, False,
                           "in a heuristic rollout, the chance that a move is a random one "
                           "instead (a looser model of the other players)"),
    "cutoff_scale": Knob(0, 0, 1_000_000, False,
                         "cutoff progress: 0 rewards the leaders alone; more rewards each "
                         "team by a softmax of the standings with this temperature (in the "
                         "game's progress unit), so a bigger lead earns more"),
}
"""The search strategies' weights, in the kernels' order (see ``search_template``)."""
KNOBS = {name: float(k.default) for name, k in KNOBS_SPEC.items()}
GUIDED_SPEC = {
    "prior": Knob(2, 0, 100, False,
                  "ismcts+learned: the weight of the model's prior in selection (PUCT's term "
                  "prior * P * sqrt(n) / (1 + visits), added to UCB1), and expansion in the "
                  "prior's order; 0: no prior (moves expanded at random)"),
    "prior_temperature": Knob(0.05, 0.001, 100, False,
                              "ismcts+learned: the softmax temperature (in score shares) that "
                              "makes the model's values of a node's moves their prior"),
    "leaf_value": Knob(1, 0, 1, False,
                       "ismcts+learned: a leaf scores (1 - leaf_value) x its playout's reward "
                       "+ leaf_value x the model's values of the leaf (1: no playout)"),
    "prior_once": Knob(0, 0, 1, True,
                       "ismcts+learned: 1 values a node's moves once, at its first expansion, "
                       "and keeps those values for its later ones (a move not legal then is "
                       "valued when met); 0 values them all again at every expansion"),
    "halving": Knob(0, 0, 256, True,
                    "ismcts+learned: 0 searches a tree; k of 1 or more searches the root "
                    "alone: the k moves the model values most, the playouts shared out over "
                    "them by sequential halving, every candidate played on the same "
                    "determinisations and dice (common random numbers); 1: the model's best"),
}
"""The guided search's own weights, after ``KNOBS`` in its row (then its model)."""
GUIDED = {name: float(k.default) for name, k in GUIDED_SPEC.items()}
ALL_KNOBS = {**KNOBS_SPEC, **GUIDED_SPEC}
ROLLOUTS = {"auto": -1.0, "random": 0.0, "heuristic": 1.0}
CUTOFFS = {"even": 0.0, "standing": 1.0, "progress": 2.0, "model": 3.0}


def rollout_choices(game: str) -> dict[str, float]:
    """The rollout policies ``game`` offers: auto and random always, its heuristic when it
    has one."""
    return {name: code for name, code in ROLLOUTS.items()
            if code <= 0 or int(code) in _rollout_strategies(game)}


def game_knobs(game: str) -> dict[str, float]:
    """The search knobs' defaults in ``game``: simkit's, with the game's own
    (``GameSpec.search_knobs``) over them."""
    own = registry.get_game(game).search_knobs or {}
    out = dict(KNOBS)
    for name, v in own.items():
        if name not in KNOBS:
            raise SimkitError(f"{game}: search_knobs names {name!r}, which is not a search "
                              f"knob; the knobs: {', '.join(KNOBS)}")
        names = {"rollout": ROLLOUTS, "cutoff": CUTOFFS}.get(name, {})
        out[name] = names[v] if isinstance(v, str) else float(v)
    return out


def knob_defaults(game: str, kind: str = "ismcts") -> dict[str, float]:
    """The defaults of every weight of the search ``kind`` in ``game``: ``game_knobs``, and
    for the guided search (``guided``) its own knobs after them, with the game's
    ``GameSpec.guided_knobs`` over both."""
    out = game_knobs(game)
    if kind != "guided":
        return out
    out.update(GUIDED)
    for name, v in (registry.get_game(game).guided_knobs or {}).items():
        if name not in out:
            raise SimkitError(f"{game}: guided_knobs names {name!r}, which is not a knob of "
                              f"ismcts+learned; its knobs: {', '.join(out)}")
        names = {"rollout": ROLLOUTS, "cutoff": CUTOFFS}.get(name, {})
        out[name] = names[v] if isinstance(v, str) else float(v)
    return out


def resolve_knobs(game: str, values: dict[str, float]) -> dict[str, float]:
    """``values`` with ``rollout`` auto made what it means in ``game``."""
    if values.get("rollout") == ROLLOUTS["auto"]:
        has = 1 in _rollout_strategies(game)
        values = {**values, "rollout": ROLLOUTS["heuristic" if has else "random"]}
    return values


def check_knobs(game: str, label: str, values: dict[str, float]) -> None:
    """Every knob of the search ``label`` in its range, or one line naming it and the range."""
    for name, v in values.items():
        k = ALL_KNOBS[name]
        if name == "rollout":
            choices = rollout_choices(game)
            if v not in choices.values():
                raise SimkitError(f"{label}: rollout {v:g} is not a policy {game} has; "
                                  f"rollout choices: {', '.join(choices)}")
            continue
        if name == "cutoff" and v == CUTOFFS["progress"] \
                and not registry.get_game(game).has_progress:
            raise SimkitError(f"{label}: cutoff progress needs the game's progress kernel, "
                              f"which {game} does not have (docs/adding-a-game.md); cutoff "
                              "choices: even, standing")
        if name == "cutoff" and v == CUTOFFS["model"] and "prior" not in values:
            raise SimkitError(f"{label}: cutoff model scores a cut playout by a learnt model, "
                              "which only ismcts+learned has; cutoff choices: even, standing"
                              + (", progress" if registry.get_game(game).has_progress else ""))
        if not k.low <= v <= k.high or (k.whole and v != int(v)):
            kind = "a whole number" if k.whole else "a number"
            raise SimkitError(f"{label}: {name} must be {kind} from {k.low:g} to "
                              f"{k.high:,g}, not {v:g}")


def _rollout_strategies(game: str) -> dict:
    """The game's strategies a playout can use, by rollout code: 0 is uniform random (done
    inline), 1 the game's ``heuristic`` when it has one."""
    own = registry.strategies_for(game)
    out = {}
    if "heuristic" in own and own["heuristic"].search is None:
        out[1] = own["heuristic"]
    return out


def _render(spec, rollouts: dict) -> str:
    body = TEMPLATE.read_text(encoding="utf-8").split(_BINDINGS_END, 1)[1]
    lines = [
        f'"""Generated by simkit for {spec.name}; do not edit (see simkit/search_template.py)."""',
        "import math",
        "",
        "from simkit.jit import copy_into, kernel",
        "import numpy as np",
        "",
        "from simkit.rng import next_u64, rand_below, seed_streams",
        f"import {spec.rules.__name__} as game",
    ]
    for code, s in rollouts.items():
        mod, fn = s.import_path
        lines.append(f"from {mod} import {fn} as rollout_{code}")
    lines += ["", "", "@kernel",
              "def rollout_choose(code, params, obs, seat, moves, n_moves, weights, stream):"]
    for code in rollouts:
        lines += [f"    if code == {code}:",
                  f"        return rollout_{code}(params, obs, seat, moves, n_moves, weights, "
                  "stream)"]
    lines.append("    return rand_below(stream, n_moves)")
    if spec.has_progress:
        lines += ["", f"from {spec.rules.__name__} import progress as game_progress"]
    else:
        lines += ["", "", "@kernel", "def game_progress(params, state, out):",
                  "    raise RuntimeError('this game has no progress kernel')"]
    if spec.has_features:
        lines += ["", f"from {spec.rules.__name__} import features as game_features"]
    else:
        lines += ["", "", "@kernel", "def game_features(params, obs, seat, out):",
                  "    raise RuntimeError('this game has no features kernel')"]
    if spec.has_move_features:
        lines += ["", f"from {spec.rules.__name__} import move_features as game_move_features"]
    else:
        lines += ["", "", "@kernel", "def game_move_features(params, obs, seat, move, out):",
                  "    raise RuntimeError('this game has no move_features kernel')"]
    return "\n".join(lines) + "\n" + body


@cache
def load_search(game: str) -> ModuleType:
    """The search module of ``game``, generated on first use and cached on disk."""
    spec = registry.get_game(game)
    if not hasattr(spec.rules, "determinize"):
        raise SimkitError(f"search needs the game's determinize kernel, which {game} does not "
                          "have (see docs/adding-a-game.md)")
    rollouts = _rollout_strategies(game)
    return load_generated("simkit_search", spec.name, _render(spec, rollouts))


@dataclass
class Workspace:
    """Everything a search decision writes, allocated once and reused: the tree (``nodes``
    rows), a scratch state and observation, a move list, an items counter, scores, ranks,
    per-seat rewards, and statistics per slot of the run (iterations, summed leaf depth,
    deepest leaf, playout decisions, decisions searched); for ``learned``, an afterstate,
    a feature vector and the values of the legal moves; for the guided search's
    ``prior_once``, a pool of the model's values of the tree's nodes' moves (a move code
    and its value a row)."""

    tree_i: np.ndarray
    tree_f: np.ndarray
    state: np.ndarray
    obs: np.ndarray
    moves: np.ndarray
    items: np.ndarray
    scores: np.ndarray
    ranks: np.ndarray
    reward: np.ndarray
    stats: np.ndarray
    after: np.ndarray
    feat: np.ndarray
    values: np.ndarray
    pool: np.ndarray

    @classmethod
    def make(cls, nodes: int, players: int, state_size: int, max_moves: int, n_items: int,
             slots: int = 1, features: int = 0):
        """A workspace for searches of at most ``nodes`` iterations and for ``learned`` of
        ``features`` features (0 and 0: a workspace nothing reads, for a run without
        either)."""
        from simkit.search_template import STATS, TREE_COLUMNS

        stats = np.zeros((max(slots, 1), STATS), np.float64)
        if features > 0:
            # the policy's move features and hidden layer are written after the F features
            learned = (np.zeros(state_size, np.int32),
                       np.zeros(features + learn.SCRATCH, np.float64),
                       np.zeros(max(max_moves, players), np.float64),
                       np.zeros((pool_rows(nodes), 2), np.float64))
        else:
            learned = (np.zeros(1, np.int32), np.zeros(1, np.float64), np.zeros(1, np.float64),
                       np.zeros((1, 2), np.float64))
        if nodes <= 0 and features <= 0:
            return cls(np.zeros((1, TREE_COLUMNS), np.int32), np.zeros((1, 2), np.float64),
                       np.zeros(1, np.int32), np.zeros(1, np.int32), np.zeros(1, np.int32),
                       np.zeros((1, 1), np.int32), np.zeros(1, np.float64),
                       np.zeros(1, np.int32), np.zeros(1, np.float64), stats, *learned)
        nodes = max(nodes, 0)
        return cls(np.zeros((nodes + 1, TREE_COLUMNS), np.int32),
                   # a column a seat, and one for a guided search's priors
                   np.zeros((max(nodes + 1, max_moves), max(players, 2) + 1), np.float64),
                   np.zeros(state_size, np.int32), np.zeros(state_size, np.int32),
                   np.zeros(max_moves, np.int32), np.zeros((players, max(n_items, 1)), np.int32),
                   np.zeros(players, np.float64), np.zeros(players, np.int32),
                   np.zeros(players, np.float64), stats, *learned)

    def arrays(self, teams: np.ndarray, rollout_weights: np.ndarray) -> tuple:
        """The tuple the driver's ``choose`` hands a search (``ws``): the seats' teams, the
        rollout policy's weights, then this workspace's arrays."""
        return (teams, rollout_weights, self.tree_i, self.tree_f, self.state, self.obs,
                self.moves, self.items, self.scores, self.ranks, self.reward, self.stats,
                self.after, self.feat, self.values, self.pool)


POOL_ROWS_PER_NODE = 64
POOL_MAX_ROWS = 1 << 20


def pool_rows(nodes: int) -> int:
    """The rows of the guided search's pool for a tree of ``nodes`` (16 bytes a row): room
    for 64 moves a node on average, at most 16 MB; a node met when it is full values its
    moves at every expansion."""
    return max(1, min(POOL_ROWS_PER_NODE * (max(nodes, 0) + 1), POOL_MAX_ROWS))


def rollout_weights(game: str, overrides: dict[str, float] | None = None) -> np.ndarray:
    """The weights the rollout heuristic plays with: its defaults, with ``overrides`` (a
    run's ``--weight heuristic.KEY=...``)."""
    own = registry.strategies_for(game)
    if 1 not in _rollout_strategies(game):
        return np.zeros(1, np.float64)
    w = {**own["heuristic"].weights, **(overrides or {})}
    return np.array(list(w.values()) or [0.0], np.float64)


def root_moves(kind: str, ws: Workspace, moves: np.ndarray, n_moves: int, seat: int
               ) -> list[tuple[int, int, float]]:
    """What the last search in ``ws`` found at its root: (index into ``moves``, visits, mean
    reward of ``seat``) of each legal move it tried, most visited first."""
    from simkit.search_template import T_CHILD, T_MOVE, T_SIBLING, T_VISITS

    out = []
    if kind == "mc":
        for j in range(n_moves):
            v = int(ws.tree_f[j, 1])
            if v:
                out.append((j, v, float(ws.tree_f[j, 0] / v)))
    else:
        index = {int(m): k for k, m in enumerate(moves[:n_moves])}
        child = int(ws.tree_i[0, T_CHILD])
        while child >= 0:
            k = index.get(int(ws.tree_i[child, T_MOVE]))
            v = int(ws.tree_i[child, T_VISITS])
            if k is not None and v:
                out.append((k, v, float(ws.tree_f[child, seat] / v)))
            child = int(ws.tree_i[child, T_SIBLING])
    return sorted(out, key=lambda r: (-r[1], -r[2], r[0]))


def call_search(kernel, kind: str, ws: Workspace, slot: int, params, obs, seat, moves, n_moves,
                weights, stream, players, max_turns, teams, rollout_w):
    """Call a search ``kernel`` of ``kind`` (``KERNELS``) with ``ws``'s arrays, its
    statistics in row ``slot``: the guided search also gets the model's scratch."""
    args = (params, obs, seat, moves, n_moves, weights, stream, players, max_turns, teams,
            rollout_w, ws.tree_i, ws.tree_f, ws.state, ws.obs, ws.moves, ws.items, ws.scores,
            ws.ranks, ws.reward, ws.stats[slot])
    if kind == "guided":
        args += (ws.after, ws.feat, ws.values, ws.pool)
    return kernel(*args)


class Search:
    """One game's search, ready to decide from Python: its compiled module, parameters and
    workspace (for tests, benchmarks and ``simkit replay``; a run's games call the same
    kernels from the driver).

    ``weights`` by name, as ``KNOBS`` lists them; unnamed ones keep their defaults."""

    def __init__(self, plan, kind: str, weights: dict[str, float] | None = None,
                 heuristic_weights: dict[str, float] | None = None, model=None):
        if kind not in TREE_SEARCHES:
            raise SimkitError(f"unknown search {kind!r}; valid choices: "
                              f"{', '.join(TREE_SEARCHES)}")
        if (kind == "guided") != (model is not None):
            raise SimkitError("the guided search (ismcts+learned) needs a model, and only it "
                              "takes one")
        self.plan = plan
        self.kind = kind
        game = plan.run.game
        self.spec = registry.get_game(game)
        self.module = load_search(game)
        self.kernel = getattr(self.module, KERNELS[kind])
        defaults = knob_defaults(game, kind)
        unknown_knobs = set(weights or {}) - set(defaults)
        if unknown_knobs:
            raise SimkitError(f"{kind} has no knob {sorted(unknown_knobs)[0]!r}; its knobs: "
                              + ", ".join(defaults))
        knobs = {**defaults, **(weights or {})}
        check_knobs(game, kind, knobs)
        knobs = resolve_knobs(game, knobs)
        self.weights = np.array([knobs[k] for k in defaults], np.float64)
        features = 0
        if model is not None:
            from simkit import learn

            registry.check_learnable(game, "ismcts+learned")
            learn.check_fits(model, "the model", game, plan.run.players,
                             tuple(self.spec.features))
            self.weights = np.concatenate([self.weights, model.flat()])
            features = model.n_features
        self.rollout_weights = rollout_weights(game, heuristic_weights)
        n = plan.run.players
        self.teams = np.array(self.spec.teams(n), np.int32)
        self.ws = Workspace.make(int(self.weights[0]), n, plan.state_size, plan.max_moves,
                                 len(plan.item_columns), 1, features)

    def decide(self, obs: np.ndarray, seat: int, moves: np.ndarray, n_moves: int,
               stream: np.ndarray) -> int:
        """The index into ``moves[:n_moves]`` the search chooses for ``seat`` from ``obs``,
        drawing only from ``stream`` (uint64[1])."""
        p = self.plan
        return int(call_search(self.kernel, self.kind, self.ws, 0, p.compiled, obs, seat,
                               moves, n_moves, self.weights, stream, p.run.players,
                               p.max_turns, self.teams, self.rollout_weights))

    def root(self, moves: np.ndarray, n_moves: int, seat: int) -> list[tuple[int, int, float]]:
        """The last decision's root: see ``root_moves``."""
        return root_moves(self.kind, self.ws, moves, n_moves, seat)
