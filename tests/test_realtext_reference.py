"""The real-text decoder's kept and cached work changes no answer: runs from :mod:`lab.realtext`
(rows kept per context, cumulative tables, overlaps and residuals kept on the rows, a run kept
and extended) equal, value for value, a slow reference written here the way the decoder was first
written: every row recomputed from the count tables, nothing kept between calls or cycles."""

from __future__ import annotations

import math
import random
from bisect import bisect_right
from itertools import accumulate
from random import Random

import pytest

from lab import realtext
from lab.checks import realtext as family
from lab.widgets import realtext as widget


# --- the reference: the decoder with nothing kept -------------------------------------------------

def reference_row(model, which, context, temperature):
    """Interpolated Kneser-Ney (D = 3/4) from the tables, then tempered: the same float
    operations in the same order as the decoder's rows, recomputed on every call."""
    tables = model.target if which == "target" else model.draft
    history = tuple(context[max(0, len(context) - (len(tables) - 1)):])
    unigram, size = tables[0], model.size
    total, types = sum(unigram.counts), len(unigram.words)
    uniform = (3 * types) / (4 * total * size)
    row = [uniform] * size
    for word, count in zip(unigram.words, unigram.counts):
        row[word] = uniform + (4 * count - 3) / (4 * total)
    for n in range(2, len(tables) + 1):
        if len(history) < n - 1:
            break
        found = tables[n - 1].find(history[len(history) - (n - 1):])
        if found is None:
            continue
        first, end = found
        words, counts = tables[n - 1].words[first:end], tables[n - 1].counts[first:end]
        level_total = sum(counts)
        weight = (3 * (end - first)) / (4 * level_total)
        row = [weight * value for value in row]
        for word, count in zip(words, counts):
            row[word] += (4 * count - 3) / (4 * level_total)
    if temperature == 1:
        return row
    if temperature == 0:
        one_hot = [0.0] * size
        one_hot[row.index(max(row))] = 1.0
        return one_hot
    top, power = max(row), 1.0 / temperature
    weights = [(value / top) ** power for value in row]
    mass = sum(weights)
    return [w / mass for w in weights]


def reference_sample(row, rng):
    cdf = list(accumulate(row))
    last = len(row) - 1
    while row[last] == 0:
        last -= 1
    cdf[last] = math.inf
    return bisect_right(cdf, rng.random(), 0, last + 1)


def reference_cycle(model, proposer, tokens, k, temperature, rng):
    size = model.size
    if proposer == "ngram":
        drafts = realtext.prompt_lookup(tokens, k)
        q_rows = [[1.0 if x == t else 0.0 for x in range(size)] for t in drafts]
    else:
        context, drafts, q_rows = list(tokens[-(model.order - 1):]), [], []
        for _ in range(k):
            row = reference_row(model, "draft", context, temperature if proposer == "draft" else 1.0)
            if proposer == "draft":
                token, q = reference_sample(row, rng), row
            else:
                token = row.index(max(row))
                q = [1.0 if x == token else 0.0 for x in range(size)]
            drafts.append(token)
            q_rows.append(q)
            context.append(token)
    p_rows = [reference_row(model, "target", list(tokens[-(model.order - 1):]) + drafts[:i], temperature)
              for i in range(len(drafts) + 1)]
    committed, accepted, rejected = [], len(drafts), False
    for i, token in enumerate(drafts):
        p, q = p_rows[i], q_rows[i]
        if rng.random() < (0.0 if q[token] == 0 else min(p[token] / q[token], 1.0)):
            committed.append(token)
            continue
        excess = [max(a - b, 0.0) for a, b in zip(p, q)]
        mass = sum(excess)
        committed.append(reference_sample([e / mass for e in excess], rng))
        accepted, rejected = i, True
        break
    else:
        committed.append(reference_sample(p_rows[len(drafts)], rng))
    first_alpha = None
    if drafts:
        p, q = p_rows[0], q_rows[0]
        first_alpha = sum(min(a, b) for a, b in zip(p, q)) if proposer == "draft" else min(1.0, p[drafts[0]])
    checked = [(p_rows[i][token], q_rows[i][token]) for i, token in enumerate(drafts[:accepted + 1])]
    return {"drafts": drafts, "accepted": accepted, "rejected": rejected, "committed": committed,
            "firstAlpha": first_alpha, "checked": checked}


def reference_generate(model, prompt_tokens, proposer, k, temperature, count, seed):
    rng, tokens, cycles, done = Random(seed), list(prompt_tokens), [], 0
    while done < count:
        cycle = reference_cycle(model, proposer, tokens, k, temperature, rng)
        cycles.append(cycle)
        tokens.extend(cycle["committed"])
        done += len(cycle["committed"])
    return cycles


# --- the decoder equals the reference ---------------------------------------------------------------

def _prompts(model):
    prompts = {name: prompt for name, (_, prompt) in realtext.PRESETS.items()}
    prompts["typed"] = "The quick brown fox\n    {\"a\": [1, 2, 3]}"
    return {name: model.tokenizer.encode(prompt) for name, prompt in prompts.items()}


