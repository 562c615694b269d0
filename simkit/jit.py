"""The one place that sets numba's options for every simkit kernel.

Every kernel is cached on disk (a second run pays no compilation) and releases the GIL,
so the local runner can play chunks on several threads at once.

Performance notes that hold for every game (measured on Rabbit Hunt's placement scan):
- Taking an array out of the ``params`` tuple (``params[0]``) costs an atomic reference
  count each time; inside a loop that is ~50 ns an iteration. Unpack the tuple once at the
  top of a protocol kernel and hand the arrays to helpers.
- A call to another kernel costs ~20 ns; tiny helpers called in hot loops should be
  ``inline`` (numba inlines them in its IR: no call, no reference counting).
"""

from numba import njit as _njit

JIT_OPTIONS = {"cache": True, "nogil": True}


def kernel(fn):
    """Compile ``fn`` as a simkit kernel (nopython, cached, GIL released)."""
    return _njit(**JIT_OPTIONS)(fn)


def inline(fn):
    """A tiny kernel that numba inlines into its callers (for helpers in hot loops)."""
    return _njit(inline="always", **JIT_OPTIONS)(fn)
