"""Result tables and run folders.

Seats are numbered 1 to P in every table (seat 1 moves first); kernels count from 0, and
the conversion happens here, once, where the tables are built. A run folder holds:

    games.parquet  a row per game: game, seed, players, then per seat s = 1..P
                   strategy_s<s>, team_s<s> (teams numbered from 1), rank_s<s> (1 = won; tied
                   seats share a rank; 0 for everyone in a game nobody won), score_s<s>; then
                   winner (the seat that won alone, 0 when no seat or several seats won),
                   winning_team (the team whose seats alone hold rank 1, else 0), turns,
                   decisions, end_reason; then the branching counters (``docs/metrics.md``):
                   forced (decisions with one legal move), legal_moves and legal_moves_sq
                   (the sum over decisions of the number of legal moves, and of its
                   square), and for a game with phases each of them, and decisions, by
                   phase (``forced:draft``); in a run with ``--kingmaking``,
                   kingmaker_s<s> and pivotal_s<s> (-1 in a game not replayed)
    items.parquet  a row per game and seat: game, seat (1..P), then one uint16 count per item
                   event column of the game (``item:event``), wide because a 10-million-game
                   run then stays small (runs of zeros compress to almost nothing)
    trace.parquet  only in a traced run (``--trace-turns``): a row per traced game and turn,
                   game, turn (0 = the start, the last the final state), progress_s<s>
    decisions.parquet  only in a run with ``--log-decisions N``: a row per decision of its
                   first N games, in play order: game, decision (0, 1, ... within the game),
                   turn (completed turns before it), seat (1..P), phase, strategy (the
                   seat's), move (the game's code), label (the game's ``move_label``, else
                   "move N"), legal_moves (1: forced, no strategy asked), progress (the
                   deciding seat's before it, NaN for a game without ``progress``)
    run.json       ``schema_version``, the game and its version, every data value with its
                   source, strategies, seeds, backend, package versions, elapsed time, and
                   ``complete``

``SCHEMA_VERSION`` numbers this layout. Version 1 (before December 2026, no
``schema_version`` in run.json) numbered seats and teams from 0 (``rank_s0``, winner -1 for
none, items seat 0); the readers here (``read_run``, ``read_games``, ``read_items_batches``)
upgrade it as they read, telling the layouts apart by content (a ``rank_s0`` column, an items
seat 0), so a table passed in by hand is read right too.
The folder is written under a temporary name and renamed when done, so a killed run leaves
no half-written folder; an interrupted run (Ctrl-C) keeps the games it finished, with
``complete: false``.
"""

from __future__ import annotations

import json
import re
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from simkit import folders
from simkit.errors import SimkitError

if TYPE_CHECKING:
    import pandas as pd  # the readers import it when called: a run does not need it

SCHEMA_VERSION = 2
"""The layout of run folders written by this simkit (see the module docstring)."""
_OLD_SEAT_COLUMN = re.compile(r"^(strategy|team|rank|score)_s(\d+)$")


@dataclass
class Chunk:
    """The outputs of ``count`` consecutive games starting at ``start``."""

    start: int
    seeds: np.ndarray  # uint64[G]
    codes: np.ndarray  # int32[G, P]
    end: np.ndarray  # int32[G]
    turns: np.ndarray  # int32[G]
    decisions: np.ndarray  # int32[G]
    scores: np.ndarray  # float64[G, P]
    ranks: np.ndarray  # int32[G, P]
    items: np.ndarray  # int32[G, P, n_items]
    search: np.ndarray | None = None  # float64[slots, stats]: the searches' statistics
    counts: np.ndarray | None = None  # int64[G, phases, 4]: decisions, forced, sum n, sum n^2
    curve: np.ndarray | None = None  # float32[T, max_turns + 1, P]: the first T games' trace
    king: np.ndarray | None = None  # int32[K, P]: the first K games' kingmaker decisions
    pivotal: np.ndarray | None = None  # int32[K, P]: and their pivotal decisions
    log: np.ndarray | None = None  # int32[R, 5]: the first games' decisions (decision_log)
    log_progress: np.ndarray | None = None  # float32[R]: the deciding seat's progress


