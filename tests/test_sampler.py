"""lab.sampler: the rejection rule on arbitrary (p, q), published test vectors, the exact joint
over several verifier calls, and the accounting of seeded traces."""

from __future__ import annotations

import gc
import math
import random
from fractions import Fraction
from itertools import product

import pytest
from hypothesis import given, settings, strategies as st

from lab import sampler as S

# --- random distributions ---------------------------------------------------------------------


@st.composite
def pq(draw, min_size=1, max_size=12):
    """(p, q) over the same vocabulary: non-negative integer weights, normalised to Fractions.
    Either may have zeros (q often does); each has positive total mass."""
    size = draw(st.integers(min_size, max_size))
    weights = st.lists(st.integers(0, 20), min_size=size, max_size=size).filter(lambda w: sum(w) > 0)
    p_w = draw(weights)
    q_w = draw(st.one_of(weights, st.just(p_w)))  # p == q often enough to exercise that branch
    return [Fraction(w, sum(p_w)) for w in p_w], [Fraction(w, sum(q_w)) for w in q_w]


@settings(max_examples=1000, deadline=None)
@given(pq())
def test_exact_output_distribution_is_the_target(pair):
    p, q = pair
    out = S.exact_output_distribution(p, q)
    assert all(type(v) is Fraction for v in out)
    assert list(out) == p


@settings(max_examples=1000, deadline=None)
@given(pq())
def test_alpha_is_one_minus_tv(pair):
    p, q = pair
    alpha = S.per_token_acceptance(p, q)
    tv = S.total_variation(p, q)
    assert alpha == 1 - tv
    assert alpha == sum(min(a, b) for a, b in zip(p, q))
    assert tv == sum(abs(a - b) for a, b in zip(p, q)) / 2
    assert 0 <= alpha <= 1
    # the verifier's own survival probability, sum_x q(x) min(1, p(x)/q(x)), is alpha
    assert sum(q_x * S.acceptance_probability(p_x, q_x) for p_x, q_x in zip(p, q)) == alpha


@settings(max_examples=1000, deadline=None)
@given(pq())
def test_buggy_output_is_biased_exactly_when_p_differs_from_q(pair):
    p, q = pair
    buggy = S.buggy_output_distribution(p, q)
    assert sum(buggy) == 1 and min(buggy) >= 0
    alpha = S.per_token_acceptance(p, q)
    assert list(buggy) == [min(a, b) + (1 - alpha) * b for a, b in zip(p, q)]
    if p == q:
        assert list(buggy) == p
        assert S.total_variation(p, buggy) == 0
    else:
        assert list(buggy) != p
        assert S.total_variation(p, buggy) > 0


@settings(max_examples=1000, deadline=None)
@given(pq())
def test_residual_is_a_distribution(pair):
    p, q = pair
    residual = S.residual_distribution(p, q)
    if p == q:
        assert residual is None
        return
    assert residual is not None
    assert sum(residual.probs) == 1
    assert all(r >= 0 for r in residual.probs)
    excess = [max(0, a - b) for a, b in zip(p, q)]
    total = sum(excess)
    assert list(residual.probs) == [e / total for e in excess]
    for r, a, b in zip(residual.probs, p, q):
        if b >= a:
            assert r == 0  # the residual never proposes a token the draft already over-covers
    # zero-mass tokens are never sampled
    rng = random.Random(len(p))
    for _ in range(50):
        assert residual.probs[residual.sample(rng)] > 0


@settings(max_examples=300, deadline=None)
@given(pq(), st.integers(0, 2**32))
def test_categorical_sampling_never_picks_zero_mass(pair, seed):
    p, _ = pair
    row = S.Categorical(p)
    rng = random.Random(seed)
    for _ in range(30):
        token = row.sample(rng)
        assert 0 <= token < len(p) and p[token] > 0


