"""Reports show every name as text: a card, strategy or seat name, a label, a folder or a
title holding HTML or Markdown never becomes a tag or a link in index.html or summary.md,
and never breaks a figure."""

from __future__ import annotations

import csv
import json
import re
import shutil

import pandas as pd
import pyarrow.parquet as pq
from click.testing import CliRunner
from simkit.reports import build as B
from simkit.reports import figures as F

from simkit.cli import main

TAG = "<img src=x onerror=alert(1)>"
LINK = "[x](javascript:alert(1))"
# a strategy name (a plugin's, or a hand-edited run's) holding a tag, a link, a formula for
# matplotlib and a path out of the report folder
STRATEGY = f"{TAG} {LINK} $\\frac$ ../out"


def assert_inert(md: str, page: str) -> None:
    """No raw tag or link in the Markdown (but in a code block, where text is literal); in
    the HTML no tag but the report's own figures; and the text is still shown, escaped."""
    md = re.sub(r"^(`{3,})text\n.*?\n\1$", "", md, flags=re.M | re.S)
    assert "<img" not in md and "<script" not in md
    assert not re.search(r"(?<!\\)\]\(javascript", md)  # "\](" is no link
    assert "&lt;img src=x onerror=alert(1)>" in md
    images = re.findall(r"<img\b[^>]*>", page)
    assert images and all(re.fullmatch(r'<img alt="[^"<>]*" src="data:image/png;base64,'
                                       r'[A-Za-z0-9+/=]+">', i) for i in images)
    own = f"<script>{B.FOLD_SCRIPT}</script>"  # the report's one script: folding wide tables
    assert page.count(own) == 1
    page = page.replace(own, "")
    assert "<script" not in page and "onerror=alert(1)>" not in page
    assert "&lt;img src=x onerror=alert(1)&gt;" in page


def test_every_document_part_escapes_its_text(tmp_path):
    doc = B.Document(tmp_path)
    doc.heading(TAG)
    doc.para(f"# {TAG}\n\n{LINK}")
    doc.para(TAG, cls="warn")
    doc.pre(f"```\n{TAG}")
    doc.table(pd.DataFrame({TAG: [LINK], "b": ["- " + TAG]}), caption=TAG)
    doc.verdicts([f"1. {TAG}", LINK])
    doc.open_fold(f"{TAG}\n\n{LINK}")
    doc.close_fold()
    doc.details(TAG, pd.DataFrame({"a": [TAG]}))
    doc.figure(F._empty(STRATEGY), "a/../" + STRATEGY + ".png", TAG)
    doc.write(TAG)
    md = (tmp_path / "summary.md").read_text(encoding="utf-8")
    page = (tmp_path / "index.html").read_text(encoding="utf-8")
    assert f"````text\n```\n{TAG}\n````" in md  # the text cannot close its code block
    assert_inert(md, page)
    assert [p.parent for p in tmp_path.glob("*.png")] == [tmp_path]
    assert re.search(r"^# &lt;img", md, re.M) and re.search(r"^\\# &lt;img", md, re.M)
    assert "\n- 1\\. &lt;img" in md  # a verdict cannot start a list of its own


def test_a_report_of_a_run_with_hostile_names_shows_them_as_text(pig_runs, tmp_path):
    """A run folder named like a tag, whose strategies, seats, items and overrides hold tags,
    links and a matplotlib formula (as a plugin or a hand-edited run.json may): the report
    builds and shows them all as text."""
    run = tmp_path / TAG
    shutil.copytree(pig_runs["base"], run)
    meta = json.loads((run / "run.json").read_text())
    rename = {"hold-at": STRATEGY}
    meta["strategies"] = [rename.get(s, s) for s in meta["strategies"]]
    meta["strategy_weights"] = {rename.get(k, k): v
                                for k, v in (meta.get("strategy_weights") or {}).items()}
    meta["seat_names"] = [TAG, LINK]
    meta["overrides"] = {"target": TAG}
    meta["item_columns"] = [c.replace("hold:", f"{TAG}:") for c in meta["item_columns"]]
    (run / "run.json").write_text(json.dumps(meta), encoding="utf-8")
    games = pd.read_parquet(run / "games.parquet")
    for c in [c for c in games.columns if c.startswith("strategy_s")]:
        games[c] = games[c].cat.rename_categories(lambda s: rename.get(s, s))
    games.to_parquet(run / "games.parquet", index=False)
    items = pq.read_table(run / "items.parquet")
    pq.write_table(items.rename_columns([c.replace("hold:", f"{TAG}:")
                                         for c in items.column_names]), run / "items.parquet")
    out = B.build_report([run], tmp_path / "report", title=TAG)
    md = (out / "summary.md").read_text(encoding="utf-8")
    page = (out / "index.html").read_text(encoding="utf-8")
    assert_inert(md, page)
    assert "&lt;img src=x onerror=alert(1)> (made)" in md  # the item, by its name
    assert not (tmp_path / "out.png").exists() and not list(tmp_path.glob("*.png"))


FORMULA = "=cmd|' /C calc'!A0"


def test_export_writes_no_cell_a_spreadsheet_would_run(pig_runs, tmp_path):
    """A strategy and an item named like formulas (a plugin's names are not checked) are
    written with a leading apostrophe; numbers, negative ones too, stay numbers."""
    run = tmp_path / "run"
    shutil.copytree(pig_runs["base"], run)
    games = pd.read_parquet(run / "games.parquet")
    games["strategy_s1"] = games["strategy_s1"].cat.rename_categories(
        lambda s: FORMULA if s == "random" else s)
    games["score_s2"] = -games["score_s2"] - 1  # a game whose scores can be negative
    games.to_parquet(run / "games.parquet", index=False)
    items = pq.read_table(run / "items.parquet")
    pq.write_table(items.rename_columns([c.replace("hold:", "@SUM(1+1):")
                                         for c in items.column_names]), run / "items.parquet")
    res = CliRunner().invoke(main, ["export", str(run), "--out", str(tmp_path / "csv")])
    assert res.exit_code == 0, res.output
    for name in ("games.csv", "items.csv"):
        with open(tmp_path / "csv" / name, encoding="utf-8", newline="") as fh:
            table = list(csv.reader(fh))
        for row in table:
            for cell in row:
                assert not re.match(r"[=+\-@\t\r]", cell) or _number(cell), (name, cell)
    games_csv = (tmp_path / "csv" / "games.csv").read_text(encoding="utf-8")
    items_csv = (tmp_path / "csv" / "items.csv").read_text(encoding="utf-8")
    assert f"'{FORMULA}" in games_csv and "'@SUM(1+1):made" in items_csv
    back = pd.read_csv(tmp_path / "csv" / "games.csv")
    assert back["score_s2"].tolist() == games["score_s2"].tolist()


def _number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True
