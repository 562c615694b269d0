"""Write a report folder: ``index.html`` (self-contained: figures embedded as base64 PNG,
inline CSS), ``summary.md`` (the same tables in Markdown, figures linked) and the PNG figures.

The folder is built under a temporary name next to ``out`` and renamed into place when
complete, so a failed build leaves no ``out`` (and an existing report stays as it was).
Reports only read run folders; they never run games.
"""

from __future__ import annotations

import base64
import html
import io
import math
import re
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import quote

import numpy as np
import pandas as pd
from simkit.reports import analysis as A
from simkit.reports import figures as F
from simkit.reports import headline as H
from simkit.reports import pages as P
from simkit.reports import stats as st
from simkit.reports import summary as S
from simkit.reports import verdict as V
from simkit.reports.ladder import ladder_section

from simkit import folders
from simkit.data import describe_override
from simkit.errors import SimkitError
from simkit.escape import markdown, markdown_fence
from simkit.results import check_run, read_games

REQUIRED_COLUMNS = ("game", "players", "rank_s1", "turns")


# ---------------------------------------------------------------------------------------------
# reading runs


@dataclass
class Run:
    """One run folder, read for reporting: the games table in memory, items left on disk."""

    folder: Path
    games: pd.DataFrame
    meta: dict
    items_path: Path | None
    warnings: list[str] = field(default_factory=list)

    @property
    def trace_path(self) -> Path | None:
        """trace.parquet, for a traced run (``--trace-turns``); else None."""
        path = self.folder / "trace.parquet"
        return path if path.is_file() else None

    @property
    def decisions_path(self) -> Path | None:
        """decisions.parquet, for a run that logged decisions (``--log-decisions``)."""
        path = self.folder / "decisions.parquet"
        return path if path.is_file() else None

    @property
    def label(self) -> str:
        m = self.meta
        text = f"{m.get('game', '?')}, {m.get('players', '?')} players"
        strategies = list(dict.fromkeys(m.get("strategies") or []))
        if strategies:
            text += ", " + " vs ".join(strategies)
        over = m.get("overrides") or {}
        if over:
            text += ", " + ", ".join(describe_override(k, v) for k, v in over.items())
        return text


def load_run(folder: Path) -> Run:
    """Read a run folder (of any schema version; see ``simkit.results``); ``SimkitError``
    when it is not one. An incomplete run (stopped by Ctrl-C) is read with a warning, which
    the report shows."""
    folder = Path(folder)
    meta = check_run(folder)  # run.json and every table's footer, before any is read
    games = read_games(folder, meta)
    missing = [c for c in REQUIRED_COLUMNS if c not in games.columns]
    if missing:
        raise SimkitError(f"{folder / 'games.parquet'} is not a simkit games table "
                          f"(missing {', '.join(missing)})")
    if len(games) == 0:
        raise SimkitError(f"{folder} holds no finished games; there is nothing to report")
    notes = []
    if not meta.get("complete", True):
        asked = meta.get("games")
        asked = f"{asked:,}" if isinstance(asked, int) else "?"
        note = (f"incomplete run: {len(games):,} of {asked} games were played before it "
                "was stopped; the statistics cover only those games")
        notes.append(note)
        warnings.warn(f"{folder}: {note}", stacklevel=2)
    items = folder / "items.parquet"
    if not items.is_file():
        notes.append("no items.parquet: item value is not shown")
        items = None
    from simkit.checks import item_meta, read_checks

    meta = {**meta, **item_meta(meta)}  # a run made before choice_columns, read as today's
    checks = read_checks(folder)  # --check-cards: the verdicts say what removing a card did
    if checks is not None:
        meta = {**meta, "card_checks": checks}
    return Run(folder, games, meta, items, notes)


# ---------------------------------------------------------------------------------------------
# formatting tables


MISSING = "\u2014"
"""What a cell shows where there is no figure (an event that occurred in every seat-game or
in none has no win rate without it): a dash, never ``nan``."""


def _is_nan(x) -> bool:
    return x is None or (isinstance(x, float | np.floating) and math.isnan(x))


def pct(x, digits: int = 1) -> str:
    return MISSING if _is_nan(x) else f"{x:.{digits}%}"


def points(x, digits: int = 2) -> str:
    """A signed difference of rates in percentage points."""
    return MISSING if _is_nan(x) else f"{x * 100:+.{digits}f} pp"


def num(x, digits: int = 2) -> str:
    if _is_nan(x):
        return MISSING
    if isinstance(x, int | np.integer) or float(x).is_integer() and abs(x) >= 1000:
        return f"{int(x):,}"
    return f"{x:,.{digits}f}"


def pvalue(p) -> str:
    return MISSING if _is_nan(p) else st.p_text(p)


def interval(lo, hi, fmt: Callable = pct) -> str:
    if _is_nan(lo) or _is_nan(hi):
        return MISSING
    return f"[{fmt(lo)}, {fmt(hi)}]"


def _ci_col(t: pd.DataFrame, lo: str, hi: str, fmt: Callable = pct) -> list[str]:
    return [interval(a, b, fmt) for a, b in zip(t[lo], t[hi], strict=True)]


def seat_table(t: pd.DataFrame) -> pd.DataFrame:
    """``analysis.seat_outcomes`` for people."""
    return pd.DataFrame({
        "players": t["players"].astype(str), "seat": t["name"].astype(str),
        "games": [f"{n:,}" for n in t["games"]],
        "wins": [pct(x) for x in t["win_rate"]], "95% CI": _ci_col(t, "win_low", "win_high"),
        "ties": [pct(x) for x in t["tie_rate"]], "losses": [pct(x) for x in t["loss_rate"]],
        "score share": [pct(x) for x in t["score_share"]],
        "advantage": [points(x) for x in t["advantage"]],
        "advantage 95% CI": _ci_col(t, "adv_low", "adv_high", points)})


def team_table(t: pd.DataFrame) -> pd.DataFrame:
    """``analysis.team_outcomes`` for people."""
    return pd.DataFrame({
        "players": t["players"].astype(str),
        "team": [f"team {a} (seats {b})" for a, b in zip(t["team"], t["seats"], strict=True)],
        "games": [f"{n:,}" for n in t["games"]],
        "wins": [pct(x) for x in t["win_rate"]], "95% CI": _ci_col(t, "win_low", "win_high"),
        "ties": [pct(x) for x in t["tie_rate"]], "losses": [pct(x) for x in t["loss_rate"]],
        "score share": [pct(x) for x in t["score_share"]]})


def strategy_table(t: pd.DataFrame) -> pd.DataFrame:
    """``analysis.strategy_outcomes`` for people."""
    return pd.DataFrame({
        "players": t["players"].astype(str), "strategy": t["strategy"].astype(str),
        "seat": t["seat"].astype(str),
        "seat-games": [f"{n:,}" for n in t["seat_games"]],
        "wins": [pct(x) for x in t["win_rate"]], "95% CI": _ci_col(t, "win_low", "win_high"),
        "ties": [pct(x) for x in t["tie_rate"]], "losses": [pct(x) for x in t["loss_rate"]],
        "score share": [pct(x) for x in t["score_share"]],
        "share 95% CI": _ci_col(t, "share_low", "share_high")})


