"""``python -m lab policy``: every lookahead policy's exact long-run numbers at one setting.

    python -m lab policy (--acceptance PCT | --lengths K:L,... | --per-position R1,... | --vllm-per-position A1,...
                         [--method M]) --draft-cost PCT [--lookahead K] [--burst PCT] [--threshold PCT]
                         [--verify-tax PCT --overhead-ms X --target-ms X] [--json]

A curve (as ``deployment`` takes it) replaces the acceptance and the burstiness (given, they are set
aside): the policies run on it as the widget's measured-curve mode runs on the curve the deployment
panel sends.

The subcommand is ``policy``; the instrument is ``policies`` (``set_defaults(instrument=...)``
tells :mod:`lab.cli` which module runs it).
"""

__all__ = ["add_parser", "run", "FLAGS", "VALUE_FLAGS"]

# flag -> (dest, minimum, maximum, integer, default, help)
FLAGS = {
    "--acceptance": ("acceptance", 1, 99, False, None, "mean acceptance per draft token, % (1 to 99; required)"),
    "--draft-cost": ("draftCost", 0, 100, False, None, "one draft pass, % of a target pass (0 to 100; required)"),
    "--lookahead": ("lookahead", 1, 64, True, 5, "the static policy's k (1 to 64; default 5)"),
    "--burst": ("burst", 0, 95, False, 0.0, "burstiness: persistence of good/bad stretches, % (0 = iid; 0 to 95; default 0)"),
    "--threshold": ("threshold", 0, 100, False, 40.0, "confidence threshold, % (0 to 100; default 40, as Hugging Face)"),
    "--verify-tax": ("verifyTax", 0, 50, False, 0.0, "extra verifier cost per candidate beyond the first, % (0 to 50; default 0)"),
    "--overhead-ms": ("overheadMs", 0, 200, False, 0.0, "fixed cost per cycle, ms (0 to 200; default 0)"),
    "--target-ms": ("targetMs", 1, 500, False, 80.0, "one target pass, ms (1 to 500; default 80)"),
}


def _range(low, high, integer) -> str:
    from ..cli import range_text

    return range_text(low, high, integer)


# every flag takes a value: what each accepts, for lab.cli ('--flag' with no value is named)
VALUE_FLAGS = {flag: _range(low, high, integer) for flag, (_, low, high, integer, _, _) in FLAGS.items()}
from .deployment import CURVE_FLAGS  # noqa: E402

VALUE_FLAGS.update(CURVE_FLAGS)
# Flags whose numbers are percentages (Hugging Face writes its threshold 0.4; here it is 40), and flags a curve
# replaces (lab.cli.input_notes)
PERCENT_FLAGS = ("--threshold",)
CURVE_REPLACES = ("--acceptance", "--burst")
REPORTED = ("speedup", "tokensPerCall", "meanLookahead", "wastedPerToken")


def add_parser(commands):
    parser = commands.add_parser("policy", help="lookahead policies (static, heuristic, threshold, oracle...) "
                                                "as exact long-run averages")
    for flag, (dest, _, _, _, _, text) in FLAGS.items():
        parser.add_argument(flag, dest=dest, default=None, metavar="N", help=text.replace("%", "%%"))
    from .deployment import add_curve_flags

    add_curve_flags(parser)  # a curve from lab.acceptance replaces --acceptance and --burst (the widget's polCurve)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(instrument="policies")
    return parser


def _values(args, curve_given: bool = False) -> dict:
    from ..cli import UsageError, parse_number

    values = {}
    for flag, (dest, low, high, integer, default, _) in FLAGS.items():
        text = getattr(args, dest)
        if curve_given and flag == "--acceptance" and text is None:
            values[dest] = None  # the curve replaces it (and --burst), as in the widget's measured-curve mode
            continue
        if text is None:
            if default is None:
                raise UsageError(f"{flag} is required: a number from {low} to {high}"
                                 + (" (or give a curve: --lengths, --per-position, --vllm-per-position)"
                                    if flag == "--acceptance" else ""))
            values[dest] = default
        else:
            values[dest] = parse_number(flag, text, low, high, integer=integer)
    return values


def run(args):
    from .. import policies

    from .deployment import received_from_args

    received = received_from_args(args)
    values = _values(args, received is not None)
    if received is None:
        results = policies.evaluate_setting(values)
    else:  # the widget's measured-curve mode (lab.widgets.policies): the model continues the curve past its measure
        from ..acceptance import token_method

        token, rates, measured_k = received  # a token's rates stay below 1 (lab.acceptance.MAX_SENT_RATE)
        process = policies.received_curve(rates, measured_k, token_method(token))
        results = policies.evaluate_policies(process, policies.setting_costs(values),
                                             int(values["lookahead"]), values["threshold"] / 100)
    document = {
        "params": values,
        "process": "curve" if received else "iid" if values["burst"] == 0 else "bursty",
        "policies": {name: {key: results[name][key] for key in REPORTED} for name in policies.POLICY_NAMES},
        "bestStaticK": results["best-static"]["k"],
        "stateAwareKs": results["state-aware"]["ks"],
        "heuristicKMax": results["heuristic"]["kMax"],
        "heuristicTruncationBound": results["heuristic"]["truncationBound"],
    }
    if received is not None:  # what the best static k rests on, as the widget says it
        best = results["best-static"]
        document.update(curve=received[0], plateauStart=best.get("plateauStart"),
                        bestStaticKExtrapolatedFrom=received[2] if best["k"] > received[2] else None)
    lines = ["policy        speedup  tokens/call  lookahead  wasted/token"]
    for name in policies.POLICY_NAMES:
        row = results[name]
        lines.append(f"{name:<12} {row['speedup']:>8.4f}  {row['tokensPerCall']:>11.4f}  {row['meanLookahead']:>9.4f}"
                     f"  {row['wastedPerToken']:>12.4f}")
    lines.append(f"best static k {document['bestStaticK']}; state-aware k per state {document['stateAwareKs']}; "
                 f"heuristic truncated at k {document['heuristicKMax']} (cut mass <= "
                 f"{document['heuristicTruncationBound']:.1e})")
    return document, "\n".join(lines), 0