def winners(ranks: np.ndarray, teams) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Who won each game (``ranks`` int[G, P]): the seat (0-based) that alone holds rank 1,
    -1 when none or several do; the team of the first seat that holds it (of seat 0 when
    none does); and whether that team's seats alone hold it. A loop over the seats: numpy's
    reductions along rows of two to four seats (``argmax``, ``all``, ``sum`` on axis 1)
    took 1 ms of every 17,000 games, the largest part of tabulating them."""
    teams = np.asarray(teams)
    g, p = ranks.shape
    won = [ranks[:, s] == 1 for s in range(p)]
    n_won = np.zeros(g, dtype=np.int64)
    first = np.full(g, -1, dtype=np.int64)
    for s in range(p - 1, -1, -1):  # the lowest seat that won is written last
        n_won += won[s]
        first[won[s]] = s
    first_team = teams[np.maximum(first, 0)]
    mixed = np.zeros(g, dtype=bool)
    for s in range(p):
        mixed |= won[s] & (teams[s] != first_team)
    return np.where(n_won == 1, first, -1), first_team, (n_won > 0) & ~mixed


def seat_column(kind: str, seat: int) -> str:
    """The column of ``kind`` (strategy, team, rank, score) for ``seat``, counted from 1."""
    return f"{kind}_s{seat}"


def _column(values: np.ndarray) -> pa.Array:
    """An Arrow array over a numpy array of numbers (copied only if not contiguous).
    ``pa.array`` would do, but it imports pandas (to ask whether the array is a pandas
    object): a sixth of a second that a quiet run otherwise never pays."""
    values = np.ascontiguousarray(values)
    return pa.Array.from_buffers(pa.from_numpy_dtype(values.dtype), len(values),
                                 [None, pa.py_buffer(values)])


def _strings(names) -> pa.Array:
    """An Arrow string array of ``names`` (the dictionary of a column; see ``_column``)."""
    data = [str(n).encode() for n in names]
    offsets = np.cumsum([0, *map(len, data)]).astype(np.int32)
    return pa.Array.from_buffers(pa.string(), len(data),
                                 [None, pa.py_buffer(offsets), pa.py_buffer(b"".join(data))])


def games_table(chunk: Chunk, strategy_names, teams, end_reasons, phases=("all",),
                kingmaking: bool = False) -> pa.Table:
    """The games table of a chunk; ``teams`` are the kernels' 0-based team of each seat,
    ``phases`` the names of the rows of ``chunk.counts``; ``kingmaking``: the run replays
    games for kingmakers (columns ``kingmaker_s<s>``, ``pivotal_s<s>``, -1 in a game not
    replayed)."""
    g, p = chunk.ranks.shape
    cols: dict[str, pa.Array] = {
        "game": _column(np.arange(chunk.start, chunk.start + g, dtype=np.int64)),
        "seed": _column(chunk.seeds.astype(np.uint64, copy=False)),
        "players": _column(np.full(g, p, dtype=np.int8)),
    }
    names = _strings(strategy_names)
    for s in range(p):
        cols[seat_column("strategy", s + 1)] = pa.DictionaryArray.from_arrays(
            _column(chunk.codes[:, s].astype(np.int32, copy=False)), names)
    for s in range(p):
        cols[seat_column("team", s + 1)] = _column(np.full(g, teams[s] + 1, dtype=np.int8))
    for s in range(p):
        cols[seat_column("rank", s + 1)] = _column(chunk.ranks[:, s].astype(np.int8))
    for s in range(p):
        cols[seat_column("score", s + 1)] = _column(chunk.scores[:, s].astype(np.float64,
                                                                           copy=False))
    sole, first_team, one_team = winners(chunk.ranks, teams)
    cols["winner"] = _column((sole + 1).astype(np.int8))
    cols["winning_team"] = _column(np.where(one_team, first_team + 1, 0).astype(np.int8))
    cols["turns"] = _column(chunk.turns)
    cols["decisions"] = _column(chunk.decisions)
    cols["end_reason"] = pa.DictionaryArray.from_arrays(
        _column(chunk.end.astype(np.int32, copy=False)), _strings(end_reasons))
    if chunk.counts is not None:
        cols.update(_count_columns(chunk.counts, phases))
    if kingmaking:
        for kind, values in (("kingmaker", chunk.king), ("pivotal", chunk.pivotal)):
            full = np.full((g, p), -1, np.int16)
            if values is not None:
                full[:len(values)] = values
            for s in range(p):
                cols[seat_column(kind, s + 1)] = _column(full[:, s])
    return pa.table(cols)


def _count_columns(counts: np.ndarray, phases) -> dict[str, pa.Array]:
    """The branching counters of every game (``docs/metrics.md``): forced decisions (one
    legal move), the sum of legal moves over decisions and of their squares; for a game
    with phases, each phase's decisions and counters too (``forced:draft``...)."""
    total = counts.sum(axis=1)
    cols = {"forced": _column(total[:, 1].astype(np.int32)),
            "legal_moves": _column(total[:, 2]),
            "legal_moves_sq": _column(total[:, 3])}
    if len(phases) > 1:
        for i, ph in enumerate(phases):
            cols[f"decisions:{ph}"] = _column(counts[:, i, 0].astype(np.int32))
            cols[f"forced:{ph}"] = _column(counts[:, i, 1].astype(np.int32))
            cols[f"legal_moves:{ph}"] = _column(counts[:, i, 2])
            cols[f"legal_moves_sq:{ph}"] = _column(counts[:, i, 3])
    return cols


