"""Every experiment file shipped in experiments/ is valid: its games, strategies and
overrides exist (each run is checked as `simkit run FILE` would, and each ladder as
`simkit ladder FILE` would, without playing)."""

from pathlib import Path

import pytest

from simkit.experiments import load_experiments, load_ladders

FILES = sorted((Path(__file__).resolve().parents[1] / "experiments").glob("*.toml"))


@pytest.mark.parametrize("path", FILES, ids=[f.stem for f in FILES])
def test_experiment_file_is_valid(path):
    text = path.read_text()
    if "[[ladder]]" in text:
        ladders = load_ladders(path)
        assert ladders and len({x.name for x in ladders}) == len(ladders)
    if "[[run]]" in text or "[[ladder]]" not in text:
        runs = load_experiments(path)
        assert runs and len({r.name for r in runs}) == len(runs)
