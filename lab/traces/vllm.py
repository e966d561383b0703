"""vLLM's printed formats: the log (SpecDecoding metrics lines, the V0 Speculative metrics lines,
the spec_decode example's summary); ``vllm bench serve``'s block is :mod:`.vllm_bench`, the
per-request metrics JSON :mod:`.vllm_json`.
"""

import re

from .common import (
    _clean, Format, MAX_LOOKAHEAD, Sample, Trace, TraceError, _Accumulator, _calls_from_mean, _check_lookahead,
    _k_from_mean_and_rate, _refuse_shorthand, _SLASHED_COUNTS,
    _count, ModelChoiceError, _number, _rate, _rates, MEAN_LENGTH_SLACK, _reconstruct, _v0_calls_and_accepted, _validated,
    family,
)
from .prometheus import _V0_FIELDS, _V1_FIELDS


# a mean quoted as a range over intervals on a line of its own ('Mean acceptance length: 2.32\u20132.66')
_RANGED_MEAN = re.compile(r"Mean acceptance length:\s*[0-9.]*[0-9]\s*[-\u2013\u2014~]\s*[0-9]")

# a script's summary of the SpecDecoding lines that lists the per-position rates one a line ('Pos 1: 0.576', each the
# script's average of vLLM's printed rate at that position; eugr/spark-vllm-docker#350 quotes one)
_POS_RATE = re.compile(r"^\s*Pos\s+([0-9]{1,2})\s*:\s*([0-9]*\.[0-9]+|[01])\s*$")

# the line's two throughputs ('Accepted throughput: 8.03 tokens/s, Drafted throughput: 18.17 tokens/s'), each the
# interval's tokens over the same elapsed time (SpecDecodingLogging.log)
_THROUGHPUTS = re.compile(r"Accepted throughput: ([0-9.]+) tokens/s,\s*Drafted throughput: ([0-9.]+) tokens/s")

# a SpecDecoding line's counts quoted one a line by a note that lists its fields ('Accepted: 55 tokens' then 'Drafted: 78
# tokens', between the mean and the rates): read with the quoted rates as that line's counts
_QUOTED_COUNT = re.compile(r"^\s*(Accepted|Drafted):\s*([0-9]+) tokens\s*$")

_VLLM_EXAMPLE = re.compile(r"^\s*(num_drafts|num_draft_tokens|num_accepted_tokens|mean acceptance length|"
                           r"acceptance at token (\d{1,3}))\s*:\s*(\S+)")


def _v1_rates(text: str, where: str) -> list:
    """The printed per-position rates; ``-----`` (a 2026 version's mark for a position that no
    draft reached) reads as None.

    >>> _v1_rates("1.000, 0.000, -----", "line 1")
    [1.0, 0.0, None]
    """
    parts = [part for part in re.split(r"[,\s]+", text.strip()) if part]
    if any(set(part) == {"."} or part == "\u2026" for part in parts):  # '0.87, 0.79, ..., 0.15' in a README
        raise TraceError(f"{where}: the per-position rates are elided ('...'): paste the whole line, every rate "
                         f"as vLLM printed it")
    if len(parts) > MAX_LOOKAHEAD:
        raise TraceError(f"{where}: {len(parts)} per-position rates; at most {MAX_LOOKAHEAD} positions are read")
    return [None if set(part) == {"-"} else _rate(part, "per-position rate", where) for part in parts]


def _monotone(counts: list) -> list:
    """Counts rebuilt from rounded products may rise by one where the truth is flat: no position
    is reached (or accepted) more often than the one before it."""
    for i in range(1, len(counts)):
        counts[i] = min(counts[i], counts[i - 1])
    return counts


def _continues(text: str) -> bool:
    """Whether ``text`` is the rest of a SpecDecoding line that a paste wrapped (its rates, its
    Avg Draft acceptance rate), not a log line of its own.

    >>> _continues("0.524, Avg Draft acceptance rate: 67.7%"), _continues("INFO 05-21 21:12:06 [loggers.py:271] Engine 000")
    (True, False)
    """
    stripped = text.strip()
    return bool(stripped) and "SpecDecoding metrics:" not in stripped and not _LOG_START.search(stripped[:80])


def _wrapped(text: str) -> bool:
    """A SpecDecoding line cut by a paste's wrapping: it ends with a comma and lacks its counts, or
    stops inside its per-position rates (vLLM ends the line with them, or with the Avg Draft
    acceptance rate after them, never with a comma).

    >>> _wrapped("SpecDecoding metrics: Mean acceptance length: 3.03, Accepted: 337 tokens, Drafted: 498 tokens, "
    ...          "Per-position acceptance rate: 0.837, 0.669,")
    True
    """
    text = text.rstrip()
    if text.endswith(("Per-position acceptance rate:", "Avg Draft acceptance rate:")):
        return True  # a label without its value: the paste wrapped the line there (vllm-project/vllm#41834)
    if not text.endswith(","):
        return False
    if _V1_FIELDS["drafted"].search(text) is None:
        return True
    return "Per-position acceptance rate:" in text and "Avg Draft acceptance rate" not in text


def _source(head: str) -> str | None:
    """Which process printed a line, from what precedes its message: a docker compose service, a kubectl
    pod, vLLM's ``(APIServer pid=N)``; None when nothing names one.

    >>> _source("vllm-a  | (APIServer pid=1) INFO 05-30 07:21:10 [metrics.py:101] ")
    'vllm-a (APIServer pid=1)'
    """
    service = re.match(r"\s*(?:\[pod/([^\]]+)\]|([A-Za-z0-9_.-]+)\s+\|\s)", head)
    process = re.search(r"\((\w+) pid=(\d+)\)", head)
    parts = [service.group(1) or service.group(2)] if service else []
    parts += [process.group(0)] if process else []
    return " ".join(parts) or None


_V0_UNPREFIXED = "Number of speculative tokens:"  # only V0's line prints it
_CURRENT_DEPTH = re.compile(r"Current speculative depth: ([0-9]{1,3})\b")
_BRACKETED = re.compile(r"(Per-position acceptance rate: )\[([0-9.,\s-]*)\]")
_LOG_START = re.compile(r"\b(?:INFO|WARNING|DEBUG|ERROR)\b|^\(\w+ pid=|^\[?\d{4}-\d\d-\d\d")


def _field(pattern, text):
    match = pattern.search(text)
    if not match:
        return None
    return next((group for group in match.groups() if group is not None), None)


def _coverage(text: str, rates, where: str):
    """A V1 line's per-position verification coverage (one per rate), or None; a rate printed as ----- needs it."""
    coverage = _V1_FIELDS["coverage"].search(text)
    if coverage and rates:
        found = _rates(coverage.group(1), "per-position verification coverage", where)
        if len(found) != len(rates):
            raise TraceError(f"{where}: {len(rates)} per-position rates but "
                             f"{len(found)} verification coverages")
        return found
    if rates and None in rates:
        raise TraceError(f"{where}: a per-position rate printed as ----- (no draft reached it) needs the "
                         f"line's Per-position verification coverage, which is missing")
    return None