@pytest.mark.parametrize("p_x, q_x, expected", [
    (Fraction(1, 2), Fraction(1, 4), 1), (Fraction(1, 4), Fraction(1, 2), Fraction(1, 2)),
    (Fraction(0), Fraction(1, 3), 0), (Fraction(1, 3), Fraction(0), 0), (Fraction(0), Fraction(0), 0),
])
def test_acceptance_probability(p_x, q_x, expected):
    assert S.acceptance_probability(p_x, q_x) == expected


# --- published test vectors -------------------------------------------------------------------

def one_hot(token, size=10):
    return [1 if i == token else 0 for i in range(size)]


UNIFORM = [Fraction(1, 10)] * 10


def softmax(logits):
    """Float softmax, as torch computes it (shifted by the maximum); -inf gives exactly 0."""
    top = max(logits)
    weights = [math.exp(x - top) for x in logits]
    return [w / sum(weights) for w in weights]


def logits_peaked_at(token, size=10):
    return [10.0 if i == token else -10.0 for i in range(size)]


# Hugging Face transformers, tests/generation/test_utils.py, UtilsFunctionsTest.test_speculative_sampling:
# candidate tokens [1, 4, 5] with candidate logits +10 at the token and -10 elsewhere; new logits
# accept 1 and 4 (the same rows), then -inf everywhere but 10.0 at token 8, then a row of -10.0
# (not used); expected n_matches == 2 and validated tokens [1, 4, 8].
HF_Q_ROWS = [softmax(logits_peaked_at(t)) for t in (1, 4, 5)]
HF_P_ROWS = [softmax(logits_peaked_at(1)), softmax(logits_peaked_at(4)),
             softmax([-math.inf] * 8 + [10.0, -math.inf]), softmax([-10.0] * 10)]


@pytest.mark.parametrize("seed", range(200))
def test_hugging_face_vector(seed):
    # draft [1, 4, 5]; the target wants 1, 4, then puts zero mass on 5 and all of it on 8
    result = S.verify([1, 4, 5], HF_P_ROWS, HF_Q_ROWS, random.Random(seed))
    assert result.tokens == (1, 4, 8)
    assert result.accepted == 2 and result.rejected


def test_hugging_face_vector_exactly():
    # verify()'s own law on HF's rows (drafts given): [1, 4, 8] with probability 1 up to float rounding
    law = S.uniform_law(lambda rng: S.verify([1, 4, 5], HF_P_ROWS, HF_Q_ROWS, rng).tokens)
    assert law[(1, 4, 8)] > 1 - 1e-12 and sum(law.values()) == 1
    assert HF_P_ROWS[2][8] == 1.0 and HF_Q_ROWS[2][8] > 0  # 8 is a token the draft could have proposed


def test_hugging_face_rows_in_the_audit_match_the_test():
    from lab.audit import hf_softmax_row
    for token in (1, 4, 5):
        row = hf_softmax_row(token)
        assert [float(x) for x in row.probs] == pytest.approx(softmax(logits_peaked_at(token)), rel=1e-12, abs=1e-15)


@pytest.mark.parametrize("seed", range(200))
def test_vllm_greedy_vector(seed):
    # greedy: draft [1, 2, 3], target argmax [1, 5, 3, 4] -> the first mismatch is corrected to 5
    rng = random.Random(seed)
    p_rows = [one_hot(1), one_hot(5), one_hot(3), one_hot(4)]
    result = S.verify([1, 2, 3], p_rows, [one_hot(1), one_hot(2), one_hot(3)], rng)
    assert result.tokens == (1, 5)
    assert result.accepted == 1 and result.rejected
    # all drafts right: every draft survives and the bonus token is the target's argmax
    result = S.verify([1, 5, 3], p_rows, [one_hot(1), one_hot(5), one_hot(3)], rng)
    assert result.tokens == (1, 5, 3, 4)
    assert result.accepted == 3 and not result.rejected
    # first draft wrong
    result = S.verify([7, 5, 3], p_rows, [one_hot(7), one_hot(5), one_hot(3)], rng)
    assert result.tokens == (1,) and result.accepted == 0


