"""The instruments suite: the named checks of every instrument, apart from the seed audit.

The seed audit (:mod:`lab.audit`, docs/CONTRACT.md section 3) never changes. Each instrument of
:mod:`lab.instruments` adds a family here, in ``lab/checks/NAME.py``:

* ``CHECKS``: ``(name, check)`` pairs. A check is ``check(out)`` with ``out`` a
  :class:`lab.audit.Outcome`: it counts every case it visits (``out.visited += 1``) and calls
  ``out.fail(message)`` with the first counterexample. It states, in its docstring, one property
  that a wrong implementation would break; a check that visits no case fails, and one that raises
  fails with the exception named.
* ``signature_value()``: one string that pins a number the instrument computes (formatted with
  :func:`lab.jsformat.to_fixed`). A value that raises, or that differs from its frozen field of
  :data:`EXPECTED_SIGNATURE`, is a failed check named ``NAME-signature-value`` (so a mutant that
  only moves an instrument's headline number still fails the suite). The suite's signature is
  ``instruments:K:passed:failures`` followed by these values in the order of
  :data:`lab.instruments.NAMES`; :data:`EXPECTED_SIGNATURE` is that string frozen from the code's
  output, and :data:`SIGNATURE_NOTES` says what each value is and where it was cross-checked.
"""

import re

from ..audit import check_result_steps, run_check, run_to_end
from .. import instruments

__all__ = ["run_suite", "suite_steps", "counter_text", "signature", "EXPECTED_SIGNATURE", "SIGNATURE_NOTES", "suite_view",
           "expected_value", "table_cells", "readout_difference", "cells_difference", "phrase_missing", "alpha_root",
           "figure_texts", "figure_numbers", "numbers_in", "figure_difference", "numbers_difference", "tip_values",
           "answer_problem", "hostile_inputs_answered", "HOSTILE_VALUES", "unescape", "close"]

# Frozen from the code's real output; each value is explained in SIGNATURE_NOTES. The count is the
# number of named checks (98: traces 14, serving 20, policies 12, trees 13, real text 9, deployment 30,
# three of which read the seed's ledger and exact sampler views), so a check added or lost moves it; git log
# holds how it grew (83 to 93 on 5 December 2026: ten checks for the mutants tools/mutation_sweep.py found
# surviving, docs/CHECKS.md "The mutation sweep"; 93 to 98 the same day, five for an outsider's planted mistakes;
# no value moved). The values are each family's signature_value(), computed at settings no check added
# since has changed: the serving value under the roofline step model, where neither the engine nor the
# calibration enters, and the deployment value from the panel's default figure through the translator alone.
EXPECTED_SIGNATURE = "instruments:98:98:0:0.661623:2.364222:1.938043:2.616000:0.915103:0.705102"
SIGNATURE_NOTES: dict[str, str] = {
    "traces": ("alphaIid of the default trace preset (club-3090 #105, two vLLM log lines summed: k = 6, 527 drafts, "
               "944 accepted), the root of sum_{i=1..6} a^i = 944/527, 6 decimals; cross-checked against numpy.roots "
               "of the same polynomial in tests/test_traces.py."),
    "serving": (
        "2.364222: the speedup at the serving model's library default, ServingSettings(), under the roofline step "
        "model (Llama-3-70B target, Qwen2.5-0.5B-class draft, 4 x H100 SXM, BF16, k = 4, acceptance 70%, 80% of "
        "bandwidth, 60% of FLOP/s, 0.5 ms per pass, batch 8, context 1024; the widget opens on the calibrated "
        "per-operator model). Cross-checked by hand arithmetic (every step memory-bound: plain = verify = "
        "(141,107,412,992 + 8 x 1024 x 327,680) B / 10.72 TB/s + 0.5 ms; draft likewise with 988,065,536 + "
        "8 x 1024 x 12,288 B; tokens 1 + 0.7 + ... + 0.7^4 = 2.7731) and by the numpy oracle in tests/test_serving.py."),
    "policies": (
        "Hugging Face's heuristic lookahead schedule (+2 after a fully accepted block, else -1, floor 1) as an exact "
        "long-run speedup under iid acceptance 74% with a draft pass at 12% of a target pass (no tax, no overhead), "
        "truncated at K_max = 19 with a proven cut-mass bound of 2.6e-11; cross-checked against numpy's "
        "least-squares solve of the same chain built independently and a seeded 200000-cycle simulation "
        "(tests/test_policies.py)."),
    "trees": ("2.616000: expected tokens per verify pass of the best tree with at most 7 nodes and 4 levels for "
              "the acceptance vector (0.6, 0.2, 0.1, 0.05) (Sequoia's DP); by hand 1 + 0.6 + 0.2 + 0.36 + 0.12 "
              "+ 0.12 + 0.216 = 2.616, and the brute-force search of tests/test_trees.py agrees "
              "(lab.checks.trees.SIGNATURE_NOTE)."),
    "realtext": ("0.915103: alpha = sum_x min(p(x), q(x)) between the 4-gram Kneser-Ney target and the bigram draft "
                 "after the default ('python') preset, on the small model the suite trains from "
                 "lab.checks.realtext.CHECK_CORPUS (352 tokens; the same in CPython and in the browser), computed "
                 "in fractions; tests/test_realtext.py recomputes it with numpy from the count tables by its own "
                 "Kneser-Ney code (lab.checks.realtext.SIGNATURE_NOTE)."),
    "deployment": ("0.705102: the per-token alpha the deployment panel reads from its default figure, a mean "
                   "acceptance length of 2.8 at lookahead 4 (through lab.traces.translate: the root of "
                   "a + a^2 + a^3 + a^4 = 1.8), 6 decimals; tests/test_deployment.py recomputes it with numpy.roots "
                   "(lab.checks.deployment.SIGNATURE_NOTE)."),
}


