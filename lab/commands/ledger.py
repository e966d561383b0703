"""``python -m lab ledger``: the part-one latency ledger for one setting.

    python -m lab ledger [--acceptance PCT] [--draft-cost PCT] [--lookahead K] [--overhead-ms X]
                         [--target-ms X] [--verify-tax PCT] [--max-lookahead N]
                         [--lengths K:L,... | --per-position R1,... | --vllm-per-position A1,... [--method M]] [--json]

Every flag is one of the ledger widget's sliders (:data:`lab.widgets.ledger.SLIDERS`), with its
range; ``--lookahead`` may go up to ``--max-lookahead`` (at most :data:`MAX_LOOKAHEAD_LIMIT`),
the range the best lookahead is scanned over. A curve (``--lengths``, ``--per-position``,
``--vllm-per-position``, as ``deployment`` takes it) replaces the acceptance, as the widget's
measured-curve mode does with the curve the deployment panel sends.
"""

__all__ = ["add_parser", "run", "VALUE_FLAGS", "MAX_LOOKAHEAD_LIMIT"]

from ..cli import add_slider_flags, flag_name, slider_value
from ..urlstate import LEDGER_SLIDERS, Slider, describe_range

MAX_LOOKAHEAD_LIMIT = 64

# Every flag that takes a value, with the range its error message states (lab.cli reads these so
# that '--flag -1' reaches the range check and a flag with no value is named).
from .deployment import CURVE_FLAGS  # noqa: E402

# Flags whose numbers are percentages, and flags a curve replaces: lab.cli notes a fraction given to the first
# (0.8 is 0.8 %) and the second given beside a curve (set aside)
PERCENT_FLAGS = ("--acceptance",)
CURVE_REPLACES = ("--acceptance",)
VALUE_FLAGS = {
    **CURVE_FLAGS,
    **{flag_name(s.name): describe_range(s) for s in LEDGER_SLIDERS},
    "--lookahead": f"an integer from 1 to the --max-lookahead value (at most {MAX_LOOKAHEAD_LIMIT})",
    "--max-lookahead": f"an integer from 1 to {MAX_LOOKAHEAD_LIMIT}",
}


def add_parser(commands):
    parser = commands.add_parser("ledger", help="the part-one latency ledger for one setting")
    add_slider_flags(parser, LEDGER_SLIDERS)
    parser.add_argument("--max-lookahead", default="12", metavar="N",
                        help=f"scan lookahead 1..N for the best (an integer from 1 to {MAX_LOOKAHEAD_LIMIT}; default 12)")
    from .deployment import add_curve_flags

    add_curve_flags(parser)  # a curve from lab.acceptance replaces --acceptance (the widget's trcCurve)
    parser.add_argument("--json", action="store_true")
    return parser


def run(args):
    from .. import ledger

    max_slider = Slider("maxLookahead", "", 1, MAX_LOOKAHEAD_LIMIT, 1, 12, integer=True)
    max_lookahead = slider_value(max_slider, args.max_lookahead)
    values = {}
    for slider in LEDGER_SLIDERS:
        text = getattr(args, slider.name)
        upper = max(max_lookahead, slider.maximum) if slider.name == "lookahead" else None
        values[slider.name] = slider.default if text is None else slider_value(slider, text, upper)
    from .deployment import received_from_args

    received = received_from_args(args)
    settings = ledger.LedgerSettings(**values)
    if received is None:
        result = ledger.ledger(settings)._asdict()
        result["bestLookahead"], result["bestSpeedup"] = ledger.best_lookahead(settings, max_lookahead)
    else:  # the widget's measured-curve mode (lab.widgets.ledger): the acceptance is set aside, and past the
        # measured positions the acceptance model continues the curve
        from ..acceptance import TOKEN_POSITIONS, best_lookahead_on_curve, extended_rates, token_method

        token, rates, measured_k = received
        curve = extended_rates(rates, max(settings.lookahead, max_lookahead, TOKEN_POSITIONS), measured_k,
                               token_method(token))
        result = ledger.ledger_from_curve(settings, curve)._asdict()
        best = best_lookahead_on_curve(settings, curve, max_lookahead, measured_k)
        result.update(bestLookahead=best["k"], bestSpeedup=best["speedup"], curve=token,
                      bestLookaheadExtrapolatedFrom=best["extrapolatedFrom"], plateauStart=best["plateauStart"])
    lines = [f"{key:>14}  {value:.6f}" if isinstance(value, float) else f"{key:>14}  {value}"
             for key, value in {**values, **result}.items()]
    return {"params": values, **result}, "\n".join(lines), 0