def test_verify_rejects_malformed_rows():
    with pytest.raises(ValueError):
        S.verify([1], [UNIFORM], [UNIFORM], random.Random(0))
    with pytest.raises(ValueError):
        S.verify([1, 2], [UNIFORM] * 3, [UNIFORM], random.Random(0))


def test_verify_with_no_drafts_is_one_target_sample():
    counts = [0] * 10
    rng = random.Random(5)
    p = [Fraction(i, 45) for i in range(10)]
    for _ in range(2000):
        result = S.verify([], [p], [], rng)
        assert len(result.tokens) == 1 and result.accepted == 0 and not result.rejected
        counts[result.tokens[0]] += 1
    assert counts[0] == 0 and S.empirical_tv(counts, p) < 0.06


def test_draft_resample_verify_redraws_from_q():
    # the bug: after a rejection it redraws from q, so greedy correction is lost
    p_rows = [one_hot(1), one_hot(5)]
    q = [Fraction(1, 2) if i in (1, 2) else 0 for i in range(10)]
    seen = {S.draft_resample_verify([2], p_rows, [q], random.Random(seed)).tokens for seed in range(100)}
    assert seen == {(1,), (2,)}  # sometimes the rejected 2 comes straight back
    assert {S.verify([2], p_rows, [q], random.Random(seed)).tokens for seed in range(100)} == {(1,)}


# --- exact joint over several calls -----------------------------------------------------------

@pytest.mark.parametrize("certainty, match", [(0, 0), (40, 60), (64, 72), (90, 10), (100, 50), (30, 100)])
@pytest.mark.parametrize("gamma", [1, 2, 3])
@pytest.mark.parametrize("n", [2, 3])
def test_exact_prefix_is_product_of_target_rows(certainty, match, gamma, n):
    rows = [S.position_pair(certainty, match, t) for t in range(n + gamma + 1)]
    p_rows, q_rows = [p for p, _ in rows], [q for _, q in rows]
    joint = S.exact_prefix_distribution(p_rows, q_rows, gamma, n)
    assert sum(joint.values()) == 1
    size = len(S.VOCABULARY)
    for tokens in product(range(size), repeat=n):
        expected = Fraction(1)
        for t, x in enumerate(tokens):
            expected *= p_rows[t][x]
        assert joint.get(tokens, 0) == expected, tokens


@settings(max_examples=60, deadline=None)
@given(st.lists(pq(min_size=3, max_size=3), min_size=5, max_size=5), st.integers(1, 3))
def test_exact_prefix_on_random_rows(rows, gamma):
    # arbitrary rows on a 3-token vocabulary, a different (p, q) at every position
    n = 2
    p_rows = [S.Categorical(p) for p, _ in rows]
    q_rows = [S.Categorical(q) for _, q in rows]
    joint = S.exact_prefix_distribution(p_rows, q_rows, gamma, n)
    for a, b in product(range(3), repeat=2):
        assert joint.get((a, b), 0) == p_rows[0][a] * p_rows[1][b]


def test_buggy_verifier_breaks_the_joint():
    # sanity check of the enumeration's power: the buggy output differs from p at position 0
    p, q = S.reference_pair(50, 50)
    assert list(S.buggy_output_distribution(p, q)) != list(p.probs)


# --- the toy model ----------------------------------------------------------------------------

@pytest.mark.parametrize("certainty", [0, 13, 50, 64, 99, 100])
@pytest.mark.parametrize("match", [0, 40, 72, 100])
def test_toy_model_shape(certainty, match):
    for slot in range(12):
        p, q = S.position_pair(certainty, match, slot)
        assert sum(p.probs) == 1 and sum(q.probs) == 1 and min(p.probs) >= 0 and min(q.probs) >= 0
        fav = S.FAVOURITES[slot]
        assert max(p.probs) == p[fav]
        if match == 100:
            assert p.probs == q.probs
        if certainty == 100:
            assert p[fav] == 1
    assert S.position_pair(certainty, match, 5) is S.position_pair(certainty, match, 17)  # period 12