def trace_table(chunk: Chunk) -> pa.Table | None:
    """The traced games of a chunk, a row per game and turn (0 = the start; the last row
    of a game is its final state): game, turn, then each seat's progress
    (``progress_s1`` ...)."""
    if chunk.curve is None:
        return None
    t, _, p = chunk.curve.shape
    rows = np.minimum(chunk.turns[:t], chunk.curve.shape[1] - 1) + 1
    game = np.repeat(np.arange(chunk.start, chunk.start + t, dtype=np.int64), rows)
    starts = np.repeat(np.cumsum(rows) - rows, rows)  # each row's game's first row
    turn = (np.arange(len(game)) - starts).astype(np.int32)  # (no game: no row)
    keep = np.arange(chunk.curve.shape[1])[None, :] < rows[:, None]
    values = chunk.curve[keep]  # rows in game order, then turn order
    cols = {"game": _column(game), "turn": _column(turn)}
    for s in range(p):
        cols[seat_column("progress", s + 1)] = _column(values[:, s])
    return pa.table(cols)


LOG_COLUMNS = ("game", "decision", "turn", "seat", "phase", "strategy", "move", "label",
               "legal_moves", "progress")
"""The columns of decisions.parquet (see the module docstring)."""


def decisions_table(chunk: Chunk, strategy_names, phases, label) -> pa.Table | None:
    """The decision log of a chunk (None when it logs none), a row per decision of its
    first games: ``chunk.log`` (``runner.decision_log``) with each row's game and decision
    number found from the games' decision counts, its seat's strategy from ``chunk.codes``,
    and ``label(move)`` made once per distinct move (labels are a dictionary column)."""
    if chunk.log is None:
        return None
    log = chunk.log
    per_game = chunk.decisions.astype(np.int64)
    ends = np.cumsum(per_game)
    logged = int(np.searchsorted(ends, len(log), side="left")) + 1 if len(log) else 0
    rows = per_game[:logged]
    game = np.repeat(np.arange(logged, dtype=np.int64), rows)
    starts = np.repeat(np.cumsum(rows) - rows, rows)
    seat = log[:, 1]
    codes, where = np.unique(log[:, 3], return_inverse=True)
    cols = {
        "game": _column(game + chunk.start),
        "decision": _column((np.arange(len(log)) - starts).astype(np.int32)),
        "turn": _column(log[:, 0]),
        "seat": _column((seat + 1).astype(np.int8)),
        "phase": pa.DictionaryArray.from_arrays(_column(log[:, 2]), _strings(phases)),
        "strategy": pa.DictionaryArray.from_arrays(
            _column(chunk.codes[game, seat].astype(np.int32)), _strings(strategy_names)),
        "move": _column(log[:, 3]),
        "label": pa.DictionaryArray.from_arrays(
            _column(where.astype(np.int32).reshape(-1)),
            _strings([label(int(m)) for m in codes])),
        "legal_moves": _column(log[:, 4]),
        "progress": _column(chunk.log_progress),
    }
    return pa.table(cols)


def items_table(chunk: Chunk, item_columns) -> pa.Table:
    g, p, k = chunk.items.shape
    flat = np.minimum(chunk.items.reshape(g * p, k), 65535).astype(np.uint16)
    cols = {
        "game": _column(np.repeat(np.arange(chunk.start, chunk.start + g, dtype=np.int64), p)),
        "seat": _column(np.tile(np.arange(1, p + 1, dtype=np.int8), g)),
    }
    for j, name in enumerate(item_columns):
        cols[name] = _column(flat[:, j])
    return pa.table(cols)


def _parquet_writer(path: Path, schema: pa.Schema) -> pq.ParquetWriter:
    """A zstd Parquet writer that dictionary-encodes only the columns that are dictionaries
    (strategy names, end reasons), and stores the game numbers (consecutive) as deltas.
    Trying a dictionary on every numeric column and giving it up (seeds, scores) took a
    third of the writing time; with deltas a million Connect Four games take 0.32 CPU
    seconds to write, 16.4 MB (a dictionary on every column: 0.49 s, 21.8 MB)."""
    dictionaries = [f.name for f in schema if pa.types.is_dictionary(f.type)]
    return pq.ParquetWriter(path, schema, compression="zstd", use_dictionary=dictionaries,
                            column_encoding={"game": "DELTA_BINARY_PACKED"})


