"""The one place that sets numba's options for every simkit kernel.

Every kernel is cached on disk (a second run pays no compilation) and releases the GIL,
so the local runner can play chunks on several threads at once.
"""

from numba import njit as _njit

JIT_OPTIONS = {"cache": True, "nogil": True}


def kernel(fn):
    """Compile ``fn`` as a simkit kernel (nopython, cached, GIL released)."""
    return _njit(**JIT_OPTIONS)(fn)
