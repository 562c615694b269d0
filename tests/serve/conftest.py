"""The workbench's fixtures: a runs folder with real small Pig runs (a run and a what-if,
played in this process, where Pig is registered), and a TestClient with a session."""

from __future__ import annotations

import pytest
from click.testing import CliRunner
from serve_session import TOKEN, session


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    from simkit.cli import main

    root = tmp_path_factory.mktemp("serve") / "runs"
    root.mkdir()
    cli = CliRunner()
    for args in (["run", "pig", "--players", "2", "--games", "400", "--seed", "3",
                  "--strategies", "hold-at,random", "--out", str(root / "pig-2p-s3"),
                  "--quiet"],
                 ["whatif", "pig", "--players", "2", "--games", "400", "--seed", "3",
                  "--strategies", "hold-at", "--set", "target=40", "--out",
                  str(root / "whatif-pig-s3"), "--quiet", "--json"]):
        res = cli.invoke(main, args)
        assert res.exit_code == 0, res.output
    # what the command line printed for the what-if, for the page to be compared with
    (root.parent / "whatif.json").write_text(res.output)
    return root


@pytest.fixture(scope="module")
def app(runs):
    from simkit.serve.app import make_app

    return make_app(runs, "runs", TOKEN, hosts={"testserver"}, start_jobs=False)


@pytest.fixture(scope="module")
def client(app):
    return session(app)
