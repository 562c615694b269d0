"""A kernel that does not compile (a designer's misspelt name, a variable that shadows a
helper) is told in one line that names the kernel, the file and the line, by the CLI and
by ``simkit check``, never as "a bug in simkit" nor as numba's page of callers."""

import pytest
from click.testing import CliRunner

from simkit.cli import main
from simkit.errors import compile_error

BROKEN = '''from numba import njit


@njit
def count(a):
    return a


@njit
def shadowed(x):
    count = 0
    return count(x)


@njit
def misspelt(x):
    return x + undefined_name


@njit
def caller(x):
    return misspelt(x)
'''


@pytest.fixture(scope="module")
def errors(tmp_path_factory):
    """The numba errors of three broken kernels, by kernel name."""
    import importlib
    import sys

    folder = tmp_path_factory.mktemp("broken")
    (folder / "broken_kernels.py").write_text(BROKEN, encoding="utf-8")
    sys.path.insert(0, str(folder))
    try:
        mod = importlib.import_module("broken_kernels")
        out = {}
        for name in ("shadowed", "caller"):
            with pytest.raises(Exception) as info:
                getattr(mod, name)(1)
            out[name] = info.value
        return out
    finally:
        sys.path.remove(str(folder))
        sys.modules.pop("broken_kernels", None)


def test_a_type_error_names_the_kernel_file_line_and_source(errors):
    line = compile_error(errors["shadowed"])
    assert line.startswith("a kernel does not compile: Invalid use of Literal[int](0)")
    assert "(in shadowed, " in line and "broken_kernels.py line 12: return count(x))" in line
    assert "\n" not in line and "nopython mode pipeline" not in line


def test_an_unknown_name_names_the_kernel_it_is_in_not_its_caller(errors):
    line = compile_error(errors["caller"])
    assert "NameError: name 'undefined_name' is not defined" in line
    assert "(in misspelt, called from caller at " in line
    assert line.endswith("broken_kernels.py line 22)")


def test_other_errors_are_not_compile_errors():
    assert compile_error(ValueError("x")) is None


def test_the_cli_blames_the_kernel_not_simkit(errors, tmp_path, monkeypatch):
    from simkit import registry

    def broken():
        raise errors["shadowed"]

    monkeypatch.setenv("SIMKIT_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(registry, "games", broken)
    res = CliRunner().invoke(main, ["games"])
    assert res.exit_code == 1
    line = res.output.strip()
    assert line.count("\n") == 0 and "bug in simkit" not in line
    assert line.startswith("error: a kernel does not compile: Invalid use")
    assert "broken_kernels.py line 12" in line and "The traceback is in" in line


def test_the_checklist_tells_a_compile_error_in_one_line(errors):
    from simkit import testing

    told = testing._raised(errors["shadowed"])
    assert told == compile_error(errors["shadowed"])
    assert testing._raised(ValueError("bad")) == "raised ValueError: bad"
