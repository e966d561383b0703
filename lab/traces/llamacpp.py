"""llama.cpp: the server's draft acceptance lines, the speculative examples' counts and the
statistics lines.
"""

import math
import re

from .common import (
    Format, MAX_DIGITS, MAX_LABEL_SETS, MAX_LOOKAHEAD, Sample, Trace, TraceError, _Accumulator,
    MEAN_LENGTH_SLACK, _calls_from_mean, _check_lookahead, _choose, _count, _json_count, _number, _rates,
    _reconstruct, _validated, count_text, family,
)
from .vllm_json import _VllmRequestJson


_LLAMA_SERVER = re.compile(r"draft acceptance(?: rate)?\s*=\s*(\S+)\s*\(\s*(\S+)\s+accepted\s*/\s*(\S+)\s+generated\s*\)")
# later copies of tools/server/server-context.cpp shorten the 2026 line to '..., mean len = %5.2f' and log the
# rates on a line of their own at trace verbosity ('     acc per pos = (%s)')
_LLAMA_MEAN = re.compile(r"mean (?:acceptance length|len)\s*=\s*(\S+?),?(?:\s|$)")
_LLAMA_PER_POS = re.compile(r"(?:acceptance rate per position|acc per pos)\s*=\s*\(([^)]*)\)")
# the server's per-call debug line (-v; update_slots): 'accepted %d/%d draft tokens, new n_tokens = %d'
_LLAMA_ROUND = re.compile(r"\baccepted\s+([0-9]+)\s*/\s*([0-9]+)\s+draft tokens")
_LLAMA_EXAMPLE = re.compile(r"\bn_(drafted|accept|predict)\s*=\s*(\S+)")
# the examples' 'decoded %4d tokens in %8.3f seconds, speed: %8.3f t/s' prints n_predict (examples/speculative,
# speculative-simple, lookup): a paste that dropped the n_predict line keeps it there (ggml-org/llama.cpp#22105)
_LLAMA_DECODED = re.compile(r"\bdecoded\s+([0-9]+)\s+tokens in\b")
# the start-up line; a DFlash drafter clamps n_max to its block ('  - n_max=16 -> clamped to 15 (trained DFlash
# block_size=16)', common_speculative_impl_draft_dflash, quoted in noonghunna/club-3090#759): the clamped value is k
_LLAMA_N_DRAFT = re.compile(r"\b(?:n_draft|n_max)\s*=\s*([0-9]+)(?:\s*->\s*clamped to\s*([0-9]+))?")
_LLAMA_STATS = re.compile(r"statistics\s+([A-Za-z0-9_.+-]+)\s*:(.*#gen drafts.*)$")
# a statistics field at the start of a line: the rest of a wrapped statistics line, or fields quoted one a line
_LLAMA_FIELD_START = re.compile(r"#(?:calls\(b,g,a\)|gen drafts|acc drafts|gen tokens|acc tokens|mean acc len|"
                                r"acc rate/pos)\s*=")
_LLAMA_STAT_FIELD = {
    "genDrafts": re.compile(r"#gen drafts\s*=\s*([0-9]+)"),
    "accDrafts": re.compile(r"#acc drafts\s*=\s*([0-9]+)"),
    "genTokens": re.compile(r"#gen tokens\s*=\s*([0-9]+)"),
    "accTokens": re.compile(r"#acc tokens\s*=\s*([0-9]+)"),
    "mean": re.compile(r"#mean acc len\s*=\s*([0-9.]+)"),
    "perPos": re.compile(r"#acc rate/pos\s*=\s*\(([^)]*)\)"),
}


