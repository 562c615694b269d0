"""Which source files a compiled kernel depends on, and a digest of them (``kernel_key``).

Numba keys a kernel's on-disk cache on the kernel's own file: machine code compiled from
``rules.py`` is loaded again after ``rules.py`` changes only, although numba froze into it
every global the kernel read, constants imported from ``state.py`` included. So simkit keys
each kernel's cache on every source file its module can take a global from: the module's
own file and, transitively, every module it imports at module level (``from .state import
N_CELLS``, ``from simkit.rng import shuffle``, ``import mygame.tables as T``), whatever
package they live in: a plugin's game package, its strategies, a helper package of its own,
a generated driver, simkit itself. Not followed: the standard library, and the libraries
in ``LIBRARIES`` and ``UNUSED_BY_KERNELS`` (their versions key the whole cache, or no kernel
can use them). A file that no kernel's module imports, directly or not (another game, a
game's transcript, a README, a NOTES.md, a data.toml, which is read into parameter arrays
at run time), keys nothing: editing it recompiles nothing.

A source saved after the process read it (while a run compiles, say) is not what the
process compiles: ``kernel_key`` names it, and ``simkit.jit`` then neither loads nor saves
the kernels that depend on it (saved under the new content's key, the next run would play
the old code).

Finding the imports parses a file (``ast``, a few milliseconds for a big rules module), so
what was found is kept in ``sources.json`` in numba's cache folder, by the file's path,
modification time, size and inode, and a warm process only looks at each file's stat. A
file changed within ``RACY_SECONDS`` of being read is never kept (two writes within one tick
of the file system's clock can leave the same time and size), so it is read afresh until it
is older.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import tempfile
import time

import numba

LIBRARIES = ("numba", "numpy", "llvmlite")
"""The libraries kernels are compiled by and against: their versions key the whole cache
(``simkit.jit.cache_root_key``), and their files are not followed."""
UNUSED_BY_KERNELS = frozenset({
    "pandas", "pyarrow", "scipy", "matplotlib", "click", "statsmodels", "tqdm", "dask",
    "distributed", "optuna", "_pytest", "pytest", "hypothesis", "IPython", "ipykernel"})
"""simkit's other dependencies (and test and notebook tools), which a module may import for
its Python side but a nopython kernel cannot call: their files are not followed."""
RACY_SECONDS = 2.0
FACTS_VERSION = 1


def _process_start() -> float:
    """When this process started (from /proc, to a clock tick), else now."""
    try:
        with open("/proc/self/stat", encoding="ascii") as fh:
            ticks = int(fh.read().rpartition(")")[2].split()[19])  # field 22, starttime
        since_boot = time.clock_gettime(time.CLOCK_BOOTTIME)
        return time.time() - since_boot + ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, AttributeError):
        return time.time()


STARTED = _process_start()
START_MARGIN = 0.05
"""Seconds after the process started within which a file's change is taken as made before
it (the start is known to a clock tick, 10 ms): Python reads no game's source that early."""

_defined: dict[str, float] = {}
_facts: dict[str, list] | None = None
_dirty = False


def note_defined(file: str) -> None:
    """Remember that a kernel was just defined in ``file`` (``simkit.jit`` calls this for
    every kernel as its module runs): the file was read by then, so a change of it after
    that is one this process has not read. A module imported again (a reload, a test's
    module written anew) reads its file again: the latest definition counts."""
    _defined[file] = time.time()


def kernel_key(module: str, path: str) -> tuple[str, list[str]]:
    """A digest (16 hex digits) of every source file that the kernels of ``module`` (whose
    file is ``path``) depend on (see the module's docstring), and those of the files that
    changed after this process imported them (``_read_before``): for those the code in
    memory may not be what the file holds, and must not be cached under its digest (the
    next process would load it)."""
    sources = kernel_sources(module, path)
    h = hashlib.sha256()
    for file, (digest, _) in sorted(sources.items()):
        h.update(f"{file}\0{digest}\n".encode())
    changed = sorted(f for f, (_, mtime) in sources.items() if not _read_before(f, mtime))
    return h.hexdigest()[:16], changed


def _read_before(file: str, mtime: float) -> bool:
    """Was ``file``, last changed at ``mtime``, changed before this process read it? Known to
    the moment for a module of kernels (``note_defined``: a generated driver, written and
    then imported, is), else taken as the start of the process: a file changed later may
    not be what the process imported."""
    imported = _defined.get(file)
    if imported is not None:
        return mtime <= imported
    return mtime <= STARTED + START_MARGIN