def _v1_figures(text: str, record: dict, where: str):
    """Into a V1 line's ``record``: the other figures it prints (the dynamic depth in force, the mean verification
    depth, the mean acceptance length, the draft acceptance rate, the number of drafts; None when not printed)
    and its shape (which of them it prints, and how)."""
    now = _CURRENT_DEPTH.search(text)  # 2026: the dynamic depth in force (the rates keep k positions)
    record["now"] = int(now.group(1)) if now else None
    depth = _V1_FIELDS["depth"].search(text)
    record["depth"] = (_number(depth.group(1), "Mean verification depth", where),
                       _count(depth.group(2), "speculative tokens", where)) if depth else None
    mean = _field(_V1_FIELDS["mean"], text)
    if mean is not None:
        record["mean"] = _number(mean, "Mean acceptance length", where)
    rate = _V1_FIELDS["rate"].search(text)
    if rate:
        record["rate"] = _number(rate.group(1), "Draft acceptance rate", where) / (100 if rate.group(2) else 1)
    drafts = _field(_V1_FIELDS["drafts"], text)
    record["drafts"] = _count(drafts, "Number of drafts", where) if drafts is not None else None
    record["shape"] = (len(record["rates"] or ()), record["rate"] is not None, bool(rate and rate.group(2)),
                       record["mean"] is not None)


def _one_lookahead(lengths: dict, lookahead, model, lines: str, unit: str):
    """(k, note or None): the one lookahead of a log's lines (``lengths``: line number -> its k).
    Lines of two lookaheads are two runs (a restart with another ``num_speculative_tokens``, or two
    servers): ``--lookahead K`` (or ``--model k=K``) reads one and the note names the lines left; without
    either, a refusal names both and how to choose.

    >>> _one_lookahead({1: 3, 2: 3, 5: 2}, 2, None, "the log lines", "positions")[0]
    2
    """
    ks = sorted(set(lengths.values()))
    if len(ks) <= 1:
        return (ks[0] if ks else lookahead), None
    names = {f"k={k}": k for k in ks}
    wanted = lookahead if lookahead is not None else names.get(str(model).replace(" ", "")) if model else None
    counts = dict(sorted(((k, [n for n, v in lengths.items() if v == k]) for k in ks), key=lambda item: min(item[1])))
    described = "; ".join(f"k = {k} on {len(n)} line(s) from line {min(n)}" for k, n in counts.items())
    if wanted in counts:
        left = sum(len(n) for k, n in counts.items() if k != wanted)
        return wanted, (f"{lines} hold {len(ks)} lookaheads ({described}): read the k = {wanted} lines, {left} "
                        f"line(s) at another k not read")
    if lookahead is not None:
        raise TraceError(f"{lines} hold {' and '.join(map(str, ks))} {unit}, not the lookahead given, {lookahead}: "
                         f"give --lookahead {' or '.join(map(str, ks))}")
    order = sorted(lengths)
    first = next(n for n in order if lengths[n] != lengths[order[0]])
    raise ModelChoiceError(f"{lines} disagree on the lookahead ({' and '.join(map(str, ks))} {unit}, line {first}): "
                           f"two servers or a restart with another k ({described}); choose one with --lookahead K",
                           [f"k={k}" for k in counts])


class _IntervalTally:
    """What :meth:`_VllmLog._v1_result` adds up over the SpecDecoding lines: calls, drafted and accepted tokens, the
    per-position counts (and the drafted tokens per position, from the printed coverage), the lookaheads seen,
    whether the calls are only a lower bound, the lines whose drafts were short, and the notes."""

    def __init__(self):
        self.drafts = self.draft_tokens = self.accepted = 0
        self.per_position = self.covered = None
        self.ks: set = set()
        self.notes: list = []
        self.bound = False         # a line's calls are only a lower bound (drafted / k, no mean printed)
        self.with_coverage = True  # until a line with rates prints no verification coverage
        self.short_lines: list = []
        self.disagreements: list = []


def _interval_calls(r: dict, k: int, tally: _IntervalTally):
    """The verifier calls of one SpecDecoding line: as printed (Number of drafts); else from the printed mean
    acceptance length (:func:`_interval_calls_from_mean`); else drafted / the mean verification depth; else drafted
    / k, which assumes full-length drafts (a lower bound, ``tally.bound``, when it is not whole). How they were
    found is noted in ``tally``."""
    number, acc, drafted, depth = r["number"], r["accepted"], r["drafted"], r["depth"]
    full = drafted / k
    if r["drafts"] is not None:
        return r["drafts"]
    if r["mean"] is not None and acc > 0:
        return _interval_calls_from_mean(r, full, tally)
    if depth is not None and depth[0] > 0 and drafted:
        n = max(1, round(drafted / depth[0]))
        tally.notes.append(f"line {number}: no accepted token, so the calls are drafted / mean verification "
                           f"depth = {drafted} / {depth[0]:.2f} = {n}")
        return n
    if full.is_integer():
        n = int(full)
        if r["mean"] is None:
            tally.notes.append(f"line {number}: no mean acceptance length printed, so the calls are drafted / k "
                               f"= {n}, which assumes full-length drafts")
        return n
    tally.bound = True
    tally.notes.append(f"line {number}: {drafted} drafted tokens is not a multiple of k = {k} and no mean "
                       f"is printed: the calls are at least drafted / k = {full:.1f}")
    return full


def _interval_calls_from_mean(r: dict, full: float, tally: _IntervalTally) -> int:
    """The calls that give a line's printed mean acceptance length (accepted / (mean - 1), narrowed by the rates
    and by the printed mean verification depth): a line whose calls are not drafted / k (``full``) had short
    drafts, and a range of calls that fit is noted."""
    number, acc, drafted, depth, cov = r["number"], r["accepted"], r["drafted"], r["depth"], r["coverage"]
    n, span = _calls_from_mean(acc, r["mean"], 2, None if cov else r["rates"], 3, full)
    if n is None:
        raise TraceError(f"line {number}: the printed mean acceptance length {r['mean']} cannot come "
                         f"from {acc} accepted tokens")
    if depth is not None and depth[0] > 0:  # drafted / calls, printed to 2 decimals, narrows them
        fits = [m for m in range(span[0], span[1] + 1) if round(drafted / m, 2) == round(depth[0], 2)] \
            if span[1] - span[0] <= 20000 else []
        if fits:
            n = min(fits, key=lambda m: abs(m - drafted / depth[0]))
            span = (fits[0], fits[-1])
    if n != full:
        tally.short_lines.append(number)
        if span[0] != span[1]:
            tally.notes.append(f"line {number}: the printed mean allows {span[0]} to {span[1]} calls; "
                               f"used {n}, where the per-position rates fit best")
    return n


