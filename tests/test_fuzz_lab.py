"""Hypothesis fuzzing of everything sliders, URLs and the command line can reach.

The library half (urlstate.parse_query, clamp_params, clamp_value, exact.evaluate) promises
never to raise: it clamps, rounds or falls back to the default and says so in a note. The CLI
refuses bad input with exit status 2 and never raises. These tests feed them garbage.

Example budget per run: 4 x 2500 on the cheap functions + 500 (huge ints) + 1500 + 400
(evaluate) + 400 + 300 (CLI) = 13,100 examples.
"""

from __future__ import annotations

import math
from numbers import Number

from hypothesis import HealthCheck, given, settings, strategies as st

from lab import cli, exact, urlstate
from lab.urlstate import EXACT_SLIDERS, LEDGER_SLIDERS, MAX_QUERY_LENGTH

CHEAP = settings(max_examples=2500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
MEDIUM = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])

ALL_SLIDERS = {"exact": EXACT_SLIDERS, "ledger": LEDGER_SLIDERS}


# --- strategies -------------------------------------------------------------------------------

number_texts = st.one_of(
    st.sampled_from(["nan", "NaN", "-nan", "inf", "-inf", "Infinity", "-Infinity", "1e400", "-1e400", "1e308",
                     "0x10", "1_000", "٣", "५", " 7 ", "+5", "-0", "0.5", "2.5", "99.999", "1e-400", "", " ",
                     "10" * 40, "9" * 400, "1e21", "-1", "12.0", "0e0", "٣.٥", "１２"]),
    st.integers(-10**30, 10**30).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.text(max_size=20),
)

# ints beyond float range (|n| >= 2**1024) get their own tests below, so that one known
# failure does not stop the fuzzing of everything else
huge_ints = st.one_of(st.integers(2**1024, 10**400), st.integers(-10**400, -2**1024),
                      st.sampled_from([10**400, -10**400, 2**1024, -(2**1024), 10**4000]))

raw_values = st.one_of(
    st.none(), st.booleans(),
    st.integers(-10**300, 10**300), st.integers(-10**6, 10**6), st.sampled_from([2**1023, -(2**1023), 10**308]),
    st.floats(), st.sampled_from([math.nan, math.inf, -math.inf, -0.0, 5e-324, 1.7976931348623157e308]),
    number_texts, st.text(max_size=100), st.text(min_size=60, max_size=80),
    st.lists(st.integers(), max_size=3), st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
    st.tuples(st.integers()), st.binary(max_size=8), st.complex_numbers(), st.just(object()),
)

slider_names = st.sampled_from(sorted({s.name for s in EXACT_SLIDERS + LEDGER_SLIDERS}
                                      | {s.key for s in EXACT_SLIDERS + LEDGER_SLIDERS}))


def _query_pair():
    key = st.one_of(slider_names, st.text(max_size=8))
    value = st.one_of(number_texts, st.text(max_size=30), st.sampled_from(["<script>alert(1)</script>",
                                                                          "%3Cscript%3E", "%00", "%ff%fe", "&&&", "=="]))
    return st.tuples(key, value)


queries = st.one_of(
    st.lists(_query_pair(), max_size=12).map(lambda pairs: "?" + "&".join(f"{k}={v}" for k, v in pairs)),
    st.text(max_size=300),
    st.text(alphabet=st.characters(codec="utf-8"), max_size=200),
    st.sampled_from(["", "?", "&", "=", "?acceptance", "?acceptance=", "?acceptance=80&acceptance=nan",
                     "?acceptance=<script>alert(1)</script>", "?lookahead=1e999&lookahead=-1e999",
                     "?certainty=" + "9" * 5000, "a" * 10_240, "?seed=" + "%" * 3000,
                     "?" + "&".join(f"acceptance={i}" for i in range(400))]),
    st.integers(10_000, 12_000).map(lambda n: "?acceptance=50&" + "x" * n),
    st.none(), st.integers(), st.lists(st.text(max_size=3), max_size=3), st.binary(max_size=20),
)


