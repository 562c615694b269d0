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

A folder is built beside its place under a temporary name, ``.NAME.partial-PID-TOKEN``
with a random token (and a ``.simkit-temporary`` file inside), then renamed into place;
what a killed process left is cleaned up by the next writer only when it bears those marks,
so a user's folder is never taken for simkit's. An output that is a symbolic link is
written where the link points. A lock (``flock``, which ends with its process) lets one
process at a time write an output, and a full disk is one line (``WriteError``).
"""

from __future__ import annotations

import errno
import json
import os
import re
import secrets
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from simkit.errors import SimkitError, WriteError

try:
    import fcntl
except ImportError:  # not on Windows: locks fall back to files made exclusively
    fcntl = None

MARKER = ".simkit"
KINDS = ("run", "report", "whatif", "export", "cards", "ladder", "sweep", "sensitivity", "balance",
         "played")


def mark(folder: Path, kind: str) -> None:
    """Say in ``folder`` that simkit wrote it, as a folder of ``kind``."""
    from simkit import __version__

    write_text(Path(folder) / MARKER,  # whole or not at all: a half marker is no marker
               json.dumps({"kind": kind, "written_by": f"simkit {__version__}"}) + "\n")


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
        article = "an" if kind[0] in "aeiou" else "a"
        raise SimkitError(f"{option} {out} holds {article} {kind} already; choose another "
                          f"{option} or pass --overwrite to replace it")


LABEL_CHARS = 40
"""The most characters of a default folder's readable part (what was changed or varied)."""


def default_folder(prefix: str, label: str, settings) -> Path:
    """``runs/PREFIX-LABEL-DIGEST``: the default folder of an exploration (a what-if, a
    sweep, a sensitivity, a balance), named by what it changes (``label``, made safe and
    short) and by a digest (6 hex digits) of all its ``settings`` (anything ``json`` can
    write): another change, grid or count is another folder, and the same command names the
    same folder again (so --resume and --overwrite find it)."""
    import hashlib

    text = json.dumps(settings, sort_keys=True, default=str, separators=(",", ":"))
    digest = hashlib.sha256(text.encode()).hexdigest()[:6]
    safe = re.sub(r"[^A-Za-z0-9._=+@-]+", "-", label).strip("-.")
    if len(safe) > LABEL_CHARS:
        safe = safe[:LABEL_CHARS - 1].rstrip("-.+=") + "~"
    return Path("runs") / "-".join(x for x in (prefix, safe, digest) if x)


def real(path: Path) -> Path:
    """Where ``path`` is on disk, its links followed: a folder given as a symbolic link is
    written where the link points, and the link itself stays as it was."""
    return Path(path).resolve()


def clear(out: Path) -> None:
    """Empty ``out``, a folder ``check_output`` found to be simkit's, to write it again
    (following a link: the folder it points to is emptied, the link stays)."""
    target = real(out)
    shutil.rmtree(target)
    target.mkdir()


# ---------------------------------------------------------------------------------------------
# writing whole or not at all

TEMPORARY = ".simkit-temporary"
"""The file inside a temporary folder that says simkit made it: the token of its name."""


def _temporary_name(out: Path, what: str) -> Path:
    """``.NAME.WHAT-PID-TOKEN`` beside ``out``: the token is random, so the name is never one a
    user gave a folder of theirs, and two writers never share one."""
    target = real(out)
    return target.parent / f".{target.name}.{what}-{os.getpid()}-{secrets.token_hex(8)}"


def temporary_folder(out: Path) -> Path:
    """A new empty folder beside ``out`` to build ``out`` in (``replace`` moves it into
    place), holding the ``.simkit-temporary`` file that lets ``clean_leftovers`` know it as
    simkit's own."""
    tmp = _temporary_name(out, "partial")
    tmp.parent.mkdir(parents=True, exist_ok=True)
    tmp.mkdir()
    try:
        (tmp / TEMPORARY).write_text(_token(tmp.name) + "\n", encoding="utf-8")
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return tmp


def _token(name: str) -> str:
    return name.rsplit("-", 1)[-1]


