"""SGLang: the log (Decode batch lines, bench_serving's Accept length) and the per-request JSON
(meta_info, sglext spec_tokens_details).
"""

import ast
import math
import re

from .common import (
    Format, MAX_LOOKAHEAD, Sample, Trace, TraceError, _Accumulator, _DECIMAL, _check_lookahead, _json_count,
    _json_loads, _number, _rate, shortened, _validated, family,
)
from .vllm_json import _VllmRequestJson, _find_dicts, _histogram_counts
from .prometheus import _PROM_LINE, _prom_labels
from .plain import cycles_to_trace


class _SglangJson(_VllmRequestJson):
    """SGLang's per-request speculative decoding counters, as JSON: the ``meta_info`` of a native
    ``/generate`` response, or ``sglext.spec_tokens_details`` of an OpenAI-style response (a list
    when ``n > 1``; sgl-project/sglang#33518, "add sglext_spec", asked for with
    ``return_spec_tokens_details``). Field names by version, read in sgl-project/sglang pull
    requests #3152 (``spec_verify_ct``, 2025-01), #11441 (``spec_accept_rate``,
    ``spec_accept_length``), #13754 (``spec_accept_token_num``, ``spec_draft_token_num``), #18332
    (``spec_accept_histogram``) and #33518 (``spec_num_correct_drafts``,
    ``spec_num_proposed_drafts``, ``spec_correct_drafts_histogram``):

    * calls = ``spec_verify_ct`` (verify passes of the request);
    * accepted drafts = ``spec_num_correct_drafts`` (older: ``spec_accept_token_num``);
    * drafted = ``spec_num_proposed_drafts`` (older: ``spec_draft_token_num``, which counted the
      verified root too, ``speculative_num_draft_tokens`` = k + 1 per call, so the drafted tokens
      and the rate are then read as calls x k);
    * ``spec_correct_drafts_histogram`` (older: ``spec_accept_histogram``): ``h[j]`` = calls that
      accepted exactly j drafts: an exact cycles histogram, so the per-position curve is exact.

    ``spec_accept_length`` is checked against 1 + accepted / calls: older versions printed
    ``completion_tokens / spec_verify_ct``, which also counts the token of the prefill pass (the
    note says so). The lookahead is the histogram's last bucket (it has k + 1) unless
    ``--lookahead`` says otherwise; without a histogram it is proposed drafts / calls. Requests are
    summed; with tree drafting (topk > 1) none of this is a chain statistic."""

    fmt = "sglang-json"
    KEYS = ("spec_verify_ct",)

    def __init__(self):
        super().__init__()
        self.numbers = []

    def _documents(self):
        """JSON, or the Python dicts SGLang's request log prints (``Finish: obj=GenerateReqInput(...),
        out={... 'meta_info': {..., 'spec_verify_ct': 30, ...}}`` with ``--log-requests``,
        sgl-project/sglang#11144 and #18332), read as literals, never run."""
        if any(_REPR_KEY in part for part in self.parts) and not any('"spec_verify_ct"' in part for part in self.parts):
            return self._repr_documents()
        try:
            return super()._documents()
        except TraceError as error:
            if "not JSON" not in str(error):
                raise
            refusal = error
        # a server log with JSON request-log lines among its other lines (--log-requests-format json, a timestamp
        # before the object): each line holding "spec_verify_ct" from its first '{', the other lines skipped
        found = []
        for index, text in enumerate(self.parts):
            if '"spec_verify_ct"' in text and "{" in text:
                number = self.numbers[index] if index < len(self.numbers) else self.first + index
                found.append((number, _json_loads(text[text.index("{"):].strip().rstrip(","), f"line {number}")))
        if not found:
            raise refusal
        return found

    def line(self, text: str, number: int):
        super().line(text, number)
        self.numbers.append(number)  # the request log's lines come with others between them (_SglangLog)

    def _repr_documents(self):
        whole, found, start = "\n".join(self.parts), [], 0
        counted, row = 0, 0  # line breaks counted up to `counted`: each stretch once, so the scan stays linear
        while (key := whole.find(_REPR_KEY, start)) >= 0:
            row, counted = row + whole.count("\n", counted, key), key
            number = self.numbers[row]
            opening = _enclosing_brace(whole, key)
            closing = _closing_brace(whole, opening) if opening is not None else None
            if closing is not None and closing < key:
                closing = None  # a brace inside a quoted string misled the backward search: the dict is not whole
            if closing is None:
                if number == getattr(self, "unterminated", None) and found:
                    self.cut = number  # the paste stops inside the dict: read the complete ones
                    break
                raise TraceError(f"line {number}: the dict holding 'spec_verify_ct' does not close (or is over "
                                 f"{_REPR_LIMIT >> 10} KB)")
            try:
                found.append((number, ast.literal_eval(whole[opening:closing + 1])))
            except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
                raise TraceError(f"line {number}: the dict holding 'spec_verify_ct' is not a Python literal: "
                                 f"{shortened(whole[opening:closing + 1])!r}") from None
            start = closing + 1  # past the key (closing > key), so each key is read once
        return found

    @staticmethod
    def _spec_part(document):
        """An OpenAI-style response asked for both ``return_meta_info`` and
        ``return_spec_tokens_details`` carries each request's counters twice (in each choice's
        ``meta_info`` and in ``sglext``): read ``sglext`` alone then."""
        if isinstance(document, dict) and isinstance(document.get("sglext"), dict) \
                and document["sglext"].get("spec_tokens_details"):
            return document["sglext"]["spec_tokens_details"]
        return document

    def result(self, lookahead, model=None) -> Trace:
        requests = [(line, found) for line, document in self._documents()
                    for found in _find_dicts(self._spec_part(document), self.KEYS)]
        if not requests:
            raise TraceError("no SGLang spec_verify_ct in the JSON")
        tally = _CounterTally()
        for line, request in requests:
            _add_counters(request, f"line {line}", tally)
        if not tally.calls:
            raise TraceError("every request has spec_verify_ct 0: no verify pass to read")
        notes = tally.notes
        k = self.need_lookahead(_counters_lookahead(tally, lookahead),
                                "no histogram, and the drafted tokens are not a whole number per call")
        _check_lookahead(k)
        drafted = _counters_drafted(tally, k)
        if tally.old_mean:
            notes.append("accepted drafts read as completion_tokens - spec_verify_ct (SGLang of 2025-01 prints no "
                         "accepted count; the prefill pass's token makes this one too many per request)")
        used = len(requests) - tally.idle
        if used > 1:
            notes.insert(0, f"summed {used} requests (pooling weights long requests more)")
        if tally.idle:
            notes.append(f"{tally.idle} request(s) with spec_verify_ct 0 skipped")
        if getattr(self, "cut", None):
            notes.append(f"line {self.cut} was cut off (the input stops inside it) and is not read")
        histogram, histograms = tally.histogram, tally.histograms
        if histograms == used and histogram:
            if max(histogram) > k:
                raise TraceError(f"a call accepted {max(histogram)} drafts but the lookahead is {k}")
            trace = cycles_to_trace(histogram, k)
            notes.append("per-position counts exact, from the accepted-drafts histograms")
            return _validated(trace._replace(format=self.fmt, draftTokens=max(drafted, trace.accepted),
                                             notes=tuple(notes) + trace.notes))
        if histograms:
            notes.append(f"{used - histograms} request(s) without a histogram: no per-position curve")
        return _validated(Trace(self.fmt, k, tally.calls, drafted, tally.accepted, None, True, tuple(notes)))


