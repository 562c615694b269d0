"""Report folders built from real (small) Pig runs."""

from __future__ import annotations

import base64
import json
import re
import shutil
import warnings

import pandas as pd
import pytest
from simkit.reports import build as B
from simkit.reports import figures as F

from simkit.errors import SimkitError

PNG = b"\x89PNG\r\n\x1a\n"


def leftovers(parent, name):
    return [p.name for p in parent.iterdir() if p.name.startswith(f".{name}.")]


def embedded_pngs(text):
    return [base64.b64decode(m) for m in re.findall(r'src="data:image/png;base64,([^"]+)"',
                                                     text)]


def test_single_run_report(pig_runs, tmp_path):
    out = B.build_report([pig_runs["base"]], tmp_path / "report")
    assert out == tmp_path / "report"
    page = (out / "index.html").read_text(encoding="utf-8")
    images = embedded_pngs(page)
    assert len(images) >= 5
    assert all(img.startswith(PNG) for img in images)
    assert "<style>" in page and "<link" not in page  # self-contained
    pngs = sorted(p.name for p in out.glob("*.png"))
    assert {"seat_outcomes.png", "strategy_outcomes.png", "game_length.png",
            "endings.png", "item_value_hold-at.png", "item_value_random.png"} <= set(pngs)
    md = (out / "summary.md").read_text(encoding="utf-8")
    for name in pngs:
        assert f"]({name})" in md
    # the settings: game version, seed, strategies, elapsed time, every parameter's source
    meta = json.loads((pig_runs["base"] / "run.json").read_text())
    for text in (page, md):
        assert f"game version {meta['game_version']}" in text
        assert "master seed" in text and "hold-at, random" in text
        assert "elapsed" in text
        assert "Classic Pig plays to 100" in text  # the why of a parameter
        assert "Outcome by seat" in text and "First-player advantage" in text
        assert text.index("Verdict") < text.index("Outcome by seat")  # the verdict first
        assert "Strongest and weakest choices (hold-at)" in text  # strategies apart
        assert "Strongest and weakest choices (random)" in text
        outcomes = text.split("Outcomes (")[1]
        assert "Bust (suffered)" in outcomes and "bust:suffered" not in text  # apart, named
        assert "<details" in text  # long tables folded
    assert leftovers(tmp_path, "report") == []


def test_changed_parameter_and_source_shown(pig_runs, tmp_path):
    out = B.build_report([pig_runs["changed"]], tmp_path / "r")
    md = (out / "summary.md").read_text(encoding="utf-8")
    section = md.split("Changed parameters (1)")[1].split("\n\n")[1]
    assert "| target | 40 | 30 | assumed |" in section
    assert "target=40" in md


def test_several_runs_compare_player_counts(pig_runs, tmp_path):
    dirs = [pig_runs["base"], pig_runs["p3"], pig_runs["p4"]]
    out = B.build_report(dirs, tmp_path / "multi", title="Pig at 2, 3 and 4 players")
    page = (out / "index.html").read_text(encoding="utf-8")
    assert "<title>Pig at 2, 3 and 4 players</title>" in page
    md = (out / "summary.md").read_text(encoding="utf-8")
    comparison = md.split("## Comparison of the runs")[1].split("## The runs")[0]
    rows = [line for line in comparison.splitlines() if line.startswith("| ") and "pig" in line]
    assert [r.split(" | ")[1] for r in rows[:3]] == ["2", "3", "4"]
    assert (out / "comparison_first_player_advantage.png").is_file()
    for i in (1, 2, 3):
        assert (out / f"run{i}_seat_outcomes.png").is_file()
        assert f"<summary>Run {i}: pig" in md
    # every strategy of every run is compared, even one that is in a single run
    strategies = comparison.split("Each strategy's outright wins")[1]
    assert "| hold-at |" in strategies and "| random |" in strategies
    assert md.index("**Verdict**") < md.index("## Comparison of the runs")


