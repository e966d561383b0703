"""vLLM's ``/metrics``: the Prometheus text exposition of its speculative-decoding counters (V1,
with or without ``num_drafts``, and V0's).
"""

import re

from .common import (
    Format, MAX_LABEL_SETS, MAX_LOOKAHEAD, Sample, Trace, TraceError, _ANY, _Accumulator, _NUM, _choose,
    _count, _rate, shortened, _v0_calls_and_accepted, _validated, family,
)


_PROM_NAME_START = re.compile(r"[A-Za-z_:][A-Za-z0-9_:]*(?:\{|\s+[-+0-9.eEIinNaf]+\s*$)")
# a sample, or a row of Prometheus's table view pasted as markdown ('name{labels} | value', vllm-project/vllm#24049)
_PROM_LINE = re.compile(r"^([A-Za-z_:][A-Za-z0-9_:]*)(?:\{(.*)\})?(?:\s*\|\s*|\s+)(\S+)(?:\s+\S+)?\s*\|?\s*$")
_PROM_LABEL = re.compile(r'\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*"((?:[^"\\]|\\.)*)"\s*,?')
PROM_METRICS = {
    "vllm:spec_decode_num_drafts": "drafts",
    "vllm:spec_decode_num_draft_tokens": "draftTokens",
    "vllm:spec_decode_num_accepted_tokens": "accepted",
    "vllm:spec_decode_num_accepted_tokens_per_pos": "perPosition",
    "vllm:spec_decode_num_draft_tokens_per_pos": "draftsPerPosition",
    "vllm:spec_decode_num_emitted_tokens": "emitted",        # V0 only
    "vllm:spec_decode_efficiency": "efficiency",             # V0 gauge: emitted / (calls (k + 1))
}
MODEL_LABELS = ("model_name", "model")
# llama.cpp's /metrics (tools/server, 2026): llamacpp:spec_decode_num_drafts_total ("verification steps"),
# _num_draft_tokens_total, _num_accepted_tokens_total and _num_accepted_tokens_per_pos_total{position}, with
# vLLM's meaning (ggml-org/llama.cpp#24536: rate per position = accepted at i / verification steps)
LLAMACPP_PREFIX = "llamacpp:"
_SIX_DIGITS = re.compile(r"^([0-9])\.?([0-9]{0,5})e\+?0*([0-9]+)$")


def _summed_fields(series, positional, listed, totals: dict) -> tuple[tuple, tuple]:
    """One model's series (``{(field, model, labels, position): value}``) summed over their label sets: each of
    the ``positional`` fields into ``{position: sum}``, each of the ``listed`` fields' values into a list, every
    other field added to ``totals`` (in place). Returns the dicts and the lists, in the order named.

    >>> totals = {"drafts": 0}
    >>> _summed_fields({("perPosition", "m", (), 0): 3, ("perPosition", "m", (("rank", "1"),), 0): 4,
    ...                 ("drafts", "m", (), None): 5}, ("perPosition",), (), totals), totals
    ((({0: 7},), ()), {'drafts': 5})
    """
    by_position = {field: {} for field in positional}
    values = {field: [] for field in listed}
    for (field, _, _, position), value in series.items():
        if field in by_position:
            by_position[field][position] = by_position[field].get(position, 0) + value
        elif field in values:
            values[field].append(value)
        else:
            totals[field] += value
    return tuple(by_position[f] for f in positional), tuple(values[f] for f in listed)


def _prom_labels(text: str, where: str) -> tuple:
    labels, index = [], 0
    while index < len(text):
        match = _PROM_LABEL.match(text, index)
        if not match or match.end() == index:
            if text[index:].strip() in ("", ","):
                break
            raise TraceError(f"{where}: cannot read the labels {{{shortened(text)}}}")
        labels.append((match.group(1), match.group(2)))
        index = match.end()
    return tuple(sorted(labels))


