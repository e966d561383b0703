"""Hypothesis fuzzing of every widget through the worker's one entry point (lab.views.handle) and of
every CLI subcommand's flags (lab.cli.main in-process), with hostile values: non-numbers, NaN and
infinities, huge and tiny numbers, non-ASCII digits, empty and 5,000-character strings, markup, and
values that are not text at all.

A widget's answer is valid JSON with no NaN or infinity, carries no exception text (handle reports a
view that raised as {"error": "TypeError: ..."}), quotes at most about 48 characters of a bad value,
and every probability it shows (alpha, rates, per-position survival, chances) lies in [0, 1]. The
CLI prints one line and exits 2 on bad input, or prints its answer (valid, finite JSON with --json)
and exits 0; never a traceback.

Budget: 20 examples per widget and link (8 widgets) and 24 per subcommand (9), about 540 in all: under a
minute on a busy 2-core machine once the real-text model is cached (about 7 s of CPU).
"""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from lab import cli, instruments, views
from lab.urlstate import QUOTE_LIMIT

WIDGET_EXAMPLES = settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
CLI_EXAMPLES = settings(max_examples=24, deadline=None,
                        suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])

LONG = "7" * 5000
hostile_texts = st.one_of(
    st.sampled_from(["", " ", "nan", "NaN", "-inf", "inf", "Infinity", "1e400", "-1e400", "1e-400", "1e308",
                     "0.003", "1e-9", "0", "-0", "-1", "1", "100", "0.5", "64", "65", "1e21", "9" * 40,
                     "\u0663", "\uff15", "\u0663\u066b\u0665", "１２", "0x10", "1_000", " 7 ", "+5",
                     "<script>alert(1)</script>", "custom:1", "custom:1,1,1", "custom:0.9,1,0.5", "custom:2",
                     "custom:nan", "custom:" + ",".join(["0.5"] * 80), "custom:", "club-3090", LONG,
                     "x" * 60, "\x00", "%00", "\ud7ff", "😀" * 30]),
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
    st.integers(-10**30, 10**30).map(str),
    st.text(max_size=30),
)
hostile_values = st.one_of(hostile_texts, hostile_texts, st.none(), st.booleans(), st.integers(-10**400, 10**400),
                           st.floats(), st.lists(st.integers(), max_size=2),
                           st.dictionaries(st.text(max_size=2), st.integers(), max_size=1))


def _control_names(widget) -> list[str]:
    controls = getattr(widget, "CONTROLS", None) or getattr(widget, "SLIDERS", ())
    names = {c.name for c in controls} | {getattr(c, "key", c.name) for c in controls}
    curve = getattr(widget, "CURVE_KEY", None)
    return sorted(names | ({curve} if curve else set()) | {"width"})


def _strict_json(text: str):
    """json.loads that refuses NaN and the infinities (Python's json writes them; JSON has none)."""
    def refuse(constant):
        raise AssertionError(f"{constant} in the JSON")
    return json.loads(text, parse_constant=refuse)


PROBABILITY_KEYS = {"alpha", "alphaIid", "alphaMle", "acceptanceRate", "perPosition", "conditional", "firstAlpha",
                    "meanFirstAlpha", "exactTv", "buggyTv", "typicalTv", "wrongTv"}


def _probabilities_in_range(value, key=""):
    """Every number under a probability's key is in [0, 1]; every readout of one, in percent, in [0, 100]."""
    if isinstance(value, dict):
        for name, item in value.items():
            _probabilities_in_range(item, name)
    elif isinstance(value, list):
        for item in value:
            _probabilities_in_range(item, key)
    elif isinstance(value, (int, float)) and not isinstance(value, bool) and key in PROBABILITY_KEYS:
        assert 0 <= value <= 1, (key, value)
    elif isinstance(value, str) and key in PROBABILITY_KEYS and value.endswith("%"):
        assert 0 <= float(value[:-1]) <= 100, (key, value)


def _chances_in_range(html: str):
    """Every percentage in a table of chances (the real-text call table) is at most 100%."""
    for number in re.findall(r"([-\d.e+]+)%", html):
        assert 0 <= float(number) <= 100, number


def _check_answer(kind: str, answer: str):
    assert "Traceback" not in answer
    document = _strict_json(answer)
    assert "error" not in document, (kind, document.get("error"))
    _probabilities_in_range(document)
    if kind == "realtext" and "call" in document.get("figures", {}):
        _chances_in_range(document["figures"]["call"])
    for note in document.get("notes", []):
        assert "\n" not in note and len(note) < 3 * QUOTE_LIMIT + 400, note[:200]
        assert LONG[:QUOTE_LIMIT + 2] not in note, note[:200]   # a 5,000-character value is not echoed whole


