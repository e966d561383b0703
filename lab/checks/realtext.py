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
import math
import re
from functools import lru_cache

from .. import realtext
from ..jsformat import to_fixed
from . import alpha_root, hostile_inputs_answered, phrase_missing, table_cells, views_at

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
    # a hand-worked case whose earliest match is the text's first token: [5, 6] ends the text and opens it, so the
    # proposal is what followed it there, 7 and 8 (vLLM's search starts at position 0)
    out.visited += 1
    if realtext.prompt_lookup([5, 6, 7, 8, 5, 6], 2, 2, 3) != [7, 8]:
        out.fail(f"prompt lookup after 5 6 7 8 5 6 proposes {realtext.prompt_lookup([5, 6, 7, 8, 5, 6], 2, 2, 3)}, not 7 8")


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
    for _name, context in _contexts(model):
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
        # the run's mean acceptance length (the CLI prints it) counts the verifier's own token: 1 + accepted / calls
        calls, accepted = len(cycles), sum(c["accepted"] for c in cycles)
        if abs(summary["meanAcceptanceLength"] - (1 + accepted / calls)) > 1e-12:
            out.fail(f"{proposer}: mean acceptance length {summary['meanAcceptanceLength']}, not 1 + {accepted} / {calls}")
            return


# --- the widget's readouts ---------------------------------------------------------------------

# Form values for the widget (lab.widgets.realtext): its defaults, both ends of the lookahead,
# temperature and tokens sliders, every proposer and preset, and a run shown while stepping (its lead
# and summary say "so far"); T = 0 adds a sentence, prompt lookup calls with nothing to draft another.
READOUT_SETTINGS = (
    {},
    {"rtLookahead": "1", "rtTemperature": "2", "rtTokens": "8", "rtSeed": "0"},
    {"rtLookahead": "8", "rtTemperature": "0", "rtTokens": "64", "rtSeed": "9999"},
    {"rtProposer": "ngram", "rtPreset": "template", "rtTemperature": "0"},
    {"rtProposer": "draft-greedy", "rtPreset": "docstring", "rtStep": "3"},
    {"rtProposer": "draft", "rtTemperature": "0.5", "rtStep": "1", "rtTokens": "16", "rtSeed": "5"},
)


def _settings_of(widget, values: dict) -> dict:
    """The widget's settings for form ``values``, from its declared defaults."""
    p = {**{s.name: s.default for s in (*widget.SLIDERS, widget.STEP)}, "rtPreset": realtext.DEFAULT_PRESET,
         "rtProposer": widget.DEFAULT_PROPOSER, **values}
    return {"k": int(p["rtLookahead"]), "temperature": float(p["rtTemperature"]), "tokens": int(p["rtTokens"]),
            "seed": int(p["rtSeed"]), "step": int(p["rtStep"]), "preset": p["rtPreset"], "proposer": p["rtProposer"]}


def _realtext_view(widget, model, values: dict) -> dict:
    """The widget's view of form ``values`` on ``model``: the widget's own ``view``, with ``model`` standing in as
    the default one for this call where it is not (the browser's suite, on the small model)."""
    # The widget's own view in both cases, so that its own lines (whether the run is complete, the live line,
    # the notes) are checked in the browser and in a copy of lab/ without the real model (the mutation sweep's)
    # too: an assembled view computed them here instead. The runs it keeps are keyed by the model's id.
    saved = realtext._MODELS.get("default")
    realtext._MODELS["default"] = model
    try:
        return widget.view(dict(values))
    finally:
        if saved is None:
            realtext._MODELS.pop("default", None)
        else:
            realtext._MODELS["default"] = saved


def _row_value(model, which: str, context, temperature, token) -> float:
    return model.row(which, context, temperature)[token]


