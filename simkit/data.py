"""Game data: every number of a game, where it comes from, and the user's overrides.

A game's ``data.toml`` is a tree of tables. A table with a ``value`` key is a parameter:

    [carrot_cap]
    value = 6
    source = "rulebook"          # or "assumed"
    why = "Take Two Actions: 'A player can only have up to 6 carrots.'"
    min = 0                      # optional bounds for numbers (and list elements)
    max = 24
    choices = [...]              # optional, for strings
    alternatives = [...]         # optional: other readings `sensitivity --assumptions` plays

Its key is its dotted path (``cards.empty``). Overrides (``--set cards.empty=10``) are parsed
as TOML values and checked against the default's type and the bounds.

A table with a ``_fields`` table is a **record list**: the game's cards, tiles, territories
or board spaces, one record each, every record with the same named fields. ``_fields``
declares each field once (its type, bounds or choices, source and why); the records follow,
either named (a table each, ``[cards.boar]``) or numbered (``_rows = [{...}, ...]``, rows
1, 2, ...):

    [cards._fields.strength]
    type = "int"                 # int, float, bool, str, or list (of strings)
    min = 0
    max = 20
    default = 0                  # optional: the value of a record that leaves it out
    source = "assumed"
    why = "Creature strength."

    [cards.boar]
    strength = 4
    health = 4
    source = "assumed"           # optional, for the record: else each field's own
    why = "The big, expensive fighter."

Every field of every record is a parameter of its own, ``cards.boar.strength`` (numbered:
``rabbits.cards.7.colour``), so overrides, run.json and what-if diffs see one key per field.
A record may name other readings of its assumed fields, for ``simkit sensitivity
--assumptions`` (which moves a record list only through these):

    [joining.hyzenthlay]
    trigger = "escape"
    appears = "trigger"
    alternatives = { appears = ["Sandleford", "The Beech Hanger"] }

An override may also replace a whole list (``{"cards": [{"name": "boar", ...}, ...]}``, what
``--cards FILE`` does): its rows may add, drop, reorder and rename records.
"""

from __future__ import annotations

import math
import re
import tomllib
import unicodedata
from dataclasses import dataclass, replace
from dataclasses import field as dc_field
from pathlib import Path
from typing import Any

from simkit.errors import SimkitError, unknown

SOURCES = ("rulebook", "assumed")
FIELD_TYPES = ("int", "float", "bool", "str", "list")
RECORD_KEYS = ("source", "why", "alternatives")
"""Keys of a record that are not fields: where the record's values come from, and other
readings of them (``alternatives``)."""

_NAME_BAD = re.compile(r"[.:\x00-\x1f\x7f]")


@dataclass(frozen=True)
class Field:
    """One field of a record list: its type, bounds or choices, and where it comes from."""

    name: str
    type: str
    source: str
    why: str
    min: float | None = None
    max: float | None = None
    choices: tuple | None = None
    has_default: bool = False
    default: Any = None

    def describe(self) -> str:
        """``int 0..20``, ``str: none, forage``, ``list of: flying, ranged``..."""
        if self.type in ("int", "float") and (self.min is not None or self.max is not None):
            return f"{self.type} {'' if self.min is None else self.min}.." \
                   f"{'' if self.max is None else self.max}"
        if self.choices is not None:
            kind = "list of" if self.type == "list" else "one of"
            return f"{kind}: {', '.join(map(str, self.choices))}"
        return {"list": "list of names", "str": "text"}.get(self.type, self.type)


@dataclass(frozen=True)
class RecordList:
    """A record list's schema: its key (``cards``), its fields in order, whether records
    are named (``cards.boar``) or numbered (``rabbits.cards.7``), and what one is called."""

    key: str
    fields: tuple[Field, ...]
    named: bool
    noun: str = "row"
    plural: str = ""

    @property
    def nouns(self) -> str:
        """The noun's plural: ``_plural`` if the list gives one, else the English rule."""
        n = self.noun
        return self.plural or (n[:-1] + "ies" if n.endswith("y") and n[-2:-1] not in "aeiou"
                               else n + "es" if n.endswith(("s", "x", "ch", "sh")) else n + "s")

    def field(self, name: str) -> Field | None:
        return next((f for f in self.fields if f.name == name), None)

    @property
    def field_names(self) -> list[str]:
        return [f.name for f in self.fields]


