"""Workbench jobs in real worker processes: a run started from the form plays the command
line it showed, shows its progress while it plays, is cancelled keeping its finished games,
and resumes (tests/test_resume.py shows a resumed run's tables are those of a run never
stopped). Rabbit Hunt at random (an installed game:
the worker is a process of its own, where the tests' Pig is not registered)."""

from __future__ import annotations

import json
import time

import pytest
from serve_session import TOKEN, session

GAMES = 100_000


def _wait(client, job_id, until, seconds=120):
    end = time.time() + seconds
    while time.time() < end:
        job = client.get(f"/api/jobs/{job_id}").json()
        if until(job):
            return job
        time.sleep(0.1)
    pytest.fail(f"job {job_id} never got there: {job}")


@pytest.fixture
def live(tmp_path, monkeypatch):
    from simkit.serve.app import make_app

    monkeypatch.chdir(tmp_path)
    app = make_app(tmp_path / "runs", "runs", TOKEN, hosts={"testserver"}, jobs=1)
    with session(app) as client:  # the lifespan: its end stops the jobs' loop
        yield client, tmp_path / "runs"


def test_a_job_plays_its_command_shows_progress_cancels_and_resumes(live):
    client, runs = live
    form = {"kind": "run", "game": "rabbit-hunt", "players": "2", "strategies": "random",
            "games": str(GAMES), "seed": "5"}
    shown = client.post("/api/command", json=form).json()["command"]
    job = client.post("/api/jobs", json=form).json()
    assert job["command"] == shown and job["status"] == "queued"
    seen = _wait(client, job["id"], lambda j: (j["summary"].get("done") or 0) > 0)
    est = seen["summary"]["estimate"]
    assert est["low"] <= est["value"] <= est["high"]
    assert 0 < seen["summary"]["done"] < GAMES, "cancel needs a run still playing"
    client.post(f"/api/jobs/{job['id']}/cancel", json={})
    stopped = _wait(client, job["id"], lambda j: j["status"] not in ("running", "queued"))
    assert stopped["status"] == "cancelled", stopped["message"]
    meta = json.loads((runs / job["out"] / "run.json").read_text())
    assert meta["complete"] is False and 0 < meta["games_completed"] < GAMES
    res = client.post(f"/api/jobs/{job['id']}/resume", json={}).json()
    assert res["resume"] is True
    done = _wait(client, job["id"], lambda j: j["status"] not in ("running", "queued"))
    assert done["status"] == "done", done["message"]
    assert done["progress"]["runs"][0]["first"] == meta["games_completed"]
    again = json.loads((runs / job["out"] / "run.json").read_text())
    assert again["complete"] and again["resumed_at"] == [meta["games_completed"]]
    listed = {f["path"]: f for f in client.get("/api/folders").json()["folders"]}
    assert listed[job["out"]]["games"] == GAMES


def test_a_job_the_server_did_not_see_end_is_offered_for_resuming(tmp_path):
    from simkit.serve.jobs import Jobs

    folder = tmp_path / "runs" / ".workbench" / "jobs" / "20261205-000000-abcdef"
    folder.mkdir(parents=True)
    (folder / "job.json").write_text(json.dumps({
        "id": folder.name, "argv": ["run", "pig", "--games", "10"], "status": "running",
        "out": "x", "started": 1.0}))
    jobs = Jobs(tmp_path / "runs")
    [job] = jobs.all()
    assert job["status"] == "interrupted" and "resume" in job["message"]


def test_a_job_cancelled_as_it_starts_says_so_in_one_line(live):
    client, runs = live
    form = {"kind": "run", "game": "rabbit-hunt", "players": "2", "games": "1000"}
    job = client.post("/api/jobs", json=form).json()
    _wait(client, job["id"], lambda j: j["status"] == "running")
    client.post(f"/api/jobs/{job['id']}/cancel", json={})
    stopped = _wait(client, job["id"], lambda j: j["status"] not in ("running", "queued"))
    log = (runs / ".workbench" / "jobs" / job["id"] / "log.txt").read_text()
    assert stopped["status"] == "cancelled", (stopped, log)
    assert "Traceback" not in log and stopped["message"].startswith("interrupted: ")


