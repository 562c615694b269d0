"""The one place that sets numba's options for every simkit kernel.

Every kernel is cached on disk (a second run pays no compilation) and releases the GIL,
so the local runner can play chunks on several threads at once.

Each kernel's cache is keyed by every source file it depends on (its module's file and
everything that file imports at module level, transitively: a plugin's state.py, simkit.rng;
see ``simkit.sources``), and the whole cache by the versions of simkit, numba, numpy and
llvmlite (``cache_root_key``): numba alone checks a kernel's own file only.

How kernels compile (``kernel``, ``inline``), and why; measured with
benchmarks/compile_time.py (CPU seconds of a cold first run) and single-thread games per
CPU second, on the project's 2-core machine:

- A call from one kernel to another compiles the callee for the argument types at the call
  site. Numba would compile a separate copy for every literal constant (``item(items, c,
  I_HIT)`` and ``item(items, c, I_MISS)`` are two functions) and for every integer width
  (``int32`` read from a state, ``int64`` from arithmetic): Watership Down compiled its
  two-line ``item`` 24 times. A simkit kernel is compiled once for plain ``int64`` integers
  (and booleans, floats) instead, unless it can only be typed with its literal arguments.
  Values are the same (numba does integer arithmetic in 64 bits either way); Watership
  Down's cold compile went from 22.8 to 15.1 CPU seconds, every game's tables unchanged.
- ``inline`` helpers used to be inlined by numba in its own IR, which re-types and
  re-lowers a helper at every call site, recursively: Avalon's 42 helpers, nested, cost 15
  of its 23 CPU seconds of compilation. An ``inline`` helper is now compiled once, as a
  kernel marked ``alwaysinline`` for LLVM, which inlines it into every caller: Avalon
  compiles in 9.8 CPU seconds and plays as fast (30,200 against 29,300 games per CPU
  second; Rabbit Hunt 15,700 against 15,200, Connect Four 687,000 against 695,000).
- Numba compiles a callee's code again into every caller's module (linked in, optimized
  with it, emitted as machine code with it), so the code of a kernel that other kernels
  call never runs on its own. Yet numba would also optimize the kernel's own module (with
  its whole call tree linked in), emit its machine code, and compile wrappers for calls
  from Python and C: every level of a game's call tree optimized and emitted everything
  below it once more. A kernel compiled for a caller (``LinkedKernel``) now keeps only its
  code for its callers (``_LinkedOnlyLibrary``): no module-wide optimization, no machine
  code, no wrappers. The driver, called from Python, optimizes and emits the whole game
  once. A kernel called from Python (the driver, a test's call of a rule) runs its Python
  copy, the same function compiled as numba would, with cache files of its own. Cold first
  run with random strategies, CPU seconds (benchmarks/compile_time.py, before and after,
  same machine): War of the Wilds 34.5 to 15.5, Rabbit Hunt 25.8 to 11.7, Watership Down
  28.6 to 13.7, Dolina 17.5 to 11.0, Avalon 11.4 to 7.1; the same games bit for bit
  (benchmarks/same_games.py) and as fast (benchmarks/play_rate.py: Rabbit Hunt 34,200
  against 33,400 games per CPU second, Watership Down 27,500 against 27,200).
- Reference counts: numba counts references to every array a kernel receives, assigns or
  slices with an atomic operation in a function call it never inlines; in a game loop
  those were most of the time (see ``borrow``). The driver borrows its arrays, but a
  borrowed array handed to a kernel that is not inlined arrives as an array like any other
  (numba cannot know), and the kernel counts references to it and to everything it takes
  from it: Watership Down, whose helpers read ``params[0]`` where they need it, spent half
  of its game there. So every kernel now borrows its own array arguments, and the arrays of
  its tuple arguments, for its whole body (``_BorrowingLower``), unless what it returns
  could hold one (it returns an array) or an argument is a container that could keep one:
  its caller keeps its arguments alive for the call. Same games, bit for bit
  (benchmarks/same_games.py); random games per CPU second through the engine, 2 players
  (benchmarks/play_rate.py, best of 3, load 4): Watership Down 15,000 to 24,100, War of the
  Wilds 17,700 to 21,900, Rabbit Hunt 13,900 to 16,600, Dolina 29,400 to 32,100, Avalon
  28,200 to 29,400 (it unpacked its tuple already). Compilation is unchanged. Marking
  every kernel ``alwaysinline`` as well played Watership Down faster still (29,200) but
  compiled Rabbit Hunt five times as long (101 CPU seconds against 21): no.
- Processes that share a cache compile each kernel once: a kernel is loaded or compiled
  under a lock of its own (``_sole_compiler``), and a process that finds it held waits, then
  loads what the other saved. So a cold run can hand part of its compilation to helper
  processes on other cores (``simkit.ahead``: with its heuristic, Dolina królików's first
  run took 14.4 s in one process, 9.1 s with helpers), and test workers, or two runs
  started together, do not compile the same kernels twice.
- An array-to-array assignment (``dst[:] = src``) costs 1.6 CPU seconds of compilation in
  every process that compiles one (numba's broadcasting machinery); ``copy_into`` is the
  loop, 0.1 s.
"""