def realtext_readouts_match_model(out):
    """Every readout of the real-text widget, the numbers of its lead and summary and every cell of its
    call table and survival table equal what the run's own calls give (recounted here from a fresh run of
    the same seed: calls, tokens, accepted and drafted tokens; alpha iid and the MLE solved here) through
    the page's formatters; tokens per call = 1 + accepted / calls; each draft's chance min(1, p/q) is a
    probability, from p and q read off the models' rows; at the defaults, both ends of the lookahead,
    temperature and tokens sliders, every proposer and preset, and while stepping."""
    from ..widgets import realtext as widget

    model = check_model()
    for values, where, view in views_at(out, widget, READOUT_SETTINGS,
                                        lambda values: _realtext_view(widget, model, values)):
        s = _settings_of(widget, values)
        k, temperature = s["k"], s["temperature"]
        prompt = model.tokenizer.encode(realtext.PRESETS[s["preset"]][1])
        cycles = realtext.generate(model, prompt, s["proposer"], k, temperature, s["tokens"], s["seed"],
                                   max_calls=s["step"])
        run = _run_counts(cycles, k)
        if run["committed"] != run["calls"] + run["accepted"]:
            return out.fail(f"{where}: {run['committed']} tokens in {run['calls']} calls with {run['accepted']} "
                            "accepted drafts: tokens per call is not 1 + accepted / calls")
        newest = cycles[-1]
        context = prompt + [t for c in cycles[:-1] for t in c["committed"]]
        first_chance = _first_chance(model, s, context, newest) if newest["drafts"] else None
        failure = (_run_readouts_difference(where, view, run, k, first_chance, widget._chance)
                   or _call_table_difference(where, view, model, s, context, newest, first_chance, widget._chance)
                   or _survival_table_difference(where, view, run, k)
                   or _run_phrase_missing(where, view, run, s, newest)
                   or _run_figures_difference(where, view["figures"], cycles, k, run["counts"]))
        if failure:
            return out.fail(failure)
        yield  # a pause: the browser answers a reader between two settings


def _run_counts(cycles, k: int) -> dict:
    """A run's counts from its calls: calls, committed, accepted and drafted tokens, the accepted drafts of each
    call that drafted (``counts``) and, when any did, alpha's MLE and the tokens per call it predicts."""
    run = {"calls": len(cycles), "committed": sum(len(c["committed"]) for c in cycles),
           "accepted": sum(c["accepted"] for c in cycles), "drafted": sum(len(c["drafts"]) for c in cycles),
           "counts": [c["accepted"] for c in cycles if c["drafts"]]}
    counts = run["counts"]
    if counts:
        rejections = sum(1 for j in counts if j < k)
        run["mle"] = mle = sum(counts) / (sum(counts) + rejections) if sum(counts) + rejections else 0.0
        run["predicted"] = sum(mle ** i for i in range(k + 1))
    return run


def _first_chance(model, s: dict, context, newest: dict) -> float:
    """The chance that the newest call's first draft is kept: the sum of min(p, q) over the rows (a draft model's),
    or min(1, p(x)) of its token (a one-hot proposal)."""
    p_row = model.row("target", context, s["temperature"])
    if s["proposer"] == "draft":
        q_row = model.row("draft", context, s["temperature"])
        return math.fsum(map(min, p_row.dense(), q_row.dense()))
    return min(1.0, p_row[newest["drafts"][0]])


def _run_readouts_difference(where, view, run: dict, k: int, first_chance, chance) -> str | None:
    """The readouts (calls, tokens per call, acceptance rate, alpha iid and MLE, the ledger's prediction, the first
    draft's chance) against the run's counts."""
    f = to_fixed
    calls, committed, accepted, drafted, counts = (run[key] for key in ("calls", "committed", "accepted", "drafted",
                                                                         "counts"))
    expected = {"calls": str(calls), "tokensPerCall": f(committed / calls, 2),
                "acceptanceRate": f(100 * accepted / drafted, 1) + "%" if drafted else "n/a"}
    if counts:
        expected.update(alphaIid=f(100 * alpha_root(sum(counts) / len(counts), k), 1) + "%",
                        alphaMle=f(100 * run["mle"], 1) + "%",
                        ledger=f"{f(run['predicted'], 2)} vs {f(committed / calls, 2)}")
    if first_chance is not None:
        expected["firstAlpha"] = chance(first_chance)
    for key, want in expected.items():
        got = view["readouts"].get(key)
        if got != want and not (key == "firstAlpha" and _near_chance(got, first_chance)):
            return f"{where}: readout {key} shows {got!r}, the run gives {want!r}"
    return None