ROW_GROUP = 2_000
"""The fewest games of a row group of games.parquet (but the last), see ``RunWriter.write``."""
AGAIN = "play the run again with --overwrite instead of --resume"
"""What a folder that --resume cannot continue leaves to do (the end of its one line)."""
TABLE_NAMES = ("games", "items", "trace", "decisions")
"""The tables of a run folder, each ``NAME.parquet`` (a trace only in a traced run, a
decision log only in a run that logs)."""


def check_tables(folder: Path, games: int, players: int, schemas: dict[str, pa.Schema | None]
                 ) -> None:
    """``SimkitError`` (one line) unless the tables of the run folder ``folder`` can be
    continued by a run whose tables have ``schemas`` (table name -> schema, None for a table
    the run does not write): each readable (its footer: a truncated file has none) and of
    that schema, games.parquet with ``games`` rows and items.parquet with a row per game and
    seat. Read from the footers only: a night's run is checked in milliseconds."""
    rows = {"games": games, "items": games * players}
    for name in TABLE_NAMES:
        path = Path(folder) / f"{name}.parquet"
        want = schemas.get(name)
        if want is None:
            if path.exists():
                raise SimkitError(f"--resume: {path} is not a table of this run (it writes "
                                  f"no {name}.parquet); {AGAIN}")
            continue
        if not path.is_file():
            raise SimkitError(f"--resume: {path} is missing; {AGAIN}")
        try:
            source = pq.ParquetFile(path)
            have, n = source.schema_arrow, source.metadata.num_rows
        except (OSError, pa.ArrowException) as exc:
            raise SimkitError(f"--resume: {path} cannot be read ({_said(exc)}); {AGAIN}"
                              ) from exc
        differs = _schema_difference(have, want)
        if differs:
            raise SimkitError(f"--resume: {path} is not the {name} table of this run "
                              f"({differs}); {AGAIN}")
        if name == "games" and n != games:
            raise SimkitError(f"--resume: {path} holds {n:,} games, but its run.json says "
                              f"{games:,}; {AGAIN}")
        if name == "items" and n != rows["items"]:
            raise SimkitError(f"--resume: {path} is not the items table of this run ({n:,} "
                              f"rows, not {rows['items']:,}: a row per game and seat); "
                              f"{AGAIN}")


def _schema_difference(have: pa.Schema, want: pa.Schema) -> str | None:
    """What tells the schema ``have`` from ``want`` (the first difference), or None."""
    if have.equals(want, check_metadata=False):
        return None
    missing = [n for n in want.names if n not in have.names]
    if missing:
        return f"no column {missing[0]!r}"
    extra = [n for n in have.names if n not in want.names]
    if extra:
        return f"a column {extra[0]!r} that this run does not write"
    for field in want:
        other = have.field(field.name)
        if other.type != field.type:
            return f"column {field.name!r} is {other.type}, not {field.type}"
    return "its columns are in another order"


def _read_or_refuse(path: Path, read, *args):
    """``read(*args)`` of the table ``path`` being resumed; a damaged table (a page cut short
    or garbled past its footer) is one line. (Writing is not caught here: a full disk is the
    run's to report.)"""
    try:
        return read(*args)
    except (OSError, pa.ArrowException) as exc:
        raise SimkitError(f"--resume: {path} cannot be read ({_said(exc)}); {AGAIN}") from exc


def _said(exc: Exception) -> str:
    """An exception's message on one line (Arrow's span several)."""
    return " ".join(str(exc).split()).rstrip(".")