def _uneven_positions(series: dict, notes: list) -> bool:
    """Whether the label sets carry different positions (a paste that kept some label sets' positions and not
    others', a table cut in the middle: their sum is a curve no engine counted); the note names what one lacks.

    >>> notes = []
    >>> _uneven_positions({("perPosition", "", (("rank", "0"),), 0): 3, ("perPosition", "", (("rank", "0"),), 1): 2,
    ...                    ("perPosition", "", (("rank", "1"),), 0): 4}, notes), len(notes)
    (True, 1)
    """
    held = {}
    for (field, _, labels, position) in series:
        if field == "perPosition":
            held.setdefault(labels, set()).add(position)
    uneven = len({frozenset(p) for p in held.values()}) > 1
    if uneven:
        every = set().union(*held.values())
        short = next(labels for labels, p in held.items() if p != every)
        lacking = ", ".join(str(p) for p in sorted(every - held[short])[:8])
        named = ", ".join(f"{key}={value}" for key, value in short) or "(no labels)"
        notes.append(f"the per-position series are uneven across label sets ({named} lacks position "
                     f"{lacking}): the totals are read, the per-position curve is not")
    return uneven


def _accepted_from_positions(positions: dict, uneven: bool, totals: dict, notes: list):
    """Without a num_accepted_tokens counter: the accepted total as the sum of complete per-position counters."""
    if not positions:
        raise TraceError("the exposition has no vllm:spec_decode_num_accepted_tokens counter")
    if uneven or sorted(positions) != list(range(max(positions) + 1)):
        raise TraceError("the exposition has no vllm:spec_decode_num_accepted_tokens counter and its "
                         "per-position series are incomplete, so the accepted total cannot be read: paste "
                         "the whole scrape")
    totals["accepted"] = sum(positions.values())
    notes.append("no num_accepted_tokens counter: the accepted total is the sum of the per-position counters")


def _counters_calls(totals: dict, seen: set, k: int, notes: list) -> tuple:
    """(verifier calls, whether they are only a lower bound): num_drafts, else drafted tokens / k (vLLM 0.8.x),
    which assumes full-length drafts and is a lower bound where it is not whole (noted)."""
    if "drafts" in seen:
        return totals["drafts"], False
    if "draftTokens" not in seen:
        raise TraceError("the exposition has neither vllm:spec_decode_num_drafts nor num_draft_tokens")
    drafts = totals["draftTokens"] / k
    if drafts.is_integer():
        drafts = int(drafts)
        notes.append(f"no num_drafts counter (vLLM 0.8.x): verifier calls = drafted tokens / k = {drafts}, "
                     f"which assumes full-length drafts (EAGLE, MTP and draft models; n-gram drafts can be "
                     f"shorter, and then it is a lower bound)")
        return drafts, False
    notes.append(f"no num_drafts counter and {totals['draftTokens']} drafted tokens is not a multiple of "
                 f"k = {k}: drafts were shorter than k, so drafted / k = {drafts:.1f} is only a lower "
                 f"bound on the verifier calls")
    return drafts, True