def kernel_sources(module: str, path: str) -> dict[str, tuple[str, float]]:
    """The source files the kernels of ``module`` (file ``path``) depend on, each with a digest
    of its content and its modification time: ``path``, simkit's
    compiler (``simkit.jit``, whichever way the kernel got its decorator) and every module
    they import at module level, transitively, but the standard library's and the
    libraries' (``LIBRARIES``, ``UNUSED_BY_KERNELS``)."""
    found: dict[str, tuple[str, float]] = {}
    todo: list[tuple[str, str | None]] = [(module, path), ("simkit.jit", None)]
    seen: set[str] = set()
    try:
        while todo:
            name, file = todo.pop()
            if name in seen:
                continue
            seen.add(name)
            if file is None:
                file = getattr(sys.modules.get(name), "__file__", None)
            if not file or not file.endswith(".py") or _library(name):
                continue
            facts = _facts_of(file)
            if facts is None:  # gone since it was imported: its module's code is what counts
                continue
            digest, imports, mtime = facts
            found[file] = digest, mtime
            todo += [(dep, None) for dep in _imported(name, file, imports) if dep not in seen]
    finally:
        _save_facts()
    return found


def _library(name: str) -> bool:
    top = name.partition(".")[0]
    return top in sys.stdlib_module_names or top in LIBRARIES or top in UNUSED_BY_KERNELS


def _imported(importer: str, file: str, imports: list) -> list[str]:
    """The modules (imported in this process) that the module ``importer`` (its file
    ``file``) took globals from, by its module-level imports (``_imports``)."""
    out = []
    for level, module, names in imports:
        if level:
            base = importer if file.endswith("__init__.py") else importer.rpartition(".")[0]
            for _ in range(level - 1):
                base = base.rpartition(".")[0]
            if not base:
                continue
            module = f"{base}.{module}" if module else base
        if names is None:  # import a.b.c: binds a, whose a.b and a.b.c are reachable
            parts = module.split(".")
            out += [".".join(parts[: i + 1]) for i in range(len(parts))]
        elif not names:  # import a.b.c as x
            out.append(module)
        else:  # from a.b import c, d: module a.b.c, or a name of a.b
            subs = [s for s in (f"{module}.{n}" for n in names) if s in sys.modules]
            out += subs
            if len(subs) < len(names):
                out.append(module)
    return [m for m in out if m in sys.modules]


def _imports(source: bytes, file: str) -> list:
    """The module-level imports of a source, as ``[level, module, names]``: names None for
    ``import a.b``, [] for ``import a.b as x``. Imports inside functions and classes bind no
    global of the module, so a kernel cannot read what they bring."""
    import ast

    try:
        tree = ast.parse(source, file)
    except (SyntaxError, ValueError):  # changed since imported: its digest changed too
        return []
    out, todo = [], list(tree.body)
    while todo:
        node = todo.pop()
        if isinstance(node, ast.Import):
            out += [[0, a.name, None if a.asname is None else []] for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            out.append([node.level, node.module or "", [a.name for a in node.names]])
        elif not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            todo += [n for n in ast.iter_child_nodes(node)  # if, try, with: still the module's
                     if isinstance(n, (ast.stmt, ast.excepthandler, ast.match_case))]
    return out


def _facts_of(file: str) -> tuple[str, list, float] | None:
    """(digest of the content, module-level imports, modification time) of a source file,
    from ``sources.json`` while its stat is unchanged; None if it cannot be read."""
    global _dirty
    try:
        st = os.stat(file)
        stamp = f"{st.st_mtime_ns}:{st.st_size}:{st.st_ino}"
        known = _known().get(file)
        if known is not None and known[0] == stamp:
            return known[1], known[2], st.st_mtime
        with open(file, "rb") as fh:
            source = fh.read()
    except OSError:
        return None
    digest, imports = hashlib.sha256(source).hexdigest(), _imports(source, file)
    if time.time() - st.st_mtime > RACY_SECONDS:
        _known()[file] = [stamp, digest, imports]
        _dirty = True
    return digest, imports, st.st_mtime


def _facts_file() -> str | None:
    folder = numba.config.CACHE_DIR
    return os.path.join(folder, "sources.json") if folder else None


def _known() -> dict[str, list]:
    """The facts kept in ``sources.json``, read once a process (none if it is unreadable)."""
    global _facts
    if _facts is None:
        _facts = {}
        path = _facts_file()
        if path is None:
            return _facts
        try:
            with open(path, encoding="utf-8") as fh:
                kept = json.load(fh)
            if kept.get("version") == FACTS_VERSION and isinstance(kept.get("files"), dict):
                _facts = kept["files"]
        except (OSError, TypeError, ValueError, AttributeError):
            pass
    return _facts


def _save_facts() -> None:
    """Write ``sources.json`` if facts were added (whole, by a rename: a process that reads
    it meanwhile sees the old or the new one; of two writing at once one wins, and the
    other's facts are found again next time)."""
    global _dirty
    path = _facts_file()
    if not _dirty or path is None:
        return
    _dirty = False
    try:
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), suffix=".tmp")
    except OSError:  # a read-only cache: found again next time
        return
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump({"version": FACTS_VERSION, "files": _facts}, fh)
        os.chmod(tmp, 0o644)  # as numba's own files: a cache shared by users stays readable
        os.replace(tmp, path)
    except OSError:  # a full disk: found again next time
        try:
            os.unlink(tmp)
        except OSError:
            pass