@pytest.mark.parametrize("which", ["real", "small"])
def test_runs_equal_the_reference_on_every_preset_proposer_and_temperature(which):
    """Every preset and a typed prompt, every proposer, T in {0, 0.5, 1, 1.3}, two seeds and two
    lookaheads: the same calls (drafts, accepted count, committed tokens) with the same p(x), q(x)
    and first-position chance, to the last bit. The runs share the decoder's caches, in an order
    that reuses rows across runs (the same contexts recur at the same temperature)."""
    model = realtext.default_model() if which == "real" else family.small_model()
    for name, tokens in _prompts(model).items():
        for proposer in realtext.PROPOSERS:
            for temperature in (0.0, 0.5, 1.0, 1.3):
                for seed, k in ((1, 4), (7, 2)):
                    expected = reference_generate(model, tokens, proposer, k, temperature, 24, seed)
                    got = realtext.generate(model, tokens, proposer, k, temperature, 24, seed)
                    assert got == expected, (name, proposer, temperature, seed, k)


def test_a_kept_run_answers_any_order_of_questions_as_a_fresh_run():
    """A :class:`lab.realtext.Run` asked for (count, max_calls) in a random order, growing and
    shrinking, gives each time exactly generate's answer for those arguments."""
    model = realtext.default_model()
    tokens = model.tokenizer.encode(realtext.PRESETS["template"][1])
    rng = random.Random(3)
    for proposer, temperature in (("draft", 0.7), ("ngram", 0.0), ("draft-greedy", 1.0)):
        run = realtext.Run(model, tokens, proposer, 3, temperature, 21)
        for _ in range(12):
            count, max_calls = rng.randrange(1, 60), rng.choice([None, 1, 2, 5, 9, 30])
            assert run.upto(count, max_calls) == realtext.generate(model, tokens, proposer, 3, temperature, count,
                                                                     21, max_calls=max_calls)


def test_the_widget_answers_as_with_nothing_kept(monkeypatch):
    """The widget's answers with its kept runs warm (asked in an order that reuses them) equal its
    answers with every run and row forgotten before each request."""
    queries = [f"rtLookahead={k}&rtTemperature={t}&rtTokens={n}&rtSeed=2&rtStep={step}&rtProposer={proposer}"
               for k, t, n, step, proposer in ((4, 1, 48, 64, "draft"), (4, 1, 64, 64, "draft"), (4, 1, 16, 3, "draft"),
                                              (6, 0.7, 40, 5, "draft"), (6, 0.7, 40, 64, "draft"),
                                              (2, 0, 32, 64, "ngram"), (2, 0, 32, 2, "ngram"))]
    warm = [widget.view(query) for query in queries]
    model = realtext.default_model()
    for query, answer in zip(queries, warm):
        widget._runs.clear()
        monkeypatch.setattr(model, "_rows", type(model._rows)())
        monkeypatch.setattr(model, "_parts", type(model._parts)())
        assert widget.view(query) == answer, query


def test_lazy_drafts_are_the_drafts_and_only_the_examined_ones_are_computed():
    """A lazy run's records (the widget's) read as generate's, draft for draft; before they are
    read, a call that rejected its first draft has computed only that draft's row."""
    model = realtext.default_model()
    tokens = model.tokenizer.encode(realtext.PRESETS["docstring"][1])
    for proposer, temperature in (("draft", 0.7), ("draft", 1.0), ("draft-greedy", 1.3)):
        lazy = realtext.Run(model, tokens, proposer, 6, temperature, 5, lazy=True).upto(48)
        unread = [len(cycle["drafts"].tokens) for cycle in lazy]
        assert all(n == cycle["accepted"] + cycle["rejected"] for n, cycle in zip(unread, lazy))
        assert any(n < 6 for n in unread)  # some calls left drafts unresolved
        eager = realtext.generate(model, tokens, proposer, 6, temperature, 48, 5)
        assert [{**cycle, "drafts": list(cycle["drafts"])} for cycle in lazy] == eager


def test_the_widget_answers_as_with_eager_runs(monkeypatch):
    """The widget's answers with lazy drafts equal its answers from runs whose drafts are all
    computed as each call is made (every step of a run with many rejections: each call's detail
    lists all its drafts)."""
    queries = [f"rtLookahead=8&rtTemperature=1.3&rtSeed=4&rtStep={step}" for step in (1, 2, 5, 9, 64)]
    lazy = [widget.view(query) for query in queries]
    widget._runs.clear()
    monkeypatch.setattr(widget, "_run", lambda *args: realtext.Run(*args))
    assert [widget.view(query) for query in queries] == lazy


def test_rows_compared_class_by_class_equal_token_by_token():
    """:func:`lab.realtext.overlap` and :func:`lab.realtext.residual` of two rows the model made
    from its classes (``Row.parts``: compared class by class, then the tokens either row names)
    equal, to the last bit, the same rows compared token by token as plain lists: over contexts
    of every prompt, at three temperatures, with the draft's row after the context and after one
    more token (so that a row often names tokens the other does not)."""
    model = realtext.default_model()
    compared = only_q = 0
    for tokens in _prompts(model).values():
        for cut in range(2, len(tokens), 4):
            for temperature in (0.5, 1.0, 1.3):
                p = model.row("target", tokens[:cut], temperature)
                for q in (model.row("draft", tokens[:cut], temperature),
                          model.row("draft", tokens[:cut + 1], temperature)):
                    assert p.parts is not None and q.parts is not None
                    only_q += bool(q.parts[1].keys() - p.parts[1].keys())
                    assert realtext._overlap(p, q) == realtext._overlap(list(p), list(q))
                    assert realtext.residual(p, q) == realtext.residual(list(p), list(q))
                    compared += 1
    assert compared > 100 and only_q > 10  # and many a draft row names a token the target's does not
