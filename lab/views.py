"""What each region of the page shows, as JSON-able dicts: the one seam between the lab and
the page. The build calls these with the defaults (CPython); the Pyodide worker calls them
with the reader's URL query or slider values. Every function here clamps instead of
raising: bad input comes back as ``notes`` and the other settings survive.
"""

from . import figures, instruments

__all__ = ["audit_view", "instrument_audit_view", "audit_slice", "page_context", "handle"]


def _audit():
    """lab.audit, imported on first use: the worker boots on ``import lab.views`` and the page
    goes live then, so the audit's 20 checks load with the first exact render or audit run,
    after the reader can already move a slider."""
    from . import audit

    return audit


def audit_view(result=None) -> dict:
    """Run the 20 checks (or show ``result``, a run already made): counter text, per-check results
    and the three signatures."""
    audit = _audit()
    result = audit.run_audit() if result is None else result
    return {
        "counter": audit.counter_text(result),
        "allPassed": not result["failures"],
        "checks": result["checks"],
        "checksHtml": figures.audit_checks_html(result["checks"]),
        "signatures": audit.signatures(result),
        "summary": {key: result[key] for key in ("checked", "passed", "failures", "settings", "maxExactTv", "maxAlphaGap")},
    }


def page_context() -> dict:
    """Everything the build needs to pre-render the article in its default state: both audits,
    and each widget's own ``page_context()`` under ``widgets``."""
    widgets = {name: instruments.part("widgets", name).page_context() for name in instruments.widget_names()}
    return {
        "audit": audit_view(),
        "widgets": widgets,
        "instrumentAudit": instrument_audit_view() if instruments.NAMES else None,
        "acceptance": _acceptance_context(),  # acceptance by position: the held-out table, the prose's numbers
    }


def _acceptance_context() -> dict:
    """The acceptance section's table and numbers, and the deployment the prose names (the issue's
    DeepSeek-V3 with the "EAGLE or MTP head" preset, which on DeepSeek-V3 is its MTP module
    (lab.acceptance.family_of_draft), on 8 H200s at batch 1, k = 4): its best k from one figure at k = 1
    (1.79) under i.i.d., under the MTP prior, and on DeepSeek-V4-Pro's measured MTP curve."""
    from . import acceptance, acceptance_validation, deployment

    d = deployment.DEFAULT_DEPLOYMENT._replace(target="deepseek-v3", draft="eagle-head", gpu="h200", gpus=8, batch=1,
                                               lookahead=4)
    lengths = acceptance.library_lengths("dsv4-pro-mtp-thinking")
    curves = {"prior": acceptance.from_single(lengths[0], 1, "mtp"),
              "measured": acceptance.from_lengths(dict(enumerate(lengths, start=1)), "mtp")}
    best = {"iid": deployment.answer(d, lengths[0] - 1)["serving"]["bestLookahead"]}
    for name, curve in curves.items():
        alpha = deployment.alpha_from(curve.length(d.lookahead), "length", d.lookahead)
        best[name] = deployment.answer(d, alpha, curve)["serving"]["bestLookahead"]
    return {"heldOut": acceptance_validation.held_out_html(), "facts": acceptance_validation.page_facts(),
            "best": best}


def instrument_audit_view() -> dict:
    """The instruments suite (the second counter), run on every registered instrument."""
    from .checks import suite_view

    return suite_view()


# The browser runs each audit in slices of about this long, one request each, so a reader's
# slider move waits for at most one slice (a check or two, or a few cases of a long check that
# pauses between them) rather than the whole suite.
SUITE_SLICE_SECONDS = 0.05
_suites_in_progress: dict = {}  # suite name -> the sliced run under way in this worker


def _suite_steps(suite: str, family=None):
    """(steps, view of the result) of an audit suite: the seed's 20 checks, the instruments' or
    one family of theirs (``family``: the page runs a family once its widget's modules are loaded)."""
    if suite == "seed":
        return _audit().run_audit_steps(), audit_view
    from .checks import suite_steps, suite_view
    if family is None:
        return suite_steps(), suite_view
    return suite_steps([family]), lambda result: _family_view(family, result, suite_view)


_families_run: dict = {}  # family -> its result in this worker (the page runs each family once it is loaded)


def _family_view(family: str, result: dict, suite_view) -> dict:
    """The instruments suite's view over every family run so far in this worker, in the order of
    :data:`lab.instruments.NAMES` (once all have run: the whole suite's view, signature included,
    as one run of the suite gives), with ``families`` (run) and ``progress`` (one sentence)."""
    _families_run[family] = result
    ran = [name for name in instruments.NAMES if name in _families_run]
    checks = [check for name in ran for check in _families_run[name]["checks"]]
    failures = [check["name"] for check in checks if not check["passed"]]
    merged = {"checked": len(checks), "passed": len(checks) - len(failures), "failures": failures, "checks": checks,
              "values": [value for name in ran for value in _families_run[name]["values"]]}
    left = len(instruments.NAMES) - len(ran)
    progress = (f"re-run in this browser: {', '.join(ran)} ({len(ran)} of {len(instruments.NAMES)} instruments); "
                f"the other {left} show the build's results until you reach them" if left else "")
    return {**suite_view(merged), "families": ran, "progress": progress}


