"""Honest clocks, the compile notice and default folders (issue 28): --time bounds the whole
command (what was spent, the summary and report subtracted; a first pass measures the pace),
a budget too small for the smallest ladder is refused before playing; the notice speaks only
when a driver compiles, once a process, saying why; an exploration's default folder names
its change and a digest of its settings. Budgets are planned with an injected clock: no test
here depends on how fast the machine is."""

import json
import time

import pandas as pd
import pytest
from click.testing import CliRunner

import simkit.runner
from simkit import compiling, folders, ladder
from simkit.cli import main
from simkit.clock import Budget, tolerance
from simkit.errors import SimkitError
from simkit.ladder import LadderSpec, first_pass, grow_to, refuse_budget, reserve_seconds


class FakeClock:
    def __init__(self, now: float = 1000.0):
        self.now = now

    def __call__(self) -> float:
        return self.now


def test_a_budget_counts_from_the_process_start_on_an_injected_clock():
    clock = FakeClock()
    b = Budget(300, started=clock.now - 40, clock=clock)
    assert b.elapsed() == 40 and b.left() == 260
    clock.now += 100
    assert b.left() == 160
    assert b.restart().left() == 300  # the next ladder of an experiment file: from now
    assert tolerance(300) == 30 and tolerance(3600) == 360


def test_a_command_counts_from_its_process_start_or_its_own():
    from simkit import clock

    started = clock.process_started()
    clock.command_starts(now=started + 1.5)  # `simkit ladder ...` from a shell: imports count
    assert Budget(60).started == started
    clock.command_starts(now=started + 600)  # a test's or a notebook's later command
    assert Budget(60).started == started + 600


def test_time_spent_and_the_report_are_subtracted_before_the_games_are_counted():
    lad = LadderSpec.make("pig", 2, "random,hold-at", 10)
    costs = {"random": 1e-4, "hold-at": 1e-4}  # a pairing (n) and two levels (2n): 3n e-4 s
    runs = len(lad.schedule())
    plain, _ = first_pass(lad, costs, 1, 100.0, 0.0)
    with_report = reserve_seconds(lad, True)
    assert with_report > reserve_seconds(lad, False) > 0
    timed, pilot = first_pass(lad, costs, 1, 100.0 - 40.0, with_report)  # 40 s compiled
    fits = (100 - 40 - with_report - runs * ladder.RUN_OVERHEAD) / 3e-4
    assert pilot and timed.games == pytest.approx(ladder.PILOT_SHARE * fits, rel=0.01)
    assert plain.games > timed.games
    # too few games to learn a pace from: one pass of all that fit
    one, pilot = first_pass(lad, {"random": 1.0, "hold-at": 1.0}, 1, 30.0, 5.0)
    assert not pilot and one.games == int((30 - 5 - runs * ladder.RUN_OVERHEAD) / 3)


def test_the_second_pass_grows_to_what_the_first_passs_pace_allows():
    # 10 games a table took 12 s, 2 of them playing: 0.2 s a game, 10 s of overhead again
    assert grow_to(10, 12.0, 2.0, left=50.0, reserve=5.0) == 10 + int(35 / 0.2)
    assert grow_to(10, 12.0, 2.0, left=10.0, reserve=5.0) == 10  # no room: as played


def test_a_budget_too_small_for_the_smallest_ladder_is_refused():
    lad = LadderSpec.make("pig", 2, "random,hold-at,first", 10)
    clock = FakeClock()
    budget = Budget(60, started=clock.now - 55, clock=clock)  # 55 s spent compiling
    with pytest.raises(SimkitError) as err:
        refuse_budget(lad, budget, reserve_seconds(lad, True), play=1.0)
    text = str(err.value)
    assert "cannot fit even the smallest ladder" in text and "took 55 s" in text
    assert "give --time" in text and "\n" not in text
    refuse_budget(lad, Budget(600, started=clock.now - 55, clock=clock),
                  reserve_seconds(lad, True), play=1.0)  # fits: no error


def test_cli_refuses_an_impossible_time_before_playing(tmp_path):
    out = tmp_path / "lad"
    res = CliRunner().invoke(main, ["ladder", "pig", "--players", "2", "--strategies",
                                    "random,hold-at,first", "--time", "2s", "--out", str(out),
                                    "--report", str(tmp_path / "rep")])
    assert res.exit_code == 2, res.output
    assert "cannot fit even the smallest ladder" in res.output
    assert "Traceback" not in res.output and not out.exists()


def test_a_ladder_grown_in_two_passes_is_the_ladder_played_at_once(tmp_path, monkeypatch):
    lad = LadderSpec.make("pig", 2, "random,hold-at", 12, seed=4)
    ladder.run_ladder(lad, tmp_path / "once", workers=1)
    first = lad.with_games(4, 4)
    doc = ladder.run_ladder(first, tmp_path / "twice", workers=1, final=False)
    assert doc["complete"] is False and not (tmp_path / "twice" / "summary.json").exists()
    played = []
    real = simkit.runner.run_games
    monkeypatch.setattr(simkit.runner, "run_games",
                        lambda *a, **k: (played.append(k.get("grow")), real(*a, **k))[1])
    ladder.run_ladder(lad, tmp_path / "twice", workers=1, resume=True)
    assert played and all(played)  # every run grown, none played again from its start
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "once" / "games.parquet"),
                                  pd.read_parquet(tmp_path / "twice" / "games.parquet"))