def fpa_table(t: pd.DataFrame) -> pd.DataFrame:
    """``analysis.first_player_advantage`` for people."""
    return pd.DataFrame({
        "players": t["players"].astype(str), "games": [f"{n:,}" for n in t["games"]],
        "seat 1 wins": [pct(x) for x in t["seat1_win_rate"]],
        "seat 1 score share": [pct(x) for x in t["seat1_score_share"]],
        "mean share of all seats": [pct(x) for x in t["fair_share"]],
        "first-player advantage": [points(x) for x in t["advantage"]],
        "95% CI": _ci_col(t, "ci_low", "ci_high", points),
        "p-value": [pvalue(p) for p in t["p_value"]],
        "first wins - second wins": [points(x) for x in t["first_minus_second"]],
        "95% CI ": _ci_col(t, "fms_low", "fms_high", points)})


def scores_table(t: pd.DataFrame) -> pd.DataFrame:
    """``analysis.scores`` for people."""
    return pd.DataFrame({
        "players": t["players"].astype(str), "seat": t["name"].astype(str),
        "mean score": [num(x) for x in t["mean_score"]],
        "95% CI": _ci_col(t, "score_low", "score_high", num),
        "games won": [f"{n:,}" for n in t["wins"]],
        "margin when it won": [num(x) for x in t["mean_margin"]],
        "margin 95% CI": _ci_col(t, "margin_low", "margin_high", num)})


def endings_table(t: pd.DataFrame) -> pd.DataFrame:
    return pd.DataFrame({
        "players": t["players"].astype(str), "kind": t["kind"], "name": t["name"],
        "games": [f"{n:,}" for n in t["count"]], "share": [pct(x) for x in t["share"]],
        "95% CI": [interval(a, b) for a, b in zip(t["ci_low"], t["ci_high"], strict=True)]})


def length_table(t: pd.DataFrame) -> pd.DataFrame:
    out = {"players": t["players"].astype(str), "measure": t["measure"],
           "games": [f"{n:,}" for n in t["games"]]}
    for col in ("mean", "sd"):
        out[col] = [num(x) for x in t[col]]
    for col in ("min", "p05", "p25", "median", "p75", "p95", "max"):
        out[col] = [num(x, 1).removesuffix(".0") for x in t[col]]
    return pd.DataFrame(out)


def item_table(t: pd.DataFrame) -> pd.DataFrame:
    if "strategy" in t.columns:
        t = t.sort_values(["strategy", "difference"], ascending=[True, False],
                          na_position="last")
    else:
        t = t.sort_values("difference", ascending=False, na_position="last")
    lead = {"strategy": t["strategy"].astype(str)} if "strategy" in t.columns else {}
    return pd.DataFrame({
        **lead, "item": t["name"] if "name" in t.columns else t["item"],
        "occurred": [f"{n:,}" for n in t["occurred"]],
        "share": [pct(x) for x in t["occurred_share"]],
        "win rate with": [pct(x) for x in t["win_rate_occurred"]],
        "win rate without": [pct(x) for x in t["win_rate_not"]],
        "difference": [points(x) for x in t["difference"]],
        "95% CI": [interval(a, b, points) for a, b in zip(t["ci_low"], t["ci_high"],
                                                           strict=True)],
        "p-value": [pvalue(p) for p in t["p_value"]],
        "mean count": [num(x) for x in t["mean_count"]],
        "enough data": ["yes" if e else "no (too few)" for e in t["enough"]]})


_RATE_MEASURES = ("win rate", "first-player advantage", "share of games", "item value",
                  "item occurrence")
_SHARE_MEASURES = ("win rate", "share of games", "item occurrence")
_ITEM_MEASURES = ("item value", "item occurrence")


def compare_table(t: pd.DataFrame) -> pd.DataFrame:
    rows = []
    for r in t.itertuples():
        rate = r.measure in _RATE_MEASURES
        level = (lambda x: pct(x)) if r.measure in _SHARE_MEASURES else \
            (points if rate else num)
        diff = points if rate else (lambda x: MISSING if _is_nan(x) else f"{x:+,.2f}")
        rows.append({"measure": r.measure, "group": r.group, "base": level(r.base),
                     "changed": level(r.changed), "difference": diff(r.difference),
                     "95% CI": interval(r.ci_low, r.ci_high, diff),
                     "p-value": pvalue(r.p_value), "n": f"{int(r.n):,}", "method": r.method})
    return pd.DataFrame(rows, columns=["measure", "group", "base", "changed", "difference",
                                       "95% CI", "p-value", "n", "method"])


LONG_CELL = 40
"""A cell of more characters than this wraps in its column (``td.long``) instead of
widening the table: a 400-character list of versions or weights pushed every other value of
the run-settings table out of its box."""

SHORT_TEXT = 12
"""Words in a cell of at most this many characters stay on one line."""

CLIPPED_CELL = 400
"""A cell of more characters than this shows its start, and the whole text on hover."""


_WORD = re.compile(r"[^\W\d_]{3,}")
_INTERVAL = re.compile(r"\[[^\]]*, [^\]]*\]$")


def _text_column(values) -> bool:
    """A column of words (names, sentences), set left; figures ("+3.95 pp", "2,000",
    "< 0.0001") stay right-aligned."""
    return any(_WORD.search(str(v)) for v in values)


def _cell(value, text: bool = False) -> str:
    """A table cell: short text stays on one line (a figure never breaks: "+3.95 pp"), an
    interval may break after its comma, long text wraps (and the longest is cut, whole in
    its title)."""
    value = str(value)
    if len(value) > LONG_CELL:
        shown = value if len(value) <= CLIPPED_CELL else value[:CLIPPED_CELL - 3] + "..."
        title = f' title="{html.escape(value)}"' if shown != value else ""
        return f' class="long"{title}>{html.escape(shown)}'
    if _INTERVAL.search(value):
        # an interval may break after its comma, never inside a bound ("+1.76 pp")
        return ' class="iv">' + html.escape(value).replace(" pp", "\u00a0pp")
    if text and len(value) > SHORT_TEXT:  # words may wrap; "seat 1" never does
        return ' class="txt wrap">' + html.escape(value)
    return (' class="txt">' if text else ">") + html.escape(value)


def to_html(t: pd.DataFrame, highlight: Sequence[bool] | None = None) -> str:
    """An HTML table of strings; rows where ``highlight`` is true are marked. Each cell
    carries its column's name (``data-label``), shown beside it when a table too wide for
    its box folds its columns into one (``FOLD_SCRIPT``)."""
    texts = [_text_column(t[c]) for c in t.columns]
    head = "".join(("<th class='txt'>" if x else "<th>") + f"{html.escape(str(c))}</th>"
                   for c, x in zip(t.columns, texts, strict=True))
    labels = [html.escape(str(c), quote=True) for c in t.columns]
    body = []
    marks = list(highlight) if highlight is not None else [False] * len(t)
    for mark, row in zip(marks, t.itertuples(index=False), strict=True):
        cls = ' class="hl"' if mark else ""
        cells = "".join(f'<td data-label="{label}"{_cell(v, x)}</td>'
                        for label, v, x in zip(labels, row, texts, strict=True))
        body.append(f"<tr{cls}>{cells}</tr>")
    return (f'<div class="scroll"><table><thead><tr>{head}</tr></thead>'
            f'<tbody>{"".join(body)}</tbody></table></div>')


