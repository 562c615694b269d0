"""Every folder simkit writes has a page: each exploration writes its own into its folder,
and ``simkit report FOLDER`` opens any of them, with one line for a folder that is not
simkit's."""

from __future__ import annotations

import json
import shutil

import pytest
from click.testing import CliRunner

from simkit.cli import main


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


def test_every_exploration_writes_its_page(pig_folders):
    for kind, folder in pig_folders.items():
        page = (folder / "report" / "index.html").read_text(encoding="utf-8")
        assert {"sweep": "Sweep: target", "balance": "Balance: target",
                "ladder": "Skill ladder"}[kind] in page, kind


@pytest.mark.parametrize("kind", ["sweep", "balance", "ladder"])
def test_report_opens_an_exploration_folder(pig_folders, tmp_path, kind):
    folder = tmp_path / kind
    shutil.copytree(pig_folders[kind], folder)
    shutil.rmtree(folder / "report")
    res = invoke("report", folder)  # no --out: the folder's own report/
    assert res.exit_code == 0, res.output
    assert (folder / "report" / "index.html").is_file()
    assert res.output.strip() == f"report: {folder / 'report' / 'index.html'}"


def test_report_opens_a_whatif_and_an_experiment(pig_reported):
    page = (pig_reported["whatif"] / "report" / "index.html").read_text(encoding="utf-8")
    assert "What-if for pig (2 players): target 30 -&gt; 40" in page
    page = (pig_reported["experiment"] / "report" / "index.html").read_text(encoding="utf-8")
    assert "pig: 2 runs" in page and "Comparison of the runs" in page


def test_report_opens_a_training_folder(tmp_path):
    training = tmp_path / "pig-2p.training"  # `simkit train` writes NAME.training
    training.mkdir()
    (training / "train.json").write_text(json.dumps({
        "spec": {"game": "pig", "players": 2, "seed": 3}, "accepted": 1, "games": 500,
        "generations": [{"generation": 1, "games": 500, "loss": 0.6, "accepted": True,
                         "vs_last": {"games": 400, "score": 0.72},
                         "yardstick": {"strategy": "random", "games": 200,
                                       "win_rate": 0.705}}]}))
    res = invoke("report", training, "--json", "--quiet")
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["ladders"][0]["kind"] == "training"
    page = (training / "report" / "index.html").read_text(encoding="utf-8")
    assert "Training: pig, 2 players" in page and "won 70.5% of 200" in page


def test_a_folder_that_is_not_simkits_is_one_line(pig_runs, pig_reported, tmp_path):
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("mine")
    shutil.copytree(pig_runs["base"], mine / "a-run")  # a run among the user's files
    report = pig_reported["whatif"] / "report"
    cases = [((mine,), "a folder simkit did not write"),
             ((tmp_path / "nothere",), "does not exist"),
             ((mine / "notes.txt",), "is a file"),
             ((report,), "is a report already"),
             ((pig_runs["base"], pig_runs["p3"]), "needs --out")]
    for args, message in cases:
        res = invoke("report", *args)
        assert res.exit_code == 2, res.output
        lines = res.output.strip().splitlines()
        assert len(lines) == 1 and message in lines[0], res.output
        if message != "needs --out":
            assert "simkit report takes" in lines[0] or "already" in lines[0]
    assert not (mine / "report").exists()  # nothing written
