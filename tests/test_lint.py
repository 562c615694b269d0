"""The house style (STYLE.md: ruff, line length about 100) holds for the whole tree."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_ruff_finds_nothing():
    ruff = shutil.which("ruff") or shutil.which("ruff", path=str(Path(sys.executable).parent))
    if ruff is None:
        pytest.skip("ruff is not installed (pip install -e '.[test]' installs it)")
    proc = subprocess.run([ruff, "check", "--no-cache", str(ROOT)], capture_output=True,
                          text=True)
    assert proc.returncode == 0, proc.stdout[-4000:]