def to_markdown(t: pd.DataFrame) -> str:
    """A Markdown table of strings, every cell literal text (``escape.markdown``)."""
    def cell(v) -> str:
        return markdown(v, line_start=False)

    lines = ["| " + " | ".join(cell(c) for c in t.columns) + " |",
             "|" + "|".join("---" for _ in t.columns) + "|"]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |"
              for row in t.itertuples(index=False)]
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# the document: built once, written as HTML and Markdown


def _md_html(text: str) -> str:
    """Text inside an HTML line of the Markdown (``<details><summary>``): HTML-escaped, and
    on one line, since a blank line would end the HTML block and start Markdown again (and
    no "](", for a viewer that reads Markdown there all the same)."""
    return re.sub(r"\](?=[(\[:])", "&#93;", html.escape(" ".join(str(text).splitlines())))


class Document:
    """Headings, paragraphs, tables and figures, rendered to HTML and Markdown alike. Every
    text it is given is literal: card names, strategy and seat names, labels, folders and
    titles are the user's or a plugin's, so each is escaped for HTML (``html.escape``) and
    for Markdown (``escape.markdown``); nothing a caller passes becomes a tag or a link."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.html: list[str] = []
        self.md: list[str] = []
        self.figures: list[str] = []

    def heading(self, text: str, level: int = 2, anchor: str | None = None) -> None:
        ident = f' id="{html.escape(anchor)}"' if anchor else ""
        self.html.append(f"<h{level}{ident}>{html.escape(text)}</h{level}>")
        self.md.append(f"{'#' * level} {markdown(text)}\n")

    def para(self, text: str, cls: str | None = None) -> None:
        c = f' class="{cls}"' if cls else ""
        self.html.append(f"<p{c}>{html.escape(text)}</p>")
        prefix = "> **Warning:** " if cls == "warn" else ""
        self.md.append(f"{prefix}{markdown(text, line_start=not prefix)}\n")

    def pre(self, text: str) -> None:
        self.html.append(f"<pre>{html.escape(text)}</pre>")
        fence = markdown_fence(text)
        self.md.append(f"{fence}text\n{text}\n{fence}\n")

    def table(self, t: pd.DataFrame, caption: str | None = None,
              highlight: Sequence[bool] | None = None) -> None:
        if caption:
            self.html.append(f'<p class="cap">{html.escape(caption)}</p>')
            self.md.append(f"*{markdown(caption, line_start=False)}*\n")
        self.html.append(to_html(t, highlight))
        self.md.append(to_markdown(t) + "\n")

    def verdicts(self, sentences: Sequence[str]) -> None:
        items = "".join(f"<li>{html.escape(x)}</li>" for x in sentences)
        self.html.append(f'<div class="verdict"><p><strong>Verdict</strong></p><ul>{items}'
                         "</ul></div>")
        self.md.append("**Verdict**\n\n" + "\n".join(f"- {markdown(x)}" for x in sentences)
                       + "\n")

    def headline(self, sentences: Sequence[str]) -> None:
        """The headline (``reports.headline``): what a reader takes away, before any detail."""
        paras = "".join(f"<p>{html.escape(x)}</p>" for x in sentences)
        self.html.append(f'<div class="headline">{paras}</div>')
        self.md.append("\n\n".join(f"**{markdown(x)}**" for x in sentences) + "\n")

    def folded_verdicts(self, sentences: Sequence[str]) -> None:
        """Every verdict, folded below the headline."""
        self.open_fold(f"Details: every verdict ({len(sentences)})")
        self.verdicts(sentences)
        self.close_fold()

    def open_fold(self, summary: str, anchor: str | None = None) -> None:
        ident = f' id="{html.escape(anchor)}"' if anchor else ""
        self.html.append(f"<details{ident}><summary>{html.escape(summary)}</summary>")
        self.md.append(f"<details><summary>{_md_html(summary)}</summary>\n")

    def close_fold(self) -> None:
        self.html.append("</details>")
        self.md.append("</details>\n")

    def details(self, summary: str, t: pd.DataFrame) -> None:
        self.html.append(f"<details><summary>{html.escape(summary)}</summary>{to_html(t)}"
                         "</details>")
        self.md.append(f"<details><summary>{_md_html(summary)}</summary>\n\n"
                       f"{to_markdown(t)}\n\n"
                       "</details>\n")

    def figure(self, fig, name: str, alt: str) -> None:
        buf = io.BytesIO()
        F.save(fig, buf)
        fig.clear()
        self.image(buf.getvalue(), name, alt)

    def image(self, data: bytes, name: str, alt: str) -> None:
        """A PNG (``data``) as a figure: embedded in the page, a file beside it."""
        # a name carries a strategy's name: a file of this folder whatever that holds
        name = re.sub(r"[^\w@.+-]|^\.+", "_", name)
        (self.folder / name).write_bytes(data)
        self.figures.append(name)
        b64 = base64.b64encode(data).decode("ascii")
        self.html.append(f'<figure><img alt="{html.escape(alt)}" '
                         f'src="data:image/png;base64,{b64}"></figure>')
        self.md.append(f"![{markdown(alt, line_start=False)}]({quote(name, safe='@+')})\n")

    def write(self, title: str) -> None:
        stamp = datetime.now(UTC).isoformat(timespec="seconds")
        page = (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                f"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
                f"<title>{html.escape(title)}</title><style>{CSS}</style>"
                f"<script>{FOLD_SCRIPT}</script></head><body>"
                f"<h1>{html.escape(title)}</h1>"
                f"<p class=\"meta\">simkit report, built {stamp}</p>"
                + "\n".join(self.html) + "</body></html>\n")
        (self.folder / "index.html").write_text(page, encoding="utf-8")
        md = f"# {markdown(title)}\n\nsimkit report, built {stamp}\n\n" + "\n".join(self.md)
        (self.folder / "summary.md").write_text(md, encoding="utf-8")


CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;max-width:1100px;
margin:1.5em auto;padding:0 1em;color:#1a202c;line-height:1.45}
h1{font-size:1.5em;border-bottom:2px solid #2b6cb0;padding-bottom:.2em}
h2{font-size:1.25em;margin-top:1.8em;border-bottom:1px solid #cbd5e0}
h3{font-size:1.05em;margin-top:1.4em}
.scroll{overflow-x:auto;max-width:100%}
table{border-collapse:collapse;margin:.4em 0 1em;font-size:.85em}
th,td{border:1px solid #e2e8f0;padding:.2em .45em;text-align:right;vertical-align:top}
td{white-space:nowrap}
td.iv,td.wrap{white-space:normal}
td.long{white-space:normal;text-align:left;min-width:14em;overflow-wrap:anywhere}
td.txt,th.txt{text-align:left}
th{background:#edf2f7}
td:first-child,th:first-child{text-align:left}
tr.hl td,table.fold tr.hl{background:#fefcbf}
table.fold,table.fold tbody{display:block}
table.fold thead{display:none}
table.fold tr{display:flex;flex-wrap:wrap;gap:0 1.2em;border:1px solid #cbd5e0;
border-radius:3px;margin:0 0 .4em;padding:.2em .5em}
table.fold td{display:block;border:none;text-align:left;padding:.05em 0;min-width:0;
white-space:normal}
table.fold td::before{content:attr(data-label) ": ";font-weight:600;color:#4a5568}
figure{margin:.8em 0}
img{max-width:100%;height:auto}
.verdict{background:#ebf8ff;border-left:4px solid #2b6cb0;padding:.3em 1em;margin:1em 0}
.verdict ul{margin:.2em 0 .6em;padding-left:1.2em}
.headline{font-size:1.1em;font-weight:600;background:#ebf8ff;border-left:4px solid #2b6cb0;
padding:.2em 1em;margin:1em 0}
.warn{background:#fed7d7;border-left:4px solid #c53030;padding:.5em .8em}
.meta,.cap{color:#4a5568;font-size:.9em}
details{margin:.5em 0 1em;border:1px solid #e2e8f0;border-radius:4px;padding:.2em .8em}
summary{cursor:pointer;font-weight:600;padding:.3em 0}
pre{background:#f7fafc;border:1px solid #e2e8f0;padding:.6em .8em;font-size:.8em;
overflow-x:auto}
"""

