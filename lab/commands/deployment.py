"""``python -m lab deployment``: one deployment's answer, and what every instrument takes from it.

    python -m lab deployment (--alpha PCT | --acceptance-rate PCT | --mean-acceptance-length X)
                             [--measured-at K] [--target NAME --draft NAME --gpu NAME --gpus N --engine NAME]
                             [--precision bf16|fp8|fp4]
                             [--batch B --context L --lookahead K] [--json]
                             [--config vllm|sglang|trtllm|llamacpp] [--dollars-per-gpu-hour X] [--tpot-target-ms X]
                             [--log FILE]

The acceptance is the reader's figure in its own unit, measured at ``--measured-at`` (default: the
lookahead). Batch and context are powers of two, as the serving widget's sliders hold them.
"""

__all__ = ["add_parser", "run", "VALUE_FLAGS"]

from .. import deployment, serving
from ..engine_config import CONFIG_ENGINES

D = deployment.DEFAULT_DEPLOYMENT
UNIT_FLAGS = {"--alpha": "alpha", "--acceptance-rate": "rate", "--mean-acceptance-length": "length"}
RANGES = {"--batch": "a power of two from 1 to 1024", "--context": "a power of two from 512 to 131072",
               "--lookahead": f"an integer from 1 to {deployment.MAX_LOOKAHEAD}",
               "--measured-at": "an integer from 1 to 64", "--gpus": "1, 2, 4 or 8"}
NAMES = {"--target": ("target", tuple(serving.TARGETS)), "--draft": ("draft", serving.DRAFT_NAMES),
         "--gpu": ("gpu", tuple(serving.GPUS)), "--engine": ("engine", tuple(serving.ENGINES)),
         "--precision": ("precision", tuple(serving.PRECISIONS))}
# lab.cli joins these flags with their values (so '-1' reaches the range check) and names what a
# flag left without a value accepts; it reads this subcommand's table only.
CONFIG_FLAGS = {"--config": "one of vllm, sglang, trtllm, llamacpp",
                "--dollars-per-gpu-hour": "a price from 0.01 to 1000 dollars", "--tpot-target-ms": "a number from 0.1 to 10000",
                "--log": "a file with your engine's speculative-decoding log lines"}
VALUE_FLAGS = {**RANGES, **CONFIG_FLAGS, "--alpha": "a percentage from 0 to 100", "--acceptance-rate": "a percentage from 0 to 100",
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
    parser.add_argument("--config", default=None, metavar="ENGINE", help=CONFIG_FLAGS["--config"])
    parser.add_argument("--dollars-per-gpu-hour", dest="dollars", default=str(deployment.DEFAULT_DOLLARS_PER_GPU_HOUR),
                        metavar="X", help="price of one GPU-hour in dollars")
    parser.add_argument("--tpot-target-ms", dest="tpot_target", default=str(deployment.DEFAULT_TPOT_TARGET_MS),
                        metavar="X", help="time per output token the deployment must meet, ms")
    parser.add_argument("--log", default=None, metavar="FILE", help=CONFIG_FLAGS["--log"])
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
                      precision=args.precision,
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
                "serving": srv, "ledger": led, "agree": result["agree"], "ledgerCosts": result["costs"],
                "instruments": result["values"]}
    lines = [f"alpha {alpha:.6f} (instruments take {result['acceptancePercent']}%)",
             f"serving model: {srv['speedup']:.4f}x at k = {d.lookahead}; best k = {srv['bestLookahead']} "
             f"({srv['bestSpeedup']:.4f}x)" + ("" if srv["fits"] else " if it fitted in memory (it does not: see the note)"),
             f"ledger (fitted, rounded sliders): {led['speedup']:.4f}x at k = {d.lookahead}; best k = "
             f"{led['bestLookahead']} ({led['bestSpeedup']:.4f}x)"
             + ("" if result["agree"] else "  (differs only by its sliders' whole units)"
                if led["unroundedBestLookahead"] == srv["bestLookahead"] else
                "  (differs: a straight verify line fitted at your k)")]
    for name, values in result["values"].items():
        lines.append(f"{name}: " + ", ".join(f"{key}={value}" for key, value in values.items()))
    if not srv["fits"]:
        lines.append(serving.memory_note(deployment.serving_settings(d, result["acceptancePercent"])))
    engine = args.config or "vllm"
    if engine not in CONFIG_ENGINES:
        raise UsageError(f"--config must be {CONFIG_FLAGS['--config']}, got {engine!r}")
    dollars = parse_number("--dollars-per-gpu-hour", args.dollars, 0.01, 1000)
    tpot_target = parse_number("--tpot-target-ms", args.tpot_target, 0.1, 10000)
    log = _log(args.log)
    extra = deployment.engine_answer(d, result["acceptancePercent"], engine, dollars, tpot_target, log)
    prod = extra["production"]
    document.update({"config": extra["config"], "schedule": extra["schedule"],
                     "costPerMillionTokens": {name: prod[name]["costPerMillionTokens"] for name in ("plain", "speculative", "scheduled")},
                     "tokensPerSecondPerGpu": {name: prod[name]["tokensPerSecondPerGpu"] for name in ("plain", "speculative", "scheduled")},
                     "tokensPerSecondPerUser": {name: prod[name]["tokensPerSecondPerUser"] for name in ("plain", "speculative", "scheduled")},
                     "production": prod, "diagnosis": extra["diagnosis"], "log": log})
    if args.config:
        config = extra["config"]
        lines = [config["text"] if config["supported"] else f"# {config['label']}: {config['reason']}"]
        lines += [f"#   {line['text'][:40]}...: {line['why']}" for line in config["lines"] if line["why"]]
        return document, "\n".join(lines), 0
    lines.append("schedule: " + ", ".join(f"batch {r['from']}-{r['to']}: k = {r['lookahead']}" for r in extra["schedule"]))
    for name in ("plain", "speculative", "scheduled"):
        t = prod[name]
        lines.append(f"{name} (k = {t['lookahead']}) at batch {t['batch']}: TPOT {t['tpotMs']:.2f} ms, "
                     f"{t['tokensPerSecondPerUser']:.1f} tok/s per user, {t['tokensPerSecondPerGpu']:.1f} tok/s per GPU, "
                     f"${t['costPerMillionTokens']:.3f} per 1M output tokens at ${dollars:g}/GPU-hour")
    for name, t in prod.get("target", {}).items():
        lines.append(f"TPOT <= {tpot_target:g} ms, {name}: " + ("no batch meets it" if t is None else
                     f"largest batch {t['batch']} (k = {t['lookahead']}), {t['tokensPerSecondPerGpu']:.1f} tok/s per GPU"))
    pre = prod["prefill"]
    lines.append(f"prefill of {pre['promptTokens']} tokens: the draft adds {pre['draftMs']:.2f} ms to the target's "
                 f"{pre['targetMs']:.2f} ms (step model, not validated on prefill)")
    lines += [f"diagnosis: {item['sentence']}" for item in extra["diagnosis"]]
    return document, "\n".join(lines), 0


def _log(path):
    """The trace reader's analysis of the log at ``path`` (lab.traces), or None without one."""
    from ..cli import UsageError

    if path is None:
        return None
    from .. import traces

    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            text = handle.read(4_000_000)
    except OSError as error:
        raise UsageError(f"--log: cannot read {path!r} ({error.strerror or error})") from None
    try:
        return traces.analyse(traces.parse(text))
    except ValueError as error:
        raise UsageError(f"--log: {error}") from None