def check_writable(out: Path, option: str = "--out") -> None:
    """Raise ``SimkitError`` (one line) unless ``out`` (a folder or a file simkit is to
    write, under a temporary name beside it first) can be made: the nearest folder above
    it that exists is a folder, and one that takes new entries. That is tried, with an
    empty folder made and removed at once: permissions do not tell (root may write
    anywhere by them, yet nothing can be made in /proc or on a read-only disk)."""
    import tempfile

    out = Path(out)
    base = _nearest_existing(real(out).parent)  # what is written goes in there first
    if not base.is_dir():
        raise SimkitError(f"{option} {out}: {base} is a file, so no folder can be made there")
    if not os.access(base, os.W_OK | os.X_OK):
        raise SimkitError(f"{option} {out}: no permission to write in {base}")
    try:
        os.rmdir(tempfile.mkdtemp(prefix=".simkit-probe-", dir=base))
    except OSError as exc:
        raise SimkitError(f"{option} {out}: nothing can be written in {base} "
                          f"({exc.strerror or exc}); choose another {option}") from None





def replace(tmp: Path, out: Path) -> None:
    """Move the finished folder ``tmp`` to ``out`` (where a link ``out`` points), replacing
    what ``check_output`` allowed there (an empty folder, or a simkit folder of the same
    kind)."""
    tmp, target = Path(tmp), real(out)
    (tmp / TEMPORARY).unlink(missing_ok=True)
    if not target.exists():
        os.replace(tmp, target)
        return
    old = _temporary_name(target, "old")
    os.replace(target, old)
    try:
        os.replace(tmp, target)
    except BaseException:  # Ctrl-C between the two renames: the old folder goes back
        if not target.exists():
            os.replace(old, target)
        raise
    shutil.rmtree(old, ignore_errors=True)


def disk_full(exc: BaseException) -> bool:
    """Whether ``exc`` says the disk (or the user's quota) is full."""
    return isinstance(exc, OSError) and exc.errno in (errno.ENOSPC,
                                                      getattr(errno, "EDQUOT", errno.ENOSPC))


def no_space(path: Path, kept: str = "nothing was written") -> WriteError:
    """The one line for a full disk while writing ``path``; ``kept`` says what became of it."""
    return WriteError(f"cannot write {path}: no space left on the device (or the disk quota "
                      f"is reached); {kept}")


@contextmanager
def writing(out: Path, kind: str, overwrite: bool, option: str = "--out") -> Iterator[Path]:
    """Write the ``kind`` folder ``out`` whole or not at all: yields a temporary folder to
    fill, which replaces ``out`` when the block ends well and is removed when it fails.

    ``out`` is checked (``check_output``), locked against every other simkit process, and
    checked again under the lock, so of two processes writing one folder at once one is
    refused, and a second without ``overwrite`` never replaces the first's. A full disk is
    one line (``WriteError``), with ``out`` as it was."""
    check_output(out, kind, overwrite, option)
    lock = None
    try:
        lock = OutputLock(out, option)
        check_output(out, kind, overwrite, option)  # another process may have written it
        tmp = temporary_folder(out)
        try:
            yield tmp
            mark(tmp, kind)
            replace(tmp, out)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
    except OSError as exc:
        if disk_full(exc):
            raise no_space(out) from exc
        raise
    finally:
        if lock is not None:
            lock.release()


@contextmanager
def new_file(path: Path) -> Iterator[Path]:
    """Yields a temporary file name beside ``path`` to write, renamed to ``path`` when the
    block ends well and removed when it fails: a killed process or a full disk leaves the
    old file or the new, never half of one (a full disk: ``WriteError``)."""
    target = real(path)
    tmp = _temporary_name(target, "partial")
    try:
        yield tmp
        os.replace(tmp, target)
    except BaseException as exc:
        tmp.unlink(missing_ok=True)
        if disk_full(exc):
            raise no_space(path) from exc
        raise


