"""Acceptance as a curve in every instrument: on a curve that plateaus, no instrument's best k goes past the plateau's start plus one,
and every best k on a curve comes from one function (lab.acceptance.best_lookahead). The instruments
suite's check (acceptance-plateau-caps-every-instrument) is run unmutated and against each instrument
with the cap taken out, one at a time."""

import math

import pytest

from lab import acceptance, ledger, policies, serving
from lab.checks import deployment as family
from lab.widgets import ledger as ledger_widget
from mutation import clear_caches, failure_of

CHECK = "acceptance-plateau-caps-every-instrument"


def _uncapped(speedup_at, curve, max_k=12):
    """best_lookahead's answer with the plateau cap taken out (the mutant every instrument gets)."""
    values = [speedup_at(k) for k in range(1, max_k + 1)]
    k = max(range(1, max_k + 1), key=lambda i: (values[i - 1], -i))
    return {"k": k, "speedup": values[k - 1], "extrapolatedFrom": curve.extrapolated_from(k),
            "plateauStart": None, "capped": False, "uncappedK": k}


@pytest.fixture(autouse=True)
def _fresh_caches():
    from lab.widgets import policies as policies_widget, serving as serving_widget

    modules = (policies, policies_widget, serving, serving_widget, ledger_widget)
    clear_caches(*modules)
    yield
    clear_caches(*modules)


def test_check_holds_unmutated():
    from lab.checks import _run_check

    out = _run_check(dict(family.CHECKS)[CHECK])
    assert not out.failure and out.visited >= 12


def test_catches_the_ledger_widget_without_the_cap(monkeypatch):
    def mutant(settings, conditional, max_lookahead=12, measured_at=None):
        return _uncapped(lambda k: ledger.ledger_from_curve(settings.with_(lookahead=k), conditional).speedup,
                         acceptance.token_curve(conditional, measured_at), max_lookahead)

    monkeypatch.setattr(acceptance, "best_lookahead_on_curve", mutant)  # the widget imports it when a curve comes
    failure_of(family.CHECKS, CHECK, "ledger")


def test_catches_the_policies_best_static_without_the_cap(monkeypatch):
    def mutant(process, costs, max_k=policies.MAX_STATIC, cache=None):
        prefixes = policies._prefixes(process, max_k, cache)
        values = [policies._speedup_only(process, policies._static_outcomes(prefixes, k), costs)
                  for k in range(1, max_k + 1)]
        k = max(range(1, max_k + 1), key=lambda i: (values[i - 1], -i))
        return policies._per_state_chain(process, policies._static_outcomes(prefixes, k), costs, {"k": k})

    monkeypatch.setattr(policies, "best_static", mutant)
    failure_of(family.CHECKS, CHECK, "policies")


def test_catches_the_serving_best_k_without_the_cap(monkeypatch):
    real = serving.best_lookahead

    def mutant(settings, max_lookahead=12, curve=None, measured_at=None):
        if not curve:
            return real(settings, max_lookahead)
        values = [serving.speedup_at(settings.with_(lookahead=k), settings.batch, settings.context, curve)
                  for k in range(1, max_lookahead + 1)]
        k = max(range(1, max_lookahead + 1), key=lambda i: (values[i - 1], -i))
        return k, values[k - 1]

    monkeypatch.setattr(serving, "best_lookahead", mutant)
    failure_of(family.CHECKS, CHECK, "best k")


def test_catches_a_plateau_rule_that_never_finds_a_plateau(monkeypatch):
    monkeypatch.setattr(acceptance, "plateau_start", lambda curve, max_k=64: None)
    failure_of(family.CHECKS, CHECK, "plateau start")


def test_every_best_k_on_a_curve_is_the_one_rule():
    """The ledger, policies and serving best k on the same curve token equal what
    lab.acceptance.best_lookahead says for each instrument's own speedup function."""
    rates = [0.8, 0.5, 0.3, 0.2]
    curve = acceptance.token_curve(rates)
    settings = ledger.LedgerSettings(draftCost=0, verifyTax=0, overheadMs=0)
    want = acceptance.best_lookahead(lambda k: ledger.ledger_from_curve(settings.with_(lookahead=k), rates).speedup,
                                     curve, 12)
    assert acceptance.best_lookahead_on_curve(settings, rates) == want
    assert acceptance.best_lookahead_from_curve(settings, rates) == (want["k"], want["speedup"])
    assert want["capped"] and want["k"] == want["plateauStart"] + 1
    found = policies.best_static(policies.depth_curve(rates), policies.Costs(0.0), 12)
    assert found["k"] <= found["plateauStart"] + 1 and found["capped"]
    s = serving.ServingSettings(draft="ngram")
    k, speedup = serving.best_lookahead(s, 12, curve=rates)
    on_curve = acceptance.best_lookahead(lambda j: serving.speedup_at(s.with_(lookahead=j), s.batch, s.context, rates),
                                         curve, 12)
    assert (k, speedup) == (on_curve["k"], on_curve["speedup"])


