"""``python -m lab deployment``: one deployment's answer, and what every instrument takes from it.

    python -m lab deployment (--alpha PCT | --acceptance-rate PCT | --mean-acceptance-length X)
                             [--measured-at K] [--target NAME --draft NAME --gpu NAME --gpus N --engine NAME]
                             [--batch B --context L --lookahead K] [--json]

The acceptance is the reader's figure in its own unit, measured at ``--measured-at`` (default: the
lookahead). Batch and context are powers of two, as the serving widget's sliders hold them.
"""

__all__ = ["add_parser", "run", "VALUE_FLAGS"]

from .. import deployment, serving

D = deployment.DEFAULT_DEPLOYMENT
UNIT_FLAGS = {"--alpha": "alpha", "--acceptance-rate": "rate", "--mean-acceptance-length": "length"}
RANGES = {"--batch": "a power of two from 1 to 1024", "--context": "a power of two from 512 to 131072",
               "--lookahead": f"an integer from 1 to {deployment.MAX_LOOKAHEAD}",
               "--measured-at": "an integer from 1 to 64", "--gpus": "1, 2, 4 or 8"}
NAMES = {"--target": ("target", tuple(serving.TARGETS)), "--draft": ("draft", serving.DRAFT_NAMES),
         "--gpu": ("gpu", tuple(serving.GPUS)), "--engine": ("engine", tuple(serving.ENGINES))}
# lab.cli joins these flags with their values (so '-1' reaches the range check) and names what a
# flag left without a value accepts; it reads this subcommand's table only.
VALUE_FLAGS = {**RANGES, "--alpha": "a percentage from 0 to 100", "--acceptance-rate": "a percentage from 0 to 100",
               "--mean-acceptance-length": "a number from 1 to k + 1 (k: --measured-at)",
               **{flag: "one of " + ", ".join(names) for flag, (_, names) in NAMES.items()}}


def add_parser(commands):
    parser = commands.add_parser("deployment", help="one deployment's answer, and what each instrument takes")
    for flag, unit in UNIT_FLAGS.items():
        parser.add_argument(flag, dest=unit, default=None, metavar="X",
                            help=deployment.UNITS[unit].replace("%", "%%"))
    parser.add_argument("--measured-at", dest="measured_at", default=None, metavar="K",
                        help="the lookahead the acceptance was measured at (default: --lookahead)")
    for flag, (dest, names) in NAMES.items():
        parser.add_argument(flag, dest=dest, default=getattr(D, dest), metavar="NAME", help=", ".join(names))
    parser.add_argument("--gpus", default=str(D.gpus), metavar="N", help=RANGES["--gpus"])
    parser.add_argument("--batch", default=str(D.batch), metavar="B", help=RANGES["--batch"])
    parser.add_argument("--context", default=str(D.context), metavar="L", help=RANGES["--context"])
    parser.add_argument("--lookahead", default=str(D.lookahead), metavar="K", help=RANGES["--lookahead"])
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(instrument="deployment")
    return parser


def _power_of_two(flag: str, text, low: int, high: int) -> int:
    from ..cli import UsageError, parse_number

    value = parse_number(flag, text, low, high, integer=True)
    if value & (value - 1):
        raise UsageError(f"{flag} must be {RANGES[flag]}, got {text!r}")
    return value


def _deployment(args) -> deployment.Deployment:
    from ..cli import UsageError, parse_number

    for flag, (dest, names) in NAMES.items():
        if getattr(args, dest) not in names:
            raise UsageError(f"{flag} must be one of {', '.join(names)}, got {getattr(args, dest)!r}")
    if args.gpus not in ("1", "2", "4", "8"):
        raise UsageError(f"--gpus must be {RANGES['--gpus']}, got {args.gpus!r}")
    return D._replace(target=args.target, draft=args.draft, gpu=args.gpu, gpus=int(args.gpus), engine=args.engine,
                      batch=_power_of_two("--batch", args.batch, 1, 1024),
                      context=_power_of_two("--context", args.context, 512, 131072),
                      lookahead=parse_number("--lookahead", args.lookahead, 1, deployment.MAX_LOOKAHEAD, integer=True))


def run(args):
    from ..cli import UsageError, parse_number
    from ..errors import LabValueError

    d = _deployment(args)
    given = [(flag, unit) for flag, unit in UNIT_FLAGS.items() if getattr(args, unit) is not None]
    if len(given) != 1:
        raise UsageError(f"give exactly one of {', '.join(UNIT_FLAGS)}")
    flag, unit = given[0]
    measured_k = d.lookahead if args.measured_at is None else parse_number("--measured-at", args.measured_at, 1, 64,
                                                                           integer=True)
    low, high = deployment.unit_ranges(measured_k)[unit]
    value = parse_number(flag, getattr(args, unit), low, high)
    try:
        alpha = deployment.alpha_from(value, unit, measured_k)
    except LabValueError as error:
        raise UsageError(f"{flag}: {error}") from None
    result = deployment.answer(d, alpha)
    srv, led = result["serving"], result["ledger"]
    document = {"deployment": d._asdict(), "given": {"unit": unit, "value": value, "measuredAt": measured_k},
                "alpha": alpha, "acceptancePercent": result["acceptancePercent"],
                "serving": srv, "servingSent": result["servingSent"], "ledger": led, "agree": result["agree"],
                "ledgerCosts": result["costs"],
                "instruments": result["values"]}
    lines = [f"alpha {alpha:.6f} (instruments take {result['acceptancePercent']}%)",
             f"serving model: {srv['speedup']:.4f}x at k = {d.lookahead}; best k = {srv['bestLookahead']} "
             f"({srv['bestSpeedup']:.4f}x) at your alpha; {result['servingSent']['speedup']:.4f}x at the "
             f"instruments' {result['acceptancePercent']}%",
             f"ledger (fitted, rounded sliders): {led['speedup']:.4f}x at k = {d.lookahead}; best k = "
             f"{led['bestLookahead']} ({led['bestSpeedup']:.4f}x)"
             + ("" if result["agree"] else "  (differs only by its sliders' whole units)"
                if led["unroundedBestLookahead"] == result["servingSent"]["bestLookahead"] else
                "  (differs: a straight verify line fitted at your k)")]
    for name, values in result["values"].items():
        lines.append(f"{name}: " + ", ".join(f"{key}={value}" for key, value in values.items()))
    return document, "\n".join(lines), 0
