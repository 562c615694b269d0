"""Numbers a user types: options, budgets, ranges, values in an experiment file or a card
sheet. One place decides what a number is, so every command reads them alike:

- written in ASCII digits only. Python's ``int`` and ``float`` also take other scripts'
  digits (``int("٣")`` is 3) and ``str.isdigit`` passes superscripts (``"²"``) that ``int``
  then refuses with a traceback; a number that does not look like one to every reader
  (a spreadsheet, a shell script, the next person) is refused instead;
- finite: ``nan`` and ``inf`` are refused (a NaN passes every ``lo <= x <= hi`` test);
- within the range the caller gives, which the one-line error names.

Each function takes the text a user typed or a number already parsed (TOML's), and raises
``SimkitError`` with one line naming the problem and the valid range.
"""

from __future__ import annotations

import math
import re

from simkit.errors import SimkitError

DIGITS = re.compile(r"[0-9]+")
"""Plain ASCII digits, no sign: a strategy's budget (``ismcts@400``)."""
WHOLE = re.compile(r"[+-]?[0-9]+(?:_[0-9]+)*")
"""A whole number in ASCII digits (``_`` between digits, as Python and TOML allow it)."""
REAL = re.compile(r"[+-]?(?:[0-9]+(?:_[0-9]+)*(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
"""A decimal number in ASCII digits, with an optional exponent (``1.5``, ``.5``, ``2e3``)."""


def _show(x) -> str:
    return f"{x:,}" if isinstance(x, int) else f"{x:g}"


def describe(kind: str, lo=None, hi=None, lo_open: bool = False, hi_open: bool = False) -> str:
    """``kind`` with its range in words: ``a whole number from 1 to 512``, ``a number more
    than 0 and less than 50``, ``a whole number of at least 2``."""
    low = None if lo is None else f"{'more than' if lo_open else 'at least'} {_show(lo)}"
    high = None if hi is None else f"{'less than' if hi_open else 'at most'} {_show(hi)}"
    if low and high:
        if not lo_open and not hi_open:
            return f"{kind} from {_show(lo)} to {_show(hi)}"
        return f"{kind} {low} and {high}"
    if low or high:
        return f"{kind} {'of ' if not (lo_open or hi_open) else ''}{low or high}"
    return kind


def _text(value) -> str:
    """What the user gave, short enough for one line (a 400-digit number is cut)."""
    text = value.strip() if isinstance(value, str) else repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def whole(value, what: str, lo: int | None = None, hi: int | None = None) -> int:
    """``value`` (ASCII digits, or an int) as an int from ``lo`` to ``hi`` (either may be
    None: no bound)."""
    if isinstance(value, str) and WHOLE.fullmatch(value.strip()):
        n = int(value.strip())
    elif isinstance(value, int) and not isinstance(value, bool):
        n = value
    elif isinstance(value, float) and value.is_integer():  # 2.0 from a TOML file
        n = int(value)
    else:
        n = None
    if n is None or lo is not None and n < lo or hi is not None and n > hi:
        raise SimkitError(f"{what} must be {describe('a whole number', lo, hi)}, "
                          f"not {_text(value)!r}")
    return n


def real(value, what: str, lo: float | None = None, hi: float | None = None,
         lo_open: bool = False, hi_open: bool = False) -> float:
    """``value`` (ASCII decimal text, or a number) as a finite float within ``lo``..``hi``
    (``lo_open``/``hi_open``: the bound itself excluded)."""
    x = None
    if isinstance(value, str) and REAL.fullmatch(value.strip()):
        x = float(value.strip())
    elif isinstance(value, int | float) and not isinstance(value, bool):
        try:
            x = float(value)
        except OverflowError:  # an integer beyond any float
            x = None
    if x is None or not math.isfinite(x) or (
            lo is not None and (x <= lo if lo_open else x < lo)) or (
            hi is not None and (x >= hi if hi_open else x > hi)):
        raise SimkitError(f"{what} must be "
                          f"{describe('a finite number', lo, hi, lo_open, hi_open)}, "
                          f"not {_text(value)!r}")
    return x


def games_or_all(value, what: str) -> int | str:
    """A number of games (ASCII digits, 0 or more) or ``"all"``: what ``--trace-turns`` and
    ``--kingmaking`` take."""
    if isinstance(value, str) and value.strip().lower() == "all":
        return "all"
    try:
        return whole(value, what, 0)
    except SimkitError:
        raise SimkitError(f"{what} must be a number of games or 'all' (0 or more, in digits "
                          f"0-9), not {_text(value)!r}") from None