# The frozen value of each registered family, fixed at import (a family added later, such as a
# test's stand-in, has none and is not compared).
FROZEN_VALUES = dict(zip(instruments.NAMES, EXPECTED_SIGNATURE.split(":")[4:]))


def expected_value(family: str) -> str:
    """The frozen signature value of one family: its field of :data:`EXPECTED_SIGNATURE`
    (after ``instruments:K:passed:failures``, in the order of :data:`lab.instruments.NAMES`)."""
    return EXPECTED_SIGNATURE.split(":")[4 + instruments.NAMES.index(family)]


NOTHING_VISITED = "visited no case"


def _run_check(check):
    """One instrument check run as the suite runs it (its Outcome; the mutation tests read it)."""
    return run_check(check, nothing_visited=NOTHING_VISITED)


def suite_steps(families=None):
    """Run the suite one check at a time: a generator that yields True after each check and after
    each family's signature value, None inside a long check wherever it pauses (a check written as
    a generator, :func:`lab.audit.run_check_steps`), and returns :func:`run_suite`'s result. The browser
    runs the suite in slices through it, so a reader's slider move is answered between two cases of
    a check instead of waiting for all of them."""
    families = instruments.NAMES if families is None else tuple(families)
    results, values = [], []
    for family in families:
        module = instruments.part("checks", family)
        for name, check in module.CHECKS:
            result = yield from check_result_steps(name, check, nothing_visited=NOTHING_VISITED)
            results.append({**result, "family": family})
            yield True  # a check done (a pause inside one yields None)
        failure = None
        try:
            value = str(module.signature_value())
            if family in FROZEN_VALUES and value != FROZEN_VALUES[family]:
                failure = f"signature value {value} differs from the frozen {FROZEN_VALUES[family]}"
        except Exception as error:
            value = f"error({type(error).__name__})"
            failure = f"signature value raised {type(error).__name__}: {error}"[:300]
        values.append(value)
        if failure is not None:
            results.append({"name": f"{family}-signature-value", "family": family, "passed": False,
                            "detail": failure, "visited": 1,
                            "description": "the family's signature value computes and equals its frozen value"})
        yield True  # the family's signature value done
    failures = [r["name"] for r in results if not r["passed"]]
    return {"checked": len(results), "passed": len(results) - len(failures), "failures": failures,
            "checks": results, "values": values}


