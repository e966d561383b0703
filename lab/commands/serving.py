"""``python -m lab serving``: the roofline of one decode step, plain against speculative, for one
target, draft and GPU (one GPU; the page's widget can spread the model over several)."""

from .. import serving

__all__ = ["add_parser", "run"]

NUMBERS = (  # (flag, dest, minimum, maximum, integer, default or None when required)
    ("--batch", "batch", 1, serving.MAX_BATCH, True, None),
    ("--context", "context", 1, 1048576, True, None),
    ("--lookahead", "lookahead", 1, 16, True, None),
    ("--acceptance", "acceptance", 0, 100, False, None),
    ("--mem-efficiency", "mem_efficiency", 1, 100, False, serving.DEFAULT_SETTINGS.memEfficiency),
    ("--flop-efficiency", "flop_efficiency", 1, 100, False, serving.DEFAULT_SETTINGS.flopEfficiency),
    ("--overhead-ms", "overhead_ms", 0, 1000, False, serving.DEFAULT_SETTINGS.overheadMs),
)
NAMES = (("--target", "target", tuple(serving.TARGETS)), ("--draft", "draft", serving.DRAFT_NAMES),
         ("--gpu", "gpu", tuple(serving.GPUS)), ("--precision", "precision", tuple(serving.PRECISIONS)))


def add_parser(commands):
    parser = commands.add_parser(
        "serving", help="roofline step time, speedup, throughput and crossover batch on one GPU preset",
        description="One decode step t(B, n, L) = max((N b + B L kv) / (BW eta_mem), 2 N B n / (F eta_flop)) + "
                    "t_fixed on one GPU; a speculative cycle is k draft steps plus one verify step with n = k + 1.")
    for flag, dest, valid in NAMES:
        required = flag != "--precision"
        parser.add_argument(flag, dest=dest, default=None, metavar="NAME", required=required,
                            help=f"one of: {', '.join(valid)}" + ("" if required else " (default bf16)"))
    for flag, dest, minimum, maximum, integer, default in NUMBERS:
        kind = "an integer" if integer else "a number"
        extra = "" if default is None else f" (default {default:g})"
        parser.add_argument(flag, dest=dest, default=None, metavar="N", required=default is None,
                            help=f"{kind} from {minimum} to {maximum}{extra}".replace("%", "%%"))
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    return parser


def _settings(args) -> serving.ServingSettings:
    from ..cli import UsageError, parse_number

    values = {}
    for flag, dest, valid in NAMES:
        text = getattr(args, dest)
        if text is None:
            text = "bf16"
        if text not in valid:
            raise UsageError(f"{flag}: unknown name {text!r}; valid: {', '.join(valid)}")
        values[dest] = text
    numbers = {}
    for flag, dest, minimum, maximum, integer, default in NUMBERS:
        text = getattr(args, dest)
        numbers[dest] = default if text is None else parse_number(flag, text, minimum, maximum, integer=integer)
    return serving.ServingSettings(
        target=values["target"], draft=values["draft"], gpu=values["gpu"], precision=values["precision"], gpus=1,
        lookahead=numbers["lookahead"], acceptance=numbers["acceptance"], memEfficiency=numbers["mem_efficiency"],
        flopEfficiency=numbers["flop_efficiency"], overheadMs=numbers["overhead_ms"], batch=numbers["batch"],
        context=numbers["context"])


def run(args):
    settings = _settings(args)
    result = serving.serving(settings)
    document = {key: value for key, value in result._asdict().items() if key not in ("plainRegime", "verifyRegime")}
    document["crossoverBatch"] = serving.crossover_batch(settings)
    document["bestLookahead"] = serving.best_lookahead(settings, 16)[0]  # over the flag's whole range
    document["regime"] = f"plain step {result.plainRegime}, verify step {result.verifyRegime}"
    document["memoryNeededBytes"] = serving.memory_needed_bytes(settings)
    document["fitsInMemory"] = document["memoryNeededBytes"] <= serving.memory_available_bytes(settings)
    document = {"params": settings._asdict(), **document}
    lines = [f"{key:>21}  {value:.6f}" if isinstance(value, float) else f"{key:>21}  {value}"
             for key, value in document.items() if key != "params"]
    if not document["fitsInMemory"]:
        lines.append(f"note: weights and KV caches need {document['memoryNeededBytes'] / 1e9:.1f} GB, more than one "
                     f"{serving.GPUS[settings.gpu].label}'s {serving.GPUS[settings.gpu].memory / 1e9:.0f} GB; "
                     "the times assume they fit")
    return document, "\n".join(lines), 0