@dataclass(frozen=True)
class Param:
    key: str
    default: Any
    value: Any
    source: str
    why: str
    min: float | None = None
    max: float | None = None
    choices: tuple | None = None
    type: str | None = None
    """Set for a record's field (one of FIELD_TYPES); otherwise the default's type rules."""
    records: RecordList | None = dc_field(default=None, compare=False, repr=False)
    record: str | None = None
    field: str | None = None
    alternatives: tuple = dc_field(default=(), compare=False, repr=False)
    """Other readings of an assumed value, named by the data (``alternatives = [...]``):
    what ``simkit sensitivity --assumptions`` plays for a list, a record or a board."""

    @property
    def changed(self) -> bool:
        return self.value != self.default


MAX_INPUT_FILE = 10 * 2**20
"""The largest file a user gives that simkit reads whole (10 MB): a card sheet or an
experiment file is a few kilobytes; a file of millions of rows (or a device such as
/dev/zero) would be read for minutes, or exhaust the memory, before any line is checked."""


def read_input(path: Path, what: str, hint: str) -> str:
    """The text of a file the user gives (``what``: "card file", "experiment file"): a
    regular file of at most ``MAX_INPUT_FILE`` bytes in UTF-8, its line ends as written
    (as ``open(newline="")``: the csv module reads them itself, so a cell's "\r" stays).
    One line naming the problem otherwise; ``hint`` says what a text file should be."""
    path = Path(path)
    limit = f"{MAX_INPUT_FILE // 2**20} MB"
    try:
        if path.is_dir():
            raise SimkitError(f"{what} {path} is a folder")
        if not path.exists():
            raise SimkitError(f"{what} {path} does not exist")
        if not path.is_file():
            raise SimkitError(f"{what} {path} is not a regular file (a device, a pipe or a "
                              f"socket); give a file ({hint})")
        size = path.stat().st_size
        if size > MAX_INPUT_FILE:
            raise SimkitError(f"{what} {path} is {size / 2**20:,.1f} MB; a {what} may be at "
                              f"most {limit}")
        with path.open("rb") as f:
            raw = f.read(MAX_INPUT_FILE + 1)  # bounded, should it grow after the check
        if len(raw) > MAX_INPUT_FILE:
            raise SimkitError(f"{what} {path} is larger than {limit}; a {what} may be at "
                              f"most {limit}")
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise SimkitError(f"{what} {path} is not a text file ({hint})") from None
    except OSError as exc:
        raise SimkitError(f"cannot read {what} {path}: {exc.strerror}") from None


def load_data(path: Path) -> dict[str, Param]:
    """Read a game's data file into ``{key: Param}``, in file order."""
    try:
        tree = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise SimkitError(f"malformed data file {path}: {exc}") from exc
    params: dict[str, Param] = {}
    _collect(tree, "", params, path)
    return params


def _collect(tree: dict, prefix: str, out: dict, path) -> None:
    for name, node in tree.items():
        key = f"{prefix}{name}"
        if not isinstance(node, dict):
            raise SimkitError(f"{path}: {key} must be a table with 'value', 'source' and 'why'")
        if "_fields" in node:
            _collect_list(node, key, out, path)
            continue
        if "value" not in node:
            _collect(node, key + ".", out, path)
            continue
        source = node.get("source")
        if source not in SOURCES:
            raise SimkitError(f"{path}: {key}.source must be one of {', '.join(SOURCES)}")
        if not node.get("why"):
            raise SimkitError(f"{path}: {key} needs a 'why' saying where the value comes from")
        choices = tuple(node["choices"]) if "choices" in node else None
        value = node["value"]
        out[key] = Param(key, value, value, source, node["why"], node.get("min"),
                         node.get("max"), choices)
        check_value(out[key], value)
        if "alternatives" in node:
            out[key] = replace(out[key], alternatives=_alternatives(
                out[key], node["alternatives"], f"{path}: "))


