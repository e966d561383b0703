"""Speculative decoding on real text: a real tokenizer, a real target model, real proposers, exact.

The toy of part three has eight words and rows that ignore the text written so far. This module
runs the same rejection rule on models trained on real text: the Python standard library's source
as Pyodide 314.0.7 ships it (``python_stdlib.zip``, Python Software Foundation License), trained at
build time (:mod:`sitebuild.realtext_train` reads the corpus, caches the model file and leaves it where
:func:`default_model` reads it: the lab never imports the build).

* **Tokenizer.** Byte-level byte-pair encoding (Sennrich et al. 2016; byte-level as in GPT-2):
  text is split into pre-tokens by :data:`PRETOKEN`, then merged by rank. Tokens 0..255 are the
  bytes, so every text encodes; :data:`VOCABULARY_SIZE` tokens in all.
* **Target p.** Interpolated Kneser-Ney (Chen and Goodman 1998, eq. 17 and section 3) of order
  :data:`ORDER` with one discount ``D = 3/4`` at every order:

      P_n(w | h) = max(c(h w) - D, 0) / c(h)  +  D N1+(h .) / c(h)  P_{n-1}(w | h')

  with raw counts at the highest order and continuation counts ``N1+(. h w)`` below it; a history
  the table does not hold falls through to ``P_{n-1}``; the unigram level interpolates with the
  uniform row, so every token has mass. Totals ``c(h)`` and ``N1+(h .)`` are taken from the kept
  (pruned) entries, so each row sums to 1 whatever was pruned. With integer counts and a rational
  D every probability is rational: :func:`kn_row` computes a row in floats for decoding or in
  :class:`fractions.Fraction` for the checks, by the same code.
* **Draft q.** A Kneser-Ney bigram: raw bigram counts (pruned below :data:`DRAFT_MIN_COUNT`)
  over the target's own continuation unigram, a much smaller model with its own distribution.
  (The target's order-2 level alone holds continuation counts, a back-off distribution that
  predicts badly on its own.) ``draft`` samples it at temperature T (q is the tempered row);
  ``draft-greedy`` proposes its argmax (q one-hot: vLLM's greedy draft sampling); ``ngram`` is
  vLLM's prompt lookup (:func:`prompt_lookup`, q one-hot).
* **Temperature.** ``p_T(x) = p(x)^(1/T) / sum_y p(y)^(1/T)`` for target and draft alike; T = 0 is
  the argmax (first of equals), so at T = 0 every row is one-hot and speculative decoding commits
  exactly the target's greedy tokens.
* **Rows as they are held.** No row is laid out token by token while decoding (:class:`Row`). At
  T = 1 a row is its chain of levels: ``p(x)`` is looked up through them for one token, with the
  same float operations as :func:`kn_row`, and a sample is drawn from the chain read as the mixture
  that interpolation is. A tempered row adds one normaliser, and a whole-row sum (the normaliser,
  the overlap) is taken through what every row after the same last token shares (:class:`Base`)
  plus the few tokens the higher levels name. A rejection's token is drawn by rejection from p
  (:class:`ResidualRow`). The vocabulary is never walked, so a verifier call costs a few hundred
  operations, not a few thousand.
* **One cycle** (:func:`run_cycle`): the proposer drafts k tokens (all random draws for drafts
  first), then :func:`verify_block` judges them in order with part three's rule: keep draft x iff
  ``u < min(1, p(x)/q(x))``; the first rejection commits a token from ``norm(max(0, p - q))``; if
  all survive, a bonus token from the next p row. The order of draws is :func:`lab.sampler.verify`'s.
  :func:`first_token_law` runs :func:`verify_block` itself under :func:`lab.sampler.uniform_law`
  on exact rows, so the checks compare the law of the code that decodes, not of a formula.
"""

from __future__ import annotations

import math
import struct
import zipfile
from collections import Counter
from random import Random

from .errors import LabValueError
from .ledger import expected_tokens_per_call
# The module's parts, one seam each; every name stays importable from here (__all__ below).
from .realtext_training import (DRAFT_MIN_COUNT, FORMAT, ORDER, PRETOKEN, VOCABULARY_SIZE, Tokenizer,
                                build_model_file, count_tables, encode_texts, merge_pair, pack_table, train_merges)
