"""TensorRT-LLM: iteration statistics (``specDecodingStats``) and per-request perf metrics JSON.
"""

import math

from .common import (
    Format, Sample, Trace, TraceError, _Accumulator, _clean, _json_count, _json_loads, shortened, _validated,
    family,
)
from .vllm_json import _VllmRequestJson, _find_dicts


class _TrtllmRequestJson(_VllmRequestJson):
    """TensorRT-LLM's per-request performance metrics, as JSON: each request's
    ``speculative_decoding`` object with ``acceptance_rate``, ``total_accepted_draft_tokens`` and
    ``total_draft_tokens`` (``RequestPerfMetrics.speculative_decoding``, C++
    ``RequestPerfMetrics::SpeculativeDecodingMetrics``, filled by
    ``LlmRequest::updateNumTokensPerIteration``; returned with ``return_perf_metrics`` by the LLM
    API, by ``trtllm-serve``'s ``/perf_metrics`` endpoint and its perf-metrics JSON lines, the
    PyTorch flow's counters fixed in NVIDIA/TensorRT-LLM#17082). It is its own format, not the
    iteration stats: one record per request, summed over its iterations.

    It counts tokens, not verifier calls: with full-length drafts of k (the engine's
    ``max_draft_len``, given with ``--lookahead``) the calls are drafted / k; when drafted is not a
    multiple of k the drafts were shorter (a dynamic draft length, the end of the request) and
    drafted / k is only a lower bound. No per-position counts. ``first_iter`` and ``last_iter``,
    when printed, bound the iterations the request ran (a cross-check in the notes only: chunked
    prefill spreads the context phase over several)."""

    fmt = "trtllm-request-json"
    KEYS = ("total_accepted_draft_tokens",)

    def result(self, lookahead, model=None) -> Trace:
        found = [(line, record) for line, document in self._documents()
                 for record in _find_dicts(document, self.KEYS)]
        if not found:
            raise TraceError("no TensorRT-LLM speculative_decoding record (total_accepted_draft_tokens) in the JSON")
        k = self.need_lookahead(lookahead, "TensorRT-LLM's per-request metrics count tokens, not verifier calls")
        accepted = drafted = 0
        notes = []
        for line, record in found:
            where = f"line {line}"
            acc = _json_count(record["total_accepted_draft_tokens"], "total_accepted_draft_tokens", where)
            if "total_draft_tokens" not in record:
                raise TraceError(f"{where}: total_accepted_draft_tokens without total_draft_tokens")
            d = _json_count(record["total_draft_tokens"], "total_draft_tokens", where)
            rate = record.get("acceptance_rate")
            if d and isinstance(rate, (int, float)) and math.isfinite(rate) and abs(rate - acc / d) > 1e-6:
                notes.append(f"{where}: printed acceptance_rate {rate:.4f} is not accepted / drafted = {acc / d:.4f}")
            accepted, drafted = accepted + acc, drafted + d
        if not drafted:
            raise TraceError("the requests drafted no tokens")
        calls = drafted / k
        bound = not calls.is_integer()
        if bound:
            notes.append(f"{drafted} drafted tokens is not a multiple of k = {k}: some drafts were shorter, so "
                         f"drafted / k = {calls:.1f} is only a lower bound on the verifier calls")
        else:
            calls = int(calls)
            notes.append(f"verifier calls = drafted tokens / k = {calls}, which assumes full-length drafts of k "
                         f"(TensorRT-LLM prints no call count per request)")
        if len(found) > 1:
            notes.insert(0, f"summed {len(found)} requests (pooling weights long requests more)")
        if getattr(self, "cut", None):
            notes.append(f"line {self.cut} was cut off (the input stops inside it) and is not read")
        return _validated(Trace(self.fmt, k, calls, drafted, accepted, None, not bound, tuple(notes),
                                callsBound=bound))



