"""Compile ahead: a second process compiles a cold driver's kernels from the far end.

A run's first play (``runner.run_games``) compiles its driver's ``play_batch``, and with it
every kernel it calls, one after the other on one core: numba compiles on one thread. When
the driver was never compiled (numba's cache has no index for it), ``helping`` starts a
helper process (``python -m simkit.ahead``) at once; when it was, but the first play still
takes ``START_AFTER`` seconds (compiled for other types), it starts one then. The helper
plans the same run and compiles the driver's ``AHEAD`` kernels (see ``simkit.driver``):
each calls one of the kernels ``play_batch`` calls, with the same argument types, in the
reverse of the order in which the run's own process reaches them (``apply_move`` and the
strategies first, ``new_game`` last), so the two start at opposite ends and meet.

Each kernel is compiled once: a process compiles a kernel under its compile lock
(``simkit.jit._sole_compiler``); the run's process waits for a kernel the helper holds and
then loads it from the cache; the helper waits ``jit.AHEAD_WAIT`` for one the run's process
holds, then leaves it and goes on to its next (``jit.Contended``). The helper only ever
adds entries to numba's cache that the run's process would have written itself, so it
changes no game: whatever happens to it (it fails, is slow, is stopped), the run compiles
what is left on its own. The driver's last step, optimizing and emitting the machine code
of the whole game at once, stays on one core.

``SIMKIT_COMPILE_AHEAD=0`` compiles in one process (the test suite does: its workers keep
every core busy already); on one core there is no helper.
"""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import threading
from contextlib import contextmanager

START_AFTER = 0.3
"""Seconds the run's first play may take before a helper is started: a driver loaded from
the cache takes a few hundredths of a second, a compilation seconds."""
STOP_WAIT = 2.0
"""Seconds the helper is given to finish once the run's process has compiled (what it still
does is in the cache already); then it is stopped."""


def enabled() -> bool:
    """A helper is started unless ``SIMKIT_COMPILE_AHEAD=0``, or this process may run on one
    core only."""
    if os.environ.get("SIMKIT_COMPILE_AHEAD", "1").strip() in ("0", "false", "no", ""):
        return False
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        cores = os.cpu_count() or 1
    return cores > 1


@contextmanager
def helping(p):
    """Around the first play of a run's plan ``p`` (``runner.plan``): start a helper at once
    if the driver was never compiled (numba's cache has no index for its ``play_batch``),
    or if the play still compiles after ``START_AFTER`` seconds (compiled before, but not for
    these types); stop the helper when the play is done."""
    if not enabled():
        yield
        return
    run = p.run
    cold = not p.driver.module.play_batch.python_copy.has_cache_index()
    state: dict = {"helper": None, "done": False}
    lock = threading.Lock()

    def start():
        try:
            message = pickle.dumps(run)
        except Exception:  # noqa: BLE001 - a run that cannot be sent: it compiles alone
            return
        with lock:
            if state["done"]:
                return
            try:
                helper = subprocess.Popen(
                    [sys.executable, "-m", "simkit.ahead"], stdin=subprocess.PIPE,
                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                    env={**os.environ, "SIMKIT_COMPILE_AHEAD": "0"})
            except OSError:
                return
            state["helper"] = helper
        try:
            helper.stdin.write(message)
            helper.stdin.close()
        except OSError:  # it died already: the run compiles alone
            pass

    timer = threading.Timer(START_AFTER, start)
    timer.daemon = True
    if cold:
        start()
    else:
        timer.start()
    try:
        yield
    finally:
        timer.cancel()
        with lock:
            state["done"] = True
            helper = state["helper"]
        if helper is not None:
            _stop(helper)


def _stop(helper: subprocess.Popen) -> None:
    try:
        helper.wait(STOP_WAIT)
    except subprocess.TimeoutExpired:
        helper.kill()
        helper.wait()


def compile_ahead(run) -> list[str]:
    """Compile the ``AHEAD`` kernels of ``run``'s driver (see the module's docstring) in
    this process, leaving to the other process any kernel it is compiling; returns the names
    of those compiled to the end."""
    import numba

    from simkit import jit
    from simkit.runner import batch_args, plan

    p = plan(run)
    _, _, args = batch_args(p, 0, 1)
    sig = tuple(numba.typeof(a) for a in args)
    done = []
    jit.AHEAD = True
    try:
        for entry in p.driver.module.AHEAD:
            try:
                entry.compile(sig)
            except jit.Contended:
                continue
            done.append(entry.py_func.__name__)
    finally:
        jit.AHEAD = False
    return done


def main() -> None:
    """The helper process: the run comes pickled on stdin."""
    run = pickle.load(sys.stdin.buffer)
    compile_ahead(run)


if __name__ == "__main__":
    main()
