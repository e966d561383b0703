"""Measured traces: read what serving engines print, and turn it into what the ledger needs.

Engines report speculative decoding in their own units. vLLM's "acceptance rate" is accepted
draft tokens over drafted tokens; its "mean acceptance length" counts the verifier's own token
too; SGLang prints that length as "accept len"; llama.cpp prints accepted over generated draft
tokens. None of them is the per-token acceptance ``alpha`` of the part-one ledger, and typing
one into its slider gives the wrong answer (at alpha 0.74 and lookahead 5 vLLM shows about 44%).

This module does three things, standard library only (it runs unchanged in Pyodide):

* parsers for every format (:data:`FORMATS`), written against the projects' own source, that
  work line by line so a 50 MB file can arrive in chunks (:class:`TraceParser`);
* the derived quantities (:func:`analyse`): per-position rates with Wilson intervals, the two
  alphas, and a likelihood-ratio test of the independence the ledger assumes;
* the translator between alpha, the engines' acceptance rate and the mean acceptance length
  (:func:`translate`).

Bad input raises :class:`TraceError` with one line that names what was wrong.

Notation for one trace: ``k`` draft tokens per verifier call (the lookahead), ``N`` verifier
calls that carried a draft (vLLM's ``num_drafts``), ``c_i`` the calls whose first ``i`` drafts
all survived (vLLM's ``num_accepted_tokens_per_pos[i-1]``), ``c_0 = N``, ``S = sum c_i`` the
accepted draft tokens.
"""

import json
import math
import re
from collections import Counter
from typing import NamedTuple

__all__ = [
    "TraceError", "Trace", "TraceParser", "FORMATS", "FORMAT_NAMES", "parse", "detect_line",
    "analyse", "wilson_interval", "alpha_iid", "alpha_mle", "expected_accepted_iid", "independence_test",
    "chi_square_sf", "regularized_gamma_q", "translate", "render_exposition", "cycles_to_trace",
    "MAX_LOOKAHEAD", "Z95", "PRESETS", "DEFAULT_PRESET", "SPEC_BENCH", "preset_trace", "measured_curve", "ledger_curve",
]

MAX_LOOKAHEAD = 64
Z95 = 1.959963984540054   # the 97.5% point of the standard normal: a two-sided 95% interval
ALPHA_TOLERANCE = 1e-9    # alphaIid solves its equation to this
FORMATS = ("prometheus", "vllm-log", "sglang-log", "llamacpp-log", "trtllm-json", "cycles")
FORMAT_NAMES = {
    "prometheus": "vLLM /metrics (Prometheus text exposition)",
    "vllm-log": "vLLM log (SpecDecoding metrics lines or the spec_decode example's summary)",
    "sglang-log": "SGLang log (Decode batch lines with accept len)",
    "llamacpp-log": "llama.cpp log (server draft acceptance or the speculative example's n_drafted/n_accept)",
    "trtllm-json": "TensorRT-LLM iteration stats JSON (specDecodingStats)",
    "cycles": "one integer per verifier call: drafts accepted (0..k)",
}
SHORT_NAMES = {"prometheus": "vLLM's /metrics", "vllm-log": "the vLLM log", "sglang-log": "SGLang's log",
               "llamacpp-log": "llama.cpp's log", "trtllm-json": "TensorRT-LLM's iteration stats",
               "cycles": "a cycles file"}
SPLIT_LONG_LINE = 1 << 20  # a line longer than 1 MB is cut after its last '}' (one-line JSON arrays)


class TraceError(ValueError):
    """Input that cannot be read as a trace; the message is the one line shown to the reader."""


class Trace(NamedTuple):
    """What a trace says, in counts where the format has counts.

    ``drafts`` may be an estimate (llama.cpp counts tokens, not calls) and ``perPosition`` may
    be reconstructed from printed rates (vLLM's log); ``exact`` says whether every count was
    read as an integer. ``meanLength`` is set for formats that print only the mean acceptance
    length (SGLang)."""

    format: str
    lookahead: int
    drafts: float | None
    draftTokens: int | None
    accepted: int | None
    perPosition: tuple | None
    exact: bool
    notes: tuple = ()
    meanLength: float | None = None


# --- small helpers ------------------------------------------------------------------------------

def _short(line: str, limit: int = 80) -> str:
    line = line.strip()
    return line if len(line) <= limit else line[:limit] + "\u2026"


def _count(text: str, what: str, where: str) -> int:
    """A non-negative integer count from ``text`` ('12208', '12208.0', '1.2208e4')."""
    try:
        value = float(text)
    except ValueError:
        raise TraceError(f"{where}: {what} {_short(text, 30)!r} is not a number") from None
    if not math.isfinite(value):
        raise TraceError(f"{where}: {what} is {text}, not a count")
    if value < 0:
        raise TraceError(f"{where}: negative count {_short(text, 30)} for {what}")
    if not value.is_integer():
        raise TraceError(f"{where}: non-integer count {_short(text, 30)} for {what}")
    return int(value)