class _Prometheus(_Accumulator):
    """vLLM's ``/metrics``.

    * V1: counters defined in ``vllm/v1/spec_decode/metrics.py`` (``SpecDecodingProm``, read at
      vllm-project/vllm commit 016a858 and a 2026 version): ``num_drafts`` (verifier calls with a
      draft), ``num_draft_tokens``, ``num_accepted_tokens`` and ``num_accepted_tokens_per_pos``
      with a ``position`` label. vLLM 0.8.x had no ``num_drafts``: the calls are then drafted
      tokens / k (k from the positions or ``--lookahead``), which assumes full-length drafts. A
      ``num_draft_tokens_per_pos`` counter, where exported, gives the per-position denominators.
    * V0 (until 0.9, ``vllm/engine/metrics.py``): ``num_draft_tokens``, ``num_accepted_tokens``,
      ``num_emitted_tokens`` and the ``efficiency`` gauge. V0's "accepted" also counts drafts
      accepted after a rejection (vllm-project/vllm#9565), so the calls are drafted tokens / k (V0
      always proposes k) and the accepted prefix is emitted - calls (each call emits its accepted
      prefix plus one token).

    Counter samples carry the ``_total`` suffix (``_created`` samples are timestamps and are
    skipped). Label sets of one model (engine, data-parallel rank, ...) are summed; the models
    are told apart by ``model_name``. A series repeated in the text (two scrapes pasted) keeps its
    last value, because counters are cumulative."""

    fmt = "prometheus"

    def __init__(self):
        self.rounded = {}  # field -> how far its (summed) value may be from the count: llama.cpp's six digits
        self.series = {}   # (field, model, labels-without-position, position) -> value
        self.label_sets = set()
        self.engines = set()

    def line(self, text: str, number: int):
        stripped = text.strip()
        if not stripped or stripped.startswith("#"):
            return
        match = _PROM_LINE.match(stripped)
        if not match:
            if not _PROM_NAME_START.match(stripped):
                return  # a pasted code fence, shell prompt or prose around the samples
            raise TraceError(f"line {number}: not a Prometheus sample: {shortened(text)!r}")
        name = match.group(1)
        if name.endswith("_created"):
            return
        base = name[:-6] if name.endswith("_total") else name
        if base.startswith(LLAMACPP_PREFIX):  # llama.cpp's server exports vLLM's counters under its own prefix
            base = "vllm:" + base[len(LLAMACPP_PREFIX):]
            self.engines.add("llama.cpp")
        elif base.startswith("vllm:"):
            self.engines.add("vLLM")
        field = PROM_METRICS.get(base)
        if field is None:
            return  # every other metric of the scrape
        where = f"line {number}"
        labels = _prom_labels(match.group(2) or "", where)
        position = None
        rest, model = [], ""
        for key, value in labels:
            if key == "position":
                if field not in ("perPosition", "draftsPerPosition"):
                    raise TraceError(f"{where}: {base} has a position label")
                if not (value.isascii() and value.isdigit()) or len(value) > 3 or int(value) >= MAX_LOOKAHEAD:
                    raise TraceError(f"{where}: position {shortened(value, 20)!r} is not an integer from 0 to "
                                     f"{MAX_LOOKAHEAD - 1}")
                position = int(value)
            elif key in MODEL_LABELS:
                model = value
            else:
                rest.append((key, value))
        if field in ("perPosition", "draftsPerPosition") and position is None:
            raise TraceError(f"{where}: {base} has no position label")
        self.label_sets.add((model, tuple(rest)))
        if len(self.label_sets) > MAX_LABEL_SETS:
            raise TraceError(f"more than {MAX_LABEL_SETS} label sets in the exposition; paste one model's samples")
        if number == getattr(self, "unterminated", None) and name.startswith("vllm:") and "|" not in stripped \
                and match.group(3).isdigit():  # (llama.cpp's server writes integers without a '.': not a sign there)
            # prometheus_client writes every value with a '.' or an exponent (floatToGoString: '400000.0',
            # '1.234567e+06'): a last line without its newline whose value has neither stops inside the number
            self.cut = number
            return
        if field == "efficiency":
            self.series[(field, model, tuple(rest), None)] = _rate(match.group(3), base, where)
            return
        self.series[(field, model, tuple(rest), position)] = _count(match.group(3), base, where)
        short = _SIX_DIGITS.match(match.group(3))
        if short and name.startswith(LLAMACPP_PREFIX):
            # llama.cpp's server streams its scalar counters as doubles with six significant digits: 3054061
            # becomes '3.05406e+06', so the value is known to half a unit in the sixth digit
            self.rounded[field] = self.rounded.get(field, 0) + 0.5 * 10 ** (int(short.group(3)) - len(short.group(2)))

    def result(self, lookahead, model=None) -> Trace:
        if not self.series:
            raise TraceError("no vllm:spec_decode_* (or llamacpp:spec_decode_*) counters in the exposition")
        if len(self.engines) > 1:
            raise TraceError("the exposition mixes vllm:spec_decode_* and llamacpp:spec_decode_* counters: "
                             "paste one engine's scrape")
        name, series, notes, several = self._chosen_series(model)
        totals = {"drafts": 0, "draftTokens": 0, "accepted": 0, "emitted": 0}
        (positions, drafted_positions), (efficiencies,) = _summed_fields(
            series, ("perPosition", "draftsPerPosition"), ("efficiency",), totals)
        seen = {field for (field, _, _, _) in series}
        if "emitted" in seen:
            return self._v0(totals, efficiencies, lookahead, notes, name if several else None)
        uneven = _uneven_positions(series, notes)
        if "accepted" not in seen:
            _accepted_from_positions(positions, uneven, totals, notes)
        per_position = None
        self._rounding(positions, totals, notes)
        if positions:
            k, per_position = self._positions(positions, totals, seen, lookahead, notes)
            if uneven:
                per_position = None
        else:
            k = self.need_lookahead(lookahead, "no per-position counter")
        drafted_per_position = None
        if drafted_positions and len(drafted_positions) == k and sorted(drafted_positions) == list(range(k)):
            drafted_per_position = tuple(drafted_positions[p] for p in range(k))
            notes.append("per-position rates use the engine's drafted tokens per position as denominators")
        drafts, bound = _counters_calls(totals, seen, k, notes)
        if bound:
            per_position = None
        draft_tokens = totals["draftTokens"] if "draftTokens" in seen else drafts * k
        return _validated(Trace(self.fmt, k, drafts, draft_tokens, totals["accepted"], per_position, not bound,
                                tuple(notes), callsBound=bound, draftsPerPosition=drafted_per_position,
                                model=name if several else None))

    def _chosen_series(self, model) -> tuple:
        """(model name, its series, the notes on the scrape, whether it holds several models): the series grouped by
        model, one chosen (:func:`_choose`); the notes name llama.cpp's scrape, a cut last line, the model chosen
        and the label sets summed."""
        models = {}
        for key, value in self.series.items():
            models.setdefault(key[1], {})[key] = value
        name, series = _choose({m or "(no model_name label)": s for m, s in models.items()}, model, "model")
        label_sets = {labels for (_, _, labels, _) in series}
        notes = ["llama.cpp's /metrics (llamacpp:spec_decode_* counters, vLLM's names and meaning)"] \
            if self.engines == {"llama.cpp"} else []
        if getattr(self, "cut", None):
            notes.append(f"the last line (line {self.cut}) ends without a newline inside its value (vLLM's client "
                         f"writes every value with a '.' or an exponent): it looks cut off and is not read")
        if len(models) > 1:
            notes.append(f"model {name} (chosen of {len(models)})")
        if len(label_sets) > 1:
            keys = sorted({key for labels in label_sets for key, _ in labels})
            notes.append(f"summed {len(label_sets)} label sets of one model ({', '.join(keys)})")
        return name, series, notes, len(models) > 1

    def _rounding(self, positions: dict, totals: dict, notes: list):
        """llama.cpp's six significant digits: a note on how close the totals are, and the accepted total taken as
        the per-position counters' sum where the rounded one agrees with it to within the rounding."""
        if self.rounded:
            notes.append("llama.cpp writes counters of a million and more with six significant digits ("
                         + ", ".join(f"{field} to within {slack:g}" for field, slack in self.rounded.items())
                         + "): the totals are that close, not exact")
        slack = self.rounded.get("accepted", 0) + self.rounded.get("perPosition", 0)
        if positions and slack and totals["accepted"] != sum(positions.values()) \
                and abs(totals["accepted"] - sum(positions.values())) <= slack:
            totals["accepted"] = sum(positions.values())  # the per-position counters are written whole
            notes.append(f"the accepted total is the per-position counters' sum, {totals['accepted']}, which the "
                         f"rounded num_accepted_tokens agrees with to within the rounding")

    def _positions(self, positions: dict, totals: dict, seen: set, lookahead, notes: list):
        """(k, per-position counts or None). A scrape missing one position's series (a series
        dropped by a relabelling rule, a partial paste) still has exact totals: they are read, the
        curve is not, and the note names what is missing. k is the lookahead given, else drafted
        tokens / drafts where that is whole (vLLM's drafts are full length but for n-gram and suffix
        drafting), else the highest position printed + 1."""
        highest = max(positions) + 1
        k = lookahead
        if k is None and "drafts" in seen and "draftTokens" in seen and totals["drafts"] \
                and totals["draftTokens"] % totals["drafts"] == 0 and totals["draftTokens"] // totals["drafts"] > highest:
            k = totals["draftTokens"] // totals["drafts"]
        k = k if k is not None else highest
        if highest > k:
            raise TraceError(f"the exposition has {highest} positions but the lookahead given is {k}")
        missing = [p for p in range(k) if p not in positions]
        if not missing and sum(positions.values()) == totals["accepted"]:
            return k, tuple(positions[p] for p in range(k))
        if missing:
            named = ", ".join(str(p) for p in missing[:8]) + (", ..." if len(missing) > 8 else "")
            notes.append(f"the per-position counter has no series for position {named} (0 to {k - 1} expected, "
                         f"k = {k}{' from drafted tokens / drafts' if lookahead is None and k > highest else ''}): "
                         f"the totals are read, the per-position curve is not")
        else:
            notes.append(f"the per-position counters add up to {sum(positions.values())}, not the accepted total "
                         f"{totals['accepted']}: a position's series is missing, so the totals are read and the "
                         f"per-position curve is not")
        return k, None

    def _v0(self, totals, efficiencies, lookahead, notes, name) -> Trace:
        drafted, emitted = totals["draftTokens"], totals["emitted"]
        k = lookahead
        if k is None and len(efficiencies) == 1 and drafted:
            # efficiency = emitted / (calls (k + 1)) with calls = drafted / k: solve for k
            eff = efficiencies[0]
            denominator = emitted - eff * drafted
            if denominator > 0:
                guess = eff * drafted / denominator
                if abs(guess - round(guess)) < 0.02 and 1 <= round(guess) <= MAX_LOOKAHEAD:
                    k = int(round(guess))
                    notes.append(f"lookahead {k} solved from the efficiency gauge (emitted / (calls (k + 1)))")
        k = self.need_lookahead(k, "V0 counts tokens only", "vllm-v0-metrics")
        calls, accepted = _v0_calls_and_accepted(drafted, emitted, k)
        notes.append(f"vLLM V0: calls = draft tokens / k = {calls}; accepted prefix = emitted - calls = {accepted} "
                     f"(V0's accepted counter, {totals['accepted']}, also counts drafts accepted after a rejection, "
                     f"vllm-project/vllm#9565, so it is not used)")
        for eff in efficiencies:
            if abs(eff - emitted / (calls * (k + 1))) > 0.001:
                notes.append(f"the printed efficiency {eff:.3f} disagrees with emitted / (calls (k + 1)) = "
                             f"{emitted / (calls * (k + 1)):.3f}")
        return _validated(Trace("vllm-v0-metrics", k, calls, drafted, accepted, None, True, tuple(notes), model=name))


