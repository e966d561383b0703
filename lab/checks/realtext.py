"""The real-text family of the instruments suite: speculative decoding on real models, exact.

Which model. In CPython (the build, the CLI, the tests) the real model
(:func:`lab.realtext.default_model`: trained from the standard library at build time). In the
reader's browser the suite runs the same checks on a small model trained there, in a fraction of a
second, from :data:`CHECK_CORPUS`: the real model is not part of the page's first load (the worker
fetches it only for a reader who reaches the widget), and its exact checks would take seconds in
WebAssembly. The signature value always comes from the small model, so it is the same everywhere.

The contexts are the prompts of the widget's presets (a Python function, an English docstring, a
repetitive template), encoded by the model's own tokenizer: contexts a reader meets.
"""

from fractions import Fraction
from functools import lru_cache

from .. import realtext
from ..jsformat import to_fixed

__all__ = ["CHECKS", "signature_value", "SIGNATURE_NOTE", "CHECK_CORPUS", "ACCEPTANCE_Z", "check_model"]

# The small model's corpus (written for this check; Python and English as the stdlib has them).
CHECK_CORPUS = '''def read_lines(path, encoding=None):
    """Return the lines of the file at path.

    If the file is empty, this function returns an empty list. The lines keep
    their line endings, so that joining them gives the text of the file back.
    """
    with open(path, encoding=encoding) as f:
        return f.readlines()


def read_text(path, encoding=None):
    """Return the text of the file at path."""
    with open(path, encoding=encoding) as f:
        return f.read()


class Queue:
    """A first-in, first-out queue of items.

    Note that the queue is not safe to use from several threads at once.
    """

    def __init__(self, items=None):
        self.items = list(items or [])

    def __len__(self):
        """Return the number of items in the queue."""
        return len(self.items)

    def __repr__(self):
        return f"{type(self).__name__}({self.items!r})"

    def put(self, item):
        """Put an item at the end of the queue."""
        self.items.append(item)

    def get(self):
        """Remove and return the first item of the queue."""
        if not self.items:
            raise IndexError("get from an empty queue")
        return self.items.pop(0)


FIELDS = [
    {"name": "host", "type": "str", "default": None},
    {"name": "port", "type": "int", "default": None},
    {"name": "user", "type": "str", "default": None},
    {"name": "password", "type": "str", "default": None},
    {"name": "timeout", "type": "float", "default": None},
]
'''
CHECK_VOCABULARY = 256 + 96
GREEDY_TOKENS = 32
GREEDY_LOOKAHEAD = 2  # short blocks are often kept whole, so the bonus token's row is exercised too
ACCEPTANCE_RUN = {"proposer": "draft", "lookahead": 1, "temperature": 1.0, "tokens": 300, "seed": 7}
# The tolerance: 3 standard errors of the mean of the per-call Bernoulli outcomes, plus 0.01. On the
# real model the run makes 686 calls (standard error 0.015) and sits 0.023 from the analytic value;
# the lenient-test mutant (tests/test_realtext_mutations.py) sits 0.123 away.
ACCEPTANCE_Z = 3.0
ROW_TOLERANCE = 1e-12
SIGNATURE_NOTE = (
    "alpha = sum_x min(p(x), q(x)) between the 4-gram target and its bigram draft after the 'python' preset, on the "
    "small model the suite trains from CHECK_CORPUS (352 tokens), computed in fractions and rounded to 6 decimals; "
    "tests/test_realtext.py recomputes it with numpy from the same count tables.")


@lru_cache(maxsize=1)
def small_model() -> realtext.Model:
    """The small model trained here from :data:`CHECK_CORPUS` (deterministic, as the real one)."""
    return realtext.Model(realtext.build_model_file([CHECK_CORPUS], CHECK_VOCABULARY, note="check corpus"))


def check_model() -> realtext.Model:
    """The real model in CPython (when it can be loaded or trained here), the small one in the browser."""
    import sys

    if sys.platform == "emscripten":
        return small_model()
    try:
        return realtext.default_model()
    except realtext.ModelUnavailable:
        return small_model()


def _contexts(model):
    return [(name, model.tokenizer.encode(prompt)) for name, (_, prompt) in realtext.PRESETS.items()]


ROUND_TRIP_TEXTS = ("naïve café: ∑ p(x) = 1 — 😀", "\t\r\n\x00\x7f\u00ff", "".join(map(chr, range(32, 127))))


