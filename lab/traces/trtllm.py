"""TensorRT-LLM: iteration statistics (``specDecodingStats``) and per-request perf metrics JSON.
"""

import math
import re

from .common import (
    Format, MAX_LOOKAHEAD, Sample, Trace, TraceError, _Accumulator, _check_lookahead, _choose, _clean, _json_count,
    _json_loads, _number, shortened, _validated, family,
)
from .prometheus import _PROM_LINE, _PROM_NAME_START, _prom_labels, _summed_fields
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
        if all("num_spec_steps" in record and "acceptance_histogram" in record for _, record in found):
            return self._steps(found, lookahead)
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

    def _steps(self, found, lookahead) -> Trace:
        """The per-choice record of NVIDIA/TensorRT-LLM#19311 ("Report per-request speculative-decoding
        acceptance on the response", 2026; its description's example): ``num_spec_steps`` (verify
        steps), ``acceptance_histogram`` (index j: the steps that accepted exactly j drafts, dense,
        ``num_spec_tokens`` + 1 long) and ``num_spec_tokens`` (k; null under a draft length
        schedule). Exact counts: calls = the steps, c_i = the steps that accepted i or more."""
        notes, ks = [], set()
        calls = drafted = accepted = 0
        per_position = None
        for line, record in found:
            where = f"line {line}"
            steps = _json_count(record["num_spec_steps"], "num_spec_steps", where)
            histogram = record["acceptance_histogram"]
            if not isinstance(histogram, list) or not histogram or len(histogram) > MAX_LOOKAHEAD + 1:
                raise TraceError(f"{where}: acceptance_histogram is not a list of 1 to {MAX_LOOKAHEAD + 1} counts")
            counts = [_json_count(x, "acceptance_histogram", where) for x in histogram]
            if sum(counts) != steps:
                raise TraceError(f"{where}: the acceptance_histogram counts {sum(counts)} steps, num_spec_steps {steps}")
            acc = _json_count(record["total_accepted_draft_tokens"], "total_accepted_draft_tokens", where)
            if sum(j * n for j, n in enumerate(counts)) != acc:
                raise TraceError(f"{where}: the acceptance_histogram accepts {sum(j * n for j, n in enumerate(counts))} "
                                 f"drafts, total_accepted_draft_tokens {acc}")
            if isinstance(record.get("num_spec_tokens"), int):
                ks.add(record["num_spec_tokens"])
            ks.add(len(counts) - 1)
            if "total_draft_tokens" not in record:
                raise TraceError(f"{where}: total_accepted_draft_tokens without total_draft_tokens")
            d = _json_count(record["total_draft_tokens"], "total_draft_tokens", where)
            k_here = len(counts) - 1
            here = [sum(counts[i:]) for i in range(1, k_here + 1)]
            if per_position is None or len(per_position) < k_here:
                per_position = (per_position or []) + [0] * (k_here - len(per_position or []))
            per_position = [a + (here[i] if i < len(here) else 0) for i, a in enumerate(per_position)]
            calls, drafted, accepted = calls + steps, drafted + d, accepted + acc
        k = max(ks) if lookahead is None else lookahead
        if k < len(per_position):
            raise TraceError(f"the histograms reach {len(per_position)} accepted drafts but the lookahead given is {k}")
        per_position += [0] * (k - len(per_position))
        if len(ks) > 1:
            notes.append(f"num_spec_tokens and histogram lengths differ ({', '.join(map(str, sorted(ks)))}): k = {k}")
        if len(found) > 1:
            notes.append(f"summed {len(found)} requests (pooling weights long requests more)")
        notes.append(f"{calls} verify steps (num_spec_steps) and the acceptance_histogram: exact counts")
        if drafted < calls * k:
            notes.append(f"drafts averaged {drafted / calls:.3f} tokens of at most k = {k} (a dynamic draft length): "
                         f"the per-position rates are over all steps")
        return _validated(Trace(self.fmt, k, calls, drafted, accepted, tuple(per_position), True, tuple(notes)))



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