@pytest.mark.parametrize("kind", instruments.widget_names())
def test_every_widget_answers_hostile_form_values(kind):
    names = _control_names(instruments.part("widgets", kind))

    @WIDGET_EXAMPLES
    @given(form=st.dictionaries(st.sampled_from(names), hostile_values, max_size=5))
    def run(form):
        _check_answer(kind, views.handle(json.dumps({"kind": kind, "input": form})))

    run()


@pytest.mark.parametrize("kind", instruments.widget_names())
def test_every_widget_answers_hostile_links(kind):
    names = _control_names(instruments.part("widgets", kind))

    @WIDGET_EXAMPLES
    @given(pairs=st.lists(st.tuples(st.sampled_from(names), hostile_texts), max_size=4))
    def run(pairs):
        query = "?" + "&".join(f"{key}={value}" for key, value in pairs)
        _check_answer(kind, views.handle(json.dumps({"kind": kind, "input": query})))

    run()


def test_named_inputs_of_the_review():
    """The hostile inputs a review named, as fixed examples: a tiny real-text temperature in a link, a
    measured curve with a rate of 1 sent to the policies, tree tokens below k + 1."""
    for kind, raw in (("realtext", "?rtTemperature=0.003"), ("realtext", {"rtTemperature": "1e-9"}),
                      ("policies", {"polCurve": "custom:0.9,1,0.5"}), ("policies", {"polCurve": "custom:1"}),
                      ("serving", "?srvTree=1&srvK=4")):
        answer = views.handle(json.dumps({"kind": kind, "input": raw}))
        _check_answer(kind, answer)
        assert _strict_json(answer)["notes"] or kind == "policies", (kind, raw)


# --- every CLI subcommand ------------------------------------------------------------------------

PARSER = cli._build_parser()
SUBCOMMANDS = sorted(PARSER.widget_of)
SWITCHES = {"tree": ["--verify"], "generate": ["--compare"]}


def _value_flags(command: str) -> list[str]:
    return sorted(getattr(instruments.part("commands", PARSER.widget_of[command]), "VALUE_FLAGS", {}))


@st.composite
def argv_of(draw, command: str):
    argv = [command]
    for flag in draw(st.lists(st.sampled_from(_value_flags(command)), max_size=4, unique=True)):
        value = draw(hostile_texts)
        argv += [f"{flag}={value}"] if draw(st.booleans()) else [flag, value]
    for switch in SWITCHES.get(command, []):
        if draw(st.booleans()):
            argv.append(switch)
    if command == "generate" and not any(a.startswith(("--tokens", "--prompt", "--preset")) for a in argv):
        argv += ["--preset", "python", "--tokens", "8"]   # keep a valid run short
    if draw(st.booleans()):
        argv.append("--json")
    return argv


@pytest.mark.parametrize("command", SUBCOMMANDS)
def test_every_subcommand_answers_hostile_flags(command, capsys):
    @CLI_EXAMPLES
    @given(argv=argv_of(command))
    def run(argv):
        capsys.readouterr()
        try:
            status = cli.main(argv)
        except SystemExit as exit_:
            status = exit_.code
        out, err = capsys.readouterr()
        assert "Traceback" not in out + err, (argv, err[-400:])
        assert status in (0, 2), (argv, status, err)   # 1 would be an internal error (lab.cli.main's last resort)
        if status == 2:
            assert out == "" and len(err.rstrip("\n").split("\n")) == 1 and err.strip(), (argv, err)
            assert len(err) < 3 * QUOTE_LIMIT + 400, err[:200]   # a long value is quoted cut, not whole
            return
        if "--json" in argv and status == 0:
            document = _strict_json(out)
            _probabilities_in_range(document)

    run()


def test_audit_refuses_hostile_flags_in_one_line(capsys):
    for argv in (["audit", "--suite", LONG], ["audit", "--suite", ""], ["audit", "--bogus"]):
        capsys.readouterr()
        assert cli.main(argv) == 2
        out, err = capsys.readouterr()
        assert out == "" and len(err.strip().split("\n")) == 1 and len(err) < 400, err[:200]


def test_every_pair_of_a_widget_s_choices_renders():
    """Every pair of values of any two of a widget's menus (the rest at their defaults) gives a view, not an
    exception: random hostile values rarely reach a valid combination, and two menus were what broke the serving
    widget (the roofline with an EAGLE-3 head). About 1,900 views, some 15 s."""
    import itertools

    from lab.urlstate import Choice

    broken = []
    for name in instruments.widget_names():
        widget = instruments.part("widgets", name)
        menus = [c for c in getattr(widget, "CONTROLS", ()) if isinstance(c, Choice)]
        for one, other in itertools.combinations(menus, 2):
            for a, b in itertools.product(one.options, other.options):
                query = f"?{one.key}={a}&{other.key}={b}"
                try:
                    widget.view(query)
                except Exception as error:  # noqa: BLE001 (any exception is the failure being looked for)
                    broken.append(f"{name} {query}: {error!r}")
    assert broken == [], broken[:10]
