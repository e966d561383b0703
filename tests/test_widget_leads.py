"""Every widget leads with its answer in one sentence (view["lead"]); the working that gives it
(view["summary"]) is folded under it on the page. The lead must say nothing the working does not:
each number in it appears in the summary or the readouts of the same view."""

import re

import pytest

from lab import instruments

NUMBER = re.compile(r"\d+(?:\.\d+)?")
MAX_WORDS = 40

# Settings that take each widget off its defaults' path: every slider at each end, and the inputs
# that make a view speak differently (a refusal, a measured curve, a batch that does not fit, a
# stepped run, a slower-than-plain setting).
SPECIAL = {
    "ledger": [{"acceptance": "5", "lookahead": "12"}, {"trcCurve": "custom:0.9,0.7,0.5"}],
    "exact": [{"certainty": "0", "match": "0"}],
    "traces": [{"trcText": "this is not a trace"}, {"trcText": "Mean acceptance length: 2.8", "trcLookahead": "4"},
               {"trcText": "\n".join(["3", "0", "1", "3", "2"] * 4), "trcLookahead": "3"}],
    "policies": [{"polProcess": "toy"}, {"polProcess": "independent"}, {"polCurve": "custom:0.9,0.7,0.5"}],
    "serving": [{"batchExp": "10", "contextExp": "17"}, {"srvCurve": "custom:0.9,0.7,0.5"}],
    "realtext": [{"rtStep": "3"}, {"rtProposer": "ngram"}, {"rtTemperature": "0"}],
    "trees": [{"verifyCost": "h100"}, {"verifyCost": "a100", "budget": "128"}],
    "deployment": [{"value": "0.3", "unit": "rate", "measuredK": "4", "batchExp": "9"}],
}


def _cases():
    for kind in instruments.widget_names():
        widget = instruments.part("widgets", kind)
        yield kind, None
        for slider in getattr(widget, "SLIDERS", ()):
            for end in (slider.minimum, slider.maximum):
                yield kind, {slider.name: str(end)}
        for raw in SPECIAL.get(kind, ()):
            yield kind, raw


CASES = list(_cases())


def test_the_cases_reach_every_widget():
    assert {kind for kind, _ in CASES} == set(instruments.widget_names())


@pytest.mark.parametrize("kind,raw", CASES, ids=[f"{kind}-{i}" for i, (kind, _) in enumerate(CASES)])
def test_every_view_leads_with_one_sentence_the_working_bears_out(kind, raw):
    view = instruments.part("widgets", kind).view(raw)
    lead = view["lead"]
    assert isinstance(lead, str) and lead.endswith("."), lead
    # one sentence: no full stop followed by a new sentence inside it (decimals like 1.33x are fine)
    assert not re.search(r"[.;:!?]\s+[A-Z]", lead.replace("Hugging Face", "hugging face")), lead
    assert len(lead.split()) <= MAX_WORDS, lead
    working = view["summary"] + " " + " ".join(str(value) for value in view.get("readouts", {}).values())
    backed = set(NUMBER.findall(working))
    unbacked = [number for number in NUMBER.findall(lead) if number not in backed]
    assert unbacked == [], (lead, view["summary"])


@pytest.mark.parametrize("kind", instruments.widget_names())
def test_a_sent_widget_says_in_one_sentence_why_its_number_differs(kind):
    """With its settings sent from the deployment panel (the form's hidden origin input), a widget that
    shows a number of its own says under its lead, in one sentence, why it may differ from the panel's
    answer; unsent, or from a link, it says nothing of the kind."""
    from lab import views

    widget = instruments.part("widgets", kind)
    for raw in ({"origin": "sent"}, *[{"origin": "sent", **case} for case in SPECIAL.get(kind, ()) if isinstance(case, dict)]):
        view = widget.view(raw)
        differs = views.sent_differs(widget, view, raw)
        unsent = views.sent_differs(widget, view, {k: v for k, v in raw.items() if k != "origin"})
        assert unsent == "" and views.sent_differs(widget, view, "?origin=sent") == ""
        if kind in ("traces", "deployment"):  # the panel itself; the trace reader reads the reader's own text
            assert differs == ""
            continue
        assert differs.endswith(".") and len(differs.split()) <= MAX_WORDS, differs
        assert not re.search(r"[.;:!?]\s+[A-Z]", differs.replace("Part one", "part one")
                             .replace("Part three", "part three")), differs
