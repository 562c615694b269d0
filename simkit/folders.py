"""The folders simkit writes, and the one rule for replacing one.

Every folder simkit writes (a run, a report, a what-if, an export) carries a small marker file,
``.simkit``, that says what kind it is. ``--overwrite`` (and a report rebuilt in place)
replaces only an empty folder or a folder of the same kind that simkit wrote, never
anything else: not the current folder or one above it, not a folder of the user's files,
not a run where a report was asked for. Everything is checked before any game is played,
so a refused output costs nothing.

Folders written before the marker existed are recognised by their contents: a run by a
run.json with a ``run_spec``, a report by the ``simkit report`` line of its summary.md, a
what-if by its ``base`` and ``changed`` runs.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

from simkit.errors import SimkitError

MARKER = ".simkit"
KINDS = ("run", "report", "whatif", "export", "cards", "ladder", "sweep", "sensitivity", "balance")


def mark(folder: Path, kind: str) -> None:
    """Say in ``folder`` that simkit wrote it, as a folder of ``kind``."""
    from simkit import __version__

    (Path(folder) / MARKER).write_text(
        json.dumps({"kind": kind, "written_by": f"simkit {__version__}"}) + "\n",
        encoding="utf-8")


def kind_of(folder: Path) -> str | None:
    """The kind of simkit folder ``folder`` is, or None when simkit did not write it."""
    folder = Path(folder)
    kind = _marked(folder)
    if kind is not None:
        return kind
    if _is_old_run(folder):  # folders written before the marker
        return "run"
    try:
        if ((folder / "index.html").is_file()
                and "simkit report" in (folder / "summary.md").read_text(encoding="utf-8")):
            return "report"
    except (OSError, ValueError):
        pass
    if all(_marked(folder / part) == "run" or _is_old_run(folder / part)
           for part in ("base", "changed")):
        return "whatif"
    return None


def _marked(folder: Path) -> str | None:
    try:
        kind = json.loads((folder / MARKER).read_text(encoding="utf-8")).get("kind")
    except (OSError, ValueError, AttributeError):
        return None
    return kind if kind in KINDS else None


def _is_old_run(folder: Path) -> bool:
    try:
        meta = json.loads((folder / "run.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(meta, dict) and "run_spec" in meta


def _nearest_existing(path: Path) -> Path:
    while not path.exists() and path != path.parent:
        path = path.parent
    return path


def check_output(out: Path, kind: str, overwrite: bool, option: str = "--out") -> None:
    """Raise ``SimkitError`` (one line) unless a ``kind`` folder can be written at ``out``:
    it does not exist yet and can be made, or it is empty, or, with ``overwrite``, it is a
    ``kind`` folder that simkit wrote."""
    out = Path(out)
    target = out.resolve()
    here = Path.cwd().resolve()
    if target == here or target in here.parents:
        raise SimkitError(f"{option} {out} is the current folder or one that holds it; give "
                          f"a folder of its own, e.g. {option} runs/NAME")
    if out.exists() and not out.is_dir():
        raise SimkitError(f"{option} {out} exists and is a file, not a folder; choose another "
                          f"{option}")
    check_writable(out, option)
    if not out.exists() or not any(out.iterdir()):
        return
    found = kind_of(out)
    if found is None:
        raise SimkitError(f"{option} {out} exists, is not empty and was not written by simkit; "
                          f"simkit replaces only folders it wrote: choose another {option}")
    if found != kind:
        raise SimkitError(f"{option} {out} is a simkit {found} folder, not a {kind} folder; "
                          f"choose another {option}")
    if not overwrite:
        raise SimkitError(f"{option} {out} holds a {kind} already; choose another {option} or "
                          "pass --overwrite to replace it")


def check_writable(out: Path, option: str = "--out") -> None:
    """Raise ``SimkitError`` (one line) unless ``out`` (a folder or a file simkit is to
    write, under a temporary name beside it first) can be made: the nearest folder above
    it that exists is a folder, and one that takes new entries. That is tried, with an
    empty folder made and removed at once: permissions do not tell (root may write
    anywhere by them, yet nothing can be made in /proc or on a read-only disk)."""
    import tempfile

    out = Path(out)
    base = _nearest_existing(out.absolute().parent)  # what is written goes in there first
    if not base.is_dir():
        raise SimkitError(f"{option} {out}: {base} is a file, so no folder can be made there")
    if not os.access(base, os.W_OK | os.X_OK):
        raise SimkitError(f"{option} {out}: no permission to write in {base}")
    try:
        os.rmdir(tempfile.mkdtemp(prefix=".simkit-probe-", dir=base))
    except OSError as exc:
        raise SimkitError(f"{option} {out}: nothing can be written in {base} "
                          f"({exc.strerror or exc}); choose another {option}") from None


def write_json(path: Path, doc) -> None:
    """Write ``doc`` as JSON to ``path`` whole or not at all: a temporary file beside it,
    then a rename (a killed process leaves the old file or the new, never half of one)."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.partial-{os.getpid()}")
    tmp.write_text(json.dumps(doc, indent=2, default=str, allow_nan=False) + "\n",
                   encoding="utf-8")
    os.replace(tmp, path)


def replace(tmp: Path, out: Path) -> None:
    """Move the finished folder ``tmp`` to ``out``, replacing what ``check_output`` allowed
    there (an empty folder, or a simkit folder of the same kind)."""
    tmp, out = Path(tmp), Path(out)
    if out.exists():
        old = out.parent / f".{out.name}.old-{os.getpid()}"
        os.replace(out, old)
        os.replace(tmp, out)
        shutil.rmtree(old, ignore_errors=True)
    else:
        os.replace(tmp, out)


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


_LEFTOVER = re.compile(r"^\.(?P<name>.+)\.(partial|old|building|lock)-(?P<pid>\d+)$")


def clean_leftovers(out: Path) -> list[Path]:
    """Remove what simkit processes that died (SIGKILL, a power cut) left beside ``out``:
    their temporary folders (``.NAME.partial-PID``, ``.old-PID``, ``.building-PID``) and
    locks. Only names of that pattern, for ``out``'s name, whose process is gone."""
    out = Path(out)
    removed = []
    if not out.parent.is_dir():
        return removed
    for path in out.parent.iterdir():
        m = _LEFTOVER.match(path.name)
        if not m or m.group("name") != out.name or _alive(int(m.group("pid"))):
            continue
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)
        removed.append(path)
    return removed


class OutputLock:
    """Only one simkit process writes a folder at a time: a lock file ``.NAME.lock-PID``
    beside it, made atomically; a second run to the same folder is refused in one line
    while the first is alive, and a lock whose process died is removed."""

    def __init__(self, out: Path, option: str = "--out"):
        self.out = Path(out)
        self.out.parent.mkdir(parents=True, exist_ok=True)
        clean_leftovers(self.out)
        pattern = f".{self.out.name}.lock-"
        for path in self.out.parent.glob(pattern.replace("[", "[[]") + "*"):
            pid = path.name[len(pattern):]
            if pid.isdigit() and int(pid) != os.getpid() and _alive(int(pid)):
                raise SimkitError(f"another simkit process (pid {pid}) is writing {out}; "
                                  f"wait for it to finish or choose another {option}")
        self.path = self.out.parent / f"{pattern}{os.getpid()}"
        self.path.touch()

    def release(self) -> None:
        self.path.unlink(missing_ok=True)
