"""Card lists as spreadsheets: a game's record lists (``simkit.data``) written to and read
from CSV files, and shown as tables.

A list's CSV has a header row and one row per record: ``name`` first for a named list
(``cards.csv``: one row per card kind), then one column per field in the schema's order,
then ``source`` and ``why``. Numbers are written plainly, true/false as ``true``/``false``,
a list field as its items separated by spaces when they are words from a fixed set
(``flying band``), else by ``;``. Reading it back checks every cell against its field and
names the file, the row, the column and what is allowed; an empty cell takes the field's
default where it has one; ``source`` and ``why`` may be left empty (a known record keeps its
own, a new one is ``assumed``). A text cell that a spreadsheet would run as a formula (it
starts with ``= + - @``, a tab or a carriage return) is written with a leading apostrophe,
and read back without it (``simkit.escape``), so export then import changes nothing.

``read_card_files`` is the one function that turns ``--cards`` arguments into overrides: a
``{list key: rows}`` dict that ``simkit.data.apply_overrides`` applies, and that a RunSpec
and run.json carry, so a run made from a spreadsheet is reproduced without it.
"""

from __future__ import annotations

import csv
import io
import math
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from simkit import data, numeric
from simkit.data import Field, Param, RecordList
from simkit.errors import SimkitError, unknown
from simkit.escape import csv_cell, csv_uncell


def show(v: Any, f: Field | None = None) -> str:
    """A value as a cell: what ``parse_cell`` reads back as the same value."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, list | tuple):
        sep = " " if f is not None and f.choices is not None else "; "
        return sep.join(map(str, v))
    if v is None:
        return ""
    return str(v)


def own_source(rows: dict[str, Param], rl: RecordList) -> tuple[str, str]:
    """A record's own source and why: each is the one all its fields share, when that is
    not simply each field's own (a record that says nothing of itself has neither)."""
    out = []
    for attr in ("source", "why"):
        seen = {getattr(p, attr) for p in rows.values()}
        mine = seen.pop() if len(seen) == 1 else ""
        if mine and all(getattr(rl.field(f), attr) == getattr(p, attr)
                        for f, p in rows.items()):
            mine = ""
        out.append(mine)
    return out[0], out[1]


def columns(rl: RecordList) -> list[str]:
    return (["name"] if rl.named else []) + rl.field_names + ["source", "why"]


def cell(v: Any, f: Field | None = None) -> str:
    """A value as a cell of a card file: ``show``'s text, a text cell made safe for a
    spreadsheet (``escape.csv_cell``: ``=x`` is written ``'=x``); numbers and true/false as
    they are, so ``-1`` stays a number."""
    text = show(v, f)
    return text if f is not None and f.type in ("int", "float", "bool") else csv_cell(text)


def csv_text(params: dict[str, Param], key: str) -> str:
    """The list ``key`` of ``params`` as CSV text."""
    rl = data.lists_of(params)[key]
    rows = [[csv_cell(c) for c in columns(rl)]]
    for name, row in data.table(params, key):
        src, why = own_source(row, rl)
        rows.append(([cell(name)] if rl.named else [])
                    + [cell(row[f.name].value, f) for f in rl.fields] + [cell(src), cell(why)])
    # the csv module quotes a cell holding a line end of its own terminator only: a text with
    # a carriage return needs "\r\n" lines to come back whole
    end = "\r\n" if any("\r" in c for r in rows for c in r) else "\n"
    buf = io.StringIO()
    csv.writer(buf, lineterminator=end).writerows(rows)
    return buf.getvalue()


# ---------------------------------------------------------------- names for transcripts

_NAMES: dict[tuple[int, str], list[str]] = {}


def remember_names(array, key: str, names: list[str]) -> None:
    """Keep the names of list ``key``'s records beside a compiled ``array`` (while it
    lives): the kernels read numbers only; a transcript names the records of the data the
    array came from, so a card added from a spreadsheet is told by its own name."""
    import weakref

    _NAMES[(id(array), key)] = list(names)
    weakref.finalize(array, _NAMES.pop, (id(array), key), None)


def names_of(array, key: str, default: list[str]) -> list[str]:
    """The names ``remember_names`` kept for ``array``, or ``default`` (an array compiled
    elsewhere: a copy, or one sent from another process)."""
    return _NAMES.get((id(array), key), default)