from .realtext_rows import (DISCOUNT, LEVELS_KEPT, RESIDUAL_DRAWS, ROWS_KEPT, SCALE, UNITS, Base, ChainRow, Level,
                            Model, ModelUnavailable, OneHotRow, Row, Table, TemperedRow, argmax, cumulative,
                            float_ratio, kn_row, one_hot, sample_row, unigram_row)
from .realtext_rows import _MODELS  # the loaded models: "default" (default_model, below), "example" (realtext_rows)
from .realtext_rows import _example_model  # noqa: F401 (the examples' model, for the doctests and tests)
from .realtext_rule import (PROMPT_LOOKUP, PROPOSERS, Drafts, ResidualRow, acceptance_probability, first_alpha,
                            first_token_law, overlap, prompt_lookup, propose, residual, run_cycle, verify_block)
from .realtext_rule import _Drawn  # noqa: F401 (a draw made earlier, for the checks)

__all__ = [
    "FORMAT", "VOCABULARY_SIZE", "ORDER", "PRETOKEN", "PROPOSERS", "PROPOSER_FAMILIES", "PRESETS", "DEFAULT_PRESET", "LIMITS",
    "MIN_TEMPERATURE", "check_temperature",
    "Tokenizer", "Model", "ModelUnavailable", "merge_pair", "train_merges", "count_tables", "build_model_file", "load_model",
    "default_model", "Level", "Row", "OneHotRow", "ChainRow", "TemperedRow", "ResidualRow", "Base",
    "kn_row", "argmax", "cumulative", "sample_row", "acceptance_probability",
    "residual", "overlap",
    "verify_block",
    "prompt_lookup", "Drafts", "propose", "run_cycle", "first_alpha", "Run", "generate", "text_alpha", "greedy", "first_token_law",
    "summarise", "held_out_texts", "model_paths",
    "DRAFT_MIN_COUNT", "encode_texts", "pack_table", "DISCOUNT", "LEVELS_KEPT", "RESIDUAL_DRAWS", "ROWS_KEPT", "Table",
    "float_ratio", "one_hot", "unigram_row", "PROMPT_LOOKUP", "UNITS", "SCALE",
]

PROPOSER_NAMES = {"draft": "draft model (sampled)", "draft-greedy": "draft model (greedy)",
                  "ngram": "prompt lookup (n-gram)"}
# each proposer's drafter family (lab.acceptance_text.FAMILIES), which the curve it measures carries to other instruments
PROPOSER_FAMILIES = {"draft": "draft", "draft-greedy": "draft", "ngram": "ngram"}
# name: (label, prompt). A function to complete, technical English, a repetitive template.
PRESETS = {
    "python": ("a Python function", "def read_lines(path, encoding=None):\n"
               "    \"\"\"Return the lines of the file at path.\"\"\"\n"
               "    with open(path, encoding=encoding) as f:\n        return"),
    "docstring": ("an English docstring", "    \"\"\"Return the number of items in the queue.\n\n"
                  "    If the queue is empty, this method returns zero. Note that the"),
    "template": ("a repetitive template", "    def get_host(self):\n        return self._host\n\n"
                 "    def get_port(self):\n        return self._port\n\n    def get_user(self):\n        return"),
}
DEFAULT_PRESET = "python"
# setting: (low, high, default); integers except temperature.
LIMITS = {"lookahead": (1, 8, 4), "temperature": (0.0, 2.0, 1.0), "tokens": (1, 256, 48), "seed": (0, 2**31 - 1, 1)}
# The smallest temperature above 0 (greedy). A tempered row raises its levels' floats to 1/T: the
# bigram back-off weight (at least 0.0016 in the shipped draft table, 0.00073 at the target's top
# order) and the unigram (at least 3.9e-6) raised to 1/T underflow to 0 near T = 0.0055 (1/T = 182),
# and the row's normaliser and sampler divide by them. At T = 0.05 (1/T = 20) the smallest such
# product, (0.0016 * 0.00073 * 0.0099 * 3.9e-6)^20, is about 1e-278: a float, with room to spare.
# Below it the sampled text is the greedy text in all but name; T is 0 or at least this.
MIN_TEMPERATURE = 0.05
MAX_PROMPT_CHARS = 2000
MODEL_DATA_PATH = "/lab-data/realtext/model.zip"   # where the page's worker writes the model file
CHECKOUT_MODEL = "realtext-model.zip"              # in a checkout's .cache/: the build's model (a link)
CHECKOUT_HELD_OUT = "realtext-held-out.json"       # in a checkout's .cache/: the held-out texts the build read