def _alternatives(p: Param, given, where: str) -> tuple:
    """``given`` (a list of values of ``p``'s type) as checked alternatives of ``p``."""
    if not isinstance(given, list) or not given:
        raise SimkitError(f"{where}{p.key}.alternatives must be a list of one or more values")
    out = tuple(check_value(p, v, where) for v in given)
    return tuple(freeze(v) for v in out)


# ---------------------------------------------------------------- record lists

def _read_field(key: str, name: str, spec, path) -> Field:
    where = f"{path}: {key}._fields.{name}"
    if not isinstance(spec, dict):
        raise SimkitError(f"{where} must be a table (type, source, why, ...)")
    extra = set(spec) - {"type", "source", "why", "min", "max", "choices", "default"}
    if extra:
        raise SimkitError(f"{where}: unknown key(s) {', '.join(sorted(extra))}")
    if spec.get("type") not in FIELD_TYPES:
        raise SimkitError(f"{where}.type must be one of {', '.join(FIELD_TYPES)}")
    if spec.get("source") not in SOURCES:
        raise SimkitError(f"{where}.source must be one of {', '.join(SOURCES)}")
    if not spec.get("why"):
        raise SimkitError(f"{where} needs a 'why' saying what the field is and where its "
                          "values come from")
    if name in RECORD_KEYS or _NAME_BAD.search(name) or not name:
        raise SimkitError(f"{where}: {name!r} cannot be a field's name")
    f = Field(name, spec["type"], spec["source"], spec["why"], spec.get("min"),
              spec.get("max"), tuple(spec["choices"]) if "choices" in spec else None)
    if "default" in spec:
        f = replace(f, has_default=True, default=coerce(f, spec["default"]))
    return f


def _collect_list(node: dict, key: str, out: dict, path) -> None:
    fields = node["_fields"]
    if not isinstance(fields, dict) or not fields:
        raise SimkitError(f"{path}: {key}._fields must declare at least one field")
    extra = {k for k in node if k.startswith("_")} - {"_fields", "_rows", "_noun", "_plural"}
    if extra:
        raise SimkitError(f"{path}: {key}: unknown key(s) {', '.join(sorted(extra))}; "
                          "a record list has _fields, _noun, _plural, and _rows or named "
                          "records")
    named = {k: v for k, v in node.items() if not k.startswith("_")}
    rows = node.get("_rows")
    if (rows is None) == (not named):
        raise SimkitError(f"{path}: {key}: give either named records ([{key}.NAME]) or "
                          f"numbered ones ({key}._rows = [...]), not both or neither")
    noun = node.get("_noun", "row")
    rl = RecordList(key, tuple(_read_field(key, n, s, path) for n, s in fields.items()),
                    named=rows is None, noun=str(noun), plural=str(node.get("_plural", "")))
    if rl.named and rl.field("name"):
        raise SimkitError(f"{path}: {key}._fields.name: the records of a named list are "
                          "named by their tables; 'name' cannot be a field")
    if rows is not None:
        if not isinstance(rows, list):
            raise SimkitError(f"{path}: {key}._rows must be a list of tables")
        records = [dict(r) if isinstance(r, dict) else r for r in rows]
    else:
        records = [{"name": n, **r} if isinstance(r, dict) else r for n, r in named.items()]
    for p in record_params(rl, records, {}, f"{path}: "):
        out[p.key] = p


NAME_RULE = ("a name is letters, digits, spaces and - _ ' ( ), starting with a letter or a "
             "digit")
_NAME_MARKS = frozenset(" -_'()")


def _name_char(c: str, first: bool) -> bool:
    """Whether ``c`` may stand in a name: a letter or digit of any script (a combining accent
    after the first), or one of `` -_'()`` after it."""
    kind = unicodedata.category(c)[0]
    return kind in "LN" or not first and (kind == "M" or c in _NAME_MARKS)


