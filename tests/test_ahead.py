"""Compiling in two processes (simkit.ahead, simkit.jit._sole_compiler): each kernel is
compiled once, by whichever process gets to it first, and a run compiled with a helper plays
the same games as one compiled alone."""

import fcntl
import os
import pickle
import subprocess
import sys
import threading
import time

import numpy as np
import pandas as pd
import pytest

from simkit import ahead, jit
from simkit.runner import RunSpec, plan

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

KERNELS = """
import numpy as np
from simkit.jit import copy_into, kernel


@kernel
def doubled(a):
    out = 0
    for x in a:
        out += 2 * x
    return out


@kernel
def copied_sum(dst, src):
    copy_into(dst, src)
    return doubled(dst)
"""


@pytest.fixture
def kernels(tmp_path, monkeypatch):
    """A module of cached kernels in a cache of their own (numba's cache options are read
    when a kernel is first compiled)."""
    (tmp_path / "ahead_kernels.py").write_text(KERNELS)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr("numba.config.CACHE_DIR", str(tmp_path / "cache"))
    sys.modules.pop("ahead_kernels", None)
    import ahead_kernels

    yield ahead_kernels
    sys.modules.pop("ahead_kernels", None)


def _lock_of(dispatcher) -> str:
    dispatcher.has_cache_index()  # sets its cache up
    return dispatcher._cache._cache_file._index_path + ".lock"


def _held(path: str) -> int:
    fd = os.open(path, os.O_RDWR | os.O_CREAT)
    fcntl.flock(fd, fcntl.LOCK_EX)
    return fd


def test_copy_into_copies_and_refuses_arrays_of_other_lengths(kernels):
    src = np.arange(5, dtype=np.int32)
    dst = np.zeros(5, dtype=np.int32)
    assert kernels.copied_sum(dst, src) == 20
    assert dst.tolist() == [0, 1, 2, 3, 4]
    with pytest.raises(ValueError, match="different lengths"):
        kernels.copied_sum(np.zeros(4, np.int32), src)


def test_a_kernel_another_process_compiles_is_waited_for(kernels):
    """While another holds a kernel's compile lock, compiling it waits; once the lock is
    free it goes on (and compiles, as nothing was saved meanwhile)."""
    copy = kernels.doubled.python_copy
    fd = _held(_lock_of(copy))
    done = []
    worker = threading.Thread(target=lambda: done.append(copy(np.arange(3))))
    worker.start()
    time.sleep(0.5)
    assert not done  # waiting for the lock
    os.close(fd)
    worker.join(60)
    assert done == [6]


def test_a_helper_leaves_a_kernel_another_process_holds(kernels, monkeypatch):
    """In a compile-ahead helper a held kernel is left after AHEAD_WAIT (Contended), and the
    helper's abandoned compilation leaves the kernel compilable afterwards."""
    monkeypatch.setattr(jit, "AHEAD_WAIT", 0.2)
    monkeypatch.setattr(jit, "AHEAD", True)
    copy = kernels.doubled.python_copy
    fd = _held(_lock_of(copy))
    try:
        started = time.monotonic()
        with pytest.raises(jit.Contended):
            copy(np.arange(3))
        assert time.monotonic() - started >= 0.2
    finally:
        os.close(fd)
    monkeypatch.setattr(jit, "AHEAD", False)
    assert copy(np.arange(3)) == 6


def test_a_lock_never_freed_is_given_up_after_lock_wait(kernels, monkeypatch):
    monkeypatch.setattr(jit, "LOCK_WAIT", 0.2)
    copy = kernels.doubled.python_copy
    fd = _held(_lock_of(copy))
    try:
        assert copy(np.arange(4)) == 12  # compiled all the same
    finally:
        os.close(fd)


def test_the_driver_lists_its_kernels_from_the_far_end():
    """AHEAD: apply_move first, then each strategy of the driver, new_game last."""
    p = plan(RunSpec.make("pig", 2, 10, strategies="hold-at,random"))
    names = [k.py_func.__name__ for k in p.driver.module.AHEAD]
    assert names[0] == "ahead_apply_move" and names[-1] == "ahead_new_game"
    strategies = [n for n in names if n.startswith("ahead_strategy_")]
    assert sorted(strategies) == sorted(f"ahead_strategy_{p.driver.code(s)}"
                                        for s in ("hold-at", "random"))
    assert names.index("ahead_legal_moves") > names.index(strategies[-1])


def _fresh_cache(tmp_path):
    return {**os.environ, "SIMKIT_CACHE_DIR": str(tmp_path / "cache"),
            "PYTHONPATH": os.pathsep.join([os.path.join(ROOT, "examples"),
                                           os.environ.get("PYTHONPATH", "")])}


REGISTER = ("import sys\nfrom pig_game import GAME\nfrom simkit import registry\n"
            "registry.register_game(GAME)\n")


