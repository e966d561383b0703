"""vLLM's per-request metrics JSON (V0 ``spec_token_acceptance_counts``, V1 ``SpecDecodingStats``
fields, the 2026 per-request speculative decoding stats), and the JSON helpers SGLang's and
TensorRT-LLM's per-request readers share (:func:`_find_dicts`, :func:`_histogram_counts`).
"""

from .common import (
    Format, MAX_JSON_CHARS, MAX_LOOKAHEAD, MAX_STEPS, MEAN_LENGTH_SLACK, Sample, Trace, TraceError, _Accumulator,
    _check_lookahead, _choose, _json_count, _json_loads, shortened, _validated, family,
)
from .plain import cycles_to_trace


_REQUEST_KEYS = ('"spec_token_acceptance_counts"', '"num_accepted_tokens_per_pos"', '"acceptance_histogram"',
                 '"accept_length_histogram"', '"num_drafts"', '"num_spec_steps"', '"per_step_accepted"',
                 '"speculative_decoding_stats"')


class _VllmRequestJson(_Accumulator):
    """vLLM's per-request metrics as JSON (one document, an array, or JSON lines). Each object that
    carries one of these is one request:

    * ``spec_token_acceptance_counts`` (V0 ``RequestMetrics`` in ``vllm/sequence.py``): ``[N, c_1,
      ..., c_k]``, the request's verifier calls and, per position, the calls that accepted it;
    * ``num_drafts``, ``num_draft_tokens``, ``num_accepted_tokens``, ``num_accepted_tokens_per_pos``
      and optionally ``num_draft_tokens_per_pos`` (the fields of V1's ``SpecDecodingStats``,
      ``vllm/v1/spec_decode/metrics.py``);
    * ``acceptance_histogram`` (or ``accept_length_histogram``): ``h[j]`` = calls that accepted
      exactly ``j`` drafts, an exact cycles histogram (a list, or an object whose keys are j with
      zero counts omitted). vLLM's per-request speculative decoding stats (2026,
      ``--per-request-spec-decode-metrics summary|detailed``; each choice's
      ``speculative_decoding_stats``) carry it with ``num_spec_steps``, ``num_accepted_draft_tokens``,
      ``num_draft_tokens`` (variable-length drafts included), ``num_spec_tokens`` (k) and, with
      ``detailed``, ``per_step_accepted`` / ``per_step_drafted``, which give the drafted tokens per
      position too. A ``null`` (a request without speculative decoding) is skipped and counted.

    Requests of one model are summed (a ``model`` or ``model_name`` key tells models apart). Note
    that pooling requests weights long requests more, and calls late in a request (deeper in its
    context) more at later positions."""

    fmt = "vllm-request-json"

    def __init__(self):
        self.parts = []
        self.size = 0
        self.first = None

    def line(self, text: str, number: int):
        if self.first is None:
            self.first = number
            self.null = 0
        self.size += len(text) + 1
        if self.size > MAX_JSON_CHARS:
            raise TraceError(f"the per-request JSON is over {MAX_JSON_CHARS >> 20} MB; split it into JSON lines files")
        self.parts.append(text)

    def _documents(self):
        """(line, document) pairs: the whole text as one document, else one per line (JSON lines)."""
        whole = "\n".join(self.parts)
        try:
            return [(self.first, _json_loads(whole, f"line {self.first}"))]
        except TraceError as error:
            if "nested" in str(error):
                raise
        documents = []
        for offset, text in enumerate(self.parts):
            stripped = text.strip().rstrip(",")
            if not stripped or stripped in "[]":
                continue
            number = self.first + offset
            try:
                documents.append((number, _json_loads(stripped, f"line {number}")))
            except TraceError as error:
                if "not JSON" in str(error):
                    if number == getattr(self, "unterminated", None) and documents:
                        self.cut = number  # the input stops inside its last line: read the complete ones
                        continue
                    raise TraceError(f"line {number}: not JSON: {shortened(text)!r}") from None
                raise
        return documents

    def _requests(self, value, depth=0):
        if depth > 20:
            return
        if isinstance(value, list):
            for item in value:
                yield from self._requests(item, depth + 1)
        elif isinstance(value, dict):
            if "speculative_decoding_stats" in value and value["speculative_decoding_stats"] is None:
                self.null += 1
            elif any(key.strip('"') in value for key in _REQUEST_KEYS if key != '"speculative_decoding_stats"'):
                yield value
            else:
                for item in value.values():
                    yield from self._requests(item, depth + 1)

    def result(self, lookahead, model=None) -> Trace:
        name, requests, several = self._chosen_requests(model)
        tally = _RequestTally()
        for line, request in requests:
            self.where = f"line {line}"
            self._add_request(request, tally)
        k = self._requests_lookahead(tally.k_seen, lookahead)
        notes = [f"summed {len(requests)} requests" + (f" of model {name}" if several else "")
                 + " (pooling weights long requests more; later positions come mostly from easy stretches)"]
        if getattr(self, "cut", None):
            notes.append(f"line {self.cut} was cut off (the input stops inside it) and is not read")
        if self.null:
            notes.append(f"skipped {self.null} choice(s) whose speculative_decoding_stats is null")
        notes += tally.printed
        if tally.histogram and tally.exact_histogram:
            return self._histogram_trace(tally, k, notes, name if several else None)
        if tally.histogram:
            raise TraceError("some requests give a histogram and others counts; paste one kind")
        return self._counts_trace(tally, k, notes, name if several else None)

    def _chosen_requests(self, model) -> tuple:
        """(model name, its (line, request) pairs, whether the JSON holds several models): the requests found in
        every document, grouped by their ``model`` or ``model_name`` key, one model chosen (:func:`_choose`)."""
        models: dict[str, list] = {}
        for line, document in self._documents():
            for request in self._requests(document):
                name = request.get("model") or request.get("model_name") or ""
                models.setdefault(str(name)[:200], []).append((line, request))
        if not models:
            raise TraceError("no per-request speculative decoding metrics in the JSON")
        label = {m or "(unnamed model)": r for m, r in models.items()}
        name, requests = _choose(label, model, "model")
        return name, requests, len(models) > 1

    def _add_request(self, request: dict, tally: "_RequestTally"):
        """Add one request to ``tally`` by the first kind of counts it carries: per-step counts
        (``per_step_accepted``), an acceptance histogram, V0's ``spec_token_acceptance_counts``, else V1's
        ``SpecDecodingStats`` fields."""
        counts = request.get("spec_token_acceptance_counts")
        hist = request.get("acceptance_histogram", request.get("accept_length_histogram"))
        steps = request.get("per_step_accepted")
        if request.get("num_spec_tokens") is not None:
            tally.k_seen.add(self._ints([request["num_spec_tokens"]], "num_spec_tokens")[0])
        if steps is not None:
            self._add_steps(request, steps, tally)
            return
        if isinstance(hist, dict):
            hist = self._dense_histogram(hist)
        if hist is not None and counts is None:
            self._add_histogram(request, hist, tally)
            return
        if counts is not None:
            self._add_v0_counts(counts, tally)
        else:
            self._add_v1_stats(request, tally)

    def _add_steps(self, request: dict, steps, tally: "_RequestTally"):
        """``per_step_accepted`` (and ``per_step_drafted`` when given): one call of the histogram per step, and each
        step's drafted tokens."""
        accepted_steps = self._ints(steps, "per_step_accepted", MAX_STEPS)
        drafted_steps = request.get("per_step_drafted")
        drafted_steps = (self._ints(drafted_steps, "per_step_drafted", MAX_STEPS)
                         if drafted_steps is not None else None)
        if drafted_steps is not None and len(drafted_steps) != len(accepted_steps):
            raise TraceError("per_step_accepted and per_step_drafted differ in length")
        histogram = tally.histogram
        for j, a in enumerate(accepted_steps):
            histogram[a] = histogram.get(a, 0) + 1
            if drafted_steps is not None:
                if a > drafted_steps[j]:
                    raise TraceError(f"a step accepted {a} of {drafted_steps[j]} drafted tokens")
                tally.step_drafted.append(drafted_steps[j])
        tally.hist_drafted += sum(drafted_steps) if drafted_steps is not None else \
            self._ints([request.get("num_draft_tokens", 0)], "num_draft_tokens")[0]

    def _dense_histogram(self, hist: dict) -> list:
        """An acceptance histogram given as an object (keys j, zero counts omitted) as the dense list ``h[j]``."""
        keys = [str(j) for j in hist]
        if not all(key.isascii() and key.isdigit() and len(key) <= 3 for key in keys):
            bad = next(key for key in keys if not (key.isascii() and key.isdigit() and len(key) <= 3))
            raise TraceError(f"{self.where}: acceptance_histogram key {shortened(bad, 20)!r} is not a count of "
                             f"accepted drafts (ASCII digits 0-9, at most {MAX_LOOKAHEAD})")
        pairs = sorted((int(key), n) for key, n in zip(keys, hist.values()))
        if pairs and (pairs[0][0] < 0 or pairs[-1][0] > MAX_LOOKAHEAD):
            raise TraceError(f"acceptance_histogram keys must be 0 to {MAX_LOOKAHEAD}")
        dense = [0] * ((pairs[-1][0] + 1) if pairs else 1)
        for j, n in pairs:
            dense[j] = n
        return dense

    def _add_histogram(self, request: dict, hist, tally: "_RequestTally"):
        """A request's acceptance histogram, added call for call; a printed step count, accepted count or mean
        acceptance length that disagrees with it is noted."""
        hist = self._ints(hist, "acceptance_histogram")
        if request.get("num_spec_tokens") is None:
            tally.k_seen.add(len(hist) - 1)
        for j, n in enumerate(hist):
            tally.histogram[j] = tally.histogram.get(j, 0) + n
        tally.hist_drafted += self._ints([request.get("num_draft_tokens", 0)], "num_draft_tokens")[0]
        calls, acc = sum(hist), sum(j * n for j, n in enumerate(hist))
        for key, value in (("num_spec_steps", calls), ("num_accepted_draft_tokens", acc)):
            if request.get(key) is not None and request.get(key) != value:
                tally.printed.append(f"a request's {key} {request.get(key)!r} disagrees with its histogram ({value})")
        mean = request.get("mean_acceptance_length")
        if isinstance(mean, (int, float)) and calls and abs(mean - (1 + acc / calls)) > MEAN_LENGTH_SLACK:
            tally.printed.append(f"a request's mean_acceptance_length {mean} disagrees with 1 + accepted / steps "
                                 f"= {1 + acc / calls:.3f}")

    def _add_v0_counts(self, counts, tally: "_RequestTally"):
        """V0's ``[N, c_1, ..., c_k]``: N calls, each of k drafts, c_i of them accepting position i."""
        counts = self._ints(counts, "spec_token_acceptance_counts")
        if not counts or len(counts) < 2:
            return
        calls, c = counts[0], counts[1:]
        tally.k_seen.add(len(c))
        tally.per_position = _summed(tally.per_position, c)
        tally.totals[0] += calls
        tally.totals[1] += calls * len(c)
        tally.totals[2] += sum(c)
        tally.exact_histogram = False

    def _add_v1_stats(self, request: dict, tally: "_RequestTally"):
        """V1's ``SpecDecodingStats`` fields: drafts, drafted and accepted tokens, and per position the accepted
        (and, when given, the drafted) tokens."""
        tally.exact_histogram = False
        n = self._ints([request.get("num_drafts", 0)], "num_drafts")[0]
        acc = self._ints([request.get("num_accepted_tokens", 0)], "num_accepted_tokens")[0]
        c = request.get("num_accepted_tokens_per_pos")
        d = request.get("num_draft_tokens_per_pos")
        tally.totals[0] += n
        tally.totals[2] += acc
        if c is not None:
            c = self._ints(c, "num_accepted_tokens_per_pos")
            tally.k_seen.add(len(c))
            tally.per_position = _summed(tally.per_position, c)
        if d is not None:
            d = self._ints(d, "num_draft_tokens_per_pos")
            tally.drafted_pos = _summed(tally.drafted_pos, d)
        tally.totals[1] += self._ints([request.get("num_draft_tokens", 0)], "num_draft_tokens")[0]

    def _requests_lookahead(self, k_seen: set, lookahead) -> int:
        """The one lookahead of the requests (their positions), agreeing with ``lookahead`` when that is given."""
        if len(k_seen) > 1:
            raise TraceError(f"the requests disagree on the lookahead ({min(k_seen)} and {max(k_seen)} positions)")
        k = k_seen.pop() if k_seen else lookahead
        if lookahead is not None and k != lookahead:
            raise TraceError(f"the requests have {k} positions but the lookahead given is {lookahead}")
        k = self.need_lookahead(k, "no per-position counts")
        _check_lookahead(k)
        return k

    def _histogram_trace(self, tally: "_RequestTally", k: int, notes: list, model) -> Trace:
        """The trace of exact histograms: the cycles it counts, the drafted tokens as printed (short drafts
        averaged in a note) and, from ``per_step_drafted``, the drafts that reached each position."""
        histogram = tally.histogram
        if max(histogram) > k:
            raise TraceError(f"a step accepted {max(histogram)} drafts but the lookahead is {k}")
        trace = cycles_to_trace(histogram, k)
        drafted_total = tally.hist_drafted or trace.draftTokens
        per_pos = None
        step_drafted = tally.step_drafted
        if step_drafted and len(step_drafted) == trace.drafts:
            per_pos = tuple(sum(1 for d in step_drafted if d >= i) for i in range(1, k + 1))
            if any(p == 0 for p in per_pos):
                per_pos = None
            else:
                notes.append("per-position rates use the drafted tokens per position (per_step_drafted)")
        if drafted_total < trace.drafts * k:
            notes.append(f"drafts averaged {drafted_total / trace.drafts:.2f} tokens of at most k = {k}")
        return _validated(trace._replace(format=self.fmt, draftTokens=drafted_total, notes=tuple(notes) + trace.notes,
                                         draftsPerPosition=per_pos, model=model))

    def _counts_trace(self, tally: "_RequestTally", k: int, notes: list, model) -> Trace:
        """The trace of summed counts (V0's or V1's): k drafts a call when the drafted tokens are not given."""
        totals, per_position, drafted_pos = tally.totals, tally.per_position, tally.drafted_pos
        if totals[1] == 0:
            totals[1] = totals[0] * k
        if drafted_pos is not None and len(drafted_pos) == k:
            notes.append("per-position rates use the drafted tokens per position as denominators")
        return _validated(Trace(self.fmt, k, totals[0], totals[1], totals[2],
                                tuple(per_position) if per_position else None, True, tuple(notes),
                                draftsPerPosition=tuple(drafted_pos) if drafted_pos and len(drafted_pos) == k else None,
                                model=model))

    def _ints(self, values, what, limit=MAX_LOOKAHEAD + 1):
        """Counts from a JSON list: each a finite, whole, non-negative number below :data:`MAX_COUNT`
        (NaN, 1e308, 2.5 or a 20-digit integer is refused, naming the line and the field)."""
        where = getattr(self, "where", "the JSON")
        if not isinstance(values, list) or len(values) > limit:
            raise TraceError(f"{where}: {what} is not a list of at most {limit} counts")
        return [_json_count(value, what, where) for value in values]