def run_suite(families=None) -> dict:
    """Run every family's checks (``families`` defaults to every registered instrument).

    Returns ``checked``, ``passed``, ``failures`` (names), ``checks`` (one dict per check:
    name, family, passed, detail, visited, description) and ``values`` (one signature value
    per family)."""
    return run_to_end(suite_steps(families))


def counter_text(result: dict) -> str:
    """The second visible counter: ``K/K instrument checks passed``.

    >>> counter_text({"checked": 3, "passed": 2})
    '2/3 instrument checks passed'
    """
    return f"{result['passed']}/{result['checked']} instrument checks passed"


def signature(result: dict) -> str:
    """``instruments:K:passed:failures`` and one value per family.

    >>> signature({"checked": 2, "passed": 2, "failures": [], "values": ["1.500000"]})
    'instruments:2:2:0:1.500000'
    """
    head = ["instruments", str(result["checked"]), str(result["passed"]), str(len(result["failures"]))]
    return ":".join(head + list(result["values"]))


def suite_view(result=None) -> dict:
    """What the page shows for the suite (run now unless ``result`` is given): counter, pass
    flag, per-check results, signature."""
    from ..figures import audit_checks_html

    result = run_suite() if result is None else result
    return {
        "counter": counter_text(result),
        "allPassed": not result["failures"] and result["checked"] > 0,
        "checks": result["checks"],
        "checksHtml": audit_checks_html(result["checks"]),
        "signature": signature(result),
        "summary": {key: result[key] for key in ("checked", "passed", "failures")},
    }


# --- what the readout checks share (NAME-readouts-match-model) ------------------------------------

def close(a: float, b: float, tolerance: float = 1e-12, floor: float = 0.0) -> bool:
    """Whether ``a`` and ``b`` agree to ``tolerance`` relative to the larger of ``|a|``, ``|b|`` and ``floor``:
    ``|a - b| <= tolerance * max(|a|, |b|, floor)``. With ``floor = 1`` the tolerance is absolute below 1 (rates,
    shares), so a rate of 0 and one of 1e-17 agree; with the default 0 it is relative everywhere (step times).
    The one closeness every family's checks use.

    >>> close(1.0, 1.0 + 1e-13), close(0.0, 1e-17), close(0.0, 1e-17, floor=1.0)
    (True, False, True)
    """
    return abs(a - b) <= tolerance * max(abs(a), abs(b), floor, 1e-300)


def views_at(out, widget, settings, view=None):
    """The readout checks' opening, shared: for each form ``values`` of ``settings`` (a widget's
    READOUT_SETTINGS), count it visited and yield ``(values, where, view)``: the values, their name in a
    failure message ("form {...}" or "form defaults") and the widget's view of them (``view(values)``
    when a check renders its own way, else ``widget.view``). The check's own pauses stay in the check.

    >>> class Out: visited = 0
    >>> class Widget:
    ...     view = staticmethod(lambda values: {"readouts": dict(values)})
    >>> out = Out()
    >>> [(where, v["readouts"]) for _, where, v in views_at(out, Widget, ({}, {"k": "2"}))], out.visited
    ([('form defaults', {}), ("form {'k': '2'}", {'k': '2'})], 2)
    """
    render = view or widget.view
    for values in settings:
        out.visited += 1
        yield values, f"form {values or 'defaults'}", render(dict(values))


def table_cells(html: str) -> list[str]:
    """The text of every ``<td>`` of a table, in document order.

    >>> table_cells('<tr><th>k</th><td>1.50</td><td class="x">2.00x</td></tr>')
    ['1.50', '2.00x']
    """
    import re

    return re.findall(r"<td[^>]*>(.*?)</td>", html)


