"""The ``simkit`` command line. Every command has --help; bad input gets one line naming the
problem and the valid choices, exit status 2, and no output folder."""

from __future__ import annotations

import signal
import sys
import textwrap


def _stopped_while_starting(signum, frame):
    sys.stderr.write("interrupted: stopped before any game was played; nothing was written\n")
    sys.exit(130)


_COMMAND = sys.argv[0].replace("\\", "/")
if _COMMAND.rsplit("/", 1)[-1] in ("simkit", "simkit.exe") or \
        _COMMAND.endswith("/simkit/__main__.py"):
    # the simkit command is starting: Ctrl-C while it imports gets the same line and status
    # as everywhere else (``entry`` then restores Python's KeyboardInterrupt)
    signal.signal(signal.SIGINT, _stopped_while_starting)

import os  # noqa: E402
import shutil  # noqa: E402
from pathlib import Path  # noqa: E402

import click  # noqa: E402

from simkit.errors import SimkitError, compile_error  # noqa: E402


def one_line(message: str) -> str:
    """``message`` with every unprintable character (a newline, a control character a
    user typed) escaped, so an error stays one line whatever the input held."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in message)


def fail(message: str, status: int = 2) -> None:
    click.echo(f"error: {one_line(message)}", err=True)
    sys.exit(status)


class Command(click.Group):
    """Turns every SimkitError into one line on stderr and exit status 2 (1 for a
    ``WriteError``: a full disk), an interrupt into one line and exit status 130, and any
    other error (a bug) into one line that says where its traceback was written
    (``--debug`` shows it instead), exit status 1."""

    def make_context(self, *args, **kwargs):
        try:
            return super().make_context(*args, **kwargs)
        except KeyboardInterrupt:  # Ctrl-C while the command line is read: as any other
            _interrupted_at_start()
        except _HELP:  # a bare `simkit`: the help, as click shows it
            raise
        except click.UsageError as exc:
            _usage_error(exc)

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except SimkitError as exc:
            fail(str(exc), getattr(exc, "status", 2))
        except _HELP:  # a bare `simkit`: the help, as click shows it
            raise
        except click.UsageError as exc:
            _usage_error(exc)
        except KeyboardInterrupt:
            click.echo("interrupted: stopped; nothing half-written was kept", err=True)
            sys.exit(130)
        except BrokenPipeError:  # the reader went away (simkit rules GAME | head): as a
            # program killed by SIGPIPE ends, silently, with status 128 + 13
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            sys.exit(141)
        except (click.exceptions.Exit, click.ClickException, SystemExit):
            raise
        except Exception as exc:  # noqa: BLE001 - a bug: log it, say one line
            from simkit import folders

            if folders.disk_full(exc):  # where no writer said which file: one line too
                fail(str(folders.no_space(exc.filename or "a file", "the command stopped")),
                     1)
            if ctx.params.get("debug") or os.environ.get("SIMKIT_DEBUG"):
                raise
            log = _log_traceback()
            if broken := compile_error(exc):  # the game's or a strategy's code, not simkit
                fail(f"{broken}. The traceback is in {log}", 1)
            click.echo(f"error: internal error ({type(exc).__name__}: {one_line(str(exc))}); "
                       "this is a bug "
                       f"in simkit. The traceback is in {log} (run with --debug to see it)",
                       err=True)
            sys.exit(1)


_HELP = getattr(click.exceptions, "NoArgsIsHelpError", ())
"""The UsageError click raises for a command given without arguments, whose message is the
help itself (click 8.2 and later)."""


def _usage_error(exc: click.UsageError) -> None:
    """A command line click cannot read (an unknown option, a missing argument): one line,
    as every other refusal, instead of click's usage block."""
    names, ctx = [], exc.ctx
    while ctx is not None and ctx.parent is not None:  # the command, named as typed
        names.append(ctx.info_name)
        ctx = ctx.parent
    fail(f"{exc.format_message()} (see `{' '.join(['simkit', *reversed(names)])} --help`)")


class Whole(click.ParamType):
    """An integer option, read by ``simkit.numeric.whole``: ASCII digits, within
    ``lo``..``hi`` (a bad one is a SimkitError: one line, exit status 2)."""

    name = "integer"

    def __init__(self, lo: int | None = None, hi: int | None = None):
        self.lo, self.hi = lo, hi

    def convert(self, value, param, ctx):
        from simkit.numeric import whole

        return whole(value, _option_name(param), self.lo, self.hi)


class Real(click.ParamType):
    """A number option, read by ``simkit.numeric.real``: ASCII digits, finite, within
    ``lo``..``hi`` (``lo_open``, ``hi_open``: the bound excluded)."""

    name = "number"

    def __init__(self, lo: float | None = None, hi: float | None = None,
                 lo_open: bool = False, hi_open: bool = False):
        self.lo, self.hi, self.lo_open, self.hi_open = lo, hi, lo_open, hi_open

    def convert(self, value, param, ctx):
        from simkit.numeric import real

        return real(value, _option_name(param), self.lo, self.hi, self.lo_open, self.hi_open)


def _option_name(param) -> str:
    return max(param.opts, key=len) if param is not None and param.opts else "the value"


def _log_traceback() -> str:
    import tempfile
    import traceback
    from datetime import datetime

    root = Path(os.environ.get("SIMKIT_CACHE_DIR") or Path.home() / ".cache" / "simkit")
    text = traceback.format_exc()
    for folder in (root / "logs", Path(tempfile.gettempdir())):
        try:
            folder.mkdir(parents=True, exist_ok=True)
            path = folder / f"simkit-error-{datetime.now():%Y%m%d-%H%M%S}-{os.getpid()}.log"
            path.write_text(" ".join(sys.argv) + "\n\n" + text, encoding="utf-8")
            return str(path)
        except OSError:
            continue
    return "(nowhere: no folder could be written)"


set_option = click.option("--set", "overrides", multiple=True, metavar="KEY=VALUE",
                          help="Change a value of the game's data (repeatable); see "
                               "`simkit rules GAME`.")
cards_option = click.option("--cards", "card_files", multiple=True, metavar="FILE",
                            help="Replace a card list from a CSV file (repeatable): FILE named "
                                 "after its list (cards.csv), LIST=FILE, or a folder of "
                                 "LIST.csv files; see `simkit cards GAME`.")
weight_option = click.option("--weight", "weights", multiple=True,
                             metavar="STRATEGY.KEY=VALUE",
                             help="Change a strategy's weight (repeatable).")
players_option = click.option("--players", type=Whole(),
                              help="Number of players (may be left out for a game played by "
                                   "one number of players).")
seed_option = click.option("--seed", type=Whole(), default=0, show_default=True,
                           help="Master seed: game i's seed derives from it and i.")
strategies_option = click.option(
    "--strategies", default="random", show_default=True,
    help="One strategy per seat, comma-separated, or one for all seats. A search strategy "
         "takes its budget after @: ismcts@1000 searches 1,000 iterations a decision (see "
         "`simkit games` for every strategy and the search knobs).")
fixed_option = click.option("--fixed-seats", is_flag=True,
                            help="Keep strategies in the seats given (default: rotate them by "
                                 "game, so each sits in each seat equally often).")
overwrite_option = click.option("--overwrite", is_flag=True,
                                help="Replace an existing output folder.")
workers_option = click.option("--workers", type=Whole(1, 512),
                              help="Local threads (default: all cores).")
scheduler_option = click.option("--scheduler", metavar="ADDRESS",
                                help="Run on a Dask cluster, e.g. tcp://host:8786.")
quiet_option = click.option("--quiet", is_flag=True,
                            help="No progress bars and no messages; without --json, no "
                                 "summary either.")
json_option = click.option("--json", "as_json", is_flag=True,
                           help="Print the summary as JSON on stdout, and nothing else there "
                                "(progress and messages go to stderr).")
fair_option = click.option("--fair", type=Real(0, 50, lo_open=True), default=1.0,
                           show_default=True, metavar="POINTS",
                           help="A seat advantage (score share minus the mean share, in "
                                "percentage points) within +-POINTS at 95% confidence counts "
                                "as balanced in the verdicts.")


trace_option = click.option(
    "--trace-turns", "trace", metavar="N|all", default="0",
    help="Record every seat's progress after each turn for the first N games (or all) and "
         "report how the game feels: decisiveness, lead changes, drama, comebacks, "
         "uncertainty (docs/metrics.md). Branching and forced moves are counted in every "
         "game without it.")


kingmaking_option = click.option(
    "--kingmaking", metavar="N|all", default="0",
    help="At 3 or 4 players, replay the first N games (or all) and at every decision play "
         "the game out after up to 4 of its moves, to count kingmakers: seats that could "
         "not win but chose who did (docs/metrics.md). Costs about a game's length times "
         "4 games a game.")


log_option = click.option(
    "--log-decisions", "log_decisions", metavar="N|all", default="0",
    help="Write a row per decision of the first N games (at most 100,000) to "
         "decisions.parquet: game, turn, seat, phase, strategy, the move and its label, the "
         "number of legal moves, the seat's progress; the report shows when each move is "
         "chosen and by whom. Replays the logged games (about twice their time).")


def _trace(value: str, option: str = "--trace-turns"):
    """--trace-turns (or --kingmaking) as RunSpec takes it: a number of games or "all"."""
    from simkit.numeric import games_or_all

    return games_or_all(str(value), option)


mismatch_option = click.option(
    "--model-mismatch", type=click.Choice(["refuse", "ok"]), default="refuse",
    show_default=True,
    help="A learned seat whose model was trained on other data (--set, --cards) or another "
         "VERSION of the game: refuse the run, or play it anyway (ok: without --weight "
         "learned.model, the model of the default data; the summary says so).")


train_option = click.option(
    "--train", "train_budget", metavar="BUDGET",
    help="Play learned with a model fitted to this data: fine-tune one first from the "
         "nearest model (--weight learned.model=FILE, else the default data's), for BUDGET "
         "self-play games (5000g: reproducible, the same --seed gives the same model) or a "
         "time (10m); its cost is in the estimate before play, and it is kept in simkit's "
         "cache for the same command (docs/learning.md).")


def _tuned(game, players, over, strategies, weights, seed, budget_text, workers, quiet,
           base=None) -> dict:
    """``--train``: a model fine-tuned for ``over`` for each learned slot of the run (one
    line when no seat plays learned), its cost said before it trains; slot -> model.
    ``base`` (slot -> ``learn.Found``) gives the starting models (a what-if's two sides
    start from one)."""
    from simkit import tune
    from simkit.ladder import say_duration
    from simkit.runner import RunSpec

    budget = tune.parse_budget(budget_text)
    probe = RunSpec.make(game, players, 1, seed, strategies, over, True, weights,
                         model_mismatch=True)
    slots = tune.learned_slots(game, probe.strategies)
    if not slots:
        raise SimkitError(f"--train fits the model that learned plays; no seat of this run "
                          f"plays learned (its strategies: {', '.join(probe.strategies)})")
    files = tune.model_files(weights)
    n = workers or os.cpu_count() or 1
    out = {}
    for slot in dict.fromkeys(slots):
        file = files.get(slot, files.get(registry_base(slot)))
        plan = tune.plan_tuning(game, players, over, budget, seed, file,
                                (base or {}).get(slot))
        if plan.done:
            _say(f"training: {plan.describe()}: trained before ({plan.out})", quiet, True)
        else:
            _say(f"training: {plan.describe()}: about "
                 f"{say_duration(plan.estimate_seconds(n))} before play", quiet, True)
        try:
            out[slot] = plan.train(n, None if quiet else
                                   (lambda text: click.echo(f"  {text}", err=True)))
        except KeyboardInterrupt:
            click.echo("interrupted while training: the finished generations are kept; the "
                       "same command goes on from them (nothing was played)", err=True)
            sys.exit(130)
        if not quiet:
            gen = out[slot].card["training"]["generation"]
            click.echo(f"  the model for this data: {out[slot].digest[:12]} (generation {gen} "
                       f"of this training{'; the base model was never beaten' if not gen else ''})",
                       err=True)
    return out


def registry_base(slot: str) -> str:
    from simkit import registry

    return registry.split_budget(slot)[0]


precision_option = click.option(
    "--precision", type=Real(0, 50, lo_open=True, hi_open=True), metavar="POINTS",
    help="Play in steps (1,000 games, then doubling) until every seat's win rate and the "
         "first-player advantage have a 95% interval within +-POINTS, or --games is "
         "reached; the rule is checked only at those counts, so it stops at the same game "
         "on any number of workers.")