def name_problem(name) -> str | None:
    """Why ``name`` cannot name a record, or None when it can. A name becomes part of keys
    (``cards.NAME.strength``, so no '.'), item columns and every file and report that shows
    it: one that a spreadsheet could run (``=cmd|...``) or a page could render as a tag
    (``<img ...>``) is refused where it enters (data.toml, a card file, ``--set``)."""
    if not isinstance(name, str) or not name.strip():
        return f"a name is needed, not {name!r}"
    if name != name.rstrip() or not all(_name_char(c, i == 0) for i, c in enumerate(name)):
        return f"{name!r} cannot be a name: {NAME_RULE}"
    return None


def _record_name(rl: RecordList, i: int, row: dict, where: str) -> str:
    if not rl.named:
        return str(i + 1)
    problem = name_problem(row.get("name"))
    if problem:
        raise SimkitError(f"{where}{rl.key} row {i + 1}: {problem}")
    return row["name"]


def record_params(rl: RecordList, rows, base: dict[str, Param], where: str = "") -> list[Param]:
    """The parameters of a list's ``rows`` (dicts of field values, with ``name`` for a named
    list, optional ``source`` and ``why``), checked field by field. ``base`` holds the
    default parameters: a record of the same name (number) keeps their defaults (so
    ``changed`` says what differs), and their source and why unless the row gives its own."""
    if not isinstance(rows, list | tuple) or not rows:
        raise SimkitError(f"{where}{rl.key} takes a list of one or more {rl.nouns} "
                          "(a table of fields each)")
    out, seen = [], set()
    for i, row in enumerate(rows):
        row = as_row(row)
        if row is None:
            raise SimkitError(f"{where}{rl.key} row {i + 1}: a {rl.noun} is a table of fields")
        name = _record_name(rl, i, row, where)
        rkey = f"{rl.key}.{name}"
        if name in seen:
            raise SimkitError(f"{where}{rkey}: two {rl.nouns} are called {name!r}")
        seen.add(name)
        extra = set(row) - set(rl.field_names) - set(RECORD_KEYS) - ({"name"} if rl.named
                                                                     else set())
        if extra:
            bad = sorted(extra)[0]
            raise SimkitError(f"{where}{rkey}: {unknown('field', bad, rl.field_names)}")
        source = row.get("source") or None
        if source is not None and source not in SOURCES:
            raise SimkitError(f"{where}{rkey}.source must be one of {', '.join(SOURCES)}, "
                              f"not {source!r}")
        why = row.get("why") or None
        if why is not None and not isinstance(why, str):
            raise SimkitError(f"{where}{rkey}.why must be text")
        alts = row.get("alternatives") or {}
        if not isinstance(alts, dict) or set(alts) - set(rl.field_names):
            raise SimkitError(f"{where}{rkey}.alternatives is a table of the record's fields "
                              f"({', '.join(rl.field_names)}), each a list of other values")
        for f in rl.fields:
            key = f"{rkey}.{f.name}"
            old = base.get(key)
            if f.name in row:
                template = Param(key, None, None, "", "", f.min, f.max, f.choices, f.type,
                                 rl, name, f.name)
                value = check_value(template, row[f.name], where)
            elif f.has_default:
                value = f.default
            else:
                raise SimkitError(f"{where}{rkey} lacks its {f.name} ({f.describe()})")
            if old is not None:  # a record of the defaults: its own, unless the row says
                src, text = source or old.source, why or old.why
            else:                # the data file's records, and records an override adds
                src, text = source or (f.source if not base else "assumed"), why or f.why
            alt = () if old is None else old.alternatives
            if f.name in alts:  # checked as the field's own values are
                template = Param(key, None, None, "", "", f.min, f.max, f.choices, f.type,
                                 rl, name, f.name)
                alt = _alternatives(template, alts[f.name], where)
            out.append(Param(key, None if old is None else old.default, value, src, text,
                             f.min, f.max, f.choices, f.type, rl, name, f.name, alt))
    if not base:  # the data file itself: the values are the defaults
        out = [replace(p, default=p.value) for p in out]
    return out