FOLD_SCRIPT = """
function simkitFold(){document.querySelectorAll('.scroll').forEach(function(box){
var t=box.firstElementChild;if(!t||!box.clientWidth)return;t.classList.remove('fold');
if(t.scrollWidth>box.clientWidth+1)t.classList.add('fold');});}
addEventListener('load',simkitFold);addEventListener('resize',simkitFold);
document.addEventListener('toggle',simkitFold,true);
"""
"""A table still wider than the page once its long cells wrap folds its columns: each row
becomes a block of "column: value" lines (the cells' ``data-label``), so no figure is ever
out of view, at any width (tests/reports/test_browser.py checks 800 and 1280 pixels)."""


DEFINITIONS = (
    "How to read this report. A seat wins a game outright when it has rank 1 and no seat of "
    "another team does (the seats of a winning team all win); it ties when it shares rank 1 "
    "with another team, and loses otherwise (games nobody won, such as timeouts, are losses "
    "for every seat). Its score share counts a win as 1 and a tie among k teams as 1/k. A "
    "seat's advantage is its score share minus the mean score share of all seats in the same "
    "games; first-player advantage is seat 1's. At 2 players the report also gives first "
    "wins minus second wins. Card (item) value is the win rate of the seat-games in which the "
    "event happened minus those in which it did not, for each strategy apart: an "
    "association, not a cause. Every interval is 95% (Wilson for rates, t for means of "
    "per-game values). docs/statistics.md has the full definitions.")


# ---------------------------------------------------------------------------------------------
# writing atomically


@contextmanager
def _atomic_folder(out: Path) -> Iterator[Path]:
    """A fresh temporary folder next to ``out``, renamed to ``out`` when the block succeeds
    and removed when it fails (``folders.writing``: locked, a full disk one line). Replaces
    only an empty folder or a report simkit wrote."""
    with folders.writing(out, "report", overwrite=True) as tmp:
        yield tmp


# ---------------------------------------------------------------------------------------------
# sections


def _settings(doc: Document, run: Run) -> None:
    m = run.meta
    games_text = f"{len(run.games):,}"
    if isinstance(m.get("games"), int) and m["games"] != len(run.games):
        games_text += f" of {m['games']:,} requested"
    strategies = ", ".join(m.get("strategies", [])) or "?"
    rows = [
        ("folder", str(run.folder)),
        ("game", f"{m.get('game', '?')} (game version {m.get('game_version', '?')})"),
        ("players", str(m.get("players", "?"))),
        ("games", games_text),
        ("complete", "yes" if m.get("complete", True) else "NO (interrupted)"),
        ("master seed", f"{m.get('master_seed', '?')} (game i's seed derives from it and i; "
                        f"games {int(run.games['game'].min()):,} to "
                        f"{int(run.games['game'].max()):,})"),
        ("strategies", strategies + (" (seats rotate by game index)" if m.get("rotate", True)
                                     else " (fixed seats)")),
    ]
    for name, weights in (m.get("strategy_weights") or {}).items():
        if weights:
            rows.append((f"weights of {name}",
                         ", ".join(f"{k}={v:g}" if isinstance(v, int | float) else f"{k}={v}"
                                   for k, v in weights.items())))
    if m.get("overrides"):
        rows.append(("overrides", ", ".join(describe_override(k, v)
                                            for k, v in m["overrides"].items())))
    rows += [
        ("backend", str(m.get("backend", "?"))),
        ("elapsed", f"{num(m.get('elapsed_seconds'))} s"),
        ("games per second", num(m.get("games_per_second"), 0)),
        ("finished at", str(m.get("finished_at", "?"))),
        ("versions", ", ".join(f"{k} {v}" for k, v in (m.get("versions") or {}).items())),
    ]
    doc.table(pd.DataFrame(rows, columns=["setting", "value"]), caption="Run settings")
    params = m.get("params") or {}
    table = _params_table(params)
    changed = table[table["changed"] == "yes"]
    if len(changed):
        doc.table(changed.drop(columns="changed"),
                  caption=f"Changed parameters ({len(changed)}): value, default and source")
    else:
        doc.para("No parameter was changed from the game's data.", cls="meta")
    if len(table):
        doc.details(f"All {len(table)} parameters with their sources", table)


def _params_table(params: dict) -> pd.DataFrame:
    rows = []
    for key, p in params.items():
        p = p if isinstance(p, dict) else {"value": p}
        rows.append({"parameter": key, "value": _short(p.get("value")),
                     "default": _short(p.get("default")), "source": str(p.get("source", "")),
                     "why": str(p.get("why", "")),
                     "changed": "yes" if p.get("changed") else "no"})
    return pd.DataFrame(rows, columns=["parameter", "value", "default", "source", "why",
                                       "changed"])


def _short(v, limit: int = 60) -> str:
    text = str(v)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _item_ranking(values: pd.DataFrame, top: int = 5) -> pd.DataFrame:
    """The strongest and weakest items with enough games, strongest first."""
    ok = values[values["enough"]].sort_values("difference", ascending=False)
    if len(ok) <= 2 * top:
        return ok
    return pd.concat([ok.head(top), ok.tail(top)])


