"""Errors a user can cause. The CLI prints them as one line and exits with status 2."""

import difflib


class SimkitError(Exception):
    """A problem with the user's input: an unknown name, a bad value, a malformed file."""


def unknown(kind: str, name: str, choices) -> SimkitError:
    """An error for an unknown ``kind`` called ``name`` that lists the valid ``choices``."""
    choices = sorted(str(c) for c in choices)
    close = difflib.get_close_matches(str(name), choices, n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    shown = ", ".join(choices) if len(choices) <= 40 else ", ".join(choices[:40]) + ", ..."
    return SimkitError(f"unknown {kind} {name!r}{hint}; valid choices: {shown}")


class WriteError(SimkitError):
    """Output that could not be written (a full disk): one line like any ``SimkitError``, but
    exit status 1, since the input was sound."""

    status = 1


def compile_error(exc: BaseException) -> str | None:
    """One line for a kernel numba cannot compile (a name misspelt, a type it cannot infer
    in a game's or a strategy's kernel): the cause, the kernel and, where numba gives it,
    the file, line and source line; None for any other exception. numba's own message
    repeats its pipeline and every caller up to the generated game loop, dozens of lines
    that bury the one a designer must fix."""
    import sys

    numba_errors = sys.modules.get("numba.core.errors")
    if numba_errors is None or not isinstance(exc, numba_errors.NumbaError):
        return None
    lines = [ln.strip() for ln in str(exc).splitlines()]
    cause = []
    for ln in lines:
        if not ln or (ln.startswith("Failed in ") and "mode pipeline" in ln):
            continue
        if ln.startswith(("During:", "File ")):
            break
        cause.append(ln)
    where = _compile_site(lines)
    text = "; ".join(cause[:2]) or type(exc).__name__
    return f"a kernel does not compile: {text}{f' ({where})' if where else ''}"


def _compile_site(lines: list[str]) -> str:
    """Where numba's message says the error is: its first ``File`` is the innermost place,
    unless a function call was being typed there, and then the error is inside that
    function ("in apply_move"). A place in simkit's generated drivers is left out."""
    import re

    at = next((i for i, ln in enumerate(lines) if re.match(r'File ".+", line \d+:', ln)),
              len(lines))
    callee = ""
    for ln in lines[:at]:
        if ln.startswith("During: resolving callee type:"):
            m = re.search(r"<function (\w+) at 0x", ln)
            callee = m[1] if m else callee
    if at == len(lines):
        return f"in {callee}" if callee else ""
    path, line = re.match(r'File "(.+)", line (\d+):', lines[at]).groups()
    if "simkit_driver_" in path or "simkit_search_" in path:
        return f"in {callee}" if callee else ""
    rest = lines[at + 1:]
    caller = re.match(r"def (\w+)", rest[0])[1] if rest and rest[0].startswith("def ") else ""
    mark = next((i for i, ln in enumerate(rest) if ln.startswith("^")), 0)
    source = rest[mark - 1] if mark > 1 else ""
    if callee:
        return f"in {callee}, called from {caller or 'a kernel'} at {path} line {line}"
    head = f"in {caller}, " if caller else ""
    return f"{head}{path} line {line}" + (f": {source}" if source else "")