def test_token_curve_repeats_the_last_rate_as_the_instruments_do():
    rates = [0.9, 0.6, 0.5]
    curve = acceptance.token_curve(rates)
    for k in range(1, 10):
        accepted, _ = ledger.expected_accepted_from_curve(rates, k)
        assert math.isclose(curve.length(k), 1 + accepted, rel_tol=0, abs_tol=1e-12)
        assert curve.rates(k)[-1] == policies.depth_curve(rates).alpha(0, k)
    assert curve.extrapolated_from(3) is None and curve.extrapolated_from(4) == 3
    assert acceptance.token_curve(rates, 2).extrapolated_from(3) == 2


def test_the_widgets_say_when_the_cap_binds():
    view = ledger_widget.view({"trcCurve": "custom:0.8,0.5,0.3,0.2", "draftCost": "0", "verifyTax": "0",
                               "overheadMs": "0"})
    assert view["bestLookahead"] == 4 and "capped: the curve plateaus from k = 3 " in view["lead"]
    from lab.widgets import policies as policies_widget

    view = policies_widget.view({"polCurve": "custom:0.8,0.5,0.3,0.2", "draftCost": "0"})
    assert view["readouts"]["bestStatic"].startswith("k = 4,")
    assert "stops where the curve plateaus from k = 3 " in view["summary"]


# --- the trees' depth profile (a tree of depth d uses the curve's positions 1..d) ---

TREES_CHECK = "trees-depth-profile-from-curve"


def test_trees_depth_check_holds_unmutated():
    from lab.checks import _run_check, trees as trees_family

    out = _run_check(dict(trees_family.CHECKS)[TREES_CHECK])
    assert not out.failure and out.visited == 3


def test_trees_depth_check_catches_levels_off_by_one(monkeypatch):
    from lab import trees
    from lab.checks import trees as trees_family

    def shifted(rates, decay, ranks, depth):  # level i reads position i + 1
        return tuple(trees.rank_probabilities(rates[min(level + 1, len(rates) - 1)], decay, ranks)
                     for level in range(depth))

    monkeypatch.setattr(trees, "depth_rank_probabilities", shifted)
    failure_of(trees_family.CHECKS, TREES_CHECK)


def test_trees_depth_check_catches_a_value_that_ignores_depth(monkeypatch):
    from lab import trees
    from lab.checks import trees as trees_family

    monkeypatch.setattr(trees, "tree_value_by_depth", lambda parents, probs: trees.tree_value(parents, probs[0]))
    failure_of(trees_family.CHECKS, TREES_CHECK)


def test_the_panel_sends_its_curve_to_the_trees():
    from lab import deployment
    from lab.widgets import trees as trees_widget

    curve = acceptance.from_lengths({1: 1.79, 2: 2.27, 3: 2.49, 4: 2.54}, "mtp")
    values = deployment.instrument_values(deployment.DEFAULT_DEPLOYMENT, 0.7, curve)
    view = trees_widget.view(values["trees"])
    assert view["curveMode"] and values["trees"]["treCurve"] == values["ledger"]["trcCurve"]
    rates = [row["top1"] for row in view["depthProfile"]["rows"]]
    assert rates == [round(r, 4) for r in curve.rates(len(rates))]
    assert "On the measured curve" in view["summary"]


# --- a short curve past its measured positions: the acceptance model, never the last rate repeated ----

SHORT = "custom:0.8,0.7"


def test_ledger_extends_a_short_curve_with_the_model_not_its_last_rate():
    view = ledger_widget.view({"trcCurve": SHORT, "lookahead": "5"})
    settings = ledger.LedgerSettings(**{s.name: s.default for s in ledger_widget.SLIDERS} | {"lookahead": 5})
    modelled = acceptance.extended_rates([0.8, 0.7], 16)
    assert modelled[2:5] == acceptance.from_conditional([0.8, 0.7]).rates(5)[2:]
    assert view["ledger"]["speedup"] == ledger.ledger_from_curve(settings, modelled).speedup
    assert view["ledger"]["speedup"] < ledger.ledger_from_curve(settings, [0.8, 0.7]).speedup  # the repeat: optimistic
    assert "positions 3 to 5 extrapolated by the acceptance model past the measured k = 2" in view["summary"]