def _items_section(doc: Document, run: Run, prefix: str, t: dict) -> None:
    if run.items_path is None:
        return
    g, m = run.games, run.meta
    doc.heading("Card value", 3)
    several = t["strategies"]["strategy"].nunique() > 1
    counts = A.item_counts(run.items_path, g, m, by_strategy=several)
    values = A.item_value_from_counts(counts, by_strategy=several)
    if not len(values):
        doc.para("This game records no item events.", cls="meta")
        return
    kinds = values["item"].map(lambda c: A.item_kind(c, m))
    values = values.assign(name=values["item"].map(lambda c: A.item_name(c, m)))
    choices, outcomes = values[kinds != "outcome"], values[kinds == "outcome"]
    if (kinds == "unclassified").all():
        doc.para("This game does not say which of its item events are a player's choices, "
                 "so every event is ranked as a choice.", cls="meta")
    doc.para("Win rate of the seat-games in which the player made the choice at least once "
             "minus those in which it did not (95% Newcomb interval)"
             + (", for each strategy apart: a strong player and a weak one play the same "
                "card for different reasons" if several else "")
             + ". This is an association, not a card's strength: a player who is winning may "
               "make some choices more often. simkit run --check-cards N checks the "
               "strongest and weakest by playing without one copy (docs/statistics.md).",
             cls="cap")
    _checks_table(doc, m.get("card_checks"))
    groups = list(choices.groupby("strategy", sort=False)) if several else [(None, choices)]
    for strategy, part in groups:
        who = f" ({strategy})" if strategy is not None else ""
        rank = _item_ranking(part)
        thin = int((~part["enough"]).sum())
        cap = (f"Strongest and weakest choices{who}, of {int(part['enough'].sum())} with enough "
               f"seat-games" + (f"; {thin} with too few to judge are left out" if thin else ""))
        if len(rank):
            shown, _ = _constant_columns(item_table(rank), ("strategy",))  # in the caption
            doc.table(shown, caption=cap, highlight=_clear(rank))
            doc.figure(F.item_value_figure(rank, f"Card value{who}: {run.label}", max_items=24),
                       f"{prefix}item_value{'_' + str(strategy) if strategy else ''}.png",
                       f"card value{who}")
        else:
            doc.para(f"No choice{who} has enough seat-games with and without it to judge.",
                     cls="meta")
    doc.details(f"All {len(choices)} choice rows, with the ones with too few games",
                item_table(choices))
    if len(outcomes):
        doc.details(f"Outcomes ({len(outcomes)} rows: things that happened to the player or "
                    "that the game's state forced, shown apart from its choices; win rate "
                    "with and without them is an association, not a card's value)",
                    item_table(outcomes))


def _checks_table(doc: Document, checks: dict | None) -> None:
    """The cards ``--check-cards`` checked: the paired effect of removing one copy on each
    seat's win rate, or why a card could not be checked."""
    if not checks or not checks.get("cards"):
        return
    rows = []
    for c in checks["cards"]:
        who = c.get("strategy")
        base = {"card": c.get("name"),
                "named": f"{c.get('role')}" + (f" for {who}" if who not in (None, "all") else "")}
        if c.get("reason"):
            rows.append({**base, "seat or strategy": "",
                         "removing one copy moves its win rate by": "",
                         "95% CI": "", "note": f"not checked: {c['reason']}"})
            continue
        several = len(c.get("strategies") or []) > 1
        for s in [*(c.get("seats") or []), *(c.get("strategies") or [] if several else [])]:
            rows.append({**base, "seat or strategy": s["group"],
                         "removing one copy moves its win rate by": points(s["difference"]),
                         "95% CI": interval(s["ci_low"], s["ci_high"], points),
                         "note": ", ".join(f"{k}={v}" for k, v in (c.get("changes") or
                                                                   {}).items())})
    doc.table(pd.DataFrame(rows), caption=f"Checked by removing one copy: {checks['games']:,} "
              "paired games a card, the run's seeds and strategies (a causal effect under "
              "these strategies)")


def _run_section(doc: Document, run: Run, prefix: str, heading: str | None,
                 fair: float = V.DEFAULT_FAIR) -> dict:
    """The verdict, key figures and folded details of one run; returns its tables."""
    g, m = run.games, run.meta
    if heading:
        doc.heading(heading, 2, anchor=prefix.rstrip("_") or "run")
    for note in run.warnings:
        doc.para(note, cls="warn")
    t = S.tables(g, m, run.items_path, fair, run.trace_path)
    doc.headline(t["headline"])
    doc.folded_verdicts([v.text for v in t["verdicts"]])
    doc.heading("Outcome by seat", 3)
    doc.table(seat_table(t["seats"]), caption="Outright wins (95% Wilson interval), ties, "
              "losses and score share by seat; advantage = score share minus the mean share "
              "of all seats in the same games")
    if len(t["teams"]):
        doc.table(team_table(t["teams"]), caption="Outcome by team")
    doc.figure(F.seat_outcomes_figure(t["seats"], f"Outcome by seat: {run.label}",
                                      t["teams"] if len(t["teams"]) else None),
               f"{prefix}seat_outcomes.png", "outcome by seat")
    doc.heading("First-player advantage", 3)
    doc.table(fpa_table(t["fpa"]), caption="Seat 1's score share minus the mean score share "
              "of all seats in the same games (t interval of the per-game difference, "
              "one-sample t test); at 2 players also seat 1's outright wins minus seat 2's")
    several = t["strategies"]["strategy"].nunique() > 1
    if several:
        doc.heading("Outcome by strategy", 3)
        overall = t["strategies"][t["strategies"]["seat"].astype(str) == "all"]
        doc.table(strategy_table(overall), caption="Over every seat the strategy sat in")
        doc.figure(F.strategy_outcomes_figure(t["strategies"],
                                              f"Score share by strategy: {run.label}"),
                   f"{prefix}strategy_outcomes.png", "score share by strategy")
        doc.details("Outcome by strategy and seat", strategy_table(t["strategies"]))
    if len(t["scores"]):
        doc.heading("Scores", 3)
        doc.table(scores_table(t["scores"]), caption="The game's own score by seat, and how "
                  "far ahead of the best other team a seat was when it won")
    _items_section(doc, run, prefix, t)
    doc.heading("Game length and endings", 3)
    doc.table(length_table(t["length"]), caption="Turns and decisions per game")
    doc.figure(F.game_length_figure(g, "turns", f"Game length in turns: {run.label}"),
               f"{prefix}game_length.png", "game length histogram")
    doc.table(endings_table(t["endings"]), caption="How games ended: end reasons and outcomes "
              "(tie: rank 1 shared by more than one team; no winner: no seat has rank 1)")
    doc.figure(F.endings_figure(t["endings"]), f"{prefix}endings.png", "end reasons")
    for note in assumption_notes(m.get("game", ""), m.get("data_digest"), fair,
                                 m.get("players")):
        doc.para(note, cls="meta")  # the game's gap-fills that move its outcome
    if t.get("feel"):
        _feel_section(doc, t["feel"], run, prefix)
    if run.decisions_path is not None:
        _decisions_section(doc, run, prefix)
    doc.open_fold("Run settings, parameters and the run's text summary")
    _settings(doc, run)
    doc.pre(S.summary_text(g, m, run.items_path, fair, run.trace_path))
    doc.close_fold()
    return t


