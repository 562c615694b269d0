"""Property-based bad input (Hypothesis): whatever a user types for --set, --weight,
--seed or in an experiment file, simkit either plays or refuses with one line, exit 2,
and nothing written; never a traceback."""

from __future__ import annotations

import tempfile
from pathlib import Path

from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
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