class _TrtllmJson(_Accumulator):
    """TensorRT-LLM iteration statistics: each iteration's ``specDecodingStats`` object with
    ``numDraftTokens``, ``numAcceptedTokens``, ``numRequestsWithDraftTokens`` and
    ``acceptanceLength`` (struct ``SpecDecodingStats`` in ``cpp/include/tensorrt_llm/executor/
    types.h``, serialised by ``cpp/tensorrt_llm/executor/jsonSerialization.cpp``). Requests with
    a draft in an iteration are verifier calls; iterations without drafts, and iterations whose
    ``specDecodingStats`` is ``null`` (no speculative step in them), are skipped and counted in a
    note. The objects may be one per line, inside a JSON array, or pretty-printed over several
    lines."""

    fmt = "trtllm-json"
    KEY = '"specDecodingStats"'

    def lines(self, batch, first_number: int):
        for offset, line in enumerate(batch):
            if self.buffer is not None or self.KEY in line:
                self.line(_clean(line), first_number + offset)

    def __init__(self):
        self.buffer = None
        self.drafts = self.draft_tokens = self.accepted = 0
        self.iterations = 0
        self.null = self.empty = 0
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
            head = self.buffer.lstrip()
            if head.startswith(":") and head[1:].lstrip().startswith("null"):
                self.null += 1
                rest = head[1:].lstrip()[4:]
                self.buffer = None
                text = rest
                continue
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
            stats = _json_loads(head[1:].strip(), where)
        except TraceError as error:
            if "nested" in str(error) or "digits" in str(error):
                raise
            raise TraceError(f"{where}: cannot read the specDecodingStats object {shortened(head[1:])!r}") from None
        if not isinstance(stats, dict):
            raise TraceError(f"{where}: specDecodingStats is not an object")
        values = {}
        for key in ("numDraftTokens", "numAcceptedTokens", "numRequestsWithDraftTokens"):
            if key not in stats:
                raise TraceError(f"{where}: specDecodingStats has no {key}")
            values[key] = _json_count(stats[key], key, where)
        drafted, accepted, requests = values.values()
        if drafted == 0:
            self.empty += 1
            return
        if requests == 0:
            raise TraceError(f"{where}: {drafted} draft tokens but numRequestsWithDraftTokens is 0")
        self.drafts += requests
        self.draft_tokens += drafted
        self.accepted += accepted
        self.iterations += 1
        self.ratios.add(drafted / requests)

    def result(self, lookahead, model=None) -> Trace:
        cut = None
        if self.buffer is not None:
            if not self.iterations:
                raise TraceError(f"line {self.start_line}: specDecodingStats object never closes")
            cut = self.start_line  # the input stops inside its last object: read the complete ones
        if not self.iterations:
            raise TraceError("no specDecodingStats with draft tokens found"
                             + (f" ({self.null} null)" if self.null else ""))
        notes = [f"summed {self.iterations} iterations"] if self.iterations > 1 else []
        if self.null or self.empty:
            notes.append(f"skipped {self.null + self.empty} iteration(s) without drafts"
                         + (f" ({self.null} with specDecodingStats null)" if self.null else ""))
        if lookahead is None and len(self.ratios) == 1 and next(iter(self.ratios)).is_integer():
            lookahead = int(next(iter(self.ratios)))
            notes.append(f"lookahead {lookahead} read as numDraftTokens / numRequestsWithDraftTokens")
        k = self.need_lookahead(lookahead, "draft lengths vary between iterations")
        if self.draft_tokens < self.drafts * k:
            notes.append(f"drafts averaged {self.draft_tokens / self.drafts:.2f} tokens of at most k = {k}")
        if cut is not None:
            notes.append(f"the input ends inside the specDecodingStats object of line {cut}: it was cut off and is "
                         f"not read; the complete iterations before it are")
        return _validated(Trace(self.fmt, k, self.drafts, self.draft_tokens, self.accepted, None, True, tuple(notes)))


# --- the registry's rows (lab/traces/formats.py reads them; rank = detection order) ---------------------

_TYPES = "NVIDIA/TensorRT-LLM `cpp/include/tensorrt_llm/executor/types.h` (struct SpecDecodingStats)"

# Whose output these formats are, and a substring each of its speculative-decoding lines carries: the
# reader names another engine's lines met inside a trace by them (lab.traces.formats.ENGINE_MARKERS).
ENGINE = "TensorRT-LLM"
MARKERS = ('"specDecodingStats"',)

FORMATS = family(
    Format("trtllm-json", "TensorRT-LLM iteration stats JSON (specDecodingStats)", "TensorRT-LLM's iteration stats",
           _TrtllmJson, lambda line, stripped: "specDecodingStats" in line, 70, (
               Sample("trtllm_iteration_stats.json", None, None,
                      {"format": "trtllm-json", "lookahead": 4, "drafts": 5, "draftTokens": 20, "accepted": 10,
                       "perPosition": None},
                      f"written from {_TYPES}, serialised by `cpp/tensorrt_llm/executor/jsonSerialization.cpp`"),
               Sample("trtllm_null_stats.jsonl", None, None,
                      {"format": "trtllm-json", "lookahead": 3, "drafts": 4, "draftTokens": 12, "accepted": 5,
                       "perPosition": None},
                      "written from the same: an iteration whose `specDecodingStats` is `null`"),
           )),
    Format("trtllm-request-json", "TensorRT-LLM per-request perf metrics JSON (speculative_decoding: "
           "total_draft_tokens, total_accepted_draft_tokens; needs k)", "TensorRT-LLM's per-request metrics",
           _TrtllmRequestJson, lambda line, stripped: '"total_accepted_draft_tokens"' in line, 80, (
               # 50 drafted at k = 5 are 10 full-length calls, 42 accepted
               Sample("trtllm_request_perf.json", 5, None,
                      {"format": "trtllm-request-json", "lookahead": 5, "drafts": 10, "draftTokens": 50,
                       "accepted": 42, "perPosition": None},
                      "verbatim from ai-dynamo/dynamo `docs/backends/trtllm/prometheus.md` (\"Example "
                      "RequestPerfMetrics JSON Structure\", the `RequestPerfMetrics` of NVIDIA/TensorRT-LLM "
                      "`tensorrt_llm/executor/result.py`); an illustrative example, not a measured run: its printed "
                      "`acceptance_rate` 0.85 is not 42 / 50 = 0.84, which the reader's notes say"),
           ), whole_json=True),
)