_BENCH_MARKERS = ("DECODING STATISTICS", "[AL]", "[DAR]", "[DT]", "[ADT]", '"decoding_stats"')
_BENCH_HEADER = re.compile(r"^=\s*DECODING STATISTICS\s*\((.*)\)\s*$")
_BENCH_STAT = re.compile(r"^\s*\[(DT|ADT|DAR|AL)\]\s+(MINIMUM|MAXIMUM|AVERAGE|P50|P90|P95|P99)\s*:\s*(\S+)\s*$")


class _TrtllmBench(_Accumulator):
    """``trtllm-bench``'s DECODING STATISTICS block (``ReportUtility.report_statistics`` in
    NVIDIA/TensorRT-LLM ``tensorrt_llm/bench/dataclasses/reporting.py``, read at commit 02499765):
    percentiles over requests of ``[DT]`` draft tokens, ``[ADT]`` accepted draft tokens, ``[DAR]``
    draft acceptance rate and ``[AL]`` acceptance length, each ``f"[AL] {key.upper():<7}: {v:.2f}"``.
    Per request (``generate_statistics_summary``) AL = output tokens / (decode iterations + 1), so it
    counts the context phase's token too, DT = max_draft_len x (iterations + 1) and DAR = ADT / DT =
    (AL - 1) / max_draft_len; so the averages keep DAR = (AL - 1) / k (the same weights on both, also
    after NVIDIA/TensorRT-LLM#14998 weighted them by output length), which gives k where
    ``--lookahead`` does not. The ``[AL] AVERAGE`` is read as the mean acceptance length (per-request
    averaged, no counts, no intervals). Several blocks (runs) are one analysis each."""

    fmt = "trtllm-bench"

    def __init__(self):
        self.blocks = []
        self.report = None  # lines of --report_json's "decoding_stats" object, from its key on

    def lines(self, batch, first_number: int):
        for offset, line in enumerate(batch):
            if self.report is not None or any(marker in line for marker in _BENCH_MARKERS):
                self.line(_clean(line), first_number + offset)

    def line(self, text: str, number: int):
        if self.report is not None or '"decoding_stats"' in text:
            # --report_json writes the same statistics (get_statistics_dict): "decoding_stats": {"mode": ...,
            # "draft_acceptance_rate_percentiles": {..., "average": x}, "acceptance_length_percentiles": {...}}
            if self.report is None:
                self.report, self.report_line = [], number
            self.report.append(text)
            joined = "".join(self.report)
            if len(self.report) > 200 or "acceptance_length_percentiles" in joined and \
                    joined.count("{", joined.index('"decoding_stats"')) <= joined.count("}", joined.index('"decoding_stats"')):
                self._report(joined)
            return
        header = _BENCH_HEADER.match(text.strip())
        if header:
            self.blocks.append({"mode": header.group(1).strip(), "number": number})
            return
        stat = _BENCH_STAT.match(text)
        if not stat:
            return
        tag, key, value = stat.groups()
        if not self.blocks or (tag, key) in self.blocks[-1]:
            self.blocks.append({"mode": None, "number": number})  # quoted without its header, or a second run
        self.blocks[-1][(tag, key)] = _number(value, f"[{tag}] {key}", f"line {number}")

    def _report(self, joined: str):
        """The averages of --report_json's decoding_stats, as a block of the printed report."""
        self.report, block = None, {"mode": None, "number": self.report_line}
        for tag, key in (("AL", "acceptance_length_percentiles"), ("DAR", "draft_acceptance_rate_percentiles")):
            found = re.search(r'"' + key + r'"\s*:\s*\{[^{}]*?"average"\s*:\s*([-+0-9.eE]+)', joined)
            if found:
                block[(tag, "AVERAGE")] = _number(found.group(1), f"{key} average", f"line {self.report_line}")
        self.blocks.append(block)

    def result(self, lookahead, model=None) -> Trace:
        if self.report is not None:
            self._report("".join(self.report))  # the input ends inside the object: read what it holds
        blocks = [b for b in self.blocks if ("AL", "AVERAGE") in b]
        if not blocks:
            raise TraceError("a DECODING STATISTICS block without its [AL] AVERAGE line: the acceptance length is "
                             "missing")
        series = {f"run {i}": block for i, block in enumerate(blocks, 1)}
        name, block = _choose(series, model, "benchmark run")
        mean, rate = block[("AL", "AVERAGE")], block.get(("DAR", "AVERAGE"))
        notes = [f"{name} of {len(blocks)}"] if len(blocks) > 1 else []
        k = lookahead
        if rate is not None and mean > 1:
            fits = [n for n in range(1, MAX_LOOKAHEAD + 1) if abs((mean - 1) / n - rate) <= 0.005 + 0.005 / n + 1e-9]
            if k is None and len(fits) == 1:
                k = fits[0]
                notes.append(f"lookahead {k} read as ([AL] AVERAGE - 1) / [DAR] AVERAGE = {(mean - 1) / rate:.2f} "
                             f"(trtllm-bench's DAR = (AL - 1) / max_draft_len per request)")
            elif k is not None and fits and k not in fits:
                notes.append(f"[DAR] AVERAGE {rate:.2f} and [AL] AVERAGE {mean:.2f} fit k = "
                             f"{', '.join(map(str, fits))}, not the lookahead given, {k}")
        k = self.need_lookahead(k, "its [DAR] and [AL] averages fit no single k")
        _check_lookahead(k)
        if not 1 <= mean <= k + 1.005:
            raise TraceError(f"[AL] AVERAGE {mean} is outside 1 to k + 1 = {k + 1}")
        notes.append("trtllm-bench's acceptance length is each request's output tokens / its iterations, the context "
                     "phase's token and iteration included, averaged over requests: no counts, no intervals")
        return Trace(self.fmt, k, None, None, None, None, False, tuple(notes), min(mean, k + 1),
                     model=name if len(blocks) > 1 else None)