def row_headers(html: str) -> list[str]:
    """The text of every row header (``<th scope="row">``) of a table, in document order: the cells'
    names, which :func:`table_cells` does not read.

    >>> row_headers('<tr><th scope="row">75%</th><td>1.50</td></tr><tr><th scope="row">70%</th></tr>')
    ['75%', '70%']
    """
    return re.findall(r'<th scope="row"[^>]*>(.*?)</th>', html)


def tip_axis(svg: str, axis: str) -> list[str]:
    """The row or column names (``axis`` "rows" or "cols") a heatmap's hover target gives the page's
    tooltip (``data-tip-rows``, top row first; ``data-tip-cols``, left first).

    >>> tip_axis('<rect data-tip-rows="95 90" data-tip-cols="1 2 3"/>', "rows")
    ['95', '90']
    """
    return [name for names in re.findall(rf'data-tip-{axis}="([^"]*)"', svg) for name in names.split()]


def readout_difference(where: str, shown: dict, expected: dict, source: str = "the model") -> str | None:
    """The first readout of ``expected`` that ``shown`` (a view's readouts) shows otherwise, as a
    failure message; None when every one agrees."""
    for key, want in expected.items():
        if shown.get(key) != want:
            return f"{where}: readout {key} shows {shown.get(key)!r}, {source} gives {want!r}"
    return None


def cells_difference(where: str, name: str, got: list, want: list) -> str | None:
    """The first cell where a table's cells ``got`` differ from ``want``, as a failure message.

    >>> cells_difference("here", "table", ["1", "2"], ["1", "3"])
    "here: table cell 1 shows '2', the model gives '3'"
    """
    if got == want:
        return None
    first = next((i for i, (a, b) in enumerate(zip(got, want)) if a != b), min(len(got), len(want)))
    return (f"{where}: {name} cell {first} shows {got[first] if first < len(got) else None!r}, "
            f"the model gives {want[first] if first < len(want) else None!r}")


def phrase_missing(where: str, view: dict, phrases: dict) -> str | None:
    """The first phrase of ``phrases`` (part of the view, such as its lead -> phrases) that the
    view's text lacks, as a failure message."""
    for part, wanted in phrases.items():
        for phrase in wanted:
            if phrase not in view[part]:
                return f"{where}: the {part} lacks {phrase!r} (it reads {view[part][:160]!r})"
    return None


def alpha_root(total: float, k: int) -> float:
    """The alpha in [0, 1] with ``a + a^2 + ... + a^k = total`` (0 <= total <= k), by bisection: the
    readout checks' own solution, apart from the models' (lab.traces.translate).

    >>> round(alpha_root(1.8, 4), 6)
    0.705102
    """
    low, high = 0.0, 1.0
    for _ in range(200):
        middle = (low + high) / 2
        low, high = (middle, high) if sum(middle ** i for i in range(1, k + 1)) < total else (low, middle)
    return (low + high) / 2


# --- the numbers a figure shows (the readout checks read SVG text back) ----------------------------
# A figure's numbers reach the reader in four places: the SVG's ``<text>`` (annotations, marked points,
# legends with values), its ``<title>`` tooltips, its ``aria-label`` (what a screen reader says) and a
# hover target's ``data-tip-values``. :func:`figure_numbers` reads every number of the first three (axis
# titles, class ``fig-axis``, excepted); :func:`figure_difference` compares them with the numbers the model
# gives, each formatted by the page's one formatter (:func:`lab.jsformat.to_fixed`) by the check:
#
# * every expected number must be shown (a readout drawn from the wrong value loses its number);
# * every shown number must be expected or one of the figure's ``fixed`` numbers (tick labels and
#   constants the check names), so a number moved by one digit shows up as one the model does not give.
#
# Numbers are read unsigned (``-``, ``+`` and the minus sign are not part of them) in the plain decimal form
# to_fixed writes.
_NUMBER = re.compile(r"[0-9]{1,3}(?:,[0-9]{3})+(?:\.[0-9]+)?|[0-9]+(?:\.[0-9]+)?")  # 1,024 is one number
_TEXT = re.compile(r"<(text|title)([^>]*)>(.*?)</\1>", re.S)
_LABEL = re.compile(r'aria-label="([^"]*)"')
# The named character references the lab's own markup writes (every one in lab/), with the characters
# html.entities.html5 gives them; tests/test_instruments_scaffold.py holds the list to the lab's sources.
NAMED_REFERENCES = {"alpha": "\u03b1", "amp": "&", "gt": ">", "lt": "<", "minus": "\u2212", "nbsp": "\u00a0",
                    "ndash": "\u2013", "plusmn": "\u00b1", "quot": '"'}
