"""Bad input that once reached a traceback, a MemoryError or silent acceptance (issue 27):
each is now refused with one line that names the problem and the valid choices, exit
status 2, and nothing written anywhere (every test compares the whole working folder
before and after)."""

from __future__ import annotations

import itertools
import json
import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from simkit.cli import main


def tree(folder: Path) -> dict[str, int]:
    """Every file and folder under ``folder`` (hidden ones too), with its size."""
    return {str(p.relative_to(folder)): p.stat().st_size if p.is_file() else -1
            for p in folder.rglob("*")}


def refused(args, *words) -> str:
    """Run ``simkit ARGS``: exit status 2, one line naming ``words``; returns the line."""
    res = CliRunner().invoke(main, [str(a) for a in args])
    assert res.exit_code == 2, (args, res.output)
    lines = res.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), (args, res.output)
    for w in words:
        assert w in lines[0], (w, lines[0])
    return lines[0]


@pytest.fixture
def here(tmp_path, monkeypatch) -> Path:
    """A working folder whose every file is compared before and after the test's calls."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


def refused_writing_nothing(here: Path, args, *words) -> str:
    before = tree(here)
    line = refused(args, *words)
    assert tree(here) == before, "a refused command wrote something"
    return line


# ------------------------------------------------------------------ card files and outputs

@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero")
def test_a_device_as_a_card_file_is_refused_before_it_is_read(here):
    refused_writing_nothing(here, ["rules", "rabbit-hunt", "--cards", "farmland=/dev/zero"],
                            "/dev/zero", "not a regular file")


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero")
def test_a_device_as_an_experiment_file_is_refused_before_it_is_read(here):
    (here / "zero.toml").symlink_to("/dev/zero")
    refused_writing_nothing(here, ["run", "zero.toml", "--out", "x"], "experiment file",
                            "not a regular file")


def test_a_card_file_over_10_mb_is_refused_before_it_is_parsed(here):
    big = here / "farmland.csv"
    row = "a,1\n"
    big.write_text("name,count\n" + row * (10 * 2**20 // len(row) + 1), encoding="utf-8")
    refused_writing_nothing(here, ["rules", "rabbit-hunt", "--cards", big],
                            "farmland.csv is 10.0 MB", "at most 10 MB")


def test_a_card_file_export_under_a_file_is_refused(here):
    (here / "afile").write_text("mine")
    refused_writing_nothing(here, ["cards", "rabbit-hunt", "--export", "afile/x.csv"],
                            "afile is a file")


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="no /proc")
@pytest.mark.parametrize("args", [["cards", "rabbit-hunt", "--export", "/proc/x.csv"],
                                  ["cards", "rabbit-hunt", "--export", "/proc/x"],
                                  ["run", "pig", "--players", 2, "--games", 2, "--out",
                                   "/proc/x"]])
def test_an_output_where_nothing_can_be_written_is_refused(here, args):
    refused_writing_nothing(here, args, "nothing can be written in /proc",
                            "choose another")


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="no /proc")
def test_an_export_to_proc_is_refused(here, pig_run):
    refused_writing_nothing(here, ["export", pig_run, "--out", "/proc/x"],
                            "nothing can be written in /proc")


# ------------------------------------------------------------------ numbers


@pytest.mark.parametrize(("args", "words"), [
    (["--strategies", "ismcts@²"], ["'ismcts@²'", "from 1 to 1,000,000"]),
    (["--strategies", "ismcts@٣"], ["'ismcts@٣'", "from 1 to 1,000,000"]),
    (["--trace-turns", "²"], ["--trace-turns", "or 'all'", "digits 0-9"]),
    (["--trace-turns", "٣"], ["--trace-turns", "or 'all'", "digits 0-9"]),
    (["--players", "3", "--kingmaking", "²"], ["--kingmaking", "or 'all'"]),
    (["--games", "٣"], ["--games must be a whole number"]),
    (["--fair", "nan"], ["--fair", "more than 0 and at most 50"]),
    (["--precision", "nan"], ["--precision", "more than 0 and less than 50"]),
    (["--bogus"], ["No such option", "simkit run --help"]),
])
def test_numbers_are_ascii_finite_and_in_range(here, args, words):
    base = ["run", "pig", "--games", "2", "--out", "r"]
    refused_writing_nothing(here, base + (["--players", "2"] if "--players" not in args
                                          else []) + args, *words)


def test_a_bare_simkit_still_shows_its_help():
    res = CliRunner().invoke(main, [])  # a usage error is one line, but this one is the help
    assert "Usage:" in res.output and "Commands:" in res.output


@pytest.mark.parametrize("budget", ["1e300", "nan", "inf", "169h", "0", "٣m", "²h"])
def test_a_ladder_time_budget_is_bounded(here, budget, monkeypatch):
    import simkit.ladder

    def played(*args, **kwargs):  # 1e300 was once accepted: 10^8 games a table
        raise AssertionError("the ladder was played")

    monkeypatch.setattr(simkit.ladder, "measure_costs", played)
    refused_writing_nothing(here, ["ladder", "pig", "--players", 2, "--strategies",
                                   "random,hold-at", "--time", budget, "--out", "lad"],
                            "time budget", "more than 0 and at most 168h")


def test_a_ladder_time_budget_of_a_week_is_accepted():
    from simkit.ladder import parse_duration

    assert parse_duration("168h") == 7 * 24 * 3600


@pytest.mark.parametrize(("vary", "words"), [
    ("target=1..100000000000", ["target=100000000000 is outside its bounds 1..1000"]),
    ("max_turns=1:100000:1e-300", ["more than 100,000 values"]),
    ("max_turns=1:1e308:1", ["outside its bounds 1..100000"]),
    ("target=1:1000:1e-305", ["more than 100,000 values"]),  # 10^308 steps: finite
    ("target=nan:10:1", ["'nan' is not a finite number"]),
    ("target=1:10:nan", ["'nan' is not a finite number"]),
    ("target=nan..nan", ["'nan' is not a finite number"]),
    ("target=inf,3", ["'inf' is not a finite number"]),
    ("target=٣,4", ["'٣' is not a finite number"]),
])
def test_a_sweep_range_is_checked_before_any_value_is_made(here, vary, words):
    refused_writing_nothing(here, ["sweep", "pig", "--players", 2, "--vary", vary, "--games",
                                   2, "--out", "s"], *words)


def test_a_grid_is_measured_before_it_is_built(here, monkeypatch):
    from simkit import explore

    def guarded(*ranges):
        size = 1
        for r in ranges:
            size *= len(r)
        assert size <= 100_000, f"a grid of {size:,} points was built"
        return itertools.product(*ranges)

    monkeypatch.setattr(explore, "product", guarded)
    refused_writing_nothing(here, ["sweep", "pig", "--players", 2, "--vary",
                                   "max_turns=1..100000", "--vary", "target=1..1000",
                                   "--vary", "die_faces=2..20", "--max-points", 100_000,
                                   "--out", "s"],
                            "the grid has 1,900,000,000 points", "--max-points 100,000")


def test_a_sweep_of_one_game_a_point_is_refused_also_when_resumed(here):
    args = ["sweep", "pig", "--players", 2, "--vary", "target=20,30", "--out", "s",
            "--quiet", "--workers", 1]
    refused_writing_nothing(here, [*args, "--games", 1], "--games must be at least 2")
    assert CliRunner().invoke(main, [str(a) for a in [*args, "--games", 2]]).exit_code == 0
    refused_writing_nothing(here, [*args, "--games", 1, "--resume"],
                            "--games must be at least 2")


BALANCE = ["balance", "pig", "--players", 2, "--trials", 2, "--games", 4, "--confirm", 1]
"""A small search: a case once accepted plays for a moment, not for minutes, before failing."""


@pytest.mark.parametrize(("args", "words"), [
    (["sensitivity", "pig", "--players", 2, "--keys", "target", "--step", "nan"],
     ["--step must be a finite number more than 0"]),
    (["sensitivity", "pig", "--players", 2, "--keys", "target", "--step", "inf"],
     ["--step must be a finite number more than 0"]),
    (["sensitivity", "pig", "--players", 2, "--keys", "target", "--games", 1],
     ["--games must be at least 2"]),
    ([*BALANCE, "--vary", "max_turns=0:1e308:1e-300"], ["outside its bounds"]),
    ([*BALANCE, "--vary", "max_turns=1:100000:1e-300"], ["more than 100,000 values"]),
    ([*BALANCE, "--vary", "target", "--objective", "length=nan..nan"],
     ["length takes a range of turns", "e.g. length=20..30"]),
    ([*BALANCE, "--vary", "target", "--confirm-games", 1],
     ["--confirm-games must be a whole number of at least 2"]),
    (["whatif", "pig", "--players", 2, "--set", "target=40", "--precision", "nan"],
     ["--precision", "more than 0 and less than 50"]),
])
def test_exploration_options_are_checked_before_anything_is_written(here, args, words):
    refused_writing_nothing(here, [*args, "--out", "x"], *words)


@pytest.mark.parametrize(("table", "body", "words"), [
    ("sweep", 'vary = ["target=nan:10:1"]', ["sweep 1", "'nan' is not a finite number"]),
    ("sweep", 'vary = ["target=1:10:nan"]', ["'nan' is not a finite number"]),
    ("sweep", 'vary = ["target=20,30"]\nprecision = nan', ["precision (points)"]),
    ("sweep", 'vary = ["target=20,30"]\ntrace_turns = "²"', ["--trace-turns"]),
    ("sensitivity", 'keys = ["target"]\nstep = nan', ["--step must be a finite number"]),
    ("balance", 'vary = ["target"]\nobjectives = ["length=nan..nan"]', ["length takes"]),
])
def test_an_experiment_file_s_numbers_are_checked_alike(here, table, body, words):
    (here / "e.toml").write_text(f'[[{table}]]\ngame = "pig"\nplayers = 2\ngames = 4\n'
                                 f"{body}\n", encoding="utf-8")
    refused_writing_nothing(here, [table, "e.toml", "--out", "x"], *words)


def test_a_set_of_a_real_number_is_finite():
    from simkit import data
    from simkit.errors import SimkitError

    p = data.Param("speed", 1.5, 1.5, "assumed", "a real number", 0.0, 10.0)
    for bad in (float("nan"), float("inf")):
        with pytest.raises(SimkitError, match="finite number"):
            data.check_value(p, bad)
    assert data.check_value(p, 2) == 2.0


# ------------------------------------------------------------------ damaged run folders

@pytest.fixture(scope="module")
def pig_run(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("runs") / "good"
    res = CliRunner().invoke(main, ["run", "pig", "--players", "3", "--games", "30",
                                    "--trace-turns", "5", "--out", str(out), "--quiet",
                                    "--workers", "1"])
    assert res.exit_code == 0, res.output
    return out


def _edit_meta(change):
    def damage(folder: Path) -> None:
        meta = json.loads((folder / "run.json").read_text(encoding="utf-8"))
        change(meta)
        (folder / "run.json").write_text(json.dumps(meta), encoding="utf-8")
    return damage


def _truncate(name):
    def damage(folder: Path) -> None:
        data = (folder / name).read_bytes()
        (folder / name).write_bytes(data[: len(data) // 3])
    return damage


def _items_of_the_wrong_schema(folder: Path) -> None:
    pq.write_table(pa.table({"game": [0, 1], "seat": ["a", "b"], "hold:made": [1, 2]}),
                   folder / "items.parquet")


META = ("report", "replay", "cards", "export")  # every command reads run.json
TABLES = ("report", "replay", "export")  # cards --run reads run.json alone
DAMAGES = {
    "no game": (_edit_meta(lambda m: m.pop("game")), META, "it has no game"),
    "no players": (_edit_meta(lambda m: m.pop("players")), META, "it has no players"),
    "counts as text": (_edit_meta(lambda m: m.update(games="30", games_completed="30")),
                       META, "games must be a whole number of games, not '30'"),
    "players as text": (_edit_meta(lambda m: m.update(players="3")), META,
                        "players must be a whole number"),
    "schema 99": (_edit_meta(lambda m: m.update(schema_version=99)), META,
                  "reads schemas 1 to 2"),
    "truncated trace": (_truncate("trace.parquet"), TABLES, "trace.parquet is unreadable"),
    "items of another schema": (_items_of_the_wrong_schema, TABLES,
                                "items.parquet is not a simkit items table"),
    "games cut short": (lambda f: pq.write_table(pq.read_table(f / "games.parquet").slice(
        0, 10), f / "games.parquet"), TABLES, "holds 10 games, but run.json says 30"),
}
COMMANDS = {
    "report": lambda run: ["report", run, "--out", "rep"],
    "replay": lambda run: ["replay", "--run", run, "--game", 3],
    "cards": lambda run: ["cards", "--run", run],
    "export": lambda run: ["export", run, "--out", "csv"],
}


@pytest.mark.parametrize("damage", list(DAMAGES))
def test_a_damaged_run_folder_is_named_in_one_line(here, pig_run, damage):
    change, commands, words = DAMAGES[damage]
    run = here / "run"
    shutil.copytree(pig_run, run)
    change(run)
    for command in commands:
        refused_writing_nothing(here, COMMANDS[command](run), words)


def test_an_undamaged_run_folder_passes_the_checks(here, pig_run):
    for command in ("replay", "cards", "export"):  # a report's build: tests/reports
        res = CliRunner().invoke(main, [str(a) for a in COMMANDS[command](pig_run)])
        assert res.exit_code == 0, res.output
