"""``python -m lab exact``: the part-three exact rejection-sampling lab for one setting, as
:func:`lab.exact.evaluate` computes it (the exact-lab contract, docs/CONTRACT.md), with its signature.

    python -m lab exact [--certainty PCT] [--draft-cost PCT] [--gamma K] [--length N] [--match PCT]
                        [--seed N] [--json]

Every flag is one of the exact widget's sliders (:data:`lab.urlstate.EXACT_SLIDERS`), with its range.
"""

__all__ = ["add_parser", "run", "VALUE_FLAGS"]

from ..cli import add_slider_flags, flag_name, slider_value
from ..urlstate import EXACT_SLIDERS, describe_range

VALUE_FLAGS = {flag_name(s.name): describe_range(s) for s in EXACT_SLIDERS}


def add_parser(commands):
    parser = commands.add_parser("exact", help="the part-three exact rejection-sampling lab")
    add_slider_flags(parser, sorted(EXACT_SLIDERS, key=lambda s: s.name.lower()))
    parser.add_argument("--json", action="store_true")
    return parser


def run(args):
    from .. import audit, exact

    values = {}
    for slider in EXACT_SLIDERS:
        text = getattr(args, slider.name)
        values[slider.name] = slider.default if text is None else slider_value(slider, text)
    result = exact.evaluate(**values)
    c, t, s = result["contract"], result["trace"], result["samples"]
    lines = [
        "params        " + " ".join(f"{k}={v}" for k, v in result["params"].items()),
        f"alpha         {c['alpha']:.6f}   TV(p, q) {c['draftTv']:.6f}",
        f"exactTv       {c['exactTv']:.12f}   (speculative output vs target, exact)",
        f"wrongTv       {c['wrongTv']:.6f}   (draft-resampling bug vs target, exact)",
        f"summaryAlpha  {result['summaryAlpha']:.6f}   theoretical speedup {result['theoreticalSpeedup']:.6f}",
        f"trace         {t['targetCalls']} target calls, {t['draftCalls']} draft calls, {t['acceptedDraft']} accepted, "
        f"{t['rejectedDraft']} rejected, {t['bonusTokens']} bonus; {t['tokensPerTargetCall']:.6f} tokens/call; "
        f"speedup {t['speedup']:.6f}",
        f"samples       {s['count']} each: TV spec {s['specEmpiricalTv']:.6f}  target {s['targetEmpiricalTv']:.6f}  "
        f"buggy {s['wrongEmpiricalTv']:.6f}",
        f"signature     {audit.exact_signature(result)}",
    ]
    return result, "\n".join(lines), 0