def assumption_notes(game: str, digest: str | None, fair: float, players=None) -> list[str]:
    """The shipped table's assumptions that move the outcome beyond ±``fair`` (none for a
    game that ships no table)."""
    from simkit.reports.assumptions import notes

    try:
        return notes(game, digest, fair, players=players)
    except SimkitError:  # a game no longer registered: nothing to say
        return []


def _feel_section(doc: Document, feel: dict, run: Run, prefix: str) -> None:
    """How the game plays (``reports.feel``): the metric table, the phases, the lead curves
    and the leader's prediction of the winner."""
    from simkit.reports import feel as FE
    from simkit.reports.stats import seat_names

    doc.heading("How it plays", 3)
    for sentence in FE.feel_sentences(feel):
        doc.para(sentence)
    doc.table(FE.feel_table(feel), caption="Decisiveness, lead changes, drama, comebacks, "
              "uncertainty and choice, with 95% intervals (docs/metrics.md defines each)")
    phases = FE.phase_table(feel)
    if phases is not None:
        doc.table(phases, caption="Branching factor and forced moves by phase")
    if feel.get("traced_games"):
        doc.figure(F.lead_curve_figure(feel, seat_names(run.meta, int(run.meta["players"])),
                                       f"Mean lead of each seat: {run.label}"),
                   f"{prefix}lead_curve.png", "mean lead of each seat over the game")
        doc.details("The leader's prediction of the winner, by share of the game played",
                    FE.auc_table(feel))


def decision_table(t: pd.DataFrame) -> pd.DataFrame:
    """``reports.decisions.label_table`` as text: counts with separators, shares in percent
    ("-" for a move that was only ever forced)."""
    out = pd.DataFrame({"Move": t["label"]})
    for col in t.columns[1:]:
        if col.startswith("share of"):
            out[col.capitalize()] = [pct(x) if not _is_nan(x) else "-" for x in t[col]]
        elif col == "median turn":
            out["Median turn"] = [num(x, 1) if not _is_nan(x) else "-" for x in t[col]]
        elif col in ("chosen", "forced"):
            out[col.capitalize()] = [f"{int(x):,}" for x in t[col]]
        else:
            out[col.capitalize()] = ["-" if _is_nan(x) else str(x) for x in t[col]]
    return out


def _decisions_section(doc: Document, run: Run, prefix: str) -> None:
    """When each card or action is chosen, and by whom (``reports.decisions``)."""
    from simkit.reports import decisions as D

    log = D.read_log(run.decisions_path)
    if len(log) == 0:
        return
    table = D.label_table(log)
    doc.heading("When each move is chosen, and by whom", 3)
    doc.para(D.summary_sentence(log, table))
    doc.figure(D.by_turn_figure(D.by_turn(log), f"Moves chosen by turn: {run.label}"),
               f"{prefix}moves_by_turn.png", "share of each move among the choices of each "
               f"turn (turns with at least {D.MIN_CHOICES} choices)")
    doc.table(decision_table(table), caption="Each move (the game's label): times chosen and "
              "forced (the only legal move), the turns it is chosen at, and its share of each "
              "strategy's and each seat's choices")


def _comparison_section(doc: Document, runs: list[Run], tables: list[dict],
                        fair: float = V.DEFAULT_FAIR) -> None:
    doc.heading("Comparison of the runs", 2, anchor="comparison")
    rows = []
    for i, (run, t) in enumerate(zip(runs, tables, strict=True), start=1):
        length = t["length"]
        turns = length[length["measure"] == "turns"]
        ends = t["endings"]
        outcome = ends[ends["kind"] == "outcome"].set_index("name")["share"]
        for f in t["fpa"].itertuples():
            rows.append({"run": f"{i}. {run.label}", "players": f.players, "games": f.games,
                         "advantage": f.advantage, "ci_low": f.ci_low, "ci_high": f.ci_high,
                         "p_value": f.p_value,
                         "turns": float(turns["mean"].iloc[0]) if len(turns) else np.nan,
                         "tie": float(outcome.get("tie", np.nan)),
                         "no_winner": float(outcome.get("no winner", np.nan))})
    c = pd.DataFrame(rows)
    shown = pd.DataFrame({
        "run": c["run"], "players": c["players"].astype(str),
        "games": [f"{n:,}" for n in c["games"]],
        "first-player advantage": [points(x) for x in c["advantage"]],
        "95% CI": [interval(a, b, points) for a, b in zip(c["ci_low"], c["ci_high"],
                                                           strict=True)],
        "p-value": [pvalue(p) for p in c["p_value"]],
        "mean turns": [num(x) for x in c["turns"]],
        "ties": [pct(x) for x in c["tie"]], "no winner": [pct(x) for x in c["no_winner"]]})
    doc.table(shown, caption="First-player advantage (seat 1's score share minus the mean "
                             "share), game length, ties and games without a winner")
    short = F.distinct_labels([run.label for run in runs], [run.folder.name for run in runs])
    fig_t = pd.DataFrame({"label": [f"{r.split('. ', 1)[0]}. {short[int(r.split('.')[0]) - 1]}"
                                    for r in c["run"]],
                          "advantage": c["advantage"], "ci_low": c["ci_low"],
                          "ci_high": c["ci_high"]})
    doc.figure(F.fpa_comparison_figure(fig_t, fair=fair),
               "comparison_first_player_advantage.png",
               f"first-player advantage by run, in points, with the fair band "
               f"(±{100 * fair:g} of 0)")
    # every strategy of every run, "-" where a run did not have it
    cols = [f"{i}. {run.label}" for i, run in enumerate(runs, start=1)]
    rates: dict[str, dict[str, str]] = {}
    for col, t in zip(cols, tables, strict=True):
        s = t["strategies"]
        for r in s[s["seat"].astype(str) == "all"].itertuples():
            rates.setdefault(r.strategy, {})[col] = (
                f"{pct(r.win_rate)} {interval(r.win_low, r.win_high)}; share "
                f"{pct(r.score_share)} of fair {pct(r.fair_share)}")
    table = pd.DataFrame([{"strategy": k, **{c: v.get(c, "-") for c in cols}}
                          for k, v in rates.items()], columns=["strategy", *cols])
    doc.table(table, caption="Each strategy's outright wins (95% Wilson interval) and score "
                             "share in each run; the fair share differs with the player count")


# ---------------------------------------------------------------------------------------------
# public API