def _call_table_difference(where, view, model, s: dict, context, newest: dict, first_chance, chance) -> str | None:
    """The call table: q(x), p(x) and min(1, p/q) of every examined draft of the newest call (each a probability),
    and its first-draft chance, against the models' rows."""
    cells = []
    for index, token in enumerate(newest["drafts"]):
        if index > newest["accepted"]:
            cells.append("not examined")
            continue
        here = context + newest["drafts"][:index]
        p_x = _row_value(model, "target", here, s["temperature"], token)
        q_x = _row_value(model, "draft", here, s["temperature"], token) if s["proposer"] == "draft" else 1.0
        keep = min(1.0, p_x / q_x)
        if not 0 <= keep <= 1:
            return f"{where}: draft {index + 1}'s chance {keep} is not a probability"
        cells += [chance(q_x), chance(p_x), chance(keep), "kept" if index < newest["accepted"] else "rejected"]
    got = [cell for cell in table_cells(view["figures"]["call"]) if not cell.startswith(("<code>", "the target", "draft 1"))]
    for cell in got:
        if cell.endswith("%") and not 0 <= float(cell[:-1]) <= 100:
            return f"{where}: the call table shows a chance of {cell}"
    if not _cells_agree(got, cells):
        return f"{where}: the call table reads {got}, the models' rows give {cells}"
    before = [cell for cell in table_cells(view["figures"]["call"]) if cell.startswith("draft 1")]
    if newest["drafts"] and not (len(before) == 1 and _near_chance(before[0].rsplit("= ", 1)[-1], first_chance)):
        return f"{where}: the call table's first-draft chance reads {before}, the rows give {chance(first_chance)}"
    return None


def _survival_table_difference(where, view, run: dict, k: int) -> str | None:
    """The survival table (each position's survival, its rate given the ones before it, and the MLE's law) against
    the run's calls; none to check when no call drafted."""
    counts, f = run["counts"], to_fixed
    if not counts:
        return None
    reached = [sum(j >= i for j in counts) for i in range(k + 1)]   # reached[0]: every call that drafted
    survival = [f(100 * reached[i] / len(counts), 1) + "%" for i in range(1, k + 1)]
    # draft i kept given the ones before were: reached[i] / reached[i - 1] (a position nobody reached
    # repeats the rate before it)
    conditional: list[float] = []
    for i in range(1, k + 1):
        conditional.append(reached[i] / reached[i - 1] if reached[i - 1] else
                           (conditional[-1] if conditional else 0.0))
    given = [f(100 * rate, 1) + "%" for rate in conditional]
    law = [f(100 * run["mle"] ** i, 1) + "%" for i in range(1, k + 1)]
    positions = [cell for row in zip(survival, given, law) for cell in row]
    if table_cells(view["figures"]["positions"]) != positions:
        return (f"{where}: the survival table reads {table_cells(view['figures']['positions'])}, "
                f"the run gives {positions}")
    return None


def _run_phrase_missing(where, view, run: dict, s: dict, newest: dict) -> str | None:
    """The lead's, summary's and live line's numbers (tokens, calls, tokens per call, alpha's MLE and its
    prediction) against the run's counts."""
    f, k = to_fixed, s["k"]
    calls, committed = run["calls"], run["committed"]
    phrases = {"lead": [f"wrote {f(committed / calls, 2)} tokens on average ({committed} tokens in {calls} calls"],
               "summary": [f"lookahead k = {k}, T = {f(s['temperature'], 1)}: {committed} tokens in {calls} verifier calls",
                           f"{f(committed / calls, 2)} tokens per call"]}
    if view["live"]:  # the widget's own view (the assembled one in the browser has no live line)
        phrases["live"] = [f"{committed} tokens in {calls} calls, {f(committed / calls, 2)} per call"
                           if committed >= s["tokens"] else
                           f"Call {calls}: {newest['accepted']} of {len(newest['drafts'])} drafts kept; "
                           f"{committed} tokens so far"]
    if run["counts"]:
        phrases["lead"].append(f"alpha = {f(100 * run['mle'], 1)}%")
        phrases["summary"] += [f"alpha = {f(100 * run['mle'], 1)}% (MLE)", f"predicts {f(run['predicted'], 2)} tokens per call"]
    return phrase_missing(where, view, phrases)


