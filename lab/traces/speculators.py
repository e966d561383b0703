"""vllm-project/speculators' ``acceptance.csv``.
"""

import re

from .common import (
    Format, MAX_LABEL_SETS, Sample, Trace, TraceError, _Accumulator, _check_lookahead, _choose, _count,
    _number, _rate, _reconstruct, shortened, _validated, family,
)


class _SpeculatorsCsv(_Accumulator):
    """vllm-project/speculators' ``acceptance.csv`` (``scripts/evaluate/evaluate.py`` with
    ``perf_utils.acceptance_csv_columns``, read at commit c05b95b3, the same since the script was
    added in #434): ``subset, num_drafts, num_draft_tokens, num_accepted_tokens,
    acceptance_length, acceptance_at_pos_0, ...``, one row per dataset subset, written by
    ``csv.DictWriter`` from vLLM's /metrics deltas over the subset's run
    (``extract_spec_decode_metrics``): the counts are floats (``20.0``), ``acceptance_length`` =
    1 + accepted / drafts and ``acceptance_at_pos_i`` = c_{i+1} / drafts in full float precision,
    so the per-position counts come back exactly (rate x drafts, rounded). ``perf_results.csv``
    carries the same columns after its performance columns (one row per load point; a subset's
    repeated rows are read once). Each subset is one analysis (``--model SUBSET``). The same results rendered as a
    markdown table (``| subset | acceptance_length | pos_0 | ...``, percentages, no counts; a model card's, quoted
    in vllm-project/speculators#1135) give each subset's acceptance_length at k = its positions, no counts."""

    fmt = "speculators-csv"
    REQUIRED = ("num_drafts", "num_accepted_tokens")

    def __init__(self):
        self.header = None
        self.rows = {}
        self.table = False  # the results as a markdown table (a model card's), not the CSV
        self.no_length = False  # a markdown table of per-position acceptance alone (no acceptance_length column)

    def _table_line(self, stripped: str, where: str):
        """A row of the results rendered as a markdown table, as model cards quote them (vllm-project/speculators#1135:
        ``| subset | acceptance_length | pos_0 | ... |``, the rates in percent, no counts): each subset's
        acceptance_length and its rates, kept."""
        cells = [cell.strip() for cell in stripped.strip("|").split("|")]
        if all(re.fullmatch(r":?-{3,}:?", cell) for cell in cells):
            return  # the rule under the header
        if self.header is None:
            names = [re.sub(r"^(?:acceptance_at_)?pos_?(\d{1,2})$", r"pos_\1", cell.lower()) for cell in cells]
            positions = sorted(int(name[4:]) for name in names if re.fullmatch(r"pos_\d{1,2}", name))
            if not positions or "acceptance_length" not in names and names[1:] != [f"pos_{i}" for i in positions]:
                return
            if positions != list(range(len(positions))):
                raise TraceError(f"{where}: the pos_i columns skip a position")
            self.header, self.table, self.positions = names, True, positions
            self.no_length = "acceptance_length" not in names  # a label column and pos_i columns only
            return
        if len(cells) != len(self.header):
            raise TraceError(f"{where}: {len(cells)} cells under a header of {len(self.header)} columns")
        row = dict(zip(self.header, cells))
        name = row.get("subset") or (cells[0] if self.no_length and cells[0] else f"row {len(self.rows) + 1}")
        if len(self.rows) >= MAX_LABEL_SETS:
            raise TraceError(f"more than {MAX_LABEL_SETS} subsets in the table")
        cells = [row[f"pos_{i}"] for i in range(len(self.positions))]
        if self.no_length:  # the scale is the table's (result): kept as printed
            self.rows[name] = {"number": int(where.split()[1]), "printed": [
                (_number(cell.rstrip("%").strip(), f"pos_{i}", where), cell.endswith("%")) for i, cell in enumerate(cells)]}
            return
        rates = [_rate(cell.rstrip("%").strip(), f"pos_{i}", where, 100 if cell.endswith("%") else 1)
                 for i, cell in enumerate(cells)]
        self.rows[name] = {"number": int(where.split()[1]), "length": _number(row["acceptance_length"],
                           "acceptance_length", where), "rates": rates, "drafts": None}

    def _table_result(self, lookahead, model) -> Trace:
        """One subset of the table: its acceptance_length at k = the pos_i columns, no counts (the table prints
        none), so no intervals and no per-position curve; its rates must add up to the length minus one within the
        printing's rounding (each rate to 0.05 points of a percent)."""
        name, row = _choose(self.rows, model, "subset")
        if self.no_length:
            return self._rates_table_result(name, row, lookahead)
        rates, mean = row["rates"], row["length"]
        k = len(rates)
        if lookahead is not None and lookahead != k:
            raise TraceError(f"the table has {k} positions but the lookahead given is {lookahead}")
        _check_lookahead(k)
        if not 1 <= mean <= k + 1:
            raise TraceError(f"subset {shortened(name)!r}: an acceptance_length of {mean} is outside 1 to k + 1 = {k + 1}")
        notes = [f"subset {name}" + (f" (chosen of {len(self.rows)})" if len(self.rows) > 1 else ""),
                 "speculators' results as a markdown table (rates in percent, no counts): the acceptance_length at k = "
                 "the pos_i columns, no intervals and no per-position curve",
                 "printed per-position rates (share of calls whose first i drafts survived): "
                 + ", ".join(f"{rate:.3f}" for rate in rates)]
        if abs(1 + sum(rates) - mean) > 0.0005 * (k + 1) + 1e-9:
            notes.append(f"the pos_i columns add up to {sum(rates):.4f}, not the acceptance_length minus one, {mean - 1:.4f}")
        return Trace(self.fmt, k, None, None, None, None, False, tuple(notes), mean,
                     model=name if len(self.rows) > 1 else None)

    def _rates_table_result(self, name: str, row: dict, lookahead) -> Trace:
        """One row of a markdown table of per-position acceptance alone (``| run | pos0 | ... | pos4 |``, a note's
        table of ``vllm bench serve``'s 'Per-position acceptance (%)'): vLLM's rate at position i is the share of
        calls whose first i drafts survived, so the mean acceptance length is 1 + the rates' sum at k = the pos
        columns, no counts. Percent when any cell of the table exceeds 1 (or is written with %); the rates must not
        rise from one position to the next (a share of calls cannot), else they are not vLLM's and are refused."""
        percent = any(value > 1 or marked for other in self.rows.values() for value, marked in other["printed"])
        rates = [_rate(str(value), f"pos_{i}", f"line {row['number']}", 100 if percent else 1)
                 for i, (value, _) in enumerate(row["printed"])]
        k = len(rates)
        if lookahead is not None and lookahead != k:
            raise TraceError(f"the table has {k} positions but the lookahead given is {lookahead}")
        _check_lookahead(k)
        rising = next((i for i in range(1, k) if rates[i] > rates[i - 1] + 1e-9), None)
        if rising is not None:
            raise TraceError(f"row {shortened(name)!r}: pos_{rising} exceeds pos_{rising - 1}: these are not shares of "
                             f"calls (vLLM's per-position acceptance never rises), so the table cannot be read without "
                             f"its acceptance_length")
        notes = [f"row {name}" + (f" (chosen of {len(self.rows)})" if len(self.rows) > 1 else ""),
                 f"a markdown table of per-position acceptance alone (pos_i columns, no acceptance_length, read as "
                 f"{'percent' if percent else 'fractions'}): the mean acceptance length is 1 + the rates' sum at k = "
                 f"the pos_i columns, unchecked, no intervals and no per-position curve",
                 "printed per-position rates (share of calls whose first i drafts survived): "
                 + ", ".join(f"{rate:.4f}" for rate in rates)]
        return Trace(self.fmt, k, None, None, None, None, False, tuple(notes), 1 + sum(rates),
                     model=name if len(self.rows) > 1 else None)

    def line(self, text: str, number: int):
        stripped = text.strip()
        if not stripped or stripped.startswith(("#", "```")):
            return
        where = f"line {number}"
        if stripped.startswith("|") and (self.header is None or self.table):
            self._table_line(stripped, where)
            return
        cells = [cell.strip().strip('"') for cell in stripped.split(",")]
        if self.header is None:
            if not all(key in cells for key in self.REQUIRED):
                return  # text before the CSV (a shell prompt, a title)
            self.header = cells
            self.positions = sorted(int(c.rsplit("_", 1)[1]) for c in cells if re.fullmatch(r"acceptance_at_pos_\d{1,2}", c))
            if self.positions != list(range(len(self.positions))):
                raise TraceError(f"{where}: the acceptance_at_pos_i columns skip a position")
            return
        if len(cells) != len(self.header):
            raise TraceError(f"{where}: {len(cells)} cells under a header of {len(self.header)} columns")
        row = dict(zip(self.header, cells))
        name = row.get("subset") or f"row {len(self.rows) + 1}"
        if name in self.rows:
            return  # perf_results.csv repeats a subset's acceptance on every load point
        if len(self.rows) >= MAX_LABEL_SETS:
            raise TraceError(f"more than {MAX_LABEL_SETS} subsets in the CSV")
        if not row["num_drafts"]:
            raise TraceError(f"{where}: subset {shortened(name)!r} has no acceptance counts (a run without speculation)")
        record = {"number": number,
                  "drafts": _count(row["num_drafts"], "num_drafts", where),
                  "accepted": _count(row["num_accepted_tokens"], "num_accepted_tokens", where),
                  "draftTokens": _count(row["num_draft_tokens"], "num_draft_tokens", where)
                  if row.get("num_draft_tokens") else None,
                  "length": _number(row["acceptance_length"], "acceptance_length", where)
                  if row.get("acceptance_length") else None,
                  "rates": [_rate(row[f"acceptance_at_pos_{i}"], f"acceptance_at_pos_{i}", where)
                            for i in self.positions if row.get(f"acceptance_at_pos_{i}")]}
        self.rows[name] = record

    def result(self, lookahead, model=None) -> Trace:
        if self.table:
            if not self.rows:
                raise TraceError("the table has a header but no row")
            return self._table_result(lookahead, model)
        if self.header is None:
            raise TraceError("no CSV header with num_drafts and num_accepted_tokens")
        if not self.rows:
            raise TraceError("the CSV has a header but no row")
        name, row = _choose(self.rows, model, "subset")
        n, accepted, rates = row["drafts"], row["accepted"], row["rates"]
        notes = [f"subset {name}" + (f" (chosen of {len(self.rows)})" if len(self.rows) > 1 else "")]
        k = len(rates) or lookahead
        if lookahead is not None and rates and lookahead != len(rates):
            raise TraceError(f"the CSV has {len(rates)} positions but the lookahead given is {lookahead}")
        if k is None and row["draftTokens"] and n and row["draftTokens"] % n == 0:
            k = row["draftTokens"] // n
        k = self.need_lookahead(k, "no acceptance_at_pos_i columns")
        _check_lookahead(k)
        drafted = row["draftTokens"] if row["draftTokens"] is not None else n * k
        if row["length"] is not None and n and abs(row["length"] - (1 + accepted / n)) > 1e-6:
            notes.append(f"the printed acceptance_length {row['length']} is not 1 + accepted / drafts = "
                         f"{1 + accepted / n:.6f}")
        per_position = tuple(_reconstruct(rates, n)) if rates else None
        if per_position is not None and sum(per_position) != accepted:
            notes.append(f"the acceptance_at_pos_i columns add up to {sum(per_position)} accepted, not "
                         f"num_accepted_tokens {accepted} (speculators sums every per-position vLLM series, a "
                         f"num_draft_tokens_per_pos one too): the per-position curve is not read")
            per_position = None
        if drafted < n * k:
            notes.append(f"drafts averaged {drafted / n:.2f} tokens of at most k = {k}")
        return _validated(Trace(self.fmt, k, n, drafted, accepted, per_position, True, tuple(notes),
                                model=name if len(self.rows) > 1 else None))