import hashlib
import os
import shutil
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path
from types import FunctionType as _FunctionType

import llvmlite.binding as _ll
import numba
import numba.cpython.hashing  # noqa: F401 - the hash secrets hashing kernels read (_healing)
from numba import types as _types
from numba.core import cgutils as _cgutils
from numba.core import errors as _errors
from numba.core import sigutils as _sigutils
from numba.core.caching import CompileResultCacheImpl as _CompileResultCacheImpl
from numba.core.caching import FunctionCache as _FunctionCache
from numba.core.caching import NullCache as _NullCache
from numba.core.caching import UserProvidedCacheLocator as _UserProvidedCacheLocator
from numba.core.codegen import JITCodeLibrary as _JITCodeLibrary
from numba.core.compiler import CompilerBase as _CompilerBase
from numba.core.compiler import DefaultPassBuilder as _DefaultPassBuilder
from numba.core.compiler_lock import global_compiler_lock as _compiler_lock
from numba.core.compiler_machinery import register_pass as _register_pass
from numba.core.lowering import Lower as _Lower
from numba.core.registry import CPUDispatcher as _CPUDispatcher
from numba.core.runtime import rtsys as _rtsys
from numba.core.typed_passes import NativeLowering as _NativeLowering
from numba.extending import intrinsic as _intrinsic

from simkit.sources import kernel_key, note_defined

try:
    import fcntl
except ImportError:  # pragma: no cover - not a POSIX system: no compile locks
    fcntl = None

JIT_OPTIONS = {"cache": True, "nogil": True}
STALE_CACHE_DAYS = 7


def cache_root_key() -> str:
    """A digest of what every compiled kernel depends on beyond its sources: the versions of
    simkit, Python and the libraries that compile kernels (numba, llvmlite) or that kernels
    are compiled against (numpy). Each kernel's sources key its own folder below
    (``_KeyedLocator``)."""
    import llvmlite
    import numpy

    import simkit

    versions = (simkit.__version__, sys.version, numba.__version__, llvmlite.__version__,
                numpy.__version__)
    return hashlib.sha256("\0".join(versions).encode()).hexdigest()[:16]


def _use_keyed_cache() -> None:
    """Send numba's cache to ``<simkit cache>/numba/<root key>`` (unless the user chose a
    NUMBA_CACHE_DIR; ``cache_root_key``); caches of other versions unused for a week are
    removed."""
    if os.environ.get("NUMBA_CACHE_DIR"):
        return
    root = Path(os.environ.get("SIMKIT_CACHE_DIR") or Path.home() / ".cache" / "simkit")
    if not _writable(root / "numba"):
        fallback = Path(tempfile.gettempdir()) / f"simkit-cache-{os.getuid()}"
        print(f"simkit: the cache folder {root} cannot be written; using {fallback} instead "
              "(set SIMKIT_CACHE_DIR to choose another)", file=sys.stderr)
        root = fallback
        os.environ["SIMKIT_CACHE_DIR"] = str(root)  # the generated drivers follow
    here = root / "numba" / cache_root_key()
    here.mkdir(parents=True, exist_ok=True)
    os.utime(here)
    numba.config.CACHE_DIR = str(here)
    cutoff = time.time() - STALE_CACHE_DAYS * 86400
    for other in here.parent.iterdir():
        if other != here and other.is_dir() and other.stat().st_mtime < cutoff:
            shutil.rmtree(other, ignore_errors=True)