@pytest.mark.parametrize("certainty, match", [(0, 0), (64, 72), (100, 30), (37, 100), (13, 87)])
def test_position_pairs_and_rules_equal_direct_computation(certainty, match):
    """Positions whose favourite is not token 0 reuse a rotated copy of the favourite-0 pair and
    its verifier tables; they must equal the distributions and rule built from scratch."""
    sampler_caches = (S._pair, S._slot_pair)
    for slot in range(12):
        c, m = S.context_sliders(Fraction(certainty), Fraction(match), S.CONTEXTS[slot])
        fav = S.FAVOURITES[slot]
        p, q = S.position_pair(certainty, match, slot)
        assert p.probs == S.target_distribution(c, fav)
        assert q.probs == S.draft_distribution(c, m, fav)
        assert p.cdf == S.Categorical(p.probs).cdf and q.cdf == S.Categorical(q.probs).cdf
        cached, fresh = S.rule_for(p, q), S.PairRule(list(p.probs), list(q.probs))
        assert cached.p is p and cached.q is q
        for field in ("keep", "accept", "kept"):
            assert list(getattr(cached, field)) == list(getattr(fresh, field)), field
        assert cached.rejected == fresh.rejected
        if fresh.residual is None:
            assert cached.residual is None
        else:
            assert cached.residual.probs == fresh.residual.probs
            assert cached.residual.cdf == fresh.residual.cdf
    assert all(cache.cache_info().currsize for cache in sampler_caches)


def test_context_sliders_fix_the_ends():
    for kind in ("easy", "normal", "hard"):
        assert S.context_sliders(Fraction(0), Fraction(100), kind)[1] == 100
        assert S.context_sliders(Fraction(100), Fraction(0), kind)[0] == 100
    assert S.context_sliders(Fraction(60), Fraction(40), "easy") == (80, 70)
    assert S.context_sliders(Fraction(60), Fraction(40), "hard") == (36, 16)
    with pytest.raises(ValueError):
        S.context_sliders(Fraction(1), Fraction(1), "weird")


# --- traces -----------------------------------------------------------------------------------

@settings(max_examples=300, deadline=None)
@given(certainty=st.integers(0, 100), match=st.integers(0, 100), gamma=st.integers(1, 12),
       length=st.integers(1, 256), seed=st.integers(0, 9999))
def test_trace_accounting(certainty, match, gamma, length, seed):
    t = S.generate_trace(certainty, match, gamma, length, seed)
    assert t.length == length == len(t.tokens)
    assert t.acceptedDraft + t.rejectedDraft + t.bonusTokens == length
    assert t.targetCalls == t.rejectedDraft + t.bonusTokens == len(t.calls)
    assert t.draftCalls == sum(len(drafts) for _, drafts, _, _ in t.calls)
    assert t.acceptedDraft + t.rejectedDraft <= t.draftCalls
    position = 0
    for start, drafts, committed, rejected in t.calls:
        assert start == position
        assert 0 <= len(drafts) <= gamma
        accepted = len(committed) - 1
        assert tuple(committed[:accepted]) == tuple(drafts[:accepted])  # survivors are the drafts themselves
        if rejected:
            assert accepted < len(drafts)  # the rejected draft is replaced, the rest never judged
        else:
            assert accepted == len(drafts)  # every draft survived, plus one bonus token
        assert start + len(committed) <= length  # the last call never commits past length
        assert tuple(t.tokens[start:start + len(committed)]) == tuple(committed)
        position += len(committed)
    assert sum(not r for *_, r in t.calls) == t.bonusTokens
    assert all(0 <= x < len(S.VOCABULARY) for x in t.tokens)


