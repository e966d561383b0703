"""The real-text decoder, against what it stands for.

A row is never laid out token by token when the decoder runs (:class:`lab.realtext.Row`): it is
looked up through its chain of levels, summed through what every row after the same last token
shares (:class:`lab.realtext.Base`) and sampled without reading the vocabulary. Here a slow
reference written the way the decoder was first written (every row recomputed from the count
tables, token by token, nothing kept) checks each of those shortcuts:

* a row's values at T = 1 equal the reference's to the last bit, and tempered ones to a few
  units in the last place (their normaliser is a sum taken in another order);
* whole-row sums (the normaliser, the overlap, a base's mass) agree with ``math.fsum`` over the
  reference rows to 1e-13;
* every way a row samples (the chain's mixture, a tempered row's base and its redraws, the
  residual's rejection) draws the reference row's law, by Pearson's chi-square;
* and what the decoder keeps between calls (rows, bases, levels, powers, runs) changes no answer:
  a run with everything kept equals, value for value, the run with nothing kept at all."""

from __future__ import annotations

import math
import random
from collections import Counter, OrderedDict
from random import Random

import numpy as np
import pytest

from lab import realtext
from lab.checks import realtext as family
from lab.widgets import realtext as widget


@pytest.fixture(scope="module")
def model():
    return realtext.default_model()


# --- the reference: a row token by token, nothing kept ------------------------------------------

def reference_row(model, which, context, temperature):
    """Interpolated Kneser-Ney (D = 3/4) from the tables, then tempered: every token's value by
    the same float operations as the decoder's chain, recomputed on every call; the tempered
    row normalised by ``math.fsum``."""
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
    weights = [value ** (1.0 / temperature) for value in row]
    mass = math.fsum(weights)
    return [w / mass for w in weights]


def _prompts(model):
    prompts = {name: prompt for name, (_, prompt) in realtext.PRESETS.items()}
    prompts["typed"] = "The quick brown fox\n    {\"a\": [1, 2, 3]}"
    return {name: model.tokenizer.encode(prompt) for name, prompt in prompts.items()}


def _contexts(model, step=5):
    """Contexts of every prompt: each prompt cut every ``step`` tokens (so short histories, a
    history the tables lack and long ones all occur)."""
    for tokens in _prompts(model).values():
        for cut in range(0, len(tokens) + 1, step):
            yield tokens[:cut]


class _Forgetful(OrderedDict):
    """A cache that keeps nothing: every lookup misses."""

    def __setitem__(self, key, value):
        pass


def _forget_everything(patch, model):
    for name in ("_rows", "_parts", "_bases", "_parents", "_powers"):
        patch.setattr(model, name, _Forgetful())
    for table in {id(table): table for table in (*model.target, *model.draft)}.values():
        patch.setattr(table, "_levels", _Forgetful())


# --- values and sums ------------------------------------------------------------------------------

def test_a_chains_kept_upper_terms_are_its_own_values():
    """What a chain keeps for every tempered row of its history (X, s, b(X), p(X)) is, bit for bit,
    what its methods give (one upper level reads its kept masses in order instead of looking them up)."""
    model = realtext.default_model()
    levels = set()
    for context in _contexts(model, 3):
        for side in ("target", "draft"):
            chain = model.row(side, context)
            extra, scale, bigram, values = chain.upper_terms()
            assert extra == chain.upper_words() and scale == chain.upper_scale()
            assert bigram == chain.bigram_values(extra) and values == chain.values(extra)
            levels.add(len(chain.upper))
    assert {0, 1} <= levels and max(levels) >= 2  # no upper level, one, and more than one were met


