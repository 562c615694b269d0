"""Compile ahead: helper processes compile a cold driver's kernels from the far end.

A run's first play (``runner.run_games``) compiles its driver's ``play_batch``, and with it
every kernel it calls, one after the other on one core: numba compiles on one thread. When
the driver was never compiled (numba's cache has no index for it), ``helping`` starts
``HELPERS`` helper processes (``python -m simkit.ahead``) at once; when it was, but the
first play still takes ``START_AFTER`` seconds (compiled for other types), it starts them
then. A helper plans the same run and compiles the driver's ``AHEAD`` kernels (see
``simkit.driver``): each calls one of the kernels ``play_batch`` calls, with the same
argument types, in the reverse of the order in which the run's own process reaches them
(``apply_move`` and the strategies first, ``new_game`` last), so the helpers start at the
far end and meet the run's process.

Each kernel is compiled once: a process compiles a kernel under its compile lock
(``simkit.jit._sole_compiler``); the run's process waits for a kernel a helper holds and
then loads it from the cache; a helper waits ``jit.AHEAD_WAIT`` for one another process
holds, then leaves it and goes on to its next (``jit.Contended``). Helpers only ever add
entries to numba's cache that the run's process would have written itself, so they change
no game: whatever happens to them (they fail, are slow, are stopped), the run compiles
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
"""Seconds the run's first play may take before helpers are started although its driver was
compiled before: one loaded from the cache takes a few hundredths of a second."""
HELPERS = 2
"""Helpers a cold run starts when one of its strategies observes (a heuristic, a search),
helper ``i`` at the driver's ``AHEAD`` kernel ``i`` (the first at ``apply_move``, the second
at the next, that strategy), each going on down the list: a game's biggest kernels are often
``apply_move`` and its heuristic, a few seconds each, which one helper would compile one
after the other. Dolina królików with its heuristic, cold, on 2 cores: 10.5 to 11.6 s with
one helper, 9.3 to 9.5 s with two (and 1.5 CPU s more). A run of strategies that observe
nothing (``random``, a few lines) starts one: a second only takes a core from the run's own
process (Avalon at random, cold: 4.6 s with one, 5.2 s with two)."""
STOP_WAIT = 2.0
"""Seconds a helper is given to finish once the run's process has compiled (what it still
does is in the cache already); then it is stopped."""


def enabled() -> bool:
    """Helpers are started unless ``SIMKIT_COMPILE_AHEAD=0``, or this process may run on one
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
    """Around the first play of a run's plan ``p`` (``runner.plan``): start helpers (see
    ``HELPERS``) at once if the driver was never compiled (numba's cache has no index for its
    ``play_batch``), or if the play still compiles after ``START_AFTER`` seconds (compiled
    before, but not for these types); stop them when the play is done (at once if it
    failed or was interrupted). A driver compiled in this process already has nothing left
    to compile: no helper, however long its first game takes (a ladder's search levels took
    over ``START_AFTER`` a game, and every run of a ladder started helpers and waited
    ``STOP_WAIT`` for them: 16 of 31 s of a small Avalon ladder)."""
    if not enabled() or p.driver.module.play_batch.python_copy.overloads:
        yield
        return
    run = p.run
    cold = not p.driver.module.play_batch.python_copy.has_cache_index()
    helpers = HELPERS if any(p.driver.needs_obs[code] for code in p.kernels) else 1
    state: dict = {"helpers": [], "done": False}
    lock = threading.Lock()

    def start():
        try:
            message = pickle.dumps(run)
        except Exception:  # noqa: BLE001 - a run that cannot be sent: it compiles alone
            return
        for first in range(helpers):
            with lock:
                if state["done"]:
                    return
                try:
                    helper = subprocess.Popen(
                        [sys.executable, "-m", "simkit.ahead", str(first)],
                        stdin=subprocess.PIPE,
                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                        env={**os.environ, "SIMKIT_COMPILE_AHEAD": "0"})
                except OSError:
                    return
                state["helpers"].append(helper)
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
    except BaseException:
        _stop_all(timer, lock, state, wait=False)
        raise
    _stop_all(timer, lock, state, wait=True)


def _stop_all(timer, lock, state: dict, wait: bool) -> None:
    timer.cancel()
    with lock:
        state["done"] = True
    for helper in state["helpers"]:
        _stop(helper, STOP_WAIT if wait else 0.0)


def _stop(helper: subprocess.Popen, wait: float) -> None:
    """Let ``helper`` finish for ``wait`` seconds, then stop it (numba writes a cache entry
    to a temporary file and renames it: a helper stopped midway leaves none half written)."""
    try:
        helper.wait(wait)
    except subprocess.TimeoutExpired:
        helper.kill()
        helper.wait()


def compile_ahead(run, first: int = 0) -> list[str]:
    """Compile the ``AHEAD`` kernels of ``run``'s driver (see the module's docstring) in
    this process, from kernel ``first`` on (and then those before it), leaving to another
    process a kernel it has been compiling for ``jit.AHEAD_WAIT``; returns the names of
    those compiled to the end."""
    import numba

    from simkit import jit
    from simkit.runner import batch_args, plan

    p = plan(run)
    _, _, args = batch_args(p, 0, 1)
    sig = tuple(numba.typeof(a) for a in args)
    done = []
    jit.AHEAD = True
    try:
        entries = p.driver.module.AHEAD
        for entry in entries[first:] + entries[:first]:
            try:
                entry.compile(sig)
            except jit.Contended:
                continue
            done.append(entry.py_func.__name__)
    finally:
        jit.AHEAD = False
    return done


def main() -> None:
    """The helper process: the run comes pickled on stdin, the first kernel as argument."""
    run = pickle.load(sys.stdin.buffer)
    compile_ahead(run, int(sys.argv[1]) if len(sys.argv) > 1 else 0)


if __name__ == "__main__":
    main()
