"""Property-based bad input (Hypothesis): whatever a user types for --set, --weight,
--seed or in an experiment file, simkit either plays or refuses with one line, exit 2,
and nothing written; never a traceback."""

from __future__ import annotations

import tempfile
from pathlib import Path

from click.testing import CliRunner
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from simkit.cli import main

SETTINGS = settings(max_examples=60, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.function_scoped_fixture])
text = st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"),
               max_size=30)
values = st.one_of(text, st.integers(-10**30, 10**30).map(str),
                   st.floats(allow_nan=True, allow_infinity=True).map(str),
                   st.sampled_from(["true", "false", "[1, 2]", "[]", "{}", '"x"', "1e999",
                                    "-0", "0x10", "nan", ""]))
keys = st.one_of(text, st.sampled_from(["target", "die_faces", "max_turns", "target.x",
                                        "hold-at.threshold", ""]))


def _check(args: list[str]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "out"
        res = CliRunner().invoke(main, [*args, "--out", str(out), "--quiet", "--workers", "1"])
        if res.exit_code == 0:
            assert (out / "run.json").is_file()
            return
        assert res.exception is None or isinstance(res.exception, SystemExit), res.output
        assert res.exit_code == 2, (args, res.output)
        lines = res.output.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: "), (args, res.output)
        assert not out.exists(), "a refused run wrote something"


@SETTINGS
@given(key=keys, value=values)
def test_any_set_plays_or_is_refused_in_one_line(key, value):
    _check(["run", "pig", "--players", "2", "--games", "20", "--set", f"{key}={value}"])


@SETTINGS
@given(name=st.sampled_from(["hold-at", "random", "nope", ""]), key=keys, value=values)
def test_any_weight_plays_or_is_refused_in_one_line(name, key, value):
    _check(["run", "pig", "--players", "2", "--games", "20", "--strategies", "hold-at",
            "--weight", f"{name}.{key}={value}"])


@SETTINGS
@given(seed=st.one_of(st.integers(-2**70, 2**70), st.sampled_from([0, 2**64 - 1, 2**64])))
def test_any_seed_plays_or_is_refused_in_one_line(seed):
    _check(["run", "pig", "--players", "2", "--games", "5", "--seed", str(seed)])


toml_values = st.one_of(st.integers(-10**6, 10**6).map(str),
                        st.booleans().map(lambda b: str(b).lower()),
                        text.map(lambda t: '"' + t.replace("\\", "").replace('"', "") + '"'),
                        st.sampled_from(["[1, 2]", "[]", '["hold-at", "random"]', "{}",
                                         "1.5", '"hold-at,random"', '"../x"']))


@SETTINGS
@given(fields=st.dictionaries(st.sampled_from(["name", "game", "players", "games", "seed",
                                               "strategies", "rotate", "weights", "colour"]),
                              toml_values, max_size=6))
def test_any_experiment_file_plays_or_is_refused_in_one_line(fields):
    with tempfile.TemporaryDirectory() as tmp:
        exp = Path(tmp) / "exp.toml"
        body = "".join(f"{k} = {v}\n" for k, v in fields.items())
        exp.write_text("[[run]]\n" + body, encoding="utf-8")
        out = Path(tmp) / "out"
        res = CliRunner().invoke(main, ["run", str(exp), "--out", str(out), "--quiet",
                                        "--workers", "1"])
        if res.exit_code == 0:
            return
        assert res.exception is None or isinstance(res.exception, SystemExit), res.output
        assert res.exit_code == 2, (body, res.output)
        assert len(res.output.strip().splitlines()) == 1, res.output
        assert not out.exists() or not any(out.rglob("run.json"))


# ------------------------------------------------------------------ numbers (issue 27)

NOT_ASCII_DIGITS = st.characters(categories=("Nd", "No"), exclude_characters="0123456789")
"""Digits of other scripts (٣, ३) and superscripts (²): int() takes the first, isdigit()
passes the second."""
number_like = st.lists(st.one_of(NOT_ASCII_DIGITS, st.sampled_from("0123456789.e-+_")),
                       min_size=1, max_size=8).map("".join)
with_foreign_digit = st.tuples(number_like, NOT_ASCII_DIGITS, number_like).map("".join)
any_number_text = st.one_of(number_like, text, st.sampled_from(
    ["nan", "-nan", "inf", "-inf", "1e308", "1e309", "-0", "0", "1_000", "1__0", "_1", ".5",
     "5.", "1e-300", "10" * 30, " 7 ", "0x10", "1,5"]))


@settings(max_examples=400, deadline=None, derandomize=True)
@given(value=any_number_text, lo=st.one_of(st.none(), st.integers(-5, 5)),
       span=st.one_of(st.none(), st.integers(0, 10**6)))
def test_a_number_is_ascii_finite_and_in_range_or_one_line(value, lo, span):
    import math

    from simkit.errors import SimkitError
    from simkit.numeric import real, whole

    hi = None if span is None or lo is None else lo + span
    for read in (whole, real):
        try:
            x = read(value, "--n", lo, hi)
        except SimkitError as exc:
            line = str(exc)
            assert "\n" not in line and line.startswith("--n must be a ")
            assert (lo is None or f"{lo:,}" in line) and (hi is None or f"{hi:,}" in line)
            continue
        assert value.isascii() and math.isfinite(x)
        assert (lo is None or x >= lo) and (hi is None or x <= hi)


NUMBER_OPTIONS = [["--games"], ["--seed"], ["--workers"], ["--chunk-size"], ["--fair"],
                  ["--precision"], ["--trace-turns"], ["--players", "3", "--kingmaking"],
                  ["--strategies", "ismcts@"]]


@settings(max_examples=40, deadline=None, derandomize=True)
@given(option=st.sampled_from(NUMBER_OPTIONS), value=with_foreign_digit)
def test_a_number_option_with_a_foreign_digit_is_refused_in_one_line(option, value):
    *head, last = option
    args = ["run", "pig", "--games", "2", *head]
    args += [last + value] if last.endswith("@") else [last, value]
    if "--players" not in head:
        args += ["--players", "2"]
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "out"
        res = CliRunner().invoke(main, [*args, "--out", str(out), "--quiet"])
        assert res.exit_code == 2, (args, res.output)
        lines = res.output.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: "), (args, res.output)
        assert not out.exists() and list(Path(tmp).iterdir()) == []


small = st.integers(-2, 120).map(str)  # mostly within the keys' bounds: many are played
bound = st.one_of(small, small, small, st.integers(-10**12, 10**12).map(str), any_number_text,
                  st.floats(allow_nan=True, allow_infinity=True).map(repr),
                  st.sampled_from(["1e-300", "1e308", "0.5", "1e5", "100000", "1e-9"]))


@settings(max_examples=200, deadline=None, derandomize=True)
@example("max_turns", "{a}..{b}", "1", "100000", "")  # the most values a --vary gives
@example("max_turns", "{a}:{b}:{c}", "1", "100000", "1")
@example("max_turns", "{a}..{b}", "1", "100001", "")
@example("target", "{a}..{b}", "1", "100000000000", "")  # 1..10^11: a MemoryError once
@example("target", "{a}:{b}:{c}", "0", "1e308", "1e-300")  # an OverflowError once
@example("target", "{a}:{b}:{c}", "1", "1000", "1e-305")  # 10^308 values, a finite count
@example("target", "{a}:{b}:{c}", "nan", "nan", "1")  # a ValueError once
@example("target", "{a}:{b}:{c}", "1", "10", "nan")
@given(key=st.sampled_from(["target", "max_turns", "die_faces"]),
       form=st.sampled_from(["{a}..{b}", "{a}:{b}:{c}", "{a},{b},{c}", "{a}"]),
       a=bound, b=bound, c=bound)
def test_any_vary_gives_few_finite_values_within_bounds_or_one_line(key, form, a, b, c):
    """Whatever --vary says (a range of 10^11, a step of 1e-300, NaN ends), its values are
    counted before any is made: a few finite ones within the key's bounds, or one line."""
    from simkit.errors import SimkitError
    from simkit.explore import MAX_VALUES, numeric_params, parse_vary

    spec = form.format(a=a, b=b, c=c)
    try:
        _, values = parse_vary("pig", f"{key}={spec}")
    except SimkitError as exc:
        assert "\n" not in str(exc)
        return
    p = numeric_params("pig")[key]
    assert 0 < len(values) <= MAX_VALUES
    assert all(isinstance(v, int) and p.min <= v <= p.max for v in values)