def _writable(folder: Path) -> bool:
    try:
        folder.mkdir(parents=True, exist_ok=True)
        probe = folder / f".probe-{os.getpid()}"
        probe.write_bytes(b"")
        probe.unlink()
        return True
    except OSError:
        return False


_use_keyed_cache()


def _skip_blas_probe() -> None:
    """Import numba's array maths without its BLAS probe. When numba's CPU target first
    loads (the first kernel compiled or read from the cache), ``numba.np.arraymath`` asks
    whether BLAS is there by importing ``scipy.linalg``: 0.11 to 0.33 s of every simkit
    process (issue 13), for a library no simkit kernel calls. The probe's answer only
    chooses how numba computes the inner products of ``np.correlate`` and
    ``np.convolve`` (a plain loop without it: the same values); ``np.dot`` and
    ``np.linalg`` still find BLAS when a kernel uses them, as they check again themselves."""
    if "numba.np.arraymath" in sys.modules:
        return
    try:
        import numba.np.linalg as linalg
    except ImportError:  # pragma: no cover - another numba layout: keep its probe
        return
    real = getattr(linalg, "ensure_blas", None)
    if real is None:  # pragma: no cover
        return

    def no_probe():
        raise ImportError("simkit: the BLAS probe is skipped (see simkit.jit)")

    linalg.ensure_blas = no_probe
    try:
        import numba.np.arraymath  # noqa: F401
    finally:
        linalg.ensure_blas = real


_skip_blas_probe()


class _KeyedLocator(_UserProvidedCacheLocator):
    """numba's locator of a kernel's cache in the cache folder (``numba.config.CACHE_DIR``),
    one folder further down: named by the digest of every source file the kernel's module
    depends on (``simkit.sources.kernel_key``). numba itself checks the kernel's own file
    only: a kernel in ``rules.py`` would keep the machine code compiled with the old value
    of a constant it imports from ``state.py``. Each version of the sources has its own
    folder, so going back to one (another branch, an edit undone) compiles nothing.
    ``changed``: those sources that changed after the process read them (see
    ``_KeyedCache``)."""

    def __init__(self, py_func, py_file):
        super().__init__(py_func, py_file)
        key, self.changed = kernel_key(py_func.__module__ or "", py_file)
        if not self.changed:
            self._cache_path = _keyed_folder(self._cache_path, key)


_folders_used: set[str] = set()


def _keyed_folder(parent: str, key: str) -> str:
    """``parent/key``, marked used (its time set to now, once a process); when it is new
    (the sources changed), the folders of other versions unused for ``STALE_CACHE_DAYS``
    are removed."""
    here = os.path.join(parent, key)
    if here in _folders_used:
        return here
    _folders_used.add(here)
    try:
        os.utime(here)
        return here
    except FileNotFoundError:
        pass
    except OSError:  # a read-only cache: used as it is
        return here
    cutoff = time.time() - STALE_CACHE_DAYS * 86400
    try:
        others = [e for e in os.scandir(parent) if e.name != key and e.is_dir()]
    except OSError:
        return here
    for other in others:
        try:
            if other.stat().st_mtime < cutoff:
                shutil.rmtree(other.path, ignore_errors=True)
        except OSError:
            pass
    return here


class _KeyedCacheImpl(_CompileResultCacheImpl):
    # no fallback to numba's other locators (a __pycache__ beside the source, keyed by
    # that file alone): a kernel whose keyed folder cannot be written is not cached
    _locator_classes = [_KeyedLocator]