@pytest.mark.parametrize("which", ["real", "small"])
def test_row_values_are_the_reference_rows(which):
    """At T = 1 every token's value (looked up one at a time, or many at once) is the
    reference's to the last bit; at T = 0 the row is the reference's one-hot row; at T in {0.5,
    1.3} each value is within 1e-13 of the reference's, relative."""
    model = realtext.default_model() if which == "real" else family.small_model()
    rng = Random(5)
    for context in _contexts(model, 7):
        for side in ("target", "draft"):
            expected = reference_row(model, side, context, 1.0)
            row = model.row(side, context)
            assert [row[token] for token in range(model.size)] == expected == list(row)
            tokens = rng.sample(range(model.size), 40)
            assert row.values(tokens) == [expected[token] for token in tokens]
            assert list(model.row(side, context, 0.0)) == reference_row(model, side, context, 0.0)
            for temperature in (0.5, 1.3):
                expected = reference_row(model, side, context, temperature)
                tempered = model.row(side, context, temperature)
                got = [tempered[token] for token in range(model.size)]
                assert tempered.values(tokens) == [got[token] for token in tokens]
                assert max(abs(a - b) / b for a, b in zip(got, expected)) < 1e-13, (context, side, temperature)


@pytest.mark.parametrize("which", ["real", "small"])
def test_whole_row_sums_are_the_reference_sums(which):
    """A tempered row's normaliser, a base's mass and the overlap of the target's and the draft's
    rows (after the same last token, by the bases; after different ones, per class) equal
    ``math.fsum`` over the reference rows to 1e-13."""
    model = realtext.default_model() if which == "real" else family.small_model()
    shared = generic = 0
    for context in _contexts(model):
        for temperature in (0.5, 1.0, 1.3):
            p = model.row("target", context, temperature)
            reference_p = reference_row(model, "target", context, temperature)
            for cut in (len(context), len(context) + 1):
                follow = context + [model.tokenizer.encode(" x")[0]] if cut > len(context) else context
                q = model.row("draft", follow, temperature)
                expected = math.fsum(map(min, reference_p, reference_row(model, "draft", follow, temperature)))
                assert abs(realtext.overlap(p, q) - expected) < 1e-13, (context, temperature, cut)
                if cut == len(context):
                    shared += 1
                else:
                    generic += 1
            if temperature != 1:
                chain = reference_row(model, "target", context, 1.0)
                assert abs(p.total - math.fsum(v ** (1 / temperature) for v in chain)) < 1e-13 * p.total
            for side in ("target", "draft"):
                base = model.base(side, tuple(context[-1:]), temperature)
                bigram = reference_row(model, side, context[-1:], 1.0)
                assert abs(base.mass - math.fsum(v ** (1 / temperature) for v in bigram)) < 1e-13 * base.mass
    assert shared > 20 and generic > 20


# --- sampling -------------------------------------------------------------------------------------

def test_a_chain_rows_mixture_is_the_row(model):
    """The mixture a chain row samples from (:meth:`lab.realtext.Model.mixture`: each level's kept
    masses scaled by the weights above it, then the uniform row), added up token by token, is the
    reference row, to 1e-13 relative, and its masses add up to 1."""
    for context in _contexts(model, 6):
        for side in ("target", "draft"):
            row = model.row(side, context)
            ends, components = model.mixture(([row.bigram] if row.bigram else []) + row.upper)
            rebuilt = [0.0] * model.size
            for level, scale in components:
                if level is None:
                    rebuilt = [value + scale / model.size for value in rebuilt]
                    continue
                for word, kept in zip(level.words, level.kept_values()):
                    rebuilt[word] += scale * kept
            expected = reference_row(model, side, context, 1.0)
            assert max(abs(a - b) / b for a, b in zip(rebuilt, expected)) < 1e-13, (side, len(context))
            assert abs(ends[-1] - 1) < 1e-13


def _chi_square_passes(counts: Counter, law: list[float], draws: int) -> tuple[float, int]:
    """Pearson's statistic against ``law`` (cells of expected count under 5 pooled) and whether it
    is under df + 5 sqrt(2 df): a correct sampler fails it about once in a million."""
    expected = np.array(law) * draws
    observed = np.array([counts[token] for token in range(len(law))])
    big = expected >= 5
    chi2 = float((((observed[big] - expected[big]) ** 2) / expected[big]).sum())
    rest_o, rest_e = observed[~big].sum(), expected[~big].sum()
    if rest_e > 0:
        chi2 += float((rest_o - rest_e) ** 2 / rest_e)
    df = int(big.sum())
    return chi2, chi2 < df + 5 * (2 * df) ** 0.5


