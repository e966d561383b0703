"""The one comparison that chose how the acceptance interval scales its residuals (docs/READING.md, "a calibrated
interval"), rerunnable: for each of three scalings of a held-out curve's error ln(measured L(K) / predicted L(K)) --
the positions predicted past the measured ones (K - m, the model's), the point's own extrapolated gain
ln L(K) - ln L(m), and the width ln(high / low) of the 10th-90th percentile of the lengths under the prior's spread of
shapes (the interval before) -- the nested held-out coverage of point x exp(q x scale) (q: the 10th and 90th
percentiles of the other curves' scaled errors), in all and by halves of reach (below the median and at or above it,
by K - m and by the gain), from k = 1 and from k = 1..2. The scaling with the smallest largest gap between halves was
chosen, once; this tool only shows the numbers (no choice is made from it again).

With ``--fully-nested`` it also runs the stricter check docs/READING.md reports: for each held-out curve, every other
curve's residual recomputed with the held-out curve out of the library too (so it is in no prior behind its own
interval's quantiles), the model's interval (K - m) from those quantiles, and how many held.

    .venv/bin/python tools/interval_scalings.py [--fully-nested]
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run by path: this checkout's lab/ first

from lab import acceptance, acceptance_prior  # noqa: E402
from lab import acceptance_validation as validation  # noqa: E402
from lab.acceptance_curves import CURVES  # noqa: E402
from lab.stats import median, percentile  # noqa: E402


def _rows(known: int) -> list[dict]:
    out = []
    for row in validation.leave_one_out(known)["rows"]:
        name = row["name"]
        lengths = validation.library_lengths(name)
        family, kind, values, *_ = CURVES[name]
        if kind == "unconditional":
            curve = validation.from_conditional(validation.conditional_from_unconditional(values[:known]), family,
                                                exclude=name)
        else:
            curve = validation.from_lengths({k: lengths[k - 1] for k in range(1, known + 1)}, family, exclude=name)
        top, m = row["lookahead"], curve.measuredAt
        shapes = [curve._replace(shape=(curve.shape[0] if curve.anchor is not None else s[0], s[1])).length(top)
                  for s in curve.spread]
        low, high = min(row["predicted"], percentile(shapes, 0.1)), max(row["predicted"], percentile(shapes, 0.9))
        out.append({"residual": row["residual"], "positions": top - m, "measured": row["measured"],
                    "gain": math.log(curve.length(top) / curve.length(m)), "width": math.log(high / low)})
    return out


def fully_nested(known: int) -> tuple[int, int]:
    """(held, curves): each curve's interval from quantiles of residuals computed on the library without it."""
    modules = (acceptance, acceptance_prior, validation)
    everything = dict(CURVES)
    full = {row["name"]: row for row in validation.leave_one_out(known)["rows"]}
    held = 0
    try:
        for name, row in full.items():
            for module in modules:
                module.CURVES = {other: entry for other, entry in everything.items() if other != name}
            acceptance._library_shapes.cache_clear()
            inner = validation.leave_one_out(known)["rows"]
            interval = validation.residual_interval(row["predicted"], row["reach"], validation._quantiles(inner),
                                                    row["atMeasured"], row["lookahead"] + 1)
            held += interval[0] <= row["measured"] <= interval[1]
    finally:
        for module in modules:
            module.CURVES = everything
        acceptance._library_shapes.cache_clear()
    return held, len(full)


def main() -> int:
    if "--fully-nested" in sys.argv[1:]:
        for known in (1, 2):
            held, curves = fully_nested(known)
            print(f"fully nested, from k = {'1' if known == 1 else '1..2'}: held {held} of {curves}")
    rows = {known: _rows(known) for known in (1, 2)}
    for scaling in ("positions", "gain", "width"):
        gaps, said = [], []
        for known, found in rows.items():
            held = []
            for index, row in enumerate(found):
                others = [r["residual"] / r[scaling] for j, r in enumerate(found) if j != index and r[scaling] > 0]
                low, high = percentile(others, 0.1), percentile(others, 0.9)
                held.append(low * row[scaling] <= row["residual"] <= high * row[scaling])
            parts = [f"from k = 1..{known}: {sum(held)} of {len(found)}" if known > 1 else
                     f"from k = 1: {sum(held)} of {len(found)}"]
            for axis in ("positions", "gain"):
                middle = median([r[axis] for r in found])
                short = [h for h, r in zip(held, found) if r[axis] < middle]
                long = [h for h, r in zip(held, found) if r[axis] >= middle]
                gaps.append(abs(sum(short) / len(short) - sum(long) / len(long)))
                parts.append(f"by {axis} {sum(short)}/{len(short)} below the median, {sum(long)}/{len(long)} at or above")
            said.append("; ".join(parts))
        print(f"{scaling}: largest gap {max(gaps):.3f}\n  " + "\n  ".join(said))
    return 0


if __name__ == "__main__":
    sys.exit(main())
