"""Kernels borrow their array arguments (simkit.jit._BorrowingLower): no reference counts on
what the caller keeps alive, and none of it when a kernel could hand an argument back."""

import numba
import numpy as np

from simkit.jit import inline, kernel


def uncached(fn):
    """A kernel compiled in this process only (numba cannot show the code of a cached one)."""
    return kernel(fn, cache=False)


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
    (ir,) = dispatcher.python_copy.inspect_llvm().values()
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


def _entry(compiled):
    """The address of a compiled kernel's machine code for calls from Python (0: none)."""
    return compiled.library.get_pointer_to_function(compiled.fndesc.llvm_cpython_wrapper_name)


@inline
def bumped(a, i):
    return a[i] + 1


@uncached
def bumped_pair(a):
    return bumped(a, 0) * 10 + bumped(a, 1)


def test_kernels_called_by_kernels_have_no_machine_code_of_their_own():
    """A kernel compiled for its callers keeps only code for them to link (numba compiles a
    callee again into every caller); called from Python, a kernel or an inline helper runs
    its Python copy, which computes the same."""
    a = np.arange(3, dtype=np.int64)
    assert bumped_pair(a) == 12
    assert bumped(a, 2) == 3 and bumped(a, i=1) == 2  # from Python: its copy
    (linked,) = bumped.overloads.values()  # compiled (or loaded) for bumped_pair
    assert not _entry(linked)
    shared = linked.library._get_module_for_linking()
    (body,) = [f for f in shared.functions if not f.is_declaration and "bumped" in f.name]
    assert "alwaysinline" in str(body).split("{", 1)[0]
    for copy in (bumped.python_copy, bumped_pair.python_copy):
        (compiled,) = copy.overloads.values()
        assert _entry(compiled)
    assert not bumped_pair.overloads  # only its copy was called


def test_a_fresh_process_runs_cached_kernels_that_allocate_and_hash(tmp_path):
    """A process that only loads kernels from the cache (it compiles nothing, so numba never
    installs its registries) still has what their machine code calls: the runtime that
    allocates arrays, and the secrets that hashing reads."""
    import os
    import subprocess
    import sys

    (tmp_path / "cached_kernels.py").write_text(
        "import numpy as np\n"
        "from simkit.jit import kernel\n\n\n"
        "@kernel\n"
        "def allocate_and_hash(n):\n"
        "    a = np.arange(n)\n"
        "    return a.sum() + hash((n, 3)) % 7 + hash(str(n) + 'rabbit') % 5\n")
    script = ("import sys; sys.path.insert(0, sys.argv[1]); import cached_kernels as k; "
              "print(k.allocate_and_hash(10), "
              "sum(k.allocate_and_hash.python_copy.stats.cache_hits.values()))")
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache"), "PYTHONHASHSEED": "1"}
    runs = [subprocess.run([sys.executable, "-c", script, str(tmp_path)], env=env,
                           capture_output=True, text=True, check=True).stdout.split()
            for _ in range(2)]
    assert runs[0][0] == runs[1][0]
    assert (runs[0][1], runs[1][1]) == ("0", "1")  # compiled, then loaded