class _KeyedCache(_FunctionCache):
    """numba's cache of a kernel's compiled copies, in the folder of its sources
    (``_KeyedLocator``). When one of them changed after this process read it, the code the
    process compiles may not be what the files hold now: the kernel is compiled and neither
    loaded nor saved (saved under the new sources' key, the next run would play it)."""

    _impl_class = _KeyedCacheImpl

    def __init__(self, py_func):
        super().__init__(py_func)
        changed = getattr(self._impl.locator, "changed", None)
        if changed:
            self.disable()
            if not _changed_said:
                _changed_said.extend(changed)
                them = "it" if len(changed) == 1 else "them"
                print(f"simkit: {', '.join(changed)} changed after this process read {them}: "
                      f"the kernels that depend on {them} are compiled from what it read, "
                      "and not cached", file=sys.stderr)


_changed_said: list[str] = []


_damaged: list[str] = []


def _healing(cache) -> None:
    """Make a kernel's numba cache treat a damaged entry (an empty or garbled index or data
    file, left by a full disk or a killed process) as a missing one: it is removed, the
    kernel compiles afresh and is saved again, and the run carries on.

    An entry is loaded after setting up what machine code calls (numba's runtime, and the
    hash secrets that hashing reads) rather than after numba's whole ``refresh`` of the
    target context: that imports and installs every typing and lowering registry of numba
    (0.1 s of every process), which only compiling needs, and compiling does it itself."""

    def load_overload(sig, target_context):
        try:
            _rtsys.initialize(target_context)
            with cache._guard_against_spurious_io_errors():
                return cache._load_overload(sig, target_context)
        except Exception as exc:  # noqa: BLE001 - any unreadable entry: rebuild it
            index = Path(cache._cache_file._index_path)
            if not _damaged:
                print(f"simkit: a damaged cache entry ({index.name}: {type(exc).__name__}) "
                      "was removed and is compiled again (and any other found)",
                      file=sys.stderr)
            _damaged.append(index.name)
            index.unlink(missing_ok=True)
            return None

    cache.load_overload = load_overload


def _plain(ty):
    """The type a kernel is compiled for when called with an argument of type ``ty``: no
    literal, and signed integers as int64."""
    ty = _types.unliteral(ty)
    if isinstance(ty, _types.Integer) and ty.signed and ty.bitwidth < 64:
        return _types.int64
    return ty


AHEAD = False
"""True in a compile-ahead helper (``simkit.ahead``): a kernel that another process has been
compiling for ``AHEAD_WAIT`` seconds is left to it (``Contended``)."""
LOCK_WAIT = 600.0
"""Seconds a process waits for another to finish compiling a kernel before it compiles the
kernel itself (a compilation takes seconds; only a stopped process holds one longer)."""
AHEAD_WAIT = 1.0
"""Seconds a compile-ahead helper waits for a kernel that the run's process is compiling
(a small shared one is done by then) before it leaves it and moves on."""


class Contended(BaseException):  # noqa: N818 - not an error: the helper moves on
    """Raised in a compile-ahead helper that has waited ``AHEAD_WAIT`` seconds for a kernel
    another process is compiling: it abandons what it was compiling (what it finished is in
    the cache) and moves on. A BaseException, so that numba's typing, which catches errors
    to try other signatures, lets it through."""


