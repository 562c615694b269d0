"""simkit: Monte Carlo balance analysis for tabletop games."""

__version__ = "0.1.0"


def __getattr__(name: str):
    """``simkit.analysis`` (and any other submodule) after a bare ``import simkit``, imported
    on first use: the command line imports ``simkit`` without pandas, and keeps doing so."""
    import importlib
    import importlib.util

    if not name.startswith("_") and importlib.util.find_spec(f"{__name__}.{name}") is not None:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def simulate(game: str, players: int, games: int, seed: int = 0, strategies="random",
             overrides=None, rotate: bool = True, workers: int | None = None, scheduler=None,
             weights=None, progress: bool | None = None, trace_turns=0, kingmaking=0,
             model_mismatch: bool = False, log_decisions=0):
    """Play ``games`` seeded games and return a ``RunResult`` (``.games``, ``.items`` as
    pandas DataFrames, ``.meta`` as run.json's dict, ``.trace`` the traced games' progress
    turn by turn). Arguments as ``simkit run``: ``strategies`` is one name or one per seat,
    ``overrides`` a dict or ``["key=value"]``, ``trace_turns`` and ``kingmaking`` a number
    of games or ``"all"`` (``docs/metrics.md``); ``simkit.analysis.feel(result)`` gives the
    figures of how the game plays. ``model_mismatch``: a ``learned`` seat may play a model
    of other data or another VERSION of the game (docs/learning.md). ``log_decisions``: a
    row per decision of the first N games in ``.decisions`` (``--log-decisions``).
    ``progress``: a progress bar (a notebook widget in Jupyter) and a note while kernels
    compile; by default shown in a notebook or when stderr is a terminal."""
    import sys

    from simkit.runner import RunSpec, run_games

    if progress is None:
        progress = "ipykernel" in sys.modules or sys.stderr.isatty()
    run = RunSpec.make(game, players, games, seed, strategies, overrides, rotate, weights,
                       trace=trace_turns, kingmaking=kingmaking, model_mismatch=model_mismatch,
                       log_decisions=log_decisions)
    return run_games(run, workers=workers, scheduler=scheduler, progress=progress)


def read_run(folder):
    """Read a run folder written by ``simkit run`` (of this or an older layout) and return
    a ``RunResult`` like ``simulate``'s: ``.games``, ``.items``, ``.meta`` and ``.trace``."""
    from simkit.results import read_run as _read_run

    return _read_run(folder)


def advice(game: str, observation, seat: int, strategy: str = "ismcts+learned", **kwargs):
    """The move ``strategy`` would play for ``seat`` from its ``observation`` alone, and how
    it rates every legal move (visits and mean rewards for a search, values for
    ``learned``): a ``simkit.advise.Advice``. Keywords: ``players`` (2), ``seed``,
    ``weights``, ``overrides``, ``model_mismatch`` (docs/search.md, "Advice")."""
    from simkit.advise import advice as _advice

    return _advice(game, observation, seat, strategy, **kwargs)


def advice_at(folder, game_index: int, decision: int, strategy: str | None = None, **kwargs):
    """``advice`` at decision ``decision`` (numbered as ``simkit replay`` numbers them) of
    game ``game_index`` of a run folder, for the seat that moved there, from its
    observation: by the strategy that played it, or by ``strategy``; ``.played`` is the
    move the game played. Keywords: ``seed``, ``weights``."""
    from simkit.advise import advice_at as _advice_at

    return _advice_at(folder, game_index, decision, strategy, **kwargs)
