"""The deployment panel's family of the instruments suite: the unit conversions, the ledger's costs
fitted to the serving model, and that every instrument the panel sets answers what the panel says.

The grid walks every target with two drafts, two GPUs and a few batches, contexts and lookaheads;
the view checks feed the very values the panel's buttons send to the other widgets' own views.
"""

from functools import lru_cache

from .. import deployment, ledger, serving, traces
from ..jsformat import to_fixed

__all__ = ["CHECKS", "signature_value", "SIGNATURE_NOTE", "SIGNATURE_SETTING"]

TOLERANCE = 1e-9
ALPHAS = (0.0, 0.05, 0.3, 0.57, 0.74, 0.9, 0.99, 1.0)
LOOKAHEADS = (1, 2, 4, 7, 12)
GRID = tuple(deployment.Deployment(target=target, draft=draft, gpu=gpu, gpus=gpus, batch=batch, context=context,
                                   lookahead=k)
             for target in serving.TARGETS for draft in (serving.EAGLE, "qwen2.5-0.5b")
             for gpu, gpus in (("h100-sxm", 4), ("a100-80g", 8)) for batch, context in ((1, 1024), (64, 8192))
             for k in (1, 4, 7)) + (
    # past every ledger slider: a plain step of seconds, which the sliders must clamp
    deployment.Deployment(target="deepseek-v3", draft=serving.EAGLE, gpu="l40s", gpus=1, batch=1024, context=131072,
                          lookahead=4),)
VIEW_GRID = ({}, {"unit": "rate", "value": "45", "measuredK": "5", "lookahead": "6", "batchExp": "0"},
             {"unit": "alpha", "value": "57", "target": "llama-3-8b", "gpus": "1", "lookahead": "2", "batchExp": "0"},
             {"target": "mixtral-8x7b", "draft": "ngram", "gpu": "a100-80g", "batchExp": "8", "contextExp": "14"})
SIGNATURE_SETTING = {"value": 2.8, "unit": "length", "measured_k": 4}
SIGNATURE_NOTE = (
    "deployment: alpha of the panel's default figure, a mean acceptance length of 2.8 at k = 4 (the root of "
    "a + a^2 + a^3 + a^4 = 1.8), 6 decimals; tests/test_deployment.py recomputes it with numpy.roots.")


def units_round_trip(out):
    """Every alpha on a grid of alphas and lookaheads, written as the engines' acceptance rate and as the
    mean acceptance length (lab.traces.translate), comes back from each unit as the same alpha."""
    for k in LOOKAHEADS:
        for alpha in ALPHAS:
            units = traces.translate(k, alpha=alpha)
            for unit, value in (("alpha", 100 * alpha), ("rate", 100 * units["acceptanceRate"]),
                                ("length", units["meanAcceptanceLength"])):
                out.visited += 1
                back = deployment.alpha_from(value, unit, k)
                if abs(back - alpha) > 1e-6:
                    out.fail(f"alpha {alpha} at k = {k} as {unit} {value} came back as {back}")
                    return


def unit_bounds_refused(out):
    """A figure outside its unit's range (alpha or rate outside 0..100%, a length outside 1..k + 1) is
    refused with a message that names the value, never converted."""
    for k in LOOKAHEADS:
        for unit, value in (("alpha", -1), ("alpha", 101), ("rate", 100.5), ("length", 0.99), ("length", k + 1.01)):
            out.visited += 1
            try:
                deployment.alpha_from(value, unit, k)
            except ValueError as error:
                if str(value) not in str(error):
                    out.fail(f"the message for {unit} {value} does not name it: {error}")
                    return
            else:
                out.fail(f"{unit} {value} at k = {k} was converted")
                return


FIT_ALPHA = 0.7   # the acceptance the fit is checked at (the emitted-token output grows with it)


@lru_cache(maxsize=None)
def _fit(d):
    return deployment.ledger_costs(d, FIT_ALPHA), deployment.step_times(d)


def ledger_fit_reproduces_serving(out):
    """The ledger's cycle on the fitted (unrounded) costs equals the serving model's k draft steps, one
    verify step and the cycle's emitted-token output processing at the reader's k (alpha 0.7), to 1e-9 relative, on every target, draft, GPU, batch, context and k of
    the grid; so the ledger's speedup there equals the serving model's."""
    for d in GRID:
        out.visited += 1
        costs, steps = _fit(d)
        emitted = serving.emitted_output_ms(deployment.serving_settings(d, 0), d.batch,
                                            serving.tokens_per_cycle(FIT_ALPHA, d.lookahead))
        serving_cycle = d.lookahead * steps["draft"] + steps["verify"] + emitted
        cycle = deployment.ledger_cycle_ms(costs, d.lookahead)
        if abs(cycle - serving_cycle) > TOLERANCE * serving_cycle:
            out.fail(f"{d}: ledger cycle {cycle} ms, serving {serving_cycle} ms")
            return


def fitted_costs_are_sliders(out):
    """The fitted costs are ones a ledger can hold: a positive target pass, a non-negative draft share,
    tax and overhead; and the values sent to every instrument lie in its sliders' ranges."""
    from ..urlstate import LEDGER_SLIDERS

    ranges = {s.name: (s.minimum, s.maximum) for s in LEDGER_SLIDERS}
    for d in GRID:
        out.visited += 1
        costs, _ = _fit(d)
        if not costs["targetMs"] > 0 or min(costs["draftCost"], costs["verifyTax"], costs["overheadMs"]) < 0:
            out.fail(f"{d}: fitted costs {costs}")
            return
        sent = deployment.instrument_values(d, 0.7)["ledger"]
        for name, (low, high) in ranges.items():
            if not low <= sent[name] <= high:
                out.fail(f"{d}: the ledger's {name} gets {sent[name]}, outside {low}..{high}")
                return