class _CounterTally:
    """What :meth:`_SglangJson.result` adds up over the requests: calls, accepted and drafted tokens, the summed
    histogram (and how many requests gave one), the lookaheads the requests imply, the requests without a verify
    pass, those read the 2025-01 way, whether a drafted count includes the verified root, and the notes."""

    def __init__(self):
        self.histogram: dict[int, int] = {}
        self.calls = self.accepted = self.drafted = 0
        self.root_counted, self.histograms, self.lengths, self.notes, self.old_mean, self.idle = \
            False, 0, set(), [], [], 0
        self.root_sums = [0, 0]  # calls and spec_draft_token_num of the requests that print it


def _add_counters(request: dict, where: str, tally: _CounterTally):
    """Add one request's counters to ``tally``: its calls (none: skipped and counted), accepted drafts (from its
    histogram, its accepted count, or completion_tokens - calls), drafted tokens, and a printed spec_accept_length
    that disagrees (noted)."""
    n = _json_count(request["spec_verify_ct"], "spec_verify_ct", where)
    if n == 0:
        tally.idle += 1  # a request finished before any verify pass (or without speculation)
        return
    acc = _accepted_drafts(request, n, where, tally)
    drafted_key = next((key for key in ("spec_num_proposed_drafts", "spec_draft_token_num") if key in request),
                       None)
    if drafted_key is not None:
        d = _json_count(request[drafted_key], drafted_key, where)
        tally.root_counted |= drafted_key == "spec_draft_token_num"
        if drafted_key == "spec_draft_token_num":
            tally.root_sums[0], tally.root_sums[1] = tally.root_sums[0] + n, tally.root_sums[1] + d
        tally.drafted += d
        if d % n == 0:
            tally.lengths.add(d // n - (1 if drafted_key == "spec_draft_token_num" else 0))
    printed = request.get("spec_accept_length")
    if isinstance(printed, (int, float)) and math.isfinite(printed) and abs(printed - (1 + acc / n)) > 1e-6:
        tally.notes.append(f"{where}: printed spec_accept_length {printed:.4f} is not 1 + accepted / calls = "
                           f"{1 + acc / n:.4f} (older SGLang printed completion_tokens / spec_verify_ct, which "
                           f"also counts the prefill pass's token)")
    tally.calls, tally.accepted = tally.calls + n, tally.accepted + acc


def _accepted_drafts(request: dict, n: int, where: str, tally: _CounterTally) -> int:
    """A request's accepted drafts: from its histogram (added to ``tally``'s, checked against its calls ``n`` and
    its printed accepted count), else its accepted count, else completion_tokens - calls (2025-01)."""
    acc_key = next((key for key in ("spec_num_correct_drafts", "spec_accept_token_num") if key in request), None)
    hist_key = next((key for key in ("spec_correct_drafts_histogram", "spec_accept_histogram")
                     if request.get(key)), None)
    if hist_key is not None:
        counts = _histogram_counts(request[hist_key], hist_key, where)
        if sum(counts.values()) != n:
            raise TraceError(f"{where}: {hist_key} counts {sum(counts.values())} calls, spec_verify_ct {n}")
        for j, c in counts.items():
            tally.histogram[j] = tally.histogram.get(j, 0) + c
        tally.histograms += 1
        tally.lengths.add(len(request[hist_key]) - 1)
        acc = sum(j * c for j, c in counts.items())
        if acc_key is not None and _json_count(request[acc_key], acc_key, where) != acc:
            tally.notes.append(f"{where}: {acc_key} {request[acc_key]} disagrees with its histogram ({acc})")
        return acc
    if acc_key is not None:
        return _json_count(request[acc_key], acc_key, where)
    if "completion_tokens" in request:  # 2025-01 (#3152): only the verify count and the tokens
        acc = _json_count(request["completion_tokens"], "completion_tokens", where) - n
        tally.old_mean.append(where)
        if acc < 0:
            raise TraceError(f"{where}: completion_tokens is below spec_verify_ct")
        return acc
    raise TraceError(f"{where}: spec_verify_ct without spec_num_correct_drafts or a histogram")


def _counters_lookahead(tally: _CounterTally, lookahead):
    """The lookahead given, else the histogram's last bucket and proposed drafts / calls, else proposed drafts /
    calls when the requests agree on it (noted); None when nothing says."""
    k = lookahead
    if k is None:
        if tally.histograms:
            # the histogram has k + 1 buckets (0..k accepted); proposed / calls is k in the same versions
            k = max([max(tally.histogram, default=0)] + [n for n in tally.lengths if n <= MAX_LOOKAHEAD]) or None
            if k is not None:
                tally.notes.append(f"lookahead {k} read from the histogram's buckets and proposed drafts / calls")
        elif len(tally.lengths) == 1:
            k = tally.lengths.pop()
            tally.notes.append(f"lookahead {k} read as proposed drafts / spec_verify_ct")
    return k


def _counters_drafted(tally: _CounterTally, k: int) -> int:
    """The drafted tokens: as printed, or calls x k where the printed count includes the verified root (or none is
    printed), noted."""
    if tally.root_counted and tally.histograms and tally.root_sums[1] == tally.root_sums[0] * k:
        # a version with the histogram counts k per call (a test's response: 120 = 30 x 4, 5 buckets)
        tally.notes.append(f"spec_draft_token_num is k = {k} per call here (the histogram's version): read as printed")
    elif tally.root_counted:
        tally.notes.append(f"spec_draft_token_num counts the verified root with the drafts (k + 1 per call in these "
                           f"versions): the drafted tokens are read as calls x k = {tally.calls * k}")
        return tally.calls * k
    elif tally.drafted == 0:
        return tally.calls * k
    return tally.drafted


_REPR_KEY = "'spec_verify_ct'"
_REPR_LIMIT = 1 << 20  # a request's meta_info dict is read when it closes within this many characters


def _enclosing_brace(text: str, index: int) -> int | None:
    """The '{' that opens the dict holding ``text[index]`` (searched back at most :data:`_REPR_LIMIT`).

    >>> _enclosing_brace("{'a': {'b': 1}, 'spec_verify_ct': 3}", 16)
    0
    """
    depth = 0
    for j in range(index - 1, max(-1, index - _REPR_LIMIT), -1):
        if text[j] == "}":
            depth += 1
        elif text[j] == "{":
            if depth == 0:
                return j
            depth -= 1
    return None


def _closing_brace(text: str, opening: int) -> int | None:
    """The index of the '}' that closes the dict opened at ``opening``, skipping quoted strings.

    >>> _closing_brace("{'a': '}', 'b': {1: 2}} tail", 0)
    22
    """
    depth, quote, escaped = 0, None, False
    for j in range(opening, min(len(text), opening + _REPR_LIMIT)):
        c = text[j]
        if quote:
            if escaped:
                escaped = False
            elif c == "\\":
                escaped = True
            elif c == quote:
                quote = None
        elif c in "'\"":
            quote = c
        elif c in "{[(":
            depth += 1
        elif c in "}])":
            depth -= 1
            if depth == 0:
                return j if c == "}" else None
    return None


_SGLANG_LEN = re.compile(r"accept len: (\S+?)(?:,|$)")
_SGLANG_BENCH = re.compile(r"^\s*Accept length:\s*(\S+)\s*$")  # sglang.bench_serving's result table
_SGLANG_RATE = re.compile(r"accept rate: (\S+?)(?:,|$)")
# benchmark/mtbench/bench_sglang_eagle.py (and its copies for other datasets): '#questions: %d, Throughput:
# %.2f token/s, Acceptance length: %.2f', the length = completion tokens / spec_verify_ct over the run
_SGLANG_MTBENCH = re.compile(r"^\s*#(?:questions|examples): \d+,.*\bAcceptance length: ([0-9.]+)")


def sglang_rate_definitions(accept_len: float, accept_rate: float, lookahead: int) -> list[str]:
    """Which of SGLang's two definitions of ``accept rate`` a printed pair fits at chain lookahead k
    (``speculative_num_draft_tokens`` = k + 1). Read in ``python/sglang/srt/managers/
    scheduler_metrics_mixin.py`` (``log_decode_stats``) of two versions:

    * ``"tokens / (k + 1)"``: accepted tokens counting the verifier's / (calls x num_draft_tokens),
      i.e. ``accept len / (k + 1)`` (the version read at commit 01bb3c8);
    * ``"drafts / k"``: accepted drafts only / (calls x (num_draft_tokens - 1)), i.e. ``(accept len
      - 1) / k`` (the later version: "spec_num_accepted_tokens includes confirmed tokens (+bs),
      subtract them out").

    Both are printed to 2 decimals, so a pair fits a definition when the predicted rate is within
    the rounding of both figures.

    >>> sglang_rate_definitions(3.2, 0.64, 4)
    ['tokens / (k + 1)']
    >>> sglang_rate_definitions(3.2, 0.55, 4)
    ['drafts / k']
    """
    fits = []
    for name, predicted, slope in (("tokens / (k + 1)", accept_len / (lookahead + 1), 1 / (lookahead + 1)),
                                   ("drafts / k", (accept_len - 1) / lookahead, 1 / lookahead)):
        if abs(predicted - accept_rate) <= 0.005 + 0.005 * slope + 1e-9:
            fits.append(name)
    return fits


class _SglangLog(_Accumulator):
    """SGLang's scheduler log: ``Decode batch. ..., accept len: %.2f, [accept rate: %.2f, ]...``
    (``log_decode_stats`` in ``python/sglang/srt/managers/scheduler.py``, later
    ``scheduler_metrics_mixin.py``), and ``Accept length: %.2f`` in ``python/sglang/bench_serving.py``'s
    result table. ``accept len`` is accepted tokens per verifier call counting
    the verifier's own token, so it is the mean acceptance length; SGLang prints no counts, so
    several lines are averaged unweighted and nothing has an interval. ``accept rate`` changed
    definition between versions (see :func:`sglang_rate_definitions`); the notes say which one the
    lines match at the lookahead, and without ``--lookahead`` the lookahead is read from it when
    exactly one k fits every line under either definition."""

    fmt = "sglang-log"
    MARKERS = ("accept len:", "Accept length:", "Acceptance length:", _REPR_KEY, '"spec_verify_ct"')

    def __init__(self):
        self.values = []
        self.rates = []
        self.mtbench = 0
        self.idle = 0     # windows without a verify pass ('accept len: 0.00, accept rate: 0.00')
        self.cut = None   # the number of a last line cut off before its end
        self.requests = _SglangJson()  # the request log's Finish lines (--log-requests): exact counts

    def line(self, text: str, number: int):
        if (_REPR_KEY in text or '"spec_verify_ct"' in text) and "accept len:" not in text:
            self.requests.line(text, number)
            return
        bench = _SGLANG_BENCH.match(text)
        if bench:  # "{:<40} {:<10.2f}" in python/sglang/bench_serving.py: the mean over the run
            value = _number(bench.group(1), "Accept length", f"line {number}")
            if value < 1:
                raise TraceError(f"line {number}: Accept length {value} is not a length of at least 1")
            self.values.append(value)
            return
        mtbench = _SGLANG_MTBENCH.match(text)
        if mtbench:
            value = _number(mtbench.group(1), "Acceptance length", f"line {number}")
            if value < 1:
                raise TraceError(f"line {number}: Acceptance length {value} is not a length of at least 1")
            self.values.append(value)
            self.mtbench += 1
            return
        if "accept len:" not in text:
            return
        where = f"line {number}"
        if number == getattr(self, "unterminated", None) and "gen throughput" not in text[text.index("accept len:"):]:
            self.cut = number  # every version prints gen throughput after accept len: the paste stops inside it
            return
        match = _SGLANG_LEN.search(text)
        raw = match.group(1) if match else text
        value = _number(raw, "accept len", where) if match and _DECIMAL.fullmatch(raw.strip()) else float("nan")
        if value == 0:
            # a logging window in which no request was verified: later versions print 'accept len: 0.00, accept
            # rate: 0.00' for it (sgl-project/sglang's test TestInvalidSpecMetricsWindow), older ones divided by zero
            self.idle += 1
            return
        if not math.isfinite(value) or value < 1:
            raise TraceError(f"{where}: accept len {shortened(raw, 30)!r} is not a length of at least 1")
        self.values.append(value)
        rate = _SGLANG_RATE.search(text)
        if rate:
            self.rates.append((value, _rate(rate.group(1), "accept rate", where)))

    def _fitting(self, k: int) -> set:
        fits = None
        for value, rate in self.rates:
            here = set(sglang_rate_definitions(value, rate, k))
            fits = here if fits is None else fits & here
        return fits or set()

    def result(self, lookahead, model=None) -> Trace:
        if self.requests.parts:
            # the request log's per-request counters are exact where accept len is a per-window mean
            self.requests.unterminated = getattr(self, "unterminated", None)
            trace = self.requests.result(lookahead, model)
            skipped = len(self.values) + self.idle
            return trace._replace(notes=trace.notes + ((
                f"{skipped} Decode batch accept len line(s) not added: the request log's Finish lines "
                f"(--log-requests) count each request's verify passes and accepted drafts exactly",) if skipped else ()))
        if not self.values:
            if self.idle:
                raise TraceError(f"every SGLang accept len line ({self.idle}) says 'accept len: 0.00': no request was "
                                 f"verified in those windows (paste lines from while requests ran)")
            if self.cut is not None:
                raise TraceError(f"line {self.cut}: the only accept len line ends without a newline before its gen "
                                 f"throughput: it looks cut off")
            raise TraceError("no SGLang 'accept len:' line found")
        notes = []
        if self.idle:
            notes.append(f"{self.idle} line(s) with 'accept len: 0.00' skipped (windows in which no request was "
                         f"verified)")
        if self.cut is not None:
            notes.append(f"the last line (line {self.cut}) ends without a newline before its gen throughput: it looks "
                         f"cut off, so only the complete lines before it are read")
        if lookahead is None and self.rates:
            candidates = [k for k in range(1, MAX_LOOKAHEAD + 1) if self._fitting(k)]
            if len(candidates) == 1:
                lookahead = candidates[0]
                notes.append(f"lookahead {lookahead} read from accept rate and accept len (the only k that fits "
                             f"every line)")
        k = self.need_lookahead(lookahead, "SGLang prints only the mean acceptance length")
        mean = sum(self.values) / len(self.values)
        if mean > k + 1 + 0.005:
            raise TraceError(f"accept len {mean:.2f} exceeds k + 1 = {k + 1}: the lookahead {k} is too small")
        mean = min(mean, k + 1)
        if len(self.values) > 1:
            notes.insert(0, f"averaged {len(self.values)} accept len values (unweighted: SGLang prints no counts)")
        if self.rates:
            fits = self._fitting(k)
            if len(fits) == 1:
                definition = next(iter(fits))
                notes.append(f"accept rate matches SGLang's '{definition}' definition at k = {k}"
                             + (" (newer versions)" if definition == "drafts / k" else " (older versions)"))
            elif fits:
                notes.append(f"accept rate fits both of SGLang's definitions at k = {k}: cannot tell which version "
                             f"printed it")
            else:
                notes.append(f"accept rate fits neither of SGLang's definitions at k = {k} (tokens / (k + 1) or "
                             f"drafts / k): check the lookahead, or the drafts are a tree (topk > 1)")
        if self.mtbench:
            notes.append("SGLang's mt-bench script divides completion tokens by spec_verify_ct: each request's first "
                         "token (from the prefill) is counted too, so it reads slightly above the per-call mean")
        notes.append("with tree drafting (topk > 1) the accept len is not a chain statistic")
        return Trace(self.fmt, k, None, None, None, None, False, tuple(notes), mean)


_SGLANG_GAUGES = {"sglang:spec_accept_length": "length", "sglang:spec_accept_rate": "rate",
                  "sglang:spec_num_steps": "steps", "sglang:spec_num_draft_tokens": "tokens"}
_SGLANG_COUNTERS = ("sglang:spec_verify_calls_total", "sglang:generation_tokens_total", "sglang:num_requests_total")


class _SglangMetrics(_Accumulator):
    """SGLang's ``/metrics``: gauges set at each decode log (``SchedulerMetricsCollector`` in
    sgl-project/sglang ``python/sglang/srt/metrics/collector.py``): ``sglang:spec_accept_length``
    (the last logging window's accept len, the verifier's token included), and in 2026 versions
    ``sglang:spec_accept_rate`` (accepted drafts / proposed drafts in the window),
    ``sglang:spec_num_steps`` and ``sglang:spec_num_draft_tokens`` (the active settings; a chain
    drafts ``num_steps`` = k tokens, ``num_draft_tokens`` = k + 1). Gauges, not counters: the
    reading is one window's mean acceptance length, like one ``accept len`` line; several label sets
    (ranks) are averaged unweighted and a set whose length is 0 (no verify pass) is skipped. Where the
    scrape also holds the finished requests' counters (``sglang:spec_verify_calls_total``,
    ``sglang:generation_tokens_total``, ``sglang:num_requests_total``) the mean over every finished
    request is read from them instead (:meth:`_cumulative`)."""

    fmt = "sglang-metrics"
    MARKERS = ("sglang:spec_", "sglang:generation_tokens_total", "sglang:num_requests_total")

    def __init__(self):
        self.sets = {}  # labels -> {field: value}
        self.counters = {}  # (name, labels) -> value: the verify calls and the generated tokens, cumulative
        self.spec_seen = False

    def line(self, text: str, number: int):
        stripped = text.strip()
        if stripped.startswith("sglang:spec_"):
            self.spec_seen = True
        match = _PROM_LINE.match(stripped) if stripped.startswith("sglang:") else None
        if match and match.group(1) in _SGLANG_COUNTERS:
            # TokenizerMetricsCollector.observe_one_finished_request: each finished request adds its completion
            # tokens and its spec_verify_ct (sgl-project/sglang python/sglang/srt/metrics/collector.py, 2026)
            where = f"line {number}"
            labels = _prom_labels(match.group(2) or "", where)
            if len(self.counters) >= 3000 and (match.group(1), labels) not in self.counters:
                raise TraceError(f"{where}: more than 1000 label sets of SGLang's counters; paste one server's scrape")
            self.counters[(match.group(1), labels)] = _number(match.group(3), match.group(1), where)
            return
        field = _SGLANG_GAUGES.get(match.group(1)) if match else None
        if field is None:
            return
        where = f"line {number}"
        labels = _prom_labels(match.group(2) or "", where)
        if len(self.sets) >= 1000 and labels not in self.sets:
            raise TraceError(f"{where}: more than 1000 label sets of SGLang's spec gauges; paste one server's scrape")
        self.sets.setdefault(labels, {})[field] = _number(match.group(3), match.group(1), where)

    def _cumulative(self) -> tuple | None:
        """(mean, verify calls, requests or None) from the finished requests' counters, or None."""
        totals = {}
        for (name, _), value in self.counters.items():
            totals[name] = totals.get(name, 0) + value
        verify = totals.get("sglang:spec_verify_calls_total", 0)
        generated = totals.get("sglang:generation_tokens_total", 0)
        if not verify or not generated:
            return None
        requests = totals.get("sglang:num_requests_total")
        # each verify pass emits its accepted drafts plus one token, and each request's first token comes from
        # its prefill: (generated - requests) / verify is the mean acceptance length of the finished requests
        mean = (generated - requests) / verify if requests is not None else generated / verify
        return mean, verify, requests

    def result(self, lookahead, model=None) -> Trace:
        if not self.spec_seen and not self.counters:
            raise TraceError("the scrape has no sglang:spec_* metric: the server ran without speculative decoding "
                             "(start it with --speculative-algorithm, or paste a speculative server's /metrics)")
        cumulative = self._cumulative()
        active = [v for v in self.sets.values() if v.get("length")]
        if not active and cumulative is None:
            raise TraceError("no sglang:spec_accept_length above 0 in the scrape: no verify pass in the last window "
                             "(scrape while requests run, or paste the Decode batch lines)")
        if cumulative is not None:
            return self._counted(cumulative, active, lookahead)
        notes = ["SGLang's /metrics gauges hold the last logging window only (like one accept len line): no counts, "
                 "no intervals"]
        if len(active) < len(self.sets):
            notes.append(f"{len(self.sets) - len(active)} label set(s) with accept length 0 skipped")
        mean = sum(v["length"] for v in active) / len(active)
        if len(active) > 1:
            notes.append(f"averaged {len(active)} label sets unweighted")
        k = self._lookahead(active, lookahead, notes)
        if mean > k + 1 + 0.005:
            raise TraceError(f"sglang:spec_accept_length {mean:.2f} exceeds k + 1 = {k + 1}: the lookahead {k} is too "
                             f"small")
        rates = [v["rate"] for v in active if "rate" in v]
        if len(rates) == len(active) == 1 and abs(rates[0] - (mean - 1) / k) > 1e-6:
            notes.append(f"sglang:spec_accept_rate {rates[0]:.4f} is not (length - 1) / k = {(mean - 1) / k:.4f}")
        return Trace(self.fmt, k, None, None, None, None, False, tuple(notes), min(mean, k + 1))

    def _lookahead(self, label_sets, lookahead, notes) -> int:
        """The lookahead: ``lookahead`` as given, else the one sglang:spec_num_steps of ``label_sets`` (a note says
        so); a note when sglang:spec_num_draft_tokens is not k + 1 (the drafts are a tree)."""
        steps = {int(v["steps"]) for v in label_sets if v.get("steps")}
        tokens = {int(v["tokens"]) for v in label_sets if v.get("tokens")}
        k = lookahead
        if k is None and len(steps) == 1:
            k = steps.pop()
            notes.append(f"lookahead {k} read from sglang:spec_num_steps")
        if tokens and k is not None and tokens != {k + 1}:
            notes.append(f"sglang:spec_num_draft_tokens {', '.join(map(str, sorted(tokens)))} is not k + 1 = {k + 1}: "
                         f"the drafts are a tree (topk > 1), so the accept length is not a chain statistic")
        k = self.need_lookahead(k, "the scrape has no sglang:spec_num_steps")
        _check_lookahead(k)
        return k

    def _counted(self, cumulative, active, lookahead) -> Trace:
        """The finished requests' counters: a mean over every verify pass since the server started (the
        gauges hold the last window only), still without per-position counts or intervals."""
        mean, verify, requests = cumulative
        notes = [f"mean acceptance length from the finished requests' counters: (sglang:generation_tokens_total - "
                 f"num_requests_total) / spec_verify_calls_total = {mean:.4f} over {verify:g} verify passes "
                 f"(requests still running are not in them; a request without speculation adds tokens and no pass)"
                 if requests is not None else
                 f"mean acceptance length from the counters as SGLang reports it: generation_tokens_total / "
                 f"spec_verify_calls_total = {mean:.4f} (no num_requests_total: each request's first token, from "
                 f"its prefill, is counted too, so it reads slightly high)"]
        if active:
            window = sum(v["length"] for v in active) / len(active)
            notes.append(f"sglang:spec_accept_length (the last window) is {window:.2f}: not used")
        k = self._lookahead(self.sets.values(), lookahead, notes)
        if not 1 <= mean <= k + 1 + 0.005:
            raise TraceError(f"the counters give a mean acceptance length of {mean:.2f}, outside 1 to k + 1 = {k + 1}: "
                             f"check the lookahead, or the scrape mixes servers")
        return Trace(self.fmt, k, None, None, None, None, False, tuple(notes), min(mean, k + 1))


# --- the registry's rows (lab/traces/formats.py reads them; rank = detection order) ---------------------

# Whose output these formats are, and a substring each of its speculative-decoding lines carries: the
# reader names another engine's lines met inside a trace by them (lab.traces.formats.ENGINE_MARKERS).
ENGINE = "SGLang"
MARKERS = ("accept len:",)
# SGLang's decode line prints 'accept len' only when a speculative algorithm runs (log_decode_stats): named when
# nothing else in the text is read (lab.traces.formats.HINTS)
HINTS = (
    ("Decode batch", "SGLang's 'Decode batch' lines without 'accept len' come from a server without speculative "
                     "decoding (the line prints accept len only with --speculative-algorithm): paste lines from a "
                     "speculative run"),
)

FORMATS = family(
    Format("sglang-metrics", "SGLang /metrics (spec_verify_calls_total and generation_tokens_total, or the "
           "spec_accept_length gauge of the last window; spec_num_steps)",
           "SGLang's /metrics", _SglangMetrics,
           lambda line, stripped: stripped.startswith(("sglang:", "# HELP sglang:", "# TYPE sglang:")), 12, (
               # two tensor-parallel ranks' gauges: (2.75 + 2.85) / 2 = 2.80 at spec_num_steps 3
               Sample("sglang_metrics.prom", None, None,
                      {"format": "sglang-metrics", "lookahead": 3, "meanAcceptanceLength": 2.8},
                      "written from sgl-project/sglang `python/sglang/srt/metrics/collector.py` "
                      "(SchedulerMetricsCollector's spec gauges, a 2026 version read through the code index) as "
                      "prometheus_client writes gauges; labels abridged to model_name and tp_rank"),
           )),
    Format("sglang-log", "SGLang log (Decode batch lines with accept len and accept rate, or bench_serving's Accept "
           "length)", "SGLang's log", _SglangLog,
           lambda line, stripped: "accept len:" in line or bool(_SGLANG_BENCH.match(line))
           or bool(_SGLANG_MTBENCH.match(line)), 50, (
               Sample("sglang.log", 4, None, {"format": "sglang-log", "lookahead": 4, "meanAcceptanceLength": 3.0},
                      "written from sgl-project/sglang `python/sglang/srt/managers/scheduler.py` (Decode batch line, "
                      "accept len)"),
               Sample("sglang_accept_rate.log", None, None, {"format": "sglang-log", "lookahead": 4, "meanAcceptanceLength": 3.0},
                      "written from sgl-project/sglang `python/sglang/srt/managers/scheduler_metrics_mixin.py` at "
                      "01bb3c8 (accept len and accept rate)"),
           )),
    Format("sglang-json", "SGLang per-request JSON (meta_info or sglext spec_tokens_details: spec_verify_ct, accepted "
           "drafts, histogram)", "SGLang's per-request JSON", _SglangJson,
           lambda line, stripped: '"spec_verify_ct"' in line or _REPR_KEY in line, 90, (
               # 43 verify passes, 63 accepted of 215 proposed; the histogram [11, 14, 11, 4, 0, 3] gives
               # c_i = calls that accepted at least i: 32, 18, 7, 3, 3
               Sample("sglang_sglext_spec.json", None, None,
                      {"format": "sglang-json", "lookahead": 5, "drafts": 43, "draftTokens": 215, "accepted": 63,
                       "perPosition": (32, 18, 7, 3, 3)},
                      "verbatim from sgl-project/sglang#33518 (\"feat(api): add sglext_spec\", comment of 2026-08-07: "
                      "DeepSeek-V4-Flash, DSpark block size 5, one request with `return_spec_tokens_details`); the "
                      "object SGLang returns as `sglext.spec_tokens_details` (`serving_chat.py`, `SglExt`)"),
               # 188 verify passes, 11 accepted; spec_draft_token_num 940 = 188 x (k + 1), read as 188 x 4
               Sample("sglang_meta_info_2025.json", 4, None,
                      {"format": "sglang-json", "lookahead": 4, "drafts": 188, "draftTokens": 752, "accepted": 11,
                       "perPosition": None},
                      "the speculative fields of a `/generate` response's `meta_info`, verbatim from "
                      "sgl-project/sglang#13754 (2025: `spec_verify_ct`, `spec_accept_token_num`, "
                      "`spec_draft_token_num`), cut after `e2e_latency` (the excerpt read stops there) and wrapped in "
                      "`{\"meta_info\": ...}`"),
           ), whole_json=True),
)
