"""A ``--time`` budget that bounds a whole command: from the moment the process started
(importing simkit, compiling kernels and timing strategies count), to the report written.

A command given ``--time T`` plans its work to end by ``T`` with what it has measured so far
and an estimate of what is left after the games (writing summaries, building a report), and
re-plans when it measures more. It refuses, before any game is played, a budget in which
even its smallest unit of work cannot fit. The promise made to a user (README, docs) is
that the command ends within the larger of 10% of ``T`` and 30 s of it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

TOLERANCE_SHARE = 0.10
TOLERANCE_SECONDS = 30.0


def tolerance(seconds: float) -> float:
    """How far past a budget of ``seconds`` a command may end: the larger of 10% and 30 s."""
    return max(TOLERANCE_SHARE * seconds, TOLERANCE_SECONDS)


FRESH_PROCESS = 10.0
"""A command that starts within this many seconds of its process is the process's own (a
shell's ``simkit ...``): its budget counts from the process's start, imports included.
Later (a command invoked in a test or a notebook), it counts from the command's start."""

_command_started: float | None = None


def process_started() -> float:
    """When this process started, on ``time.time``'s clock (``simkit.sources`` reads it once
    from /proc; else the time simkit was imported)."""
    from simkit.sources import STARTED

    return STARTED


def command_starts(now: float | None = None) -> None:
    """Note that a command starts (the CLI's group calls this first): see
    ``FRESH_PROCESS``."""
    global _command_started
    now = time.time() if now is None else now
    started = process_started()
    _command_started = started if now - started < FRESH_PROCESS else now


def command_started() -> float:
    """When the command in hand started (``command_starts``), else the process."""
    return _command_started if _command_started is not None else process_started()


@dataclass
class Budget:
    """``seconds`` of wall time from ``started`` (both on ``clock``'s scale; by default the
    command's start on ``time.time``, see ``command_starts``). ``clock`` is injectable, so
    that tests plan with a fake one and time nothing."""

    seconds: float
    started: float = field(default_factory=command_started)
    clock: Callable[[], float] = time.time

    def elapsed(self) -> float:
        return max(0.0, self.clock() - self.started)

    def left(self) -> float:
        """Seconds left (negative once the budget is spent)."""
        return self.seconds - self.elapsed()

    def restart(self) -> Budget:
        """The same budget counted from now (the next ladder of an experiment file, each of
        which has a ``time`` of its own)."""
        return Budget(self.seconds, self.clock(), self.clock)