def lists_of(params: dict[str, Param]) -> dict[str, RecordList]:
    """The record lists among ``params``, by key, in file order."""
    out: dict[str, RecordList] = {}
    for p in params.values():
        if p.records is not None and p.records.key not in out:
            out[p.records.key] = p.records
    return out


def table(params: dict[str, Param], key: str) -> list[tuple[str, dict[str, Param]]]:
    """A record list of ``params`` as ``[(record name, {field: Param})]``, in order."""
    rows: dict[str, dict[str, Param]] = {}
    for p in params.values():
        if p.records is not None and p.records.key == key:
            rows.setdefault(p.record, {})[p.field] = p
    return list(rows.items())


def records(values: dict[str, Any], key: str) -> list[tuple[str, dict[str, Any]]]:
    """A record list of the effective ``values`` (``{key: value}``, as ``compile`` gets
    them) as ``[(record name, {field: value})]``, in order: what a game's ``compile_params``
    reads its cards from. A numbered list's names are "1", "2", ..."""
    prefix = key + "."
    rows: dict[str, dict[str, Any]] = {}
    for k, v in values.items():
        if k.startswith(prefix):
            name, dot, f = k[len(prefix):].rpartition(".")
            if dot and name and "." not in name:
                rows.setdefault(name, {})[f] = v
    return list(rows.items())


def fixed_records(values: dict[str, Any], key: str, names, noun: str = "row") -> dict:
    """``{name: {field: value}}`` of a list whose records the kernels know one by one (the
    characters of a game, the kinds of an event deck): every one of ``names`` must be there,
    and no other."""
    rows = dict(records(values, key))
    for name in rows:
        if name not in names:
            raise SimkitError(f"{key}: {unknown(noun, name, names)} (the kernels know each "
                              "by name)")
    missing = [n for n in names if n not in rows]
    if missing:
        raise SimkitError(f"{key} lacks the {noun}(s) {', '.join(missing)}: the kernels take "
                          f"exactly these {len(names)}: {', '.join(names)}")
    return rows


def as_row(row) -> dict | None:
    """A record given as a dict, or frozen (``FrozenRow``) or as JSON wrote it (pairs)."""
    if isinstance(row, dict):
        return row
    if isinstance(row, list | tuple) and all(isinstance(x, list | tuple) and len(x) == 2
                                             and isinstance(x[0], str) for x in row):
        return {k: v for k, v in row}
    return None


class OverrideError(SimkitError):
    """A ``--set`` that names no value or gives one its field refuses: the user's own key,
    never a card file's row."""


class FrozenRow(tuple):
    """A record of a list override as (field, value) pairs: hashable, so a RunSpec holding a
    whole card list can be cached and sent to workers."""


def freeze(value):
    """A hashable copy of an override's value (lists become tuples, records FrozenRows)."""
    if isinstance(value, dict):
        return FrozenRow((k, freeze(v)) for k, v in value.items())
    if isinstance(value, list | tuple):
        return tuple(freeze(v) for v in value)
    return value


def thaw(value):
    """``freeze`` undone, for run.json: records as tables, tuples as lists."""
    if isinstance(value, FrozenRow):
        return {k: thaw(v) for k, v in value}
    if isinstance(value, list | tuple):
        return [thaw(v) for v in value]
    return value


def describe_override(key: str, value) -> str:
    """``key=value`` for people; a whole list replaced is ``cards=(21 rows)``."""
    if isinstance(value, list | tuple) and value and all(as_row(r) is not None
                                                         for r in value):
        return f"{key}=({len(value)} rows)"
    return f"{key}={value}"


# ---------------------------------------------------------------- values and overrides

def parse_value(text: str) -> Any:
    """Parse an override's text as a TOML value; bare words are strings."""
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text