def every_text_encodes(out):
    """The tokenizer is byte-level: tokens 0..255 are the 256 bytes, and every text (the presets,
    non-ASCII, control characters, all printable ASCII) decodes back to itself; the vocabulary has
    the size it claims."""
    model = check_model()
    tokenizer = model.tokenizer
    for byte in range(256):
        out.visited += 1
        if tokenizer.pieces[byte] != bytes([byte]):
            out.fail(f"token {byte} is {tokenizer.pieces[byte]!r}, not the byte itself")
            return
    for text in [prompt for _, prompt in realtext.PRESETS.values()] + list(ROUND_TRIP_TEXTS):
        out.visited += 1
        back = tokenizer.decode(tokenizer.encode(text))
        if back != text:
            out.fail(f"{text[:30]!r} comes back as {back[:30]!r}")
            return
    if len(tokenizer) != model.size or model.size not in (realtext.VOCABULARY_SIZE, CHECK_VOCABULARY):
        out.fail(f"the vocabulary has {len(tokenizer)} tokens")


def cycle_law_is_target_row(out):
    """At every preset's context, the exact law of the first token one cycle commits (the code
    that decodes, run on exact Kneser-Ney rows with the sampled draft's q) equals the target's
    next-token row over the whole vocabulary, in fractions; both rows sum to exactly 1 and the
    float rows decoding uses are these rows rounded."""
    model = check_model()
    for name, context in _contexts(model):
        out.visited += 1
        p, q = model.exact_row("target", context), model.exact_row("draft", context)
        for label, row in (("p", p), ("q", q)):
            if sum(row) != 1 or min(row) <= 0:
                out.fail(f"{label} after the {name} preset is not a full distribution (sum {float(sum(row))})")
                return
        law = realtext.first_token_law(p, q)
        if law != p:
            worst = max(range(len(p)), key=lambda x: abs(law[x] - p[x]))
            out.fail(f"after the {name} preset the cycle commits token {worst} with probability "
                     f"{float(law[worst]):.12g}, the target says {float(p[worst]):.12g}")
            return
        live = model.row("target", context)
        gap = max(abs(a - float(b)) for a, b in zip(live, p))
        if gap > ROW_TOLERANCE:
            out.fail(f"the float target row after the {name} preset is {gap:.3g} from the exact one")
            return
        yield  # a pause: the browser answers a reader between two cases (lab.audit.run_check_steps)


def one_hot_proposals_are_exact(out):
    """A deterministic proposer (prompt lookup, greedy drafting) has a one-hot q: at every preset's
    context the cycle's exact first-token law with that q equals the target row; prompt lookup
    proposes on the template (its suffix occurs earlier) and copies what followed it."""
    model = check_model()
    for name, context in _contexts(model):
        p = model.exact_row("target", context)
        proposals = {"draft-greedy": realtext.argmax(model.row("draft", context))}
        lookup = realtext.prompt_lookup(context, 4)
        if lookup:
            proposals["ngram"] = lookup[0]
        elif name == "template":
            out.fail("prompt lookup proposes nothing after the template, whose last tokens occur earlier")
            return
        for proposer, token in proposals.items():
            out.visited += 1
            q = realtext.one_hot(len(p), token, Fraction(1))
            law = realtext.first_token_law(p, q)
            if law != p:
                out.fail(f"{proposer} after the {name} preset: the law with one-hot q on token {token} is not p")
                return
    if "template" in realtext.PRESETS:
        tokens = model.tokenizer.encode(realtext.PRESETS["template"][1])
        drafts = realtext.prompt_lookup(tokens, 4)
        n = next((n for n in range(realtext.PROMPT_LOOKUP[1], realtext.PROMPT_LOOKUP[0] - 1, -1)
                  if any(tokens[i:i + n] == tokens[-n:] for i in range(len(tokens) - n))), None)
        if n is None:
            out.fail("no earlier match of the template's suffix")
            return
        start = next(i for i in range(len(tokens) - n) if tokens[i:i + n] == tokens[-n:]) + n
        if drafts != tokens[start:start + 4]:
            out.fail(f"prompt lookup copied {drafts}, the text after the earliest match is {tokens[start:start + 4]}")


