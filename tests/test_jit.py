"""Kernels borrow their array arguments (simkit.jit._BorrowingLower): no reference counts on
what the caller keeps alive, and none of it when a kernel could hand an argument back."""

import numba
import numpy as np

from simkit.jit import kernel


def uncached(fn):
    """A kernel compiled in this process only (numba cannot show the code of a cached one)."""
    k = kernel(fn)
    k._cache_pending = False
    return k


@uncached
def total(v):
    s = 0
    for x in v:
        s += x
    return s


def views_total(a, pair):
    """Slices of an argument and arrays out of a tuple, chosen in a loop and handed to
    another kernel: reference counts numba's own code keeps (across its branches)."""
    s = 0
    for i in range(a.shape[0]):
        if a[i] > 2:
            b = a[i:]
        else:
            b = pair[0]
        s += total(b)
    return s + pair[1][0]


total_of_views = uncached(views_total)


@uncached
def tail(a):
    """Returns a view of its argument: must not borrow it."""
    return a[1:]


def _calls(dispatcher, name):
    """Calls to ``name`` in the compiled kernel's own body (not numba's Python wrapper)."""
    (ir,) = dispatcher.inspect_llvm().values()
    bodies = [b for b in ir.split("\ndefine ")[1:]
              if "cpython" not in b.split("(", 1)[0] and "cfunc" not in b.split("(", 1)[0]]
    assert bodies
    return sum(1 for b in bodies for line in b.splitlines() if "call" in line and name in line)


def test_a_kernel_with_borrowed_arguments_computes_as_numba_does():
    a = np.arange(5, dtype=np.int32)
    pair = (np.arange(3, dtype=np.int32), np.ones(2))
    assert total_of_views(a, pair) == 3 * 3 + 7 + 4 + 1.0
    assert numba.njit(views_total)(a, pair) == total_of_views(a, pair)
    assert _calls(total_of_views, "NRT_decref") == 0


def test_a_kernel_returning_a_view_keeps_its_counts():
    """A view of an argument handed back to Python owns a reference to its data: the
    kernel did not borrow (its code counts references)."""
    a = np.arange(5, dtype=np.int32)
    view = tail(a)
    del a
    assert view.tolist() == [1, 2, 3, 4]
    assert view.base is not None  # the view holds the data alive
    assert _calls(tail, "NRT_incref") + _calls(tail, "NRT_decref") > 0
