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
