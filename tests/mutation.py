"""What the mutation-test files share: run one named check of an instruments family against a
model broken on purpose, and return the failure it reports."""

from lab import serving, serving_load, serving_memory, serving_presets, serving_step, serving_sweep
from lab.checks import _run_check

# lab.serving re-exports its parts, and each part calls what it imported by its own name (lab.serving_sweep writes
# the per-operator step's sum in line, so a mutant of _time or of its helpers reaches the sweeps only through the
# roofline; the checks that compare a sweep with speedup_at or best_lookahead see the two part)
SERVING_MODULES = (serving, serving_presets, serving_step, serving_memory, serving_load, serving_sweep)


def failure_of(checks, name: str, *fragments: str) -> str:
    """The failure message of check ``name`` of ``checks`` (a family's ``CHECKS``, pairs or a dict),
    which must exist (the check caught the mutation) and contain every one of ``fragments``."""
    out = _run_check(dict(checks)[name])
    assert out.failure, f"{name} did not catch the mutation"
    for fragment in fragments:
        assert fragment in out.failure, out.failure
    return out.failure


def clear_caches(*modules) -> None:
    """Empty every memoised function (``functools.lru_cache``) of ``modules``, before a mutant runs and
    after it is undone: a result a mutant computed must not outlive it in a cache (the widgets keep
    their models' results, so a model's mutant reaches them too)."""
    for module in modules:
        for value in vars(module).values():
            if callable(getattr(value, "cache_clear", None)):
                value.cache_clear()
        # the real-text widget keeps its runs in a dict of its own (lab.widgets.realtext._runs), not an lru_cache
        runs = vars(module).get("_runs")
        if isinstance(runs, dict):
            runs.clear()


def replace_in_serving(monkeypatch, name, value, *also) -> None:
    """Replace ``name`` in every serving module that holds it (:data:`SERVING_MODULES`, and ``also``),
    so a mutant reaches every caller, as it did when the model was one module."""
    holders = [module for module in SERVING_MODULES + also if hasattr(module, name)]
    assert holders, name
    for module in holders:
        monkeypatch.setattr(module, name, value)