@pytest.mark.parametrize("match", [0, 30, 72, 100])
@pytest.mark.parametrize("gamma", [1, 3, 5, 12])
def test_greedy_trace_is_the_favourites(match, gamma):
    length = 100
    t = S.generate_trace(100, match, gamma, length, seed=gamma * 101 + match)
    assert t.tokens == tuple(S.FAVOURITES[i % 12] for i in range(length))
    if match == 100:
        assert t.rejectedDraft == 0  # identical draft, nothing is ever rejected


@settings(max_examples=50, deadline=None)
@given(certainty=st.integers(0, 100), match=st.integers(0, 100), gamma=st.integers(1, 12),
       length=st.integers(1, 128), seed=st.integers(0, 9999))
def test_trace_is_deterministic(certainty, match, gamma, length, seed):
    assert S.generate_trace(certainty, match, gamma, length, seed) == S.generate_trace(
        certainty, match, gamma, length, seed)


@settings(max_examples=300, deadline=None)
@given(certainty=st.integers(0, 100), match=st.integers(0, 100), gamma=st.integers(1, 12),
       length=st.integers(1, 256), seed=st.integers(0, 9999))
def test_trace_shape_is_the_full_runs(certainty, match, gamma, length, seed):
    """trace_shape draws the same numbers as generate_trace: every call drafts and commits as many."""
    t = S.generate_trace(certainty, match, gamma, length, seed)
    assert S.trace_shape(certainty, match, gamma, length, seed) == tuple(
        (len(drafts), len(committed)) for _, drafts, committed, _ in t.calls)


@pytest.mark.parametrize("certainty, match", [(0, 0), (0, 100), (100, 0), (100, 100), (50, 100)])
def test_trace_shape_at_the_edges(certainty, match):
    """One-hot rows (certainty 100), identical rows (match 100: no residual, so no draw after a
    rejection) and the one-token run (no drafts, one bonus draw)."""
    for gamma, length in ((1, 1), (12, 2), (5, 256)):
        t = S.generate_trace(certainty, match, gamma, length, 17)
        assert S.trace_shape(certainty, match, gamma, length, 17) == tuple(
            (len(drafts), len(committed)) for _, drafts, committed, _ in t.calls)


@settings(max_examples=300, deadline=None)
@given(weights=st.lists(st.integers(0, 10**30), min_size=1, max_size=9).filter(any), shift=st.integers(-20, 20))
def test_a_rotated_row_is_the_row_built_from_the_rotated_probabilities(weights, shift):
    """rotated() skips the checks and sums its CDF in integers: the same probabilities and floats
    as a Categorical built from the relabelled probabilities."""
    row = S.Categorical([Fraction(w, sum(weights)) for w in weights])
    rotated, built = row.rotated(shift), S.Categorical(S._rotate(row.probs, shift))
    assert rotated.probs == built.probs and rotated.cdf == built.cdf and rotated.rule is None


def _sample_outputs_by_judge(p, q, count, rng, method):
    """sample_outputs written out with the public pieces (q.sample, judge), as a reference."""
    counts = [0] * len(p)
    for _ in range(count):
        if method == "target":
            counts[p.sample(rng)] += 1
            continue
        token = q.sample(rng)
        fixed = S.judge(S.rule_for(p, q), token, rng, method == "buggy")
        counts[token if fixed is None else fixed] += 1
    return counts


@pytest.mark.parametrize("method", ["speculative", "target", "buggy"])
@pytest.mark.parametrize("certainty, match", [(0, 0), (100, 100), (64, 72), (100, 0), (30, 100), (7, 93)])
def test_sample_outputs_draws_as_judge_does(method, certainty, match):
    """The inlined sampling loop draws the same numbers in the same order as q.sample + judge."""
    p, q = S.reference_pair(certainty, match)
    mine, theirs = random.Random(5), random.Random(5)
    assert S.sample_outputs(p, q, 500, mine, method) == _sample_outputs_by_judge(p, q, 500, theirs, method)
    assert mine.random() == theirs.random()  # and leave the generator in the same place