class _RequestTally:
    """What :meth:`_VllmRequestJson.result` adds up over the requests: the exact cycles histogram (and the drafted
    tokens beside it), or the summed counts (calls, drafted and accepted tokens; per position), the lookaheads
    seen, and the notes on printed figures that disagree."""

    def __init__(self):
        self.histogram: dict[int, int] = {}
        self.k_seen: set = set()
        self.totals = [0, 0, 0]  # calls, drafted tokens, accepted tokens
        self.per_position = None
        self.drafted_pos = None
        self.exact_histogram = True  # until a request gives counts instead
        self.hist_drafted = 0
        self.printed: list = []
        self.step_drafted: list[int] = []


def _summed(total, counts):
    """Per-position counts added to the running ``total`` (None before the first).

    >>> _summed(None, [3, 2]), _summed([3, 2], [1, 1])
    ([3, 2], [4, 3])
    """
    return counts if total is None else [a + b for a, b in zip(total, counts)]


def _find_dicts(value, wanted, depth=0):
    """Every dict under ``value`` (a parsed JSON document) holding one of the keys ``wanted``, at
    most 20 levels down; the search does not descend into a dict it yields."""
    if depth > 20:
        return
    if isinstance(value, list):
        for item in value:
            yield from _find_dicts(item, wanted, depth + 1)
    elif isinstance(value, dict):
        if any(key in value for key in wanted):
            yield value
        else:
            for item in value.values():
                yield from _find_dicts(item, wanted, depth + 1)