# trtllm-serve's /prometheus/metrics (NVIDIA/TensorRT-LLM ``tensorrt_llm/metrics/collector.py``, MetricsCollector,
# a 2026 version read through the code index): two counters with a ``token_position`` label (0-based), incremented
# per finished request from its perf metrics; Dynamo passes them through, some versions under ``trtllm:``
_TRTLLM_PROM = {"trtllm_spec_decode_drafted_tokens": "drafted", "trtllm_spec_decode_accepted_tokens": "accepted",
                "trtllm_spec_decode_num_draft_tokens": "draftTokens",
                "trtllm_spec_decode_num_accepted_tokens": "acceptedTokens",
                "trtllm_spec_decode_acceptance_length": "length"}


class _TrtllmMetrics(_Accumulator):
    """TensorRT-LLM's ``/prometheus/metrics`` (``trtllm-serve``; ``MetricsCollector`` in
    NVIDIA/TensorRT-LLM ``tensorrt_llm/metrics/collector.py``):
    ``trtllm_spec_decode_drafted_tokens_total{token_position="i"}`` and
    ``trtllm_spec_decode_accepted_tokens_total{token_position="i"}``, each request's drafted and
    accepted tokens at draft position i (0-based) added when it finishes (``log_request_metrics_dict``;
    the server needs ``return_perf_metrics``). A series is created at its first increment, so an
    accepted series missing below the last drafted position counts 0. The drafted tokens at position
    0 are the verifier calls that carried a draft, the accepted ones at i the calls whose first i + 1
    drafts all survived (vLLM's per-position counts), and the drafted ones at i the per-position
    denominators (drafts stop short of ``max_draft_len`` under a dynamic draft length). k is the
    highest position drafted + 1 unless ``--lookahead`` gives more.

    The iteration-stats counters of Dynamo's TensorRT-LLM pass-through
    (``trtllm_spec_decode_num_draft_tokens_total``, ``_num_accepted_tokens_total``, the
    ``acceptance_length`` gauge of the last iteration) count tokens only: with them alone the calls
    are drafted / k (``--lookahead``), a lower bound when drafts stop short."""

    fmt = "trtllm-metrics"
    MARKERS = ("trtllm_spec_decode_", "trtllm:spec_decode_")

    def __init__(self):
        self.series = {}  # (field, model, other labels, position) -> value
        self.declared = set()  # the families a '# TYPE' line declares
        self.created = set()   # the families whose _created samples were seen (written after their counts)
        self.cut = None

    def line(self, text: str, number: int):
        stripped = text.strip()
        if stripped.startswith("# TYPE"):
            self.declared.update(field for name, field in _TRTLLM_PROM.items() if name in stripped.replace(":", "_"))
        if not stripped or stripped.startswith("#"):
            return
        match = _PROM_LINE.match(stripped)
        if number == getattr(self, "unterminated", None) and (not match or not re.search(r"[.eE]", match.group(3))):
            self.cut = number  # prometheus_client writes every value with a '.' or an exponent: the paste stops here
            return
        if not match:
            if not _PROM_NAME_START.match(stripped):
                return
            raise TraceError(f"line {number}: not a Prometheus sample: {shortened(text)!r}")
        name = match.group(1).replace("trtllm:", "trtllm_", 1)
        if name.endswith("_created"):
            self.created.add(_TRTLLM_PROM.get(name[:-8]))
            return
        field = _TRTLLM_PROM.get(name[:-6] if name.endswith("_total") else name)
        if field is None:
            return
        where = f"line {number}"
        position, model, rest = None, "", []
        for key, value in _prom_labels(match.group(2) or "", where):
            if key == "token_position":
                if not (value.isascii() and value.isdigit()) or len(value) > 3 or int(value) >= MAX_LOOKAHEAD:
                    raise TraceError(f"{where}: token_position {shortened(value, 20)!r} is not an integer from 0 to "
                                     f"{MAX_LOOKAHEAD - 1}")
                position = int(value)
            elif key in ("model_name", "model"):
                model = value
            else:
                rest.append((key, value))
        if field in ("drafted", "accepted") and position is None:
            raise TraceError(f"{where}: {name} has no token_position label")
        if len(self.series) > 100_000:
            raise TraceError("more than 100,000 TensorRT-LLM series in the exposition; paste one model's scrape")
        value = _number(match.group(3), name, where) if field == "length" else _json_count(
            _number(match.group(3), name, where), name, where)
        self.series[(field, model, tuple(rest), position)] = value  # a repeated series keeps its last value

    def result(self, lookahead, model=None) -> Trace:
        models = {}
        for key, value in self.series.items():
            models.setdefault(key[1] or "(no model_name label)", {})[key] = value
        if not models:
            raise TraceError("no trtllm_spec_decode_* counters in the exposition")
        name, series = _choose(models, model, "model")
        notes = [f"model {name} (chosen of {len(models)})"] if len(models) > 1 else []
        label_sets = {labels for (_, _, labels, _) in series}
        if len(label_sets) > 1:
            notes.append(f"summed {len(label_sets)} label sets of one model (workers, ranks)")
        totals = {"draftTokens": 0, "acceptedTokens": 0}
        (drafted, accepted), (lengths,) = _summed_fields(series, ("drafted", "accepted"), ("length",), totals)
        label = name if len(models) > 1 else None
        if self.cut is not None:
            notes.append(f"the last line (line {self.cut}) ends without a newline inside its sample: it looks cut off "
                         f"and is not read")
        if drafted and ("drafted" in self.created and "accepted" not in self.created and accepted
                        or not accepted and (self.cut is not None or "accepted" not in self.declared)):
            # prometheus_client writes a family's counts, then its _created samples, drafted before accepted: the
            # accepted family's end is missing, or the family itself, so its counts cannot be read as complete
            raise TraceError("the scrape stops inside or before trtllm_spec_decode_accepted_tokens (no accepted "
                             "series, or not its _created lines that follow the counts): paste the whole scrape")
        if drafted and not accepted:
            notes.append("no accepted series, and the family is declared: nothing was accepted (a series exists once "
                         "incremented)")
        if drafted:
            return self._positions(drafted, accepted, lookahead, notes, label)
        if accepted:
            raise TraceError("the exposition has trtllm_spec_decode_accepted_tokens but no drafted_tokens series: "
                             "paste the whole scrape")
        return self._tokens(totals, lengths, lookahead, notes, label)

    def _positions(self, drafted, accepted, lookahead, notes, label) -> Trace:
        highest = max(drafted) + 1
        k = highest if lookahead is None else lookahead
        if highest > k:
            raise TraceError(f"the exposition has drafted tokens at {highest} positions but the lookahead given is {k}")
        if max(accepted, default=-1) >= highest:
            raise TraceError(f"token_position {max(accepted)} has accepted tokens but none drafted")
        d = [drafted.get(p, 0) for p in range(k)]
        c = [accepted.get(p, 0) for p in range(k)]
        calls = d[0]
        if not calls:
            raise TraceError("no tokens drafted at token_position 0: the counters record no verifier call")
        notes.append("trtllm-serve's per-position counters (token_position 0 to "
                     f"{highest - 1}): calls = drafted tokens at position 0 = {calls}; counted per finished request")
        if lookahead is None:
            notes.append(f"k = {k}, the highest position drafted + 1 (--lookahead gives max_draft_len if no draft "
                         f"ever reached it)")
        missing = [p for p in range(highest) if p not in drafted]
        if missing:
            notes.append("no drafted series at token_position " + ", ".join(map(str, missing[:8]))
                         + ": read as 0 (a series exists once incremented)")
        unaccepted = [p for p in range(highest) if p not in accepted]
        if unaccepted and accepted:
            notes.append("no accepted series at token_position " + ", ".join(map(str, unaccepted[:8]))
                         + ": read as 0 (TensorRT-LLM creates a series at its first increment; if the paste was cut "
                           "there, paste the whole scrape)")
        full = all(x == calls for x in d)
        if not full:
            notes.append("drafts stop short of k (a dynamic draft length): the per-position rates use the drafted "
                         "tokens at each position as denominators")
        return _validated(Trace(self.fmt, k, calls, sum(d), sum(c), tuple(c), True, tuple(notes),
                                draftsPerPosition=None if full else tuple(d), model=label))

    def _tokens(self, totals, lengths, lookahead, notes, label) -> Trace:
        drafted, accepted = totals["draftTokens"], totals["acceptedTokens"]
        if not drafted:
            raise TraceError("the trtllm_spec_decode counters record no draft tokens")
        k = self.need_lookahead(lookahead, "its num_draft_tokens counter counts tokens, not verifier calls")
        _check_lookahead(k)
        calls = drafted / k
        notes.append(f"no per-position counters (trtllm_spec_decode_drafted_tokens_total{{token_position}}): "
                     f"drafted / k = {calls:g} is the FEWEST verifier calls these tokens allow (drafts can stop "
                     f"short of max_draft_len); the mean acceptance length and alpha shown are upper bounds")
        if lengths:
            notes.append("trtllm_spec_decode_acceptance_length is a gauge of the last iteration ("
                         + ", ".join(f"{x:.2f}" for x in lengths[:4]) + "): not used")
        return _validated(Trace(self.fmt, k, calls, drafted, accepted, None, False, tuple(notes), callsBound=True,
                                model=label))


