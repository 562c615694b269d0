"""Where games and strategies are found.

Games register under the entry point group ``simkit.games`` (simkit's own five exactly as a
third party's would). Strategies are modules in the ``strategies`` package, each calling
``register_strategy`` when imported, or third-party modules named under the entry point group
``simkit.strategies``. ``register_game`` / ``register_strategy`` also work directly, which is
how tests and notebooks add a game without installing it.
"""

from __future__ import annotations

import importlib
import pkgutil
import warnings
from dataclasses import dataclass, field
from functools import cache
from importlib.metadata import entry_points as _installed_entry_points

from simkit.errors import SimkitError, unknown
from simkit.game import GameSpec
from simkit.numeric import DIGITS

_games: dict[str, GameSpec] = {}
_strategies: dict[tuple[str, str | None], StrategySpec] = {}
_broken: dict[str, str] = {}
_broken_strategies: dict[str, str] = {}
_loaded = False


@dataclass(frozen=True)
class StrategySpec:
    """A strategy: a kernel ``choose(params, obs, seat, moves, n_moves, weights, stream)``
    that returns an index into ``moves[:n_moves]``.

    ``game`` is None for a generic strategy that plays any game. ``weights`` are its tunable
    numbers (name -> default), handed to the kernel as a float64 array in this order.
    ``needs_obs`` False lets the engine skip building the observation (``random``).

    A search strategy (``search`` = "mc" or "ismcts") has no kernel of its own: the engine
    renders the generic search of ``simkit/search_template.py`` into each game's driver,
    and it plays only games with a ``determinize`` kernel. ``budget`` names the weight that
    ``NAME@N`` sets (``ismcts@1000``: 1,000 iterations), so one run can seat two budgets;
    ``named_weights`` lets a weight take a name (``rollout=heuristic``)."""

    name: str
    kernel: object
    game: str | None = None
    weights: dict[str, float] = field(default_factory=dict)
    needs_obs: bool = True
    summary: str = ""
    search: str | None = None
    budget: str | None = None
    named_weights: dict[str, dict[str, float]] = field(default_factory=dict)

    @property
    def searches(self) -> bool:
        """Whether this is a tree search (``mc``, ``ismcts``): knobs, budget, statistics."""
        return self.search in TREE_SEARCHES

    @property
    def needs_model(self) -> bool:
        """Whether it plays by a learnt model (``learned``, ``ismcts+learned``)."""
        return self.search in MODEL_SEARCHES

    @property
    def import_path(self) -> tuple[str, str]:
        fn = self.kernel.py_func
        return fn.__module__, fn.__name__


TREE_SEARCHES = ("mc", "ismcts", "guided")
"""The ``search`` kinds that search a tree of playouts (their knobs are ``simkit.search``'s);
the other, ``learned``, plays by a learnt model (``simkit.learn``)."""
MODEL_SEARCHES = ("learned", "guided")
"""The ``search`` kinds that play by a learnt model: ``learned`` and the guided search
(``ismcts+learned``), which needs the game's features kernel too."""


MAX_BUDGET = 1_000_000
"""The largest budget ``NAME@N`` takes (a million playouts a decision: minutes a move)."""


def split_budget(name: str) -> tuple[str, int | None]:
    """``"ismcts@1000"`` -> ("ismcts", 1000); a name without ``@`` -> (name, None)."""
    base, at, budget = name.partition("@")
    if not at:
        return name, None
    if not DIGITS.fullmatch(budget) or not 1 <= int(budget) <= MAX_BUDGET:
        raise SimkitError(f"the budget in {name!r} must be a whole number from 1 to "
                          f"{MAX_BUDGET:,} (e.g. {base}@400)")
    return base, int(budget)


def register_game(spec: GameSpec) -> GameSpec:
    _games[spec.name] = spec
    return spec


def register_strategy(spec: StrategySpec) -> StrategySpec:
    _strategies[(spec.name, spec.game)] = spec
    return spec