class _LlamaLog(_Accumulator):
    """llama.cpp. Four shapes, read in ggml-org/llama.cpp:

    * the server's per-request line (``tools/server/server-context.cpp``, ``print_timings``): since
      2026 ``draft acceptance = %0.5f (%5d accepted / %5d generated), mean acceptance length =
      %5.2f, acceptance rate per position = (%.3f, ...)`` with mean = 1 + accepted / verification
      steps and each rate = c_i / steps, so the steps come from the printed mean, narrowed by the
      rates. Lines are summed over requests.
    * the older server line ``draft acceptance rate = %0.5f (%5d accepted / %5d generated)``: drafts
      stop early (``--draft-p-min``, ``--draft-min``, the adaptive schedule), so drafted / k is only
      a LOWER BOUND on the verifier calls (k = the most drafted per call: ``--lookahead``, or the
      start-up line ``n_draft =`` / ``n_max =``); the mean acceptance length and alpha are then
      upper bounds.
    * ``statistics <impl>: #calls(b,g,a) = ..., #gen drafts = %zu, #acc drafts = %zu, #gen tokens =
      %zu, #acc tokens = %zu[, #mean acc len = %.2f, #acc rate/pos = (...)]`` from
      ``common_speculative_print_stats`` (``common/speculative.cpp``): cumulative per implementation,
      so the last line of each counts (a drop is a restart and adds a run). ``#gen drafts`` is the
      number of drafts handed to the verifier, i.e. the call count. Several implementations are
      one analysis each (``--model IMPL``). When statistics lines are present they are used and
      the per-request lines of the same run are not added.
    * the speculative examples' summary: ``n_draft = %d`` (the most per call), ``n_predict = %d``,
      ``n_drafted = %d``, ``n_accept = %d``. Every verifier call emits its accepted drafts plus one
      token, so the calls follow from the printed counts: ``examples/speculative/speculative.cpp``
      (and ``lookup``) sample the first token from the prompt pass, so calls = n_predict - n_accept
      - 1; ``examples/speculative-simple`` feeds the prompt's last token to the first call, so calls
      = n_predict - n_accept (told apart by its statistics lines). The draft length per call is then
      known on average only. The summary's ``decoded %4d tokens in`` line prints n_predict too: it
      stands in for an ``n_predict`` line a paste dropped.
    """

    fmt = "llamacpp-log"
    MARKERS = ("draft acceptance", "n_draft", "n_accept", "n_predict", "n_drafted", "n_max", "#gen drafts",
               "speculative-simple", "draft tokens", "acc per pos", "#gen tokens", "#acc tokens", "#mean acc len",
               "#acc rate/pos", "#calls(b,g,a)", "#acc drafts", "decoded ")

    def __init__(self):
        self.requests = []     # server lines: dict
        self.stats = {}        # impl -> list of runs (dicts); the last dict is the current run
        self.example = []      # completed n_* summaries
        self.pending = {}
        self.n_draft = None    # the most drafted per call, from a start-up line or the example
        self.simple = False
        self.rounds = []       # (accepted, drafted) of each verifier call, from the server's -v lines
        self.wrapped = None    # (text, number): a statistics line a paste wrapped, waiting for its rest
        self.fields = None     # (number, [text]): statistics fields quoted one a line ('#gen drafts = 2053')
        self.loose_rates = []  # (number, mean, rates): '#acc rate/pos = (...)' quoted without its counts
        self.elided = None     # a 'draft acceptance =' line whose counts cannot be read

    def line(self, text: str, number: int):
        text, number, stripped = self._joined(text, number)
        if stripped.startswith("#") and _LLAMA_FIELD_START.match(stripped):
            self._field_line(stripped, number)
            return
        where = f"line {number}"
        round_ = _LLAMA_ROUND.search(text)
        if round_:
            if len(self.rounds) >= 10_000_000:
                raise TraceError(f"{where}: more than 10,000,000 per-call lines; paste fewer")
            self.rounds.append((_count(round_.group(1), "accepted", where), _count(round_.group(2), "drafted", where)))
            return
        if "speculative-simple" in text:
            self.simple = True
        stats = _LLAMA_STATS.search(text)
        if stats and text.rstrip().endswith(","):
            # a paste wrapped it ('#acc drafts = 37,' then its rest on the next lines): llama.cpp ends the line
            # with a count or with 'ms', never with a comma
            self.wrapped = (text.rstrip(), number)
            return
        if stats:
            self._stats(stats.group(1), stats.group(2), where, number)
            self.simple = True  # only speculative-simple and the server print statistics lines
            return
        if "acc per pos" in text and "draft acceptance" not in text and "#acc rate/pos" not in text:
            self._request_rates(text, number, where)
            return
        server = _LLAMA_SERVER.search(text)
        if server:
            self._server_line(text, server, number, where)
            return
        if re.search(r"draft acceptance(?: rate)?\s*=", text) and self.elided is None:
            self.elided = number  # its counts elided ('(…)') or unreadable: said if nothing else is read
        self._example_line(text, number, where)

    def _joined(self, text: str, number: int) -> tuple:
        """(text, number, stripped) of the line as it is read: a statistics line held for its rest joined with it
        (under its first line's number; a held line that this one does not continue is read first, alone), and
        statistics fields quoted one a line read once a line that is not one of them comes."""
        stripped = text.strip()
        if self.wrapped is not None:
            held, held_number = self.wrapped
            self.wrapped = None
            if stripped.startswith("#") and _LLAMA_FIELD_START.match(stripped):
                text, number, stripped = held + " " + stripped, held_number, (held + " " + stripped).strip()
            else:
                self._held_stats(held, held_number)
        if self.fields is not None and not (stripped.startswith("#") and _LLAMA_FIELD_START.match(stripped)):
            self._flush_fields()
        return text, number, stripped

    def _request_rates(self, text: str, number: int, where: str):
        """An 'acc per pos' line: the rates of the request line above it (the trace-level line after it), or rates
        quoted without a readable request line above them."""
        per_pos = _LLAMA_PER_POS.search(text)  # the trace-level line after its request's line
        if per_pos and per_pos.group(1).strip() and self.requests and self.requests[-1]["rates"] is None:
            self.requests[-1]["rates"] = _rates(per_pos.group(1), "acc per pos", where)
        elif per_pos and per_pos.group(1).strip():  # quoted without a readable request line above it
            self.loose_rates.append((number, None, _rates(per_pos.group(1), "acc per pos", where)))

    def _server_line(self, text: str, server, number: int, where: str):
        """A server request's 'draft acceptance' line: its accepted and generated drafts, and the mean acceptance
        length and the rates per position when it prints them."""
        record = {"number": number, "accepted": _count(server.group(2), "accepted", where),
                  "drafted": _count(server.group(3), "generated", where), "mean": None, "rates": None}
        mean = _LLAMA_MEAN.search(text)
        if mean:
            record["mean"] = _number(mean.group(1), "mean acceptance length", where)
        per_pos = _LLAMA_PER_POS.search(text)
        if per_pos and per_pos.group(1).strip():
            record["rates"] = _rates(per_pos.group(1), "acceptance rate per position", where)
        self.requests.append(record)

    def _example_line(self, text: str, number: int, where: str):
        """The speculative examples' lines: n_draft (the most per call, from a start-up line) and the summary's
        n_predict, n_drafted and n_accept, a summary complete once its drafted and accepted pair is read."""
        example = _LLAMA_EXAMPLE.findall(text)
        decoded = _LLAMA_DECODED.search(text)
        if decoded and not example:  # n_predict as the summary's first line prints it (kept unless n_predict follows)
            self.pending["decoded"] = _count(decoded.group(1), "decoded tokens", where)
            return
        n_draft = _LLAMA_N_DRAFT.search(text)
        if n_draft and not example:
            value = _count(n_draft.group(2) or n_draft.group(1), "n_draft", where)
            if 1 <= value <= MAX_LOOKAHEAD:
                self.n_draft = value
        for key, value in example:
            if key == "predict":
                # llama-cli's start-up line also prints n_predict (often -1): the last one before the pair counts
                value = value.rstrip(",")
                if value.isascii() and value.isdigit() and len(value) <= MAX_DIGITS:
                    self.pending["predict"] = int(value)
                continue
            if key in self.pending:
                raise TraceError(f"{where}: n_{key} appears twice before its pair")
            self.pending[key] = _count(value.rstrip(","), f"n_{key}", where)
            if "drafted" in self.pending and "accept" in self.pending:
                entry = dict(self.pending, number=number)
                if "predict" not in entry and "decoded" in entry:
                    entry["predict"], entry["fromDecoded"] = entry["decoded"], True
                self.example.append(entry)
                self.pending = {}

    def _held_stats(self, held: str, number: int):
        """A statistics line held for its rest that did not come: read what there is (a refusal
        names the count that is missing)."""
        stats = _LLAMA_STATS.search(held)
        self._stats(stats.group(1), stats.group(2), f"line {number}", number)
        self.simple = True

    def _field_line(self, stripped: str, number: int):
        """A line that starts with a statistics field (``#acc rate/pos = (...)``, ``#gen drafts =
        2053``): a README quoting the statistics line one field a line, or its rates alone. The rates
        alone, just below a server line without rates, are that request's (as ``acc per pos``)."""
        if stripped.startswith("#acc rate/pos") and self.fields is None and self.requests \
                and self.requests[-1]["rates"] is None and 0 < number - self.requests[-1]["number"] <= 2:
            per_pos = _LLAMA_STAT_FIELD["perPos"].search(stripped)
            if per_pos and per_pos.group(1).strip():
                self.requests[-1]["rates"] = _rates(per_pos.group(1), "#acc rate/pos", f"line {number}")
                return
        if self.fields is None:
            self.fields = (number, [])
        self.fields[1].append(stripped)

    def _flush_fields(self):
        number, texts = self.fields
        self.fields = None
        body = ", ".join(texts)
        where = f"line {number}"
        if "#gen drafts" in body or "#gen tokens" in body or "#acc tokens" in body:
            self._stats("statistics", body, where, number)  # the implementation's name was not quoted
            return
        per_pos = _LLAMA_STAT_FIELD["perPos"].search(body)
        if per_pos is None or not per_pos.group(1).strip():
            raise TraceError(f"{where}: llama.cpp statistics fields without #gen drafts, #gen tokens and #acc tokens, "
                             f"or #acc rate/pos: paste the whole 'statistics <impl>:' line")
        rates = _rates(per_pos.group(1), "#acc rate/pos", where)
        self.stats_fields = True
        mean = _LLAMA_STAT_FIELD["mean"].search(body)
        self.loose_rates.append((number, _number(mean.group(1), "#mean acc len", where) if mean else None, rates))

    def _stats(self, impl: str, body: str, where: str, number: int):
        values = {}
        for key, pattern in _LLAMA_STAT_FIELD.items():
            match = pattern.search(body)
            if match is None:
                continue
            if key == "perPos":
                values[key] = _rates(match.group(1), "#acc rate/pos", where) if match.group(1).strip() else None
            elif key == "mean":
                values[key] = _number(match.group(1), "#mean acc len", where)
            else:
                values[key] = _count(match.group(1), key, where)
        for key in ("genDrafts", "genTokens", "accTokens"):
            if key not in values:
                name = {"genDrafts": "#gen drafts", "genTokens": "#gen tokens", "accTokens": "#acc tokens"}[key]
                raise TraceError(f"{where}: a statistics line without its {name} (cut off? paste the whole line)")
        values["number"] = number
        runs = self.stats.setdefault(impl, [])
        if len(self.stats) > MAX_LABEL_SETS:
            raise TraceError(f"more than {MAX_LABEL_SETS} implementations in the statistics lines")
        if runs and (values["genDrafts"] < runs[-1]["genDrafts"] or values["accTokens"] < runs[-1]["accTokens"]):
            runs.append(values)   # the counters dropped: the server restarted
        elif runs:
            runs[-1] = values     # cumulative: the last line of a run holds the run
        else:
            runs.append(values)

    def result(self, lookahead, model=None) -> Trace:
        if self.wrapped is not None:
            held, number = self.wrapped
            self.wrapped = None
            self._held_stats(held, number)
        if self.fields is not None:
            self._flush_fields()
        if self.loose_rates and not (self.rounds or self.stats or self.example or self.requests):
            trace = self._loose_result(lookahead)
            if self.elided is not None:
                trace = trace._replace(notes=trace.notes + (
                    f"line {self.elided}: a draft acceptance line whose counts cannot be read (elided?): not used",))
            return trace
        if self.elided is not None and not (self.rounds or self.stats or self.example or self.requests):
            raise TraceError(f"line {self.elided}: the draft acceptance line's counts cannot be read (elided, as '(…)' "
                             f"in a note?): paste the line as llama-server printed it, '(%5d accepted / %5d "
                             f"generated)'")
        if set(self.pending) - {"predict"} and not self.example and not self.requests and not self.stats:
            present = "drafted" if "drafted" in self.pending else "accept"
            missing = "accept" if present == "drafted" else "drafted"
            raise TraceError(f"n_{present} without its n_{missing}")
        if self.rounds:
            return self._rounds_result(lookahead)
        if self.stats:
            return self._stats_result(lookahead, model)
        if self.example:
            return self._example_result(lookahead)
        if not self.requests:
            raise TraceError("no llama.cpp draft acceptance line, statistics line or n_drafted/n_accept pair found")
        return self._server_result(lookahead)

    def _loose_result(self, lookahead) -> Trace:
        """``#acc rate/pos = (...)`` or ``acc per pos = (...)`` quoted alone (a README's note): llama.cpp's
        rates are c_i / calls
        (``common_speculative_print_stats``), so 1 + their sum is the mean acceptance length; no
        counts, no intervals, k = the rates' count."""
        ks = {len(rates) for _, _, rates in self.loose_rates}
        if len(ks) > 1:
            raise TraceError(f"the #acc rate/pos lines disagree on the lookahead ({min(ks)} and {max(ks)} positions)")
        k = ks.pop()
        if lookahead is not None and lookahead != k:
            raise TraceError(f"the log prints {k} per-position rates but the lookahead given is {lookahead}")
        _check_lookahead(k)
        number, printed, rates = self.loose_rates[-1]
        rise = next((i for i in range(1, k) if rates[i] > rates[i - 1] + 0.0015), None)
        if rise is not None:
            raise TraceError(f"line {number}: the per-position rates rise from position {rise} to {rise + 1} "
                             f"({rates[rise - 1]:.3f} then {rates[rise]:.3f}), which a chain's counts cannot do (the "
                             f"calls that accept position {rise + 1} are among those that accept {rise}): check the paste")
        mean = 1 + sum(rates)
        notes = [f"line {number}: per-position rates quoted without their counts: the mean acceptance length is 1 + the "
                 f"rates' sum, no intervals"
                 + (f"; the last of {len(self.loose_rates)} lines is read" if len(self.loose_rates) > 1 else ""),
                 "printed per-position rates (share of calls whose first i drafts survived): "
                 + ", ".join(f"{r:.3f}" for r in rates)]
        if printed is not None and abs(printed - mean) > 0.0005 * k + 0.005:
            notes.append(f"the rates sum to {mean - 1:.3f}, not the printed #mean acc len minus one, {printed - 1:.2f}")
        fmt = "llamacpp-stats" if getattr(self, "stats_fields", False) else "llamacpp-log"  # '#acc rate/pos' or 'acc per pos'
        return Trace(fmt, k, None, None, None, None, False, tuple(notes), min(mean, k + 1))

    def _rounds_result(self, lookahead) -> Trace:
        """The server's per-call lines (``accepted %d/%d draft tokens``, logged with ``-v``): an
        exact histogram of accepted drafts per call and of drafted tokens per position (drafts
        stop early, so the positions have their own denominators). Before ggml-org/llama.cpp#18211
        (December 2025) the line printed the drafted count as 0 ('accepted 11/0'): those lines
        give the accepted drafts only, and k must be given."""
        notes = [f"{len(self.rounds)} per-call lines (accepted / drafted of each verifier call): exact counts"]
        others = len(self.requests) + sum(len(runs) for runs in self.stats.values())
        if others:
            notes.append(f"{others} per-request or statistics line(s) of the same run not added: the per-call lines "
                         f"are exact")
        zeroed = sum(1 for a, d in self.rounds if a > d)
        if zeroed:
            k = self.need_lookahead(lookahead, "its per-call lines print the drafted count as 0 (before "
                                               "ggml-org/llama.cpp#18211)")
            notes.append(f"{zeroed} line(s) print more accepted than drafted (the drafted count logged as 0 before "
                         f"ggml-org/llama.cpp#18211): drafted tokens are not read, k = {k} is taken as every draft's "
                         f"length")
            rounds = [(a, k) for a, _ in self.rounds]
        else:
            rounds = self.rounds
            k = max(d for _, d in rounds)
            if lookahead is not None:
                if k > lookahead:
                    raise TraceError(f"a call drafted {k} tokens but the lookahead given is {lookahead}")
                k = lookahead
        if not 1 <= k <= MAX_LOOKAHEAD:
            raise TraceError(f"a call drafted {k} tokens; at most {MAX_LOOKAHEAD} positions are read")
        if any(a > k for a, _ in rounds):
            raise TraceError(f"a call accepted more drafts than k = {k}")
        calls = [(a, d) for a, d in rounds if d > 0]
        if len(calls) < len(rounds):
            notes.append(f"{len(rounds) - len(calls)} call(s) without a draft skipped")
        per_position = tuple(sum(1 for a, _ in calls if a >= i) for i in range(1, k + 1))
        drafted = tuple(sum(1 for _, d in calls if d >= i) for i in range(1, k + 1))
        full = all(d == k for _, d in calls)
        if not full:
            notes.append("drafts stop early (p-min, the adaptive length): the per-position rates use the calls that "
                         "drafted each position")
        return _validated(Trace(self.fmt, k, len(calls), sum(d for _, d in calls), sum(a for a, _ in calls),
                                per_position, True, tuple(notes), draftsPerPosition=None if full else drafted))

    def _k(self, lookahead, rates_length, notes, why):
        if lookahead is not None:
            if rates_length and rates_length != lookahead:
                raise TraceError(f"the log prints {rates_length} per-position rates but the lookahead given is {lookahead}")
            return lookahead
        if rates_length:
            return rates_length
        if self.n_draft:
            notes.append(f"lookahead {self.n_draft} read from the start-up line (n_draft / n_max: the most drafted per call)")
            return self.n_draft
        return self.need_lookahead(None, why)

    def _stats_result(self, lookahead, model) -> Trace:
        active = {impl: runs for impl, runs in self.stats.items() if sum(r["genDrafts"] for r in runs)}
        idle = sorted(set(self.stats) - set(active))
        if not active:
            raise TraceError(f"the statistics lines record no drafts ({', '.join(idle)})")
        name, runs = _choose(active, model, "speculative implementation")
        notes = [f"implementation {name}" + (f" (chosen of {len(active)})" if len(active) > 1 else "")]
        if idle:
            notes.append(f"{len(idle)} implementation(s) without drafts skipped: {', '.join(idle)}")
        if len(runs) > 1:
            notes.append(f"the counters restarted {len(runs) - 1} time(s): {len(runs)} runs added")
        notes.append("statistics lines are cumulative: the last line of each run is read; #gen drafts is the call count")
        if self.requests or self.example:
            notes.append(f"{len(self.requests) + len(self.example)} per-request line(s) of the same run not added")
        last = max(r["number"] for runs_ in self.stats.values() for r in runs_)
        after = [r for r in self.requests if r["number"] > last]
        if after:
            notes.append(f"{len(after)} request line(s) after the last statistics line (line {last}), the first at line "
                         f"{after[0]['number']}, are not in its cumulative counts: the log looks cut before their "
                         f"statistics line, so only the requests up to line {last} are read")
        rate_lengths = {len(r["perPos"]) for r in runs if r.get("perPos")}
        if len(rate_lengths) > 1:  # a restart with another n_max: runs of two lookaheads are not added together
            runs = self._one_k(runs, "perPos", lookahead, notes)
            rate_lengths = {len(runs[0]["perPos"])}
        calls = sum(r["genDrafts"] for r in runs)
        drafted = sum(r["genTokens"] for r in runs)
        if rate_lengths and drafted > calls * max(rate_lengths):
            # drafts longer on average than the #acc rate/pos list (ngram-mod's: 920 tokens in 31 drafts, two rates):
            # the list covers the first positions only, so it does not give k and gives no curve of every position
            short = (f"the #acc rate/pos list has {max(rate_lengths)} positions but the drafts averaged "
                     f"{drafted / calls:.2f} tokens ({drafted} in {calls} calls): it covers the first positions only")
            k = self.need_lookahead(lookahead, short + ", so it does not give the lookahead")
            if k * calls < drafted:
                raise TraceError(f"{short}, and more than the lookahead given, {k}")
            notes.append(short + f" ({', '.join(f'{rate:.3f}' for rate in runs[-1]['perPos'])}): not read as a curve")
            rate_lengths = set()
            runs = [dict(r, perPos=None) for r in runs]
        else:
            k = self._k(lookahead, max(rate_lengths) if rate_lengths else None, notes,
                        "no #acc rate/pos and no n_draft start-up line")
        accepted = sum(r["accTokens"] for r in runs)
        per_position = None
        if all(r.get("perPos") and len(r["perPos"]) == k for r in runs):
            per_position = [0] * k
            for r in runs:
                per_position = [a + b for a, b in zip(per_position, _reconstruct(r["perPos"], r["genDrafts"]))]
            notes.append("per-position counts rebuilt from #acc rate/pos (3 decimals), so they are approximate")
        for r in runs:
            if r.get("mean") is not None and r["genDrafts"] and abs(r["mean"] - (1 + r["accTokens"] / r["genDrafts"])) > MEAN_LENGTH_SLACK:
                notes.append(f"line {r['number']}: printed #mean acc len {r['mean']:.2f} but 1 + #acc tokens / "
                             f"#gen drafts = {1 + r['accTokens'] / r['genDrafts']:.3f}")
            if per_position is not None and r.get("accDrafts") is not None and r.get("perPos") and \
                    abs(r["accDrafts"] - r["perPos"][0] * r["genDrafts"]) > 0.0005 * r["genDrafts"] + 1:
                notes.append(f"line {r['number']}: #acc drafts {r['accDrafts']} disagrees with position 1's rate x "
                             f"#gen drafts = {r['perPos'][0] * r['genDrafts']:.0f}")
        if drafted < calls * k:
            notes.append(f"drafts averaged {drafted / calls:.3f} tokens of at most k = {k} ({drafted} in {calls} calls, "
                         f"not {calls * k}: early stops): per-position "
                         f"rates are over all calls")
        return _validated(Trace("llamacpp-stats", k, calls, drafted, accepted,
                                tuple(per_position) if per_position else None, per_position is None, tuple(notes),
                                model=name if len(active) > 1 else None), tolerance=per_position is not None)

    def _example_result(self, lookahead) -> Trace:
        notes = []
        if lookahead is None and self.n_draft is None:
            self.n_draft = None
        calls = drafted = accepted = 0
        for entry in self.example:
            if "predict" not in entry:
                raise TraceError(f"line {entry['number']}: n_drafted and n_accept without n_predict: the calls cannot "
                                 f"be counted (every call emits its accepted drafts plus one token)")
            first_from_prompt = 0 if self.simple else 1
            n = entry["predict"] - entry["accept"] - first_from_prompt
            if n < 1:
                raise TraceError(f"line {entry['number']}: n_predict {entry['predict']} and n_accept {entry['accept']} "
                                 f"leave no verifier call")
            if entry["accept"] > entry["drafted"]:
                raise TraceError(f"inconsistent counts: n_accept {entry['accept']} exceeds n_drafted {entry['drafted']}")
            calls, drafted, accepted = calls + n, drafted + entry["drafted"], accepted + entry["accept"]
        if len(self.example) > 1:
            notes.append(f"summed {len(self.example)} runs")
        for entry in self.example:
            if entry.get("fromDecoded"):
                notes.append(f"line {entry['number']}: no n_predict line: n_predict = {entry['predict']} read from the "
                             f"summary's 'decoded {entry['predict']} tokens' line (the examples print n_predict there)")
        rule = ("speculative-simple: calls = n_predict - n_accept" if self.simple else
                "calls = n_predict - n_accept - 1 (the speculative and lookup examples sample the first token from "
                "the prompt pass; speculative-simple would give one call more)")
        notes.append(rule)
        k = self._k(lookahead, None, notes, "no n_draft line")
        notes.append(f"drafts averaged {drafted / calls:.2f} tokens (k = {k} is the most): the per-call draft length "
                     f"is known on average only")
        if accepted > calls * k:
            raise TraceError(f"inconsistent counts: {accepted} accepted in {calls} calls of at most k = {k} drafts")
        return _validated(Trace(self.fmt, k, calls, drafted, accepted, None, True, tuple(notes)))

    @staticmethod
    def _one_k(records, key, lookahead, notes):
        """The records of one lookahead (their rates' count) when a log holds several (a restart with
        another n_max): ``--lookahead`` chooses, otherwise the refusal names each."""
        by_k = {}
        for r in records:
            if r.get(key):
                by_k.setdefault(len(r[key]), []).append(r)
        if lookahead in by_k:
            left = sum(len(v) for k, v in by_k.items() if k != lookahead)
            notes.append(f"lookahead {lookahead} chosen: {left} line(s) of another lookahead not added")
            return by_k[lookahead]
        named = "; ".join(f"k = {k} on {len(v)} line(s) from line {v[0]['number']}" for k, v in sorted(by_k.items()))
        raise TraceError(f"the log holds runs of {len(by_k)} lookaheads ({named}): choose one with --lookahead K")

    def _server_result(self, lookahead) -> Trace:
        notes = []
        rate_lengths = {len(r["rates"]) for r in self.requests if r["rates"]}
        if len(rate_lengths) > 1:
            self.requests = self._one_k(self.requests, "rates", lookahead, notes)
            rate_lengths = {len(self.requests[0]["rates"])}
        with_mean = [r for r in self.requests if r["mean"] is not None]
        k = self._k(lookahead, rate_lengths.pop() if rate_lengths else None, notes,
                    "its mean acceptance length gives the verifier calls, not the most drafted per call (n_max)"
                    if with_mean else "it counts tokens, not verifier calls")
        if with_mean and len(with_mean) != len(self.requests):
            notes.append(f"{len(self.requests) - len(with_mean)} older line(s) without a mean acceptance length skipped")
        if with_mean:
            calls = drafted = accepted = 0
            per_position = [0] * k if all(r["rates"] for r in with_mean) else None
            loose = []  # lines whose 2-decimal mean fits several call counts that no rates narrow
            for r in with_mean:
                if r["accepted"] == 0:
                    n = math.ceil(r["drafted"] / k)
                    if r["drafted"]:
                        notes.append(f"line {r['number']}: nothing accepted, so the calls are at least drafted / k")
                else:
                    n, span = _calls_from_mean(r["accepted"], r["mean"], 2, r["rates"], 3)
                    if n is None:
                        raise TraceError(f"line {r['number']}: the printed mean acceptance length {r['mean']} cannot "
                                         f"come from {r['accepted']} accepted tokens")
                    if span[0] != span[1] and not r["rates"]:
                        loose.append(f"line {r['number']}: {span[0]} to {span[1]}, {n} read")
                if per_position is not None and n:
                    per_position = [a + b for a, b in zip(per_position, _reconstruct(r["rates"], n))]
                calls, drafted, accepted = calls + n, drafted + r["drafted"], accepted + r["accepted"]
            if len(with_mean) > 1:
                notes.insert(0, f"summed {len(with_mean)} requests")
            notes.append("verifier calls rebuilt from the printed mean acceptance length (accepted / (mean - 1))"
                         + (", narrowed by the per-position rates" if per_position is not None else ""))
            if loose:  # ggml-org/llama.cpp's 'mean len = %5.2f' without its rates (a long request): say how loose
                notes.append("the 2-decimal mean fits several call counts (" + "; ".join(loose[:4])
                             + (f"; {len(loose) - 4} more" if len(loose) > 4 else "") + ")")
            if drafted < calls * k:
                notes.append(f"drafts averaged {drafted / calls:.3f} tokens of at most k = {k} ({drafted} in {calls} "
                             f"calls, not {calls * k}: early stops)")
            return _validated(Trace(self.fmt, k, calls, drafted, accepted,
                                    tuple(per_position) if per_position else None, False, tuple(notes)),
                              tolerance=True)
        accepted = sum(r["accepted"] for r in self.requests)
        drafted = sum(r["drafted"] for r in self.requests)
        if len(self.requests) > 1:
            notes.insert(0, f"summed {len(self.requests)} requests")
        bound = drafted / k
        notes.append(f"lower bound: llama.cpp drafts stop early, so drafted / k = {count_text(bound)} is the FEWEST verifier "
                     f"calls these tokens allow; the mean acceptance length and alpha shown are upper bounds (a "
                     f"newer server prints the mean acceptance length, which gives the calls)")
        return _validated(Trace(self.fmt, k, bound, drafted, accepted, None, False, tuple(notes), callsBound=True))