def _rows_to_sample(model):
    """Rows that sample each of the ways: a target chain (the mixture), tempered target rows
    whose upper levels name tokens (their X and the redraws), tempered draft rows (one draw from
    the base, its named tokens and the rest of the vocabulary), after an empty history too."""
    tokens = model.tokenizer.encode(realtext.PRESETS["docstring"][1])
    for which, context, temperature in (("target", tokens, 1.0), ("draft", tokens, 1.0), ("target", tokens, 0.6),
                                        ("target", tokens, 1.7), ("draft", tokens[:-3], 0.6), ("draft", tokens, 1.7),
                                        ("target", [], 1.4)):
        yield which, context, temperature


def test_rows_sample_the_reference_law(model):
    """20,000 draws of each kind of row pass Pearson's chi-square against the reference row."""
    rng = Random(11)
    for which, context, temperature in _rows_to_sample(model):
        row = model.row(which, context, temperature)
        if isinstance(row, realtext.TemperedRow) and which == "target" and context:
            share = row.extra_running[-1] / row.total  # X's share is drawn directly, the rest by redraws
            assert row.extra and 0.2 < share < 0.999, share
        counts = Counter(realtext.sample_row(row, rng) for _ in range(20000))
        chi2, passes = _chi_square_passes(counts, reference_row(model, which, context, temperature), 20000)
        assert passes, (which, len(context), temperature, chi2)


def test_a_row_samples_with_one_draw(model):
    """A draft row samples with one ``rng.random()`` (the drafts' draws are taken before the
    drafts are resolved: :class:`lab.realtext.Drafts`), at T = 1 and tempered alike: the same
    token from the same draw, whatever generator gives it."""
    tokens = model.tokenizer.encode(realtext.PRESETS["python"][1])
    for temperature in (1.0, 0.5, 1.3):
        row = model.row("draft", tokens, temperature)
        for seed in range(200):
            rng, draw = Random(seed), Random(seed).random()
            token = realtext.sample_row(row, rng)
            assert rng.getstate() == _after_one_draw(seed)
            assert token == realtext.sample_row(row, realtext._Drawn(draw))


def _after_one_draw(seed):
    rng = Random(seed)
    rng.random()
    return rng.getstate()


def test_the_residual_samples_its_law(model):
    """A rejection's token (:class:`lab.realtext.ResidualRow`, by rejection from p) follows
    ``norm(max(0, p - q))`` of the reference rows, at T = 1 and tempered, with the draft's row
    after the same context and after a token more."""
    tokens = model.tokenizer.encode(realtext.PRESETS["template"][1])
    rng = Random(4)
    for temperature, follow in ((1.0, tokens), (0.7, tokens), (1.0, tokens + tokens[-2:-1])):
        p, q = model.row("target", tokens, temperature), model.row("draft", follow, temperature)
        law = realtext.residual(reference_row(model, "target", tokens, temperature),
                                reference_row(model, "draft", follow, temperature))
        counts = Counter(realtext.sample_row(realtext.residual(p, q), rng) for _ in range(20000))
        chi2, passes = _chi_square_passes(counts, law, 20000)
        assert passes, (temperature, chi2)


# --- what is kept changes nothing -----------------------------------------------------------------