@cache
def _entry_points(group: str) -> tuple:
    """The installed entry points of ``group``, read once a process: each reading scans
    every installed distribution (8 ms; a run read them three times)."""
    return tuple(_installed_entry_points(group=group))


def _load() -> None:
    """Every installed game and strategy (``simkit games`` lists them)."""
    global _loaded
    if _loaded:
        return
    for ep in _entry_points("simkit.games"):
        _load_game(ep.name)
    for name, load in _strategy_loaders(None):
        _load_strategies(name, load)
    _loaded = True


_games_loaded: set[str] = set()
_modules_loaded: set[str] = set()


def _load_game(name: str) -> None:
    """The game ``name`` alone, and the strategies that can play it: the generic ones, its
    own modules of ``simkit.strategies`` (named after its package: ``rabbit_hunt.py``,
    ``rabbit_hunt_v1.py``) and every third-party strategy module. A command about one game
    imports no other game (a tenth of a second of every run)."""
    if name in _games_loaded or _loaded:
        return
    _games_loaded.add(name)
    if name not in _games:
        for ep in (ep for ep in _entry_points("simkit.games") if ep.name == name):
            try:
                register_game(ep.load())
            except Exception as exc:  # noqa: BLE001 - one broken plugin must not stop the rest
                _broken[ep.name] = f"{type(exc).__name__}: {exc}"
    for module, load in _strategy_loaders(name):
        _load_strategies(module, load)


def _game_packages() -> dict[str, str]:
    """Each installed game's package name, from its entry point (nothing imported)."""
    out = {}
    for ep in _entry_points("simkit.games"):
        out[ep.name] = ep.value.split(":")[0].rsplit(".", 1)[-1]
    for name, spec in _games.items():  # registered by hand (tests, notebooks)
        out.setdefault(name, spec.rules.__name__.split(".")[-2]
                       if spec.rules.__name__.count(".") else spec.name)
    return out


def _strategy_loaders(game: str | None) -> list:
    """(module, loader) of the strategy modules for ``game`` (None: all of them)."""
    import simkit.strategies as strategies

    packages = _game_packages()
    mine = packages.get(game) if game is not None else None
    others = [pk for g, pk in packages.items() if g != game]
    out = []
    for m in pkgutil.iter_modules(strategies.__path__):
        own = mine is not None and (m.name == mine or m.name.startswith(mine + "_"))
        foreign = any(m.name == pk or m.name.startswith(pk + "_") for pk in others)
        if game is None or own or not foreign:
            name = f"simkit.strategies.{m.name}"
            out.append((name, lambda n=name: importlib.import_module(n)))
    out += [(ep.value, ep.load) for ep in _entry_points("simkit.strategies")]
    return out


def _load_strategies(name: str, load) -> None:
    if name in _modules_loaded:
        return
    _modules_loaded.add(name)
    try:
        load()
    except Exception as exc:  # noqa: BLE001 - a broken strategy must not stop the rest
        _broken_strategies[name] = f"{type(exc).__name__}: {exc}"
        warnings.warn(f"strategy module {name} failed to load: {exc}", stacklevel=3)


def games() -> dict[str, GameSpec]:
    _load()
    return dict(sorted(_games.items()))


def get_game(name: str) -> GameSpec:
    _load_game(name)
    if name not in _games and name not in _broken:
        _load()  # not installed under that name: the error lists every game
    if name in _broken:
        raise SimkitError(f"game {name!r} is installed but failed to load: {_broken[name]}")
    if name not in _games:
        raise unknown("game", name, _games)
    return _games[name]


def strategies_for(game: str) -> dict[str, StrategySpec]:
    """Every strategy that can play ``game``: generic ones and the game's own, by name."""
    _load_game(game) if game else _load()
    found = {name: s for (name, g), s in _strategies.items() if g is None}
    found.update({name: s for (name, g), s in _strategies.items() if g == game})
    return dict(sorted(found.items()))