def _rate(text: str, what: str, where: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise TraceError(f"{where}: {what} {_short(text, 30)!r} is not a number") from None
    if not 0 <= value <= 1:
        raise TraceError(f"{where}: {what} {text} is not a fraction from 0 to 1")
    return value


def _check_lookahead(lookahead) -> int | None:
    if lookahead is None:
        return None
    if isinstance(lookahead, bool) or not isinstance(lookahead, int) or not 1 <= lookahead <= MAX_LOOKAHEAD:
        raise TraceError(f"the lookahead must be an integer from 1 to {MAX_LOOKAHEAD}, got {lookahead!r}")
    return lookahead


def _need_lookahead(fmt: str, lookahead, why: str) -> int:
    if lookahead is None:
        raise TraceError(f"{SHORT_NAMES[fmt]} does not record the lookahead ({why}); "
                         f"give it with --lookahead K (the draft tokens proposed per verifier call)")
    return lookahead


def _reconstruct(rates, drafts: int) -> list[int]:
    """Counts ``c_i`` from rates printed as ``c_i / N``: the nearest integers."""
    return [int(math.floor(rate * drafts + 0.5)) for rate in rates]


# --- the parsers: one accumulator per format, fed one line at a time -----------------------------

class _Accumulator:
    """``lines(batch, first_number)`` feeds many lines at once. Log formats only look at lines
    holding one of their ``MARKERS`` (a substring test, cheap next to a regular expression), so
    a 50 MB log of other messages costs little."""

    MARKERS = None

    def lines(self, batch, first_number: int):
        markers = self.MARKERS
        for offset, line in enumerate(batch):
            if markers is None or any(marker in line for marker in markers):
                self.line(line.rstrip("\r"), first_number + offset)


# Each has ``line(text, number)`` and ``result(lookahead) -> Trace``. Lines that do not belong to
# the format are skipped by the log formats (logs carry everything else too) and refused by the
# two formats that have nothing else in them (cycles, and malformed exposition lines).

_PROM_LINE = re.compile(r"^([A-Za-z_:][A-Za-z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\S+)?\s*$")
_PROM_LABEL = re.compile(r'\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*"((?:[^"\\]|\\.)*)"\s*,?')
PROM_METRICS = {
    "vllm:spec_decode_num_drafts": "drafts",
    "vllm:spec_decode_num_draft_tokens": "draftTokens",
    "vllm:spec_decode_num_accepted_tokens": "accepted",
    "vllm:spec_decode_num_accepted_tokens_per_pos": "perPosition",
}


def _prom_labels(text: str, where: str) -> tuple:
    labels, index = [], 0
    while index < len(text):
        match = _PROM_LABEL.match(text, index)
        if not match or match.end() == index:
            if text[index:].strip() in ("", ","):
                break
            raise TraceError(f"{where}: cannot read the labels {{{_short(text, 50)}}}")
        labels.append((match.group(1), match.group(2)))
        index = match.end()
    return tuple(sorted(labels))


class _Prometheus(_Accumulator):
    """vLLM's ``/metrics``: counters defined in ``vllm/v1/spec_decode/metrics.py`` (SpecDecodingProm).

    Counter samples carry the ``_total`` suffix in the exposition (``_created`` samples are
    timestamps and are skipped). Label sets other than ``position`` (engine, model_name, ...)
    are summed; a series repeated in the text (two scrapes pasted) keeps its last value,
    because counters are cumulative."""

    fmt = "prometheus"

    def __init__(self):
        self.series = {}   # (field, labels-without-position, position) -> value

    def line(self, text: str, number: int):
        stripped = text.strip()
        if not stripped or stripped.startswith("#"):
            return
        match = _PROM_LINE.match(stripped)
        if not match:
            raise TraceError(f"line {number}: not a Prometheus sample: {_short(text)!r}")
        name = match.group(1)
        if name.endswith("_created"):
            return
        base = name[:-6] if name.endswith("_total") else name
        field = PROM_METRICS.get(base)
        if field is None:
            return  # every other metric of the scrape
        where = f"line {number}"
        labels = _prom_labels(match.group(2) or "", where)
        position = None
        rest = []
        for key, value in labels:
            if key == "position":
                if field != "perPosition":
                    raise TraceError(f"{where}: {base} has a position label")
                if not value.isdigit() or int(value) >= MAX_LOOKAHEAD:
                    raise TraceError(f"{where}: position {value!r} is not an integer from 0 to {MAX_LOOKAHEAD - 1}")
                position = int(value)
            else:
                rest.append((key, value))
        if field == "perPosition" and position is None:
            raise TraceError(f"{where}: {base} has no position label")
        self.series[(field, tuple(rest), position)] = _count(match.group(3), base, where)

    def result(self, lookahead) -> Trace:
        if not self.series:
            raise TraceError("no vllm:spec_decode_* counters in the exposition")
        totals = {"drafts": 0, "draftTokens": 0, "accepted": 0}
        positions: dict[int, int] = {}
        label_sets = set()
        seen = set()
        for (field, labels, position), value in self.series.items():
            label_sets.add(labels)
            seen.add(field)
            if field == "perPosition":
                positions[position] = positions.get(position, 0) + value
            else:
                totals[field] += value
        for field, metric in (("drafts", "vllm:spec_decode_num_drafts"),
                              ("accepted", "vllm:spec_decode_num_accepted_tokens")):
            if field not in seen:
                raise TraceError(f"the exposition has no {metric} counter")
        notes = []
        if len(label_sets) > 1:
            keys = sorted({key for labels in label_sets for key, _ in labels})
            notes.append(f"summed {len(label_sets)} label sets ({', '.join(keys)})")
        per_position = None
        if positions:
            k = max(positions) + 1
            missing = [p for p in range(k) if p not in positions]
            if missing:
                raise TraceError(f"per-position counter has no position {missing[0]} (positions 0 to {k - 1} expected)")
            if lookahead is not None and lookahead != k:
                raise TraceError(f"the exposition has {k} positions but the lookahead given is {lookahead}")
            per_position = tuple(positions[p] for p in range(k))
        else:
            k = _need_lookahead(self.fmt, lookahead, "no per-position counter")
        draft_tokens = totals["draftTokens"] if "draftTokens" in seen else totals["drafts"] * k
        return _validated(Trace(self.fmt, k, totals["drafts"], draft_tokens, totals["accepted"],
                                per_position, True, tuple(notes)))


_VLLM_ACCEPTED = re.compile(r"Accepted: (\S+) tokens")
_VLLM_DRAFTED = re.compile(r"Drafted: (\S+) tokens")
_VLLM_PER_POS = re.compile(r"Per-position acceptance rate: ([0-9., ]*?)(?:, Avg|,?\s*$)")
_VLLM_EXAMPLE = re.compile(r"^\s*(num_drafts|num_draft_tokens|num_accepted_tokens|acceptance at token (\d+))\s*:\s*(\S+)")


class _VllmLog(_Accumulator):
    """vLLM's log. Two shapes, both summed when repeated:

    * ``SpecDecoding metrics: Mean acceptance length: %.2f, ..., Accepted: %d tokens, Drafted:
      %d tokens, Per-position acceptance rate: %.3f, ..., Avg Draft acceptance rate: %.1f%%``
      (``SpecDecodingLogging.log`` in ``vllm/v1/spec_decode/metrics.py``). It prints no draft
      count: ``N = Drafted / k`` with ``k`` the number of per-position rates, and each ``c_i``
      is rebuilt from its 3-decimal rate, so those counts are approximate.
    * the ``num_drafts: / num_draft_tokens: / num_accepted_tokens: / acceptance at token i:``
      summary of ``examples/offline_inference/spec_decode.py`` (exact counts, 2-decimal rates).
    """

    fmt = "vllm-log"
    MARKERS = ("SpecDecoding metrics:", "num_", "acceptance at token")

    def __init__(self):
        self.records = []  # (number, accepted, drafted, rates or None)
        self.blocks = []   # {"num_drafts": .., "rates": {i: rate}}

    def line(self, text: str, number: int):
        where = f"line {number}"
        if "SpecDecoding metrics:" in text:
            accepted, drafted = _VLLM_ACCEPTED.search(text), _VLLM_DRAFTED.search(text)
            if not accepted or not drafted:
                raise TraceError(f"{where}: a SpecDecoding metrics line without Accepted/Drafted counts")
            rates = None
            per_pos = _VLLM_PER_POS.search(text)
            if per_pos:
                rates = [_rate(x, "per-position rate", where) for x in per_pos.group(1).replace(" ", "").split(",") if x]
            self.records.append((number, _count(accepted.group(1), "Accepted", where),
                               _count(drafted.group(1), "Drafted", where), rates))
            return
        match = _VLLM_EXAMPLE.match(text)
        if not match:
            return
        key, position, value = match.groups()
        if key == "num_drafts" or not self.blocks:
            self.blocks.append({"rates": {}})
        block = self.blocks[-1]
        if position is not None:
            block["rates"][int(position)] = _rate(value, f"acceptance at token {position}", where)
        else:
            if key in block:
                raise TraceError(f"{where}: {key} appears twice in one summary")
            block[key] = _count(value, key, where)

    def result(self, lookahead) -> Trace:
        drafts = draft_tokens = accepted = 0
        per_position = None
        ks = set()
        notes = []
        with_rates = {bool(rates) for *_, rates in self.records}
        if len(with_rates) > 1:
            raise TraceError("some SpecDecoding metrics lines have per-position rates and others do not")
        for number, acc, drafted, rates in self.records:
            k = len(rates) if rates else _need_lookahead(self.fmt, lookahead, "the log line has no per-position rates")
            if lookahead is not None and k != lookahead:
                raise TraceError(f"line {number} has {k} per-position rates but the lookahead given is {lookahead}")
            ks.add(k)
            if len(ks) > 1:
                raise TraceError(f"the log lines disagree on the lookahead ({min(ks)} and {max(ks)} positions)")
            n = drafted // k
            if drafted % k:
                n = round(drafted / k)
                notes.append(f"line {number}: {drafted} drafted tokens is not a multiple of k = {k}; used {n} drafts")
            drafts, draft_tokens, accepted = drafts + n, draft_tokens + drafted, accepted + acc
            if rates:
                counts = _reconstruct(rates, n)
                per_position = counts if per_position is None else [a + b for a, b in zip(per_position, counts)]
        for block in self.blocks:
            missing = [key for key in ("num_drafts", "num_accepted_tokens") if key not in block]
            if missing:
                raise TraceError(f"a spec_decode summary without {missing[0]}")
            n = block["num_drafts"]
            rates = [block["rates"][i] for i in sorted(block["rates"])]
            if sorted(block["rates"]) != list(range(len(rates))):
                raise TraceError("the acceptance at token i lines skip a position")
            k = len(rates) or None
            if k is None and "num_draft_tokens" in block and n and block["num_draft_tokens"] % n == 0:
                k = block["num_draft_tokens"] // n
                notes.append(f"lookahead {k} read as num_draft_tokens / num_drafts")
            if lookahead is not None:
                if k is not None and k != lookahead and rates:
                    raise TraceError(f"the summary has {k} per-position rates but the lookahead given is {lookahead}")
                k = lookahead
            k = _need_lookahead(self.fmt, k, "no per-position rates")
            ks.add(k)
            if len(ks) > 1:
                raise TraceError(f"the summaries disagree on the lookahead ({min(ks)} and {max(ks)})")
            drafts += n
            draft_tokens += block.get("num_draft_tokens", n * k)
            accepted += block["num_accepted_tokens"]
            if rates:
                counts = _reconstruct(rates, n)
                per_position = counts if per_position is None else [a + b for a, b in zip(per_position, counts)]
        if not ks:
            raise TraceError("no SpecDecoding metrics line and no spec_decode summary found")
        k = ks.pop()
        count = len(self.records) + len(self.blocks)
        if count > 1:
            notes.insert(0, f"summed {count} log entries")
        if per_position is not None:
            notes.append("per-position counts rebuilt from the printed rates (rounded), so they are approximate")
        return _validated(Trace(self.fmt, k, drafts, draft_tokens, accepted,
                                tuple(per_position) if per_position is not None else None,
                                per_position is None, tuple(notes)), tolerance=per_position is not None)


_SGLANG = re.compile(r"accept len: (\S+?),")


class _SglangLog(_Accumulator):
    """SGLang's scheduler log: ``Decode batch. ..., accept len: %.2f, ...`` (``log_decode_stats`` in
    ``python/sglang/srt/managers/scheduler.py``). ``accept len`` is accepted tokens per verifier
    call counting the verifier's own token, so it is the mean acceptance length; SGLang prints no
    counts, so several lines are averaged unweighted and nothing has an interval."""

    fmt = "sglang-log"
    MARKERS = ("accept len:",)

    def __init__(self):
        self.values = []

    def line(self, text: str, number: int):
        if "accept len:" in text:
            match = _SGLANG.search(text + ",")
            value = float("nan")
            try:
                value = float(match.group(1)) if match else value
            except ValueError:
                pass
            if not math.isfinite(value) or value < 1:
                raise TraceError(f"line {number}: accept len {_short(match.group(1) if match else text, 30)!r} "
                                 f"is not a length of at least 1")
            self.values.append(value)

    def result(self, lookahead) -> Trace:
        if not self.values:
            raise TraceError("no SGLang 'accept len:' line found")
        k = _need_lookahead(self.fmt, lookahead, "SGLang prints only the mean acceptance length")
        mean = sum(self.values) / len(self.values)
        if mean > k + 1:
            raise TraceError(f"accept len {mean:.2f} exceeds k + 1 = {k + 1}: the lookahead {k} is too small")
        notes = [f"averaged {len(self.values)} accept len values (unweighted: SGLang prints no counts)"] \
            if len(self.values) > 1 else []
        notes.append("with tree drafting (topk > 1) the accept len is not a chain statistic")
        return Trace(self.fmt, k, None, None, None, None, False, tuple(notes), mean)


_LLAMA_SERVER = re.compile(r"draft acceptance(?: rate)? = (\S+) \(\s*(\S+) accepted /\s*(\S+) generated\)")
_LLAMA_PER_POS = re.compile(r"acceptance rate per position = \(([0-9., ]*)\)")
_LLAMA_EXAMPLE = re.compile(r"n_(drafted|accept)\s*=\s*(\S+)")
_LLAMA_N_DRAFT = re.compile(r"\bn_draft\s*=\s*(\S+)")


class _LlamaLog(_Accumulator):
    """llama.cpp. The server prints, per request, ``draft acceptance rate = %0.5f (%5d accepted /
    %5d generated)`` (``tools/server/server.cpp``); the speculative example prints ``n_drafted =
    %d`` and ``n_accept  = %d`` (``examples/speculative/speculative.cpp``). Both count tokens, not
    verifier calls: with the lookahead ``k`` the calls are estimated as drafted / k, which assumes
    every draft was k tokens long."""

    fmt = "llamacpp-log"
    MARKERS = ("draft acceptance", "n_draft", "n_accept")

    def __init__(self):
        self.accepted = self.drafted = 0
        self.entries = 0
        self.pending = {}
        self.positions = None
        self.n_draft = None  # the speculative example's n_draft: the most drafts per call, i.e. k

    def line(self, text: str, number: int):
        where = f"line {number}"
        server = _LLAMA_SERVER.search(text)
        if server:
            accepted = _count(server.group(2), "accepted", where)
            drafted = _count(server.group(3), "generated", where)
            self.accepted += accepted
            self.drafted += drafted
            self.entries += 1
            per_pos = _LLAMA_PER_POS.search(text)
            if per_pos:
                self.positions = len([x for x in per_pos.group(1).split(",") if x.strip()])
            return
        n_draft = _LLAMA_N_DRAFT.search(text)
        if n_draft:
            self.n_draft = _count(n_draft.group(1), "n_draft", where)
        for key, value in _LLAMA_EXAMPLE.findall(text):
            if key in self.pending:
                raise TraceError(f"{where}: n_{key} appears twice before its pair")
            self.pending[key] = _count(value, f"n_{key}", where)
            if len(self.pending) == 2:
                self.drafted += self.pending["drafted"]
                self.accepted += self.pending["accept"]
                self.entries += 1
                self.pending = {}

    def result(self, lookahead) -> Trace:
        if self.pending:
            raise TraceError(f"n_{next(iter(self.pending))} without its n_{'accept' if 'drafted' in self.pending else 'drafted'}")
        if not self.entries:
            raise TraceError("no llama.cpp draft acceptance line and no n_drafted/n_accept pair found")
        notes = [f"summed {self.entries} entries"] if self.entries > 1 else []
        if lookahead is None and self.positions:
            lookahead = self.positions
            notes.append(f"lookahead {lookahead} read from the per-position rates")
        if lookahead is None and self.n_draft:
            lookahead = _check_lookahead(self.n_draft) if self.n_draft <= MAX_LOOKAHEAD else None
            notes.append(f"lookahead {lookahead} read from n_draft")
        k = _need_lookahead(self.fmt, lookahead, "it counts tokens, not verifier calls")
        drafts = self.drafted / k
        notes.append(f"verifier calls estimated as drafted tokens / k = {drafts:g} (assumes full-length drafts)")
        return _validated(Trace(self.fmt, k, drafts, self.drafted, self.accepted, None, False, tuple(notes)))


class _TrtllmJson(_Accumulator):
    """TensorRT-LLM iteration statistics: each iteration's ``specDecodingStats`` object with
    ``numDraftTokens``, ``numAcceptedTokens``, ``numRequestsWithDraftTokens`` and
    ``acceptanceLength`` (struct ``SpecDecodingStats`` in ``cpp/include/tensorrt_llm/executor/
    types.h``, serialised by ``cpp/tensorrt_llm/executor/jsonSerialization.cpp``). Requests with
    a draft in an iteration are verifier calls; iterations without drafts are skipped. The
    objects may be one per line, inside a JSON array, or pretty-printed over several lines."""

    fmt = "trtllm-json"
    KEY = '"specDecodingStats"'

    def lines(self, batch, first_number: int):
        for offset, line in enumerate(batch):
            if self.buffer is not None or self.KEY in line:
                self.line(line, first_number + offset)

    def __init__(self):
        self.buffer = None
        self.drafts = self.draft_tokens = self.accepted = 0
        self.iterations = 0
        self.ratios = set()

    def line(self, text: str, number: int):
        while True:
            if self.buffer is None:
                start = text.find(self.KEY)
                if start < 0:
                    return
                self.buffer, self.start_line = "", number
                text = text[start + len(self.KEY):]
            self.buffer += text
            end = self.buffer.find("}")
            if end < 0:
                if len(self.buffer) > 4096:
                    raise TraceError(f"line {self.start_line}: specDecodingStats object never closes")
                return
            body, text = self.buffer[:end + 1], self.buffer[end + 1:]
            self.buffer = None
            self._object(body, self.start_line)

    def _object(self, body: str, number: int):
        where = f"line {number}"
        head = body.lstrip()
        if not head.startswith(":"):
            raise TraceError(f"{where}: specDecodingStats is not followed by an object")
        try:
            stats = json.loads(head[1:].strip())
        except ValueError:
            raise TraceError(f"{where}: cannot read the specDecodingStats object {_short(head[1:], 50)!r}") from None
        if not isinstance(stats, dict):
            raise TraceError(f"{where}: specDecodingStats is not an object")
        values = {}
        for key in ("numDraftTokens", "numAcceptedTokens", "numRequestsWithDraftTokens"):
            if key not in stats:
                raise TraceError(f"{where}: specDecodingStats has no {key}")
            values[key] = _count(str(stats[key]), key, where)
        drafted, accepted, requests = values.values()
        if drafted == 0:
            return
        if requests == 0:
            raise TraceError(f"{where}: {drafted} draft tokens but numRequestsWithDraftTokens is 0")
        self.drafts += requests
        self.draft_tokens += drafted
        self.accepted += accepted
        self.iterations += 1
        self.ratios.add(drafted / requests)

    def result(self, lookahead) -> Trace:
        if self.buffer is not None:
            raise TraceError(f"line {self.start_line}: specDecodingStats object never closes")
        if not self.iterations:
            raise TraceError("no specDecodingStats with draft tokens found")
        notes = [f"summed {self.iterations} iterations"] if self.iterations > 1 else []
        if lookahead is None and len(self.ratios) == 1 and next(iter(self.ratios)).is_integer():
            lookahead = int(next(iter(self.ratios)))
            notes.append(f"lookahead {lookahead} read as numDraftTokens / numRequestsWithDraftTokens")
        k = _need_lookahead(self.fmt, lookahead, "draft lengths vary between iterations")
        return _validated(Trace(self.fmt, k, self.drafts, self.draft_tokens, self.accepted, None, True, tuple(notes)))


class _Cycles(_Accumulator):
    """The plain format: one integer per verifier call, the drafts it accepted (0..k)."""

    fmt = "cycles"

    def __init__(self):
        self.histogram: dict[int, int] = {}

    def lines(self, batch, first_number: int):
        """Count identical lines first (a C-speed tally), then read each distinct line once."""
        tally = Counter(batch)
        for text, times in tally.items():
            stripped = text.strip()
            if stripped.isdigit() and stripped.isascii():
                value = int(stripped)
                self.histogram[value] = self.histogram.get(value, 0) + times
            else:
                self.line(text, first_number + batch.index(text))
                if times > 1 and stripped and not stripped.startswith("#"):
                    value = int(stripped)
                    self.histogram[value] = self.histogram.get(value, 0) + times - 1

    def line(self, text: str, number: int):
        stripped = text.strip()
        if not stripped or stripped.startswith("#"):
            return
        if not re.fullmatch(r"[+-]?\d+", stripped):
            raise TraceError(f"line {number}: {_short(stripped, 30)!r} is not an integer count of accepted drafts")
        value = int(stripped)
        if value < 0:
            raise TraceError(f"line {number}: negative count {value}")
        self.histogram[value] = self.histogram.get(value, 0) + 1

    def result(self, lookahead) -> Trace:
        k = _need_lookahead(self.fmt, lookahead, "one count per call does not say how many were drafted")
        if not self.histogram:
            raise TraceError("no verifier calls in the file")
        if max(self.histogram) > k:
            raise TraceError(f"a call accepted {max(self.histogram)} drafts but the lookahead is {k}")
        return cycles_to_trace(self.histogram, k)


def cycles_to_trace(histogram, lookahead: int) -> Trace:
    """A trace from a histogram ``{accepted drafts in one call: number of calls}``:
    ``c_i`` = calls that accepted at least ``i``.

    >>> cycles_to_trace({0: 1, 2: 2, 3: 1}, 3).perPosition
    (3, 3, 1)
    """
    calls = sum(histogram.values())
    per_position = tuple(sum(n for value, n in histogram.items() if value >= i) for i in range(1, lookahead + 1))
    accepted = sum(value * n for value, n in histogram.items())
    return _validated(Trace("cycles", lookahead, calls, calls * lookahead, accepted, per_position, True,
                            (f"{calls} verifier calls",)))


PARSERS = {"prometheus": _Prometheus, "vllm-log": _VllmLog, "sglang-log": _SglangLog,
           "llamacpp-log": _LlamaLog, "trtllm-json": _TrtllmJson, "cycles": _Cycles}


def _validated(trace: Trace, tolerance: bool = False) -> Trace:
    """Refuse counts that cannot come from one engine: name the inconsistency.

    ``tolerance`` allows the slack of per-position counts rebuilt from rounded rates."""
    k, n, drafted, accepted, c = trace.lookahead, trace.drafts, trace.draftTokens, trace.accepted, trace.perPosition
    if not n:
        raise TraceError("no drafts recorded: the trace has nothing to measure")
    if drafted is not None and accepted > drafted:
        raise TraceError(f"inconsistent counts: {accepted} accepted tokens but only {drafted} draft tokens")
    if drafted is not None and trace.exact and n > drafted:
        raise TraceError(f"inconsistent counts: {n:g} drafts but only {drafted} draft tokens")
    if accepted > k * n + 1e-9:
        raise TraceError(f"inconsistent counts: {accepted} accepted tokens exceed k x drafts = {k} x {n:g}")
    if c is not None:
        if c[0] > n:
            raise TraceError(f"inconsistent counts: position 1 accepted {c[0]} times in {n:g} drafts")
        for i in range(1, len(c)):
            if c[i] > c[i - 1]:
                raise TraceError(f"per-position counts increase: position {i + 1} accepted {c[i]} times, "
                                 f"position {i} only {c[i - 1]}")
        slack = len(c) * (0.0005 * n + 1) if tolerance else 0
        if abs(sum(c) - accepted) > slack:
            raise TraceError(f"per-position counts sum to {sum(c)}, not the accepted total {accepted}")
    return trace


# --- detection and the streaming front door -----------------------------------------------------

def detect_line(line: str) -> str | None:
    """The format one line belongs to, or None. Bare integers are ``cycles`` (only as the
    first readable line, see :class:`TraceParser`).

    >>> detect_line("vllm:spec_decode_num_drafts_total{engine=\\"0\\"} 4816.0")
    'prometheus'
    >>> detect_line("INFO [metrics.py:101] SpecDecoding metrics: Mean acceptance length: 2.87, ...")
    'vllm-log'
    """
    stripped = line.strip()
    if stripped.startswith("vllm:spec_decode_") or stripped.startswith(("# HELP vllm:spec_decode", "# TYPE vllm:spec_decode")):
        return "prometheus"
    if "SpecDecoding metrics:" in line or _VLLM_EXAMPLE.match(line):
        return "vllm-log"
    if "accept len:" in line:
        return "sglang-log"
    if _LLAMA_SERVER.search(line) or re.search(r"\bn_(drafted|accept|draft)\s*=", line):
        return "llamacpp-log"
    if "specDecodingStats" in line:
        return "trtllm-json"
    if re.fullmatch(r"\d+", stripped):
        return "cycles"
    return None


class TraceParser:
    """Feed text in chunks of any size (:meth:`feed`), then :meth:`finish`. Only the current
    partial line and the running counts are kept, so memory does not grow with the file.

    With ``fmt="auto"`` the first line that belongs to a format decides it; the lines before it
    are skipped (log noise, other metrics), except that a file of bare integers must start with
    one (a cycles file has nothing else in it).

    >>> parser = TraceParser(lookahead=3)
    >>> parser.feed("2\\n0\\n3")
    >>> parser.feed("\\n1\\n")
    >>> trace = parser.finish()
    >>> trace.format, trace.drafts, trace.accepted, trace.perPosition
    ('cycles', 4, 6, (3, 2, 1))
    """

    def __init__(self, fmt: str = "auto", lookahead=None):
        if fmt != "auto" and fmt not in PARSERS:
            raise TraceError(f"unknown format {fmt!r}; valid: auto, {', '.join(FORMATS)}")
        self.lookahead = _check_lookahead(lookahead)
        self.fmt = fmt
        self.accumulator = PARSERS[fmt]() if fmt != "auto" else None
        self.partial = ""
        self.number = 0
        self.first_unread = None
        self.bytes = 0

    def feed(self, text: str):
        self.bytes += len(text)
        text = self.partial + text
        lines = text.split("\n")
        self.partial = lines.pop()
        if len(self.partial) > SPLIT_LONG_LINE:  # one huge line (a JSON array): cut after a '}'
            cut = self.partial.rfind("}") + 1
            if cut > 0:
                lines.append(self.partial[:cut])
                self.partial = self.partial[cut:]
                self.number -= 1  # the pieces of one line keep its number
        index = 0
        while self.accumulator is None and index < len(lines):  # detection: one line at a time
            self.number += 1
            self._line(lines[index].rstrip("\r"))
            index += 1
        if index < len(lines):
            self.accumulator.lines(lines[index:] if index else lines, self.number + 1)
            self.number += len(lines) - index

    def _line(self, line: str):
        if self.accumulator is None:
            fmt = detect_line(line)
            if fmt == "cycles" and self.first_unread is not None:
                fmt = None
            if fmt is None:
                if self.first_unread is None and line.strip() and not line.lstrip().startswith("#"):
                    self.first_unread = (self.number, line)
                return
            self.fmt = fmt
            self.accumulator = PARSERS[fmt]()
        self.accumulator.line(line, self.number)

    def finish(self) -> Trace:
        if self.partial:
            self.number += 1
            line, self.partial = self.partial, ""
            self._line(line.rstrip("\r"))
        if self.accumulator is None:
            if self.first_unread is None:
                raise TraceError("the trace is empty")
            number, line = self.first_unread
            raise TraceError(f"unrecognised format (tried {', '.join(FORMATS)}); first line not read: "
                             f"line {number}: {_short(line)!r}")
        return self.accumulator.result(self.lookahead)


def parse(text: str, fmt: str = "auto", lookahead=None) -> Trace:
    """Parse a whole text (see :class:`TraceParser`).

    >>> parse("Accepted: 1", fmt="cycles", lookahead=2)
    Traceback (most recent call last):
    ...
    lab.traces.TraceError: line 1: 'Accepted: 1' is not an integer count of accepted drafts
    """
    parser = TraceParser(fmt, lookahead)
    parser.feed(text)
    return parser.finish()


# --- statistics --------------------------------------------------------------------------------

def wilson_interval(successes: float, trials: float, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a proportion: centre ``(p + z^2/2n) / (1 + z^2/n)``, half-width
    ``z sqrt(p(1-p)/n + z^2/4n^2) / (1 + z^2/n)``. It stays inside [0, 1] and is sensible at
    0 and n successes, where the textbook interval collapses.

    >>> [round(x, 4) for x in wilson_interval(0, 10)]
    [0.0, 0.2775]
    """
    if trials <= 0:
        return (0.0, 1.0)
    p = successes / trials
    z2 = z * z
    denominator = 1 + z2 / trials
    centre = (p + z2 / (2 * trials)) / denominator
    half = z * math.sqrt(max(0.0, p * (1 - p) / trials + z2 / (4 * trials * trials))) / denominator
    return (max(0.0, centre - half), min(1.0, centre + half))


def expected_accepted_iid(alpha: float, lookahead: int) -> float:
    """``alpha + alpha^2 + ... + alpha^k``: accepted drafts per call when each survives
    independently (the ledger's formula, summed the same way)."""
    total, power = 0.0, 1.0
    for _ in range(lookahead):
        power *= alpha
        total += power
    return total


def alpha_iid(mean_accepted: float, lookahead: int) -> float:
    """The alpha whose independent model accepts ``mean_accepted`` drafts per call at this
    lookahead: the root of ``sum_{i=1..k} alpha^i = mean_accepted`` (``tau - 1``), by bisection
    (the sum rises with alpha, so the root is unique), to within :data:`ALPHA_TOLERANCE`.

    >>> round(alpha_iid(expected_accepted_iid(0.74, 5), 5), 9)
    0.74
    """
    if mean_accepted <= 0:
        return 0.0
    if mean_accepted >= lookahead:
        return 1.0
    low, high = 0.0, 1.0
    for _ in range(200):
        middle = (low + high) / 2
        if middle in (low, high):
            break
        if expected_accepted_iid(middle, lookahead) < mean_accepted:
            low = middle
        else:
            high = middle
    low_gap = abs(expected_accepted_iid(low, lookahead) - mean_accepted)
    return low if low_gap <= abs(expected_accepted_iid(high, lookahead) - mean_accepted) else high


def alpha_mle(accepted: int, calls_with_rejection: int) -> float:
    """Maximum-likelihood alpha of the independent model, ``S / (S + R)``: each call is a run of
    survivals ended by a rejection or by the lookahead, so the likelihood is
    ``alpha^S (1 - alpha)^R`` with ``S`` accepted drafts and ``R`` calls that ended in a rejection.

    >>> alpha_mle(3, 1)
    0.75
    """
    total = accepted + calls_with_rejection
    return accepted / total if total else 0.0


def regularized_gamma_q(a: float, x: float) -> float:
    """The regularized upper incomplete gamma function ``Q(a, x) = Gamma(a, x) / Gamma(a)``:
    a series for ``P = 1 - Q`` when ``x < a + 1``, a continued fraction (modified Lentz) otherwise.

    >>> round(regularized_gamma_q(1, 2), 12) == round(math.exp(-2), 12)
    True
    """
    if a <= 0:
        raise ValueError("a must be positive")
    if x <= 0:
        return 1.0
    log_front = -x + a * math.log(x) - math.lgamma(a)
    if x < a + 1:
        term = total = 1.0 / a
        n = a
        for _ in range(10000):
            n += 1
            term *= x / n
            total += term
            if abs(term) < abs(total) * 1e-16:
                break
        return min(1.0, max(0.0, 1.0 - total * math.exp(log_front)))
    tiny = 1e-300
    b = x + 1 - a
    c = 1 / tiny
    d = 1 / b
    h = d
    for i in range(1, 10000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        delta = d * c
        h *= delta
        if abs(delta - 1) < 1e-16:
            break
    return min(1.0, max(0.0, math.exp(log_front) * h))


def chi_square_sf(statistic: float, df: int) -> float:
    """P(X >= statistic) for X chi-square with ``df`` degrees of freedom: ``Q(df/2, x/2)``.

    >>> round(chi_square_sf(3.841458820694124, 1), 9)
    0.05
    """
    if df <= 0:
        return 1.0
    return regularized_gamma_q(df / 2, max(0.0, statistic) / 2)


def _xlogy(x: float, y: float) -> float:
    return 0.0 if x == 0 else x * math.log(y)


def independence_test(drafts: int, per_position) -> dict:
    """Likelihood-ratio test of one constant conditional rate against one rate per position.

    At position ``i`` there are ``c_{i-1}`` trials and ``c_i`` survivals. Per position the MLE is
    ``c_i / c_{i-1}``; under independence it is ``S / (S + R)`` with ``R = N - c_k``. The statistic
    ``G = 2 (log L_positions - log L_constant)`` is chi-square with (positions with trials - 1)
    degrees of freedom when acceptance is independent of position.

    >>> independence_test(100, (50, 25, 12.5))["statistic"]
    0.0
    """
    trials = [drafts] + list(per_position[:-1])
    survived = list(per_position)
    accepted, rejected = sum(survived), drafts - survived[-1]
    constant = alpha_mle(accepted, rejected)
    log_positions = log_constant = 0.0
    used = 0
    for n, s in zip(trials, survived):
        if n <= 0:
            continue
        used += 1
        rate = s / n
        log_positions += _xlogy(s, rate) + _xlogy(n - s, 1 - rate)
        log_constant += _xlogy(s, constant) + _xlogy(n - s, 1 - constant)
    statistic = max(0.0, 2 * (log_positions - log_constant))
    if statistic < 1e-9 * max(1.0, accepted):  # float noise on an exactly constant curve
        statistic = 0.0
    df = max(0, used - 1)
    p_value = chi_square_sf(statistic, df)
    return {"statistic": statistic, "df": df, "pValue": p_value, "verdict": _verdict(p_value, df, per_position, trials)}


def _verdict(p_value: float, df: int, survived, trials) -> str:
    if df == 0:
        return "one position only: nothing to compare, independence cannot be tested"
    if p_value < 0.01:
        first, last = survived[0] / trials[0], (survived[-1] / trials[-1] if trials[-1] else 0)
        trend = "falls" if last < first else "rises"
        return (f"not independent: the chance of surviving {trend} with position more than chance allows "
                f"(p < 0.01), so one alpha misdescribes this trace")
    if p_value < 0.05:
        return "weak evidence against independence (0.01 <= p < 0.05)"
    return "consistent with independence: one constant rate explains these counts (p >= 0.05)"


# --- analysis ----------------------------------------------------------------------------------

def analyse(trace: Trace) -> dict:
    """Everything the page and the CLI report about one trace (rates as fractions in [0, 1]).

    ``meanAcceptanceLength = 1 + S / N`` (vLLM's convention: it counts the verifier's token),
    ``acceptanceRate = S / draft tokens``, ``perPosition[i] = c_i / N`` (the chance that the first
    i drafts all survived), ``conditional[i] = c_i / c_{i-1}``. Fields a format cannot give are
    None, and ``missing`` says why."""
    k = trace.lookahead
    missing = []
    if trace.meanLength is not None:
        tau = trace.meanLength
        mean_accepted = tau - 1
        rate = mean_accepted / k
        missing.append("SGLang prints no counts: no intervals, no per-position curve, no independence test")
    else:
        mean_accepted = trace.accepted / trace.drafts
        tau = 1 + mean_accepted
        rate = trace.accepted / trace.draftTokens if trace.draftTokens else None
    per_position = conditional = unconditional_ci = conditional_ci = None
    mle = independence = None
    c = trace.perPosition
    if c is not None:
        n = trace.drafts
        per_position = [ci / n for ci in c]
        unconditional_ci = [list(wilson_interval(ci, n)) for ci in c]
        trials = [n] + list(c[:-1])
        conditional = [ci / t if t else None for ci, t in zip(c, trials)]
        conditional_ci = [list(wilson_interval(ci, t)) if t else None for ci, t in zip(c, trials)]
        mle = alpha_mle(sum(c), n - c[-1])
        independence = independence_test(n, c)
    elif trace.meanLength is None:
        missing.append("no per-position counts: no curve, no alphaMle, no independence test")
    rate_ci = (list(wilson_interval(trace.accepted, trace.draftTokens))
               if trace.draftTokens and trace.accepted is not None and trace.exact else None)
    return {
        "format": trace.format,
        "formatName": FORMAT_NAMES[trace.format],
        "lookahead": k,
        "drafts": trace.drafts,
        "draftTokens": trace.draftTokens,
        "acceptedTokens": trace.accepted,
        "meanAcceptanceLength": tau,
        "acceptanceRate": rate,
        "acceptanceRateInterval": rate_ci,
        "perPosition": per_position,
        "perPositionIntervals": unconditional_ci,
        "conditional": conditional,
        "conditionalIntervals": conditional_ci,
        "alphaIid": alpha_iid(mean_accepted, k),
        "alphaMle": mle,
        "independence": independence,
        "exactCounts": trace.exact,
        "notes": list(trace.notes),
        "missing": missing,
    }


def measured_curve(analysis: dict) -> list[float]:
    """The conditional curve the ledger's measured-curve mode takes: ``conditional`` where it
    exists (a position nobody reached repeats the rate before it), else one alphaIid per position."""
    if analysis["conditional"] is None:
        return [analysis["alphaIid"]] * analysis["lookahead"]
    curve = []
    for rate in analysis["conditional"]:
        curve.append(rate if rate is not None else (curve[-1] if curve else 0.0))
    return curve


# --- the translator ----------------------------------------------------------------------------

def translate(lookahead: int, alpha=None, acceptance_rate=None, mean_acceptance_length=None) -> dict:
    """Any one of alpha, the engines' acceptance rate (accepted / drafted tokens) or the mean
    acceptance length gives the other two at lookahead ``k``, under the independent model:
    ``E = sum_{i=1..k} alpha^i``, ``rate = E / k``, ``tau = 1 + E``.

    >>> t = translate(5, alpha=0.74)
    >>> round(t["acceptanceRate"], 4), round(t["meanAcceptanceLength"], 4)
    (0.4429, 3.2146)
    """
    lookahead = _check_lookahead(lookahead)
    if lookahead is None:
        raise TraceError("the lookahead is required")
    given = [(name, value) for name, value in (("alpha", alpha), ("acceptanceRate", acceptance_rate),
                                                ("meanAcceptanceLength", mean_acceptance_length)) if value is not None]
    if len(given) != 1:
        raise TraceError("give exactly one of alpha, acceptance rate, mean acceptance length")
    name, value = given[0]
    if not isinstance(value, (int, float)) or isinstance(value, bool) or not math.isfinite(value):
        raise TraceError(f"{name} must be a finite number, got {value!r}")
    if name == "alpha":
        if not 0 <= value <= 1:
            raise TraceError(f"alpha must be from 0 to 1, got {value}")
        mean_accepted = expected_accepted_iid(value, lookahead)
        alpha_value = float(value)
    elif name == "acceptanceRate":
        if not 0 <= value <= 1:
            raise TraceError(f"the acceptance rate must be from 0 to 1, got {value}")
        mean_accepted = value * lookahead
        alpha_value = alpha_iid(mean_accepted, lookahead)
    else:
        if not 1 <= value <= lookahead + 1:
            raise TraceError(f"the mean acceptance length must be from 1 to k + 1 = {lookahead + 1}, got {value}")
        mean_accepted = value - 1
        alpha_value = alpha_iid(mean_accepted, lookahead)
    return {"lookahead": lookahead, "given": name, "alpha": alpha_value, "acceptanceRate": mean_accepted / lookahead,
            "meanAcceptanceLength": 1 + mean_accepted, "sglangAcceptLen": 1 + mean_accepted,
            "llamacppDraftAcceptanceRate": mean_accepted / lookahead}


# --- the exposition writer (for the round-trip check and tests) ----------------------------------

def render_exposition(drafts: int, draft_tokens: int, accepted: int, per_position,
                      label_sets=((("engine", "0"),),)) -> str:
    """Prometheus text exposition of the four vLLM counters, split over ``label_sets`` (a sequence
    of label-pair tuples); with several, each count is split as evenly as integers allow, and the
    parser must sum them back. Written the way prometheus_client writes counters: ``# HELP`` and
    ``# TYPE`` lines, ``_total`` samples and ``_created`` timestamps.

    >>> parse(render_exposition(10, 30, 12, (7, 4, 1))).perPosition
    (7, 4, 1)
    """
    sets = [tuple(pairs) for pairs in label_sets] or [()]

    def split(total: int) -> list[int]:
        share, extra = divmod(total, len(sets))
        return [share + (1 if i < extra else 0) for i in range(len(sets))]

    def labels(pairs) -> str:
        body = ",".join(f'{key}="{value}"' for key, value in pairs)
        return "{" + body + "}" if body else ""

    lines = []
    for metric, total, documentation in (("vllm:spec_decode_num_drafts", drafts, "Number of spec decoding drafts."),
                                         ("vllm:spec_decode_num_draft_tokens", draft_tokens, "Number of draft tokens."),
                                         ("vllm:spec_decode_num_accepted_tokens", accepted, "Number of accepted tokens.")):
        lines += [f"# HELP {metric}_total {documentation}", f"# TYPE {metric}_total counter"]
        for pairs, value in zip(sets, split(total)):
            lines.append(f"{metric}_total{labels(pairs)} {float(value)}")
            lines.append(f"{metric}_created{labels(pairs)} 1.7567367987e+09")
    metric = "vllm:spec_decode_num_accepted_tokens_per_pos"
    lines += [f"# HELP {metric}_total Accepted tokens per draft position.", f"# TYPE {metric}_total counter"]
    for position, total in enumerate(per_position):
        for pairs, value in zip(sets, split(total)):
            lines.append(f"{metric}_total{labels(pairs + (('position', str(position)),))} {float(value)}")
    return "\n".join(lines) + "\n"


# --- presets: public traces, each with where its numbers were read -------------------------------

PRESETS = {
    "club3090-mtp": {
        "title": "Qwen3.6-27B with MTP on vLLM 0.20.1, k = 6 (club-3090 #105)",
        "model": "Minachist/Qwen3.6-27B-Mixed-AutoRound, multi-token prediction (MTP) drafts, 2x RTX 3090",
        "method": "MTP", "temperature": "not stated in the lines read",
        "source": "noonghunna/club-3090 issue #105, two consecutive vLLM log lines (05-08 16:25:09 and 16:25:19)",
        "note": ("Two SpecDecoding metrics lines copied verbatim from the thread (the log of one session); the parser "
                 "sums them. The issue brief quotes another line of the thread (987 of 1584 drafted, per-position "
                 "0.917 ... 0.348); that line could not be found in the excerpts available, so it is not used."),
        "text": ("(APIServer pid=13026) INFO 05-08 16:25:09 [metrics.py:101] SpecDecoding metrics: Mean acceptance "
                 "length: 2.87, Accepted throughput: 48.90 tokens/s, Drafted throughput: 157.19 tokens/s, Accepted: "
                 "489 tokens, Drafted: 1572 tokens, Per-position acceptance rate: 0.740, 0.473, 0.309, 0.187, 0.099, "
                 "0.057, Avg Draft acceptance rate: 31.1%\n"
                 "(APIServer pid=13026) INFO 05-08 16:25:19 [metrics.py:101] SpecDecoding metrics: Mean acceptance "
                 "length: 2.72, Accepted throughput: 45.49 tokens/s, Drafted throughput: 158.98 tokens/s, Accepted: "
                 "455 tokens, Drafted: 1590 tokens, Per-position acceptance rate: 0.728, 0.445, 0.275, 0.151, 0.075, "
                 "0.042, Avg Draft acceptance rate: 28.6%\n"),
        "lookahead": None,
    },
    "vllm-26191-eagle3": {
        "title": "Llama-3.1-8B with EAGLE-3 on vLLM, MT-bench, temperature 0, k = 7 (vllm #26191)",
        "model": "meta-llama/Llama-3.1-8B-Instruct with yuhuili/EAGLE3-LLaMA3.1-Instruct-8B, 80 MT-bench prompts",
        "method": "EAGLE-3", "temperature": "0",
        "source": "vllm-project/vllm issue #26191, the 'Previous AL=3.53' output of examples/offline_inference/spec_decode.py",
        "note": ("Counts copied verbatim from the issue (num_drafts 4816, num_draft_tokens 33712, num_accepted_tokens "
                 "12208). The per-position lines that follow were cut off in the excerpt read, so this preset has "
                 "no curve: it shows what a format without per-position counts can and cannot tell."),
        "text": ("total_num_output_tokens: 16990\nnum_drafts: 4816\nnum_draft_tokens: 33712\n"
                 "num_accepted_tokens: 12208\nmean acceptance length: 3.53\n"),
        "lookahead": None,
    },
    "vllm-46878-eagle": {
        "title": "Llama-3-8B with EAGLE on vLLM, temperature 1, k = 4 (vllm PR 46878, unconfirmed)",
        "model": "Llama-3-8B with an EAGLE draft head", "method": "EAGLE", "temperature": "1",
        "source": "vllm-project/vllm pull request 46878, as quoted in the issue brief",
        "note": ("NOT CONFIRMED: the pull request could not be found with the search tools available, so these "
                 "numbers (82077 drafts, 328308 draft tokens, 81515 accepted, per-position 53.92%, 26.51%, 12.77%, "
                 "6.12%) are the brief's. They are self-consistent (328308 = 4 x 82077; the per-position rates "
                 "times 82077 sum to 81519, the accepted total within rounding). Written here in the spec_decode "
                 "example's summary shape; it is not a verbatim copy."),
        "text": ("num_drafts: 82077\nnum_draft_tokens: 328308\nnum_accepted_tokens: 81515\n"
                 "acceptance at token 0: 0.5392\nacceptance at token 1: 0.2651\n"
                 "acceptance at token 2: 0.1277\nacceptance at token 3: 0.0612\n"),
        "lookahead": None,
    },
}
DEFAULT_PRESET = "club3090-mtp"

# Spec-Bench leaderboard, A100 80GB, Vicuna-7B-v1.3, greedy, FP16, batch size 1: mean accepted tokens
# per decoding step (counting the verifier's token, 1.00 for plain decoding) and overall speedup.
# Read from hemingkx/Spec-Bench Leaderboard.md, section "Leaderboard on A100", table "Vicuna-7B-v1.3".
SPEC_BENCH = (
    ("EAGLE", 3.61, 2.29), ("Hydra", 3.24, 2.09), ("Medusa", 2.32, 1.78), ("PLD", 1.73, 1.59),
    ("SpS", 2.28, 1.49), ("REST", 1.82, 1.48), ("Lookahead", 1.66, 1.27),
)
SPEC_BENCH_SOURCE = "hemingkx/Spec-Bench, Leaderboard.md, Leaderboard on A100, Vicuna-7B-v1.3 (greedy, FP16, batch size 1)"


def preset_trace(name: str) -> Trace:
    """The parsed trace of a preset (:data:`PRESETS`)."""
    preset = PRESETS[name]
    return parse(preset["text"], "auto", preset["lookahead"])


def ledger_curve(value: str) -> tuple[list[float], str, bool]:
    """The ledger's ``trcCurve`` value as (conditional curve, label, linkable): a preset name
    (linkable), or ``custom:a1,a2,...`` from the reader's own data (not linkable: the address
    should not pretend it can reproduce a trace it does not carry).

    >>> ledger_curve("custom:0.9,0.5")
    ([0.9, 0.5], 'your own trace', False)
    """
    if value in PRESETS:
        return measured_curve(analyse(preset_trace(value))), PRESETS[value]["title"], True
    if isinstance(value, str) and value.startswith("custom:"):
        parts = value[len("custom:"):].split(",")
        if not 1 <= len(parts) <= MAX_LOOKAHEAD:
            raise TraceError(f"a curve has 1 to {MAX_LOOKAHEAD} rates, got {len(parts)}")
        return [_rate(part, "rate", "curve") for part in parts], "your own trace", False
    raise TraceError(f"{_short(str(value), 40)!r} is not a preset (valid: {', '.join(PRESETS)}) or a custom: curve")