def _run_figures_difference(where, figures, cycles, k, counts) -> str | None:
    """The run's other numbers against its calls, counted here: the plain text's line (calls, drafts kept
    of drafted), each call's hover title in the marked-up text (drafts kept of drafted, in call order), and
    the send buttons' alpha (alpha iid, whole percent) and lookahead (at most 12, the ledger's largest)."""
    from . import unescape
    import json

    from . import numbers_difference, numbers_in

    kept, drafted = sum(c["accepted"] for c in cycles), sum(len(c["drafts"]) for c in cycles)
    line = re.search(r"<p>(.*?)</p>", figures["plainText"], re.S)
    failure = numbers_difference(where, "the plain text's line", numbers_in(line.group(1) if line else ""),
                                 [str(len(cycles)), str(kept), str(drafted)])
    if failure:
        return failure
    titles = re.findall(r'class="rt-call[^"]*" title="([^"]*)"', figures["text"])
    want = [[str(n), str(c["accepted"]), str(len(c["drafts"]))] if c["rejected"] else
            ([str(n), str(len(c["drafts"]))] if c["drafts"] else [str(n)]) for n, c in enumerate(cycles, 1)]
    if [numbers_in(title) for title in titles] != want:
        first = next((i for i, (a, b) in enumerate(zip(titles, want)) if numbers_in(a) != b), min(len(titles), len(want)))
        return (f"{where}: the text's call {first + 1} reads {titles[first:first + 1]}, its call gives "
                f"{want[first:first + 1]} (of {len(want)} calls)")
    if counts and figures["send"]:
        percent, lookahead = to_fixed(100 * alpha_root(sum(counts) / len(counts), k), 0), str(min(12, k))
        sent = [(target, json.loads(unescape(values)), unescape(text)) for target, values, text in
                re.findall(r'data-target="([^"]+)"[^>]*data-values="([^"]*)">([^<]*)</button>', figures["send"])]
        one = [(values, text) for target, values, text in sent if target == "ledger" and values.get("acceptance")]
        if (len(one) != 1 or one[0][0]["acceptance"] != percent or f"alpha = {percent}%" not in one[0][1]
                or any(values.get("lookahead", lookahead) != lookahead for _, values, _ in sent)):
            return f"{where}: the send buttons read {sent}, the run gives alpha = {percent}% at k = {lookahead}"
    return None


def _near_chance(shown, value) -> bool:
    """A first-draft chance shown from the rows' own sum (the page's), against the dense sum here: the
    two orders of summation may differ in the last place, which can move a rounded digit."""
    try:
        return abs(float(shown.rstrip("%")) / 100 - value) <= 1e-3 * max(value, 1e-12) + 5e-4
    except (AttributeError, ValueError):
        return False


def _cells_agree(got: list[str], want: list[str]) -> bool:
    """The call table's cells (``got``, ``not examined`` spanning three) against the expected ones."""
    flat = [cell for cell in got if not cell.startswith("discarded")]
    return flat == want


def realtext_hostile_inputs_answered(out):
    """No input breaks the real-text widget: every slider given NaN, infinities, an empty value, other
    scripts' digits, hex, underscores, markup or 5,000 characters (as a form value) is answered with a note
    naming it and the slider in range, never an error, a NaN or a long echo
    (lab.checks.hostile_inputs_answered); so is a temperature above 0 too small to temper a row (a link
    and a form value: clamped with a note), a 5,000-character prompt, control characters and emoji, and a
    preset or proposer that is none."""
    from ..widgets import realtext as widget

    yield from hostile_inputs_answered(out, widget, links=False, cases=(
        ("?rtTemperature=0.003", "temperature"), ({"rtTemperature": "1e-9"}, "temperature"),
        ({"rtPrompt": "x = 1\n" * 1000}, "prompt"), ({"rtPrompt": "\x00\x7f\ud7ff \U0001f600" * 20}, None),
        ({"rtPreset": "<script>"}, "Prompt"), ({"rtProposer": "nope" * 100}, "Proposer")))