def greedy_at_zero_temperature(out):
    """At T = 0 speculative decoding writes exactly the target's greedy tokens, for every proposer
    on every preset (lookahead 2, the first 32 tokens)."""
    model = check_model()
    for name, context in _contexts(model):
        plain = realtext.greedy(model, context, GREEDY_TOKENS)
        for proposer in realtext.PROPOSERS:
            out.visited += 1
            cycles = realtext.generate(model, context, proposer, GREEDY_LOOKAHEAD, 0.0, GREEDY_TOKENS, 1)
            written = [token for cycle in cycles for token in cycle["committed"]][:GREEDY_TOKENS]
            if written != plain:
                at = next(i for i, (a, b) in enumerate(zip(written, plain)) if a != b)
                out.fail(f"{proposer} on the {name} preset leaves greedy decoding at token {at}")
                return


def acceptance_matches_analytic(out):
    """A seeded run's first-position acceptance (calls whose first draft survived / calls) agrees
    with the analytic ``sum_x min(p(x), q(x))`` averaged over the contexts the run visited, within
    3 standard errors (``sqrt(sum a(1 - a)) / n``, the spread of a mean of independent Bernoulli
    outcomes with those chances) plus 0.01; sampled draft, T = 1, lookahead 1, 300 tokens per preset."""
    model = check_model()
    run = ACCEPTANCE_RUN
    survived = calls = 0
    chances = []
    for name, context in _contexts(model):
        out.visited += 1
        cycles = realtext.generate(model, context, run["proposer"], run["lookahead"], run["temperature"],
                                   run["tokens"], run["seed"])
        for cycle in cycles:
            calls += 1
            survived += cycle["accepted"] >= 1
            chances.append(cycle["firstAlpha"])
        yield  # a pause: the browser answers a reader between two cases (lab.audit.run_check_steps)
    expected = sum(chances) / calls
    spread = sum(a * (1 - a) for a in chances) ** 0.5 / calls
    measured = survived / calls
    if abs(measured - expected) > ACCEPTANCE_Z * spread + 0.01:
        out.fail(f"first-position acceptance {measured:.4f} over {calls} calls, analytic {expected:.4f} "
                 f"(tolerance {ACCEPTANCE_Z * spread + 0.01:.4f})")


def trace_round_trip(out):
    """A run's trace (one accepted count per verifier call that drafted) read back by the trace
    reader (``lab.traces``, format cycles) gives the run's own counts: calls, accepted drafts and
    the per-position survivals, for every proposer on the template."""
    from .. import traces

    model = check_model()
    context = model.tokenizer.encode(realtext.PRESETS["template"][1])
    k = 4
    for proposer in realtext.PROPOSERS:
        out.visited += 1
        cycles = realtext.generate(model, context, proposer, k, 0.5, 32, 3)
        summary = realtext.summarise(cycles, k)
        trace = traces.parse("\n".join(str(c) for c in summary["cycles"]) + "\n", "cycles", k)
        drafted = [c for c in cycles if c["drafts"]]
        survivals = tuple(sum(c["accepted"] >= i for c in drafted) for i in range(1, k + 1))
        if (trace.drafts, trace.accepted, trace.perPosition) != (len(drafted), summary["acceptedTokens"], survivals):
            out.fail(f"{proposer}: the trace reader reads {trace.drafts} calls, {trace.accepted} accepted, "
                     f"{trace.perPosition}; the run had {len(drafted)}, {summary['acceptedTokens']}, {survivals}")
            return


CHECKS = (
    ("every-text-encodes", every_text_encodes),
    ("cycle-law-is-target-row", cycle_law_is_target_row),
    ("one-hot-proposals-exact", one_hot_proposals_are_exact),
    ("greedy-at-zero-temperature", greedy_at_zero_temperature),
    ("acceptance-matches-analytic", acceptance_matches_analytic),
    ("real-trace-round-trip", trace_round_trip),
)


def signature_alpha() -> Fraction:
    model = small_model()
    context = model.tokenizer.encode(realtext.PRESETS[realtext.DEFAULT_PRESET][1])
    p, q = model.exact_row("target", context), model.exact_row("draft", context)
    return sum((min(a, b) for a, b in zip(p, q)), Fraction(0))


def signature_value() -> str:
    """alpha between target and draft after the default preset on the small model (SIGNATURE_NOTE)."""
    return to_fixed(float(signature_alpha()), 6)