def write_text(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` whole or not at all (``new_file``)."""
    with new_file(path) as tmp:
        tmp.write_text(text, encoding="utf-8")


def write_json(path: Path, doc) -> None:
    """Write ``doc`` as JSON to ``path`` whole or not at all (``new_file``)."""
    write_text(path, json.dumps(doc, indent=2, default=str, allow_nan=False) + "\n")


# ---------------------------------------------------------------------------------------------
# what dead processes left, and locks


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


_LEFTOVER = re.compile(
    r"^\.(?P<name>.+)\.(?P<kind>partial|old)-(?P<pid>\d+)-(?P<token>[0-9a-f]{16})$")


def _simkits(folder: Path, token: str) -> bool:
    """Whether the leftover ``folder`` is simkit's: a temporary folder holding its token, a
    folder simkit finished (or moved aside to replace it), or an empty one."""
    try:
        if (folder / TEMPORARY).read_text(encoding="utf-8").strip() == token:
            return True
    except (OSError, ValueError):
        pass
    try:
        return kind_of(folder) is not None or not any(folder.iterdir())
    except OSError:
        return False


def clean_leftovers(out: Path) -> list[Path]:
    """Remove what simkit processes that died (SIGKILL, a power cut) left beside ``out``:
    their temporary folders and files, named ``.NAME.partial-PID-TOKEN`` or
    ``.NAME.old-PID-TOKEN`` for ``out``'s NAME, whose process is gone. Nothing else: not a
    name without simkit's random token, not a link, not a folder that does not show it is
    simkit's (``_simkits``). A folder a killed ``replace`` moved aside while nothing has
    taken its place goes back to ``out`` instead."""
    target = real(out)
    removed = []
    if not target.parent.is_dir():
        return removed
    for path in target.parent.iterdir():
        m = _LEFTOVER.match(path.name)
        if not m or m.group("name") != target.name or _alive(int(m.group("pid"))):
            continue
        if path.is_symlink():
            continue
        if path.is_dir():
            if not _simkits(path, m.group("token")):
                continue
            if m.group("kind") == "old" and not target.exists():
                # killed between ``replace``'s two renames: the folder it moved aside is
                # the only copy of what ``out`` held, so it goes back
                os.replace(path, target)
                continue
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)
        removed.append(path)
    return removed


class OutputLock:
    """Only one simkit process writes a folder (or a file) at a time: ``.NAME.simkit-lock``
    beside it, held with ``flock``, so that taking it is atomic and it ends with its process
    whatever stops it (SIGKILL too); a second process is refused in one line naming the
    first. The lock file is removed on release."""

    def __init__(self, out: Path, option: str = "--out"):
        self.out = Path(out)
        target = real(out)
        target.parent.mkdir(parents=True, exist_ok=True)
        clean_leftovers(target)
        self.path = target.parent / f".{target.name}.simkit-lock"
        self.fd = _take(self.path)
        if self.fd is None:
            pid = _holder(self.path)
            who = f" (pid {pid})" if pid else ""
            raise SimkitError(f"another simkit process{who} is writing {out}; wait for it to "
                              f"finish or choose another {option}")

    def release(self) -> None:
        if self.fd is None:
            return
        try:
            self.path.unlink(missing_ok=True)  # before the lock ends: see _take
        finally:
            os.close(self.fd)
            self.fd = None


def _take(path: Path) -> int | None:
    """An open descriptor of ``path`` holding its lock (with this process's id written in
    it), or None when another process holds it."""
    if fcntl is None:
        return _take_exclusive(path)
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            return None
        try:  # its holder may have removed the file between our open and our lock
            same = os.path.samestat(os.fstat(fd), os.stat(path))
        except FileNotFoundError:
            same = False
        if same:
            _say_pid(fd)
            return fd
        os.close(fd)


def _say_pid(fd: int) -> None:
    """Write this process's id in its lock, for the line that refuses another process; the
    lock holds without it (on a full disk)."""
    try:
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
    except OSError:
        pass


def _take_exclusive(path: Path) -> int | None:
    """``_take`` without ``flock``: a file made exclusively, taken over when its process
    is gone."""
    for _ in range(2):
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o644)
        except FileExistsError:
            pid = _holder(path)
            if pid is None or _alive(pid):
                return None
            path.unlink(missing_ok=True)
            continue
        _say_pid(fd)
        return fd
    return None


def _holder(path: Path) -> int | None:
    try:
        text = path.read_text(encoding="utf-8").strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None
