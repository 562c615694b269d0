"""Result tables and run folders.

A run folder holds:
    games.parquet  a row per game: game, seed, players, strategy_s*, team_s*, rank_s*, score_s*,
                   winner (seat, or -1 unless exactly one seat won), winning_team (or -1),
                   turns, decisions, end_reason
    items.parquet  a row per game and seat: game, seat, then one uint16 count per item event
                   column of the game (``item:event``), wide because a 10-million-game run
                   then stays small (runs of zeros compress to almost nothing)
    run.json       the game and its version, every data value with its source, strategies,
                   seeds, backend, package versions, elapsed time, and ``complete``
The folder is written under a temporary name and renamed when done, so a killed run leaves
no half-written folder; an interrupted run (Ctrl-C) keeps the games it finished, with
``complete: false``.
"""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from simkit.errors import SimkitError


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


def games_table(chunk: Chunk, strategy_names, teams, end_reasons) -> pa.Table:
    g, p = chunk.ranks.shape
    cols: dict[str, pa.Array] = {
        "game": pa.array(np.arange(chunk.start, chunk.start + g, dtype=np.int64)),
        "seed": pa.array(chunk.seeds, type=pa.uint64()),
        "players": pa.array(np.full(g, p, dtype=np.int8)),
    }
    names = pa.array(list(strategy_names), type=pa.string())
    for s in range(p):
        cols[f"strategy_s{s}"] = pa.DictionaryArray.from_arrays(
            pa.array(chunk.codes[:, s], type=pa.int32()), names)
    for s in range(p):
        cols[f"team_s{s}"] = pa.array(np.full(g, teams[s], dtype=np.int8))
    for s in range(p):
        cols[f"rank_s{s}"] = pa.array(chunk.ranks[:, s].astype(np.int8))
    for s in range(p):
        cols[f"score_s{s}"] = pa.array(chunk.scores[:, s])
    won = chunk.ranks == 1
    n_won = won.sum(axis=1)
    cols["winner"] = pa.array(np.where(n_won == 1, won.argmax(axis=1), -1).astype(np.int8))
    team_arr = np.asarray(teams)
    first_team = team_arr[won.argmax(axis=1)]
    one_team = (n_won > 0) & np.all(~won | (team_arr[None, :] == first_team[:, None]), axis=1)
    cols["winning_team"] = pa.array(np.where(one_team, first_team, -1).astype(np.int8))
    cols["turns"] = pa.array(chunk.turns)
    cols["decisions"] = pa.array(chunk.decisions)
    cols["end_reason"] = pa.DictionaryArray.from_arrays(
        pa.array(chunk.end, type=pa.int32()), pa.array(list(end_reasons), type=pa.string()))
    return pa.table(cols)


def items_table(chunk: Chunk, item_columns) -> pa.Table:
    g, p, k = chunk.items.shape
    flat = np.minimum(chunk.items.reshape(g * p, k), 65535).astype(np.uint16)
    cols = {
        "game": pa.array(np.repeat(np.arange(chunk.start, chunk.start + g, dtype=np.int64), p)),
        "seat": pa.array(np.tile(np.arange(p, dtype=np.int8), g)),
    }
    for j, name in enumerate(item_columns):
        cols[name] = pa.array(flat[:, j])
    return pa.table(cols)


class RunWriter:
    """Writes a run folder under a temporary name; ``close`` renames it into place."""

    def __init__(self, out: Path, overwrite: bool = False):
        self.out = Path(out)
        if self.out.exists() and not overwrite and any(self.out.iterdir()):
            raise SimkitError(f"output folder {self.out} exists and is not empty; "
                              "choose another --out or pass --overwrite")
        self.out.parent.mkdir(parents=True, exist_ok=True)
        self.tmp = self.out.parent / f".{self.out.name}.partial-{os.getpid()}"
        if self.tmp.exists():
            shutil.rmtree(self.tmp)
        self.tmp.mkdir()
        self._games = None
        self._items = None
        self.rows = 0

    def write(self, games: pa.Table, items: pa.Table) -> None:
        if self._games is None:
            self._games = pq.ParquetWriter(self.tmp / "games.parquet", games.schema,
                                           compression="zstd")
            self._items = pq.ParquetWriter(self.tmp / "items.parquet", items.schema,
                                           compression="zstd")
        self._games.write_table(games)
        self._items.write_table(items)
        self.rows += games.num_rows

    def close(self, meta: dict) -> Path:
        for w in (self._games, self._items):
            if w is not None:
                w.close()
        (self.tmp / "run.json").write_text(json.dumps(meta, indent=2, default=str) + "\n",
                                           encoding="utf-8")
        if self.out.exists():
            old = self.out.parent / f".{self.out.name}.old-{os.getpid()}"
            os.replace(self.out, old)
            shutil.rmtree(old)
        os.replace(self.tmp, self.out)
        return self.out

    def abort(self) -> None:
        for w in (self._games, self._items):
            if w is not None:
                w.close()
        shutil.rmtree(self.tmp, ignore_errors=True)


@dataclass
class RunResult:
    """A run's tables as pandas DataFrames, and its run.json as a dict."""

    games: pd.DataFrame
    items: pd.DataFrame
    meta: dict


def read_run(folder: Path, items: bool = True) -> RunResult:
    folder = Path(folder)
    meta_path = folder / "run.json"
    if not meta_path.is_file():
        raise SimkitError(f"{folder} is not a simkit run folder (no run.json)")
    try:
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise SimkitError(f"{meta_path} is malformed: {exc}") from exc
    games = _read_parquet(folder / "games.parquet")
    items_df = _read_parquet(folder / "items.parquet") if items else None
    return RunResult(games, items_df, meta)


def _read_parquet(path: Path) -> pd.DataFrame:
    if not path.is_file():
        raise SimkitError(f"{path} is missing")
    return pq.read_table(path).to_pandas()