def test_different_seeds_differ():
    traces = {S.generate_trace(50, 50, 4, 64, seed).tokens for seed in range(10)}
    assert len(traces) == 10


def test_identical_draft_accepts_everything():
    t = S.generate_trace(40, 100, 4, 50, 7)
    assert t.rejectedDraft == 0 and t.acceptedDraft == t.draftCalls
    # each call drafts min(gamma, remaining - 1): 4+1 tokens per call, 10 calls for 50 tokens
    assert t.targetCalls == 10 and t.bonusTokens == 10


def test_sample_outputs_methods():
    p, q = S.reference_pair(64, 72)
    for method in ("speculative", "target", "buggy"):
        counts = S.sample_outputs(p, q, 500, random.Random(1), method)
        assert sum(counts) == 500 and len(counts) == len(p)
    with pytest.raises(ValueError):
        S.sample_outputs(p, q, 10, random.Random(1), "nope")
    assert S.empirical_tv([1, 0], [Fraction(1), Fraction(0)]) == 0.0
    assert S.empirical_tv([0, 2], [Fraction(1), Fraction(0)]) == 1.0


def test_position_alpha_equals_the_pair_at_every_position():
    """position_alpha reuses one alpha per context; it must equal sum min(p_t, q_t) everywhere."""
    for certainty in (0, 17, 64, 100):
        for match in (0, 50, 72, 100):
            for position in range(2 * len(S.FAVOURITES)):
                p, q = S.position_pair(certainty, match, position)
                assert S.position_alpha(certainty, match, position) == S.per_token_acceptance(p, q)


# --- bad rows are refused -----------------------------------------------------------------------

@pytest.mark.parametrize("row, message", [
    ([Fraction(1, 2), Fraction(-1, 4), Fraction(3, 4)], "every value >= 0, got -0.25 at token 1"),
    ([Fraction(1, 2), Fraction(1, 3)], "must sum to 1, got a total of 0.833333333333"),
    ([0.6, 0.6], "must sum to 1, got a total of 1.2"),
    ([], "at least one token"),
    ([float("nan"), 1.0], "finite numbers"),
    ([float("inf"), 0.0], "finite numbers"),
    (["x", 1], "finite numbers"),
])
def test_categorical_rejects_rows_that_are_not_distributions(row, message):
    with pytest.raises(ValueError, match="probability row") as error:
        S.Categorical(row)
    assert message in str(error.value)


def test_float_rows_that_miss_one_by_rounding_are_made_exact():
    row = S.Categorical([0.1] * 10)
    assert sum(row.probs) == 1 and row.probs == (Fraction(1, 10),) * 10
    tiny = S.Categorical([1 / 3] * 3)
    assert sum(tiny.probs) == 1
    # exact rows get no such slack: a fraction row off by 1e-12 is refused
    with pytest.raises(ValueError, match="must sum to 1"):
        S.Categorical([Fraction(1, 2), Fraction(1, 2) + Fraction(1, 10**12)])


def test_verify_refuses_bad_rows_and_token_ids():
    negative = [Fraction(3, 2), Fraction(-1, 2)]
    fair = [Fraction(1, 2)] * 2
    with pytest.raises(ValueError, match="every value >= 0"):
        S.verify([0], [fair, negative], [fair], random.Random(0))
    with pytest.raises(ValueError, match="every value >= 0"):
        S.verify([0], [negative, fair], [fair], random.Random(0))
    with pytest.raises(ValueError, match="must sum to 1"):
        S.verify([0], [fair, fair], [[Fraction(1, 2), Fraction(1, 4)]], random.Random(0))
    for token in (-1, 2, 0.0, "0"):
        with pytest.raises(ValueError, match=r"draft token 0 must be a token id from 0 to 1"):
            S.verify([token], [fair, fair], [fair], random.Random(0))
    with pytest.raises(ValueError, match="every value >= 0"):
        S.exact_prefix_distribution([negative] * 3, [fair] * 3, 1, 2)


# --- the sampler's own law -----------------------------------------------------------------------