# ---------------------------------------------------------------- reading

TRUE, FALSE = {"true", "yes", "1"}, {"false", "no", "0"}


def parse_cell(f: Field, text: str) -> Any:
    """A cell's text as a value of field ``f``, or a ValueError saying why not."""
    t = text.strip()
    if t == "":
        if f.has_default:
            return f.default
        raise ValueError(f"is empty; it needs {data.TYPE_NAMES[f.type]} ({f.describe()})")
    if f.type == "int":  # digits 0-9 only (see simkit.numeric); 3.0 is 3
        if re.fullmatch(r"[+-]?[0-9]+\.0*", t):
            v = float(t)
        elif numeric.WHOLE.fullmatch(t):
            v = int(t)
        else:
            raise ValueError(f"must be an integer, not {t!r}")
    elif f.type == "float":
        if not numeric.REAL.fullmatch(t) or not math.isfinite(v := float(t)):
            raise ValueError(f"must be a finite number, not {t!r}")
    elif f.type == "bool":
        if t.lower() not in TRUE | FALSE:
            raise ValueError(f"must be true or false, not {t!r}")
        v = t.lower() in TRUE
    elif f.type == "list":
        v = data.split_items(t, f.choices)
    else:
        v = t
    return data.coerce(f, v)


@dataclass
class Origin:
    """Where a list override came from: its file, and each record's row there."""

    path: str
    rows: dict[str, int] = field(default_factory=dict)


def read_csv(path: Path, rl: RecordList) -> tuple[list[dict], Origin]:
    """The rows of a list's CSV file, every cell checked; a SimkitError naming the file, the
    row, the column and what is allowed otherwise."""
    text = data.read_input(path, "card file", "save the sheet as CSV, UTF-8")
    return read_csv_text(text, path, rl)


def read_csv_text(text: str, path, rl: RecordList) -> tuple[list[dict], Origin]:
    """``read_csv`` of a card file's text (``path`` names it in the messages): the
    workbench's grid checks a list it edits as the card file it saves."""
    try:
        # every cell as it was before export made it safe for a spreadsheet ('=x -> =x)
        table = [[csv_uncell(c) for c in r] for r in csv.reader(io.StringIO(text))]
    except csv.Error as exc:
        raise SimkitError(f"{path}: not a readable CSV file ({exc})") from None
    table = [r for r in table if any(c.strip() for c in r)]
    if not table:
        raise SimkitError(f"{path} is empty: it needs a header row ({', '.join(columns(rl))})")
    header = [h.strip() for h in table[0]]
    valid = columns(rl)
    for h in header:
        if h not in valid:
            raise SimkitError(f"{path}: {unknown('column', h or '(empty)', valid)} (the "
                              f"columns of {rl.key})")
    dup = [h for h in header if header.count(h) > 1]
    if dup:
        raise SimkitError(f"{path}: the column {dup[0]!r} is there twice")
    need = [c for c in valid if c not in ("source", "why")]
    missing = [c for c in need if c not in header]
    if missing:
        raise SimkitError(f"{path}: the column {missing[0]!r} is missing; the columns of "
                          f"{rl.key}: {', '.join(valid)}")
    if len(table) < 2:
        raise SimkitError(f"{path} has no rows: {rl.key} needs at least one {rl.noun}")
    rows, origin = [], Origin(str(path))
    for i, cells in enumerate(table[1:], 1):
        if len(cells) > len(header) and any(c.strip() for c in cells[len(header):]):
            raise SimkitError(f"{path}, row {i}: more cells than columns ({len(header)})")
        cell = dict(zip(header, cells + [""] * (len(header) - len(cells)), strict=True))
        name = cell.get("name", "").strip() if rl.named else str(i)
        label = f"{path}, row {i}" + (f" ({name})" if rl.named and name else "")
        if rl.named and not name:
            raise SimkitError(f"{label}, column name: every {rl.noun} needs a name")
        if rl.named and name in origin.rows:
            raise SimkitError(f"{label}, column name: {name!r} is already row "
                              f"{origin.rows[name]}; each {rl.noun} is one row")
        origin.rows[name] = i
        row: dict[str, Any] = {"name": name} if rl.named else {}
        for f in rl.fields:
            try:
                row[f.name] = parse_cell(f, cell[f.name])
            except ValueError as exc:
                raise SimkitError(f"{label}, column {f.name} {exc}") from None
        src = cell.get("source", "").strip()
        if src and src not in data.SOURCES:
            raise SimkitError(f"{label}, column source must be one of "
                              f"{', '.join(data.SOURCES)}, not {src!r}")
        if src:
            row["source"] = src
        if cell.get("why", "").strip():
            row["why"] = cell["why"].strip()
        problem = data.name_problem(name) if rl.named else None
        if problem:
            raise SimkitError(f"{label}, column name: {problem}")
        rows.append(row)
    return rows, origin