# --- the registry's row (lab/traces/formats.py reads it; rank = detection order) ------------------------

_CSV_HEADER = re.compile(r"^[A-Za-z0-9_,\" ]*\bnum_drafts\b[A-Za-z0-9_,\" ]*\bnum_accepted_tokens\b[A-Za-z0-9_,\" ]*$")
# the same results as a markdown table (a model card's): '| subset | acceptance_length | pos_0 | ...'
_TABLE_HEADER = re.compile(r"^\|\s*subset\s*\|.*\bacceptance_length\b.*\|\s*(?:acceptance_at_)?pos_0\s*\|",
                           re.IGNORECASE)
# a note's table of per-position acceptance alone: a label column, then pos0 (or pos_0) ... only
_RATES_TABLE_HEADER = re.compile(r"^\|[^|]*\|(?:\s*pos_?\d{1,2}\s*\|)+\s*$", re.IGNORECASE)

# Whose output these formats are, and a substring each of its speculative-decoding lines carries: the
# reader names another engine's lines met inside a trace by them (lab.traces.formats.ENGINE_MARKERS).
ENGINE = None
MARKERS = ()  # a training repository's evaluation output, not an engine's

FORMATS = family(
    Format("speculators-csv", "vllm-project/speculators acceptance.csv (num_drafts, num_accepted_tokens, "
           "acceptance_at_pos_i; one analysis per subset), or per-position acceptance as a markdown table",
           "speculators' acceptance.csv or a per-position table", _SpeculatorsCsv,
           lambda line, stripped: bool(_CSV_HEADER.match(stripped)) or bool(_TABLE_HEADER.match(stripped))
           or bool(_RATES_TABLE_HEADER.match(stripped)), 110, (
               # subset qa: 20 drafts, 26 accepted, acceptance_at_pos 0.9 and 0.4 of 20 = 18 and 8
               Sample("speculators_acceptance.csv", None, "qa",
                      {"format": "speculators-csv", "lookahead": 2, "drafts": 20, "draftTokens": 40, "accepted": 26,
                       "perPosition": (18, 8)},
                      "what vllm-project/speculators `scripts/evaluate/evaluate.py` writes "
                      "(`perf_utils.extract_spec_decode_metrics`, `acceptance_csv_columns`, `CsvWriter` = "
                      "`csv.DictWriter`, read at commit c05b95b3) for the /metrics snapshots of its own regression "
                      "test `test_acceptance_is_reported_once_per_subset` (subsets qa and HumanEval); no acceptance.csv "
                      "of a real run was found in a public repository or issue, so the counts are that test's, the "
                      "layout and number formatting are the script's, byte for byte (CRLF as csv.DictWriter writes)"),
               Sample("speculators_acceptance.csv", None, "HumanEval",
                      {"format": "speculators-csv", "lookahead": 2, "drafts": 10, "draftTokens": 20, "accepted": 8,
                       "perPosition": (6, 2)}, "the same file, the other subset"),
           )),
)