class Run:
    """One seeded run (``random.Random(seed)``) that grows only as far as it is asked, and keeps
    what it computed: :meth:`upto` returns the run's first calls, drawing more cycles from the
    saved generator (and the tokens written so far) only when the calls it holds are not enough.
    The calls are those of one run computed in one go (one generator, drawn in the same order),
    so a page that steps through a run, or writes fewer or more tokens of it, recomputes nothing
    it already showed. With ``lazy`` each record's drafts are :func:`run_cycle`'s lazy ones (the
    same tokens when read).

    >>> model = _example_model()
    >>> run = Run(model, [1, 2], "draft", 2, 1.0, 5)
    >>> run.upto(6, 2) == generate(model, [1, 2], "draft", 2, 1.0, 6, 5, max_calls=2)
    True
    >>> run.upto(9) == generate(model, [1, 2], "draft", 2, 1.0, 9, 5)
    True
    """

    def __init__(self, model: Model, prompt_tokens, proposer: str, k: int, temperature, seed: int,
                 lazy: bool = False):
        check_temperature(temperature)
        self.model, self.proposer, self.k, self.temperature = model, proposer, k, temperature
        self.lazy = lazy  # records' drafts resolved only when read (run_cycle's lazy)
        self.rng = Random(seed)
        self.tokens = list(prompt_tokens)
        self.cycles: list[dict] = []
        self.done: list[int] = []  # committed tokens after each call

    def upto(self, count: int, max_calls: int | None = None) -> list[dict]:
        """The calls until ``count`` tokens are committed, or ``max_calls`` calls (the first
        reached); see :func:`generate`."""
        calls = 0
        while (self.done[calls - 1] if calls else 0) < count and (max_calls is None or calls < max_calls):
            if calls == len(self.cycles):
                cycle = run_cycle(self.model, self.proposer, self.tokens, self.k, self.temperature, self.rng,
                                  self.lazy)
                self.cycles.append(cycle)
                self.tokens.extend(cycle["committed"])
                self.done.append((self.done[-1] if self.done else 0) + len(cycle["committed"]))
            calls += 1
        return self.cycles[:calls]


def check_temperature(temperature) -> None:
    """Refuse a temperature that is neither 0 (greedy) nor from :data:`MIN_TEMPERATURE` to
    ``LIMITS["temperature"][1]``: rows tempered below the minimum underflow to a zero total.

    >>> check_temperature(0), check_temperature(0.05), check_temperature(1.5)
    (None, None, None)
    >>> check_temperature(0.003)
    Traceback (most recent call last):
    ...
    lab.errors.LabValueError: temperature 0.003 is neither 0 (greedy) nor from 0.05 to 2
    """
    if not (temperature == 0 or MIN_TEMPERATURE <= temperature <= LIMITS["temperature"][1]):
        raise LabValueError(f"temperature {temperature:.3g} is neither 0 (greedy) nor from {MIN_TEMPERATURE:g} "
                            f"to {LIMITS['temperature'][1]:g}")


def generate(model: Model, prompt_tokens, proposer: str, k: int, temperature, count: int, seed: int,
             max_calls: int | None = None) -> list[dict]:
    """Cycles with ``random.Random(seed)`` until ``count`` tokens are committed. The last call may
    commit up to k more; the output keeps them, so that every call drafted what its proposer
    offered at lookahead k and the trace reads at that lookahead. With ``max_calls`` it stops
    after that many verifier calls: the same calls as the whole run's first ones (one seeded
    generator, drawn in the same order), so a page can step through a run one call per request
    and recompute it from the seed each time (or keep the :class:`Run` and extend it)."""
    return Run(model, prompt_tokens, proposer, k, temperature, seed).upto(count, max_calls)