def list_for(path: Path, lists: dict[str, RecordList], game: str) -> str:
    """The list a card file replaces: the one its name ends with (``cards.csv``,
    ``wotw.day_cards.csv``), or the game's only list."""
    parts = Path(path).name.split(".")[:-1]
    for key in sorted(lists, key=len, reverse=True):
        k = key.split(".")
        if parts[-len(k):] == k:
            return key
    if len(lists) == 1:
        return next(iter(lists))
    raise SimkitError(f"cannot tell which of {game}'s lists {path} replaces: name the file "
                      f"after one ({', '.join(k + '.csv' for k in lists)}) or write "
                      f"--cards LIST=FILE")


def _files(arg: str, lists: dict[str, RecordList], game: str,
           base: Path | None) -> Iterator[tuple[str, Path]]:
    key, eq, rest = arg.partition("=")
    if eq and key in lists:
        path = Path(rest)
        yield key, path if base is None or path.is_absolute() else base / path
        return
    if eq and not Path(arg).exists():
        raise unknown(f"list of {game}", key, lists)
    path = Path(arg) if base is None or Path(arg).is_absolute() else base / arg
    if path.suffix.lower() in (".xlsx", ".xls", ".ods"):
        raise SimkitError(f"{path}: simkit reads card lists from CSV files; save the sheet "
                          "as CSV (one file per list, UTF-8) and give that")
    if path.is_dir():
        found = sorted(path.glob("*.csv"))
        if not found:
            raise SimkitError(f"card folder {path} holds no .csv files")
        for p in found:
            yield list_for(p, lists, game), p
        return
    if not path.exists():
        raise SimkitError(f"card file {path} does not exist")
    if path.suffix.lower() != ".csv":
        raise SimkitError(f"card file {path} must be a .csv file")
    yield list_for(path, lists, game), path


def read_card_files(game: str, args, base: Path | None = None
                    ) -> tuple[dict[str, list[dict]], dict[str, Origin]]:
    """``--cards`` arguments (``FILE``, ``LIST=FILE`` or a folder of LIST.csv files; relative
    to ``base`` when given) -> (overrides ``{list key: rows}``, where each came from). The
    one loader of card files: ``run``, ``whatif``, ``rules``, ``replay``, experiment files
    (and a later ``sweep``) call it, then pass the overrides on like ``--set``'s."""
    from simkit import registry

    spec = registry.get_game(game)
    lists = data.lists_of(spec.data)
    if not lists and args:
        raise SimkitError(f"{game} has no card lists to replace")
    over: dict[str, list[dict]] = {}
    origins: dict[str, Origin] = {}
    for arg in args or ():
        for key, path in _files(str(arg), lists, game, base):
            if key in over:
                raise SimkitError(f"{path} replaces {key}, which {origins[key].path} "
                                  "already replaces")
            over[key], origins[key] = read_csv(path, lists[key])
    return over, origins


_KEY = re.compile(r"[^\s:,;'\"()]+")


def explain(message: str, origins: dict[str, Origin]) -> str:
    """A game's error about data that came from a card file, said in the file's terms:
    ``cards.new.ability: ...`` -> ``cards.csv, row 22 (new), column ability: ...``."""
    if not origins:
        return message
    for m in _KEY.finditer(message):
        token = m.group().rstrip(".")
        for key, origin in sorted(origins.items(), key=lambda kv: -len(kv[0])):
            if token == key:
                return f"{origin.path}: {message}"
            if not token.startswith(key + "."):
                continue
            name, _, f = token[len(key) + 1:].partition(".")
            if name in origin.rows:
                rest = message[m.end():].lstrip(":").lstrip()
                head = message[:m.start()]
                label = f"{origin.path}, row {origin.rows[name]}"
                if name != str(origin.rows[name]):
                    label += f" ({name})"
                label += f", column {f}" if f else ""
                return f"{head}{label}: {rest}" if head.strip() == "" else \
                    f"{label}: {message}"
    return message


