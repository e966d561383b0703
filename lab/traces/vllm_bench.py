"""``vllm bench serve``'s Speculative Decoding block (split from :mod:`.vllm`, whose log parser it
shares nothing with but the engine).
"""

import re

from .common import (
    Format, MEAN_LENGTH_SLACK, Sample, Trace, TraceError, _Accumulator, _check_lookahead, _choose, _count, _number,
    _rate, _reconstruct, _validated, family,
)


_BENCH_HEADER = re.compile(r"^-+\s*Speculative Decoding\s*-+\s*$")
_BENCH_FIELD = re.compile(r"^\s*(Acceptance rate \(%\)|Acceptance length|Drafts|Draft tokens|Accepted tokens|"
                          r"Position (\d{1,3}))\s*:\s*(\S+)\s*$")


class _VllmBench(_Accumulator):
    """``vllm bench serve``'s Speculative Decoding block (``vllm/benchmarks/serve.py``, read as
    printed in public runs of 2026): ``Acceptance rate (%)``, ``Acceptance length``, ``Drafts``,
    ``Draft tokens``, ``Accepted tokens`` and ``Per-position acceptance (%)`` with one ``Position
    i:`` line each (2 decimals, percent of drafts). The counts are deltas of the server's /metrics
    over the run, so they are exact; the per-position counts are rebuilt from the percentages.
    Several blocks (several runs) are one analysis each."""

    fmt = "vllm-bench"
    MARKERS = ("Speculative Decoding", "Acceptance", "Draft", "Accepted tokens", "Position")

    def __init__(self):
        self.blocks = []
        self.open = False

    def line(self, text: str, number: int):
        if _BENCH_HEADER.match(text.strip()):
            self.blocks.append({"rates": {}, "number": number})
            self.open = True
            return
        match = _BENCH_FIELD.match(text)
        if not self.open:
            if not match or match.group(1) not in ("Acceptance rate (%)", "Acceptance length", "Drafts"):
                return
            # pasted without its dashed header (markdown often eats it): the first field opens a block
            self.blocks.append({"rates": {}, "number": number})
            self.open = True
        if not match:
            if text.strip().startswith(("=", "-")) or not text.strip():
                self.open = "Per-position" in text or False
            return
        key, position, value = match.groups()
        where = f"line {number}"
        block = self.blocks[-1]
        if position is not None:
            block["rates"][int(position)] = _rate(value, f"position {position} acceptance", where, 100)
        elif key == "Acceptance rate (%)":
            block["rate"] = _number(value, key, where) / 100
        elif key == "Acceptance length":
            block["mean"] = _number(value, key, where)
        else:
            block[key] = _count(value, key, where)

    def result(self, lookahead, model=None) -> Trace:
        if not self.blocks:
            raise TraceError("no Speculative Decoding block found")
        series = {f"run {i}": block for i, block in enumerate(self.blocks, 1)} if len(self.blocks) > 1 \
            else {"run 1": self.blocks[0]}
        name, block = _choose(series, model, "benchmark run")
        if ("Drafts" not in block or "Accepted tokens" not in block) and "mean" in block:
            return self._abridged(block, lookahead, name if len(self.blocks) > 1 else None)
        for key in ("Drafts", "Accepted tokens"):
            if key not in block:
                raise TraceError(f"line {block['number']}: the Speculative Decoding block has no {key} line")
        n, accepted = block["Drafts"], block["Accepted tokens"]
        rates = [block["rates"][i] for i in sorted(block["rates"])]
        if sorted(block["rates"]) != list(range(len(rates))):
            raise TraceError("the Position i lines skip a position")
        notes = [f"{name} of {len(self.blocks)}"] if len(self.blocks) > 1 else []
        whole = block["Draft tokens"] // n if block.get("Draft tokens") and n and block["Draft tokens"] % n == 0 else 0
        if rates and whole > len(rates) and lookahead in (None, whole):
            # drafted / drafts is at most k, so more than the Position lines means some are missing (a paste that
            # stops inside the block): the totals are whole, the curve is not
            notes.append(f"the block lists {len(rates)} Position line(s) but Draft tokens / Drafts = {whole}: the rest "
                         f"are missing (the paste stops early?), so the totals are read at k = {whole} and the "
                         f"per-position curve is not")
            rates = []
            lookahead = whole
        k = len(rates) or lookahead
        if lookahead is not None and rates and lookahead != len(rates):
            raise TraceError(f"the block has {len(rates)} positions but the lookahead given is {lookahead}")
        if k is None and whole:
            k = whole
        k = self.need_lookahead(k, "no per-position lines")
        _check_lookahead(k)
        if "mean" in block and n and abs(block["mean"] - (1 + accepted / n)) > MEAN_LENGTH_SLACK:
            notes.append(f"the printed acceptance length {block['mean']:.2f} disagrees with 1 + accepted / drafts "
                         f"= {1 + accepted / n:.3f}")
        drafted = block.get("Draft tokens", n * k)
        if "rate" in block and drafted and abs(block["rate"] - accepted / drafted) > 0.000051:
            notes.append(f"the printed acceptance rate {100 * block['rate']:.2f}% disagrees with accepted / draft "
                         f"tokens = {100 * accepted / drafted:.3f}%")
        per_position = tuple(_reconstruct(rates, n)) if rates else None
        if per_position:
            notes.append("per-position counts rebuilt from the printed percentages (2 decimals), so they are approximate")
        return _validated(Trace(self.fmt, k, n, drafted, accepted, per_position, per_position is None, tuple(notes),
                                model=name if len(self.blocks) > 1 else None),
                          tolerance=per_position is not None, rate_decimals=4)


    def _abridged(self, block, lookahead, name) -> Trace:
        """A block quoted without its counts (Drafts, Accepted tokens): the printed acceptance
        length at k = the Position lines' count (or ``--lookahead``), no intervals."""
        rates = [block["rates"][i] for i in sorted(block["rates"])]
        if sorted(block["rates"]) != list(range(len(rates))):
            raise TraceError("the Position i lines skip a position")
        if lookahead is not None and rates and lookahead != len(rates):
            raise TraceError(f"the block has {len(rates)} positions but the lookahead given is {lookahead}")
        k = self.need_lookahead(len(rates) or lookahead, "the block has neither counts nor Position lines")
        _check_lookahead(k)
        mean = block["mean"]
        if not 1 <= mean <= k + 1.005:
            raise TraceError(f"an acceptance length of {mean} is outside 1 to k + 1 = {k + 1}")
        missing = [key for key in ("Drafts", "Accepted tokens") if key not in block]
        notes = [f"a Speculative Decoding block without its {' and '.join(missing)} line(s): the printed acceptance "
                 f"length is read, no counts, no intervals"]
        if rates:
            notes.append("printed per-position acceptance (share of drafts whose first i tokens survived): "
                         + ", ".join(f"{100 * r:.2f}%" for r in rates))
            if abs(sum(rates) - (mean - 1)) > 0.00005 * len(rates) + 0.005:
                notes.append(f"the positions sum to {sum(rates):.3f}, not the acceptance length minus one, "
                             f"{mean - 1:.2f}")
        return Trace(self.fmt, k, None, None, None, None, False, tuple(notes), min(mean, k + 1), model=name)