class RunWriter:
    """Writes a run folder under a temporary name; ``close`` renames it into place."""

    def __init__(self, out: Path, overwrite: bool = False):
        self.out = Path(out)
        folders.check_output(self.out, "run", overwrite)
        self.lock = folders.OutputLock(self.out)
        try:  # again under the lock: another process may have written it since
            folders.check_output(self.out, "run", overwrite)
            self.tmp = folders.temporary_folder(self.out)
        except OSError as exc:
            self.lock.release()
            if folders.disk_full(exc):
                raise folders.no_space(self.out) from exc
            raise SimkitError(f"cannot write beside {self.out}: {exc.strerror}") from exc
        except BaseException:
            self.lock.release()
            raise
        self._writers: dict[str, pq.ParquetWriter] = {}  # table name -> its file's writer
        self._pending: list[tuple[pa.Table, pa.Table]] = []
        self._pending_trace: list[pa.Table] = []
        self._pending_log: list[pa.Table] = []
        self._pending_rows = 0
        self.rows = 0

    def write(self, games: pa.Table, items: pa.Table, trace: pa.Table | None = None,
              decisions: pa.Table | None = None) -> None:
        """Add a chunk's tables. Small chunks (a search plays four games at a time) are
        gathered into row groups of at least ``ROW_GROUP`` games: a row group per chunk
        made files that took a tenth of a second to read back. What is gathered is
        written by ``close``, also when a run is interrupted."""
        self._pending.append((games, items))
        if trace is not None:
            self._pending_trace.append(trace)
        if decisions is not None:
            self._pending_log.append(decisions)
        self._pending_rows += games.num_rows
        self.rows += games.num_rows
        if self._pending_rows >= ROW_GROUP:
            self._flush()

    def _write(self, name: str, table: pa.Table) -> None:
        """Append ``table`` to ``name``.parquet as a row group (the file is made by the
        first)."""
        if name not in self._writers:
            self._writers[name] = _parquet_writer(self.tmp / f"{name}.parquet", table.schema)
        self._writers[name].write_table(table)

    def _flush(self) -> None:
        if not self._pending:
            return
        games = pa.concat_tables([g for g, _ in self._pending]).combine_chunks()
        items = pa.concat_tables([i for _, i in self._pending]).combine_chunks()
        self._pending, self._pending_rows = [], 0
        self._write("games", games)
        self._write("items", items)
        if self._pending_trace:
            trace = pa.concat_tables(self._pending_trace).combine_chunks()
            self._pending_trace = []
            self._write("trace", trace)
        if self._pending_log:
            log = pa.concat_tables(self._pending_log).combine_chunks()
            self._pending_log = []
            self._write("decisions", log)

    def copy_from(self, folder: Path) -> None:
        """Start with the tables of the run folder ``folder`` (an interrupted run being
        resumed, checked by ``check_tables``): each table copied by its own row groups, so
        memory stays bounded. (The games and items tables are not copied side by side:
        Arrow cuts a file's batches at row groups, or not, depending on its columns.)"""
        assert not self._writers and not self._pending, "copy_from starts a run folder"
        for name in TABLE_NAMES:
            path = Path(folder) / f"{name}.parquet"
            if not path.is_file():
                continue  # only a traced run has a trace.parquet (a logging one decisions)
            source = _read_or_refuse(path, pq.ParquetFile, path)
            for i in range(source.num_row_groups):
                self._write(name, _read_or_refuse(path, source.read_row_group, i))

    def close(self, meta: dict, files: dict[str, bytes] | None = None) -> Path:
        """Finish the folder: its tables, ``files`` (path in the folder -> bytes: the
        models a run played), run.json, and move it into place."""
        self._flush()
        for w in self._writers.values():
            w.close()
        for name, raw in (files or {}).items():
            (self.tmp / name).parent.mkdir(parents=True, exist_ok=True)
            (self.tmp / name).write_bytes(raw)
        (self.tmp / "run.json").write_text(json.dumps(meta, indent=2, default=str) + "\n",
                                           encoding="utf-8")
        folders.mark(self.tmp, "run")
        folders.replace(self.tmp, self.out)
        self.lock.release()
        return self.out

    def abort(self) -> None:
        """Leave the disk as it was: the temporary folder and the lock go, even when
        closing the writers fails again (a full disk)."""
        for w in self._writers.values():
            try:
                w.close()
            except Exception:  # noqa: BLE001, S110 - the folder is removed below
                pass
        self._writers = {}
        shutil.rmtree(self.tmp, ignore_errors=True)
        self.lock.release()


@dataclass
class RunResult:
    """A run's tables as pandas DataFrames (None for a run written to a folder), and its
    run.json as a dict; ``tally``, when the run was asked for one, the counts of its summary
    (``simkit.reports.tally.Tally``)."""

    games: pd.DataFrame | None
    items: pd.DataFrame | None
    meta: dict
    tally: Any = None
    trace: pd.DataFrame | None = None
    """The traced games' progress, a row per game and turn (``trace_table``); None for a
    run without a trace."""
    decisions: pd.DataFrame | None = None
    """The decision log, a row per decision of the logged games (``decisions_table``); None
    for a run that logs none (``read_run`` leaves it unread: ``read_decisions``)."""


def read_meta(folder: Path) -> dict:
    """run.json of a run folder as a dict, with ``schema_version`` filled in (1 for folders
    written before it was recorded); ``SimkitError`` when ``folder`` is not a run folder or
    was written by a newer simkit."""
    folder = Path(folder)
    if not folder.is_dir():
        raise SimkitError(f"{folder} is not a simkit run folder (no such directory)")
    meta_path = folder / "run.json"
    if not meta_path.is_file():
        raise SimkitError(f"{folder} is not a simkit run folder (no run.json)")
    try:
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise SimkitError(f"{meta_path} is malformed: {exc}") from exc
    if not isinstance(meta, dict):
        raise SimkitError(f"{meta_path} is malformed: not a JSON object")
    version = meta.setdefault("schema_version", 1)
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise SimkitError(f"{meta_path} is malformed: schema_version {version!r}")
    if version > SCHEMA_VERSION:
        raise SimkitError(f"{folder} was written by a newer simkit (run folder schema "
                          f"{version}; this simkit reads schemas 1 to {SCHEMA_VERSION}): "
                          "upgrade simkit to read it")
    check_meta(meta, meta_path)
    return meta