def _sent(raw):
    from ..widgets import deployment as panel

    return panel.view(raw)


def serving_widget_shows_the_answer(out):
    """The serving widget, given what the panel sends it, shows the panel's speedup at k (its readout, 3
    decimals) and its settings have the panel's best lookahead."""
    from ..widgets import serving as widget

    for raw in VIEW_GRID:
        out.visited += 1
        panel = _sent(raw)
        answer = panel["answer"]
        shown = widget.view({name: str(value) for name, value in answer["values"]["serving"].items()})
        if shown["readouts"]["speedup"] != to_fixed(answer["serving"]["speedup"], 3):
            out.fail(f"{raw}: serving shows {shown['readouts']['speedup']}, the panel {answer['serving']['speedup']}")
            return
        best = serving.best_lookahead(widget._settings(shown["params"]), deployment.MAX_LOOKAHEAD)[0]
        if best != answer["serving"]["bestLookahead"]:
            out.fail(f"{raw}: serving's best lookahead {best}, the panel's {answer['serving']['bestLookahead']}")
            return
        yield  # a pause: the browser answers a reader between two cases (lab.audit.run_check_steps)


def ledger_widget_shows_the_ledger_answer(out):
    """The ledger widget, given what the panel sends it, has the speedup and best lookahead the panel
    reports for the ledger."""
    from ..widgets import ledger as widget

    for raw in VIEW_GRID:
        out.visited += 1
        answer = _sent(raw)["answer"]
        shown = widget.view({name: str(value) for name, value in answer["values"]["ledger"].items()})
        if (shown["bestLookahead"] != answer["ledger"]["bestLookahead"]
                or abs(shown["ledger"]["speedup"] - answer["ledger"]["speedup"]) > TOLERANCE):
            out.fail(f"{raw}: the ledger shows k = {shown['bestLookahead']}, {shown['ledger']['speedup']}; "
                     f"the panel says k = {answer['ledger']['bestLookahead']}, {answer['ledger']['speedup']}")
            return


def policies_independent_is_the_ledger(out):
    """With independent tokens, the lookahead policies given what the panel sends them find the ledger's
    best static lookahead and speedup (over the same k range): one cost model, not two."""
    from .. import policies

    for raw in VIEW_GRID:
        out.visited += 1
        answer = _sent(raw)["answer"]
        values = answer["values"]["policies"]
        result = policies.evaluate_setting({**values, "burst": 0, "threshold": 40})["best-static"]
        # the ledger as the panel sets it, at the policies' acceptance (their slider stops at 1..99%)
        sent = answer["values"]["ledger"]
        settings = ledger.LedgerSettings(**{name: sent[name] for name in ledger.LedgerSettings._fields}).with_(
            acceptance=values["acceptance"])
        k, speedup = ledger.best_lookahead(settings, policies.MAX_STATIC)
        if abs(result["speedup"] - speedup) > 1e-9 * speedup:
            out.fail(f"{raw}: policies best static k = {result['k']} at {result['speedup']}, ledger k = {k} at {speedup}")
            return


def view_names_bad_values(out):
    """The panel's view never raises on hostile input, and each bad value's note names the control and
    what is valid."""
    # each named by its label on the page, in the page's units (lab.urlstate.reader_note)
    cases = (({"value": "abc"}, "Your acceptance figure", "valid"),
             ({"unit": "furlongs"}, "Its unit", "mean acceptance length"),
             ({"value": "9", "unit": "length", "measuredK": "4"}, "Your acceptance figure", "k + 1 = 5"),
             ({"gpus": "3"}, "GPU count", "\u201c8\u201d"), ({"batchExp": "1e400"}, "Batch B", "1,024 sequences"),
             ("?depValue=nan&depK=99", "Your acceptance figure", "valid"), ({"target": ["x"]}, "Target model", "Llama"))
    for raw, name, valid in cases:
        out.visited += 1
        notes = _sent(raw)["notes"]
        if not any(note.startswith(name) and valid in note for note in notes):
            out.fail(f"{raw}: no note names {name} and {valid!r}: {notes}")
            return
    for raw in (None, 5, [1], {"width": "x"}, "?" + "x" * 5000):
        out.visited += 1
        if "summary" not in _sent(raw):
            out.fail(f"{raw!r}: no summary")
            return


CHECKS = (
    ("deployment-units-round-trip", units_round_trip),
    ("deployment-unit-bounds-refused", unit_bounds_refused),
    ("deployment-ledger-fit-reproduces-serving", ledger_fit_reproduces_serving),
    ("deployment-fitted-costs-are-sliders", fitted_costs_are_sliders),
    ("deployment-serving-shows-the-answer", serving_widget_shows_the_answer),
    ("deployment-ledger-shows-its-answer", ledger_widget_shows_the_ledger_answer),
    ("deployment-policies-independent-is-ledger", policies_independent_is_the_ledger),
    ("deployment-view-names-bad-values", view_names_bad_values),
)


def signature_value() -> str:
    """Alpha of the panel's default figure (see :data:`SIGNATURE_NOTE`)."""
    return to_fixed(deployment.alpha_from(SIGNATURE_SETTING["value"], SIGNATURE_SETTING["unit"],
                                          SIGNATURE_SETTING["measured_k"]), 6)