# --- the registry's row (lab/traces/formats.py reads it; rank = detection order) ------------------------

# Whose output this format is; its lines carry no marker of their own beyond the log's (lab.traces.vllm names vLLM's)
ENGINE = "vLLM"
MARKERS = ()

FORMATS = family(
    Format("vllm-bench", "vllm bench serve output (its Speculative Decoding block)", "vllm bench serve's block",
           _VllmBench, lambda line, stripped: bool(_BENCH_HEADER.match(stripped)) or bool(_BENCH_FIELD.match(line))
           and stripped.startswith(("Acceptance rate (%)", "Acceptance length:")), 40, (
               Sample("vllm_bench.txt", None, None,
                      {"format": "vllm-bench", "lookahead": 3, "drafts": 6393, "draftTokens": 19179,
                       "accepted": 14090, "perPosition": (5333, 4661, 4096)},
                      "the print of vllm-project/vllm `vllm/benchmarks/serve.py` (`\"{:<40} {:<10.2f}\"`, trailing "
                      "spaces kept), figures of a public MTP run (Qwen3.8-27B-FP8, k = 3)"),
               # 11043 drafts x 76.17% = 8411.45 -> 8411, 61.58% -> 6800, 51.25% -> 5660, 42.43% -> 4686, 36.40% ->
               # 4020, 30.94% -> 3417, 27.22% -> 3006, 23.65% -> 2612 (sum 38612, the printed total 38611)
               Sample("vllm_bench_mtp8.txt", None, None,
                      {"format": "vllm-bench", "lookahead": 8, "drafts": 11043, "draftTokens": 88344,
                       "accepted": 38611, "perPosition": (8411, 6800, 5660, 4686, 4020, 3417, 3006, 2612)},
                      "verbatim from vllm-project/vllm#48892 (comment of 2026-08-03: Model Runner V2's multi-layer "
                      "MTP, k = 8, gsm8k at temperature 0; the 2026 block, its per-position header and `Position 0:` "
                      "from 0)"),
           )),
)