def _emit_json(data) -> None:
    import json

    click.echo(json.dumps(data, indent=2, default=str, allow_nan=False))


@click.group(cls=Command, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="simkit")
@click.option("--debug", is_flag=True, help="Show the traceback of an internal error.")
def main(debug):
    """Monte Carlo balance analysis for tabletop games: seeded self-play, win rates with
    intervals, first-player advantage, game length, card value, what-if comparisons."""
    from simkit.clock import command_starts

    command_starts()  # --time counts from here (or from the process's start)


@main.command()
def games():
    """List the registered games, their player counts, versions and strategies, and the
    search strategies' knobs."""
    from simkit import registry
    from simkit.search import GUIDED_SPEC, KNOBS_SPEC, rollout_choices

    searchers, learners = [], []
    for name, spec in registry.games().items():
        players = ", ".join(map(str, spec.players))
        searchable = hasattr(spec.rules, "determinize")
        learnable = searchable and spec.has_features
        names = registry.playable_strategies(name)
        click.echo(f"{name:18} v{spec.version:4} players {players:8} strategies: "
                   f"{', '.join(names)}")
        if spec.summary:
            click.echo(f"{'':18} {spec.summary}")
        click.echo(f"{'':18} strong player (headlines): "
                   f"{_strong_line(name, spec.players)}")
        if searchable:
            searchers.append(name)
        if searchable and spec.search_knobs:
            click.echo(f"{'':18} search defaults: " + ", ".join(
                f"{k} {v:g}" if not isinstance(v, str) else f"{k} {v}"
                for k, v in spec.search_knobs.items()))
        if searchable and "heuristic" not in rollout_choices(name):
            click.echo(f"{'':18} (search rollouts: random only; no heuristic)")
        if spec.has_progress:
            click.echo(f"{'':18} progress, for --trace-turns: {spec.progress_unit}")
        if spec.has_phases:
            click.echo(f"{'':18} phases: {', '.join(spec.phases)}")
        if learnable:
            learners.append(name)
            click.echo(f"{'':18} learned models at the default data: {_models_line(spec)}")
            click.echo(f"{'':18} ismcts+learned defaults: {_guided_line(name)}")
    _learned_lines(learners)
    search = {n: st for n, st in registry.strategies_for("").items() if st.searches}
    if not search:
        return
    click.echo("")
    click.echo("search strategies (games with a determinize kernel: "
               f"{', '.join(searchers) or 'none'}):")
    for n, st in search.items():
        click.echo(f"  {n:15} {st.summary}")
    click.echo("  NAME@N sets the budget (iterations); other knobs with --weight NAME.KNOB=VALUE "
               "(every seat of NAME) or --weight NAME@N.KNOB=VALUE (that one):")
    for knob, k in {**KNOBS_SPEC, **GUIDED_SPEC}.items():
        default = {"rollout": "auto", "cutoff": "even"}.get(knob, f"{k.default:g}")
        click.echo(f"    {knob:17} default {default:6} {k.doc}")
    click.echo("  ismcts+learned plays by learned's model (--weight ismcts+learned.model=FILE, "
               "else the run's game's); its defaults per game are above, chosen for at most "
               "50 ms a decision at 2 players (docs/search.md)")


def _guided_line(game: str) -> str:
    """The guided search's defaults in ``game`` where they differ from ismcts's."""
    from simkit.search import CUTOFFS, ROLLOUTS, game_knobs, knob_defaults

    try:
        plain, guided = game_knobs(game), knob_defaults(game, "guided")
    except SimkitError as exc:  # a plugin's bad defaults: said here, refused by a run
        return f"none ({exc})"
    names = {"rollout": {v: k for k, v in ROLLOUTS.items()},
             "cutoff": {v: k for k, v in CUTOFFS.items()}}
    return ", ".join(f"{k} {names[k].get(v, v) if k in names else f'{v:g}'}"
                     for k, v in guided.items() if k not in plain or plain[k] != v)


def _models_line(spec) -> str:
    """Which player counts of ``spec`` have a model of the default data: the user's (simkit's
    cache), the shipped one, or none yet."""
    from simkit import data, learn

    digest = data.data_digest(spec.data)
    out = []
    for n in spec.players:
        if learn.user_model_path(spec.name, n, digest).is_file():
            out.append(f"{n}p yours")
        elif learn.shipped_model_path(spec, n).is_file():
            out.append(f"{n}p shipped")
        else:
            out.append(f"{n}p none (simkit train {spec.name} --players {n})")
    return ", ".join(out)


def _learned_lines(learners: list[str]) -> None:
    from simkit import registry

    st = registry.strategies_for("").get("learned")
    if st is None:
        return
    click.echo("")
    click.echo("learned (games with a features and a determinize kernel: "
               f"{', '.join(learners) or 'none'}):")
    click.echo(f"  {st.summary}")
    click.echo("  its model: --weight learned.model=FILE, else the one of the run's game, player "
               "count, VERSION and data (docs/learning.md); its weights:")
    docs = {"temperature": "0 plays the best move; more samples a softmax of the values",
            "epsilon": "the chance of a uniformly random move",
            "samples": "determinisations (and chance draws) a move's value is averaged over"}
    for k, v in st.weights.items():
        click.echo(f"    {k:14} default {v:<6g} {docs.get(k, '')}")


def _overrides(game: str, overrides, card_files, base: dict | None = None):
    """--set and --cards as one overrides dict (the card lists first, so --set may change a
    card a file added), and where each list came from."""
    from simkit import data
    from simkit.cards import read_card_files

    lists, origins = read_card_files(game, card_files)
    return {**(base or {}), **lists, **data.parse_overrides(overrides)}, origins


def _effective(game: str, overrides, card_files):
    """The game and its effective data under --set and --cards, checked at every player
    count as `run` would check it."""
    from simkit import data, registry
    from simkit.cards import explained
    from simkit.runner import check_params

    spec = registry.get_game(game)
    over, origins = _overrides(game, overrides, card_files)
    with explained(origins):
        params = data.apply_overrides(spec.data, over)
        check_params(spec, params)
    return spec, params


@main.command()
@click.argument("game")
@set_option
@cards_option
def rules(game, overrides, card_files):
    """Show the effective data of GAME: each value, its default, its source and whether an
    override changed it; each card list as a table, a row per card."""
    from simkit import data

    spec, params = _effective(game, overrides, card_files)
    click.echo(f"{spec.name} v{spec.version} (data: {spec.data_path})")
    scalars = {k: p for k, p in params.items() if p.records is None}
    width = max(len(k) for k in scalars)
    click.echo(f"{'key':{width}}  {'value':>14}  {'default':>14}  {'source':8}  why")
    for key, p in scalars.items():
        mark = "*" if p.changed else " "
        click.echo(f"{key:{width}}  {_show(p.value):>14}{mark} {_show(p.default):>14}  "
                   f"{p.source:8}  {p.why}")
    for key in data.lists_of(params):
        _echo_list(spec, params, key)
    click.echo("* changed by --set or --cards; + a row data.toml does not have")
    _echo_assumptions(game, data.data_digest(params))


def _echo_assumptions(game: str, digest: str) -> None:
    """The assumptions of the game's shipped table that move the outcome beyond +-1 point
    (simkit/games/<game>/assumptions.json; `sensitivity --assumptions` measures them)."""
    from simkit.reports.assumptions import notes

    lines = notes(game, digest, 0.01, "the data shown")
    if lines:
        click.echo("\nAssumptions that move the outcome (beyond ±1 point, the whole 95% "
                   "interval; from the game's assumptions.json):")
        for line in lines:
            click.echo(f"  {line}")


def _echo_list(spec, params, key: str, fields: bool = False) -> None:
    from simkit import data
    from simkit.cards import field_lines, removed, table_lines

    rl = data.lists_of(params)[key]
    n = len(data.table(params, key))
    which = rl.noun.replace(" ", "_") if rl.named else "number"
    click.echo(f"\n{key}: {n} {rl.noun if n == 1 else rl.nouns} "
               f"(--set {key}.<{which}>.<field>=VALUE)")
    for line in table_lines(params, key):
        click.echo(f"  {line}")
    gone = removed(params, spec.data, key)
    if gone:
        click.echo(f"  removed: {', '.join(gone)}")
    if fields:
        click.echo("  fields:")
        for line in field_lines(rl):
            click.echo(f"  {line}")


@main.command()
@click.argument("game", required=False)
@set_option
@cards_option
@click.option("--run", "run_dir", type=click.Path(path_type=Path),
              help="The card lists a run was played with (its run.json), instead of GAME.")
@click.option("--export", "export_to", type=click.Path(path_type=Path), metavar="PATH",
              help="Write the lists as CSV: PATH a folder (one LIST.csv per list) or a "
                   ".csv file (one list: the game's only one, or --list).")
@click.option("--list", "only", metavar="LIST", help="Only this list.")
@overwrite_option
def cards(game, overrides, card_files, run_dir, export_to, only, overwrite):
    """Show GAME's card lists (cards, tiles, territories, board spaces) as tables, with
    each field's type, bounds and source; --export writes them as CSV files to edit in a
    spreadsheet and give back with --cards."""
    from simkit import data
    from simkit.cards import export

    if run_dir is not None:
        from simkit.results import read_meta

        if game is not None:
            raise SimkitError("give GAME or --run RUN, not both")
        meta = read_meta(run_dir)
        game = meta["game"]
        base = meta.get("overrides") or {}
        over, origins = _overrides(game, overrides, card_files, base)
        from simkit import registry
        from simkit.cards import explained

        spec = registry.get_game(game)
        with explained(origins):
            params = data.apply_overrides(spec.data, over)
    elif game is None:
        raise SimkitError("give GAME, or --run RUN")
    else:
        spec, params = _effective(game, overrides, card_files)
    lists = data.lists_of(params)
    if only is not None and only not in lists:
        from simkit.errors import unknown

        raise unknown(f"list of {game}", only, lists)
    if export_to is not None:
        for path in export(params, game, export_to, only, overwrite):
            click.echo(f"wrote {path}")
        return
    for key in [only] if only else lists:
        _echo_list(spec, params, key, fields=True)


