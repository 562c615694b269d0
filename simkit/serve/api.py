"""The workbench's API: what the page asks, answered by the functions the command line calls
(``simkit.data`` and ``simkit.cards`` for the data, ``simkit.runner`` through a job for runs,
``reports`` for verdicts and figures, ``simkit.replay`` for replays). Each answer is JSON; bad
input is ``{"error": one line}`` (and ``"field"`` when a form field is at fault), status 400,
never a server error page."""

from __future__ import annotations

import csv
import io
import json
import re
import warnings
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response

from simkit import folders
from simkit.errors import SimkitError
from simkit.serve.jobs import CHANGESET_NAME
from simkit.serve.security import inside

MAX_BODY = 2 * 2**20
"""The largest request body read (2 MB): a change set is a few kilobytes."""


def error(message: str, status: int = 400, **more) -> JSONResponse:
    from simkit.cli import one_line

    return JSONResponse({"error": one_line(str(message)), **more}, status_code=status)


async def body(request: Request) -> dict:
    raw = await request.body()
    if len(raw) > MAX_BODY:
        raise SimkitError(f"the request is {len(raw):,} bytes; at most {MAX_BODY:,}")
    try:
        doc = json.loads(raw or b"{}")
    except ValueError:
        raise SimkitError("the request is not JSON") from None
    if not isinstance(doc, dict):
        raise SimkitError("the request is a JSON object")
    return doc


# ------------------------------------------------------------------------ games and data

def games_list() -> list[dict]:
    """Every installed game: players, version, summary and the strategies `simkit games`
    lists for it."""
    from simkit import registry

    out = []
    for name, spec in registry.games().items():
        out.append({"name": name, "version": spec.version, "players": list(spec.players),
                    "summary": spec.summary, "strategies": registry.playable_strategies(name),
                    "strong": registry.strong_strategy(name)})
    return out


def _text(v, f=None) -> str:
    from simkit.cards import show

    return show(v, f)


def _scalar(v) -> str:
    """A value of the data table as ``--set`` takes it back (a list as a TOML array)."""
    return json.dumps(v) if isinstance(v, list | tuple) else _text(v)


def game_data(game: str, changes: dict[str, str], lists: dict | None = None) -> dict:
    """The game's data table and card lists as `simkit rules` and `simkit cards` show them,
    under ``changes`` (``--set`` values), each value with its default, source, bounds and
    whether it changed."""
    from simkit import data, registry
    from simkit.cards import own_source, removed

    spec = registry.get_game(game)
    lists_given = lists or {}
    params, errors = effective(game, changes, lists_given)
    scalars = []
    for key, p in params.items():
        if p.records is not None:
            continue
        scalars.append({"key": key, "value": _scalar(p.value), "default": _scalar(p.default),
                        "source": p.source, "why": p.why, "min": p.min, "max": p.max,
                        "choices": list(p.choices) if p.choices else None,
                        "type": type(p.default).__name__, "changed": p.changed})
    lists = []
    for key, rl in data.lists_of(params).items():
        records = []
        before = {name for name, _ in data.table(spec.data, key)}
        for name, row in data.table(params, key):
            src, why = own_source(row, rl)
            records.append({"name": name, "source": src, "why": why,
                            "added": name not in before,
                            "cells": {f.name: {"key": row[f.name].key,
                                               "value": _text(row[f.name].value, f),
                                               "default": _text(row[f.name].default, f),
                                               "changed": row[f.name].changed}
                                      for f in rl.fields}})
        lists.append({"key": key, "noun": rl.noun, "nouns": rl.nouns, "named": rl.named,
                      "fields": [{"name": f.name, "type": f.type, "describe": f.describe(),
                                  "source": f.source, "why": f.why,
                                  "default": _text(f.default, f) if f.has_default else None}
                                 for f in rl.fields],
                      "records": records, "removed": removed(params, spec.data, key),
                      "replaced": key in lists_given})
    return {"game": game, "version": spec.version, "data_path": str(spec.data_path),
            "scalars": scalars, "lists": lists, "errors": errors}


