"""Each check of the real-text family fails when the decoder is broken in the way the check claims
to catch, and its message names the case (a mutation test per check)."""

from __future__ import annotations

from lab import realtext, realtext_rows, realtext_rule, realtext_training
from lab.checks import realtext as family
from mutation import failure_of

CHECK = dict(family.CHECKS)


def _failure(name: str) -> str:
    return failure_of(CHECK, name)


def _mutate(monkeypatch, name: str, mutant) -> None:
    """``name`` replaced by ``mutant`` wherever the decoder's modules hold it (lab.realtext re-exports
    what its parts define, and the checks read it there): a bug in the function itself."""
    original = getattr(realtext, name)
    for module in (realtext, realtext_training, realtext_rows, realtext_rule):
        if getattr(module, name, None) is original:
            monkeypatch.setattr(module, name, mutant)


def test_every_check_has_a_mutation_test():
    tested = {name[len("test_real_"):].replace("_", "-") for name in globals() if name.startswith("test_real_")}
    assert tested == set(CHECK), set(CHECK) ^ tested


def test_real_every_text_encodes(monkeypatch):
    """Bug: a pre-token pattern that skips punctuation (those bytes never reach the tokens).

    The small model is trained before the mutation (it is cached for the whole session: trained
    under the mutated pattern it would change the suite's signature for every later test), and the
    encodings cached under the mutation are dropped afterwards."""
    model = family.small_model()
    _mutate(monkeypatch, "PRETOKEN", rb" ?[A-Za-z_]+| ?[0-9]+|\s+")
    monkeypatch.setattr(family, "check_model", lambda: model)
    model.tokenizer._cache.clear()
    try:
        assert "comes back as" in _failure("every-text-encodes")
    finally:
        model.tokenizer._cache.clear()


def test_real_cycle_law_is_target_row(monkeypatch):
    """Bug: after a rejection, draw again from the draft q instead of the residual."""
    _mutate(monkeypatch, "residual", lambda p, q: q)
    assert "the cycle commits token" in _failure("cycle-law-is-target-row")


def test_real_one_hot_proposals_exact(monkeypatch):
    """Bug: the correction is drawn from p itself (the rejected token can come straight back)."""
    _mutate(monkeypatch, "residual", lambda p, q: p)
    failure = _failure("one-hot-proposals-exact")
    assert "the law with one-hot q" in failure


def test_lookup_from_the_latest_match_is_caught(monkeypatch):
    """Bug: prompt lookup copies from the latest match instead of vLLM's earliest."""
    def latest(tokens, k, min_n=realtext.PROMPT_LOOKUP[0], max_n=realtext.PROMPT_LOOKUP[1]):
        length = len(tokens)
        for n in range(min(max_n, length - 1), min_n - 1, -1):
            for start in range(length - n - 1, -1, -1):
                if tokens[start:start + n] == tokens[length - n:]:
                    return list(tokens[start + n:start + n + k])
        return []

    _mutate(monkeypatch, "prompt_lookup", latest)
    assert "prompt lookup copied" in _failure("one-hot-proposals-exact")


def test_real_greedy_at_zero_temperature(monkeypatch):
    """Bug: the bonus token comes from the last draft's row instead of the row after every draft."""
    def early_bonus(drafts, p_rows, q_rows, rng, sample=realtext.sample_row):
        committed = []
        for index, token in enumerate(drafts):
            p, q = p_rows[index], q_rows[index]
            if rng.random() < realtext.acceptance_probability(p[token], q[token]):
                committed.append(token)
                continue
            committed.append(sample(realtext.residual(p, q), rng))
            return committed, index, True
        committed.append(sample(p_rows[max(0, len(drafts) - 1)], rng))
        return committed, len(drafts), False

    _mutate(monkeypatch, "verify_block", early_bonus)
    assert "leaves greedy decoding at token" in _failure("greedy-at-zero-temperature")


def test_real_acceptance_matches_analytic(monkeypatch):
    """Bug: a lenient test, ``u < sqrt(min(1, p/q))``: drafts survive more often than the rule says
    (the analytic chance stays sum min(p, q))."""
    original = realtext.acceptance_probability
    _mutate(monkeypatch, "acceptance_probability", lambda p_x, q_x: original(p_x, q_x) ** 0.5)
    assert "first-position acceptance" in _failure("acceptance-matches-analytic")


def test_real_real_trace_round_trip(monkeypatch):
    """Bug: the trace leaves out the last verifier call (as if it were still running)."""
    original = realtext.summarise

    def truncated(cycles, k):
        result = original(cycles, k)
        result["cycles"] = result["cycles"][:-1]
        return result

    monkeypatch.setattr(realtext, "summarise", truncated)
    assert "the trace reader reads" in _failure("real-trace-round-trip")


def test_real_realtext_readouts_match_model(monkeypatch):
    """Bug: the call table's chance read as p/q without the min (316.8% for a likely target token)."""
    from lab.widgets import realtext as widget

    widget._runs.clear()
    _mutate(monkeypatch, "acceptance_probability", lambda p_x, q_x: p_x / q_x)
    assert "call table" in _failure("realtext-readouts-match-model")
    widget._runs.clear()


def test_real_realtext_presets_match_model(monkeypatch):
    """Bug: the presets table's runs report the acceptance rate as alpha (more in
    tests/test_readouts_figures_mutations.py)."""
    from lab.widgets import realtext as widget

    original = widget.preset_comparison.__wrapped__
    monkeypatch.setattr(widget, "preset_comparison", lambda model: [
        {**row, "cells": [{**cell, "alphaMle": cell["acceptanceRate"]} for cell in row["cells"]]}
        for row in original(model)])
    assert "presets table" in _failure("realtext-presets-match-model")


def test_real_realtext_hostile_inputs_answered(monkeypatch):
    """Bug: no smallest temperature above 0, so T = 0.003 reaches the tempered rows (more in
    tests/test_fuzz_mutations.py)."""
    from lab.widgets import realtext as widget

    monkeypatch.setattr(realtext, "MIN_TEMPERATURE", 1e-12)
    widget._runs.clear()
    try:
        assert "rtTemperature" in _failure("realtext-hostile-inputs-answered")
    finally:
        widget._runs.clear()