def _type_name(v: Any) -> str:
    return {bool: "true/false", int: "an integer", float: "a finite number", str: "a string",
            list: "a list"}.get(type(v), type(v).__name__)


TYPE_NAMES = {"int": "an integer", "float": "a finite number", "bool": "true or false",
              "str": "text", "list": "a list of names"}


def split_items(text: str, choices) -> list[str]:
    """A list field written as text: items separated by ';' or ',', or by spaces when the
    items are words from a fixed set (``"flying band"``)."""
    if ";" in text or "," in text or choices is None:
        parts = re.split(r"[;,]", text)
    else:
        parts = text.split()
    return [t.strip() for t in parts if t.strip()]


def coerce(f: Field | Param, v: Any) -> Any:
    """``v`` as a value of the field ``f`` (its ``type``, bounds and choices), or a
    ValueError whose text completes a sentence about it ("must be an integer, not 'x'")."""
    t = f.type
    if t == "int":
        if isinstance(v, float) and v.is_integer():
            v = int(v)
        ok = isinstance(v, int) and not isinstance(v, bool)
    elif t == "float":  # finite: a NaN would pass every bound below
        ok = isinstance(v, int | float) and not isinstance(v, bool) and _finite(v)
        v = float(v) if ok else v
    elif t == "bool":
        ok = isinstance(v, bool)
    elif t == "str":
        ok = isinstance(v, str)
    else:
        if isinstance(v, str):
            v = split_items(v, f.choices)
        v = list(v) if isinstance(v, tuple) else v
        ok = isinstance(v, list) and all(isinstance(x, str) and x.strip() for x in v)
    if not ok:
        raise ValueError(f"must be {TYPE_NAMES[t]}, not {v!r}")
    if t in ("int", "float") and (f.min is not None and v < f.min
                                  or f.max is not None and v > f.max):
        lo = "" if f.min is None else f.min
        hi = "" if f.max is None else f.max
        raise ValueError(f"= {v!r} is out of range; allowed {lo}..{hi}")
    if f.choices is not None:
        bad = [x for x in (v if t == "list" else [v]) if x not in f.choices]
        if bad:
            raise ValueError(f"= {bad[0]!r} is not allowed; choices: "
                             f"{', '.join(map(str, f.choices))}")
        if t == "list" and len(set(v)) != len(v):
            raise ValueError(f"names {sorted({x for x in v if v.count(x) > 1})[0]!r} twice")
    return v


def _finite(v: int | float) -> bool:
    try:
        return math.isfinite(v)
    except OverflowError:  # an integer beyond any float
        return False


def check_value(p: Param, v: Any, where: str = "") -> Any:
    """Return ``v`` coerced to ``p``'s type, or raise a SimkitError naming what is allowed."""
    if p.type is not None:
        try:
            return coerce(p, v)
        except ValueError as exc:
            raise SimkitError(f"{where}{p.key} {exc}") from None
    d = p.default
    if isinstance(d, bool):
        ok = isinstance(v, bool)
    elif isinstance(d, int):
        ok = isinstance(v, int) and not isinstance(v, bool)
    elif isinstance(d, float):
        ok = isinstance(v, int | float) and not isinstance(v, bool) and _finite(v)
        v = float(v) if ok else v
    elif isinstance(d, list):
        v = list(v) if isinstance(v, tuple) else v
        ok = isinstance(v, list) and len(v) == len(d)
        if ok:
            items = [check_value(replace(p, default=d[i], choices=None), x)
                     for i, x in enumerate(v)]
            return items
        raise SimkitError(f"{p.key} must be a list of {len(d)} values like {d!r}, not {v!r}")
    else:
        ok = isinstance(v, str)
    if not ok:
        raise SimkitError(f"{p.key} must be {_type_name(d)} (default {d!r}), not {v!r}")
    if p.min is not None and v < p.min or p.max is not None and v > p.max:
        lo = "" if p.min is None else p.min
        hi = "" if p.max is None else p.max
        raise SimkitError(f"{p.key} = {v!r} is out of range; allowed {lo}..{hi}")
    if p.choices is not None and v not in p.choices:
        allowed = ", ".join(map(str, p.choices))
        raise SimkitError(f"{p.key} = {v!r} is not allowed; choices: {allowed}")
    return v