class _VllmLog(_Accumulator):
    """vLLM's log. Three shapes:

    * V1 ``SpecDecoding metrics:`` lines, one per logging interval (summed). From
      ``SpecDecodingLogging.log`` in ``vllm/v1/spec_decode/metrics.py`` (read at commit 016a858 and
      a 2026 version): ``Mean acceptance length: %.2f, Accepted throughput: ..., Accepted: %d
      tokens, Drafted: %d tokens, Per-position acceptance rate: %.3f, ..., Avg Draft acceptance
      rate: %.1f%%``, with the mean = 1 + accepted / drafts and each rate = c_i / drafts. vLLM
      0.8.x printed ``Draft acceptance rate`` first and, before num_drafts existed (0.8.3), ``Number
      of accepted tokens`` / ``Number of draft tokens`` without the mean. The draft count is not
      printed: it is drafted / k when that agrees with the printed mean; when it does not (n-gram
      drafts shorter than k near the end of the context), the printed mean fixes it (accepted /
      (mean - 1)), narrowed by the per-position rates. Without a mean, drafted / k is a lower
      bound unless the drafts were full length. Every printed figure is checked against the
      counts and a disagreement is named in the notes.
    * V0 ``Speculative metrics:`` lines (``vllm/engine/metrics.py``, ``_format_spec_decode_metrics_str``,
      until vLLM 0.9): cumulative counters, so the last line of a run counts (a drop marks a
      restart and starts a new run, which is added). Calls = draft tokens / k (V0 always proposes
      k); accepted prefix = emitted - calls (V0's "accepted" also counts drafts accepted after a
      rejection, vllm-project/vllm#9565).
    * the ``num_drafts: / num_draft_tokens: / num_accepted_tokens: / acceptance at token i:``
      summary of ``examples/offline_inference/spec_decode.py`` (exact counts, 2-decimal rates). It
      is the run's cumulative total, so when the same console also holds the periodic
      SpecDecoding lines of that run, the summary alone is counted.
    """

    fmt = "vllm-log"
    PRELUDE = _QUOTED_COUNT  # a count quoted alone opens no format; read when the rates below it do (TraceParser)
    MARKERS = ("SpecDecoding metrics:", "Speculative metrics:", "Number of speculative tokens:", "num_", "acceptance at token", "mean acceptance length",
               "Mean acceptance length:", "Per-position acceptance rate:")

    def __init__(self):
        self.records = []  # V1 lines: dict
        self.v0 = []       # V0 lines: dict
        self.blocks = []   # {"num_drafts": .., "rates": {i: rate}}
        self.idle = 0      # V1 lines of intervals without a draft (Accepted: 0 tokens, Drafted: 0 tokens)
        self.pending = None  # (text, number): a SpecDecoding line wrapped by a paste, waiting for its rest
        self.abridged = []   # (number, mean, rates): SpecDecoding lines pasted without their counts
        self.whole = set()   # the numbers of those that end after their rates (not cut off)
        self.loose_mean = None  # a 'Mean acceptance length:' quoted on a line of its own
        self.abridged_rates = {}  # number -> (low, high, source): an abridged line's draft acceptance rate, within its printing
        self.reworded = []  # numbers of lines whose counts were reworded ('Accepted 417 / Drafted 693')
        self.ranged_means = []  # numbers of lines quoting the mean as a range over intervals ('2.32-2.66'), not read
        self.listed = []  # (number, position, rate): rates listed one a line ('Pos 1: 0.576'), until the list ends
        self.lists = []   # the first line number of each such list, read
        self.quoted_counts = {}  # 'Accepted' / 'Drafted' -> (count, line number): a line's counts quoted one a line
        self.assembled = []  # numbers of the records put together from fields quoted one a line
        self.unquoted_means = set()  # numbers of quoted rates with no mean quoted beside them (the mean is their sum)

    def lines(self, batch, first_number: int):
        markers = self.MARKERS
        for offset, line in enumerate(batch):  # a wrapped line's rest holds no marker: it is passed on too
            if self.pending is not None or any(marker in line for marker in markers) or _POS_RATE.match(line) \
                    or _QUOTED_COUNT.match(line):
                self.line(_clean(line), first_number + offset)

    def line(self, text: str, number: int, whole: bool = False):
        listed = _POS_RATE.match(text)
        if listed:  # one of the rates listed one a line: kept until the list ends
            self.listed.append((number, int(listed.group(1)), listed.group(2)))
            return
        self._end_listed()
        quoted = _QUOTED_COUNT.match(text)
        if quoted and self.pending is None:  # a count quoted alone: kept for the quoted rates near it
            self.quoted_counts[quoted.group(1)] = (quoted.group(2), number)
            self._assemble_quoted()
            return
        text, number = self._whole_text(text, number)
        _refuse_shorthand(text, f"line {number}")
        if "SpecDecoding metrics:" not in text and "Speculative metrics:" not in text and _V0_UNPREFIXED not in text \
                and self._quoted_piece(text, number):
            return
        if self._split_or_held(text, number, whole):
            return
        where = f"line {number}"
        if "Speculative metrics:" not in text and _V0_UNPREFIXED in text and "emitted tokens" in text:
            text = "Speculative metrics: " + text  # a V0 line quoted without its prefix (vllm-ascend#47's notes)
        v1_before_0_8_3 = "Speculative metrics:" in text and "Number of speculative tokens" not in text \
            and "emitted tokens" not in text and "Number of draft tokens" in text
        if "Speculative metrics:" in text and not v1_before_0_8_3:
            self._v0_line(text, number, where)
        elif "SpecDecoding metrics:" in text or v1_before_0_8_3:
            # V1 before vLLM 0.8.3 (vllm-project/vllm#15902 renamed it) printed 'Speculative metrics: Draft
            # acceptance rate: %.3f, Number of accepted tokens: %d, Number of draft tokens: %d, ': no k, no emitted
            self._v1_line(text, number, where)
        else:
            self._example_line(text, where)

    def _whole_text(self, text: str, number: int) -> tuple:
        """(text, number) of the line as it is read: a quoted list of rates as vLLM prints them, a wrapped line
        held before joined with its rest (under its first line's number; a held line that this one does not
        continue is read first, alone), and a V1 line quoted without its prefix given it back."""
        if "acceptance rate: [" in text:  # a list as Python or numpy prints it, quoted: '[0.89, 0.76]', '[0.89 0.76]'
            text = _BRACKETED.sub(lambda m: m.group(1) + ", ".join(m.group(2).replace(",", " ").split()), text)
        if self.pending is not None:
            held, held_number = self.pending
            self.pending = None
            if _continues(text):  # a paste wrapped the line: read it whole, under its first line's number
                text, number = held + " " + text.strip(), held_number
            else:
                self.line(held, held_number, whole=True)
        if "SpecDecoding metrics:" not in text and "Speculative metrics:" not in text and _V0_UNPREFIXED not in text \
                and re.search(r"Accepted: \S+ tokens, Drafted: \S+ tokens", text):
            # the line quoted without its prefix, its counts kept (vllm-project/speculators#613): read it whole
            start = text.find("Mean acceptance length:")
            text = "SpecDecoding metrics: " + (text[start:] if start >= 0 else text)
        return text, number

    def _end_listed(self):
        """Read the rates listed one a line (``Pos 1: 0.576`` ... ``Pos k: r``, a script's summary of the SpecDecoding
        lines) as one quoted 'Per-position acceptance rate:' list, with the mean quoted before it if any: the same
        figures, so the same reading (the mean at k = the list's length, no counts). The positions must run 1..k (or
        0..k-1) without a gap."""
        if not self.listed:
            return
        listed, self.listed = self.listed, []
        first, positions = listed[0][0], [position for _, position, _ in listed]
        if positions != list(range(positions[0], positions[0] + len(positions))) or positions[0] not in (0, 1):
            raise TraceError(f"line {first}: the rates listed as 'Pos i:' skip or repeat a position "
                             f"({', '.join(map(str, positions))}): paste every position, in order")
        self.lists.append(first)
        self._loose_rates("Per-position acceptance rate: " + ", ".join(rate for _, _, rate in listed), first)

    def _quoted_piece(self, text: str, number: int) -> bool:
        """Whether ``text`` (no metrics line) is a piece of a SpecDecoding line quoted on its own, now read: its
        per-position rates (maybe with a mean) or its mean acceptance length."""
        if "Per-position acceptance rate:" in text:  # quoted out of its line: the rates, maybe a mean
            self._loose_rates(text, number)
            return True
        if "Mean acceptance length:" in text:
            if _RANGED_MEAN.search(text):  # '2.32-2.66': a spread over intervals, not one mean (its lower end is not read)
                self.ranged_means.append(number)
                return True
            mean = _field(_V1_FIELDS["mean"], text)
            if mean is not None:
                self.loose_mean = _number(mean, "Mean acceptance length", f"line {number}")
            return True
        return False

    def _split_or_held(self, text: str, number: int, whole: bool) -> bool:
        """Whether ``text`` is not one record to read now: several SpecDecoding records run together (each is read
        now), a bare header (its fields, quoted on the lines below it, are read), or a line a paste wrapped (held
        until its rest arrives)."""
        if text.count("SpecDecoding metrics:") > 1:  # a paste that lost its newlines: one record each
            head, *records = text.split("SpecDecoding metrics:")
            for record in records:
                self.line("SpecDecoding metrics:" + record, number, whole)
            return True
        if text.rstrip().endswith("SpecDecoding metrics:") and text.count("SpecDecoding metrics:") == 1:
            return True  # a header with its fields quoted one a line below it (a note's reformatting): they are read
        if not whole and "SpecDecoding metrics:" in text and _wrapped(text):
            self.pending = (text.rstrip(), number)  # the rest of the line follows
            return True
        return False

    def _v0_line(self, text: str, number: int, where: str):
        """A V0 ``Speculative metrics:`` line: its cumulative counts (k, drafted, emitted; accepted and the system
        efficiency when printed)."""
        if not text.rstrip().endswith("."):  # V0 ends its line with '.' after the emitted count (result)
            self.open_v0 = number
        values = {key: _field(pattern, text) for key, pattern in _V0_FIELDS.items()}
        for key in ("k", "drafted", "emitted"):
            if values[key] is None:
                raise TraceError(f"{where}: a Speculative metrics line without its {key} count")
        self.v0.append({"number": number, "k": _count(values["k"], "Number of speculative tokens", where),
                        "drafted": _count(values["drafted"], "Number of draft tokens", where),
                        "emitted": _count(values["emitted"], "Number of emitted tokens", where),
                        "accepted": _count(values["accepted"], "Number of accepted tokens", where)
                        if values["accepted"] is not None else None,
                        "efficiency": _number(values["efficiency"], "System efficiency", where)
                        if values["efficiency"] is not None else None})

    def _v1_line(self, text: str, number: int, where: str):
        """A V1 ``SpecDecoding metrics:`` line (or one of V1 before 0.8.3): a record of its counts and every figure
        it prints; one without its counts is kept as abridged, an interval without drafts only counted."""
        accepted, drafted = _field(_V1_FIELDS["accepted"], text), _field(_V1_FIELDS["drafted"], text)
        slashed = _SLASHED_COUNTS.search(text) if accepted is None or drafted is None else None
        if slashed:  # 'Accepted 417 / Drafted 693': the counts reworded, read (the mean and the rates check them)
            accepted, drafted = slashed.groups()
            self.reworded.append(number)
        if accepted is None or drafted is None:
            self._abridged_line(text, number, where)
            return
        record = {"number": number, "accepted": _count(accepted, "Accepted", where),
                  "drafted": _count(drafted, "Drafted", where), "rates": None, "mean": None, "rate": None}
        if record["drafted"] == 0 and record["accepted"] == 0:
            self.idle += 1
            return  # an interval without drafts (its rates print as nan): nothing to add
        per_pos = _V1_FIELDS["perPos"].search(text)
        if per_pos and per_pos.group(1).strip():
            record["rates"] = _v1_rates(per_pos.group(1), where)
        record["coverage"] = _coverage(text, record["rates"], where)
        _v1_figures(text, record, where)
        # the rates end the line and the last has fewer decimals than the first (vLLM prints each with
        # %.3f): the line stops inside its last rate; only a last line without its newline can (result)
        digits = [len(part.partition(".")[2]) for part in per_pos.group(1).replace(",", " ").split()] \
            if per_pos and per_pos.end(1) >= len(text.rstrip()) else []
        record["inside"] = len(digits) > 1 and digits[-1] < digits[0]
        record["source"] = _source(text[:text.find("SpecDecoding metrics:")])
        self.records.append(record)

    def _abridged_line(self, text: str, number: int, where: str):
        """A SpecDecoding line without its Accepted/Drafted counts: its mean acceptance length and rates, kept."""
        mean = _field(_V1_FIELDS["mean"], text)
        if mean is None:
            raise TraceError(f"{where}: a SpecDecoding metrics line without Accepted/Drafted counts or a "
                             f"Mean acceptance length")
        per_pos = _V1_FIELDS["perPos"].search(text)
        rates = _v1_rates(per_pos.group(1), where) if per_pos and per_pos.group(1).strip() else None
        self.abridged.append((number, _number(mean, "Mean acceptance length", where), rates))
        rate, throughputs = _V1_FIELDS["rate"].search(text), _THROUGHPUTS.search(text)
        if rate and rate.group(2):  # 'Avg Draft acceptance rate: 100.0%': with the mean it fixes k (result)
            printed = _number(rate.group(1), "Avg Draft acceptance rate", where) / 100
            self.abridged_rates[number] = (max(printed - 0.0005, 0.0), min(printed + 0.0005, 1.0), "the Avg Draft acceptance rate")
        elif throughputs and float(throughputs.group(2)) > 0.005:
            # no Avg Draft acceptance rate, but both throughputs: vLLM divides the interval's accepted and drafted
            # tokens by the same elapsed time, so their ratio is the same rate, known within the %.2f printing
            accepted_tp, drafted_tp = (_number(value, "throughput", where) for value in throughputs.groups())
            self.abridged_rates[number] = (max(accepted_tp - 0.005, 0.0) / (drafted_tp + 0.005),
                                           min((accepted_tp + 0.005) / (drafted_tp - 0.005), 1.0),
                                           "the accepted / drafted throughputs' ratio")
        if rates and not text.rstrip().endswith(","):
            self.whole.add(number)  # it ends with its rates or after them: not cut off

    def _example_line(self, text: str, where: str):
        """A line of the spec_decode example's summary (``num_drafts: N``, ``acceptance at token i: r``, ...),
        added to its block: a block per run."""
        match = _VLLM_EXAMPLE.match(text)
        if not match:
            return
        key, position, value = match.groups()
        if key == "mean acceptance length":
            # the current example prints it after num_drafts; the V0-era example prints it first, alone
            if not self.blocks or "mean" in self.blocks[-1] or self.blocks[-1]["rates"]:
                if not self.blocks or "num_drafts" not in self.blocks[-1] or "mean" in self.blocks[-1]:
                    self.blocks.append({"rates": {}})
            self.blocks[-1]["mean"] = _number(value, key, where)
            return
        if key == "num_drafts" and self.blocks and set(self.blocks[-1]) == {"rates", "mean"} \
                and not self.blocks[-1]["rates"]:
            pass  # cannot happen in the example's order; keeps one block per run
        elif key == "num_drafts" or not self.blocks:
            self.blocks.append({"rates": {}})
        block = self.blocks[-1]
        if position is not None:
            block["rates"][int(position)] = _rate(value, f"acceptance at token {position}", where)
        else:
            if key in block:
                raise TraceError(f"{where}: {key} appears twice in one summary")
            block[key] = _count(value, key, where)

    def result(self, lookahead, model=None) -> Trace:
        cut = None
        self._end_listed()
        if self.pending is not None:  # a last line that ended with a comma: read as it is
            held, self.pending = self.pending, None
            try:
                self.line(*held, whole=True)
            except TraceError as error:
                if held[1] != getattr(self, "unterminated", None):
                    raise
                cut = (f"the last line (line {held[1]}) ends without a newline and cannot be read ({error}): it "
                       f"looks cut off, so only the complete lines before it are read")
        self.model = model
        last = self.records[-1] if self.records else None
        if last is not None and last["number"] == getattr(self, "unterminated", None) and not self.blocks and (
                last["inside"] or len(self.records) > 1 and last["shape"] != self.records[-2]["shape"]):
            self.records.pop()  # a last line without its newline that lacks what the line before it has: cut off
            if not self.records:
                raise TraceError(f"line {last['number']}: the only SpecDecoding metrics line ends without a newline "
                                 f"inside its per-position rates: it looks cut off")
            cut = (f"the last line (line {last['number']}) ends without a newline and lacks what the line before it "
                   f"prints (its rates or its Avg Draft acceptance rate): it looks cut off, so only the complete "
                   f"lines before it are read")
        trace = self._result(lookahead)
        extra = [cut] if cut else []
        extra += [f"line {number}: the rates listed one a line ('Pos i: r', a script's summary of the SpecDecoding lines, "
                  f"each figure its average over the lines it read) are read as one Per-position acceptance rate list"
                  for number in self.lists]
        extra += [f"line {number}: the mean acceptance length quoted as a range over several intervals is not read "
                  f"(not one interval's figure)" for number in self.ranged_means]
        extra += [f"line {number}: '{field}: {count} tokens' quoted alone, with no quoted rates within four lines of "
                  f"it: not read" for field, (count, number) in sorted(self.quoted_counts.items())]
        extra += [f"line {number}: a SpecDecoding line's fields quoted one a line (the mean, 'Accepted: N tokens', "
                  f"'Drafted: M tokens', the rates) read as that line" for number in self.assembled]
        if self.reworded and trace.drafts is not None:
            extra.append(f"line {self.reworded[0]}: the counts read as written there ('Accepted N / Drafted M', a rewording "
                         f"of vLLM's 'Accepted: %d tokens, Drafted: %d tokens'), checked against its mean and rates")
        if self.records and self.abridged:  # lines without counts beside lines with them: not added
            for number, _, _ in self.abridged:
                extra.append(f"the last line (line {number}) ends without a newline and has no Accepted/Drafted "
                             f"counts: it looks cut off, so only the complete lines before it are read"
                             if number == getattr(self, "unterminated", None) and number not in self.whole else
                             f"line {number}: a SpecDecoding metrics line without Accepted/Drafted counts, not added")
        return trace._replace(notes=trace.notes + tuple(extra)) if extra else trace

    def _result(self, lookahead) -> Trace:
        if self.blocks:
            return self._summary(lookahead)
        if self.v0 and self.v0[-1]["number"] == getattr(self, "unterminated", None) == getattr(self, "open_v0", None):
            self.v0_cut = self.v0.pop()["number"]  # the last line stops before its '.': a cut number would be read
        if getattr(self, "v0_cut", None) is not None:
            if not self.v0:
                raise TraceError(f"line {self.v0_cut}: the only Speculative metrics line ends without a newline before "
                                 f"its closing '.': it looks cut off")
            trace = self._v0_result(lookahead)
            return trace._replace(notes=trace.notes + (
                f"the last line (line {self.v0_cut}) ends without a newline before its closing '.': it looks cut off, "
                f"so only the complete lines before it are read",))
        if self.v0:
            return self._v0_result(lookahead)
        if not self.records and self.abridged:
            cut = [entry for entry in self.abridged
                   if entry[0] == getattr(self, "unterminated", None) and entry[0] not in self.whole]
            if cut and len(self.abridged) == 1:
                raise TraceError(f"line {cut[0][0]}: a SpecDecoding metrics line without Accepted/Drafted counts, "
                                 f"ending without a newline: it looks cut off")
            self.abridged = [entry for entry in self.abridged if entry not in cut]
            return self._abridged(lookahead)
        if not self.records and self.idle:
            raise TraceError(f"every SpecDecoding metrics line ({self.idle}) says Accepted: 0 tokens, Drafted: 0 "
                             f"tokens: no draft was verified in this log (paste lines from while requests ran)")
        if not self.records:
            raise TraceError("no SpecDecoding metrics line and no spec_decode summary found")
        return self._v1_result(lookahead)

    def _loose_rates(self, text: str, number: int):
        """A 'Per-position acceptance rate:' quoted without the rest of its SpecDecoding line (the
        mean on its own line before it, or none): vLLM's rates are c_i / calls, so their sum is the
        mean acceptance length minus one."""
        where = f"line {number}"
        per_pos = _V1_FIELDS["perPos"].search(text)
        if not per_pos:
            raise TraceError(f"{where}: 'Per-position acceptance rate:' without numbers after it")
        rates = _v1_rates(per_pos.group(1), where)
        if None in rates:
            raise TraceError(f"{where}: a per-position rate printed as ----- needs the line's Per-position "
                             f"verification coverage, which is missing")
        mean = _field(_V1_FIELDS["mean"], text)
        mean = _number(mean, "Mean acceptance length", where) if mean is not None else self.loose_mean
        self.loose_mean = None
        if mean is None and self.records and self.records[-1]["rates"] is None \
                and 0 < number - self.records[-1]["number"] <= 2:
            # the rates of the counted line just above, wrapped onto a line of their own where vLLM prints ', Per-position
            # acceptance rate:' (a reworded note; a script's two-line copy of vLLM's line): one record
            self.records[-1]["rates"] = rates
            return
        if mean is None and self.abridged and self.abridged[-1][2] is None and number - self.abridged[-1][0] <= 2:
            # the rates of the abridged line just above ('SpecDecoding metrics: Mean acceptance length: 1.00'
            # then the rates on the next line): one record, not two averaged
            self.abridged[-1] = (self.abridged[-1][0], self.abridged[-1][1], rates)
        else:
            self.abridged.append((number, mean if mean is not None else 1 + sum(rates), rates))
            if mean is None:
                self.unquoted_means.add(number)  # the mean is the rates' sum: not a printed figure to check against
        if not text.rstrip().endswith(","):
            self.whole.add(number)
        self._assemble_quoted()

    def _assemble_quoted(self):
        """A SpecDecoding line's fields quoted one a line (a note's reformatting: the mean, ``Accepted: N tokens``,
        ``Drafted: M tokens``, the rates, each on its own line): once both counts and the rates are in, within four
        lines of each other, they are read as the one line they were, its counts checked against its mean and rates
        as a printed line's are."""
        if set(self.quoted_counts) != {"Accepted", "Drafted"} or not self.abridged or self.abridged[-1][2] is None:
            return
        number, mean, rates = self.abridged[-1]
        if any(abs(at - number) > 4 for _, at in self.quoted_counts.values()) or None in rates:
            return
        self.abridged.pop()
        (accepted, _), (drafted, _) = self.quoted_counts["Accepted"], self.quoted_counts["Drafted"]
        self.quoted_counts = {}
        self.assembled.append(number)
        printed = "" if number in self.unquoted_means else f"Mean acceptance length: {mean:.2f}, "
        self._v1_line(f"SpecDecoding metrics: {printed}Accepted: {accepted} tokens, Drafted: {drafted} tokens, "
                      f"Per-position acceptance rate: {', '.join(f'{r:.3f}' for r in rates)}", number, f"line {number}")

    def _abridged(self, lookahead) -> Trace:
        """SpecDecoding lines pasted without their Accepted/Drafted counts (an issue or a blog
        quoting the mean and the rates only): the mean acceptance length, no counts. Several are
        averaged unweighted, as SGLang's lines are."""
        ks = {len(rates) for _, _, rates in self.abridged if rates}
        if len(ks) > 1 and lookahead in ks:  # two runs quoted (another num_speculative_tokens): the one asked for
            self.abridged = [entry for entry in self.abridged if entry[2] and len(entry[2]) == lookahead]
            ks = {lookahead}
        if len(ks) > 1:
            raise TraceError(f"the SpecDecoding lines disagree on the lookahead ({', '.join(map(str, sorted(ks)))} "
                             f"positions): choose one with --lookahead K")
        k = ks.pop() if ks else None
        if lookahead is not None and k is not None and lookahead != k:
            raise TraceError(f"the lines have {k} per-position rates but the lookahead given is {lookahead}")
        fitted = None
        if k is None and lookahead is None and self.abridged_rates \
                and len(self.abridged_rates) == len(self.abridged):  # every line printed its Avg Draft acceptance rate
            fits = set.intersection(*(set(_k_from_mean_and_rate(mean, *self.abridged_rates[number][:2]))
                                      for number, mean, _ in self.abridged))
            fitted = fits.pop() if len(fits) == 1 else None
        k = self.need_lookahead(k or lookahead or fitted, "the line has neither counts nor per-position rates")
        _check_lookahead(k)
        means = [mean for _, mean, _ in self.abridged]
        mean = sum(means) / len(means)
        if not 1 <= mean <= k + 1.005:
            raise TraceError(f"a mean acceptance length of {mean:.2f} is outside 1 to k + 1 = {k + 1}")
        notes = [f"line {self.abridged[0][0]}: SpecDecoding metrics without its Accepted/Drafted counts (abridged): "
                 f"the printed mean acceptance length is read, no intervals"
                 + (f"; averaged {len(means)} lines unweighted" if len(means) > 1 else "")]
        if fitted is not None:
            sources = sorted({label for _, _, label in self.abridged_rates.values()})
            notes.append(f"lookahead {k} read from the mean acceptance length and {' and '.join(sources)} (the only "
                         f"k with mean - 1 = k x rate, as full-length drafts give; n-gram drafts stop short: give "
                         f"--lookahead K then)")
        rates = self.abridged[-1][2]
        if rates and None not in rates:
            notes.append("printed per-position rates (share of calls whose first i drafts survived): "
                         + ", ".join(f"{r:.3f}" for r in rates))
            if len(means) == 1 and abs(sum(rates) - (mean - 1)) > 0.0005 * len(rates) + 0.005:
                notes.append(f"the rates sum to {sum(rates):.3f}, not the mean acceptance length minus one, "
                             f"{mean - 1:.2f}")
        return Trace(self.fmt, k, None, None, None, None, False, tuple(notes), min(mean, k + 1))

    def _v1_result(self, lookahead) -> Trace:
        lengths = {r["number"]: len(r["rates"]) for r in self.records if r["rates"]}
        k, chosen = _one_lookahead(lengths, lookahead, getattr(self, "model", None), "the log lines", "positions")
        if chosen is not None:
            self.records = [r for r in self.records if not r["rates"] or len(r["rates"]) == k]
        with_rates = {bool(r["rates"]) for r in self.records}
        if len(with_rates) > 1:
            raise TraceError("some SpecDecoding metrics lines have per-position rates and others do not")
        tally = _IntervalTally()
        sources = sorted({r.get("source") for r in self.records if r.get("source")})
        if len(sources) > 1:
            tally.notes.append(f"the SpecDecoding lines come from {len(sources)} processes ({', '.join(sources[:4])}"
                               f"{', ...' if len(sources) > 4 else ''}): summed as one server's; if they are different "
                               f"servers or models, paste one's lines")
        for r in self.records:
            self._add_interval(r, lookahead, tally)
        k = tally.ks.pop()
        notes = self._v1_notes(tally, k, chosen)
        per_position, covered = tally.per_position, tally.covered
        if tally.bound:
            per_position = None
        elif per_position is not None:
            notes.append("per-position counts rebuilt from the printed rates (rounded), so they are approximate")
        if covered is not None and not tally.with_coverage:
            notes.append("some lines print a per-position verification coverage and others do not: the drafted "
                         "tokens per position are not used")
            covered = None
        elif covered is not None:
            notes.append("the per-position rates are accepted / drafted at each position; the drafted tokens per "
                         "position come from the printed verification coverage x the calls")
        return _validated(Trace(self.fmt, k, tally.drafts, tally.draft_tokens, tally.accepted,
                                tuple(per_position) if per_position is not None else None,
                                False, tuple(notes), callsBound=tally.bound,
                                draftsPerPosition=tuple(covered) if covered is not None and not tally.bound else None),
                          tolerance=per_position is not None)

    def _add_interval(self, r: dict, lookahead, tally: "_IntervalTally"):
        """Add one SpecDecoding line (one logging interval) to ``tally``: its lookahead (one for all the lines), its
        calls, its counts, the printed figures that disagree with them, and its per-position counts."""
        number, acc, drafted, rates = r["number"], r["accepted"], r["drafted"], r["rates"]
        k = len(rates) if rates else self.need_lookahead(lookahead, "the log line has no per-position rates")
        if lookahead is not None and k != lookahead:
            raise TraceError(f"line {number} has {k} per-position rates but the lookahead given is {lookahead}")
        tally.ks.add(k)
        if len(tally.ks) > 1:
            raise TraceError(f"the log lines disagree on the lookahead ({min(tally.ks)} and {max(tally.ks)} positions, "
                             f"line {number}): two servers or a restart with another k; paste one server's lines")
        depth = r["depth"]
        if depth is not None and depth[1] != k:
            raise TraceError(f"line {number}: Mean verification depth is out of {depth[1]} but the line has "
                             f"{k} per-position rates")
        n = _interval_calls(r, k, tally)
        if n < 1 and drafted:
            raise TraceError(f"line {number}: {drafted} drafted tokens but no verifier call")
        tally.drafts, tally.draft_tokens, tally.accepted = tally.drafts + n, tally.draft_tokens + drafted, tally.accepted + acc
        if r["mean"] is not None and n and abs(r["mean"] - (1 + acc / n)) > MEAN_LENGTH_SLACK:
            tally.disagreements.append(f"line {number}: printed mean acceptance length {r['mean']:.2f} but 1 + "
                                       f"accepted / calls = {1 + acc / n:.3f}")
        if r["rate"] is not None and drafted and abs(r["rate"] - acc / drafted) > 0.00051 + (0.0005 if r["rate"] * 100 % 1 else 0):
            tally.disagreements.append(f"line {number}: printed acceptance rate {100 * r['rate']:.1f}% but accepted / "
                                       f"drafted = {100 * acc / drafted:.2f}%")
        if rates and not tally.bound:
            cov = r["coverage"]
            if cov is not None:  # rates are accepted / drafted at each position: the counts are rate x coverage x N
                reached = _monotone([round(c * n) for c in cov])
                counts = _monotone([min(round((rate or 0.0) * c * n), d) for rate, c, d in zip(rates, cov, reached)])
                tally.covered = reached if tally.covered is None else [a + b for a, b in zip(tally.covered, reached)]
            else:
                counts = _reconstruct(rates, int(n))
                tally.with_coverage = False
            tally.per_position = counts if tally.per_position is None else [a + b for a, b in zip(tally.per_position, counts)]

    def _v1_notes(self, tally: "_IntervalTally", k: int, chosen) -> list:
        """The notes of the summed lines: the lookahead chosen, how many lines, the short drafts (and the dynamic
        depth printed), the lines' own notes, then the printed figures that disagree."""
        notes = tally.notes
        if tally.short_lines:
            short_lines = tally.short_lines
            where = "line " + str(short_lines[0]) if len(short_lines) == 1 else f"{len(short_lines)} lines"
            dynamic = sorted({r["now"] for r in self.records if r.get("now") is not None and r["now"] < k})
            notes.insert(0, f"short drafts: on {where} the printed mean acceptance length disagrees with drafted / "
                            f"k, so the drafts were shorter than k = {k} ("
                            + (f"the printed Current speculative depth, {', '.join(map(str, dynamic))}; " if dynamic else "")
                            + "n-gram or suffix drafting, or the end of the context); the calls come from the printed "
                              "mean: accepted / (mean - 1)")
        if len(self.records) > 1:
            notes.insert(0, f"summed {len(self.records)} SpecDecoding metrics lines (each covers one logging interval)")
        notes += tally.disagreements
        if chosen is not None:
            notes.insert(0, chosen)
        return notes

    def _rates_only(self, lookahead) -> Trace:
        """The V0-era spec_decode example (``mean acceptance length: %.2f`` then ``acceptance at token
        i:%.2f`` with token 0 = all calls = 1.00): rates, no counts."""
        if len(self.blocks) > 1:
            raise TraceError(f"{len(self.blocks)} spec_decode summaries without counts: paste one")
        block = self.blocks[0]
        rates = [block["rates"][i] for i in sorted(block["rates"])]
        if sorted(block["rates"]) != list(range(len(rates))):
            raise TraceError("the acceptance at token i lines skip a position")
        if rates and rates[0] == 1.0:
            rates = rates[1:]  # token 0 is every call (the count the others are divided by)
        k = len(rates) or lookahead
        if lookahead is not None and rates and lookahead != len(rates):
            raise TraceError(f"the summary has {len(rates)} positions but the lookahead given is {lookahead}")
        k = self.need_lookahead(k, "no per-position rates")
        _check_lookahead(k)
        mean = block["mean"]
        if not 1 <= mean <= k + 1.005:
            raise TraceError(f"a mean acceptance length of {mean} is outside 1 to k + 1 = {k + 1}")
        notes = ["a spec_decode summary without counts (the V0-era example): the mean acceptance length is read, "
                 "no intervals"]
        if rates:
            notes.append("printed per-position rates (share of calls whose first i drafts survived): "
                         + ", ".join(f"{r:.2f}" for r in rates))
            if abs(sum(rates) - (mean - 1)) > 0.005 * (len(rates) + 1):
                notes.append(f"the rates sum to {sum(rates):.2f}, not the printed mean minus one, {mean - 1:.2f}")
        return Trace(self.fmt, k, None, None, None, None, False, tuple(notes), min(mean, k + 1))

    def _v0_result(self, lookahead) -> Trace:
        runs, previous = [], None
        for r in self.v0:
            if previous is not None and (r["drafted"] < previous["drafted"] or r["emitted"] < previous["emitted"]
                                         or r["k"] != previous["k"]):
                runs.append(previous)  # the counters dropped, or k changed: a restart, a new run
            previous = r
        runs.append(previous)
        k, chosen = _one_lookahead({r["number"]: r["k"] for r in self.v0}, lookahead, getattr(self, "model", None),
                                   "the Speculative metrics lines", "speculative tokens")
        every = len(runs)
        runs = [r for r in runs if r["k"] == k]
        if lookahead is not None and lookahead != k:
            raise TraceError(f"the log prints {k} speculative tokens but the lookahead given is {lookahead}")
        _check_lookahead(k) if 1 <= k <= MAX_LOOKAHEAD else self.need_lookahead(None, "k is out of range", "vllm-v0-log")
        drafted = sum(r["drafted"] for r in runs)
        emitted = sum(r["emitted"] for r in runs)
        calls, accepted = _v0_calls_and_accepted(drafted, emitted, k)
        notes = ([chosen] if chosen else []) + [
            f"V0 lines are cumulative: read the last of {sum(1 for r in self.v0 if r['k'] == k)} line(s)"
            + (f" of each of {len(runs)} runs (the counters restarted)" if len(runs) > 1 else "")
            + (f" ({every - len(runs)} run(s) at another k not read)" if every > len(runs) else "")]
        notes.append(f"calls = draft tokens / k = {calls}; accepted prefix = emitted - calls = {accepted} (V0's "
                     f"'accepted', {sum(r['accepted'] or 0 for r in runs)}, also counts drafts accepted after a "
                     f"rejection, vllm-project/vllm#9565)")
        for r in runs:
            n = r["drafted"] // k
            if r["efficiency"] is not None and n and abs(r["efficiency"] - r["emitted"] / (n * (k + 1))) > 0.0006:
                notes.append(f"line {r['number']}: printed system efficiency {r['efficiency']:.3f} but emitted / "
                             f"(calls (k + 1)) = {r['emitted'] / (n * (k + 1)):.4f}")
        return _validated(Trace("vllm-v0-log", k, calls, drafted, accepted, None, True, tuple(notes)))

    def _summary(self, lookahead) -> Trace:
        if all("num_drafts" not in block and "mean" in block for block in self.blocks):
            return self._rates_only(lookahead)
        drafts = draft_tokens = accepted = 0
        per_position = None
        ks, notes = set(), []
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
            k = self.need_lookahead(k, "no per-position rates, and num_draft_tokens / num_drafts is not whole")
            _check_lookahead(k)
            ks.add(k)
            if len(ks) > 1:
                raise TraceError(f"the summaries disagree on the lookahead ({min(ks)} and {max(ks)})")
            drafts += n
            draft_tokens += block.get("num_draft_tokens", n * k)
            accepted += block["num_accepted_tokens"]
            if n and block.get("num_draft_tokens", n * k) < n * k:
                notes.append(f"num_draft_tokens {block['num_draft_tokens']} < k x num_drafts = {n * k}: some drafts "
                             f"were shorter than k (the calls are counted exactly; per-position rates are over all "
                             f"calls)")
            if "mean" in block and n and abs(block["mean"] - (1 + block["num_accepted_tokens"] / n)) > MEAN_LENGTH_SLACK:
                notes.append(f"the printed mean acceptance length {block['mean']:.2f} disagrees with 1 + "
                             f"accepted / drafts = {1 + block['num_accepted_tokens'] / n:.3f}")
            if rates:
                counts = _reconstruct(rates, n)
                per_position = counts if per_position is None else [a + b for a, b in zip(per_position, counts)]
        k = ks.pop()
        if len(self.blocks) > 1:
            notes.insert(0, f"summed {len(self.blocks)} summaries")
        if self.records or self.v0:
            notes.insert(0, f"{len(self.records) + len(self.v0)} periodic metrics line(s) of the same run not added: "
                            f"the summary is the run's cumulative total")
        if per_position is not None:
            notes.append("per-position counts rebuilt from the printed 2-decimal rates, so they are approximate")
        return _validated(Trace(self.fmt, k, drafts, draft_tokens, accepted,
                                tuple(per_position) if per_position is not None else None,
                                per_position is None, tuple(notes)), tolerance=per_position is not None,
                          rate_decimals=2)