def text_alpha(model: Model, tokens, temperature=1.0) -> list[float]:
    """The per-token acceptance at every position of a text itself: ``sum_x min(p(x), q(x))`` with
    both rows conditioned on the text before that position (the chance that a draft sampled there
    survives). It measures the text, not a run: a run's continuation is whatever the target
    writes, which for these models, trained on code, leaves prose within a few tokens."""
    return [math.fsum(map(min, model.row("target", tokens[:index], temperature),
                          model.row("draft", tokens[:index], temperature)))
            for index in range(1, len(tokens))]


def greedy(model: Model, prompt_tokens, count: int) -> list[int]:
    """Plain greedy decoding of the target: ``count`` argmax tokens, one after another."""
    tokens = list(prompt_tokens)
    out = []
    for _ in range(count):
        token = argmax(model.row("target", tokens[-(model.order - 1):]))
        out.append(token)
        tokens.append(token)
    return out


# --- what a run says -------------------------------------------------------------------------------

def summarise(cycles: list[dict], k: int, analytic: bool = True) -> dict:
    """The run's numbers, through the trace reader's own analysis (:mod:`lab.traces`).

    ``cycles`` (the trace) lists the accepted count of every call that carried a draft (vLLM's
    ``num_drafts``); the per-position curve, alphaIid and alphaMle are
    :func:`lab.traces.analyse` of that trace at lookahead k. ``tokensPerCall`` = committed tokens /
    verifier calls = 1 + accepted / calls (the mean acceptance length); ``acceptanceRate`` =
    accepted / drafted (the engines' ratio); ``meanFirstAlpha`` the analytic first-position
    acceptance (:func:`first_alpha`) averaged over the calls that drafted, or, with ``analytic``
    False, None (a lazy run's records then keep theirs uncomputed)."""
    from . import traces

    calls = len(cycles)
    drafted = sum(len(c["drafts"]) for c in cycles)
    accepted = sum(c["accepted"] for c in cycles)
    committed = sum(len(c["committed"]) for c in cycles)
    trace_cycles = [c["accepted"] for c in cycles if c["drafts"]]
    result = {"verifierCalls": calls, "draftedTokens": drafted, "acceptedTokens": accepted,
              "committedTokens": committed, "cycles": trace_cycles,
              "tokensPerCall": committed / calls if calls else 0.0,
              "meanAcceptanceLength": 1 + accepted / calls if calls else 0.0,
              "acceptanceRate": accepted / drafted if drafted else None,
              "perPosition": None, "alphaIid": None, "alphaMle": None, "predictedTokensPerCall": None,
              "callsWithoutDraft": calls - len(trace_cycles)}
    alphas = [alpha for alpha in map(first_alpha, cycles) if alpha is not None] if analytic else []
    result["meanFirstAlpha"] = math.fsum(alphas) / len(alphas) if alphas else None
    if trace_cycles:
        histogram = Counter(trace_cycles)
        analysis = traces.analyse(traces.cycles_to_trace(dict(histogram), k))
        result.update(perPosition=analysis["perPosition"], alphaIid=analysis["alphaIid"],
                      alphaMle=analysis["alphaMle"], conditional=analysis["conditional"])
        # What the ledger predicts from the measured alpha (independent acceptance):
        # 1 + alpha + ... + alpha^k tokens per call, against what the run achieved.
        result["predictedTokensPerCall"] = expected_tokens_per_call(analysis["alphaMle"], k)
    return result