def parse_overrides(pairs) -> dict[str, Any]:
    """``["a.b=3", ...]`` -> ``{"a.b": 3}``; values already parsed are kept as they are."""
    if isinstance(pairs, dict):
        return dict(pairs)
    out = {}
    for pair in pairs or ():
        if "=" not in pair:
            raise SimkitError(f"--set takes KEY=VALUE, not {pair!r}")
        key, text = pair.split("=", 1)
        out[key.strip()] = parse_value(text.strip())
    return out


def replace_list(params: dict[str, Param], rl: RecordList, rows,
                 base: dict[str, Param]) -> dict[str, Param]:
    """``params`` with the list ``rl`` replaced by ``rows`` (in the list's place)."""
    new = record_params(rl, list(rows) if isinstance(rows, list | tuple) else rows, base)
    out: dict[str, Param] = {}
    for key, p in params.items():
        if p.records is not None and p.records.key == rl.key:
            if new:
                out.update((q.key, q) for q in new)
                new = []
            continue
        out[key] = p
    return out


def _unknown_key(params: dict[str, Param], key: str) -> SimkitError:
    """The error for an override of a key that is not there, naming the record or the
    field when the key is in a record list."""
    lists = lists_of(params)
    for lk in sorted(lists, key=len, reverse=True):
        if key == lk or not key.startswith(lk + "."):
            continue
        rl = lists[lk]
        rows = dict(table(params, lk))
        name, _, f = key[len(lk) + 1:].partition(".")
        if name not in rows:
            what = rl.noun if rl.named else f"{rl.noun} number"
            return OverrideError(f"{lk}: {unknown(what, name, rows)}")
        if not f:
            return OverrideError(f"{lk}.{name} is a {rl.noun}: set one of its fields, "
                                 f"{', '.join(f'{lk}.{name}.{x}' for x in rl.field_names)}")
        return OverrideError(f"{lk}.{name}: {unknown('field', f, rl.field_names)}")
    shown = [k for k, p in params.items() if p.records is None]
    shown += [f"{lk}.<{rl.noun.replace(' ', '_') if rl.named else 'number'}>.<field>"
              for lk, rl in lists.items()]
    err = unknown("parameter", key, shown)
    if lists:
        import difflib

        close = difflib.get_close_matches(key, list(params), n=1)
        if close:
            err = unknown("parameter", key, [close[0], *shown])
    return OverrideError(str(err))


def apply_overrides(params: dict[str, Param], overrides: dict[str, Any]) -> dict[str, Param]:
    """A copy of ``params`` with each override checked and applied: first the record lists
    replaced whole, then the single values (which may name records the new lists added)."""
    out = dict(params)
    lists = lists_of(params)
    for key, v in overrides.items():
        if key in lists:
            out = replace_list(out, lists[key], v, params)
    for key, v in overrides.items():
        if key in lists:
            continue
        if key not in out:
            raise _unknown_key(out, key)
        try:
            out[key] = replace(out[key], value=check_value(out[key], v))
        except OverrideError:
            raise
        except SimkitError as exc:
            raise OverrideError(str(exc)) from None
    return out


def values(params: dict[str, Param]) -> dict[str, Any]:
    """``{key: value}`` of the effective parameters."""
    return {k: p.value for k, p in params.items()}


def data_digest(params: dict[str, Param]) -> str:
    """A short digest of the effective values (16 hex digits): two runs whose values are
    equal, whatever overrides gave them, share it. A learnt model records the digest of the
    data it learnt (``docs/learning.md``); run.json records a run's."""
    import hashlib
    import json

    doc = json.dumps(values(params), sort_keys=True, separators=(",", ":"), default=str,
                     ensure_ascii=True)
    return hashlib.sha256(doc.encode()).hexdigest()[:16]