# --- the registry's rows (lab/traces/formats.py reads them; rank = detection order) ---------------------

_SPEC_LOG = "vllm-project/vllm `vllm/v1/spec_decode/metrics.py` (SpecDecodingLogging.log)"

# Whose output these formats are, and a substring each of its speculative-decoding lines carries: the
# reader names another engine's lines met inside a trace by them (lab.traces.formats.ENGINE_MARKERS).
ENGINE = "vLLM"
MARKERS = ("SpecDecoding metrics:", "Speculative metrics:")
# vLLM lines with no acceptance in them, named when nothing else in the text is read (lab.traces.formats.HINTS):
# V0's stage times (`vllm/spec_decode/spec_decode_worker.py`, `_maybe_log_stage_times`: 'SpecDecodeWorker stage
# times: average_time_per_proposal_tok_ms=%.02f scoring_time_ms=%.02f verification_time_ms=%.02f', verbatim in
# vllm-project/vllm#8370) and the periodic throughput line (`vllm/v1/metrics/loggers.py`, 'Engine 000: Avg prompt
# throughput: ...', quoted in vllm-project/vllm#15902)
HINTS = (
    ("SpecDecodeWorker stage times", "vLLM V0's 'SpecDecodeWorker stage times' line holds step times (proposal, "
                                     "scoring and verification, in ms), not acceptance: paste the 'Speculative "
                                     "metrics:' lines logged beside it"),
    ("Avg generation throughput", "vLLM's throughput lines hold no acceptance: paste the 'SpecDecoding metrics:' "
                                  "lines (V0: 'Speculative metrics:'; logged only with a speculative config and "
                                  "without --disable-log-stats), or the server's /metrics"),
    # a note's own rewording of SpecDecoding lines (tonyd2wild/DeepSeek-v4-Flash-Vision-Exp-DSpark-1M-NVFP4-KV-2x-DGX-
    # Spark#6: 'per-position: 0.968  0.912 ...' under 'mean accept length 5.09'): free wording is not guessed at
    ("per-position:", "a 'per-position:' list reworded from vLLM's SpecDecoding line is not read (no label the reader "
                      "knows): paste the SpecDecoding metrics lines as vLLM printed them, or each interval's 'Mean "
                      "acceptance length: X' with its 'Per-position acceptance rate: r1, r2, ...'"),
)