def audit_slice(suite: str, start: bool, family=None) -> dict:
    """Run the next slice of an audit suite (``seed`` or ``instruments``, or one ``family`` of the
    instruments): ``{"pending": True, "done": n}`` (n checks finished) until the last check, then
    the suite's whole view. ``start`` begins a new run."""
    import time

    key = suite if family is None else f"{suite}:{family}"
    if start or key not in _suites_in_progress:
        if not start:
            return {"error": f"no {key} suite run is in progress; start one with "
                             f'{{"kind": "audit", "suite": "{suite}", "sliced": true}}'}
        if family is not None and not instruments.is_instrument(family):
            return {"error": f"unknown family {family!r}; valid: {', '.join(instruments.NAMES)}"}
        steps, view = _suite_steps(suite, family)
        _suites_in_progress[key] = {"steps": steps, "view": view, "done": 0}
    run = _suites_in_progress[key]
    deadline = time.perf_counter() + SUITE_SLICE_SECONDS
    try:
        while True:
            if next(run["steps"]):  # True: a check finished (None: a pause inside a long one)
                run["done"] += 1
            if time.perf_counter() >= deadline:
                return {"pending": True, "done": run["done"]}
    except StopIteration as finished:
        del _suites_in_progress[key]
        return run["view"](finished.value)
    except BaseException:
        del _suites_in_progress[key]
        raise


def sent_differs(widget, view: dict, raw) -> str:
    """The one sentence a widget sent another widget's settings (the deployment panel's) adds under
    its lead: why its number may differ from the sender's answer (its module's ``differs(view)``),
    or ``""`` when nothing was sent (the page's hidden ``origin`` input, :func:`lab.urlstate.was_sent`)
    or the widget says nothing.

    >>> from lab.widgets import exact
    >>> sent_differs(exact, exact.view(None), {"origin": "sent"})[:32]
    'It takes only your k and draft c'
    >>> sent_differs(exact, exact.view(None), {})
    ''
    """
    from .urlstate import was_sent

    differs = getattr(widget, "differs", None)
    return differs(view) if differs is not None and was_sent(raw) else ""


def _respond(request: dict) -> dict:
    """One request of :func:`handle`, as a dict. Kinds: ``audit`` (``suite``: ``seed``, the
    default, or ``instruments``, optionally one ``family`` of it; with ``"sliced": true`` either runs
    in slices, each further slice asked for with ``op`` ``continue``) or a widget; ``op`` is ``view`` (the default), ``warm`` (import
    the widget's module now, before the reader reaches it) or one of the widget's ``OPERATIONS``."""
    kind, op = request.get("kind"), request.get("op", "view")
    if kind == "audit":
        suite = request.get("suite", "seed")
        if suite in ("seed", "instruments"):
            family = request.get("family") if suite == "instruments" else None
            if op == "continue" or request.get("sliced") or family is not None:
                return audit_slice(suite, start=op != "continue", family=family)
            return audit_view() if suite == "seed" else instrument_audit_view()
        return {"error": f"unknown audit suite {suite!r}; valid: seed, instruments"}
    if instruments.is_widget(kind):
        widget = instruments.part("widgets", kind)
        if op == "warm":
            return {"warm": True}
        if op == "view":
            raw = request.get("input")
            view = widget.view(raw)
            # "" clears the sentence a render after a hand-off may have left on the page
            return {**view, "differs": sent_differs(widget, view, raw)} if hasattr(widget, "differs") else view
        operation = getattr(widget, "OPERATIONS", {}).get(op) if isinstance(op, str) else None
        if operation is None:
            return {"error": f"unknown operation {op!r} for {kind}; valid: view, warm"
                             + "".join(f", {name}" for name in getattr(widget, "OPERATIONS", {}))}
        return operation(request)
    valid = ", ".join(("audit", *instruments.widget_names()))
    return {"error": f"unknown request kind {kind!r}; valid: {valid}"}


def handle(message: str) -> str:
    """The worker's single entry point: a JSON request in, a JSON response out.

    ``{"kind": K, "input": query-string-or-form-values, "op": "view" | "warm" | ...}`` (see
    :func:`_respond`). JSON both ways keeps the JavaScript free of Python objects. A failure
    comes back as ``{"error": ...}`` rather than an exception, so one bad request cannot take
    the worker down. An instrument may offer more operations in its ``OPERATIONS`` table
    (for example, a file fed in chunks)."""
    import json

    try:
        try:
            request = json.loads(message)
        except (TypeError, ValueError) as error:  # not JSON at all (a truncated message): said in the request's words
            return json.dumps({"error": f"a request is a JSON object with a kind; this one is not JSON ({error})"})
        if not isinstance(request, dict):
            return json.dumps({"error": "a request is a JSON object with a kind"})
        view = _respond(request)
        if "error" in view:
            return json.dumps({"error": view["error"]})
        return json.dumps({"kind": request.get("kind"), **view})
    except Exception as error:  # reported to the page as a notice, never a dead worker
        return json.dumps({"error": f"{type(error).__name__}: {error}"})