_REFERENCE = re.compile(r"&(#[0-9]+|#[xX][0-9a-fA-F]+|[A-Za-z][A-Za-z0-9]*);")


def _character(found) -> str:
    name = found.group(1)
    if name[0] != "#":
        return NAMED_REFERENCES.get(name, found.group(0))
    return chr(int(name[2:], 16) if name[1] in "xX" else int(name[1:]))


def unescape(text: str) -> str:
    """``html.unescape`` for the lab's own markup, without importing :mod:`html`: its table of entities
    (``html.entities``, about 20 KB of the browser's standard library as brotli) would ship to every
    reader for the checks alone. Numeric references and the named ones of NAMED_REFERENCES; any other
    named reference is left as it is.

    >>> unescape("one &amp; 2, &#x27;k&#x27; &ndash; &#955; &alpha;")
    "one & 2, 'k' \u2013 \u03bb \u03b1"
    """
    return _REFERENCE.sub(_character, text)


_CLASS = re.compile(r'class="([^"]*)"')
_TAG = re.compile(r"<[^>]+>")


def figure_texts(svg: str, skip_classes=("fig-axis",)) -> list[str]:
    """The text a reader sees or hears in a figure: every ``<text>`` (not of a class in ``skip_classes``),
    every ``<title>`` and every ``aria-label``, unescaped, nested tags dropped, in document order.

    >>> figure_texts('<svg aria-label="one &amp; 2"><text class="fig-axis">k</text>'
    ...              '<text class="fig-tick">best <tspan>k = 4</tspan></text><title>3.10x</title></svg>')
    ['one & 2', 'best k = 4', '3.10x']
    """
    texts = [unescape(label) for label in _LABEL.findall(svg)]
    for tag, attributes, body in _TEXT.findall(svg):
        found = _CLASS.search(attributes)
        if tag == "text" and found and set(found.group(1).split()) & set(skip_classes):
            continue
        texts.append(unescape(_TAG.sub("", body)))
    return texts


def numbers_in(text: str) -> list[str]:
    """The numbers of ``text``, unsigned, as written (thousands grouped by commas are one number).

    >>> numbers_in("static k = 5: 1.81x (\u22121.0%), context 1,024; ranks 1, 4")
    ['5', '1.81', '1.0', '1,024', '1', '4']
    """
    return _NUMBER.findall(text)


def figure_numbers(svg: str, skip_classes=("fig-axis",)) -> list[str]:
    """Every number of :func:`figure_texts`, in order.

    >>> figure_numbers('<svg aria-label="2 nodes"><text>tree 3.81</text><text class="fig-axis">k 9</text></svg>')
    ['2', '3.81']
    """
    return [number for text in figure_texts(svg, skip_classes) for number in numbers_in(text)]


def tip_values(svg: str) -> list[str]:
    """The values a hover or tap target lists for the page's tooltip (``data-tip-values``), in order.

    >>> tip_values('<rect data-tip-values="1.00 2.50"/>')
    ['1.00', '2.50']
    """
    return [value for values in re.findall(r'data-tip-values="([^"]*)"', svg) for value in values.split()]


