"""The README's commands and snippets run as written, scaled down (see tests/docs_commands.py;
tests/test_docs_run_guides.py runs docs/*.md)."""

import docs_commands as D
import pytest

BLOCKS = [b for b in D.blocks() if b.file == "README.md"]


def test_the_readme_has_commands():
    assert len([c for b in BLOCKS for c in D.commands(b)]) > 10


@pytest.mark.parametrize("block", BLOCKS, ids=lambda b: b.id)
def test_readme_block_runs(block, tmp_path, monkeypatch):
    D.run_block(block, tmp_path, monkeypatch)


def test_every_exception_is_still_in_the_docs():
    """A command or snippet listed as not run is one the docs still hold (the list does not
    outlive what it excuses)."""
    every = [b for b in D.blocks()]
    commands = [c for b in every if b.lang not in D.PYTHON for c in D.commands(b)]
    snippets = [b.text for b in every if b.lang in D.PYTHON]
    stale = [s for s in D.NOT_RUN if s != "simkit serve"
             and not any(c.startswith(s) for c in commands)]
    stale += [s for s in D.SNIPPETS_NOT_RUN if not any(t.startswith(s) for t in snippets)]
    assert not stale, stale


def test_rewriting_scales_counts_time_and_searches():
    args, out = D.rewrite("simkit ladder avalon --strategies random,ismcts@200,mc --time 20m "
                          "--report r  # a comment")
    assert args == ["ladder", "avalon", "--strategies", "random,ismcts@7,mc@10", "--time",
                    D.TIME, "--report", "r"] and out is None
    args, out = D.rewrite("simkit run rabbit-hunt --games 1000000 --json > s.json")
    assert args[2:4] == ["--games", str(D.GAMES)] and out == "s.json"
    args, _ = D.rewrite("simkit run rabbit-hunt --trace-turns 5000")
    assert args[-4:] == ["--trace-turns", str(D.GAMES), "--games", str(D.GAMES)]
    args, _ = D.rewrite("simkit balance avalon --vary setup.hand=3..7")
    assert {"--trials", "--confirm-games", "--games"} <= set(args)
    text = D.scale_toml('[[run]]\nname = "a"\ngames = 20_000\n[[ladder]]\ntime = "20m"\n'
                        'strategies = ["random", "ismcts@200"]\n[[balance]]\ntrials = 40\n')
    assert 'games = 40' in text and f'time = "{D.TIME}"' in text and "ismcts@7" in text
    assert "trials = 3" in text and "confirm_games = 40" in text