@contextmanager
def _sole_compiler(cache):
    """Hold the kernel's compile lock (an exclusive ``flock`` on a file beside its cache
    index) while it is loaded from the cache or compiled, so that processes sharing a cache
    (a run and its compile-ahead helper, test workers, two runs started together) compile
    each kernel once: the second waits for the first, then loads what it saved. Waits only
    go from a kernel being compiled to the kernels it calls, so they cannot form a cycle.
    Where no lock can be had (a read-only cache, a file system without locks), it compiles
    as numba would."""
    index = getattr(getattr(cache, "_cache_file", None), "_index_path", None)
    fd = -1
    if index is not None and fcntl is not None:
        try:
            fd = os.open(index + ".lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o666)
        except OSError:
            fd = -1
    try:
        deadline = time.monotonic() + (AHEAD_WAIT if AHEAD else LOCK_WAIT)
        while fd >= 0:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    if AHEAD:
                        raise Contended(index) from None
                    break
                time.sleep(0.005)
            except OSError:
                break
        yield
    finally:
        if fd >= 0:
            os.close(fd)  # and with it the lock


class Kernel(_CPUDispatcher):
    """A numba dispatcher that compiles one copy for plain argument types (see the module's
    docstring) when called from another kernel. Calls from Python are as numba's.

    Its on-disk cache is set up when it is first compiled (or loaded from the cache), not
    when it is defined: a process defines the kernels of every installed game and uses a
    few, and setting up a cache (finding its folder, stamping the source file) was two
    thirds of defining a kernel (0.11 of 0.16 ms; 60 ms of every `simkit run`). A kernel
    that is neither compiled nor loaded in this process yet is loaded or compiled under its
    compile lock (``_sole_compiler``)."""

    _cache_pending = False
    _cached = True

    def compile(self, sig):
        with _compiler_lock:  # reentrant: compile takes it again
            self._set_up_cache()
            if self._cached and tuple(_sigutils.normalize_signature(sig)[0]) \
                    not in self.overloads:
                with _sole_compiler(self._cache):
                    return super().compile(sig)
            return super().compile(sig)

    def _set_up_cache(self) -> None:
        with _compiler_lock:
            if self._cache_pending:
                self._cache_pending = False
                self.enable_caching()

    def enable_caching(self):
        try:
            self._cache = _KeyedCache(self.py_func)
        except RuntimeError:  # numba's "no locator available": no folder can be written
            self._cache = _NullCache()
            return
        _healing(self._cache)

    def has_cache_index(self) -> bool:
        """Whether the on-disk cache holds an index of this kernel's compiled copies (it
        was compiled for some signature with these sources before)."""
        self._set_up_cache()
        index = getattr(getattr(self._cache, "_cache_file", None), "_index_path", None)
        return index is not None and os.path.exists(index)

    def get_call_template(self, args, kws):
        plain = tuple(_plain(a) for a in args)
        plain_kws = {k: _plain(v) for k, v in kws.items()}
        if plain != tuple(args) or plain_kws != kws:
            try:
                return super().get_call_template(plain, plain_kws)
            except (_errors.TypingError, _errors.ForceLiteralArg):
                pass  # typed only with its literal arguments: compile that copy
        return super().get_call_template(args, kws)


def _has_array(ty) -> bool:
    if isinstance(ty, _types.Array):
        return True
    return isinstance(ty, _types.BaseTuple) and any(_has_array(t) for t in ty.types)


def _plain_value(ty) -> bool:
    """Is ``ty`` a value that holds no array and no reference (numbers, booleans, None,
    tuples of those)?"""
    if isinstance(ty, (_types.Number, _types.Boolean, _types.NoneType)):
        return True
    return isinstance(ty, _types.BaseTuple) and all(_plain_value(t) for t in ty.types)


def _borrow_value(context, builder, ty, value):
    """``value`` with every array in it borrowed (arrays, and arrays in tuples)."""
    if isinstance(ty, _types.Array):
        return _borrowed(context, builder, ty, value)
    if isinstance(ty, _types.BaseTuple) and _has_array(ty):
        members = [_borrow_value(context, builder, t, builder.extract_value(value, i))
                   for i, t in enumerate(ty.types)]
        return context.make_tuple(builder, ty, members)
    return value


class _BorrowingLower(_Lower):
    """Lowers a kernel whose array arguments are borrowed (see ``borrow``) for its whole
    body, when nothing it returns can hold one of them (it returns numbers, booleans, None
    or tuples of those) and it is handed no container that could keep one: its caller keeps
    every argument alive for the call, so the body need count no reference to them."""

    def extract_function_arguments(self):
        args = super().extract_function_arguments()
        argtypes = self.fndesc.argtypes
        if _plain_value(self.fndesc.restype) and all(_arrays_only(t) for t in argtypes):
            self.fnargs = tuple(_borrow_value(self.context, self.builder, t, v)
                                for t, v in zip(argtypes, args, strict=True))
        return self.fnargs


def _arrays_only(ty) -> bool:
    """Arrays, numbers and tuples of them: nothing in ``ty`` can keep a reference."""
    if isinstance(ty, _types.Array) or _plain_value(ty):
        return True
    return isinstance(ty, _types.BaseTuple) and all(_arrays_only(t) for t in ty.types)


class _InlineLower(_BorrowingLower):
    """Lowers an ``inline`` kernel: as any kernel, and marked ``alwaysinline`` for LLVM,
    which then inlines it into every kernel that links it (numba links a callee's code into
    its caller's module and optimizes them together)."""

    def pre_lower(self):
        super().pre_lower()
        self.function.attributes.add("alwaysinline")


class _LinkedOnlyLibrary(_JITCodeLibrary):
    """The code library of a kernel compiled for the kernels that call it (``LinkedKernel``):
    its code, for them to link, optimize and emit as part of themselves, and neither a
    module-wide optimization nor machine code of its own, as only they run it (numba would
    optimize a kernel's module with every callee linked in, then again in each caller, and
    emit machine code for each). What the execution engine gets is the kernel's
    environment (numba sets it when the kernel is compiled or loaded)."""

    def _optimize_final_module(self):
        """Nothing: every caller optimizes this code as part of its own module."""

    def _finalize_final_module(self):
        full = self._final_module
        shared = full.clone()
        for fn in shared.functions:  # as numba's _get_module_for_linking makes them
            if not fn.is_declaration and fn.linkage == _ll.Linkage.external:
                fn.linkage = "linkonce_odr"
        self._shared_module = shared
        envs = [str(gv) for gv in full.global_variables if gv.name.startswith("_ZN08NumbaEnv")]
        empty = str(self._codegen._create_empty_module(self.name))
        self._final_module = _ll.parse_assembly("\n".join([empty, *envs]))
        self._final_module.name = full.name
        super()._finalize_final_module()


class _BorrowingNativeLowering(_NativeLowering):
    """Lowering with borrowed arguments (``_BorrowingLower``, or ``_InlineLower``), into a
    library of the kind ``linked_only`` says."""

    lowering_class = _BorrowingLower
    linked_only = False

    def run_pass(self, state):
        if state.library is None and self.linked_only:
            state.library = _LinkedOnlyLibrary(state.targetctx.codegen(),
                                               state.func_id.func_qualname)
            state.library.enable_object_caching()
        return super().run_pass(state)


@_register_pass(mutates_CFG=True, analysis_only=False)
class _PythonLowering(_BorrowingNativeLowering):
    _name = "simkit_python_lowering"


@_register_pass(mutates_CFG=True, analysis_only=False)
class _KernelLowering(_BorrowingNativeLowering):
    _name = "simkit_kernel_lowering"
    linked_only = True


@_register_pass(mutates_CFG=True, analysis_only=False)
class _InlineLowering(_BorrowingNativeLowering):
    _name = "simkit_inline_lowering"
    lowering_class = _InlineLower
    linked_only = True


def _pipeline(lowering):
    class Pipeline(_CompilerBase):
        def define_pipelines(self):
            pm = _DefaultPassBuilder.define_nopython_pipeline(self.state)
            pm.passes = [(lowering if cls is _NativeLowering else cls, text)
                         for cls, text in pm.passes]
            pm.finalize()
            return [pm]

    Pipeline.__name__ = Pipeline.__qualname__ = f"_{lowering.__name__[1:]}Pipeline"
    return Pipeline


_PythonPipeline = _pipeline(_PythonLowering)  # a kernel called from Python
_KernelPipeline = _pipeline(_KernelLowering)  # a kernel called by kernels
_InlinePipeline = _pipeline(_InlineLowering)  # an ``inline`` kernel called by kernels


class LinkedKernel(Kernel):
    """A kernel (or ``inline`` kernel) as other kernels call it: compiled without numba's
    wrappers for calls from Python and C, into a library of code for its callers to link and
    no machine code of its own (``_LinkedOnlyLibrary``; numba compiles a callee's code again
    into every caller's module, so the callee's own machine code is never run). Called from
    Python, it runs ``python_copy``, the same function compiled as numba would, whose own
    cache files are apart; only the first call of a process makes it."""

    _python_copy = None

    @property
    def python_copy(self) -> Kernel:
        copy = self._python_copy
        if copy is None:
            with _compiler_lock:
                if self._python_copy is None:
                    fn = self.py_func
                    twin = _FunctionType(fn.__code__, fn.__globals__, fn.__name__,
                                         fn.__defaults__, fn.__closure__)
                    twin.__qualname__ = f"{fn.__qualname__}.from_python"  # own cache files
                    twin.__kwdefaults__ = fn.__kwdefaults__
                    twin.__doc__ = fn.__doc__
                    twin.__module__ = fn.__module__
                    self._python_copy = _compile(twin, cache=self._cached,
                                                 pipeline_class=_PythonPipeline)
                copy = self._python_copy
        return copy

    def __call__(self, *args, **kws):
        return self.python_copy(*args, **kws)


def _compile(fn, inline_ir=False, cls=Kernel, cache=True, **dispatcher_args) -> Kernel:
    options = dict(JIT_OPTIONS)
    cache = options.pop("cache") and cache
    if inline_ir:
        options["inline"] = "always"
    if cls is LinkedKernel:  # called by kernels only (see there)
        options["no_cpython_wrapper"] = True
        options["no_cfunc_wrapper"] = True
    dispatcher = cls(py_func=fn, locals={},
                     targetoptions={"nopython": True, "boundscheck": None, **options},
                     **dispatcher_args)
    dispatcher._cached = cache
    if cache:
        dispatcher._cache_pending = True  # enabled at its first compilation (see Kernel)
    return dispatcher


def kernel(fn=None, *, cache: bool = True):
    """Compile ``fn`` as a simkit kernel (nopython, cached unless ``cache`` is false, GIL
    released), with its array arguments borrowed (see the module's docstring)."""
    if fn is None:
        return lambda f: kernel(f, cache=cache)
    note_defined(fn.__code__.co_filename)  # its module is read: see simkit.sources
    return _compile(fn, cls=LinkedKernel, cache=cache, pipeline_class=_KernelPipeline)


def inline(fn):
    """A small kernel that is inlined into every kernel calling it (for helpers in hot
    loops): compiled once, and inlined by LLVM (see the module's docstring)."""
    note_defined(fn.__code__.co_filename)
    return _compile(fn, cls=LinkedKernel, pipeline_class=_InlinePipeline)


def inline_source(fn):
    """A kernel whose source numba copies into each caller, so that it compiles as part of
    them and never on its own. Only for a function with one or two callers (the driver's
    game loop inside its batch loop): every copy is compiled again, and nested ones
    recursively."""
    note_defined(fn.__code__.co_filename)
    return _compile(fn, inline_ir=True)


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


@inline
def copy_into(dst, src):
    """``dst[:] = src`` for 1-D arrays of one length (a state into an observation, say), as
    a loop, which LLVM makes a plain copy. Numba compiles an array-to-array assignment
    (``dst[:] = src``, ``dst[a:b] = src[a:b]``) through its broadcasting machinery: the
    first one a process compiles costs 1.6 CPU seconds (every kernel that has one, in every
    process that compiles it: a cold run, its compile-ahead helper, each test worker), the
    loop 0.1 s."""
    if dst.shape[0] != src.shape[0]:
        raise ValueError("copy_into: arrays of different lengths")
    for i in range(src.shape[0]):
        dst[i] = src[i]