def figure_difference(where: str, name: str, svg: str, expected, fixed=(), skip_classes=("fig-axis",),
                      ordered: bool = False) -> str | None:
    """The first disagreement between the numbers figure ``name`` shows and ``expected`` (the model's
    numbers, formatted as the page formats them), as a failure message; None when they agree.
    ``fixed`` names the numbers the figure may show that are no model number (tick labels, constants).
    With ``ordered``, ``expected`` must also appear in its order (the description first, then the text
    and tooltips in document order), so two series drawn from each other's values fail too.

    >>> svg = '<svg><text>your setting: 1.79x</text><text class="fig-tick">10%</text></svg>'
    >>> figure_difference("here", "map", svg, ["1.79"], fixed=["10"]) is None
    True
    >>> figure_difference("here", "map", svg, ["1.80"], fixed=["10"])
    "here: figure map lacks the model's 1.80 (it shows 1.79, 10)"
    >>> figure_difference("here", "map", svg.replace("10%", "12%"), ["1.79"], fixed=["10"])
    "here: figure map shows 12, which is neither the model's (1.79) nor a fixed label"
    """
    return numbers_difference(where, f"figure {name}", figure_numbers(svg, skip_classes), expected, fixed, ordered)


def numbers_difference(where: str, name: str, shown, expected, fixed=(), ordered: bool = False) -> str | None:
    """:func:`figure_difference` for numbers read anywhere (``shown``, e.g. :func:`numbers_in` of a
    table cell or a list row): each of ``expected`` must be shown, and each shown number be expected or
    ``fixed``.

    >>> numbers_difference("here", "row", numbers_in("k = 4: 2.05x"), ["4", "2.05"]) is None
    True
    >>> numbers_difference("here", "row", numbers_in("k = 3: 2.05x"), ["4", "2.05"])
    "here: row lacks the model's 4 (it shows 3, 2.05)"
    >>> numbers_difference("here", "bars", ["0.64", "0.54", "0.63"], ["0.64", "0.63", "0.54"], ordered=True)
    "here: bars shows the model's numbers out of order: 0.54 does not come after 0.63"
    """
    shown = list(shown)
    wanted = [str(number) for number in expected]
    for number in wanted:
        if number not in shown:
            return f"{where}: {name} lacks the model's {number} (it shows {', '.join(shown[:40])})"
    allowed = set(wanted) | {str(number) for number in fixed}
    for number in shown:
        if number not in allowed:
            return (f"{where}: {name} shows {number}, which is neither the model's "
                    f"({', '.join(wanted[:40])}) nor a fixed label")
    if ordered:
        position = 0
        for index, number in enumerate(wanted):
            try:
                position = shown.index(number, position) + 1
            except ValueError:
                return (f"{where}: {name} shows the model's numbers out of order: {number} does not come after "
                        f"{wanted[index - 1]}")
    return None


# --- hostile input (NAME-hostile-inputs-answered) ---------------------------------------------------------

# A value a reader (or a link) may send that is no number in a slider's range: each must come back as
# a note naming the control, the slider at a valid value, and never an error, a NaN or a whole echo.
LONG_VALUE = "7" * 5000
HOSTILE_VALUES = ("nan", "inf", "-inf", "1e400", "", " ", "\u0663", "\uff15", "\u0663\u066b\u0665", "0x10", "1_000",
                  "<script>", LONG_VALUE)
# what a link carries: the values whose reading differs in a query (quoting, length), not every one again
HOSTILE_LINK_VALUES = ("nan", "", "\u0663", "1_000", "<script>", LONG_VALUE)
PROBABILITY_READOUTS = ("alpha", "alphaIid", "alphaMle", "acceptanceRate", "firstAlpha", "rate")