def _whole(lo: int = 0):
    return lambda v: isinstance(v, int) and not isinstance(v, bool) and v >= lo


def _names(v) -> bool:
    return isinstance(v, list) and all(isinstance(x, str) for x in v)


def _table_of(kind):
    return lambda v: isinstance(v, dict) and all(isinstance(x, kind) for x in v.values())


RUN_JSON = (
    # (key, required, test, what it must be): the fields of run.json that simkit reads
    # back (reports, replay, export, cards --run, resume), in every schema version
    ("game", True, lambda v: isinstance(v, str) and v.strip() != "", "a game's name"),
    ("players", True, _whole(1), "a whole number of players, at least 1"),
    ("games", True, _whole(0), "a whole number of games"),
    ("games_completed", True, _whole(0), "a whole number of games"),
    ("complete", False, lambda v: isinstance(v, bool), "true or false"),
    ("master_seed", False, _whole(0), "a whole number, at least 0"),
    ("strategies", False, _names, "a list of strategy names, one a seat"),
    ("rotate", False, lambda v: isinstance(v, bool), "true or false"),
    ("strategy_weights", False, _table_of(dict), "a table of each strategy's weights"),
    ("teams", False, lambda v: isinstance(v, list) and all(_whole(0)(t) for t in v),
     "a list of team numbers, one a seat"),
    ("end_reasons", False, _names, "a list of names"),
    ("item_columns", False, _names, "a list of names"),
    ("phases", False, _names, "a list of names"),
    ("params", False, _table_of(dict), "a table of each value with its source"),
    ("overrides", False, lambda v: isinstance(v, dict), "a table of KEY = VALUE"),
    ("trace_games", False, _whole(0), "a whole number of games"),
    ("kingmaking_games", False, _whole(0), "a whole number of games"),
    ("run_spec", False, lambda v: isinstance(v, dict), "a table of the run's settings"),
)


def check_meta(meta: dict, path: Path) -> None:
    """``SimkitError`` (one line) unless ``meta``, the run.json at ``path``, holds every
    field simkit reads back, each of the right kind (``RUN_JSON``): a file edited by hand or
    damaged is named here, instead of failing deep inside a report or a replay."""
    for key, required, test, what in RUN_JSON:
        if key not in meta:
            if required:
                raise SimkitError(f"{path} is damaged: it has no {key} ({what}); play the "
                                  "run again")
            continue
        value = meta[key]
        if not test(value):
            raise SimkitError(f"{path} is damaged: {key} must be {what}, not "
                              f"{_short(value)}; play the run again")
    for key in ("strategies", "teams"):
        if isinstance(meta.get(key), list) and len(meta[key]) != meta["players"]:
            raise SimkitError(f"{path} is damaged: {key} has {len(meta[key])} entries for "
                              f"{meta['players']} players; play the run again")


def _short(value) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _parquet_schema(path: Path, what: str) -> tuple[pa.Schema, int]:
    """(schema, rows) of a Parquet file from its footer alone, or one line naming it."""
    try:
        f = pq.ParquetFile(path)
        return f.schema_arrow, f.metadata.num_rows
    except Exception as exc:  # noqa: BLE001 - a damaged file is the user's problem
        raise SimkitError(f"{path} is unreadable ({_short_error(exc)}); the run's {what} "
                          "are damaged: play the run again") from exc


def _short_error(exc: Exception) -> str:
    text = " ".join(str(exc).split())
    return text if len(text) <= 120 else text[:117] + "..."


def _integers(schema: pa.Schema, names, path: Path, what: str) -> None:
    for name in names:
        i = schema.get_field_index(name)
        if i < 0:
            raise SimkitError(f"{path} is not a simkit {what} table (it has no {name} "
                              "column); play the run again")
        if not pa.types.is_integer(schema.field(i).type):
            raise SimkitError(f"{path} is not a simkit {what} table (its {name} column holds "
                              f"{schema.field(i).type}, not whole numbers); play the run again")