def test_whatif_report_leads_with_differences(pig_runs, tmp_path):
    out = B.build_whatif_report(pig_runs["base"], pig_runs["changed"], tmp_path / "w")
    md = (out / "summary.md").read_text(encoding="utf-8")
    assert md.index("**Verdict**") < md.index("## Differences")
    verdict = md.split("**Verdict**")[1].split("##")[0]
    assert "With seats playing hold-at and random, first-player advantage" in verdict
    assert md.index("## Differences") < md.index("Base run:") < md.index("Changed run:")
    assert "| target | 30 | 40 |" in md
    assert "target 30 -> 40" in md.splitlines()[0]
    assert (out / "whatif_differences.png").read_bytes().startswith(PNG)
    page = (out / "index.html").read_text(encoding="utf-8")
    assert 'class="hl"' in page  # a difference whose interval excludes 0 is highlighted
    assert "item value" in md and "paired by game" in md


def test_whatif_of_identical_runs_is_zero(pig_runs, tmp_path):
    out = B.build_whatif_report(pig_runs["base"], pig_runs["base"], tmp_path / "same")
    md = (out / "summary.md").read_text(encoding="utf-8")
    diffs = md.split("## Differences")[1].split("![")[0]
    rows = [r for r in diffs.splitlines() if r.startswith("| win rate")]
    assert rows and all("| +0.00 pp | [+0.00 pp, +0.00 pp] | 1.000 |" in r for r in rows)


def test_not_a_run_folder(tmp_path):
    (tmp_path / "empty").mkdir()
    with pytest.raises(SimkitError, match="not a simkit run folder"):
        B.build_report([tmp_path / "empty"], tmp_path / "out")
    with pytest.raises(SimkitError, match="not a simkit run folder"):
        B.build_report([tmp_path / "nowhere"], tmp_path / "out")
    assert not (tmp_path / "out").exists()
    assert leftovers(tmp_path, "out") == []


