"""The one place that sets numba's options for every simkit kernel.

Every kernel is cached on disk (a second run pays no compilation) and releases the GIL,
so the local runner can play chunks on several threads at once.

Caches are keyed by a digest of all of simkit's sources (``source_digest``): see there why.

Performance notes that hold for every game (measured on Rabbit Hunt's placement scan):
- Taking an array out of the ``params`` tuple (``params[0]``) costs an atomic reference
  count each time; inside a loop that is ~50 ns an iteration. Unpack the tuple once at the
  top of a protocol kernel and hand the arrays to helpers.
- A call to another kernel costs ~20 ns; tiny helpers called in hot loops should be
  ``inline`` (numba inlines them in its IR: no call, no reference counting).
"""

import hashlib
import os
import shutil
import time
from pathlib import Path

import numba
from numba import njit as _njit
from numba import types as _types
from numba.core import cgutils as _cgutils
from numba.extending import intrinsic as _intrinsic

JIT_OPTIONS = {"cache": True, "nogil": True}
STALE_CACHE_DAYS = 7


def source_digest(root: Path | None = None) -> str:
    """A digest of every source file of simkit and its strategies.

    Numba keys a function's on-disk cache on its own file only, so a kernel that imports
    constants or helpers from another file (``rules.py`` from ``state.py``, a strategy from
    a game, every game from ``simkit.rng``) would keep stale machine code when only that
    other file changes. Keying the whole cache on every source file makes any change
    recompile what it can affect, and nothing is ever silently stale."""
    root = root or Path(__file__).resolve().parent.parent
    h = hashlib.sha256(numba.__version__.encode())
    for package in ("simkit", "strategies"):
        for path in sorted((root / package).rglob("*.py")):
            h.update(str(path.relative_to(root)).encode())
            h.update(path.read_bytes())
    return h.hexdigest()[:16]


def _use_keyed_cache() -> None:
    """Send numba's cache to ``<simkit cache>/numba/<source digest>`` (unless the user chose
    a NUMBA_CACHE_DIR); caches of sources unused for a week are removed."""
    if os.environ.get("NUMBA_CACHE_DIR"):
        return
    root = Path(os.environ.get("SIMKIT_CACHE_DIR") or Path.home() / ".cache" / "simkit")
    here = root / "numba" / source_digest()
    here.mkdir(parents=True, exist_ok=True)
    os.utime(here)
    numba.config.CACHE_DIR = str(here)
    cutoff = time.time() - STALE_CACHE_DAYS * 86400
    for other in here.parent.iterdir():
        if other != here and other.is_dir() and other.stat().st_mtime < cutoff:
            shutil.rmtree(other, ignore_errors=True)


_use_keyed_cache()


def kernel(fn):
    """Compile ``fn`` as a simkit kernel (nopython, cached, GIL released)."""
    return _njit(**JIT_OPTIONS)(fn)


def inline(fn):
    """A tiny kernel that numba inlines into its callers (for helpers in hot loops)."""
    return _njit(inline="always", **JIT_OPTIONS)(fn)


def _borrowed(context, builder, ty, value):
    """An array struct like ``value`` (of type ``ty``) but with no meminfo and no parent."""
    src = context.make_array(ty)(context, builder, value=value)
    out = context.make_array(ty)(context, builder)
    out.meminfo = _cgutils.get_null_value(src.meminfo.type)
    out.parent = _cgutils.get_null_value(src.parent.type)
    out.nitems = src.nitems
    out.itemsize = src.itemsize
    out.data = src.data
    out.shape = src.shape
    out.strides = src.strides
    return out._getvalue()


@_intrinsic
def borrow(typingctx, arr):
    """The same array (same data, shape, type) without a reference count: numba's reference
    counting of it, and of every view taken from it, becomes a test of a null pointer instead
    of an atomic operation. Only for an array that its caller keeps alive for as long as the
    borrowed one is used (an argument of the kernel, say), and never to be returned.

    Why: numba counts references to every array a kernel receives, assigns or slices, with an
    atomic add and a call (NRT_incref / NRT_decref, never inlined). In a game loop these
    were most of the time: 55% of a bare random-play loop over Connect Four's kernels
    (perf, benchmarks/loop_overhead.py), and a game's inline helpers each add a pair."""
    if not isinstance(arr, _types.Array):
        return None

    def codegen(context, builder, signature, args):
        return _borrowed(context, builder, arr, args[0])

    return arr(arr), codegen


@_intrinsic
def borrow_all(typingctx, tup):
    """``borrow`` for every array of a tuple (a game's ``params``); other members as they
    are."""
    if not isinstance(tup, _types.BaseTuple):
        return None

    def codegen(context, builder, signature, args):
        values = []
        for i, ty in enumerate(tup.types):
            value = builder.extract_value(args[0], i)
            if isinstance(ty, _types.Array):
                values.append(_borrowed(context, builder, ty, value))
            else:
                context.nrt.incref(builder, ty, value)
                values.append(value)
        return context.make_tuple(builder, tup, values)

    return tup(tup), codegen