def _show(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


@main.command()
@click.argument("target")
@players_option
@click.option("--games", "n_games", type=Whole(), default=10_000, show_default=True,
              help="Games to play.")
@seed_option
@strategies_option
@fixed_option
@set_option
@cards_option
@weight_option
@click.option("--out", type=click.Path(path_type=Path),
              help="Output folder (default runs/GAME-Np-sSEED; for an experiment file, "
                   "runs/FILE-NAME with one folder per run).")
@overwrite_option
@workers_option
@scheduler_option
@click.option("--chunk-size", type=Whole(1, 10_000_000),
              help="Games per work unit (does not change results).")
@click.option("--report", "report_dir", type=click.Path(path_type=Path),
              help="Also build an HTML report of the run(s) into this folder.")
@click.option("--resume", is_flag=True,
              help="Continue a run stopped by Ctrl-C (run.json says complete: false) in "
                   "--out to its full count, with the same settings; for an experiment "
                   "file, play only its runs not yet complete.")
@precision_option
@trace_option
@kingmaking_option
@log_option
@click.option("--check-cards", "check_cards", metavar="N",
              help="For each card the verdict names strongest or weakest, play N more games "
                   "without one copy of it (the run's first N seeds and strategies) and say "
                   "what removing it does, paired game by game; without it, card value is "
                   "an association (docs/statistics.md).")
@mismatch_option
@train_option
@quiet_option
@json_option
@fair_option
def run(target, players, n_games, seed, strategies, fixed_seats, overrides, card_files, weights,
        out, overwrite, workers, scheduler, chunk_size, report_dir, resume, precision, trace,
        kingmaking, log_decisions, check_cards, model_mismatch, train_budget, quiet, as_json,
        fair):
    """Play games of TARGET (a game name, or an experiment .toml file) and write a run
    folder: games.parquet, items.parquet, run.json."""
    from simkit.cards import explained
    from simkit.checks import check_games
    from simkit.experiments import load_experiments
    from simkit.runner import RunSpec

    checks = {}  # folder -> games a check of a card plays
    if target.endswith(".toml"):
        if card_files:
            raise SimkitError("--cards is for a game; an experiment file gives each run's "
                              'card files itself (cards = ["cards.csv"])')
        if _trace(trace) or _trace(kingmaking, "--kingmaking") or \
                _trace(log_decisions, "--log-decisions"):
            raise SimkitError("--trace-turns, --kingmaking and --log-decisions are for a game; "
                              "an experiment file gives each run's trace_turns, kingmaking "
                              "and log_decisions itself")
        if train_budget is not None:
            raise SimkitError("--train is for a game; an experiment file's runs on other data "
                              "take a model with --weight learned.model=FILE")
        if check_cards is not None:
            raise SimkitError("--check-cards is for a game; an experiment file gives each "
                              "run's check_cards itself (check_cards = 2000)")
        root = out or Path("runs") / Path(target).stem
        experiments = load_experiments(Path(target))
        jobs = [(e.run, root / e.name) for e in experiments]
        checks = {root / e.name: e.check_cards for e in experiments if e.check_cards}
    else:
        players = _players(target, players)
        over, origins = _overrides(target, overrides, card_files)
        folder = out or Path("runs") / f"{target}-{players}p-s{seed}"
        if check_cards is not None:  # before the run is planned: a typo costs nothing
            checks[folder] = check_games(check_cards, n_games)
        tuned = None
        if resume and (folder / "run.json").is_file():
            weights = (*weights, *_folder_models(folder, weights))  # the models it played
        elif train_budget is not None:
            from simkit.folders import check_output

            check_output(folder, "run", overwrite)  # before the training, not after
            with explained(origins):
                tuned = _tuned(target, players, over, strategies, weights, seed,
                               train_budget, workers, quiet)
        with explained(origins):
            spec_run = RunSpec.make(target, players, n_games, seed, strategies, over,
                                    not fixed_seats, weights, trace=_trace(trace),
                                    kingmaking=_trace(kingmaking, "--kingmaking"),
                                    model_mismatch=model_mismatch == "ok", models=tuned,
                                    log_decisions=_trace(log_decisions, "--log-decisions"))
        jobs = [(spec_run, folder)]
    from simkit.folders import check_output
    from simkit.runner import check_resume

    for spec_run, folder in jobs:
        if resume and (folder / "run.json").is_file():
            check_output(folder, "run", overwrite=True)
            check_resume(spec_run, folder, _precision(precision))  # continuable, or one line
        else:
            check_output(folder, "run", overwrite)
    if report_dir is not None:
        check_output(report_dir, "report", overwrite=True, option="--report")
    done, summaries = [], []
    for spec_run, folder in jobs:
        if precision is not None:
            res = _play_precise(spec_run, folder, _precision(precision), workers, scheduler,
                                overwrite, quiet, resume, chunk_size)
        else:
            res = _play(spec_run, folder, workers, scheduler, chunk_size, overwrite, quiet,
                        tally=as_json or not quiet, resume=resume)
        done.append(folder)
        if checks.get(folder):
            res.meta["card_checks"] = _check_cards(spec_run, folder, checks[folder], workers,
                                                   scheduler, quiet, fair)
        if as_json or not quiet:
            summaries.append(_summarise(folder, res, quiet, as_json, fair / 100))
    headline = None
    if target.endswith(".toml") and summaries:
        from simkit.reports.headline import pick_headlines, strong_or_none, wrapped

        headline = pick_headlines(summaries, strong_or_none)
        _say("\n".join(["", "Headline", *wrapped(headline)]), quiet, as_json)
    path = None
    if report_dir is not None:
        from simkit.reports.build import build_report

        path = build_report(done, report_dir, fair=fair / 100) / "index.html"
        _say(f"report: {path}", quiet, as_json)
    if as_json:
        out_json = summaries[0] if len(jobs) == 1 and not target.endswith(".toml") else \
            {"headline": headline, "experiment": target, "runs": summaries}
        out_json["report"] = str(path) if path else None
        _emit_json(out_json)


def _check_cards(spec_run, folder: Path, n: int, workers, scheduler, quiet: bool,
                 fair: float) -> dict:
    """``--check-cards N``: check the cards the run's verdict names (``simkit.checks``),
    from the folder the run wrote; returns what checks/checks.json holds."""
    from simkit.checks import run_checks
    from simkit.reports.build import load_run
    from simkit.reports.summary import tables
    from simkit.runner import RunAbandoned, RunInterrupted

    run = load_run(folder)
    verdicts = tables(run.games, run.meta, run.items_path, fair / 100)["verdicts"]
    try:
        return run_checks(spec_run, folder, n, verdicts, run.meta, workers, scheduler, quiet,
                          say=lambda text: quiet or click.echo(text, err=True))
    except (RunInterrupted, RunAbandoned):
        click.echo(f"interrupted: the run is complete in {folder}, its card checks are not "
                   "(checks/checks.json is written only when every check is done); run the "
                   "same command with --resume to check them", err=True)
        sys.exit(130)


def _folder_models(folder: Path, weights) -> list[str]:
    """``--weight SLOT.model=FILE`` for each learned slot of the run in ``folder``
    (``simkit.replay.folder_models``)."""
    from simkit.replay import folder_models

    return folder_models(folder, weights)


def _play_precise(spec_run, folder, precision, workers, scheduler, overwrite, quiet, resume,
                  chunk_size=None):
    """Play ``spec_run`` in steps until its intervals are within ``precision``."""
    from simkit.reports.explore import run_widths
    from simkit.results import read_run
    from simkit.runner import RunAbandoned, RunInterrupted, run_precise

    if not quiet:
        click.echo(f"{spec_run.game}: up to {spec_run.games:,} games, until every interval is "
                   f"within ±{100 * precision:g} points, seed {spec_run.seed} -> {folder}",
                   err=True)
    try:
        record = run_precise(spec_run, folder, precision, run_widths, workers, scheduler,
                             not quiet, overwrite, resume, chunk_size)
    except RunInterrupted:
        click.echo(f"interrupted: kept the games finished in {folder}; continue with the "
                   "same command and --resume", err=True)
        sys.exit(130)
    except RunAbandoned as exc:
        click.echo(f"interrupted: {exc}", err=True)
        sys.exit(130)
    last = record["checks"][-1]
    if not quiet:
        said = {"precision": "the precision was reached",
                "both": "the precision was reached at the last count",
                "games": "--games was reached first"}[record["stopped_by"]]
        width = (f"±{100 * last['half_width']:.2f} points" if last["half_width"] is not None
                 else "too few games to measure")
        click.echo(f"stopped at {last['games']:,} games: {said} (widest: {last['widest']} "
                   f"{width})", err=True)
    back = read_run(folder, items=False, trace=False)
    back.items = folder / "items.parquet"
    back.trace = _trace_path(folder)
    return back


def _strong_line(game: str, players) -> str:
    """The game's strong player at each player count: "heuristic", or "learned at 2
    players, heuristic at 3, 4" where a model exists only for some."""
    from simkit import registry

    by: dict[str, list[str]] = {}
    for p in players:
        by.setdefault(registry.strong_strategy(game, p), []).append(str(p))
    if len(by) == 1:
        return next(iter(by))
    return ", ".join(f"{name} at {', '.join(ps)} players" for name, ps in by.items())


def _players(game: str, players: int | None) -> int:
    """--players, which may be left out for a game played by one number of players."""
    if players is not None:
        return players
    from simkit import registry

    spec = registry.get_game(game)
    if len(spec.players) == 1:
        return spec.players[0]
    raise SimkitError(f"--players is required; {game} is for "
                      f"{', '.join(map(str, spec.players))} players")


def _say(text: str, quiet: bool, as_json: bool) -> None:
    """A message for people: stdout normally, stderr when stdout carries JSON."""
    if not quiet:
        click.echo(text, err=as_json)


def _summarise(folder: Path, res, quiet: bool, as_json: bool, fair: float):
    """Print a finished run's summary (text) or return it (for --json), from the counts kept
    while it was played (``res.tally``): the same summary as its folder's, without reading
    the folder back."""
    from simkit.reports.summary import summary_dict, summary_text, tables

    meta = res.meta
    _say(f"{meta['games_completed']:,} games in {meta['elapsed_seconds']:.1f} s "
         f"({meta['games_per_second'] or 0:,.0f} games/s, {meta['backend']})", quiet, as_json)
    counts, items = (res.tally, None) if res.tally is not None else (res.games, res.items)
    trace = None if res.tally is not None else res.trace
    if as_json:
        d = summary_dict(counts, meta, items, fair, trace)
        return {"headline": d.pop("headline"), "folder": str(folder), **d}
    t = tables(counts, meta, items, fair, trace)
    click.echo(summary_text(counts, meta, items, fair, trace, t=t))
    return {"game": meta.get("game"), "players": meta.get("players"),
            "strategies": meta.get("strategies"), "headline": t["headline"]}


def _play(spec_run, folder, workers, scheduler, chunk_size, overwrite, quiet, tally=False,
          resume=False):
    from simkit.runner import RunAbandoned, RunInterrupted, run_games

    if not quiet:
        click.echo(f"{spec_run.game}: {spec_run.games:,} games, {spec_run.players} players, "
                   f"strategies {','.join(spec_run.strategies)}, seed {spec_run.seed} -> "
                   f"{folder}", err=True)
    try:
        res = run_games(spec_run, out=folder, workers=workers, scheduler=scheduler,
                        chunk_size=chunk_size, progress=not quiet, overwrite=overwrite,
                        tally=tally, resume=resume)
    except RunInterrupted as exc:
        done = exc.result.meta["games_completed"]
        if exc.result.meta.get("complete"):  # the stop came as the last games were played
            click.echo(f"interrupted: the run had finished: all {done:,} games are in "
                       f"{folder}", err=True)
        else:
            click.echo(f"interrupted: kept the {done:,} games finished in {folder} (run.json "
                       "says complete: false); continue with the same command and --resume",
                       err=True)
        sys.exit(130)
    except RunAbandoned as exc:
        click.echo(f"interrupted: {exc}", err=True)
        sys.exit(130)
    if tally and res.tally is None and res.games is None:  # resumed: read what it holds
        from simkit.results import read_run

        back = read_run(folder, items=False, trace=False)
        res.games, res.meta = back.games, back.meta
        res.items = folder / "items.parquet"
        res.trace = _trace_path(folder)
    return res


def _trace_path(folder: Path) -> Path | None:
    """A run folder's trace.parquet, read in batches by the feel figures; None without."""
    path = Path(folder) / "trace.parquet"
    return path if path.is_file() else None


@main.command()
@click.argument("runs", metavar="FOLDER...", nargs=-1, required=True,
                type=click.Path(path_type=Path))
@click.option("--out", type=click.Path(path_type=Path),
              help="Report folder: index.html, summary.md and the figures (default, for one "
                   "folder: FOLDER/report).")
@click.option("--title", help="Report title.")
@quiet_option
@json_option
@fair_option
def report(runs, out, title, quiet, as_json, fair):
    """Build the report (HTML with figures, and Markdown) of any folder simkit writes: a
    run, a what-if, a sweep, a sensitivity run, a balancing search, a ladder, a training,
    or an experiment's folder of them; several folders side by side."""
    from simkit.reports import pages
    from simkit.reports.build import load_ladder, load_run

    pairs = pages.expand(list(runs))  # one line for a folder that is not simkit's
    path = pages.report_folders(list(runs), out, title=title, fair=fair / 100) / "index.html"
    _say(f"report: {path}", quiet, as_json)
    if as_json:
        from simkit.reports.headline import pick_headlines, strong_or_none
        from simkit.reports.summary import summary_dict

        loaded = [load_run(p) for k, p in pairs if k == "run"]
        summaries = [{"folder": str(r.folder),
                      **summary_dict(r.games, r.meta, r.items_path, fair / 100)}
                     for r in loaded]
        ladders = [p for k, p in pairs if k in pages.SUMMARY_KINDS]
        explored = [{"folder": str(d), **load_ladder(d)} for d in ladders]
        doc = {"headline": pick_headlines(summaries, strong_or_none)
               + [h for x in explored for h in x.get("headline") or ()],
               "report": str(path), "runs": summaries}
        if ladders:
            doc["ladders"] = explored
        whatifs = [p for k, p in pairs if k == "whatif"]
        if whatifs:
            doc["whatif"] = str(whatifs[0])
        _emit_json(doc)


@main.command()
@click.argument("target")
@players_option
@click.option("--strategies",
              help="The levels of the ladder, comma-separated, weakest first, e.g. "
                   "random,heuristic,mc,ismcts@200,ismcts@1000 (two at least).")
@click.option("--games", "n_games", type=Whole(),
              help="Games a pairing (a table at 3 and 4 players), split evenly over its seat "
                   "arrangements  [default: 200, or what --time allows]")
@click.option("--level-games", type=Whole(),
              help="Self-play games of each level, for balance by skill (default: --games).")
@click.option("--time", "time_budget", metavar="DURATION",
              help="End the whole command (compiling and report included) within this "
                   "time (90s, 15m, 2h), playing as many games as fit; instead of --games.")
@seed_option
@set_option
@cards_option
@weight_option
@click.option("--out", type=click.Path(path_type=Path),
              help="Ladder folder (default runs/ladder-GAME-Np-sSEED; for an experiment file, "
                   "runs/FILE-NAME with one folder per ladder).")
@overwrite_option
@click.option("--resume", is_flag=True,
              help="Continue a ladder stopped by Ctrl-C in --out: play only the runs not "
                   "finished, with the same settings.")
@workers_option
@scheduler_option
@click.option("--report", "report_dir", type=click.Path(path_type=Path),
              help="Build one HTML report of the ladder(s) into this folder (default: each "
                   "ladder folder's report/).")
@trace_option
@mismatch_option
@train_option
@quiet_option
@json_option
@fair_option
def ladder(target, players, strategies, n_games, level_games, time_budget, seed, overrides,
           card_files, weights, out, overwrite, resume, workers, scheduler, report_dir, trace,
           model_mismatch, train_budget, quiet, as_json, fair):
    """A skill ladder of TARGET (a game, or an experiment .toml file of [[ladder]] tables):
    a round robin of the strategies with seats rotated, their ratings with 95% intervals, a
    win matrix, skill depth, and the game's balance at every level of skill."""
    from simkit.cards import explained
    from simkit.ladder import LadderSpec, parse_duration

    if n_games is not None and time_budget is not None:
        raise SimkitError("give --games or --time, not both")
    if target.endswith(".toml"):
        if _trace(trace):
            raise SimkitError("--trace-turns is for a game; an experiment file gives each "
                              "ladder's trace_turns itself")
        from simkit.experiments import load_ladders

        if card_files:
            raise SimkitError("--cards is for a game; an experiment file gives each ladder's "
                              'card files itself (cards = ["cards.csv"])')
        _no_file_models(model_mismatch, train_budget)
        root = out or Path("runs") / Path(target).stem
        jobs = [(e.ladder, root / e.name, e.time, e.games_given)
                for e in load_ladders(Path(target))]
    else:
        if not strategies:
            raise SimkitError("a ladder needs --strategies, two or more, weakest first (e.g. "
                              "--strategies random,heuristic,ismcts@200)")
        players = _players(target, players)
        over, origins = _overrides(target, overrides, card_files)
        with explained(origins):
            spec = LadderSpec.make(target, players, strategies,
                                   n_games if n_games is not None else 200, level_games,
                                   seed, over, weights, _trace(trace),
                                   model_mismatch == "ok", train_budget or "")
        seconds = parse_duration(time_budget) if time_budget is not None else None
        jobs = [(spec, out or Path("runs") / f"ladder-{target}-{players}p-s{seed}", seconds,
                 n_games is not None)]
    from simkit import folders
    from simkit.ladder import check_resume

    checked = []
    for spec, folder, seconds, given in jobs:
        if resume and folder.exists():
            spec = check_resume(spec, folder, given)
        else:
            folders.check_output(folder, "ladder", overwrite)
        checked.append((spec, folder, seconds, resume and folder.exists()))
    if report_dir is not None:
        folders.check_output(report_dir, "report", overwrite=True, option="--report")
    from simkit.clock import Budget

    for spec, _, seconds, resuming in checked:  # every ladder's --time, before any plays
        if seconds is not None and not resuming:
            _check_ladder_budget(spec, Budget(seconds).restart(), True)
    summaries, budget = [], None
    for i, (spec, folder, seconds, resuming) in enumerate(checked):
        # each ladder's --time (an experiment's each have their own) from when it starts;
        # the first's from the process's start (importing and checking count too); every
        # ladder writes its page, so its time is kept for it
        budget = None if seconds is None else (
            Budget(seconds) if i == 0 else Budget(seconds).restart())
        summaries.append(_play_ladder(spec, folder, budget, resuming, workers, scheduler,
                                      quiet, as_json, fair, True))
    from simkit.reports.build import build_report

    if report_dir is not None:
        path = build_report([f for _, f, _, _ in checked], report_dir, fair=fair / 100)
        path = path / "index.html"
        _say(f"report: {path}", quiet, as_json)
    else:  # every ladder's page in its own folder
        for _, f, _, _ in checked:
            path = build_report([f], f / "report", fair=fair / 100) / "index.html"
            _say(f"report: {path}", quiet, as_json)
    if budget is not None and not quiet and not as_json:
        click.echo(f"took {budget.elapsed():.0f} s of --time {budget.seconds:.0f} s", err=True)
    if as_json:
        doc = summaries[0] if len(summaries) == 1 and not target.endswith(".toml") else \
            {"experiment": target, "ladders": summaries}
        doc["report"] = str(path) if path else None
        _emit_json(doc)


def _play_ladder(spec, folder, budget, resuming, workers, scheduler, quiet, as_json, fair,
                 report):
    """Play one ladder (``budget``: a ``simkit.clock.Budget`` for --time, else None; see
    ``_timed_ladder``) and return its summary for --json."""
    import json
    import os

    from simkit.ladder import (
        LadderInterrupted,
        estimate,
        measure_costs,
        run_ladder,
        say_duration,
    )
    from simkit.reports.ladder import ladder_text, summarise

    n_workers = workers or os.cpu_count() or 1
    timed = budget is not None and not resuming
    if timed:
        _check_ladder_budget(spec, budget, report)
    if not quiet:
        click.echo(f"{spec.game} ladder, {spec.players} players: "
                   f"{', '.join(spec.strategies)}; measuring each strategy's cost ...",
                   err=True)
    for plan in spec.tunings():  # --train: the learned levels' model first
        if not quiet:
            click.echo(f"  training: {plan.describe()}: "
                       + (f"trained before ({plan.out})" if plan.done else
                          f"about {say_duration(plan.estimate_seconds(n_workers))}"), err=True)
        try:
            plan.train(n_workers, None if quiet else
                       (lambda text: click.echo(f"    {text}", err=True)))
        except KeyboardInterrupt:
            click.echo("interrupted while training: the finished generations are kept; the "
                       "same command goes on from them (nothing was played)", err=True)
            sys.exit(130)
    costs = measure_costs(spec, show=not quiet)  # a --time counts the training above too
    if not quiet:
        click.echo("  " + ", ".join(f"{k} {v * 1000:,.1f} ms a game" for k, v in costs.items()),
                   err=True)
    try:
        if timed:
            doc, est = _timed_ladder(spec, folder, budget, costs, n_workers, workers, scheduler,
                                     quiet, report)
        else:
            est = estimate(spec, costs, n_workers)
            if not quiet:
                click.echo(f"  {_ladder_plan(spec, est, n_workers)} -> {folder}", err=True)
            doc = run_ladder(spec, folder, workers, scheduler, progress=not quiet, costs=costs,
                             estimate_=est, resume=resuming)
    except LadderInterrupted as exc:
        click.echo(f"interrupted: kept the {exc.done} runs finished of the {exc.todo} to play "
                   f"in {folder}; continue with the same command and --resume", err=True)
        sys.exit(130)
    summary = json.loads((folder / "summary.json").read_text(encoding="utf-8"))
    if fair != 1.0:
        summary = summarise(folder, doc, fair / 100)
    if not quiet and not as_json:
        click.echo(f"played in {say_duration(doc['play_seconds'])} (estimated "
                   f"{say_duration(est['seconds'])})", err=True)
        click.echo(ladder_text(summary))
    return {"folder": str(folder), **summary}


def _ladder_plan(spec, est, n_workers) -> str:
    from simkit.ladder import say_duration

    return (f"{len(spec.schedule())} runs, {est['games']:,} games ({spec.games:,} a table, "
            f"{spec.level_games:,} a level): about {say_duration(est['seconds'])} on "
            f"{n_workers} thread{'s' if n_workers > 1 else ''}; a pairing's win rate to within "
            f"±{100 * est['pairing_half_width']:.1f} points, a level's to "
            f"±{100 * est['level_half_width']:.1f}")


def _check_ladder_budget(spec, budget, report) -> None:
    """Refuse (exit 2) a --time in which not even the smallest ladder's runs, summary and
    report fit, before anything is compiled or timed."""
    from simkit.ladder import refuse_budget, reserve_seconds

    refuse_budget(spec, budget, reserve_seconds(spec, report))


def _timed_ladder(spec, folder, budget, costs, n_workers, workers, scheduler, quiet, report):
    """Play a ladder within ``budget`` (the whole command's --time, see ``simkit.clock``):
    what compiling and timing took and what the summary and report will take are subtracted;
    a first pass plays a share of what the measured costs say fits, and a second grows every
    run to what the first pass's own pace says fits. Returns (ladder.json, estimate)."""
    from simkit.ladder import (
        estimate,
        first_pass,
        grow_to,
        refuse_budget,
        reserve_seconds,
        run_ladder,
        say_duration,
        seconds_a_game,
        smallest,
    )

    reserve = reserve_seconds(spec, report)
    refuse_budget(spec, budget, reserve,
                  smallest(spec).games * seconds_a_game(spec, costs, n_workers))
    first, pilot = first_pass(spec, costs, n_workers, budget.left(), reserve)
    est = estimate(first, costs, n_workers)
    if not quiet:
        click.echo(f"  --time {say_duration(budget.seconds)}: {say_duration(budget.elapsed())} "
                   f"spent compiling and timing, {say_duration(reserve)} kept for the summary"
                   f"{' and report' if report else ''}; "
                   + ("a first pass to measure the pace, then as many games as fit: "
                      if pilot else "")
                   + f"{_ladder_plan(first, est, n_workers)} -> {folder}", err=True)
    doc = run_ladder(first, folder, workers, scheduler, progress=not quiet, costs=costs,
                     estimate_=est, final=not pilot)
    if not pilot:
        return _with_budget(folder, doc, budget, reserve, [first.games]), est
    n = grow_to(first.games, doc["play_seconds"], doc["run_seconds"], budget.left(), reserve)
    grown = first.with_games(n, n)
    est = estimate(grown, costs, n_workers)
    if not quiet:
        click.echo(f"  the first pass of {first.games:,} games a table took "
                   f"{say_duration(doc['play_seconds'])}; at its pace "
                   f"{say_duration(budget.left())} left allow "
                   f"{_ladder_plan(grown, est, n_workers)}", err=True)
    first_seconds = doc["play_seconds"]
    doc = run_ladder(grown, folder, workers, scheduler, progress=not quiet, costs=costs,
                     estimate_=est, resume=True)
    doc["play_seconds"] = round(doc["play_seconds"] + first_seconds, 3)
    return _with_budget(folder, doc, budget, reserve, [first.games, grown.games]), est


def _with_budget(folder, doc, budget, reserve, passes):
    """ladder.json with how its --time was spent (recorded, not a setting: a resumed ladder
    keeps the counts it chose)."""
    from simkit import folders

    doc["time"] = {"budget_seconds": budget.seconds, "reserved_seconds": round(reserve, 1),
                   "games_a_pass": passes, "seconds_before_summary": round(budget.elapsed(), 1)}
    folders.write_json(folder / "ladder.json", doc)
    return doc


def _precision(x: float | None) -> float | None:
    if x is None:
        return None
    if not 0 < x < 50:
        raise SimkitError(f"--precision is a half-width in points, more than 0 and less than "
                          f"50 (e.g. 1 for +-1 point), not {x:g}")
    return x / 100


def _explore_out(kind: str, game: str, players: int, seed: int, out, overwrite, resume, spec):
    from simkit import folders
    from simkit.explore import check_resume

    if out is None:
        label = "+".join(k for k, _ in spec.varies) if spec.kind == "sweep" else ""
        out = folders.default_folder(f"{kind}-{game}-{players}p-s{seed}", label,
                                     spec.as_dict())
    if resume and out.exists():
        check_resume(spec, out)
        return out, True
    folders.check_output(out, kind, overwrite)
    return out, False


def _explore(spec, out, resuming, workers, scheduler, quiet, as_json, fair, report_dir):
    import os

    from simkit import folders
    from simkit.explore import ExploreInterrupted, estimate_seconds, run_explore
    from simkit.ladder import say_duration

    report_dir = report_dir if report_dir is not None else out / "report"  # its page
    folders.check_output(report_dir, "report", overwrite=True, option="--report")
    n = workers or os.cpu_count() or 1
    if not quiet:
        click.echo(f"{spec.game}, {spec.players} players: {len(spec.points)} points x "
                   f"{spec.games:,} games on the same seeds, about "
                   f"{say_duration(estimate_seconds(spec, n))}"
                   + (" at most (--precision may stop sooner)" if spec.precision else "")
                   + f" -> {out}", err=True)
    try:
        summary = run_explore(spec, out, workers, scheduler, progress=not quiet,
                              resume=resuming, fair=fair / 100)
    except ExploreInterrupted as exc:
        click.echo(f"interrupted: kept the {exc.done} points finished of the {exc.todo} to "
                   f"play in {out}; continue with the same command and --resume", err=True)
        sys.exit(130)
    from simkit.reports.build import build_report

    path = build_report([out], report_dir, fair=fair / 100) / "index.html"
    if as_json:
        _emit_json({"folder": str(out), **summary, "report": str(path) if path else None})
        return
    if not quiet:
        from simkit.reports.assumptions import assumptions_text
        from simkit.reports.explore import sensitivity_text, sweep_text

        click.echo(sweep_text(summary) if spec.kind == "sweep" else
                   assumptions_text(summary) if summary.get("assumptions") else
                   sensitivity_text(summary))
        click.echo(f"report: {path}")


def _exploration_options(kind: str, refuse: str):
    """The options ``sweep`` and ``sensitivity`` share: the run's settings, the folder,
    resuming, where to play, the report and the output."""
    options = [
        seed_option, strategies_option, fixed_option, set_option, cards_option, weight_option,
        click.option("--max-points", type=Whole(1, 100_000), default=200,
                     show_default=True, help=f"Refuse {refuse} than this."),
        click.option("--out", type=click.Path(path_type=Path),
                     help=f"The {kind} folder (default runs/{kind}-GAME-Np-sSEED-DIGEST, a "
                          "digest of the settings; a sweep's names its keys too)."),
        overwrite_option,
        click.option("--resume", is_flag=True,
                     help="Play only the points not finished in --out."),
        workers_option, scheduler_option,
        click.option("--report", "report_dir", type=click.Path(path_type=Path),
                     help=f"Build the {kind}'s HTML report into this folder (default: "
                          f"the {kind} folder's report/)."),
        mismatch_option, train_option, quiet_option, json_option, fair_option]

    def apply(f):
        for option in reversed(options):
            f = option(f)
        return f

    return apply


@main.command()
@click.argument("game")
@click.option("--vary", "varies", multiple=True, metavar="KEY=VALUES",
              help="A number to sweep (repeatable: a grid): KEY=3,4,5, KEY=3..6 (whole "
                   "numbers) or KEY=0.5:2.0:0.25 (start, stop, step).")
@players_option
@click.option("--games", "n_games", type=Whole(), default=20_000, show_default=True,
              help="Games a point (the most, with --precision).")
@precision_option
@trace_option
@_exploration_options("sweep", "a grid of more points")
def sweep(game, varies, players, n_games, seed, strategies, fixed_seats, overrides,
          card_files, weights, precision, trace, max_points, out, overwrite, resume, workers,
          scheduler, report_dir, model_mismatch, train_budget, quiet, as_json, fair):
    """Play GAME (or the [[sweep]] tables of an experiment .toml file) at every point of a
    grid of its numbers (--vary), all on the same seeds:
    outcomes by seat with intervals, first-player advantage, length and endings at every
    point, a chart, and a verdict on where the game is fair."""
    from simkit.cards import explained
    from simkit.explore import make_sweep

    if game.endswith(".toml"):
        if _trace(trace):
            raise SimkitError("--trace-turns is for a game; an experiment file gives each "
                              "sweep's trace_turns itself")
        _no_file_models(model_mismatch, train_budget)
        return _explore_file("sweep", game, out, overwrite, resume, workers, scheduler, quiet,
                             as_json, fair, report_dir)
    if not varies:
        raise SimkitError("a sweep needs at least one --vary KEY=VALUES")
    players = _players(game, players)
    over, origins = _overrides(game, overrides, card_files)
    with explained(origins):
        spec = make_sweep(game, players, list(varies), n_games, seed, strategies, over,
                          not fixed_seats, weights, max_points, _precision(precision),
                          _trace(trace), model_mismatch == "ok", train_budget or "")
    out, resuming = _explore_out("sweep", game, players, seed, out, overwrite, resume, spec)
    _explore(spec, out, resuming, workers, scheduler, quiet, as_json, fair, report_dir)


def _no_file_models(model_mismatch, train_budget) -> None:
    if model_mismatch == "ok" or train_budget is not None:
        raise SimkitError("--model-mismatch and --train are for a game; an experiment file's "
                          "explorations take a model with --weight learned.model=FILE")


def _explore_file(kind, path, out, overwrite, resume, workers, scheduler, quiet, as_json, fair,
                  report_dir):
    """Every [[sweep]] (or [[sensitivity]], [[balance]]) table of an experiment file, each
    into its own folder under --out (default runs/FILE)."""
    from simkit import folders
    from simkit.experiments import load_explorations

    root = out or Path("runs") / Path(path).stem
    jobs = [(e.spec, root / e.name) for e in load_explorations(Path(path), kind)]
    checked = []
    for spec, folder in jobs:
        if kind == "balance" and resume and (folder / "trials.partial.json").is_file():
            checked.append((spec, folder, True))
        elif kind != "balance" and resume and folder.exists():
            from simkit.explore import check_resume

            check_resume(spec, folder)
            checked.append((spec, folder, True))
        else:
            folders.check_output(folder, kind, overwrite)
            checked.append((spec, folder, False))
    for spec, folder, resuming in checked:
        if kind == "balance":
            _balance(spec, folder, workers, scheduler, quiet, as_json, resuming)
        else:
            _explore(spec, folder, resuming, workers, scheduler, quiet, as_json, fair,
                     report_dir / folder.name if report_dir else None)


@main.command()
@click.argument("game")
@click.option("--keys", help="The numbers to move, comma-separated (default: every number "
                             "of the game's data).")
@click.option("--step", type=Real(0, lo_open=True),
              help="The step (default: 1 for whole numbers, 10% of the value for the "
                   "others).")
@click.option("--measure", default="seat-spread", show_default=True,
              help="What to watch: seat-spread (largest seat's score share minus smallest), "
                   "first-player-advantage, length, or item:NAME (a card's value).")
@click.option("--assumptions", is_flag=True,
              help="Move only the data's assumed values (source = assumed): a number a step "
                   "down and up, every other choice, a boolean flipped, the alternatives the "
                   "data names for a list or a record; under the game's strong player unless "
                   "--strategies is given; ranked by their effect on the first-player "
                   "advantage and each seat's win rate.")
@players_option
@click.option("--games", "n_games", type=Whole(), default=20_000, show_default=True,
              help="Games a point (the base and every step, on the same seeds).")
@_exploration_options("sensitivity", "more runs")
@click.pass_context
def sensitivity(ctx, game, keys, step, measure, assumptions, players, n_games, seed,
                strategies, fixed_seats, overrides, card_files, weights, max_points, out,
                overwrite, resume, workers, scheduler, report_dir, model_mismatch, train_budget,
                quiet, as_json, fair):
    """Move every number of GAME (or --keys) one step down and up, each paired with the base
    on the same seeds, and rank them by their effect on a measure (a tornado chart), with a
    Holm correction for testing many numbers at once. With --assumptions: the values the
    game's data assumes (not the rulebook's), weighed."""
    from simkit.cards import explained
    from simkit.explore import make_assumptions, make_sensitivity

    if game.endswith(".toml"):
        _no_file_models(model_mismatch, train_budget)
        if assumptions:
            raise SimkitError("--assumptions is for a game, not an experiment file")
        return _explore_file("sensitivity", game, out, overwrite, resume, workers, scheduler,
                             quiet, as_json, fair, report_dir)
    if assumptions and (keys or ctx.get_parameter_source("measure").name != "DEFAULT"):
        raise SimkitError("--assumptions moves the data's assumed values and measures the "
                          "first-player advantage and each seat's win rate; leave out "
                          f"{'--keys' if keys else '--measure'}")
    players = _players(game, players)
    over, origins = _overrides(game, overrides, card_files)
    names = [k.strip() for k in keys.split(",") if k.strip()] if keys else None
    given = ctx.get_parameter_source("strategies").name != "DEFAULT"
    with explained(origins):
        if assumptions:
            spec = make_assumptions(game, players, n_games, seed,
                                    strategies if given else None, over, not fixed_seats,
                                    weights, step, max_points, model_mismatch == "ok",
                                    train_budget or "")
        else:
            spec = make_sensitivity(game, players, n_games, seed, strategies, over,
                                    not fixed_seats, weights, names, step, measure,
                                    max_points, model_mismatch == "ok", train_budget or "")
    if assumptions and out is None:  # apart from a plain sensitivity run's folder
        from simkit import folders

        out = folders.default_folder(f"assumptions-{game}-{players}p-s{seed}", "",
                                     spec.as_dict())
    out, resuming = _explore_out("sensitivity", game, players, seed, out, overwrite, resume,
                                 spec)
    _explore(spec, out, resuming, workers, scheduler, quiet, as_json, fair, report_dir)


@main.command()
@click.argument("game")
@click.option("--vary", "varies", multiple=True, metavar="KEY[=RANGE]",
              help="A number to search (repeatable): KEY (its declared bounds), KEY=LO..HI, "
                   "KEY=LO:HI:STEP or KEY=V1,V2,...")
@click.option("--objective", "objectives", multiple=True, metavar="NAME",
              help="What to meet (repeatable: a Pareto front): first-player-advantage "
                   "(to 0), seat-spread (to 0), item:NAME (a card's value to 0), "
                   "length=LO..HI (mean turns in the range)  [default: "
                   "first-player-advantage]")
@players_option
@click.option("--trials", type=Whole(), default=40, show_default=True, help="Settings to try.")
@click.option("--games", "n_games", type=Whole(), default=4000, show_default=True,
              help="Games a trial, every trial on the same seeds.")
@click.option("--confirm", type=Whole(), default=3, show_default=True,
              help="The best settings to confirm on fresh seeds.")
@click.option("--confirm-games", type=Whole(), default=20_000, show_default=True,
              help="Games a confirmation.")
@click.option("--target", type=Real(0, 50, lo_open=True, hi_open=True), default=1.0,
              show_default=True, metavar="POINTS",
              help="An objective is met within +-POINTS (the smallest change is sought "
                   "among the trials that met it; a confirmation meets it when its estimate "
                   "is within +-POINTS and its interval within twice that).")
@seed_option
@strategies_option
@fixed_option
@set_option
@cards_option
@weight_option
@click.option("--out", type=click.Path(path_type=Path),
              help="Balance folder (default runs/balance-GAME-Np-sSEED-KEYS-DIGEST: the keys "
                   "varied and a digest of the settings).")
@overwrite_option
@click.option("--resume", is_flag=True,
              help="Continue a search stopped by Ctrl-C in --out: the trials played are "
                   "kept, the rest are played.")
@workers_option
@scheduler_option
@mismatch_option
@train_option
@quiet_option
@json_option
def balance(game, varies, objectives, players, trials, n_games, confirm, confirm_games, target,
            seed, strategies, fixed_seats, overrides, card_files, weights, out, overwrite,
            resume, workers, scheduler, model_mismatch, train_budget, quiet, as_json):
    """Search GAME's numbers (--vary; or the [[balance]] tables of an experiment .toml file)
    for the setting that best meets --objective, with
    Optuna (TPE; NSGA-II for several objectives) on common seeds, then confirm the best few
    and the smallest change that meets the target on fresh seeds with intervals."""
    from simkit import folders
    from simkit.balance import make_balance
    from simkit.cards import explained

    if game.endswith(".toml"):
        _no_file_models(model_mismatch, train_budget)
        return _explore_file("balance", game, out, overwrite, resume, workers, scheduler,
                             quiet, as_json, 1.0, None)
    players = _players(game, players)
    over, origins = _overrides(game, overrides, card_files)
    with explained(origins):
        spec = make_balance(game, players, list(varies),
                            list(objectives) or ["first-player-advantage"], trials, n_games,
                            confirm, confirm_games, target / 100, seed, strategies, over,
                            not fixed_seats, weights, model_mismatch == "ok",
                            train_budget or "")
    out = out or folders.default_folder(f"balance-{game}-{players}p-s{seed}",
                                        "+".join(d.key for d in spec.dimensions),
                                        spec.as_dict())
    resuming = resume and (out / "trials.partial.json").is_file()
    if resume and out.exists() and not resuming:
        raise SimkitError(f"--resume: {out} holds no balancing search to continue")
    if not resuming:
        folders.check_output(out, "balance", overwrite)
    _balance(spec, out, workers, scheduler, quiet, as_json, resuming)


def _balance(spec, out, workers, scheduler, quiet, as_json, resume=False):
    import os

    from simkit.balance import balance_text, estimate_seconds, run_balance
    from simkit.ladder import say_duration

    if not quiet:
        n = workers or os.cpu_count() or 1
        click.echo(f"{spec.game}, {spec.players} players: {spec.trials} trials of "
                   f"{spec.games:,} games, then confirmations of {spec.confirm_games:,} (the "
                   f"best {spec.confirm}, the smallest change, today's data and each number "
                   f"alone): about {say_duration(estimate_seconds(spec, n))} -> {out}",
                   err=True)
    summary = run_balance(spec, out, workers, scheduler, progress=not quiet, resume=resume)
    from simkit.reports.build import build_report

    path = build_report([out], out / "report") / "index.html"  # its page, in its folder
    if as_json:
        _emit_json({"folder": str(out), **summary, "report": str(path)})
    elif not quiet:
        click.echo(balance_text(summary))
        click.echo(f"trials: {out / 'trials.csv'}, figure: {out / 'trials.png'}")
        click.echo(f"report: {path}")


@main.command()
@click.argument("game")
@set_option
@cards_option
@click.option("--base-set", "base_overrides", multiple=True, metavar="KEY=VALUE",
              help="Change the base game too (repeatable); --set applies on top of it.")
@click.option("--base-cards", "base_card_files", multiple=True, metavar="FILE",
              help="Replace a card list in the base game too (repeatable); --cards applies "
                   "on top of it.")
@players_option
@click.option("--games", "n_games", type=Whole(), default=20_000, show_default=True,
              help="Games to play in each of the two runs (the same seeds).")
@seed_option
@strategies_option
@fixed_option
@weight_option
@click.option("--out", type=click.Path(path_type=Path),
              help="Folder for base/, changed/ and report/ (default runs/whatif-GAME-Np-sSEED-"
                   "CHANGE-DIGEST: the change and a digest of the settings).")
@overwrite_option
@click.option("--resume", is_flag=True,
              help="Continue a what-if stopped by Ctrl-C in --out, with the same settings: "
                   "its runs not yet complete play their remaining games.")
@workers_option
@scheduler_option
@quiet_option
@json_option
@precision_option
@trace_option
@kingmaking_option
@mismatch_option
@train_option
@fair_option
def whatif(game, overrides, card_files, base_overrides, base_card_files, players, n_games,
           seed, strategies, fixed_seats, weights, out, overwrite, resume, workers, scheduler,
           quiet, as_json, precision, trace, kingmaking, model_mismatch, train_budget, fair):
    """Play GAME as it is and as changed by --set (or --cards), on the same seeds, and show
    the differences with 95% intervals that use the pairing; writes both runs and a
    report."""
    from simkit import data
    from simkit.cards import explained
    from simkit.runner import RunSpec

    if not overrides and not card_files:
        raise SimkitError("whatif needs at least one --set KEY=VALUE (or --cards FILE) to "
                          "compare against")
    players = _players(game, players)
    precision = _precision(precision)  # every option checked before the folder is made
    base_over, base_origins = _overrides(game, base_overrides, base_card_files)
    changes, origins = _overrides(game, overrides, card_files)
    changed_over = {**base_over, **changes}
    from simkit import folders

    if out is None:  # named by the change, and by a digest of all the settings
        label = "+".join(f"{k}={Path(origins[k].path).stem}" if k in origins else
                         f"{k}={v}" for k, v in changes.items())
        out = folders.default_folder(f"whatif-{game}-{players}p-s{seed}", label, {
            "players": players, "games": n_games, "seed": seed, "strategies": strategies,
            "base": base_over, "changed": changed_over, "rotate": not fixed_seats,
            "weights": weights, "trace": trace, "kingmaking": kingmaking,
            "model_mismatch": model_mismatch, "train": train_budget, "precision": precision})
    tuned = {"base": None, "changed": None}
    if train_budget is not None:  # each side plays a model fine-tuned for its own game
        if not (resume and folders.kind_of(out) == "whatif"):
            folders.check_output(out, "whatif", overwrite)  # before the training, not after
        tuned = _whatif_models(game, players, base_over, changed_over, strategies, weights,
                               seed, train_budget, workers, quiet,
                               {**base_origins, **origins})
    with explained(base_origins):
        base = RunSpec.make(game, players, n_games, seed, strategies, base_over,
                            not fixed_seats, weights, trace=_trace(trace),
                            kingmaking=_trace(kingmaking, "--kingmaking"),
                            model_mismatch=model_mismatch == "ok", models=tuned["base"])
    with explained({**base_origins, **origins}):
        changed = RunSpec.make(game, players, n_games, seed, strategies, changed_over,
                               not fixed_seats, weights, trace=_trace(trace),
                               kingmaking=_trace(kingmaking, "--kingmaking"),
                               model_mismatch=model_mismatch == "ok", models=tuned["changed"])
    if resume and precision is not None:
        raise SimkitError("--resume does not take --precision yet; play the what-if again "
                          "with --overwrite")
    if resume and folders.kind_of(out) == "whatif":
        from simkit.runner import check_resume

        folders.check_output(out, "whatif", overwrite=True)
        for spec_run, name in ((base, "base"), (changed, "changed")):
            if (out / name / "run.json").is_file():  # continuable, or one line
                check_resume(spec_run, out / name)
    else:
        folders.check_output(out, "whatif", overwrite)
    out.mkdir(parents=True, exist_ok=True)
    folders.mark(out, "whatif")  # first, so an interrupted what-if can be replaced
    from simkit.reports.analysis import compare_runs
    from simkit.reports.build import build_whatif_report, load_run, whatif_headline
    from simkit.reports.verdict import whatif_verdicts

    record = None
    if precision is None:
        for spec_run, name in ((base, "base"), (changed, "changed")):
            _play(spec_run, out / name, workers, scheduler, None, overwrite, quiet,
                  resume=resume)
    else:
        record = _whatif_precise(base, changed, out, precision, workers,
                                 scheduler, overwrite, quiet)
    b, c = load_run(out / "base"), load_run(out / "changed")
    table = compare_runs(b.games, c.games, b.meta, c.meta, b.items_path, c.items_path,
                         b.trace_path, c.trace_path)
    verdicts = whatif_verdicts(table, fair / 100, b.meta.get("strategies"))
    headline = whatif_headline(b, c, table, fair / 100)
    from simkit.reports.summary import models_played

    played = {"base": b.meta.get("models"), "changed": c.meta.get("models")}
    path = build_whatif_report(out / "base", out / "changed", out / "report",
                               fair=fair / 100) / "index.html"
    if as_json:
        from simkit.reports.summary import records

        _emit_json({"headline": [headline], "game": game, "players": players,
                    "changes": changes, "base_changes": base_over,
                    "card_files": {k: o.path for k, o in origins.items()},
                    "games": n_games, "master_seed": seed,
                    "verdicts": [v.as_dict() for v in verdicts],
                    "differences": records(table), "folder": str(out),
                    "precision": record, "models": played, "report": str(path)})
        return
    if quiet:
        return
    text = ", ".join(f"{k}={origins[k].path}" if k in origins else
                     data.describe_override(k, v) for k, v in changes.items())
    click.echo(f"{game}: {text} vs as it is; {n_games:,} paired games, seed {seed}")
    click.echo(textwrap.fill(headline, 100, subsequent_indent="  "))
    lines = models_played({"base": b.meta, "changed": c.meta})
    if lines:
        click.echo("Models")
        for line in lines:
            click.echo(f"  {line}")
    click.echo("Verdict")
    for v in verdicts:
        click.echo(f"  {v.text}")
    click.echo(_whatif_text(table))
    click.echo(f"report: {path}")


def _whatif_models(game, players, base_over, changed_over, strategies, weights, seed,
                   budget_text, workers, quiet, origins) -> dict:
    """``whatif --train``: two models fine-tuned from one base model (the nearest to the
    base game) with the same budget and seed, one on the game as it is and one on the
    changed game: {"base": slot -> model, "changed": slot -> model}."""
    from simkit import data, registry, tune
    from simkit.cards import explained
    from simkit.runner import RunSpec

    spec = registry.get_game(game)
    files = tune.model_files(weights)
    params = data.apply_overrides(spec.data, data.parse_overrides(base_over))
    probe = RunSpec.make(game, players, 1, seed, strategies, base_over, True, weights,
                         model_mismatch=True)
    start = {slot: tune.nearest(game, players, params,
                                files.get(slot, files.get(registry_base(slot))))
             for slot in tune.learned_slots(game, probe.strategies)}
    with explained(origins):  # the changed game checked too, before any training
        RunSpec.make(game, players, 1, seed, strategies, changed_over, True, weights,
                     model_mismatch=True)
    out = {}
    for side, over in (("base", base_over), ("changed", changed_over)):
        _say(f"{side}:", quiet, True)
        with explained(origins):
            out[side] = _tuned(game, players, over, strategies, weights, seed, budget_text,
                               workers, quiet, start)
    return out


def _whatif_precise(base, changed, out, precision, workers, scheduler, overwrite, quiet):
    """Play both runs of a what-if in steps until the paired difference of every seat's win
    rate and of the first-player advantage has a 95% interval within ``precision``."""
    import json
    from dataclasses import replace

    from simkit.reports.analysis import compare_runs
    from simkit.results import read_run
    from simkit.runner import checkpoints, run_games

    checks, stopped_by = [], "games"
    for i, n in enumerate(checkpoints(base.games)):
        for spec_run, name in ((base, "base"), (changed, "changed")):
            run_games(replace(spec_run, games=n), out=out / name, workers=workers,
                      scheduler=scheduler, progress=not quiet, overwrite=overwrite and i == 0,
                      resume=i > 0, grow=True)
        b, c = read_run(out / "base", items=False), read_run(out / "changed", items=False)
        t = compare_runs(b.games, c.games, b.meta, c.meta)
        rows = t[(t["measure"] == "first-player advantage") |
                 ((t["measure"] == "win rate") & t["group"].str.startswith("seat"))]
        half = ((rows["ci_high"] - rows["ci_low"]) / 2).fillna(float("inf"))
        widest = rows.iloc[int(half.to_numpy().argmax())]
        checks.append({"games": n, "widest": f"{widest['measure']} {widest['group']}",
                       "half_width": float(half.max())})
        if float(half.max()) <= precision:
            stopped_by = "precision" if n < base.games else "both"
            break
    record = {"target": precision, "stopped_by": stopped_by, "checks": checks,
              "max_games": base.games,
              "rule": "checked at 1,000 games and every doubling after, on the paired "
                      "differences of every seat's win rate and of the first-player advantage"}
    from simkit import folders

    folders.write_text(out / "precision.json", json.dumps(record, indent=2) + "\n")
    if not quiet:
        click.echo(f"stopped at {checks[-1]['games']:,} paired games: "
                   + ("the precision was reached" if stopped_by != "games" else
                      "--games was reached first")
                   + f" (widest: {checks[-1]['widest']} ±{100 * checks[-1]['half_width']:.2f} "
                     "points)", err=True)
    return record


def _level(x: float, share: bool) -> str:
    if x != x:
        return "\u2014"
    return f"{100 * x:.2f}%" if share else f"{x:.3f}"


def _delta(x: float, share: bool) -> str:
    if x != x:
        return "\u2014"
    return f"{100 * x:+.2f}pp" if share else f"{x:+.3f}"


def _p(p: float) -> str:
    from simkit.reports.stats import p_text
    return p_text(p)


def _whatif_text(table) -> str:
    """The headline differences, one line each; per-item rows are left to the report."""
    from simkit.reports.feel import SHARE_MEASURES

    head = table[~table["measure"].str.startswith("item") & table["difference"].notna()]
    lines = [f"{'measure':24} {'group':22} {'base':>9} {'changed':>9} {'diff':>9}  "
             f"{'95% interval':>21} {'p':>8}"]
    for r in head.itertuples(index=False):
        share = r.measure in ("win rate", "first-player advantage", "share of games",
                              *SHARE_MEASURES)
        lines.append(f"{r.measure:24} {str(r.group):22} {_level(r.base, share):>9} "
                     f"{_level(r.changed, share):>9} {_delta(r.difference, share):>9}  "
                     f"[{_delta(r.ci_low, share):>9},{_delta(r.ci_high, share):>9}] "
                     f"{_p(r.p_value):>8}")
    n_items = int(table["measure"].str.startswith("item").sum())
    if n_items:
        lines.append(f"({n_items} item rows: see the report)")
    return "\n".join(lines)


@main.command()
@click.argument("run_dir", metavar="RUN", type=click.Path(path_type=Path))
@click.option("--format", "fmt", type=click.Choice(["csv"]), default="csv", show_default=True,
              help="The file format.")
@click.option("--out", type=click.Path(path_type=Path),
              help="Folder for the files (default: RUN-csv beside the run).")
@overwrite_option
@quiet_option
def export(run_dir, fmt, out, overwrite, quiet):
    """Write a run's tables as spreadsheet files: games.csv (a row per game), items.csv (a
    row per game and seat), trace.csv for a traced run (a row per traced game and turn),
    decisions.csv for a run with --log-decisions (a row per logged decision) and run.json,
    seats numbered from 1."""
    from simkit import folders
    from simkit.escape import csv_frame
    from simkit.results import read_decisions, read_run

    out = out or run_dir.parent / f"{run_dir.name}-{fmt}"
    folders.check_output(out, "export", overwrite)  # before reading the run: fail fast
    res = read_run(run_dir)
    with folders.writing(out, "export", overwrite) as tmp:
        csv_frame(res.games).to_csv(tmp / "games.csv", index=False)
        csv_frame(res.items).to_csv(tmp / "items.csv", index=False)
        if res.trace is not None:
            csv_frame(res.trace).to_csv(tmp / "trace.csv", index=False)
        log = read_decisions(run_dir)
        if log is not None:
            csv_frame(log).to_csv(tmp / "decisions.csv", index=False)
        shutil.copy(Path(run_dir) / "run.json", tmp / "run.json")
    _say(f"exported {len(res.games):,} games to {out}", quiet, False)


@main.command()
@click.argument("game", required=False)
@click.option("--seed", type=Whole(), help="The game's own seed (the `seed` column of its row).")
@players_option
@click.option("--strategies", default="random", show_default=True,
              help="The strategy in each seat, as the row's strategy_s1, strategy_s2, ... "
                   "columns say.")
@set_option
@cards_option
@weight_option
@click.option("--run", "run_dir", type=click.Path(path_type=Path),
              help="Replay a game of this run folder (with --game), or the game a "
              "workbench folder played-* holds.")
@click.option("--game", "game_index", type=Whole(), help="The game's index in --run.")
def replay(game, seed, players, strategies, overrides, card_files, weights, run_dir,
           game_index):
    """Replay one game as text: every decision, every chance outcome, and hidden
    information marked with who could see it. Either GAME --seed S --players N
    [--strategies ...], or --run DIR --game INDEX (checked against its row)."""
    from simkit.replay import replay as do_replay

    if run_dir is not None:
        from simkit import folders
        from simkit.played import replay_played
        from simkit.replay import replay_recorded

        if folders.kind_of(run_dir) == "played":  # a person's game: one game, its moves kept
            if game_index not in (None, 0) or overrides or card_files:
                raise SimkitError(f"{run_dir} is a game played in the workbench: give --run "
                                  "alone (it holds one game, played with its own data)")
            r = replay_played(run_dir)
            click.echo("\n".join(r.lines))
            click.echo("(a game with a person at a seat: its moves as played)")
            return
        if game_index is None:
            raise SimkitError("--run needs --game INDEX")
        if overrides or card_files:
            raise SimkitError("--run replays a game as it was played; --set and --cards are "
                              "for GAME --seed S")
        r = replay_recorded(run_dir, game_index, _folder_models(run_dir, ()))
        click.echo("\n".join(r.lines))
        click.echo("(matches the recorded row)")
        return
    if game is None or seed is None:
        raise SimkitError("give GAME --seed S --players N, or --run DIR --game INDEX")
    players = _players(game, players)
    from simkit.cards import explained

    over, origins = _overrides(game, overrides, card_files)
    with explained(origins):
        r = do_replay(game, players, seed, strategies, over, weights)
    click.echo("\n".join(r.lines))


@main.command()
@click.argument("game")
@players_option
@click.option("--games", "n_games", type=int,
              help="Self-play games in all (the reproducible form: the same seed gives the "
                   "same model bytes on any number of workers).")
@click.option("--time", "time_budget", metavar="DURATION",
              help="Train until this long has passed (90s, 20m, 2h), stopping at a "
                   "generation's end; the model's card gives the --games that reproduces it.")
@seed_option
@set_option
@cards_option
@click.option("--out", type=click.Path(path_type=Path),
              help="The model file (default: simkit's cache, models/GAME-Np-DATA.npz, where "
                   "runs find it); its training folder is beside it (NAME.training).")
@click.option("--resume", is_flag=True,
              help="Continue the training in the training folder from its last finished "
                   "generation, with the same settings (the same model as if never stopped).")
@click.option("--from", "base_file", type=click.Path(path_type=Path), metavar="MODEL",
              help="Start from this model (fine-tuning: e.g. the shipped one, to learn a "
                   "changed game) instead of from nothing; its hidden units and samples "
                   "are kept.")
@overwrite_option
@workers_option
@click.option("--hidden", type=int, help="Hidden units of each seat's network (default 32; 0: "
                                         "linear).")
@click.option("--lambda", "lam", type=float, help="TD(lambda)'s lambda (default 0.8; 1: learn "
                                                 "from the final outcome alone).")
@click.option("--learning-rate", type=float, help="Adam's step size (default 0.003).")
@click.option("--generation-games", type=int,
              help="Self-play games a generation (default 1,000).")
@click.option("--match-games", type=int,
              help="Games of each acceptance match against the last accepted model (default "
                   "400).")
@click.option("--temperature", type=float,
              help="Self-play's softmax temperature over move values (default 0: the best).")
@click.option("--epsilon", type=float,
              help="Self-play's chance of a random move (default 0.1).")
@click.option("--samples", type=int,
              help="Determinisations a move's value is averaged over (default 1).")
@click.option("--epochs", type=int, help="Passes over the data a generation (default 4).")
@click.option("--batch", type=int, help="Rows a minibatch (default 128).")
@click.option("--buffer", type=int,
              help="Generations of self-play data each fit learns from (default 4).")
@click.option("--yardstick", help="The strategy the progress is measured against (default: "
                                  "the game's heuristic, else random); never a teacher.")
@click.option("--yardstick-games", type=int,
              help="Games against the yardstick a generation (default 200; 0: none).")
@click.option("--policy-games", type=int,
              help="Self-play games by the model's values that a policy is distilled from, "
                   "after the training (default 0: no policy; learned plays by a model's "
                   "policy when it has one, so distil one only where it plays well).")
@click.option("--distill-only", is_flag=True,
              help="Train no values: give the --from model a policy distilled from its own "
                   "values (--policy-games, default 2,000) and write it to --out.")
@click.option("--policy-temperature", type=float,
              help="The softmax temperature of the values the policy imitates, in score "
                   "shares (default 0.02).")
@click.option("--policy-epochs", type=int, help="The policy's passes over its data (default 6).")
@click.option("--policy-l2", type=float, help="The policy's L2 penalty (default 0.0001).")
@click.option("--policy-moves", type=int,
              help="Move codes that get a row of their own, the most frequent (default 1,024).")
@click.option("--policy-hidden", type=int,
              help="Hidden units over the position and the move, in a game with move "
                   "features (default 4; 0: linear).")
@click.option("--policy-samples", type=int,
              help="Determinisations the values average a move's value over while they "
                   "label the distillation's moves (default: the model's own, 1 for the "
                   "shipped ones; more: less noisy labels, a slower distillation).")
@quiet_option
@json_option
def train(game, players, n_games, time_budget, seed, overrides, card_files, out, resume,
          base_file, overwrite, workers, hidden, lam, learning_rate, generation_games, match_games,
          temperature, epsilon, samples, epochs, batch, buffer, yardstick, yardstick_games,
          policy_games, distill_only, policy_temperature, policy_epochs, policy_l2,
          policy_moves, policy_hidden, policy_samples, quiet, as_json):
    """Learn GAME by self-play and write a model that `learned` plays (docs/learning.md):
    generations of self-play, a fit of each seat's network to TD(lambda) targets, and a
    match that accepts the new generation only when it beats the last accepted one; with
    --policy-games, then a policy distilled from the model's values, so that `learned`
    decides without applying moves."""
    from simkit import data, learn
    from simkit import train as tr
    from simkit.cards import explained
    from simkit.ladder import parse_duration, say_duration

    players = _players(game, players)
    policy = {"temperature": policy_temperature, "epochs": policy_epochs, "l2": policy_l2,
              "moves": policy_moves, "hidden": policy_hidden, "samples": policy_samples}
    if distill_only:
        _distill_only(game, players, seed, overrides, card_files, out, base_file, overwrite,
                      workers, policy_games, policy, quiet, as_json,
                      n_games=n_games, time_budget=time_budget, resume=resume)
        return
    if (n_games is None) == (time_budget is None):
        raise SimkitError("give the training's budget: --games N (self-play games, "
                          "reproducible) or --time DURATION (e.g. 20m), one of them")
    # the policy's knobs are checked before the training, not after it
    given = [f"--policy-{k}" for k, v in policy.items() if v is not None]
    if given and not policy_games:
        raise SimkitError(f"{given[0]} is a knob of the policy, which is distilled only "
                          "with --policy-games N (self-play games, e.g. 2000)")
    if policy_games:
        _policy_spec(policy_games, seed, policy, 0.1, 1)
    seconds = parse_duration(time_budget) if time_budget is not None else None
    over, origins = _overrides(game, overrides, card_files)
    base = None
    if base_file is not None:
        base = learn.read_model(base_file, game, players, what="--from")
    with explained(origins):
        ts = tr.make_spec(game, players, seed, n_games, over, base, str(base_file or ""),
                          hidden=hidden, lam=lam,
                          learning_rate=learning_rate, games_per_generation=generation_games,
                          match_games=match_games, temperature=temperature, epsilon=epsilon,
                          samples=samples, epochs=epochs, batch=batch, buffer=buffer,
                          yardstick=yardstick, yardstick_games=yardstick_games)
        from simkit import registry

        params = data.apply_overrides(registry.get_game(game).data, over)
    out = Path(out) if out is not None else learn.user_model_path(game, players,
                                                                  data.data_digest(params))
    folder = tr.folder_for(out)
    _check_model_out(out, folder, resume, overwrite)
    if overwrite and not resume:
        tr.remove_folder(folder)
    workers = workers or os.cpu_count() or 1

    def say(text):
        if not quiet:
            click.echo(text, err=True)

    clock = None  # --time bounds the command: what was spent before the training counts
    if seconds is not None:
        from simkit.clock import Budget

        clock = Budget(seconds)
        if clock.left() <= 0:  # before anything is written
            raise SimkitError(f"--time {time_budget} is over before the first generation "
                              f"(starting took {say_duration(clock.elapsed())}); give a "
                              "longer --time")
    trainer = tr.Trainer(ts, folder, workers, say, base)
    state = trainer.start(resume)
    budget = (f"{ts.games:,} self-play games in {ts.generations()} generations"
              if ts.games else f"{say_duration(seconds)} of generations")
    say(f"{game}: training at {players} players, seed {seed}, {budget} of "
        f"{ts.games_per_generation:,} -> {out}"
        + (f" (from generation {len(state.generations)})" if state.generations else ""))
    if clock is not None:
        seconds = max(clock.left(), 1e-3)
    try:
        state = trainer.run(state, seconds)
    except KeyboardInterrupt:
        if not state.generations:
            tr.remove_folder(folder)
            click.echo("interrupted: stopped before the first generation was finished; "
                       "nothing was kept", err=True)
            sys.exit(130)
        click.echo(f"interrupted: kept {len(state.generations)} finished generations in "
                   f"{folder}; continue with the same command and --resume", err=True)
        sys.exit(130)
    model = trainer.final(state)
    # no policy unless asked: learned plays by a model's policy when it has one, and a policy
    # can play far worse than the values it imitates (docs/learning.md, "The policy")
    games = policy_games or 0
    if games:
        try:
            model = _distilled(model, trainer.table, games, seed, policy, workers, say,
                               model.card["training"]["command"], policy_games is not None)
        except KeyboardInterrupt:
            click.echo(f"interrupted while distilling the policy: the {len(state.generations)} "
                       f"generations are kept in {folder}; the same command with --resume "
                       "distils it again", err=True)
            sys.exit(130)
        model.card["training"]["command"] = model.card["policy"]["command"]
        model._bytes = None
    learn.write_model(model, out)
    last = state.generations[-1] if state.generations else {}
    stick = next((r["yardstick"] for r in state.generations
                  if r["generation"] == state.accepted), {})
    summary = {"model": str(out), "digest": model.digest, "folder": str(folder),
               "games": state.games, "generations": len(state.generations),
               "accepted_generation": state.accepted,
               "command": model.card["training"]["command"], "rating": stick,
               "last": last}
    if as_json:
        _emit_json(summary)
    elif not quiet:
        rating = (f"; against {stick['strategy']}: score {stick['score']:.3f}, won "
                  f"{stick['win_rate']:.1%} ({stick['games']} games)") if stick else ""
        click.echo(f"wrote {out}: generation {state.accepted} of {len(state.generations)}, "
                   f"{state.games:,} self-play games{rating}")
        if seconds is not None:
            click.echo(f"reproduce it with: {model.card['training']['command']}")


def _policy_spec(games: int, seed: int, policy: dict, epsilon: float, samples: int):
    from simkit import distill

    knobs = {"epsilon": epsilon, "samples": samples}  # the model's, unless given
    knobs.update({k: v for k, v in policy.items() if v is not None})
    ps = distill.PolicySpec(games=games, seed=seed, **knobs)
    distill.check(ps)
    return ps


def _policy_flags(ps, games_flag: bool) -> str:
    """The flags that reproduce the policy ``ps`` (its games when given, and each knob that
    is not its default)."""
    from simkit import distill

    default = distill.PolicySpec()
    parts = [f"--policy-games {ps.games}"] if games_flag else []
    for name in ("temperature", "epochs", "l2", "moves", "hidden", "samples"):
        if getattr(ps, name) != getattr(default, name):
            parts.append(f"{distill.FLAGS[name]} {getattr(ps, name):g}")
    return " ".join(parts)


def _distilled(model, table, games: int, seed: int, policy: dict, workers: int, say,
               command: str, games_flag: bool):
    """``model`` with a policy distilled from its values (``simkit.distill``), its card's
    policy giving ``command`` with the policy's flags."""
    from simkit import distill, learn

    # the teacher explores as the model's self-play did, and values as the model plays
    knobs = (model.card.get("training") or {}).get("knobs") or {}
    ps = _policy_spec(games, seed, policy, float(knobs.get("epsilon", 0.1)),
                      int(learn.play_defaults(model).get("samples", 1)))
    flags = _policy_flags(ps, games_flag)
    return distill.distill(model, table, ps, workers, (command + " " + flags).strip(), say)


def _distill_only(game, players, seed, overrides, card_files, out, base_file, overwrite,
                  workers, policy_games, policy, quiet, as_json, n_games, time_budget,
                  resume) -> None:
    """``simkit train GAME --from MODEL --distill-only``: the model given, with a policy
    distilled from its values, written to ``--out`` (whole or not at all)."""
    from simkit import data, learn, registry
    from simkit import train as tr
    from simkit.cards import explained

    if base_file is None:
        raise SimkitError("--distill-only needs the model whose values the policy learns: "
                          "--from MODEL")
    if n_games is not None or time_budget is not None or resume:
        raise SimkitError("--distill-only trains no values: its budget is --policy-games N, "
                          "not --games, --time or --resume")
    if policy_games == 0:
        raise SimkitError("--distill-only with --policy-games 0 distils nothing; give a "
                          "number of games from 1")
    base = learn.read_model(base_file, game, players, tuple(registry.get_game(game).features),
                            what="--from")
    over, origins = _overrides(game, overrides, card_files)
    with explained(origins):
        params = data.apply_overrides(registry.get_game(game).data, over)
    digest = data.data_digest(params)
    if base.card["data_digest"] != digest:
        raise SimkitError(f"--from {base_file} was trained on other data (digest "
                          f"{base.card['data_digest']}) than this command's ({digest}): give "
                          "the --set and --cards it was trained with")
    out = Path(out) if out is not None else learn.user_model_path(game, players, digest)
    if out.is_dir() or out.suffix != ".npz":
        raise SimkitError(f"--out {out}: give the model's file name, ending in .npz")
    if out.exists() and not overwrite and out.resolve() != Path(base_file).resolve():
        raise SimkitError(f"--out {out} exists; give --overwrite to replace it")
    workers = workers or os.cpu_count() or 1

    def say(text):
        if not quiet:
            click.echo(text, err=True)

    command = (f"simkit train {game} --players {players} --from {base_file} --distill-only "
               f"--seed {seed}" + "".join(f" --set {o}" for o in overrides or ()))
    try:
        model = _distilled(base, tr.Table(game, players, tuple(over.items())),
                           2000 if policy_games is None else policy_games, seed, policy,
                           workers, say, command, True)
    except KeyboardInterrupt:
        click.echo("interrupted: nothing was written", err=True)
        sys.exit(130)
    learn.write_model(model, out)
    fit = model.card["policy"]["fit"]
    summary = {"model": str(out), "digest": model.digest, "command": model.card["policy"][
        "command"], "decisions": model.card["policy"]["decisions"],
        "moves": model.card["policy"]["moves"], "fit": fit}
    if as_json:
        _emit_json(summary)
    elif not quiet:
        agree = ", ".join(f"{v['agreement']:.1%}" for v in fit.values())
        click.echo(f"wrote {out}: a policy of {model.card['policy']['moves']} move codes, "
                   f"fitted to {model.card['policy']['decisions']:,} decisions (the values' "
                   f"best move agreed: {agree})")


def _check_model_out(out: Path, folder: Path, resume: bool, overwrite: bool) -> None:
    """One line unless the model ``out`` and its training ``folder`` can be written: a
    file (not a folder) in a place that can be written, and a training folder that is new,
    or resumed (--resume), or replaced (--overwrite)."""
    from simkit.folders import _nearest_existing

    if out.is_dir():
        raise SimkitError(f"--out {out} is a folder; give the model's file name (e.g. "
                          f"{out}/model.npz)")
    if out.suffix != ".npz":
        raise SimkitError(f"--out {out}: a model file's name ends in .npz")
    base = _nearest_existing(out.parent.resolve())
    if not base.is_dir() or not os.access(base, os.W_OK | os.X_OK):
        raise SimkitError(f"--out {out}: no permission to write in {base}")
    if out.exists() and not os.access(out, os.W_OK):
        raise SimkitError(f"--out {out} exists and cannot be written")
    held = (folder / "train.json").is_file()
    if resume and not held:
        raise SimkitError(f"--resume: {folder} holds no training to continue; leave out "
                          "--resume to start one")
    if held and not resume and not overwrite:
        raise SimkitError(f"{folder} holds a training already: continue it with --resume, "
                          "or start again with --overwrite")
    if folder.exists() and not folder.is_dir():
        raise SimkitError(f"{folder} (the training folder) exists and is a file")


@main.command()
@click.option("--host", default="127.0.0.1", show_default=True,
              help="The address to listen on; anything but 127.0.0.1 (or localhost) is "
                   "reachable from other machines (a warning says so; the token still "
                   "guards it).")
@click.option("--port", type=Whole(0, 65535), default=8765, show_default=True,
              help="The port (0: any free port).")
@click.option("--no-browser", is_flag=True, help="Do not open a browser; only print the "
                                                  "address.")
@click.option("--runs", "runs_dir", type=click.Path(path_type=Path), default=Path("runs"),
              show_default=True, help="The runs folder: what the page shows, and where its "
                                      "jobs, change sets and reports are written.")
@click.option("--jobs", "n_jobs", type=Whole(1, 64), default=1, show_default=True,
              help="Jobs played at once (the others wait in the queue).")
def serve(host, port, no_browser, runs_dir, n_jobs):
    """Start the designer's workbench: a local web page to edit a game's data and cards,
    run and compare (what-if on the same seeds), read the verdicts and reports of every run
    in the runs folder, and replay any game (docs/workbench.md). It prints its address with
    a token; requests without the token's session are refused."""
    from simkit.serve import serve as start

    start(host, port, runs_dir, n_jobs, not no_browser)


@main.command()
@click.argument("game")
@click.option("--full", "size", flag_value="full",
              help="Every check at full size: more games and draws, and every number of the "
                   "data at its bounds (under 2 minutes for our games).")
@click.option("--quick", "size", flag_value="quick", default=True,
              help="Every check at a quick size (the default; seconds for a small game).")
@click.option("--players", type=Whole(1, 64), help="Check only this player count.")
@set_option
def check(game, size, players, overrides):
    """Check that GAME is sound: random play with check_state after every move, a stuck
    game caught, determinisations sound and uniformly dealt, no peeking at the driver, the
    same tables on 1 and 2 workers, replays equal to their rows, every strategy and optional
    kernel. Prints a checklist; exit status 1 when a check fails."""
    from simkit import registry
    from simkit.runner import RunSpec
    from simkit.testing import FAIL, checklist, run_checks

    spec = registry.get_game(game)
    if players is not None and players not in spec.players:
        raise SimkitError(f"{game} is for {', '.join(map(str, spec.players))} players, "
                          f"not {players}")
    over = _overrides(game, overrides, ())[0] if overrides else None
    for n in (players,) if players else spec.players:  # a bad value: one line, nothing else
        RunSpec.make(game, n, 1, overrides=over)
    changed = f", with {', '.join(overrides)}" if overrides else ""
    click.echo(f"simkit check {game} v{spec.version} ({size}{changed}):")
    items = run_checks(game, size, (players,) if players else None,
                       on_item=lambda item: click.echo(item.line()), overrides=over)
    click.echo(checklist(game, items).splitlines()[0])
    if any(i.status == FAIL for i in items):
        sys.exit(1)


@main.command()
@click.argument("game")
def new(game):
    """Write ./GAME/, a new game to start from: a plugin package (pyproject with its entry
    point, data.toml, state, rules, transcript, NOTES.md, VERSION, a heuristic, tests) that
    is a complete small card game with a hidden hand. Install it with `pip install -e
    ./GAME`, then `simkit check GAME` and change it step by step (docs/adding-a-game.md)."""
    from simkit.new import new_game

    out = new_game(game)
    click.echo(f"wrote {out}/: a complete small game to change into yours. Next:\n"
               f"  pip install -e ./{game}\n"
               f"  simkit check {game}\n"
               f"  python -m pytest {game}/tests")


def _sigterm(signum, frame):
    raise KeyboardInterrupt


def _interrupted_at_start() -> None:
    click.echo("interrupted: stopped before any game was played; nothing was written",
               err=True)
    sys.exit(130)


def entry():
    """The ``simkit`` command. Ctrl-C (or SIGTERM) gives exit status 130 and one true line
    wherever it lands: while starting, while playing (the finished games are kept), or at a
    second Ctrl-C (which stops at once; the line says what was discarded)."""
    try:
        try:
            signal.signal(signal.SIGTERM, _sigterm)
            signal.signal(signal.SIGINT, signal.default_int_handler)
            main()
        except KeyboardInterrupt:
            _interrupted_at_start()
    except SystemExit as done:
        _exit_now(done.code)
    _exit_now(0)


def _exit_now(code) -> None:
    """End the process with ``code`` as ``sys.exit`` would, without the interpreter's
    teardown: clearing the modules of numba, llvmlite, pyarrow and scipy one by one took 0.05
    to 0.06 s of every command (benchmarks/fixed_costs.py), a fifth of what a small run costs
    beyond its imports. Only that is skipped: the atexit handlers run (numba's, Dask's, the
    removal of temporary folders), stdout and stderr are flushed, and everything simkit
    writes is closed before (a run folder is in place only once complete)."""
    if code is None:
        code = 0
    elif not isinstance(code, int):  # sys.exit("message"): printed, status 1
        print(code, file=sys.stderr)
        code = 1
    try:
        import atexit

        atexit._run_exitfuncs()
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):  # a closed pipe (| head): nothing more to say
                pass
        os._exit(code)