# -- the compile notice


class _Kernel:
    def __init__(self, overloads, cached):
        self.overloads, self._cached = overloads, cached

    def has_cache_index(self):
        return self._cached


class _Driver:
    def __init__(self, overloads=None, cached=False, lineup=("heuristic", "random")):
        play = type("Play", (), {})()
        play.python_copy = _Kernel(overloads or {}, cached)
        self.module = type("M", (), {"play_batch": play})()
        self.compiled = lineup


def test_the_notice_says_once_a_process_what_compiles_and_why(tmp_path, monkeypatch, capsys):
    import numba

    monkeypatch.setattr(numba.config, "CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(compiling, "_said", False)
    files = {"pig_game/rules.py": "a", "simkit/rng.py": "b"}
    monkeypatch.setattr(compiling, "sources_of", lambda driver: dict(files))
    for driver in (_Driver(overloads={"sig": 1}), _Driver(cached=True)):
        with compiling.compiling("pig", driver, True):
            pass  # compiled in this process, or in the cache: nothing to say
    assert capsys.readouterr().err == "" and compiling.read_records() == {}
    with compiling.compiling("pig", _Driver(), True):
        pass
    err = capsys.readouterr().err
    assert err.count("compiling") == 1 and "for heuristic, random" in err
    assert "first run of pig" in err and "usually 5 to 22 s" in err
    with compiling.compiling("pig", _Driver(lineup=("random",)), True):
        pass  # another compile in the same process: no second notice
    assert capsys.readouterr().err == ""
    records = compiling.read_records()
    assert set(records) == {"pig: heuristic, random", "pig: random"}
    files["pig_game/rules.py"] = "changed"
    assert compiling.reason("pig", ("random", "heuristic"), files, records) == \
        "changed since it last compiled: pig_game/rules.py"
    assert compiling.reason("pig", ("first",), files, records) == "a new strategy line-up"
    low, high, measured = compiling.seconds_range("pig", records)
    assert measured and 0 <= low <= high
    assert "here before" in compiling.notice_text("pig", ("first",), "x", (3.0, 9.0, True))


def test_a_slow_first_game_of_a_compiled_lineup_is_no_compile(tmp_path, monkeypatch, capsys):
    """The old notice was a timer: a first game over a second (a strong search) printed
    "compiling" in every run of a ladder."""
    run = simkit.runner.RunSpec.make("pig", 2, 3, 0, "random")
    simkit.runner.run_games(run)  # compiled (or loaded) here
    real = simkit.runner.play_chunk

    def slow(p, start, count):
        if start == 0:  # the first game: the one the old notice timed
            time.sleep(1.3)
        return real(p, start, count)

    monkeypatch.setattr(simkit.runner, "play_chunk", slow)
    monkeypatch.setattr(compiling, "_said", False)
    simkit.runner.run_games(run, out=tmp_path / "r", progress=True, workers=1)
    assert "compiling" not in capsys.readouterr().err


# -- default folders


def test_default_folders_name_the_change_and_digest_the_settings():
    a = folders.default_folder("whatif-pig-2p-s0", "target=50", {"games": 10, "x": [1]})
    assert a == folders.default_folder("whatif-pig-2p-s0", "target=50", {"x": [1], "games": 10})
    assert a.parent.name == "runs" and a.name.startswith("whatif-pig-2p-s0-target=50-")
    assert a != folders.default_folder("whatif-pig-2p-s0", "target=50", {"games": 11, "x": [1]})
    long = folders.default_folder("sweep", "a/b c" * 30, {})
    assert "/" not in long.name and " " not in long.name and len(long.name) < 60


def test_a_second_whatif_with_another_change_is_not_refused(tmp_path, monkeypatch):
    import simkit.reports.build

    def no_report(base, changed, out, fair):  # the folders are the subject: 4 s saved a run
        out.mkdir(parents=True)
        return out

    monkeypatch.setattr(simkit.reports.build, "build_whatif_report", no_report)
    monkeypatch.chdir(tmp_path)
    made = []
    for target in (40, 60, 40):
        res = CliRunner().invoke(main, ["whatif", "pig", "--set", f"target={target}",
                                        "--games", "20", "--quiet", "--workers", "1",
                                        "--players", "2"])
        made.append((res.exit_code, sorted(p.name for p in (tmp_path / "runs").iterdir())))
    assert made[0][0] == 0 and made[1][0] == 0, made
    assert len(made[1][1]) == 2 and all("target=" in n for n in made[1][1])
    assert made[2][0] == 2 and len(made[2][1]) == 2  # the same settings: the same folder
    res = CliRunner().invoke(main, ["sweep", "pig", "--vary", "target=40,60", "--games", "20",
                                    "--quiet", "--workers", "1", "--players", "2"])
    assert res.exit_code == 0, res.output
    sweep = [p for p in (tmp_path / "runs").iterdir() if p.name.startswith("sweep-")]
    assert len(sweep) == 1 and "target" in sweep[0].name
    assert json.loads((sweep[0] / "explore.json").read_text())["spec"]["kind"] == "sweep"
    res = CliRunner().invoke(main, ["sweep", "pig", "--vary", "target=40,60", "--games", "20",
                                    "--quiet", "--workers", "1", "--resume", "--players",
                                    "2"])
    assert res.exit_code == 0, res.output  # the same command finds its folder to resume