HELD_OUT_CHECK_TEXTS = {  # text the presets check calls held out: the small model's corpus, and English
    "code": {"text": CHECK_CORPUS, "sources": ("lab/checks/realtext.py",), "charsEach": len(CHECK_CORPUS)},
    "english": {"text": ("The queue keeps its items in the order they were put, and a reader takes them from the "
                         "front. When the queue is empty the reader waits, and when it is full the writer does. "
                         "Each line of the file is read once, and the text is decoded before it is returned. ") * 3,
                "sources": ("node_modules/queue/README.md",), "charsEach": 600},
}


def _mean_error(values, block: int = 1) -> tuple[float, float | None]:
    """The mean of ``values`` and the standard error of the means of consecutive blocks of ``block``
    (the sample standard deviation of the block means, over n - 1, / sqrt(blocks); None for fewer than
    two blocks), computed here: written out, so the browser's trimmed standard library needs no
    statistics module for a check."""
    means = [math.fsum(values[i:i + block]) / block for i in range(0, len(values) - block + 1, block)]
    error = None
    if len(means) >= 2:
        centre = math.fsum(means) / len(means)
        error = math.sqrt(math.fsum((m - centre) ** 2 for m in means) / (len(means) - 1)) / math.sqrt(len(means))
    return math.fsum(values) / len(values), error


def presets_table_matches_model(out):
    """The real-text presets table the page builds (lab.widgets.realtext.preset_comparison and
    comparison_html, on the small model) shows, in every cell and in the sentence under it, the model's
    numbers through to_fixed: each prompt's alpha on its own text (lab.realtext.text_alpha) with its
    standard error and positions, each run's alpha (MLE) and tokens per call (lab.realtext.generate and
    summarise, the seeds' calls pooled), the held-out rows' alpha and block standard error, and the
    sentence's gaps, two binomial standard errors and the run where prompt lookup writes the most."""
    from ..widgets import realtext as widget

    model = small_model()
    k, count = widget.COMPARISON_LOOKAHEAD, widget.COMPARISON_TOKENS
    expected_rows = []
    for name, (title, prompt) in realtext.PRESETS.items():
        out.visited += 1
        tokens = model.tokenizer.encode(prompt)
        alphas = realtext.text_alpha(model, tokens)
        mean, error = _mean_error(alphas)
        runs = []
        for proposer, temperature, seeds, _ in widget.COMPARISON:
            cycles = [c for seed in seeds for c in realtext.generate(model, tokens, proposer, k, temperature, count, seed)]
            summary = realtext.summarise(cycles, k)
            committed = sum(len(c["committed"]) for c in cycles)
            if abs(summary["tokensPerCall"] - committed / len(cycles)) > 1e-12:
                return out.fail(f"{name}: tokens per call {summary['tokensPerCall']} is not committed / calls = "
                                f"{committed}/{len(cycles)}")
            examined = sum(len(c["checked"]) for c in cycles)
            runs.append((summary["alphaMle"], summary["tokensPerCall"], examined))
        expected_rows.append((title, mean, error, len(alphas), runs))
        yield
    held = {}
    for kind, text in HELD_OUT_CHECK_TEXTS.items():
        alphas = realtext.text_alpha(model, model.tokenizer.encode(text["text"]))
        held[kind] = (*_mean_error(alphas, widget.HELD_OUT_BLOCK), len(alphas))
    yield
    page = widget.comparison_html(widget.preset_comparison(model), widget.held_out_comparison(model, HELD_OUT_CHECK_TEXTS))
    failure = (_presets_cells_difference(page, expected_rows, held)
               or _presets_sentence_difference(widget, page, expected_rows, held))
    if failure:
        return out.fail(failure)