def _histogram_counts(histogram, what: str, where: str) -> dict:
    """``{accepted drafts in one call: calls}`` from a dense JSON list ``h[j]``."""
    if not isinstance(histogram, list) or len(histogram) > MAX_LOOKAHEAD + 1:
        raise TraceError(f"{where}: {what} is not a list of at most {MAX_LOOKAHEAD + 1} counts")
    return {j: _json_count(n, what, where) for j, n in enumerate(histogram) if n}


# --- the registry's row (lab/traces/formats.py reads it; rank = detection order) ------------------------

# Whose output this format is: vLLM's (its log markers live in vllm.py, lab.traces.formats.ENGINE_MARKERS)
ENGINE = "vLLM"
MARKERS = ()

FORMATS = family(
    Format("vllm-request-json", "vLLM per-request metrics JSON (acceptance counts or histogram; one document or JSON "
           "lines)", "vLLM's per-request metrics", _VllmRequestJson,
           lambda line, stripped: any(key in line for key in _REQUEST_KEYS), 100, (
               Sample("vllm_request.jsonl", None, None,
                      {"format": "vllm-request-json", "lookahead": 3, "drafts": 12, "draftTokens": 36, "accepted": 19,
                       "perPosition": (9, 6, 4)},
                      "written: per-request acceptance histograms (`h[j]` = calls that accepted j drafts)"),
               Sample("vllm_request_stats.json", None, None,
                      {"format": "vllm-request-json", "lookahead": 4, "drafts": 10, "draftTokens": 40, "accepted": 16,
                       "perPosition": (7, 4, 3, 2)},
                      "written from vllm-project/vllm's per-request speculative decoding stats (2026: each choice's "
                      "`speculative_decoding_stats`, `--per-request-spec-decode-metrics summary`; field table of its "
                      "acceptance metrics documentation); a second choice with `null`"),
               Sample("vllm_request_v0.json", None, None,
                      {"format": "vllm-request-json", "lookahead": 3, "drafts": 16, "draftTokens": 48, "accepted": 19,
                       "perPosition": (11, 6, 2)},
                      "written from vllm-project/vllm `vllm/sequence.py` (V0 "
                      "`RequestMetrics.spec_token_acceptance_counts`)"),
           ), whole_json=True),
)