def effective(game: str, changes: dict[str, str], lists: dict | None = None):
    """The game's data under ``changes``, and the message of every change the command line
    would refuse (``--set KEY=TEXT``, read by ``data.parse_overrides`` and checked by
    ``data.apply_overrides`` and ``runner.check_params``, as `simkit rules` checks it). A
    refused change is left out of the data; ``"*"`` holds a message about the changes
    together. ``lists``: card lists replaced whole (``{list: [{column: text}]}``), each
    read as the card file ``LIST.csv`` that ``--cards`` reads (``parse_lists``)."""
    from simkit import data, registry
    from simkit.runner import check_params

    spec = registry.get_game(game)
    good, errors = parse_lists(game, lists or {})
    for key, text in changes.items():
        try:
            over = data.parse_overrides([f"{key}={text}"])
            data.apply_overrides(spec.data, {**good, **over})
            good.update(over)
        except SimkitError as exc:
            errors[key] = str(exc)
    params = data.apply_overrides(spec.data, good)
    try:
        check_params(spec, params)
    except SimkitError as exc:
        errors["*"] = str(exc)
    return params, errors


def check_changes(doc: dict) -> dict[str, str]:
    changes = doc.get("changes", {})
    if not isinstance(changes, dict) or not all(isinstance(k, str) and isinstance(v, str | int
                                                                                 | float)
                                                 and not isinstance(v, bool)
                                                 for k, v in changes.items()):
        raise SimkitError('changes are {"KEY": "VALUE", ...}, as --set KEY=VALUE')
    out = {}
    for k, v in changes.items():
        text = str(v).strip()
        if "\n" in text or "\r" in text or not k.strip():
            raise SimkitError(f"{k!r}: a value is one line")
        out[k.strip()] = text
    return out


# ------------------------------------------------------------------------ card lists

def check_lists(doc: dict) -> dict[str, list[dict[str, str]]]:
    """The card lists a request (or a change set) replaces whole: ``{list: [{column:
    text}]}``, a row a card, the columns of the list's card file."""
    lists = doc.get("lists") or {}
    ok = isinstance(lists, dict) and all(
        isinstance(k, str) and isinstance(rows, list) and all(
            isinstance(r, dict) and all(isinstance(c, str) and isinstance(v, str | int | float)
                                        and not isinstance(v, bool) for c, v in r.items())
            for r in rows) for k, rows in lists.items())
    if not ok:
        raise SimkitError('lists are {"LIST": [{"COLUMN": "TEXT", ...}, ...]}: a card list '
                          "replaced whole, a row a card, as --cards LIST.csv reads it")
    out = {}
    for key, rows in lists.items():
        for r in rows:
            if any("\n" in str(v) or "\r" in str(v) for v in r.values()):
                raise SimkitError(f"{key}: a cell is one line")
        out[key] = [{c: str(v).strip() for c, v in r.items()} for r in rows]
    return out


def list_csv(game: str, key: str, rows: list[dict[str, str]]) -> str:
    """A replaced list as the card file ``--cards`` reads (``cards.columns``' header, text
    cells made safe for a spreadsheet, as `simkit cards --export` writes them)."""
    from simkit import data, registry
    from simkit.cards import columns
    from simkit.escape import csv_cell

    rl = data.lists_of(registry.get_game(game).data)[key]
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(columns(rl))
    for r in rows:
        w.writerow([csv_cell(r.get(c, "")) for c in columns(rl)])
    return buf.getvalue()


_AT_ROW = re.compile(r", row (\d+)(?: \([^)]*\))?, column (\w+)")