def build_report(run_dirs: list[Path], out: Path, title: str | None = None,
                 fair: float = V.DEFAULT_FAIR) -> Path:
    """Write a report of one or more run folders to ``out`` and return ``out``.

    ``out/index.html`` is self-contained (figures embedded, inline CSS); ``out/summary.md``
    has the same tables with the figures linked; the PNG figures sit beside them. Several
    runs get a section each, after a comparison (first-player advantage, game length and
    strategy win rates side by side). Raises ``SimkitError`` for a folder that is not a run;
    an incomplete run is reported with a warning. On any error no ``out`` is left behind."""
    run_dirs = [Path(d) for d in ([run_dirs] if isinstance(run_dirs, str | Path)
                                  else run_dirs)]
    if not run_dirs:
        raise SimkitError("no run folder given to report on")
    out = Path(out)
    for d in run_dirs:
        if d.resolve() == out.resolve():
            raise SimkitError(f"the report would overwrite the run folder {d}")
    ladders = [(d, load_ladder(d)) for d in run_dirs if P.kind_of(d) in P.SUMMARY_KINDS]
    run_dirs = [d for d in run_dirs if P.kind_of(d) not in P.SUMMARY_KINDS]
    if ladders and not run_dirs:
        return _ladder_report(ladders, out, title, fair)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # incomplete runs are shown in the report itself
        runs = [load_run(d) for d in run_dirs]
    if title is None:
        first = runs[0].meta
        if len(runs) == 1:
            title = (f"{first.get('game', 'simkit')}: {first.get('players', '?')} players, "
                     f"{len(runs[0].games):,} games")
        else:
            games = sorted({str(r.meta.get("game", "?")) for r in runs})
            title = f"{', '.join(games)}: {len(runs)} runs"
    with _atomic_folder(out) as tmp:
        doc = Document(tmp)
        for i, (d, summary) in enumerate(ladders, start=1):
            _folder_section(doc, d, summary, f"part{i}_", fair)
        if len(runs) == 1:
            _run_section(doc, runs[0], "", None, fair)
            doc.para(DEFINITIONS, cls="meta")
        else:
            doc.table(pd.DataFrame(
                [(f"{i}. {run.label}", f"{len(run.games):,}", str(run.folder))
                 for i, run in enumerate(runs, start=1)], columns=["run", "games", "folder"]),
                caption="Runs in this report")
            body = Document(tmp)
            tables = []
            for i, run in enumerate(runs, start=1):
                body.open_fold(f"Run {i}: {run.label} (every table and figure)",
                               anchor=f"run{i}")
                tables.append(_run_section(body, run, f"run{i}_", None, fair))
                body.close_fold()
            head = Document(tmp)  # the headline opens the page, before the list of runs
            head.headline(H.pick_headlines(
                [{"game": r.meta.get("game"), "players": r.meta.get("players"),
                  "strategies": r.meta.get("strategies"), "headline": t["headline"]}
                 for r, t in zip(runs, tables, strict=True)], H.strong_or_none))
            doc.html[:0], doc.md[:0] = head.html, head.md
            doc.folded_verdicts([f"Run {i}: {v.text}" for i, t in enumerate(tables, start=1)
                                 for v in t["verdicts"]])
            _comparison_section(doc, runs, tables, fair)
            doc.para(DEFINITIONS, cls="meta")
            doc.heading("The runs", 2, anchor="runs")
            doc.html += body.html
            doc.md += body.md
        doc.write(title)
    return out


def load_ladder(folder: Path) -> dict:
    """A finished ladder's (or sweep's, sensitivity run's, balancing's) summary.json, or a
    training's train.json; one line when it has not finished (``pages.load_summary``)."""
    return P.load_summary(folder)


def _folder_section(doc: Document, folder: Path, summary: dict, prefix: str,
                    fair: float = V.DEFAULT_FAIR) -> None:
    from simkit.reports import explore as E

    kind = summary.get("kind", "ladder")
    if kind == "sweep":
        E.sweep_section(doc, folder, summary, prefix, fair)
    elif kind == "sensitivity":
        E.sensitivity_section(doc, folder, summary, prefix)
    elif kind == "balance":
        P.balance_section(doc, folder, summary, prefix)
    elif kind == "training":
        P.training_section(doc, folder, summary, prefix)
    else:
        ladder_section(doc, folder, summary, prefix, fair)


def _ladder_report(ladders: list[tuple[Path, dict]], out: Path, title: str | None,
                   fair: float = V.DEFAULT_FAIR) -> Path:
    """A report of ladders, sweeps and sensitivity runs (no plain runs)."""
    if title is None:
        s = ladders[0][1]
        what = {"sweep": "sweep", "sensitivity": "sensitivity", "balance": "balancing",
                "training": "training"}.get(s.get("kind"), "skill ladder")
        title = (f"{s['game']}: {what}, {s['players']} players" if len(ladders) == 1
                 else f"{len(ladders)} explorations")
    with _atomic_folder(out) as tmp:
        doc = Document(tmp)
        for i, (d, summary) in enumerate(ladders, start=1):
            _folder_section(doc, d, summary, f"part{i}_" if len(ladders) > 1 else "", fair)
        if any(s.get("kind", "ladder") == "ladder" for _, s in ladders):
            doc.para(LADDER_DEFINITIONS, cls="meta")
        if any(s.get("kind") in ("sweep", "sensitivity", "balance") for _, s in ladders):
            doc.para(EXPLORE_DEFINITIONS, cls="meta")
        doc.write(title)
    return out


EXPLORE_DEFINITIONS = (
    "How to read a sweep or a sensitivity run. Every point played the same games (the same "
    "master seed, so game i of every point was dealt alike), so two points differ by the "
    "change and not by luck. A point's figures are those of a run's summary (95% Wilson "
    "intervals for rates, t for means). A difference between points is paired on the same "
    "games: a t interval of the per-game differences for means (first-player advantage, "
    "length), and for the seat spread the games resampled together (250 Poisson bootstrap "
    "resamples) for a normal 95% interval; sensitivity's p-values are corrected for testing "
    "every step at once by Holm's method. docs/explore.md has the full definitions.")


LADDER_DEFINITIONS = (
    "How to read the ladder. Ratings are on the Elo scale (400 points: odds of ten to one) "
    "from a Bradley-Terry fit at two players and a Plackett-Luce fit of full finishing "
    "orders at three and four, each with a term for every seat, so that what a seat is worth "
    "is not credited to the strategy that sat there; a tie among k seats counts as each of "
    "its k! orders with weight 1/k! (the shared-win rule). One virtual tied game between "
    "every pair keeps a strategy that never lost finite, as in BayesElo. Intervals are 95% "
    "(normal, from the fit's Hessian; the win matrix's are t intervals over games). Balance "
    "by skill is each level's self-play, on the same deals for every level. "
    "docs/ladder.md has the full definitions.")