class _LlamaTimingsJson(_VllmRequestJson):
    """llama-server's ``timings`` object, as JSON (a ``/completion`` or ``/v1/chat/completions``
    response, or the ``data:`` lines of a streamed one): ``draft_n`` (draft tokens handed to the
    verifier, the server line's "generated") and ``draft_n_accepted``, written only when a draft was
    made (``result_timings::to_json`` in ggml-org/llama.cpp ``tools/server/server-task.cpp``, earlier
    ``server.cpp``), beside ``predicted_n`` (tokens generated). The numbers are the older server
    line's: tokens, not verifier calls, and drafts stop early, so drafted / k is only a LOWER BOUND
    on the calls (k = ``--lookahead``, or the response's ``generation_settings`` ``speculative.n_max``).
    Each decode step emits its accepted drafts plus one token and the first token comes from the
    prompt pass, so ``predicted_n - draft_n_accepted - 1`` bounds the calls from above; where the two
    bounds meet the calls are exact. Requests are summed; chunks of one streamed request
    (``timings_per_token``) repeat its running totals, so the last chunk of each ``id`` counts."""

    fmt = "llamacpp-json"

    def line(self, text: str, number: int):
        stripped = text.strip()
        if stripped.startswith("data:"):  # server-sent events: 'data: {...}' and 'data: [DONE]'
            stripped = stripped[5:].strip()
            text = "" if stripped == "[DONE]" else stripped
        super().line(text, number)

    def _walk(self, value, found: dict, ident, depth=0):
        if depth > 20:
            return
        if isinstance(value, list):
            for item in value:
                self._walk(item, found, ident, depth + 1)
        elif isinstance(value, dict):
            ident = value.get("id", ident) if isinstance(value.get("id"), (str, int)) else ident
            settings = value.get("generation_settings")
            if isinstance(settings, dict) and isinstance(settings.get("speculative.n_max"), int):
                self.n_max.add(settings["speculative.n_max"])
            if "draft_n_accepted" in value:
                key = ident if ident is not None else ("request", len(found))
                found[key] = value  # a later chunk of the same request holds its running totals
                return
            for item in value.values():
                self._walk(item, found, ident, depth + 1)

    def result(self, lookahead, model=None) -> Trace:
        self.n_max, found = set(), {}
        for line, document in self._documents():
            before = set(found)
            self._walk(document, found, None)
            for key in set(found) - before:
                found[key] = (line, found[key])
            for key in before & set(found):
                if not isinstance(found[key], tuple):
                    found[key] = (line, found[key])
        if not found:
            raise TraceError("no llama.cpp timings with draft_n_accepted in the JSON (the server writes draft_n and "
                             "draft_n_accepted only when it drafted)")
        notes = []
        k = lookahead
        if k is None and len(self.n_max) == 1 and 1 <= min(self.n_max) <= MAX_LOOKAHEAD:
            k = self.n_max.pop()
            notes.append(f"lookahead {k} read from generation_settings speculative.n_max (the most drafted per call)")
        k = self.need_lookahead(k, "its timings count draft tokens, not verifier calls")
        _check_lookahead(k)
        drafted = accepted = 0
        upper, bounded = 0, True
        for line, record in found.values():
            where = f"line {line}"
            d = _json_count(record.get("draft_n"), "draft_n", where)
            a = _json_count(record["draft_n_accepted"], "draft_n_accepted", where)
            if a > d:
                raise TraceError(f"{where}: draft_n_accepted {a} exceeds draft_n {d}")
            if "predicted_n" in record:
                upper += max(0, _json_count(record["predicted_n"], "predicted_n", where) - a - 1)
            else:
                bounded = False
            drafted, accepted = drafted + d, accepted + a
        if not drafted:
            raise TraceError("the timings record no draft tokens")
        lower = drafted / k
        if getattr(self, "cut", None):
            notes.append(f"line {self.cut} was cut off (the input stops inside it) and is not read")
        if len(found) > 1:
            notes.insert(0, f"summed {len(found)} requests")
        if bounded and lower.is_integer() and upper == lower:
            notes.append(f"verifier calls = drafted / k = {int(lower)} = predicted_n - accepted - 1 per request: the "
                         f"two bounds meet, so every decode step drafted k tokens")
            return _validated(Trace(self.fmt, k, int(lower), drafted, accepted, None, True, tuple(notes)))
        notes.append(f"lower bound: llama.cpp drafts stop early, so drafted / k = {count_text(lower)} is the FEWEST "
                     f"verifier calls these tokens allow"
                     + (f" (at most {upper}: predicted_n - draft_n_accepted - 1, one decode step per token not "
                        f"accepted from a draft, the first token coming from the prompt)" if bounded else "")
                     + "; the mean acceptance length and alpha shown are upper bounds")
        if bounded and upper < lower:
            notes.append(f"predicted_n leaves at most {upper} decode steps, fewer than drafted / k: check the lookahead")
        return _validated(Trace(self.fmt, k, lower, drafted, accepted, None, False, tuple(notes), callsBound=True))