def law_tv(law, target):
    return sum(abs(law.get(k, 0) - target.get(k, 0)) for k in law.keys() | target.keys()) / 2


def test_uniform_law_of_simple_programs():
    assert S.uniform_law(lambda rng: rng.random() < 0.25) == {True: Fraction(1, 4), False: Fraction(3, 4)}
    # two independent draws, and one draw compared twice (the second comparison is conditional)
    assert S.uniform_law(lambda rng: (rng.random() < 0.5, rng.random() < 0.5)) == {
        (a, b): Fraction(1, 4) for a in (True, False) for b in (True, False)}
    def shared(rng):
        u = rng.random()
        return (u < 0.5, u < 0.75)
    assert S.uniform_law(shared) == {(True, True): Fraction(1, 2), (False, True): Fraction(1, 4),
                                     (False, False): Fraction(1, 4)}
    # sampling a row through its float CDF gives the row (these thresholds are exact in binary)
    row = S.Categorical([Fraction(1, 4), Fraction(0), Fraction(5, 8), Fraction(1, 8)])
    assert S.uniform_law(row.sample) == {0: Fraction(1, 4), 2: Fraction(5, 8), 3: Fraction(1, 8)}
    with pytest.raises(TypeError):
        S.uniform_law(lambda rng: rng.random() * 2 < 1)  # arithmetic on a uniform is refused


@pytest.mark.parametrize("certainty, match, gamma", [(64, 72, 2), (20, 40, 2), (90, 10, 2), (50, 50, 3)])
def test_verify_law_on_the_toy_model_is_the_product(certainty, match, gamma):
    n = gamma + 1
    rows = [S.position_pair(certainty, match, t) for t in range(n)]
    p_rows, q_rows = [p for p, _ in rows], [q for _, q in rows]
    law = S.verify_prefix_law(p_rows, q_rows, gamma, n)
    assert sum(law.values()) == 1
    assert law_tv(law, S.product_law(p_rows, n)) < 1e-14
    assert law_tv(law, S.exact_prefix_distribution(p_rows, q_rows, gamma, n)) < 1e-14


def test_verify_law_sees_a_shared_uniform():
    # the law is verify()'s own: one uniform for the whole block correlates the acceptances
    from tests.test_audit_mutations import _shared_uniform_verify
    rows = [S.position_pair(50, 30, t) for t in range(3)]
    p_rows, q_rows = [p for p, _ in rows], [q for _, q in rows]
    original = S.verify
    try:
        S.verify = _shared_uniform_verify
        law = S.verify_prefix_law(p_rows, q_rows, 2, 3)
    finally:
        S.verify = original
    assert sum(law.values()) == 1
    assert law_tv(law, S.product_law(p_rows, 3)) > 1e-3


def test_generate_trace_law_of_three_tokens_is_the_product():
    # the whole seeded generation, every branch: two drafts in the first call, restarts after rejections
    certainty, match = 70, 40
    law = S.uniform_law(lambda rng: S.generate_trace(certainty, match, 2, 3, 0, rng=rng).tokens)
    p_rows = [S.position_pair(certainty, match, t)[0] for t in range(3)]
    assert sum(law.values()) == 1
    assert law_tv(law, S.product_law(p_rows, 3)) < 1e-14


def test_generate_trace_with_an_rng_consumes_it_like_the_seed():
    t1 = S.generate_trace(64, 72, 5, 40, 23)
    t2 = S.generate_trace(64, 72, 5, 40, 999, rng=random.Random(23))
    assert t1 == t2


# --- a model that reads the words already written -------------------------------------------------

def bigram(table, start):
    """Row function of the prefix: ``start`` for the empty prefix, else ``table[last token]``."""
    rows = {key: S.Categorical(row) for key, row in table.items()}
    first = S.Categorical(start)
    return lambda prefix: rows[prefix[-1]] if prefix else first


