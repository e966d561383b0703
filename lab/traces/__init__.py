"""Measured traces: read what serving engines print, and turn it into what the ledger needs.

Engines report speculative decoding in their own units. vLLM's "acceptance rate" is accepted
draft tokens over drafted tokens; its "mean acceptance length" counts the verifier's own token
too; SGLang prints that length as "accept len"; llama.cpp prints accepted over generated draft
tokens. None of them is the per-token acceptance ``alpha`` of the part-one ledger, and typing
one into its slider gives the wrong answer (at alpha 0.74 and lookahead 5 vLLM shows about 44%).

This package does three things, standard library only (it runs unchanged in Pyodide):

* parsers for every format (:data:`FORMATS`), written against the projects' own source (each
  parser's docstring names the file and version it was read in; docs/READING.md lists them), that
  work line by line so a 50 MB file can arrive in chunks (:class:`TraceParser`). They count
  verifier calls the way each engine defines them, never by dividing drafted tokens by k where
  drafts can be short: where nothing else is printed, drafted / k is reported as a lower bound
  (``Trace.callsBound``). Several models in one input are one analysis each (``model``);
* the derived quantities (:func:`analyse`): per-position rates with Wilson intervals, the two
  alphas, and a likelihood-ratio test of one constant conditional rate (the ledger's model);
* the translator between alpha, the engines' acceptance rate and the mean acceptance length
  (:func:`translate`).

Bad input raises :class:`TraceError` with one line that names what was wrong (the line and the
field), quoting at most :data:`MAX_QUOTE` characters of the bad value. One rule for digits, shared
with the CLI's flags (``lab.commands.traces``): a number is written in ASCII digits 0-9; other
Unicode digits (Arabic-Indic, full-width) are refused, never read as numbers. A count is a finite
whole number below :data:`MAX_COUNT`; JSON nested past :data:`MAX_JSON_DEPTH` levels is refused.

Notation for one trace: ``k`` draft tokens per verifier call (the lookahead), ``N`` verifier
calls that carried a draft (vLLM's ``num_drafts``), ``c_i`` the calls whose first ``i`` drafts
all survived (vLLM's ``num_accepted_tokens_per_pos[i-1]``), ``c_0 = N``, ``S = sum c_i`` the
accepted draft tokens.

The package, one module per idea: :mod:`.common` (limits, :class:`Trace`, the number readers and
the consistency check every parser's result passes), one module per engine family
(:mod:`.prometheus`, :mod:`.vllm`, :mod:`.vllm_bench`, :mod:`.vllm_json`, :mod:`.sglang`, :mod:`.llamacpp`,
:mod:`.trtllm`, :mod:`.speculators`, and :mod:`.plain` for the project's own cycles file and a single figure),
:mod:`.formats` (the one registry of formats, in detection order: each
family module declares its rows, with their golden samples in ``samples/``), :mod:`.reader`
(detection and the streaming parser), :mod:`.analysis`, :mod:`.translator` (the
translator and the exposition writer) and :mod:`.presets`. Every name other modules use is
importable from ``lab.traces`` itself.
"""

from ..stats import Z95, chi_square_survival, wilson_interval

from .analysis import alpha_mle, analyse, independence_test, measured_curve
from .common import (
    ALPHA_TOLERANCE, MAX_COUNT, MAX_JSON_CHARS, MAX_LABEL_SETS, MAX_LOOKAHEAD, MAX_QUOTE, SAMPLES_DIR, Format,
    ModelChoiceError, Sample, Trace, TraceError, shortened, count_text, sample_text,
)
from .formats import FORMAT_NAMES, FORMATS, JSON_FORMATS, PARSERS, REGISTRY, SHORT_NAMES
from .plain import cycles_to_trace
from .presets import DEFAULT_PRESET, PRESETS, SPEC_BENCH, SPEC_BENCH_SOURCE, ledger_curve, preset_family, preset_trace
from .reader import TraceParser, detect_line, parse
from .sglang import sglang_rate_definitions
from .translator import alpha_iid, render_exposition, translate

__all__ = [
    "TraceError", "ModelChoiceError", "Trace", "TraceParser", "sglang_rate_definitions", "FORMATS", "FORMAT_NAMES",
    "SHORT_NAMES", "PARSERS", "JSON_FORMATS", "REGISTRY", "Format", "Sample", "sample_text", "SAMPLES_DIR", "parse", "detect_line", "analyse", "wilson_interval", "alpha_iid",
    "alpha_mle", "independence_test", "chi_square_survival", "translate", "render_exposition",
    "cycles_to_trace", "MAX_LOOKAHEAD", "MAX_COUNT", "MAX_QUOTE", "shortened", "MAX_LABEL_SETS", "MAX_JSON_CHARS",
    "ALPHA_TOLERANCE", "Z95", "PRESETS", "DEFAULT_PRESET", "SPEC_BENCH", "SPEC_BENCH_SOURCE", "preset_trace", "preset_family",
    "measured_curve", "ledger_curve", "count_text",
]