FORMATS = family(
    Format("vllm-v0-log", "vLLM V0 log (Speculative metrics: lines, until vLLM 0.9)", "the vLLM V0 log", _VllmLog,
           lambda line, stripped: "Speculative metrics:" in line
           or _V0_UNPREFIXED in line and "emitted tokens" in line, 20, (
               Sample("vllm_v0.log", None, None,
                      {"format": "vllm-v0-log", "lookahead": 3, "drafts": 4437, "draftTokens": 13311,
                       "accepted": 6179, "perPosition": None},
                      "verbatim from vllm-project/vllm#9539 (vLLM 0.6.3, k = 3); format `vllm/engine/metrics.py` "
                      "(`_format_spec_decode_metrics_str`)"),)),
    Format("vllm-log", "vLLM log (SpecDecoding metrics lines or the spec_decode example's summary)", "the vLLM log",
           _VllmLog, lambda line, stripped: "SpecDecoding metrics:" in line or "Per-position acceptance rate:" in line
           or bool(_VLLM_EXAMPLE.match(line)) and not line.lstrip().startswith("mean") or bool(_POS_RATE.match(line)),
           30, (
               Sample("vllm_log.txt", None, None,
                      {"format": "vllm-log", "lookahead": 6, "drafts": 527, "draftTokens": 3162, "accepted": 944,
                       "perPosition": (387, 242, 154, 89, 46, 26)},
                      "verbatim from noonghunna/club-3090 #105 (vLLM 0.20.1, MTP, k = 6); format " + _SPEC_LOG),
               Sample("vllm_spec_decode_summary.txt", None, None,
                      {"format": "vllm-log", "lookahead": 7, "drafts": 4816, "draftTokens": 33712, "accepted": 12208,
                       "perPosition": None},
                      "verbatim from vllm-project/vllm#26191; format `examples/offline_inference/spec_decode.py`"),
               Sample("vllm_ngram_summary.txt", None, None,
                      {"format": "vllm-log", "lookahead": 2, "drafts": 74097, "draftTokens": 147899,
                       "accepted": 141162, "perPosition": (71133, 69651)},
                      "verbatim from vllm-project/vllm#27287 (spec_decode.py `--method ngram`, k = 2, short drafts)"),
               Sample("vllm_ngram_short.log", None, None,
                      {"format": "vllm-log", "lookahead": 3, "drafts": 1000, "draftTokens": 2400, "accepted": 1200,
                       "perPosition": (550, 400, 250)},
                      "written from the same format string: n-gram drafts shorter than k, pasted with CRLF, colour "
                      "codes and the `(EngineCore_0 pid=...)` prefix"),
               Sample("vllm_periodic_and_summary.txt", None, None,
                      {"format": "vllm-log", "lookahead": 2, "drafts": 400, "draftTokens": 800, "accepted": 500,
                       "perPosition": (280, 220)},
                      "written from `vllm/v1/spec_decode/metrics.py` and `examples/offline_inference/spec_decode.py`: "
                      "periodic lines and the run's summary"),
               # per line: calls = Drafted / 6, c_i = rate x calls rounded (each line's c_i sum to its Accepted), summed
               # over the 16 lines: 1767 calls, 10602 drafted, 3535 accepted
               Sample("vllm_dflash_k6.log", None, None,
                      {"format": "vllm-log", "lookahead": 6, "drafts": 1767, "draftTokens": 10602, "accepted": 3535,
                       "perPosition": (1205, 814, 556, 404, 309, 247), "method": "block"},
                      "verbatim lines of a vLLM 0.22.0 DFlash log (k = 6, num_speculative_tokens in its "
                      "non-default args line) in a public repository's notes, read through the code index in "
                      "December 2026 (the index does not name the repository); abridged to the version, arguments "
                      "and SpecDecoding lines"),
           )),
)