def assert_all_finite(value, path="result"):
    """Walk a result recursively: every number is finite; dict keys are strings."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return
    if isinstance(value, Number):
        assert isinstance(value, (int, float)), (path, type(value))
        assert math.isfinite(value), (path, value)
        return
    if isinstance(value, dict):
        for key, item in value.items():
            assert isinstance(key, str), (path, key)
            assert_all_finite(item, f"{path}.{key}")
        return
    if isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            assert_all_finite(item, f"{path}[{index}]")
        return
    raise AssertionError(f"{path}: unexpected {type(value).__name__}")


def assert_valid_params(params, sliders):
    assert list(params) == [s.name for s in sliders] or set(params) == {s.name for s in sliders}
    for slider in sliders:
        value = params[slider.name]
        assert not isinstance(value, bool)
        assert isinstance(value, int if slider.integer else float), (slider.name, value)
        assert math.isfinite(value)
        assert slider.minimum <= value <= slider.maximum, (slider.name, value)
        if slider.integer:
            assert value == int(value)


def assert_notes(notes, sliders=None):
    assert isinstance(notes, list)
    for note in notes:
        assert isinstance(note, str) and note
        assert "\n" not in note
        assert len(note) < 400  # a 10 KB input is not echoed back whole


# --- urlstate ---------------------------------------------------------------------------------

@CHEAP
@given(query=queries, which=st.sampled_from(sorted(ALL_SLIDERS)))
def test_parse_query_never_raises(query, which):
    sliders = ALL_SLIDERS[which]
    params, notes = urlstate.parse_query(query, sliders)
    assert_valid_params(params, sliders)
    assert_notes(notes)
    assert_all_finite(params)
    if isinstance(query, str) and len(query) > MAX_QUERY_LENGTH:
        assert params == {s.name: (int(s.default) if s.integer else float(s.default)) for s in sliders}
        assert len(notes) == 1
    # the canonical query of the result parses back to the same params, silently
    again, again_notes = urlstate.parse_query("?" + urlstate.format_query(params, sliders), sliders)
    assert again == params and again_notes == []


@CHEAP
@given(raw=st.dictionaries(st.one_of(slider_names, st.text(max_size=6)), raw_values, max_size=8),
       which=st.sampled_from(sorted(ALL_SLIDERS)))
def test_clamp_params_never_raises(raw, which):
    sliders = ALL_SLIDERS[which]
    params, changed, notes = urlstate.clamp_params(sliders, raw)
    assert_valid_params(params, sliders)
    assert_notes(notes)
    assert len(changed) == len(notes)
    assert set(changed) <= set(raw) & {s.name for s in sliders}
    for name, note in zip(changed, notes):
        assert note.startswith(f"{name}:")
    for slider in sliders:
        if slider.name not in raw:
            assert params[slider.name] == slider.default and slider.name not in changed


@CHEAP
@given(slider=st.sampled_from(EXACT_SLIDERS + LEDGER_SLIDERS), raw=raw_values)
def test_clamp_value_never_raises(slider, raw):
    value, note = urlstate.clamp_value(slider, raw)
    assert_valid_params({slider.name: value}, [slider])
    if note is not None:
        assert isinstance(note, str) and note.startswith(f"{slider.name}:")
        assert len(note) < 400


@CHEAP
@given(slider=st.sampled_from(EXACT_SLIDERS + LEDGER_SLIDERS),
       raw=st.one_of(st.floats(allow_nan=False, allow_infinity=False), st.integers(-10**6, 10**6)))
def test_clamp_value_is_idempotent_and_keeps_valid_values(slider, raw):
    value, note = urlstate.clamp_value(slider, raw)
    in_range = slider.minimum <= raw <= slider.maximum and (not slider.integer or float(raw).is_integer())
    assert (note is None) == in_range
    if in_range:
        assert value == raw
    again, again_note = urlstate.clamp_value(slider, value)
    assert again == value and again_note is None
    text_value, text_note = urlstate.clamp_value(slider, repr(float(raw)) if isinstance(raw, float) else str(raw))
    assert text_value == value


def test_huge_integers_are_clamped_not_raised():
    # the fuzzer's finding, as fixed examples: ints beyond float range must clamp, not raise
    # (urlstate._as_number catches float()'s OverflowError, then calls math.copysign(math.inf, raw),
    # which converts raw to float again and raises the same OverflowError)
    for slider in EXACT_SLIDERS + LEDGER_SLIDERS:
        for raw in (10**400, -10**400, 2**1024):
            value, note = urlstate.clamp_value(slider, raw)
            assert value == (slider.maximum if raw > 0 else slider.minimum)
            assert note and note.startswith(f"{slider.name}:")


@settings(max_examples=500, deadline=None)
@given(slider=st.sampled_from(EXACT_SLIDERS + LEDGER_SLIDERS), raw=huge_ints)
def test_huge_integers_never_raise(slider, raw):
    value, note = urlstate.clamp_value(slider, raw)
    assert value == (slider.maximum if raw > 0 else slider.minimum) and note
    params, changed, _ = urlstate.clamp_params([slider], {slider.name: raw})
    assert changed == [slider.name]
    if slider in EXACT_SLIDERS:
        result = exact.evaluate(**{slider.name: raw})
        assert result["state"] == exact.STATE_BITS[slider.name]
        assert_all_finite(result)


# --- evaluate ---------------------------------------------------------------------------------

exact_values = st.one_of(st.integers(-50, 300), st.floats(-1e6, 1e6), raw_values)


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.fixed_dictionaries({}, optional={s.name: exact_values for s in EXACT_SLIDERS}))
def test_evaluate_never_raises(kwargs):
    # keep the trace/sample work small: an arbitrary length and seed on a handful of values
    result = exact.evaluate(**kwargs)
    assert_valid_params(result["params"], EXACT_SLIDERS)
    assert_all_finite(result)
    assert_notes(result["notes"])
    assert isinstance(result["state"], int) and 0 <= result["state"] < 64
    assert bin(result["state"]).count("1") == len(result["notes"])
    c = result["contract"]
    assert c["exactTv"] == 0 and 0 <= c["alpha"] <= 1 and 0 <= c["wrongTv"] <= 1
    t = result["trace"]
    assert t["acceptedDraft"] + t["rejectedDraft"] + t["bonusTokens"] == result["params"]["length"]


@MEDIUM
@given(certainty=st.integers(0, 100), draftCost=st.integers(0, 100), gamma=st.integers(1, 12),
       length=st.integers(1, 256), match=st.integers(0, 100), seed=st.integers(0, 9999))
def test_evaluate_on_valid_params_is_clean(**params):
    result = exact.evaluate(**params)
    assert result["params"] == params and result["state"] == 0 and result["notes"] == []
    assert_all_finite(result)


# --- the CLI in-process -----------------------------------------------------------------------

def _flag(name):
    return cli.flag_name(name)


cli_values = st.one_of(number_texts, st.integers(-5, 300).map(str), st.floats(-10, 600).map(repr),
                       st.text(max_size=10))


@st.composite
def cli_argv(draw):
    command = draw(st.sampled_from(["ledger", "exact", "ledger", "exact", "bogus", "audit"]))
    sliders = LEDGER_SLIDERS if command == "ledger" else EXACT_SLIDERS
    argv = [command]
    if command == "audit":
        # the audit takes 0.2 s: only exercise its argument parsing with a bad flag
        return argv + draw(st.sampled_from([["--bogus"], ["--json", "x"], ["--certainty", "5"]]))
    for slider in draw(st.lists(st.sampled_from(sliders), max_size=4, unique=True)):
        value = draw(cli_values)
        if draw(st.booleans()):
            argv.append(f"{_flag(slider.name)}={value}")
        else:
            argv += [_flag(slider.name), value]
    if command == "ledger" and draw(st.booleans()):
        argv += ["--max-lookahead", draw(cli_values)]
    if draw(st.booleans()):
        argv.append("--json")
    if draw(st.integers(0, 9)) == 0:
        argv.append(draw(st.sampled_from(["--bogus", "extra", "-", "--", "--json=1"])))
    return argv


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                   HealthCheck.too_slow])
@given(argv=cli_argv())
def test_cli_main_never_raises(argv, capsys):
    capsys.readouterr()  # drop anything from the previous example
    try:
        status = cli.main(argv)
    except SystemExit as exit_:  # argparse may exit for --help-like input; never a crash
        status = exit_.code
    out, err = capsys.readouterr()
    assert status in (0, 2), (argv, status, err)
    assert "Traceback" not in out + err
    if status == 2:
        assert out == ""
        assert len(err.rstrip("\n").split("\n")) == 1 and err.strip(), (argv, err)
    else:  # an answer, with at most the notes a value that may be a slip earns (a fraction given to a percent flag)
        assert out.strip() and all(line.startswith("python -m lab: note: ") for line in err.splitlines()), (argv, err)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_cli_valid_ledger_flags_succeed(data, capsys):
    capsys.readouterr()
    argv = ["ledger", "--json"]
    for slider in LEDGER_SLIDERS:
        if slider.integer:
            value = data.draw(st.integers(int(slider.minimum), int(slider.maximum)))
        else:
            value = data.draw(st.floats(slider.minimum, slider.maximum))
        argv.append(f"{_flag(slider.name)}={value!r}")
    assert cli.main(argv) == 0
    out, err = capsys.readouterr()
    # a note, on stderr only, exactly when the percent flag was given a fraction (0 < value < 1: likely a slip)
    acceptance = float(next(arg for arg in argv if arg.startswith("--acceptance=")).split("=", 1)[1])
    assert all(line.startswith("python -m lab: note: --acceptance takes a percentage") for line in err.splitlines())
    assert bool(err) == (0 < acceptance < 1), (argv, err)
    import json
    doc = json.loads(out)
    assert_all_finite(doc)
    assert 1 <= doc["bestLookahead"] <= 12