def test_policies_and_trees_extend_a_short_curve_and_say_so():
    from lab.widgets import policies as policies_widget, trees as trees_widget

    view = policies_widget.view({"polCurve": SHORT, "lookahead": "5"})
    process = policies.received_curve([0.8, 0.7])
    assert process.depth_rates[2] < 0.7 and process.measured_depth == 2
    assert view["readouts"]["bestStatic"].endswith("(past the measured k = 2)")
    assert "rests on the acceptance model's extrapolation" in view["summary"]
    trees = trees_widget.view({"treCurve": SHORT, "treeDepth": "6"})
    levels = [row["top1"] for row in trees["depthProfile"]["rows"]]
    assert levels[:2] == [0.8, 0.7] and levels[2] < 0.7
    assert f"Levels 3 to {len(levels)} rest on the acceptance model's extrapolation" in trees["summary"]


def test_the_token_carries_its_measured_positions_and_receivers_use_them():
    curve = acceptance.from_conditional([0.8, 0.7, 0.6])
    token = acceptance.curve_token(curve)
    assert token.endswith("@3") and acceptance.token_measured_at(token) == 3
    assert acceptance.token_rates(token) == [float(part) for part in token[7:-2].split(",")]
    view = ledger_widget.view({"trcCurve": token, "lookahead": "12"})
    assert view["bestOnCurve"]["extrapolatedFrom"] in (None, 3)
    assert "past the measured k = 3" in view["summary"]
    # a curve measured at every position it carries says nothing of extrapolation up to them
    whole = acceptance.curve_token(acceptance.from_conditional([0.8] * 16))
    assert "@" not in whole and acceptance.token_measured_at(whole) is None


def test_the_token_round_trips_through_the_address():
    token = "custom:0.8000,0.7000,0.6000@2"
    for query in (f"?trcCurve={token}&lookahead=5", "?trcCurve=custom:0.8000,0.7000,0.6000%402&lookahead=5"):
        view = ledger_widget.view(query)
        assert view["shown"]["trcCurve"] == token and view["curveMode"]
        again = ledger_widget.view({"trcCurve": view["shown"]["trcCurve"], "lookahead": "5"})
        assert again["ledger"] == view["ledger"] and again["bestOnCurve"] == view["bestOnCurve"]
    # the third rate is as given; the fourth on continues the two measured ones
    assert view["ledger"]["speedup"] != ledger_widget.view({"trcCurve": "custom:0.8,0.7,0.6", "lookahead": "5"})["ledger"]["speedup"]


@pytest.mark.parametrize("mark", ["@5", "@0", "@x", "@", "@1@2", "@2.0"])
def test_a_bad_measured_mark_is_one_clear_note(mark):
    from lab.widgets import policies as policies_widget, trees as trees_widget

    for widget, key in ((ledger_widget, "trcCurve"), (policies_widget, "polCurve"), (trees_widget, "treCurve")):
        view = widget.view({key: "custom:0.8,0.7" + mark})
        notes = [note for note in view["notes"] if note.startswith(key)]
        assert not view["curveMode"] if "curveMode" in view else True
        assert len(notes) == 1 and "measured positions (after @) must be a whole number from 1 to 2" in notes[0]


def test_the_deployment_curve_answer_runs_no_iid_sent_scan(monkeypatch):
    from lab import deployment

    d = deployment.Deployment(target="llama-3-70b", draft="eagle-head", gpu="h100-sxm", gpus=4, batch=8,
                              context=1024, lookahead=4)
    calls = []
    real = serving.best_lookahead
    monkeypatch.setattr(serving, "best_lookahead", lambda *a, **kw: calls.append(kw.get("curve")) or real(*a, **kw))
    curve = acceptance.from_conditional([0.8, 0.7, 0.6])
    answer = deployment.answer(d, 0.7, curve)
    # one scan, on the sent curve: none at the deployment's own alpha or the sent whole percent, which the curve's
    # answer replaces (its own best k comes from lab.acceptance.best_lookahead on the curve)
    assert calls.count(None) == 0 and len(calls) == 1
    assert answer["servingSent"]["bestLookahead"] == real(deployment.serving_settings(d, answer["acceptancePercent"]),
                                                          deployment.MAX_LOOKAHEAD,
                                                          curve=acceptance.token_rates(answer["curve"]["token"]))[0]
    assert "agree" in deployment.answer(d, 0.7) and "servingSent" in deployment.answer(d, 0.7)