@pytest.mark.parametrize("which", ["real", "small"])
def test_runs_with_everything_kept_equal_runs_with_nothing_kept(which, monkeypatch):
    """Every preset and a typed prompt, every proposer, T in {0, 0.5, 1, 1.3}, two seeds and two
    lookaheads: runs that share the decoder's caches (in an order that reuses rows, bases and
    levels across runs) equal, call for call and bit for bit, runs in which every cache misses."""
    model = realtext.default_model() if which == "real" else family.small_model()
    cases = [(tokens, proposer, temperature, seed, k) for tokens in _prompts(model).values()
             for proposer in realtext.PROPOSERS for temperature in (0.0, 0.5, 1.0, 1.3) for seed, k in ((1, 4), (7, 2))]
    kept = [realtext.generate(model, tokens, proposer, k, temperature, 24, seed)
            for tokens, proposer, temperature, seed, k in cases]
    with monkeypatch.context() as patch:
        _forget_everything(patch, model)
        for case, answer in zip(cases, kept):
            tokens, proposer, temperature, seed, k = case
            assert realtext.generate(model, tokens, proposer, k, temperature, 24, seed) == answer, case[1:]


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
                                              # another T over the same chains (their kept terms), another k at T
                                              (6, 1.3, 40, 64, "draft"), (3, 0.7, 40, 64, "draft"),
                                              (2, 0, 32, 64, "ngram"), (2, 0, 32, 2, "ngram"))]
    warm = [widget.view(query) for query in queries]
    model = realtext.default_model()
    for query, answer in zip(queries, warm):
        widget._runs.clear()
        with monkeypatch.context() as patch:
            _forget_everything(patch, model)
            assert widget.view(query) == answer, query


def test_lazy_drafts_are_the_drafts_and_only_the_examined_ones_are_computed():
    """A lazy run's records (the widget's) read as generate's, draft for draft and first-draft
    chance for chance; before they are read, a call that rejected its first draft has computed
    only that draft's row, and no call its first-draft chance."""
    model = realtext.default_model()
    tokens = model.tokenizer.encode(realtext.PRESETS["docstring"][1])
    for proposer, temperature in (("draft", 0.7), ("draft", 1.0), ("draft-greedy", 1.3)):
        lazy = realtext.Run(model, tokens, proposer, 6, temperature, 5, lazy=True).upto(48)
        unread = [len(cycle["drafts"].tokens) for cycle in lazy]
        assert all(n == cycle["accepted"] + cycle["rejected"] for n, cycle in zip(unread, lazy))
        assert any(n < 6 for n in unread)  # some calls left drafts unresolved
        assert all(cycle["firstAlpha"] is None for cycle in lazy)
        eager = realtext.generate(model, tokens, proposer, 6, temperature, 48, 5)
        assert all(cycle["firstAlpha"] is not None for cycle in eager if cycle["drafts"])
        chances = [realtext.first_alpha(cycle) for cycle in lazy]
        assert chances == [cycle["firstAlpha"] for cycle in eager]
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


# --- argmax ------------------------------------------------------------------------------------------

def test_argmax_read_off_the_top_values_is_the_first_token_of_the_dense_row():
    """Row.argmax reads the highest class and named values first; it names the token the dense row's
    first maximum is and the token its counted form (every class's unnamed tokens counted) names."""
    model = realtext.default_model()
    for context in _contexts(model, step=3):
        for which in ("target", "draft"):
            for temperature in (1.0, 0.5, 1.7):
                row = model.row(which, context, temperature)
                dense = row.dense()
                assert row.argmax() == dense.index(max(dense)) == row._argmax_counted(*row.parts())


class _Parts(realtext.Row):
    """A row given by its parts, for the cases no model row shows."""

    __slots__ = ("given",)

    def __init__(self, model, values, named):
        self.model, self.given = model, (values, named)

    def parts(self):
        return self.given


def test_argmax_counts_the_classes_when_every_top_class_is_named_throughout():
    model = realtext._example_model()
    sizes = [len(members) for members in model._members]
    small, other = sizes.index(min(sizes)), sizes.index(max(sizes))
    values = [0.0] * len(sizes)
    values[small], values[other] = 0.5, 0.25
    cases = (({token: 0.125 for token in model._members[small]}, model._members[other][0]),  # the top class all named
             ({model._members[other][0]: 0.5}, min(model._members[small][0], model._members[other][0])),  # a tie
             ({model._members[other][1]: 0.75, model._members[other][0]: 0.75}, model._members[other][0]))
    for named, expected in cases:
        row = _Parts(model, values, named)
        dense = row.dense()
        assert row.argmax() == expected == dense.index(max(dense)) == row._argmax_counted(values, named)