def parse_lists(game: str, lists: dict) -> tuple[dict, dict[str, str]]:
    """(overrides ``{list: rows}``, messages): each list read by ``cards.read_csv_text`` as
    the card file ``LIST.csv``, so a refused cell gets the message `--cards LIST.csv` would
    print. A message is keyed ``LIST[ROW].COLUMN`` (the grid's row, from 1) when it names a
    cell, else ``LIST``."""
    from simkit import data, registry
    from simkit.cards import read_csv_text

    spec = registry.get_game(game)
    known = data.lists_of(spec.data)
    over, errors = {}, {}
    for key, rows in lists.items():
        if key not in known:
            from simkit.errors import unknown

            errors[key] = str(unknown(f"list of {game}", key, known))
            continue
        try:
            over[key], _ = read_csv_text(list_csv(game, key, rows), f"{key}.csv", known[key])
            data.apply_overrides(spec.data, {key: over[key]})
        except SimkitError as exc:
            over.pop(key, None)
            m = _AT_ROW.search(str(exc))
            errors[f"{key}[{m.group(1)}].{m.group(2)}" if m else key] = str(exc)
    return over, errors


def changeset_cards(runs: Path, name: str) -> Path:
    """The folder of a change set's card files (``--cards``): ``changesets/NAME/``."""
    changeset_path(runs, name)  # the name checked
    return inside(runs, f"changesets/{name}", must_exist=False)


# ------------------------------------------------------------------------ change sets

def changeset_dir(runs: Path) -> Path:
    return runs / "changesets"


def changeset_path(runs: Path, name: str) -> Path:
    if not isinstance(name, str) or not CHANGESET_NAME.fullmatch(name):
        raise SimkitError(f"{name!r} cannot name a change set: letters, digits, '-' and '_', "
                          "starting with a letter or a digit, at most 64")
    return inside(runs, f"changesets/{name}.json", must_exist=False)


def read_changeset(runs: Path, name: str) -> dict:
    path = changeset_path(runs, name)
    if not path.is_file():
        from simkit.errors import unknown

        raise unknown("change set", name, [p.stem for p in changeset_dir(runs).glob("*.json")]
                      if changeset_dir(runs).is_dir() else [])
    doc = json.loads(path.read_text(encoding="utf-8"))
    doc["changes"] = check_changes(doc)
    doc["lists"] = check_lists(doc)
    return doc


def save_changeset(runs: Path, name: str, game: str, changes: dict[str, str],
                   lists: dict | None = None) -> dict:
    """Save a change set that the command line accepts whole (else the first refusal): its
    ``--set`` values in ``changesets/NAME.json``, each card list it replaces whole as the
    card file ``changesets/NAME/LIST.csv`` that a job gives ``--cards``."""
    from simkit import registry

    registry.get_game(game)
    lists = lists or {}
    _, errors = effective(game, changes, lists)
    if errors:
        key, msg = next(iter(errors.items()))
        raise SimkitError(msg)
    path = changeset_path(runs, name)
    cards = changeset_cards(runs, name)
    doc = {"name": name, "game": game, "changes": changes, "lists": lists,
           "saved": datetime.now(UTC).isoformat(timespec="seconds"),
           "set": [f"--set {k}={v}" for k, v in changes.items()],
           "cards": [f"changesets/{name}/{key}.csv" for key in lists]}
    path.parent.mkdir(parents=True, exist_ok=True)
    if cards.is_dir():  # the lists it no longer replaces
        for old in cards.glob("*.csv"):
            if old.stem not in lists:
                old.unlink()
    for key, rows in lists.items():
        cards.mkdir(exist_ok=True)
        folders.write_text(cards / f"{key}.csv", list_csv(game, key, rows))
    folders.write_json(path, doc)
    return doc


def changeset_csv(runs: Path, name: str) -> str:
    """A change set as a spreadsheet: a row per change (key, value, default, source)."""
    from simkit import registry

    doc = read_changeset(runs, name)
    params, _ = effective(doc["game"], doc["changes"])
    defaults = registry.get_game(doc["game"]).data
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    from simkit.escape import csv_cell

    w.writerow(["key", "value", "default", "source", "why"])
    for key, text in doc["changes"].items():
        p = params.get(key) or defaults.get(key)
        w.writerow([csv_cell(key), csv_cell(text),
                    csv_cell(_text(p.default) if p is not None else ""),
                    p.source if p is not None else "", csv_cell(p.why if p else "")])
    return buf.getvalue()