def check_games_table(folder: Path, meta: dict) -> None:
    """``SimkitError`` unless the folder's games.parquet is readable (from its footer) and
    has the columns every reader takes, as whole numbers, and a row per finished game."""
    path = Path(folder) / "games.parquet"
    if not path.is_file():
        raise SimkitError(f"{path} is missing; play the run again")
    schema, rows = _parquet_schema(path, "games")
    import pandas as pd

    names = list(upgrade_games(pd.DataFrame(columns=schema.names)).columns)
    renamed = pa.schema([pa.field(n, f.type) for n, f in zip(names, schema, strict=True)])
    p = meta["players"]
    _integers(renamed, ["game", "players", "turns",
                        *(seat_column("rank", s + 1) for s in range(p))], path, "games")
    if rows != meta["games_completed"]:
        raise SimkitError(f"{path} holds {rows:,} games, but run.json says "
                          f"{meta['games_completed']:,} were played; the run is damaged: "
                          "play it again")


def check_run(folder: Path) -> dict:
    """The one check of a run folder before it is read or continued: its run.json
    (``read_meta``: a run folder, of a schema this simkit reads, every field of the right
    kind) and the footers and schemas of its tables (games; items and trace where they
    are: a reader that needs one says when it is missing), without reading their rows.
    Returns run.json; ``SimkitError`` (one line naming the file and what is wrong)
    otherwise."""
    folder = Path(folder)
    meta = read_meta(folder)
    check_games_table(folder, meta)
    items = folder / "items.parquet"
    if items.is_file():
        check_items(items, meta)
    trace = folder / "trace.parquet"
    if trace.is_file():
        check_trace(trace, meta)
    log = folder / "decisions.parquet"
    if log.is_file():
        check_decisions(log)
    return meta


def upgrade_games(games: pd.DataFrame) -> pd.DataFrame:
    """A games table in today's layout (seats and teams from 1), whatever layout it has."""
    if "rank_s0" not in games.columns:
        return games
    rename = {}
    for col in games.columns:
        m = _OLD_SEAT_COLUMN.match(str(col))
        if m:
            rename[col] = seat_column(m.group(1), int(m.group(2)) + 1)
    games = games.rename(columns=rename)
    for col in games.columns:
        if str(col).startswith("team_s"):
            games[col] = (games[col] + 1).astype(np.int8)
    for col in ("winner", "winning_team"):
        if col in games.columns:
            games[col] = (games[col] + 1).astype(np.int8)  # -1 (none) becomes 0
    return games


def read_games(folder: Path, meta: dict, columns=None) -> pd.DataFrame:
    """games.parquet of a run folder in today's layout. ``columns``: a predicate on today's
    column names that chooses what to read (all columns by default). Arrow's buffers are
    released as pandas takes them over, so a 10-million-game table costs about its pandas
    size and not twice that."""
    import pandas as pd

    path = Path(folder) / "games.parquet"
    if not path.is_file():
        raise SimkitError(f"{path} is missing")
    try:
        names = pq.ParquetFile(path).schema_arrow.names
        if columns is not None:
            probe = upgrade_games(pd.DataFrame(columns=names))
            names = [old for old, new in zip(names, probe.columns, strict=True)
                     if columns(new)]
        table = pq.read_table(path, columns=names)
        games = table.to_pandas(self_destruct=True, split_blocks=True)
        del table
    except Exception as exc:  # noqa: BLE001 - a damaged parquet file is the user's problem
        raise SimkitError(f"{folder} holds an unreadable run: {exc}") from exc
    return upgrade_games(games)


def read_game_row(folder: Path, game: int) -> pd.DataFrame:
    """The row of game number ``game`` of a run folder (empty when it has no such game)."""
    path = Path(folder) / "games.parquet"
    if not path.is_file():
        raise SimkitError(f"{path} is missing")
    try:
        rows = pq.read_table(path, filters=[("game", "=", game)]).to_pandas()
    except Exception as exc:  # noqa: BLE001 - a damaged parquet file is the user's problem
        raise SimkitError(f"{folder} holds an unreadable run: {exc}") from exc
    return upgrade_games(rows)


def upgrade_items(items: pd.DataFrame) -> pd.DataFrame:
    """An items table in today's layout (seats from 1), whatever layout it has."""
    if len(items) == 0 or items["seat"].min() > 0:
        return items
    return items.assign(seat=(items["seat"] + 1).astype(np.int8))


def _items_from_zero(path: Path) -> bool:
    """Whether an items.parquet counts seats from 0 (schema 1): its smallest seat, from the
    row groups' statistics (read in full only where a writer left none)."""
    meta = pq.ParquetFile(path).metadata
    j = meta.schema.names.index("seat")
    lows = []
    for i in range(meta.num_row_groups):
        stats = meta.row_group(i).column(j).statistics
        if stats is None or not stats.has_min_max:
            import pyarrow.compute as pc

            seats = pq.read_table(path, columns=["seat"]).column(0)
            return len(seats) > 0 and pc.min(seats).as_py() == 0
        lows.append(stats.min)
    return bool(lows) and min(lows) == 0