def _trtllm_exposition(stripped: str) -> bool:
    return stripped.startswith(("trtllm_spec_decode_", "trtllm:spec_decode_", "# HELP trtllm_spec_decode",
                                "# TYPE trtllm_spec_decode", "# HELP trtllm:spec_decode", "# TYPE trtllm:spec_decode"))


# --- the registry's rows (lab/traces/formats.py reads them; rank = detection order) ---------------------

_TYPES = "NVIDIA/TensorRT-LLM `cpp/include/tensorrt_llm/executor/types.h` (struct SpecDecodingStats)"

# Whose output these formats are, and a substring each of its speculative-decoding lines carries: the
# reader names another engine's lines met inside a trace by them (lab.traces.formats.ENGINE_MARKERS).
ENGINE = "TensorRT-LLM"
MARKERS = ('"specDecodingStats"', "DECODING STATISTICS", "trtllm_spec_decode_")
# TensorRT-LLM's OpenAI responses carry avg_decoded_tokens_per_iter on each choice (trtllm-serve, and its mean in
# benchmark_serving's result.json): one request's tokens per iteration, no counts, named when nothing else is read
HINTS = (
    ("avg_decoded_tokens_per_iter", "TensorRT-LLM's avg_decoded_tokens_per_iter is one request's (or a benchmark's mean) "
                                    "tokens per iteration, not acceptance counts: paste the choice's "
                                    "speculative_decoding object (return_perf_metrics), trtllm-serve's "
                                    "/prometheus/metrics or its iteration stats, or paste 'Mean acceptance length: "
                                    "X' with --lookahead K (the figure counts the context iteration too)"),
)

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
    Format("trtllm-metrics", "TensorRT-LLM /prometheus/metrics (trtllm_spec_decode_drafted_tokens and "
           "accepted_tokens by token_position)", "TensorRT-LLM's /metrics", _TrtllmMetrics,
           lambda line, stripped: _trtllm_exposition(stripped), 13, (
               # drafted at positions 0..3: 120, 120, 118, 118 (two requests stopped short at the end); accepted
               # 96, 71, 50, 33 (sum 250); calls = drafted at position 0 = 120
               Sample("trtllm_metrics.prom", None, None,
                      {"format": "trtllm-metrics", "lookahead": 4, "drafts": 120, "draftTokens": 476,
                       "accepted": 250, "perPosition": (96, 71, 50, 33), "draftsPerPosition": (120, 120, 118, 118)},
                      "written from NVIDIA/TensorRT-LLM `tensorrt_llm/metrics/collector.py` (MetricsCollector, "
                      "`spec_decode_drafted_tokens_total` and `spec_decode_accepted_tokens_total` with "
                      "`token_position`, a 2026 version read through the code index) as prometheus_client writes "
                      "counters (`_total`, `_created`); no scrape of a real run was found in a public thread"),
           )),
    Format("trtllm-bench", "trtllm-bench DECODING STATISTICS block ([AL] and [DAR] percentiles over requests)",
           "trtllm-bench's decoding statistics", _TrtllmBench,
           lambda line, stripped: bool(_BENCH_HEADER.match(stripped)) or '"decoding_stats"' in line
           or bool(_BENCH_STAT.match(line)) and stripped.startswith(("[AL]", "[DAR]")), 75, (
               # one request: 100 output tokens in 40 iterations at max_draft_len 3: AL = 2.50, DT = 120, ADT = 60,
               # DAR = 0.50; every percentile of one value is that value
               Sample("trtllm_bench.txt", None, None, {"format": "trtllm-bench", "lookahead": 3,
                                                        "meanAcceptanceLength": 2.5},
                      "written from NVIDIA/TensorRT-LLM `tensorrt_llm/bench/dataclasses/reporting.py` at commit "
                      "0249976575050d2c624a5f285683c66de311a3b7 (`report_statistics`, `generate_statistics_summary`) "
                      "for one request; no trtllm-bench block of a real run was found in a public thread"),
           )),
)