@contextmanager
def explained(origins: dict[str, Origin]):
    """Re-raise a SimkitError about data from a card file in the file's terms."""
    try:
        yield
    except data.OverrideError:
        raise
    except SimkitError as exc:
        text = explain(str(exc), origins)
        if text == str(exc):
            raise
        raise SimkitError(text) from exc


# ---------------------------------------------------------------- writing and showing

def export(params: dict[str, Param], game: str, out: Path, only: str | None = None,
           overwrite: bool = False) -> list[Path]:
    """Write the lists of ``params`` as CSV: ``out`` ending in .csv is that one file (the
    game's only list, or ``only``); otherwise a folder with one LIST.csv per list. Nothing
    is written when anything would be refused."""
    from simkit import folders

    lists = data.lists_of(params)
    if not lists:
        raise SimkitError(f"{game} has no card lists")
    if only is not None and only not in lists:
        raise unknown(f"list of {game}", only, lists)
    keys = [only] if only else list(lists)
    out = Path(out)
    if out.suffix.lower() == ".csv":
        if len(keys) != 1:
            raise SimkitError(f"{game} has {len(keys)} lists ({', '.join(keys)}): give "
                              "--list NAME to write one file, or a folder to write them all")
        if out.is_dir():
            raise SimkitError(f"{out} is a folder")
        folders.check_writable(out, "--export")
        _export_file(out, csv_text(params, keys[0]), overwrite)
        return [out]
    if out.suffix:
        raise SimkitError(f"--export takes a .csv file or a folder, not {out}")
    folders.check_output(out, "cards", overwrite, option="--export")
    texts = {k: csv_text(params, k) for k in keys}
    with folders.writing(out, "cards", overwrite, option="--export") as tmp:
        for k, text in texts.items():
            (tmp / f"{k}.csv").write_text(text, encoding="utf-8")
    return [out / f"{k}.csv" for k in keys]


def _export_file(out: Path, text: str, overwrite: bool) -> None:
    """Write one card file whole or not at all, refusing one that exists (checked again
    under the lock, so of two exports at once the second is refused) unless ``overwrite``."""
    from simkit import folders

    def check() -> None:
        if out.exists() and not overwrite:
            raise SimkitError(f"{out} exists; give --overwrite to replace it")

    check()
    lock = None
    try:
        lock = folders.OutputLock(out, option="--export")
        check()
        folders.write_text(out, text)
    except OSError as exc:
        if folders.disk_full(exc):
            raise folders.no_space(out) from exc
        raise
    finally:
        if lock is not None:
            lock.release()


def table_lines(params: dict[str, Param], key: str, width: int = 40) -> list[str]:
    """The list ``key`` as a text table: a row per record, a column per field, a ``*`` on
    every cell that differs from data.toml (a record data.toml lacks is all new: ``+``)."""
    rl = data.lists_of(params)[key]
    rows = data.table(params, key)
    head = [rl.noun] + rl.field_names
    body = []
    for name, row in rows:
        new = all(p.default is None for p in row.values())
        cells = [name + (" +" if new else "")]
        for f in rl.fields:
            p = row[f.name]
            text = show(p.value, f)
            if len(text) > width:
                text = text[:width - 3] + "..."
            cells.append(text + ("*" if p.changed and not new else ""))
        body.append(cells)
    widths = [max(len(r[i]) for r in [head, *body]) for i in range(len(head))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(head, widths, strict=True)).rstrip()]
    for r in body:
        lines.append("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip())
    return lines


def removed(params: dict[str, Param], defaults: dict[str, Param], key: str) -> list[str]:
    """The records of ``defaults``' list ``key`` that ``params`` no longer has."""
    now = {name for name, _ in data.table(params, key)}
    return [name for name, _ in data.table(defaults, key) if name not in now]


def field_lines(rl: RecordList) -> list[str]:
    """The schema of a list: each field's type and bounds, source and why."""
    w = max(len(f.name) for f in rl.fields)
    out = []
    for f in rl.fields:
        default = f" (default {show(f.default, f) or 'empty'})" if f.has_default else ""
        out.append(f"  {f.name:{w}}  {f.describe()}{default}; {f.source}: {f.why}")
    return out