def check_items(path: Path, meta: dict | None = None) -> None:
    """``SimkitError`` unless ``path`` is a readable items table: a Parquet file whose
    footer and schema say it has ``game`` and ``seat`` columns and counts in every other,
    all whole numbers; with the run's ``meta``, a row per finished game and seat."""
    schema, rows = _parquet_schema(path, "items")
    missing = [c for c in ("game", "seat") if c not in schema.names]
    if missing:
        raise SimkitError(f"{path} is not a simkit items table (no {', '.join(missing)})")
    _integers(schema, schema.names, path, "items")
    if meta is not None and rows != meta["games_completed"] * meta["players"]:
        raise SimkitError(f"{path} holds {rows:,} rows, but run.json says "
                          f"{meta['games_completed']:,} games of {meta['players']} players "
                          "were played; the run is damaged: play it again")


def check_trace(path: Path, meta: dict) -> None:
    """``SimkitError`` unless ``path`` is a readable trace table: game and turn as whole
    numbers and a progress column a seat."""
    schema, _ = _parquet_schema(path, "trace")
    _integers(schema, ["game", "turn"], path, "trace")
    missing = [seat_column("progress", s + 1) for s in range(meta["players"])
               if seat_column("progress", s + 1) not in schema.names]
    if missing:
        raise SimkitError(f"{path} is not a simkit trace table (no {', '.join(missing)}); "
                          "play the run again")


def check_decisions(path: Path) -> None:
    """``SimkitError`` unless ``path`` is a readable decision log with its columns."""
    schema, _ = _parquet_schema(path, "decisions")
    missing = [c for c in LOG_COLUMNS if c not in schema.names]
    if missing:
        raise SimkitError(f"{path} is not a simkit decision log (no {', '.join(missing)}); "
                          "play the run again")
    _integers(schema, ["game", "decision", "turn", "seat", "move", "legal_moves"], path,
              "decisions")


def read_decisions(folder: Path) -> pd.DataFrame | None:
    """A run folder's decisions.parquet (a row per logged decision), or None when the run
    logged none."""
    path = Path(folder) / "decisions.parquet"
    if not path.is_file():
        return None
    try:
        return pq.read_table(path).to_pandas()
    except Exception as exc:  # noqa: BLE001 - a damaged parquet file is the user's problem
        raise SimkitError(f"{path} is unreadable: {exc}") from exc


def read_items_batches(items, columns: list[str], batch_rows: int):
    """Record batches (game, seat, *columns) of an items table: a path of an items.parquet,
    streamed ``batch_rows`` rows at a time, or a DataFrame; seats counted from 1 whatever
    schema the file was written with."""
    import pandas as pd
    import pyarrow.compute as pc

    if isinstance(items, pd.DataFrame):
        items = upgrade_items(items[["game", "seat", *columns]])
        table = pa.Table.from_pandas(items, preserve_index=False)
        yield from table.to_batches(max_chunksize=batch_rows)
        return
    shift = _items_from_zero(items)
    for batch in pq.ParquetFile(items).iter_batches(batch_size=batch_rows,
                                                   columns=["game", "seat", *columns]):
        if shift:
            seat = pc.add(batch.column(1), pa.scalar(1, batch.column(1).type))
            batch = pa.RecordBatch.from_arrays([batch.column(0), seat, *batch.columns[2:]],
                                               names=batch.schema.names)
        yield batch


def read_run(folder: Path, items: bool = True, trace: bool = True) -> RunResult:
    """A run folder's tables in today's layout (older layouts are upgraded as they are read)
    and its run.json; ``trace`` False leaves trace.parquet unread (``reports.feel`` reads it
    in batches)."""
    meta = check_run(folder)
    games = read_games(folder, meta)
    items_df = None
    if items:
        path = Path(folder) / "items.parquet"
        if not path.is_file():
            raise SimkitError(f"{path} is missing")
        try:
            items_df = pq.read_table(path).to_pandas()
        except Exception as exc:  # noqa: BLE001 - a damaged parquet file is the user's problem
            raise SimkitError(f"{path} is unreadable: {exc}") from exc
        items_df = upgrade_items(items_df)
    return RunResult(games, items_df, meta, trace=read_trace(folder) if trace else None)


def read_trace(folder: Path) -> pd.DataFrame | None:
    """A run folder's trace.parquet (a row per traced game and turn), or None when the run
    traced no game."""
    path = Path(folder) / "trace.parquet"
    if not path.is_file():
        return None
    try:
        return pq.read_table(path).to_pandas()
    except Exception as exc:  # noqa: BLE001 - a damaged parquet file is the user's problem
        raise SimkitError(f"{path} is unreadable: {exc}") from exc