def test_damaged_run_folder(pig_runs, tmp_path):
    bad = tmp_path / "bad"
    shutil.copytree(pig_runs["base"], bad)
    (bad / "games.parquet").write_bytes(b"not parquet at all")
    with pytest.raises(SimkitError, match="unreadable"):
        B.build_report([bad], tmp_path / "out")
    (bad / "run.json").write_text("{ broken")
    with pytest.raises(SimkitError, match="malformed"):
        B.build_report([bad], tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_failure_midway_leaves_nothing(pig_runs, tmp_path, monkeypatch):
    def boom(*args, **kwargs):
        raise RuntimeError("figure failed")

    monkeypatch.setattr(F, "endings_figure", boom)
    with pytest.raises(RuntimeError, match="figure failed"):
        B.build_report([pig_runs["base"]], tmp_path / "out")
    assert not (tmp_path / "out").exists()
    assert leftovers(tmp_path, "out") == []


def test_failed_rebuild_keeps_old_report_and_success_replaces_it(pig_runs, tmp_path,
                                                                 monkeypatch):
    out = B.build_report([pig_runs["base"]], tmp_path / "out", title="first")
    monkeypatch.setattr(F, "item_value_figure", lambda *a, **k: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        B.build_report([pig_runs["base"]], out, title="second")
    assert "<title>first</title>" in (out / "index.html").read_text(encoding="utf-8")
    monkeypatch.undo()
    B.build_report([pig_runs["base"]], out, title="third")
    assert "<title>third</title>" in (out / "index.html").read_text(encoding="utf-8")
    assert leftovers(tmp_path, "out") == []


def test_refuses_to_overwrite_a_run_or_other_folder(pig_runs, tmp_path):
    with pytest.raises(SimkitError, match="run folder"):
        B.build_report([pig_runs["base"]], pig_runs["base"])
    other = tmp_path / "precious"
    other.mkdir()
    (other / "notes.txt").write_text("keep me")
    with pytest.raises(SimkitError, match="not written by simkit"):
        B.build_report([pig_runs["base"]], other)
    assert (other / "notes.txt").read_text() == "keep me"


def test_incomplete_run_is_reported_with_a_warning(pig_runs, tmp_path):
    run = tmp_path / "partial"
    shutil.copytree(pig_runs["base"], run)
    meta = json.loads((run / "run.json").read_text())
    meta["complete"] = False
    meta["games"] = 10 * meta["games"]
    (run / "run.json").write_text(json.dumps(meta))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the build itself must not warn loudly or fail
        out = B.build_report([run], tmp_path / "r")
    page = (out / "index.html").read_text(encoding="utf-8")
    assert 'class="warn"' in page and "incomplete run" in page
    with pytest.warns(UserWarning, match="incomplete run"):
        B.load_run(run)


def test_whatif_of_different_games_fails(pig_runs, tmp_path):
    other = tmp_path / "other"
    shutil.copytree(pig_runs["changed"], other)
    meta = json.loads((other / "run.json").read_text())
    meta["game"] = "avalon"
    (other / "run.json").write_text(json.dumps(meta))
    with pytest.raises(SimkitError, match="one game"):
        B.build_whatif_report(pig_runs["base"], other, tmp_path / "w")
    assert not (tmp_path / "w").exists()


def test_whatif_of_different_player_counts_fails(pig_runs, tmp_path):
    with pytest.raises(SimkitError, match="player count"):
        B.build_whatif_report(pig_runs["base"], pig_runs["p3"], tmp_path / "w")
    assert not (tmp_path / "w").exists() and leftovers(tmp_path, "w") == []


def test_whatif_against_an_interrupted_run_pairs_the_common_games(pig_runs, tmp_path):
    import pyarrow.parquet as pq

    part = tmp_path / "part"
    shutil.copytree(pig_runs["changed"], part)
    pq.write_table(pq.read_table(part / "games.parquet").slice(0, 1000), part / "games.parquet")
    pq.write_table(pq.read_table(part / "items.parquet").slice(0, 2000), part / "items.parquet")
    meta = json.loads((part / "run.json").read_text())
    meta.update(complete=False, games_completed=1000)
    (part / "run.json").write_text(json.dumps(meta))
    out = B.build_whatif_report(pig_runs["base"], part, tmp_path / "w")
    md = (out / "summary.md").read_text(encoding="utf-8")
    assert "only 1,000 games were played by both runs" in md
    assert "incomplete run" in md
    # n and the method are the same in every row of the main table: said once, above it
    assert "every row: n 1,000; every row: method paired by game" in md
    occ = [r for r in md.splitlines() if r.startswith("| item occurrence | Hold (made) |")]
    assert "| 1,000 | paired by game |" in occ[0]


def test_long_cells_wrap_and_the_longest_is_cut_with_its_whole_text_in_the_title():
    long = "numpy 2.4.6, " * 40  # 520 characters
    page = B.to_html(pd.DataFrame({"setting": ["versions", "games"],
                                   "value": [long, "2,000"]}))
    cell = page.split("<td", 3)[2]  # the versions cell
    assert 'class="long"' in cell and f'title="{long}"' in cell
    assert ">" + long[:B.CLIPPED_CELL - 3] + "...</td>" in cell
    assert 'class="long"' not in page.split("<td", 3)[3]  # a short value stays as it is


def test_missing_figures_are_a_dash_and_the_terminal_never_prints_p_0():
    from simkit.cli import _whatif_text

    assert B.pct(float("nan")) == B.points(None) == B.pvalue(float("nan")) == "\u2014"
    table = pd.DataFrame({
        "measure": ["win rate", "legal moves a decision", "item value"],
        "group": ["seat 1", "per decision", "x:made"], "base": [0.5, 1.7, float("nan")],
        "changed": [0.6, float("nan"), 0.1], "difference": [0.1, float("nan"), float("nan")],
        "ci_low": [0.09, float("nan"), float("nan")],
        "ci_high": [0.11, float("nan"), float("nan")], "p_value": [0.0, float("nan"), 0.5],
        "n": [100, 100, 200], "method": ["paired by game"] * 3})
    text = _whatif_text(table)
    assert "< 0.001" in text and "nan" not in text.lower()
    assert "legal moves" not in text  # no difference: left out
    assert "(1 item rows: see the report)" in text