F = Fraction
BIGRAM_P = bigram({0: [F(1, 2), F(1, 2), F(0)], 1: [F(1, 6), F(1, 3), F(1, 2)], 2: [F(0), F(1, 4), F(3, 4)]},
                  [F(1, 3), F(1, 3), F(1, 3)])
BIGRAM_Q = bigram({0: [F(1, 4), F(1, 4), F(1, 2)], 1: [F(1, 3), F(1, 3), F(1, 3)], 2: [F(1, 2), F(1, 2), F(0)]},
                  [F(3, 5), F(1, 5), F(1, 5)])


def chain_law(p_at, n, size=3):
    law = {(): F(1)}
    for _ in range(n):
        law = {prefix + (x,): w * p_at(prefix)[x] for prefix, w in law.items() for x in range(size) if p_at(prefix)[x]}
    return law


@pytest.mark.parametrize("gamma", [1, 2, 3])
def test_exact_prefix_distribution_with_a_bigram_model(gamma):
    n = 3
    joint = S.exact_prefix_distribution(BIGRAM_P, BIGRAM_Q, gamma, n)
    assert joint == chain_law(BIGRAM_P, n)
    # and a conditioning bug (rows read one token too early) is visible in the joint
    stale = S.exact_prefix_distribution(lambda prefix: BIGRAM_P(prefix[:-1]), BIGRAM_Q, gamma, n)
    assert stale != chain_law(BIGRAM_P, n)


def speculative_bigram(rng, gamma, n, p_at=BIGRAM_P, q_at=BIGRAM_Q):
    """Speculative generation with a model of the prefix: draft i is proposed after drafts 0..i-1,
    and the verifier's rows condition on the same contexts."""
    tokens = []
    while len(tokens) < n:
        k = min(gamma, n - len(tokens) - 1)
        context, drafts = tuple(tokens), []
        for _ in range(k):
            drafts.append(q_at(context + tuple(drafts)).sample(rng))
        p_rows = [p_at(context + tuple(drafts[:i])) for i in range(k + 1)]
        q_rows = [q_at(context + tuple(drafts[:i])) for i in range(k)]
        tokens.extend(S.verify(drafts, p_rows, q_rows, rng).tokens)
    return tuple(tokens[:n])


@pytest.mark.parametrize("gamma", [1, 2, 3])
def test_verify_with_a_bigram_model_follows_the_chain_rule(gamma):
    law = S.uniform_law(lambda rng: speculative_bigram(rng, gamma, 3))
    assert law_tv(law, chain_law(BIGRAM_P, 3)) < 1e-14
    # the same loop with the target rows conditioned on one draft too few is caught
    late = S.uniform_law(lambda rng: speculative_bigram(
        rng, gamma, 3, p_at=lambda prefix: BIGRAM_P(prefix[:-1] if len(prefix) > 1 else prefix)))
    assert law_tv(late, chain_law(BIGRAM_P, 3)) > 1e-3


# --- memory -----------------------------------------------------------------------------------------

def test_memory_stays_flat_over_5000_settings():
    """A long slider session: 5,000 distinct (certainty, match) settings through the verifier.
    The pairs and their verifier tables live in bounded caches, so after the caches fill the
    number of live objects stays flat (the old global rule dict kept every setting's tables:
    28,203 entries and 89 MB after 2,601 settings)."""
    settings_ = [(c, m) for c in range(101) for m in range(101)][::2][:5000]
    counts = {}
    for i, (certainty, match) in enumerate(settings_, 1):
        p, q = S.position_pair(certainty, match, 1)
        S.verify([q.sample(random.Random(i))], [p, p], [q], random.Random(i))
        if i in (1500, 5000):
            gc.collect()
            counts[i] = len(gc.get_objects()), sum(type(o) is S.PairRule for o in gc.get_objects())
    (before, rules_before), (after, rules_after) = counts[1500], counts[5000]
    assert rules_after <= 2 * 1024 + 64 and rules_after <= rules_before + 64, counts
    assert after < before * 1.05, counts