_V1_FIELDS = {
    "mean": re.compile(r"Mean acceptance length: (" + _NUM + ")"),
    "accepted": re.compile(r"(?:Accepted: (\S+) tokens|Number of accepted tokens: (" + _ANY + "))"),
    "drafted": re.compile(r"(?:Drafted: (\S+) tokens|Number of draft tokens: (" + _ANY + "))"),
    "drafts": re.compile(r"Number of drafts: (" + _NUM + ")"),
    "rate": re.compile(r"(?<!Per-position )(?:Avg )?Draft acceptance rate: (" + _NUM + ")(%?)"),
    # a 2026 version prints '-----' for a position no draft reached and, after the rates (then
    # accepted / drafted at each position), the share of calls that drafted it
    # the comma-separated numbers and nothing after them (a flattened paste runs the next record on)
    "perPos": re.compile(r"Per-position acceptance rate: ((?:-+|[0-9.]+)(?:,[ \t]*(?:-+|[0-9.]+))*)"),
    "coverage": re.compile(r"Per-position verification coverage: ([0-9.]+(?:,[ \t]*[0-9.]+)*)"),
    "depth": re.compile(r"Mean verification depth: (" + _NUM + r")/([0-9]+)"),
}
_V0_FIELDS = {
    "rate": re.compile(r"Draft acceptance rate: (" + _NUM + ")"),
    "efficiency": re.compile(r"System efficiency: (" + _NUM + ")"),
    "k": re.compile(r"Number of speculative tokens: (" + _NUM + ")"),
    "accepted": re.compile(r"Number of accepted tokens: (" + _NUM + ")"),
    # vLLM 0.4 printed 'Number of draft tokens tokens:' and 'Number of emitted tokens tokens:' (vllm-project/vllm
    # `vllm/engine/metrics.py` at commit 00c33e81, `_format_spec_decode_metrics_str`)
    "drafted": re.compile(r"Number of draft tokens(?: tokens)?: (" + _NUM + ")"),
    "emitted": re.compile(r"Number of emitted tokens(?: tokens)?: (" + _NUM + ")"),
}


