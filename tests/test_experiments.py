"""Every experiment file shipped in experiments/ is valid: its games, strategies and
overrides exist (each run is checked as `simkit run FILE` would, without playing)."""

from pathlib import Path

import pytest

from simkit.experiments import load_experiments

FILES = sorted((Path(__file__).resolve().parents[1] / "experiments").glob("*.toml"))


@pytest.mark.parametrize("path", FILES, ids=[f.stem for f in FILES])
def test_experiment_file_is_valid(path):
    runs = load_experiments(path)
    assert runs and len({r.name for r in runs}) == len(runs)