def test_stopping_the_server_keeps_a_jobs_games_for_the_next_to_resume(tmp_path, monkeypatch):
    from simkit.serve.app import make_app
    from simkit.serve.jobs import Jobs

    monkeypatch.chdir(tmp_path)
    app = make_app(tmp_path / "runs", "runs", TOKEN, hosts={"testserver"})
    form = {"kind": "run", "game": "rabbit-hunt", "players": "2", "games": str(GAMES)}
    with session(app) as client:
        job = client.post("/api/jobs", json=form).json()
        _wait(client, job["id"], lambda j: (j["summary"].get("done") or 0) > 0)
    # the server stopped (its lifespan's end): the job got Ctrl-C and kept its games
    meta = json.loads((tmp_path / "runs" / job["out"] / "run.json").read_text())
    assert meta["complete"] is False and meta["games_completed"] > 0
    [again] = Jobs(tmp_path / "runs").all()  # the next server's queue
    assert again["status"] == "interrupted"


def test_a_sensitivity_job_shows_progress_cancels_and_resumes(live):
    from simkit import folders

    client, runs = live
    form = {"kind": "sensitivity", "game": "rabbit-hunt", "players": "2", "strategies": "random",
            "games": "20000", "seed": "5", "keys": "carrots.start"}
    shown = client.post("/api/command", json=form).json()
    job = client.post("/api/jobs", json=form).json()
    assert job["command"] == shown["command"] and job["total"] == 3 * 20_000
    seen = _wait(client, job["id"], lambda j: (j["summary"].get("done") or 0) > 0)
    assert seen["summary"]["total"] == 3 * 20_000 and seen["summary"]["estimate"]
    client.post(f"/api/jobs/{job['id']}/cancel", json={})
    stopped = _wait(client, job["id"], lambda j: j["status"] not in ("running", "queued"))
    assert stopped["status"] == "cancelled", stopped["message"]
    assert not (runs / job["out"] / "summary.json").exists()
    assert client.post(f"/api/jobs/{job['id']}/resume", json={}).json()["resume"] is True
    done = _wait(client, job["id"], lambda j: j["status"] not in ("running", "queued"))
    assert done["status"] == "done", done["message"]
    folder = runs / job["out"]
    assert folders.kind_of(folder) == "sensitivity" and (folder / "summary.json").is_file()
    points = sorted((folder / "points").iterdir())
    assert len(points) == 3 and all(
        json.loads((p / "run.json").read_text())["games_completed"] == 20_000 for p in points)
    res = client.get("/api/result", params={"path": job["out"]}).json()
    assert res["verdicts"]
    # the page's tornado is the report's: every bar the report draws, from the same data
    from simkit.reports import figures as F

    [row] = res["figures"]["tornado"]["rows"]
    assert row["key"] == "carrots.start" and (row["down"]["tried"], row["up"]["tried"]) == \
        ("1", "3")
    summary = json.loads((folder / "summary.json").read_text())
    drawn = sorted(round(b.get_width(), 9) for b in F.tornado_figure(summary).axes[0].patches)
    assert drawn == sorted(round(row[d]["value"], 9) for d in ("down", "up"))


def test_a_balancing_search_stopped_before_its_first_trial_plays_again(tmp_path):
    """`simkit balance --resume` refuses a folder that holds no trial yet: such a job plays
    again from the start in its own folder; one with trials resumes them."""
    from simkit.serve.jobs import resume_options

    runs = tmp_path / "runs"
    (runs / "balance-x").mkdir(parents=True)
    job = {"argv": ["balance", "rabbit-hunt", "--vary", "carrots.start"], "out": "balance-x",
           "resume": True}
    assert resume_options(job, runs) == ["--overwrite"]
    (runs / "balance-x" / "trials.partial.json").write_text("[]")
    assert resume_options(job, runs) == ["--resume"]
    assert resume_options({**job, "argv": ["run", "pig"]}, runs) == ["--resume"]
    assert resume_options({**job, "resume": False}, runs) == []