# --- the registry's rows (lab/traces/formats.py reads them; rank = detection order) ---------------------

def _exposition(stripped: str) -> bool:
    return stripped.startswith(("vllm:spec_decode_", "# HELP vllm:spec_decode", "# TYPE vllm:spec_decode",
                                "llamacpp:spec_decode_", "# HELP llamacpp:spec_decode", "# TYPE llamacpp:spec_decode"))


def _v0_exposition(line: str, stripped: str) -> bool:
    return _exposition(stripped) and ("num_emitted_tokens" in stripped or "_efficiency" in stripped
                                      or "draft_acceptance_rate" in stripped)


# Whose output these formats are, and a substring each of its speculative-decoding lines carries: the
# reader names another engine's lines met inside a trace by them (lab.traces.formats.ENGINE_MARKERS).
ENGINE = "vLLM"
MARKERS = ()  # its lines are vLLM's /metrics; vllm.py carries the log markers

FORMATS = family(
    Format("vllm-v0-metrics", "vLLM V0 /metrics (counters of draft, accepted and emitted tokens)",
           "vLLM V0's /metrics", _Prometheus, _v0_exposition, 10, (
               Sample("vllm_v0_metrics.prom", None, None,
                      {"format": "vllm-v0-metrics", "lookahead": 3, "drafts": 4437, "draftTokens": 13311,
                       "accepted": 6179, "perPosition": None},
                      "written from vllm-project/vllm `vllm/engine/metrics.py` (V0 gauges and counters) with the "
                      "counts of vllm-project/vllm#9539"),)),
    Format("prometheus", "vLLM /metrics (Prometheus text exposition; V1 counters, with or without num_drafts)",
           "vLLM's /metrics", _Prometheus, lambda line, stripped: _exposition(stripped), 11, (
               Sample("prometheus.prom", None, None,
                      {"format": "prometheus", "lookahead": 3, "drafts": 160, "draftTokens": 480, "accepted": 225,
                       "perPosition": (110, 75, 40)},
                      "written from vllm-project/vllm `vllm/v1/spec_decode/metrics.py` (SpecDecodingProm); two engines of one model"),
               Sample("prometheus_two_models.prom", None, "a",
                      {"format": "prometheus", "lookahead": 2, "drafts": 160, "draftTokens": 320, "accepted": 170,
                       "perPosition": (100, 70)},
                      "written from the same file: two models (`model_name`), two scrapes pasted (the last value "
                      "of each series counts)"),
               Sample("prometheus_two_models.prom", None, "b",
                      {"format": "prometheus", "lookahead": 3, "drafts": 80, "draftTokens": 240, "accepted": 96,
                       "perPosition": (48, 32, 16)}, "the same file, the other model"),
               Sample("prometheus_v08.prom", 3, None,
                      {"format": "prometheus", "lookahead": 3, "drafts": 100, "draftTokens": 300, "accepted": 150,
                       "perPosition": None},
                      "written from `vllm/v1/spec_decode/metrics.py` as of vllm-project/vllm#15151 (vLLM 0.8.3: no "
                      "`num_drafts`)"),
           )),
)