def test_what_a_helper_compiles_is_what_the_run_loads(tmp_path):
    """Types match: after the helper's pass over AHEAD, the run's own first play loads the
    game's kernels and its strategy from the cache and compiles none of them."""
    env = _fresh_cache(tmp_path)
    run = RunSpec.make("pig", 2, 10, strategies="hold-at,random")
    helper = REGISTER + ("import pickle\nfrom simkit.ahead import compile_ahead\n"
                         "print(' '.join(compile_ahead(pickle.load(sys.stdin.buffer))))\n")
    done = subprocess.run([sys.executable, "-c", helper], input=pickle.dumps(run), env=env,
                          capture_output=True, check=True).stdout.decode().split()
    assert done[0] == "ahead_apply_move" and len(done) >= 5
    main = REGISTER + (
        "import pickle\nfrom simkit.runner import plan, play_chunk\n"
        "p = plan(pickle.load(sys.stdin.buffer))\nplay_chunk(p, 0, 1)\n"
        "import pig_game.rules as rules\nfrom simkit.registry import strategies_for\n"
        "kernels = [rules.apply_move, rules.legal_moves, rules.new_game,\n"
        "           strategies_for('pig')['hold-at'].kernel]\n"
        "print(sum(sum(k.stats.cache_hits.values()) for k in kernels),\n"
        "      sum(sum(k.stats.cache_misses.values()) for k in kernels))\n")
    hits, misses = subprocess.run([sys.executable, "-c", main], input=pickle.dumps(run),
                                  env=env, capture_output=True, check=True
                                  ).stdout.decode().split()
    assert int(hits) == 4 and int(misses) == 0


def test_a_run_compiled_with_a_helper_plays_the_same_games(tmp_path):
    """A cold run with its helper and one compiled alone write the same games."""
    tables = []
    for on in ("1", "0"):
        env = {**_fresh_cache(tmp_path / on), "SIMKIT_COMPILE_AHEAD": on}
        out = tmp_path / f"run{on}"
        subprocess.run([sys.executable, "-c", REGISTER + (
            "from simkit.cli import entry\n"
            "sys.argv = ['simkit', 'run', 'pig', '--players', '2', '--games', '300',\n"
            "            '--strategies', 'hold-at,random', '--quiet', '--out', sys.argv[1]]\n"
            "entry()\n"), str(out)], env=env, check=True, capture_output=True)
        tables.append(pd.read_parquet(out / "games.parquet"))
    pd.testing.assert_frame_equal(tables[0], tables[1])


class _Plan:
    """What ``helping`` reads of a plan: strategy 0 observes, strategy 1 does not."""

    def __init__(self, run, cached, observes=True, compiled=False):
        index = type("Index", (), {"has_cache_index": lambda self: cached,
                                   "overloads": {"sig": 1} if compiled else {}})()
        self.run = run
        self.kernels = np.array([0 if observes else 1, 1])
        self.driver = type("D", (), {"needs_obs": np.array([True, False]), "module": type(
            "M", (), {"play_batch": type("K", (), {"python_copy": index})()})()})()


def test_helping_starts_a_helper_for_a_cold_driver_only(monkeypatch):
    started = []

    class Popen:
        def __init__(self, cmd, **kw):
            started.append((cmd, kw["env"]["SIMKIT_COMPILE_AHEAD"]))
            self.stdin = open(os.devnull, "wb")

        def wait(self, timeout=None):
            return 0

    monkeypatch.setattr(subprocess, "Popen", Popen)
    monkeypatch.setenv("SIMKIT_COMPILE_AHEAD", "1")
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1})
    run = RunSpec.make("pig", 2, 10)
    with ahead.helping(_Plan(run, cached=False)):
        pass
    assert started == [([sys.executable, "-m", "simkit.ahead", str(i)], "0")  # none of their own
                       for i in range(ahead.HELPERS)]
    with ahead.helping(_Plan(run, cached=True)):  # loaded at once: no helper
        pass
    assert len(started) == ahead.HELPERS
    monkeypatch.setattr(ahead, "START_AFTER", 0.05)
    with ahead.helping(_Plan(run, cached=True)):  # cached, but slow: compiling after all
        time.sleep(0.5)
    assert len(started) == 2 * ahead.HELPERS
    with ahead.helping(_Plan(run, cached=False, observes=False)):  # random play: one
        pass
    assert len(started) == 2 * ahead.HELPERS + 1
    with ahead.helping(_Plan(run, cached=True, compiled=True)):  # compiled in this process:
        time.sleep(0.5)  # a slow first game (a strong search) is no compiling
    assert len(started) == 2 * ahead.HELPERS + 1


def test_no_helper_when_switched_off_or_on_one_core(monkeypatch):
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1})
    monkeypatch.setenv("SIMKIT_COMPILE_AHEAD", "0")
    assert not ahead.enabled()
    monkeypatch.setenv("SIMKIT_COMPILE_AHEAD", "1")
    assert ahead.enabled()
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0})
    assert not ahead.enabled()


def test_a_run_that_cannot_be_sent_compiles_alone(monkeypatch):
    monkeypatch.setenv("SIMKIT_COMPILE_AHEAD", "1")
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1})
    monkeypatch.setattr(subprocess, "Popen", lambda *a, **k: pytest.fail("started"))
    with ahead.helping(_Plan(lambda: None, cached=False)):  # a lambda does not pickle
        pass


def test_helpers_are_stopped_at_once_when_the_first_play_fails(monkeypatch):
    """Ctrl-C (or an error) while compiling: the helpers are killed, not waited for."""
    events = []

    class Popen:
        def __init__(self, cmd, **kw):
            self.stdin = open(os.devnull, "wb")

        def wait(self, timeout=None):
            events.append(("wait", timeout))
            if timeout is not None and len(events) == 1:
                raise subprocess.TimeoutExpired("helper", timeout)
            return 0

        def kill(self):
            events.append(("kill", None))

    monkeypatch.setattr(subprocess, "Popen", Popen)
    monkeypatch.setenv("SIMKIT_COMPILE_AHEAD", "1")
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1})
    with pytest.raises(KeyboardInterrupt), \
            ahead.helping(_Plan(RunSpec.make("pig", 2, 10), cached=False, observes=False)):
        raise KeyboardInterrupt
    assert events == [("wait", 0.0), ("kill", None), ("wait", None)]