# --- the registry's rows (lab/traces/formats.py reads them; rank = detection order) ---------------------

_LLAMA_DETECT = re.compile(r"\bdecoded\s+[0-9]+\s+tokens in\b|\bacc per pos\s*=\s*\(|\bn_(drafted|accept|predict|draft)\s*=|\bn_max\s*=\s*[0-9]+, n_min|draft acceptance(?: rate)?\s*=|statistics\s+\S+\s*:.*#gen drafts|update_slots:.*\baccepted\s+[0-9]+\s*/\s*[0-9]+\s+draft tokens")

# Whose output these formats are, and a substring each of its speculative-decoding lines carries: the
# reader names another engine's lines met inside a trace by them (lab.traces.formats.ENGINE_MARKERS).
ENGINE = "llama.cpp"
MARKERS = ("draft acceptance", "#acc tokens")

FORMATS = family(
    Format("llamacpp-stats", "llama.cpp statistics lines (#gen drafts, #acc tokens; one analysis per implementation)",
           "llama.cpp's statistics lines", _LlamaLog,
           lambda line, stripped: "#gen drafts" in line and bool(_LLAMA_DETECT.search(line))
           or stripped.startswith(("#calls(b,g,a)", "#gen drafts", "#acc rate/pos"))
           and bool(_LLAMA_FIELD_START.match(stripped)), 60, (
               Sample("llamacpp_2026_stats.log", None, None,
                      {"format": "llamacpp-stats", "lookahead": 3, "drafts": 87, "draftTokens": 259, "accepted": 167,
                       "perPosition": (70, 55, 42)},
                      "verbatim from ggml-org/llama.cpp#24536: the request line and the `statistics draft-eagle3:` "
                      "line"),
               Sample("llamacpp_stats_two.log", 16, "draft",
                      {"format": "llamacpp-stats", "lookahead": 16, "drafts": 10, "draftTokens": 110, "accepted": 98,
                       "perPosition": None},
                      "verbatim from ggml-org/llama.cpp `docs/speculative.md` (Statistics): two implementations"),
               # the last statistics line (cumulative over the two requests): 206 calls, 411 drafted, 311 accepted;
               # 0.840 x 206 = 173.04 -> 173 (= #acc drafts), 0.670 x 206 = 138.02 -> 138 (173 + 138 = 311)
               Sample("llamacpp_2026_mtp.log", None, None,
                      {"format": "llamacpp-stats", "lookahead": 2, "drafts": 206, "draftTokens": 411, "accepted": 311,
                       "perPosition": (173, 138)},
                      "verbatim from a public repository's notes (a llama-server MTP log on Vulkan, read through the "
                      "code index in December 2026; the index does not name the repository): the later server line "
                      "('mean len') and the statistics line prefixed 'spec common_specu:', two requests"),
           )),
    Format("llamacpp-log", "llama.cpp log (server draft acceptance lines or the speculative examples' "
           "n_predict/n_accept)", "llama.cpp's log", _LlamaLog,
           lambda line, stripped: bool(_LLAMA_DETECT.search(line)), 61, (
               Sample("llamacpp_server.log", 7, None,
                      {"format": "llamacpp-log", "lookahead": 7, "drafts": 33, "draftTokens": 231, "accepted": 133,
                       "perPosition": None, "callsBound": True},
                      "written from ggml-org/llama.cpp `tools/server/server.cpp` (print_timings, the older line: a "
                      "lower bound)"),
               Sample("llamacpp_speculative.log", None, None,
                      {"format": "llamacpp-log", "lookahead": 8, "drafts": 67, "draftTokens": 96, "accepted": 60,
                       "perPosition": None},
                      "written from ggml-org/llama.cpp `examples/speculative/speculative.cpp` (n_draft, n_predict, "
                      "n_drafted, n_accept)"),
               Sample("llamacpp_2026.log", None, None,
                      {"format": "llamacpp-log", "lookahead": 3, "drafts": 87, "draftTokens": 259, "accepted": 167,
                       "perPosition": (70, 55, 42)},
                      "verbatim from ggml-org/llama.cpp#24536 (merged 2026-06-15, EAGLE-3, k = 3): the 2026 server "
                      "line"),
           )),
    Format("llamacpp-json", "llama.cpp server timings JSON (draft_n, draft_n_accepted; needs k, gives a lower bound)",
           "llama.cpp's timings JSON", _LlamaTimingsJson, lambda line, stripped: '"draft_n_accepted"' in line, 85, (
               # 604 drafted at k = 8: at least 75.5 calls; predicted_n 665 - 515 - 1 = 149 decode steps at most
               Sample("llamacpp_timings.jsonl", 8, None,
                      {"format": "llamacpp-json", "lookahead": 8, "drafts": 75.5, "draftTokens": 604,
                       "accepted": 515, "perPosition": None, "callsBound": True},
                      "the last two `data:` lines of a streamed llama-server (build b9251) chat completion with "
                      "DFlash, quoted in a public script's comment (read through the code index, December 2026): "
                      "`timings` as ggml-org/llama.cpp `tools/server/server-task.cpp` (`result_timings::to_json`) "
                      "writes it"),
           ), whole_json=True),
)