def build_whatif_report(base_dir: Path, changed_dir: Path, out: Path,
                        title: str | None = None, fair: float = V.DEFAULT_FAIR) -> Path:
    """Write a what-if report to ``out``: the paired differences table and figure first
    (changed minus base, over the games both runs played from the same seeds), then the
    parameters that differ, then each run's own section. Raises ``SimkitError`` when the
    runs are of different games or player counts."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        base, changed = load_run(Path(base_dir)), load_run(Path(changed_dir))
    bm, cm = base.meta, changed.meta
    if bm.get("game") != cm.get("game"):
        raise SimkitError(f"a what-if compares two runs of one game; {base.folder} is "
                          f"{bm.get('game')!r} and {changed.folder} is {cm.get('game')!r}")
    out = Path(out)
    for d in (base.folder, changed.folder):
        if d.resolve() == out.resolve():
            raise SimkitError(f"the report would overwrite the run folder {d}")
    notes = []
    if bm.get("master_seed") != cm.get("master_seed"):
        notes.append(f"the runs have different master seeds ({bm.get('master_seed')} and "
                     f"{cm.get('master_seed')}), so they did not play the same games; the "
                     "paired intervals stay valid but gain nothing from pairing")
    if bm.get("game_version") != cm.get("game_version"):
        notes.append(f"the runs are of different game versions ({bm.get('game_version')} and "
                     f"{cm.get('game_version')})")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table = A.compare_runs(base.games, changed.games, bm, cm, base.items_path,
                               changed.items_path, base.trace_path, changed.trace_path)
    paired = int(table["n"].iloc[0]) if len(table) else 0
    if paired < max(len(base.games), len(changed.games)):
        notes.append(f"only {paired:,} games were played by both runs; the differences "
                     "cover those games")
    if title is None:
        diff = _param_diff(bm, cm)
        what = ", ".join(f"{k} {c}" if b == "-" else f"{k} {b}" if c == "-" else
                         f"{k} {b} -> {c}" for k, b, c in diff[:4]) or "what-if"
        title = f"What-if for {bm.get('game', '?')} ({bm.get('players', '?')} players): {what}"
    with _atomic_folder(out) as tmp:
        doc = Document(tmp)
        for note in notes + base.warnings + changed.warnings:
            doc.para(note, cls="warn")
        doc.headline([whatif_headline(base, changed, table, fair)])
        doc.folded_verdicts([v.text for v in V.whatif_verdicts(
            table, fair, [*(bm.get("strategies") or ()), *(cm.get("strategies") or ())])])
        doc.para(f"Base: {base.folder}. Changed: {changed.folder}. Every difference is "
                 f"changed minus base over {paired:,} games paired by game index.")
        played = S.models_played({"base": bm, "changed": cm})
        if played:
            doc.para("Models played: " + "; ".join(played) + ".")
        doc.heading("Differences", 2, anchor="differences")
        # a row without a difference (an event in every seat-game or in none of a run, so
        # no win rate without it) says nothing: left out, and counted
        blank = table["difference"].isna()
        main = table[~table["measure"].isin(_ITEM_MEASURES) & ~blank]
        items = table[table["measure"].isin(_ITEM_MEASURES) & ~blank]
        shown, same = _constant_columns(compare_table(main), ("n", "method"))
        doc.table(shown,
                  caption="Changed minus base with 95% intervals from the paired per-game "
                          "differences (highlighted: the interval excludes 0)"
                          + "".join(f"; every row: {k} {v}" for k, v in same.items()),
                  highlight=_clear(main))
        doc.figure(F.whatif_figure(table), "whatif_differences.png", "what-if differences")
        if len(items):
            items = items.assign(_item=pd.Categorical(items["group"],
                                                      pd.unique(items["group"])))
            items = items.sort_values(["_item", "measure"]).drop(columns="_item")
            names = {"item_names": {**(bm.get("item_names") or {}),
                                    **(cm.get("item_names") or {})}}
            items = items.assign(group=items["group"].map(lambda c: A.item_name(c, names)))
            doc.table(compare_table(items),
                      caption="Items: occurrence (share of seat-games with the event, paired "
                              "by game) and value (win rate with minus without; the runs "
                              "treated as independent, which is conservative)",
                      highlight=_clear(items))
        if blank.any():
            doc.para(f"Left out: {int(blank.sum())} row{'s' * (int(blank.sum()) != 1)} "
                     "without a difference (" + ", ".join(
                         f"{m} {g}" for m, g in zip(table.loc[blank, "measure"],
                                                    table.loc[blank, "group"], strict=True)
                     )[:300] + "): an event in every seat-game or in none of a run has no "
                     "win rate without it.", cls="meta")
        diff = _param_diff(bm, cm)
        if diff:
            doc.table(pd.DataFrame(diff, columns=["parameter", "base", "changed"]),
                      caption="Parameters that differ between the runs")
        other = [(k, str(bm.get(k)), str(cm.get(k))) for k in ("strategies", "players",
                                                              "master_seed", "rotate")
                 if bm.get(k) != cm.get(k)]
        if other:
            doc.table(pd.DataFrame(other, columns=["setting", "base", "changed"]),
                      caption="Run settings that differ")
        for run, name in ((base, "base"), (changed, "changed")):
            doc.open_fold(f"{name.capitalize()} run: {run.label} (every table and figure)",
                          anchor=name)
            _run_section(doc, run, f"{name}_", None, fair)
            doc.close_fold()
        doc.para(DEFINITIONS, cls="meta")
        doc.write(title)
    return out


def whatif_headline(base: Run, changed: Run, table: pd.DataFrame,
                    fair: float = V.DEFAULT_FAIR) -> str:
    """A what-if's headline (``headline.whatif_headline``): the change, its effect on
    first-player advantage, and for a card edit the new or changed card's value in the
    changed run (its choices only)."""
    from simkit.reports.stats import item_kind

    bm, cm = base.meta, changed.meta
    diff = _param_diff(bm, cm)
    if list(bm.get("strategies") or ()) != list(cm.get("strategies") or ()):
        diff.append(("strategies", ",".join(bm.get("strategies") or ()),
                     ",".join(cm.get("strategies") or ())))
    card = None
    cards = H.edited_cards(diff, cm.get("item_columns"))
    if cards and changed.items_path is not None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            values = A.item_value(changed.games, cm, changed.items_path)
        values = values[values["item"].map(lambda c: item_kind(c, cm) != "outcome")]
        card = H.card_value(cards, values, cm)
    return H.whatif_headline(table, diff, cm.get("players"), cm.get("strategies"), fair, card)


def _constant_columns(t: pd.DataFrame, names) -> tuple[pd.DataFrame, dict[str, str]]:
    """``t`` without those of the columns ``names`` that hold one value in every row (said
    once in the caption instead: a column fewer keeps a table within the page)."""
    same = {c: str(t[c].iloc[0]) for c in names if c in t and len(t) and t[c].nunique() == 1}
    return t.drop(columns=list(same)), same


def _clear(t: pd.DataFrame) -> list[bool]:
    """Rows whose 95% interval excludes 0."""
    return ((t["ci_low"] > 0) | (t["ci_high"] < 0)).tolist()


def _param_diff(bm: dict, cm: dict) -> list[tuple[str, str, str]]:
    """The parameters that differ, a row each; a card (a record of a card list) that only
    one run has is one row, ``cards.stag``, "added" or "removed"."""
    pb, pc = bm.get("params") or {}, cm.get("params") or {}
    out, told = [], set()
    for key in [*pb, *(k for k in pc if k not in pb)]:
        if (key in pb) != (key in pc):
            record = key.rpartition(".")[0] or key
            if record not in told:
                told.add(record)
                out.append((record, "-", "added") if key in pc else (record, "removed", "-"))
            continue
        vb = (pb.get(key) or {}).get("value") if isinstance(pb.get(key), dict) else pb.get(key)
        vc = (pc.get(key) or {}).get("value") if isinstance(pc.get(key), dict) else pc.get(key)
        if vb != vc:
            out.append((key, _short(vb), _short(vc)))
    return out
