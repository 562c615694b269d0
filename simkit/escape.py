"""User-given text made inert where simkit writes it for another program to open: a cell of
a CSV file a spreadsheet will read, a line of Markdown a viewer will render. (HTML takes
``html.escape``; every report writer goes through ``simkit.reports.build.Document``.)

Spreadsheets run a cell that starts with ``= + - @`` (and a tab or carriage return before
one) as a formula: ``=cmd|' /C calc'!A0``. ``csv_cell`` writes such a text cell with a
leading apostrophe, which spreadsheets read as "this is text" and hide; ``csv_uncell`` (what
``--cards`` reads every cell through) takes exactly that apostrophe off again, so export then
import gives back the same text. Only text is escaped: a number (``-1``) is written as it is,
so a spreadsheet still sees a number, and a cell whose apostrophe was added by hand
(``'-1``) still reads as -1.
"""

from __future__ import annotations

import re

import pandas as pd

_FORMULA = re.compile(r"'*[=+\-@\t\r]")
"""Text a spreadsheet would run, or that would look like it once its apostrophe were taken:
a text cell written as ``'-x`` must come back as ``'-x``, not ``-x``."""


def csv_cell(text: str) -> str:
    """A text cell as a spreadsheet must be given it: with one more leading apostrophe when it
    starts (after any apostrophes) with ``= + - @``, a tab or a carriage return."""
    return "'" + text if _FORMULA.match(text) else text


def csv_uncell(text: str) -> str:
    """``csv_cell`` undone: one leading apostrophe off a cell that ``csv_cell`` would have
    given one; any other cell as it is."""
    return text[1:] if text.startswith("'") and _FORMULA.match(text, 1) else text


def csv_frame(table: pd.DataFrame) -> pd.DataFrame:
    """``table`` with every text cell and every column name through ``csv_cell``, for
    ``to_csv``; numeric columns untouched (a score of -1 stays a number). ``table`` itself
    when nothing needs it (no copy of a large items table), else a shallow copy."""
    names = [csv_cell(c) if isinstance(c, str) else c for c in table.columns]
    changed = {}
    for i in range(table.shape[1]):
        s = table.iloc[:, i]
        if isinstance(s.dtype, pd.CategoricalDtype):
            cats = list(s.cat.categories)
            if any(isinstance(c, str) and _FORMULA.match(c) for c in cats):
                changed[i] = s.cat.rename_categories(
                    [csv_cell(c) if isinstance(c, str) else c for c in cats])
        elif s.dtype == object or pd.api.types.is_string_dtype(s.dtype):
            safe = s.map(lambda v: csv_cell(v) if isinstance(v, str) else v)
            if not safe.equals(s):
                changed[i] = safe
    if names == list(table.columns) and not changed:
        return table
    out = table.copy(deep=False)
    out.columns = names
    for i, s in changed.items():
        out.isetitem(i, s)
    return out


# ---------------------------------------------------------------- Markdown

_MD_ALWAYS = re.compile(r"[\\`*|~$]")
_MD_TAG = re.compile(r"<(?=[A-Za-z/!?])")
_MD_LINK = re.compile(r"\](?=[(\[])")
_MD_UNDERSCORE = re.compile(r"(?<![0-9A-Za-z])_|_(?![0-9A-Za-z])")
_MD_BLOCK = re.compile(r"^([#>+=\-\[]|\d+(?=[.)]))")


def markdown(text, line_start: bool = True) -> str:
    """``text`` as literal Markdown: no raw HTML (``<img ...>`` becomes ``&lt;img ...>``),
    no link or image (``](`` is broken), no emphasis, code span, math or table cell break,
    and one line, its ends stripped (as a renderer would). ``line_start``: the text begins a
    line, so a leading ``#``, ``-``, ``>``, ``1.`` would start a heading, list or quote and
    ``[x]: url`` would define a link; escape it (not needed inside a table cell).

    Escapes only what could take effect, so ordinary text (``[12.3%, 14.5%]``, ``p < 0.01``,
    ``mouse_militia``) reads the same in the file as rendered."""
    t = re.sub(r"\r\n|\r|\n", " ", str(text)).strip().replace("&", "&amp;")
    t = _MD_ALWAYS.sub(lambda m: "\\" + m.group(), t)
    t = _MD_TAG.sub("&lt;", t)
    t = _MD_LINK.sub(r"\\]", t)
    t = _MD_UNDERSCORE.sub(r"\\_", t)
    if line_start:
        t = _MD_BLOCK.sub(lambda m: m.group() + "\\" if m.group().isdigit()
                          else "\\" + m.group(), t, count=1)
    return t


def markdown_fence(text: str) -> str:
    """A fence for a code block holding ``text``: longer than any run of backticks in it,
    so the text cannot close the block and go on as Markdown."""
    runs = [len(r) for r in re.findall(r"`+", text)]
    return "`" * max(3, max(runs, default=0) + 1)