def changes_from_csv(text: str) -> dict[str, str]:
    """A change set's CSV read back (its key and value columns)."""
    from simkit.escape import csv_uncell

    rows = list(csv.reader(io.StringIO(text)))
    if not rows or [c.strip() for c in rows[0][:2]] != ["key", "value"]:
        raise SimkitError("a change set's CSV starts with the columns key,value")
    return {csv_uncell(r[0]).strip(): csv_uncell(r[1]).strip() for r in rows[1:]
            if len(r) >= 2 and r[0].strip()}


# ------------------------------------------------------------------------ the runs folder

def folder_entry(runs: Path, folder: Path) -> dict | None:
    """One folder of the runs folder as the list shows it, or None when simkit did not
    write it."""
    kind = folders.kind_of(folder)
    if kind is None:
        return None
    entry = {"path": folder.relative_to(runs).as_posix(), "kind": kind,
             "date": datetime.fromtimestamp(folder.stat().st_mtime, UTC).isoformat(
                 timespec="seconds")}
    if kind == "played":  # a person's game (simkit.played): listed, never a run's figures
        try:
            doc = json.loads((folder / "played.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            doc = {}
        if isinstance(doc, dict):
            entry.update(game=doc.get("game"), players=doc.get("players"),
                         strategies=",".join(map(str, doc.get("seats") or [])), games=1,
                         complete=doc.get("complete"), seed=doc.get("seed"),
                         date=doc.get("saved_at") or entry["date"],
                         changes=", ".join(f"{k}={v}" for k, v in
                                           (doc.get("overrides") or {}).items()))
        entry["report"] = None
        return entry
    meta_path = folder / ("base/run.json" if kind == "whatif" else "run.json")
    try:
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        meta = None
    if isinstance(meta, dict):
        entry.update(game=meta.get("game"), players=meta.get("players"),
                     strategies=",".join(map(str, meta.get("strategies") or [])),
                     games=meta.get("games_completed"), complete=meta.get("complete"),
                     seed=meta.get("master_seed"), date=meta.get("finished_at")
                     or entry["date"])
        over = meta.get("overrides") or {}
        if kind == "whatif":
            try:
                changed = json.loads((folder / "changed/run.json").read_text("utf-8"))
                over = {k: v for k, v in (changed.get("overrides") or {}).items()
                        if over.get(k) != v}
            except (OSError, ValueError):
                pass
        entry["changes"] = ", ".join(f"{k}={v}" for k, v in over.items())
    else:
        for name in ("summary.json", "ladder.json"):
            try:
                doc = json.loads((folder / name).read_text(encoding="utf-8"))
            except (OSError, ValueError):
                continue
            if isinstance(doc, dict):
                entry.update(game=doc.get("game"), players=doc.get("players"))
                break
    entry["report"] = report_of(runs, folder, kind)
    return entry


def report_of(runs: Path, folder: Path, kind: str) -> str | None:
    """The report page of ``folder`` (relative to ``runs``), when one is written."""
    for cand in (folder / "report/index.html", folder / "index.html",
                 runs / ".workbench/reports" / folder.relative_to(runs) / "index.html"):
        if cand.is_file() and (kind == "report" or cand.parent != folder):
            return cand.relative_to(runs).as_posix()
    return None


def list_folders(runs: Path, query: str = "") -> list[dict]:
    """Every simkit folder of the runs folder (not hidden ones), newest first; ``query``:
    words every listed field together must contain."""
    out = []
    if runs.is_dir():
        for folder in runs.iterdir():
            if folder.name.startswith(".") or folder.is_symlink() or not folder.is_dir():
                continue
            entry = folder_entry(runs, folder)
            if entry is not None:
                out.append(entry)
    words = query.lower().split()
    if words:
        out = [e for e in out if all(w in " ".join(str(v) for v in e.values()).lower()
                                     for w in words)]
    return sorted(out, key=lambda e: str(e.get("date")), reverse=True)


def result(runs: Path, rel: str, fair: float = 0.01) -> dict:
    """A folder's headline and tables, from the functions `simkit run` and `simkit whatif`
    print them with: the verdicts, then a run's seats and first-player advantage, or a
    what-if's paired differences (``reports.analysis.compare_runs``, the table the report's
    what-if figure draws)."""
    from simkit.reports import figdata

    folder = inside(runs, rel)
    kind = folders.kind_of(folder)
    if kind == "whatif":
        from simkit.reports.analysis import compare_runs
        from simkit.reports.build import load_run
        from simkit.reports.summary import records
        from simkit.reports.verdict import whatif_verdicts

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            b, c = load_run(folder / "base"), load_run(folder / "changed")
            table = compare_runs(b.games, c.games, b.meta, c.meta, b.items_path,
                                 c.items_path, b.trace_path, c.trace_path)
        verdicts = whatif_verdicts(table, fair, b.meta.get("strategies"))
        head = table[~table["measure"].str.startswith("item")]
        return {"kind": kind, "path": rel, "verdicts": [v.text for v in verdicts],
                "differences": records(head), "games": int(len(c.games)),
                # the report's what-if figure, from the same data (reports.figdata)
                "figures": {"differences": figdata.whatif_differences(table)},
                "game": b.meta.get("game"), "runs": ["base", "changed"],
                "report": report_of(runs, folder, kind)}
    if kind == "run":
        from simkit.reports.summary import summary_dict
        from simkit.results import read_run

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = read_run(folder, items=False, trace=False)
            items = folder / "items.parquet"
            s = summary_dict(res.games, res.meta, items if items.is_file() else None, fair)
            figures = figdata.run_figures(res.games, res.meta)
        return {"kind": kind, "path": rel, "verdicts": [v["text"] for v in s["verdicts"]],
                "figures": figures,
                "seats": s["seats"], "first_player_advantage": s["first_player_advantage"],
                "games": s["games"], "game": s["game"], "complete": s["complete"],
                "runs": ["."], "report": report_of(runs, folder, kind)}
    if kind in ("sweep", "sensitivity", "balance", "ladder"):
        try:  # the verdicts the command printed, kept in its summary.json
            summary = json.loads((folder / "summary.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            summary = {}
        verdicts = [v if isinstance(v, str) else v.get("text", "") for v in
                    summary.get("verdicts") or [] if isinstance(v, str | dict)]
        figures = {}
        if kind == "sensitivity" and summary.get("effects") and not summary.get("assumptions"):
            from simkit.reports.explore import _with_fpa

            # the report's tornado, from the same data (reports.figdata)
            figures["tornado"] = figdata.tornado(_with_fpa(folder, summary))
        return {"kind": kind, "path": rel, "verdicts": verdicts, "game": summary.get("game"),
                "runs": [], "report": report_of(runs, folder, kind), "figures": figures}
    raise SimkitError(f"{rel} is a {kind or 'folder simkit did not write'}; the page shows "
                      "the results of runs, what-ifs, sweeps, sensitivity, balance and "
                      "ladders")


def build_report_for(runs: Path, rel: str) -> str:
    """Build the report of a run (or a what-if's) into RUNS/.workbench/reports/REL, as
    `simkit report` would, and return the page's path."""
    folder = inside(runs, rel)
    kind = folders.kind_of(folder)
    out = runs / ".workbench" / "reports" / folder.relative_to(runs)
    if kind == "run":
        from simkit.reports.build import build_report

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            build_report([folder], out)
    elif kind == "whatif":
        from simkit.reports.build import build_whatif_report

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            build_whatif_report(folder / "base", folder / "changed", out)
    elif kind in ("sweep", "sensitivity", "ladder"):
        from simkit.reports.build import build_report

        build_report([folder], out)
    else:
        raise SimkitError(f"{rel} is a {kind or 'folder simkit did not write'}; reports are "
                          "built here for runs, what-ifs, sweeps, sensitivity and ladders")
    return (out / "index.html").relative_to(runs).as_posix()


def compare_report(runs: Path, paths) -> str:
    """Two (or more) runs side by side: the report `simkit report A B` writes (each run's
    sections and their comparison), built into RUNS/.workbench/reports/compare/A--B."""
    from simkit.reports.build import build_report

    if not isinstance(paths, list) or not 2 <= len(paths) <= 4 or \
            not all(isinstance(p, str) for p in paths):
        raise SimkitError("compare takes two to four run folders")
    folders_ = [run_folder(runs, p) for p in paths]
    name = "--".join(f.relative_to(runs).as_posix().replace("/", "_") for f in folders_)
    out = runs / ".workbench" / "reports" / "compare" / name[:200]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        build_report(folders_, out)
    return (out / "index.html").relative_to(runs).as_posix()


def run_folder(runs: Path, rel: str) -> Path:
    folder = inside(runs, rel)
    if not (folder / "run.json").is_file():
        raise SimkitError(f"{rel} is not a run folder (no run.json)")
    return folder


FILTERS = {
    "all": "every game",
    "comeback": "comebacks: the winner trailed at some point",
    "timeout": "games that hit the turn limit",
    "lost-by": "games seat S lost by N points or fewer",
    "close": "games won by one point or less",
    "seat1-lost": "games seat 1 lost",
    "seat2-lost": "games seat 2 lost",
    "tie": "games with no single winner",
}


def game_list(runs: Path, rel: str, which: str = "all", limit: int = 200, seat=None,
              by=None) -> dict:
    """The games of a run folder, filtered (``FILTERS``), with their outcome columns.
    ``lost-by`` takes ``seat`` (1..P) and ``by`` (points, at least 0): the games that seat
    lost while a winner scored at most ``by`` more than it. ``comeback`` reads the run's
    trace (``reports.feel.winner_trailed``): the games whose winner trailed, by the game's
    progress measure, after some turn (docs/workbench.md)."""
    from simkit.results import read_games, read_meta, seat_column

    if which not in FILTERS:
        from simkit.errors import unknown

        raise unknown("filter", which, FILTERS)
    folder = run_folder(runs, rel)
    meta = read_meta(folder)
    g = read_games(folder, meta)
    n = int(meta["players"])
    score_cols = [seat_column("score", s + 1) for s in range(n)]
    rank_cols = [seat_column("rank", s + 1) for s in range(n)]
    deficit = traced = None
    if which == "timeout":
        g = g[g["end_reason"] == "timeout"]
    elif which == "close":
        top = g[score_cols].max(axis=1)
        second = g[score_cols].apply(lambda r: sorted(r)[-2] if n > 1 else r.iloc[0], axis=1)
        g = g[(g["winner"] > 0) & (top - second <= 1)]
    elif which in ("seat1-lost", "seat2-lost"):
        s = int(which[4])
        if s > n:
            raise SimkitError(f"{rel} is of {n} players")
        g = g[g[seat_column("rank", s)] != 1]
    elif which == "lost-by":
        g = _lost_by(g, rel, n, seat, by, score_cols, rank_cols)
    elif which == "comeback":
        g, deficit, traced = _comebacks(g, meta, folder, rel)
    elif which == "tie":
        g = g[g["winner"] == 0]
    shown = g.head(limit)
    rows = [{"game": int(r["game"]), "seed": str(r["seed"]), "winner": int(r["winner"]),
             "turns": int(r["turns"]), "end": str(r["end_reason"]),
             "strategies": [str(r[seat_column("strategy", s + 1)]) for s in range(n)],
             "scores": [float(r[c]) for c in score_cols],
             **({"deficit": float(deficit[int(r["game"])])} if deficit is not None else {})}
            for _, r in shown.iterrows()]
    return {"path": rel, "filter": which, "filters": FILTERS, "matching": int(len(g)),
            "games": rows, "traced": traced,
            "progress_unit": _progress_unit(meta) if which == "comeback" else None}


def _lost_by(g, rel: str, n: int, seat, by, score_cols, rank_cols):
    """The games seat ``seat`` lost (it has not rank 1, a seat has) by at most ``by``
    points of the game's score: the best winner's score minus the seat's."""
    from simkit.numeric import real, whole

    s = whole(str(seat if seat not in (None, "") else ""), "seat", 1)
    if s > n:
        raise SimkitError(f"seat must be a seat of {rel}: 1 to {n}, not {s}")
    margin = real(str(by if by not in (None, "") else ""), "by", 0)
    ranks = g[rank_cols].to_numpy()
    scores = g[score_cols].to_numpy(dtype=float)
    won = ranks == 1
    best = np.where(won, scores, -np.inf).max(axis=1)
    lost = ~won[:, s - 1] & won.any(axis=1)
    return g[lost & (best - scores[:, s - 1] <= margin)]


def _comebacks(g, meta: dict, folder: Path, rel: str):
    """The games whose winner trailed after some turn, among the traced ones; (games,
    game -> the winner's largest deficit, games traced)."""
    from simkit.reports.feel import winner_trailed

    trace = folder / "trace.parquet"
    if not trace.is_file():
        raise SimkitError(f"{rel} traced no game turn by turn, and a comeback is read from "
                          "every seat's progress after each turn: play it with "
                          "--trace-turns N (the form's Trace turns), then filter")
    t = winner_trailed(g, meta, trace)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import pyarrow.parquet as pq

        traced = int(len(np.unique(pq.read_table(trace, columns=["game"])["game"])))
    back = t[t["trailed"]]
    deficit = dict(zip(back["game"].astype(int), back["deficit"].astype(float), strict=True))
    return g[g["game"].isin(back["game"])], deficit, traced


def _progress_unit(meta: dict) -> str:
    from simkit import registry

    try:
        return str(getattr(registry.get_game(meta["game"]), "progress_unit", "") or "")
    except SimkitError:
        return ""


_SEEN = re.compile(r"\[([^\[\]]*?)\bseen by ((?:P\d+(?:, | and )?)+)\]")
_DECISION = re.compile(r"^\[(\d+)\] (P\d+): (.*)$")


def seat_view(line: str, seat: str | None) -> str:
    """``line`` of a transcript as ``seat`` (``P1``...) saw it: what the game marks as seen
    by other seats only is hidden (the game's own marks, ``[... seen by P1]``)."""
    if seat is None:
        return line

    def hide(m):
        seers = re.findall(r"P\d+", m.group(2))
        if seat in seers:
            return m.group(0)
        return f"[hidden from {seat}: seen by {', '.join(seers)}]"

    out = _SEEN.sub(hide, line)
    if out != line and re.search(r"\[(hand )?hidden from", out) and \
            _SEEN.search(line).group(1).strip() in ("", "hand"):
        # the bracket marks the whole line (a hand): its text is what was hidden
        return f"(hidden from {seat}: {_SEEN.search(line).group(0)[1:-1]})"
    return out


def replay_steps(runs: Path, rel: str, index: int, seat: str | None = None) -> dict:
    """Game ``index`` of a run folder, replayed by ``simkit.replay.replay_recorded`` (what
    `simkit replay --run` prints), as steps: the setup, then each decision with the lines
    it led to; with ``seat``, every line as that seat saw it."""
    from simkit.cli import _folder_models
    from simkit.replay import replay_recorded

    folder = run_folder(runs, rel)
    if seat is not None and not re.fullmatch(r"P\d+", seat):
        raise SimkitError(f"seat {seat!r}: P1, P2, ...")
    r = replay_recorded(folder, index, _folder_models(folder, ()))
    head, steps = [], []
    for line in r.lines[:-1]:
        m = _DECISION.match(line)
        if m:
            steps.append({"decision": int(m.group(1)), "seat": m.group(2),
                          "text": seat_view(m.group(3), seat), "lines": []})
        elif steps:
            steps[-1]["lines"].append(seat_view(line.strip(), seat))
        else:
            head.append(seat_view(line, seat))
    return {"path": rel, "game": index, "seat": seat, "setup": head, "steps": steps,
            "end": r.lines[-1], "seed": str(r.seed), "strategies": list(r.strategies),
            "players": len(r.ranks), "transcript": None if seat else r.lines}


def file_response(runs: Path, rel: str) -> Response:
    """A file of the runs folder (a report's page or figure), never one outside it."""
    path = inside(runs, rel)
    if not path.is_file():
        raise SimkitError(f"{rel} is not a file of the runs folder")
    return FileResponse(path)