def _presets_cells_difference(page: str, expected_rows: list, held: dict) -> str | None:
    """Every cell of the presets table (each prompt's alpha, its standard error and positions, each run's alpha
    and tokens per call; the held-out rows' alpha, block standard error and positions) against the model's."""
    from . import numbers_difference, numbers_in

    f = to_fixed
    cells = table_cells(page)
    expected_cells = []
    for (_, mean, error, positions, runs) in expected_rows:
        expected_cells.append([f(mean, 2), f(error, 2), str(positions)])
        expected_cells += [[f(alpha, 2), f(tokens, 2)] for alpha, tokens, _ in runs]
    for kind in HELD_OUT_CHECK_TEXTS:
        mean, error, positions = held[kind]
        expected_cells += [[f(mean, 2), f(error, 3), f"{positions:,}"], []]
    if len(cells) != len(expected_cells):
        return f"the presets table has {len(cells)} cells, the model gives {len(expected_cells)}"
    for index, (cell, numbers) in enumerate(zip(cells, expected_cells)):
        failure = numbers_difference("presets table", f"cell {index} ({cell[:60]!r})", numbers_in(cell), numbers)
        if failure:
            return failure
    return None


def _presets_sentence_difference(widget, page: str, expected_rows: list, held: dict) -> str | None:
    """The sentence under the presets table: the held-out alphas and their texts' sizes, the code and prose prompts'
    alphas and their runs', the gap's two binomial standard errors and the run where prompt lookup writes the
    most."""
    from . import numbers_difference, numbers_in

    f, k, count = to_fixed, widget.COMPARISON_LOOKAHEAD, widget.COMPARISON_TOKENS
    by_title = {row[0]: row for row in expected_rows}
    code, prose = (by_title[realtext.PRESETS[name][0]] for name in ("python", "docstring"))
    gap_error = math.sqrt(sum(a * (1 - a) / n for a, _, n in (code[4][0], prose[4][0])))
    lookup = max(expected_rows, key=lambda row: row[4][2][1])
    sentence = re.sub(r"<[^>]+>", "", page.split('class="rt-presets-note">', 1)[1])
    numbers = [f(held["code"][0], 2), f"{HELD_OUT_CHECK_TEXTS['code']['charsEach']:,}", f(held["english"][0], 2),
               f"{HELD_OUT_CHECK_TEXTS['english']['charsEach']:,}", str(widget.HELD_OUT_BLOCK),
               f(code[1], 2), f(prose[1], 2), str(k), str(count), f(code[4][0][0], 2), f(prose[4][0][0], 2),
               f(2 * gap_error, 2), f(lookup[4][2][1], 2)]
    return numbers_difference("presets table", "the sentence under it", numbers_in(sentence), numbers,
                              fixed=("0",))  # "T = 0"


CHECKS = (
    ("every-text-encodes", every_text_encodes),
    ("cycle-law-is-target-row", cycle_law_is_target_row),
    ("one-hot-proposals-exact", one_hot_proposals_are_exact),
    ("greedy-at-zero-temperature", greedy_at_zero_temperature),
    ("acceptance-matches-analytic", acceptance_matches_analytic),
    ("real-trace-round-trip", trace_round_trip),
    ("realtext-readouts-match-model", realtext_readouts_match_model),
    ("realtext-presets-match-model", presets_table_matches_model),
    ("realtext-hostile-inputs-answered", realtext_hostile_inputs_answered),
)


def signature_alpha() -> Fraction:
    model = small_model()
    context = model.tokenizer.encode(realtext.PRESETS[realtext.DEFAULT_PRESET][1])
    p, q = model.exact_row("target", context), model.exact_row("draft", context)
    return sum((min(a, b) for a, b in zip(p, q)), Fraction(0))


def signature_value() -> str:
    """alpha between target and draft after the default preset on the small model (SIGNATURE_NOTE)."""
    return to_fixed(float(signature_alpha()), 6)
