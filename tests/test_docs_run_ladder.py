"""The commands of docs/ladder.md run as written, scaled down (see tests/docs_commands.py):
a file of their own, as its two ladders within --time take 30 s each."""

import docs_commands as D
import pytest

BLOCKS = [b for b in D.blocks() if b.file == "docs/ladder.md"]


def test_the_ladder_page_has_commands():
    assert any(c.startswith("simkit ladder") for b in BLOCKS for c in D.commands(b))


@pytest.mark.parametrize("block", BLOCKS, ids=lambda b: b.id)
def test_ladder_block_runs(block, tmp_path, monkeypatch):
    D.run_block(block, tmp_path, monkeypatch)