def answer_problem(view, notes_for: str | None = None) -> str | None:
    """What is wrong with a view's answer to hostile input, or None: an error or exception text, a NaN or
    infinity anywhere (JSON has none), a note that is long, spans lines or echoes a long value whole
    (at most :data:`lab.urlstate.QUOTE_LIMIT` characters of it), a probability readout outside 0..100%,
    or, with ``notes_for`` (a control's label), no note naming that control.

    >>> answer_problem({"notes": ["Seed: 'nan' is not a number; using 23"]}, "Seed") is None
    True
    >>> answer_problem({"notes": []}, "Seed")
    'no note names Seed'
    >>> answer_problem({"readouts": {"alpha": "101.0%"}})
    'readout alpha shows 101.0%, not a probability'
    """
    import json

    from ..urlstate import QUOTE_LIMIT

    if not isinstance(view, dict) or "error" in view:
        return f"no view: {view.get('error') if isinstance(view, dict) else view!r}"[:300]
    try:
        json.dumps(view, allow_nan=False)
    except (ValueError, TypeError) as error:
        return f"the answer is not finite JSON ({error})"[:300]
    for note in view.get("notes", ()):
        if not isinstance(note, str) or "\n" in note or "Traceback" in note or len(note) > 3 * QUOTE_LIMIT + 400:
            return f"a note is not one short line: {str(note)[:120]!r}"
        if LONG_VALUE[:QUOTE_LIMIT + 2] in note:
            return f"a note repeats a long value whole: {note[:120]!r}"
    for key in PROBABILITY_READOUTS:
        shown = view.get("readouts", {}).get(key)
        if isinstance(shown, str) and shown.endswith("%"):
            try:
                inside = 0 <= float(shown[:-1]) <= 100
            except ValueError:
                inside = False
            if not inside:
                return f"readout {key} shows {shown}, not a probability"
    if notes_for is not None and not any(notes_for.lower() in note.lower() for note in view.get("notes", ())):
        return f"no note names {notes_for}"
    return None


def hostile_inputs_answered(out, widget, cases=(), sliders=None, links: bool = True):
    """Every slider of ``widget`` (``sliders``, else its CONTROLS' or SLIDERS' sliders) given each of
    :data:`HOSTILE_VALUES` as a form value (and :data:`HOSTILE_LINK_VALUES` in a link): the view answers
    (:func:`answer_problem`) with a note naming the slider (a link too long to read: a note saying so),
    and shows the slider at a value in its range, in ASCII digits. Then each of ``cases``, ``(form or
    link, label or None)``: answered, with a note naming ``label`` when given. ``links=False`` sends the
    hostile values as form values only (a widget whose every view runs a model). A generator: it pauses
    between sliders."""
    from urllib.parse import quote

    from ..urlstate import MAX_QUERY_LENGTH

    controls = sliders if sliders is not None else getattr(widget, "CONTROLS", None) or widget.SLIDERS
    for slider in (c for c in controls if hasattr(c, "minimum")):
        for value in HOSTILE_VALUES:
            link = links and value in HOSTILE_LINK_VALUES
            for raw in ({slider.name: value}, f"?{slider.key}={quote(value)}")[:2 if link else 1]:
                out.visited += 1
                where = f"{widget.__name__.rsplit('.', 1)[-1]} {slider.name} = {value[:12]!r}" + (
                    " in a link" if isinstance(raw, str) else "")
                try:
                    view = widget.view(raw)
                except Exception as error:  # a view must never raise
                    return out.fail(f"{where}: the view raised {type(error).__name__}: {error}"[:300])
                too_long = isinstance(raw, str) and len(raw) > MAX_QUERY_LENGTH  # a link refused whole, said so
                problem = answer_problem(view, "link's settings" if too_long else slider.label)
                shown = str(view.get("shown", {}).get(slider.name, slider.default))
                try:
                    valid = shown.isascii() and slider.minimum <= float(shown) <= slider.maximum
                except ValueError:
                    valid = False
                if problem or not valid:
                    return out.fail(f"{where}: {problem or f'the slider shows {shown[:60]!r}'}")
        yield
    for raw, label in cases:
        out.visited += 1
        try:
            view = widget.view(raw)
        except Exception as error:
            return out.fail(f"{raw!r}: the view raised {type(error).__name__}: {error}"[:300])
        problem = answer_problem(view, label)
        if problem:
            return out.fail(f"{str(raw)[:80]}: {problem}")
    yield