def run_document(model: Model, values: dict, compare: bool = False) -> dict:
    """What the CLI prints for one run (``values``: prompt, proposer, lookahead, temperature,
    tokens, seed): the text and tokens written, the trace and its numbers; with ``compare`` the
    target's greedy text of the same length and whether the run wrote exactly it."""
    prompt_tokens = model.tokenizer.encode(values["prompt"])
    k = values["lookahead"]
    cycles = generate(model, prompt_tokens, values["proposer"], k, values["temperature"], values["tokens"],
                      values["seed"])
    tokens = [token for cycle in cycles for token in cycle["committed"]]
    summary = summarise(cycles, k)
    document = {"prompt": values["prompt"], "promptTokens": len(prompt_tokens), "proposer": values["proposer"],
                "lookahead": k, "temperature": values["temperature"], "seed": values["seed"],
                "text": model.tokenizer.decode(tokens), "tokens": tokens, **summary}
    document.pop("conditional", None)
    if compare:
        plain = greedy(model, prompt_tokens, len(tokens))
        document["plainText"] = model.tokenizer.decode(plain)
        document["identical"] = plain == tokens
    return document


# --- loading --------------------------------------------------------------------------------------

def load_model(data: bytes) -> Model:
    return Model(data)


def _checkout_path(name: str) -> str:
    """``.cache/NAME`` of the checkout this lab runs from, where the build leaves what it made for the lab
    (:data:`CHECKOUT_MODEL`, :data:`CHECKOUT_HELD_OUT`); in the browser no such file exists."""
    import os

    return os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), ".cache", name)


def model_paths() -> list[str]:
    """Where :func:`default_model` looks, in order: ``$PROOFROOM_REALTEXT_MODEL``, the file the page's
    worker wrote (:data:`MODEL_DATA_PATH`), the checkout's copy the build made (:data:`CHECKOUT_MODEL`)."""
    import os

    return [path for path in (os.environ.get("PROOFROOM_REALTEXT_MODEL"), MODEL_DATA_PATH,
                              _checkout_path(CHECKOUT_MODEL)) if path]


def default_model() -> Model:
    """The real model, read from the first of :func:`model_paths` that exists. The lab never trains it:
    the build does (``python -m sitebuild.realtext_train``, or building the page), and leaves it there."""
    model = _MODELS.get("default")
    if model is not None:
        return model
    import os

    for path in model_paths():
        if os.path.isfile(path):
            try:
                with open(path, "rb") as handle:
                    model = _MODELS["default"] = Model(handle.read())
            except (OSError, zipfile.BadZipFile, KeyError, ValueError, IndexError, struct.error) as error:
                raise ModelUnavailable(f"the model file cannot be read ({type(error).__name__}: {error})") from None
            _settle_heap()
            return model
    raise ModelUnavailable("the real-text model is not loaded yet (in a checkout: "
                           "python -m sitebuild.realtext_train builds it)")


def _settle_heap() -> None:
    """Move every object alive now (the modules imported, the model just read) to the cyclic
    collector's permanent generation (:func:`gc.freeze`), so that its collections scan only what
    the requests make after it. A new run makes many lists (rows, bases, their floats) and
    triggers collections as it goes; each scanned the whole long-lived heap as well. Measured in
    Pyodide 314.0.7 under Node over 12 of the bench's slider plans of 33 steps (docs/PERFORMANCE.md,
    5 December 2026): the collector's time in Temperature steps fell to about a third. The one
    cost: cyclic garbage that exists at this moment is never collected (a model is read once)."""
    import gc

    gc.freeze()


def held_out_texts() -> dict:
    """Code and English the models never saw (``{kind: {"text", "sources", "charsEach"}}``), as the build wrote
    them beside the model (:data:`CHECKOUT_HELD_OUT`, by :func:`sitebuild.realtext_train.prepare`); never in
    the browser."""
    import json

    try:
        with open(_checkout_path(CHECKOUT_HELD_OUT), encoding="utf-8") as handle:
            return json.load(handle)
    except FileNotFoundError:
        raise ModelUnavailable("held-out texts are read only when the page is built") from None
    except (OSError, ValueError) as error:
        raise ModelUnavailable(f"a held-out text cannot be read ({error})") from None


def model_available() -> bool:
    """Whether :func:`default_model` can answer (loaded, or its file is here)."""
    import os

    return "default" in _MODELS or any(os.path.isfile(path) for path in model_paths())