def playable_strategies(game: str) -> list[str]:
    """The strategies that can play ``game``, as `simkit games` lists them: the searches
    only where the game has a determinize kernel, those that play by a model (``learned``,
    ``ismcts+learned``) where it also has features."""
    spec = get_game(game)
    searchable = hasattr(spec.rules, "determinize")
    learnable = searchable and spec.has_features
    return [n for n, st in strategies_for(game).items() if st.search is None
            or (st.searches and searchable and not st.needs_model)
            or (st.needs_model and learnable)]


def resolve_strategies(game: str, names, n_players: int) -> list[str]:
    """Check a per-seat strategy list; one name is used for every seat."""
    names = [n.strip() for n in (names.split(",") if isinstance(names, str) else names)]
    names = [n for n in names if n]
    known = strategies_for(game)
    for n in names:
        base, budget = split_budget(n)
        if base in known and budget is not None and known[base].budget is None:
            raise SimkitError(f"strategy {base} takes no budget: write {base}, not {n}")
        if base in known and known[base].needs_model:
            check_learnable(game, base)
        elif base in known and known[base].search is not None:
            rules = get_game(game).rules
            if not hasattr(rules, "determinize"):
                raise SimkitError(
                    f"strategy {base} searches from what a seat knows, and needs the game's "
                    f"determinize kernel, which {game} does not have (see "
                    "docs/adding-a-game.md); its strategies: "
                    + ", ".join(k for k, v in known.items() if v.search is None))
        if base not in known:
            err = unknown(f"strategy for {game}", n, known)
            if _broken_strategies:
                err = SimkitError(f"{err}; these strategy modules failed to load: "
                                  + "; ".join(f"{m} ({e})" for m, e in _broken_strategies.items()))
            raise err
    if len(names) == 1:
        names = names * n_players
    if len(names) != n_players:
        raise SimkitError(
            f"{len(names)} strategies given for {n_players} players; give one per seat "
            f"or a single one for all seats")
    return names


def check_learnable(game: str, name: str = "learned") -> None:
    """One line when ``game`` cannot be played or learnt by a model: it needs the game's
    ``features`` kernel (and names) and its ``determinize`` kernel."""
    spec = get_game(game)
    missing = [k for k, ok in (("features", spec.has_features),
                               ("determinize", hasattr(spec.rules, "determinize"))) if not ok]
    if missing:
        others = [k for k, v in strategies_for(game).items() if v.search is None]
        raise SimkitError(
            f"{name} plays by a model of what a seat sees, and needs the game's "
            f"{' and '.join(missing)} kernel{'s' if len(missing) > 1 else ''}, which {game} "
            f"does not have (see docs/adding-a-game.md and docs/learning.md); its "
            f"strategies: {', '.join(others)}")


def strong_strategy(game: str, players: int = 2, data_digest: str | None = None,
                    varied_data: bool = False) -> str:
    """The game's strong fast player at ``players`` (``GameSpec.strong``) for data of
    ``data_digest`` (None: the default data). A strong player that plays by a model
    (``learned``) counts only where a model of that player count, VERSION and data exists
    and has a policy, so that it plays fast (the game ships 2-player models; a user's
    ``simkit train`` adds others, and a model by values alone is 20 to 60 times slower than
    by a policy), and not when
    the data will vary (``varied_data``: ``sensitivity --assumptions``, whose every point has
    data no model was trained on); elsewhere the heuristic plays, as it does in a game with
    no strategy of that name; ``random`` when the game has no heuristic either (a plugin)."""
    from simkit import learn

    spec = get_game(game)
    known = strategies_for(game)
    name = spec.strong
    if name in known and known[name].search == "learned" and (
            varied_data or not learn.has_model(spec, players, data_digest, policy=True)):
        name = "heuristic"
    return name if name in known else "random"

