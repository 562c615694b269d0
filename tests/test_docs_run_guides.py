"""The commands and snippets of docs/*.md (but docs/ladder.md, tests/test_docs_run_ladder.py)
run as written, scaled down (see tests/docs_commands.py; a file of their own, so that
pytest-xdist runs them beside the README's)."""

import docs_commands as D
import pytest

BLOCKS = [b for b in D.blocks() if b.file not in ("README.md", "docs/ladder.md")]


@pytest.mark.parametrize("block", BLOCKS, ids=lambda b: b.id)
def test_docs_block_runs(block, tmp_path, monkeypatch):
    D.run_block(block, tmp_path, monkeypatch)
