"""``python -m lab serving``: one decode step, plain against speculative, for one target, draft and
GPU preset on ``--gpus`` GPUs, under the per-operator model calibrated on measured step times (the
default) or the idealised roofline (``--step-model roofline``)."""

from .. import serving
from ..acceptance_text import MAX_POSITIONS

__all__ = ["add_parser", "run", "VALUE_FLAGS", "MAX_LOOKAHEAD"]

# The longest chain --lookahead takes, and the range the best k is searched over: every position the acceptance
# model holds (lab.acceptance.MAX_POSITIONS, 64), so suffix decoding's usual 24 to 32 draft tokens (vLLM's
# suffix_decoding_max_tree_depth default 24; SpecDecode-Bench ran 32) can be priced. A CLI matter only: the widgets'
# lookahead sliders (lab.deployment.MAX_LOOKAHEAD, the ledger's) keep their own ends.
MAX_LOOKAHEAD = MAX_POSITIONS

NUMBERS = (  # (flag, dest, minimum, maximum, integer, default or None when required)
    ("--batch", "batch", 1, serving.MAX_BATCH, True, None),
    ("--context", "context", 1, 1048576, True, None),
    ("--lookahead", "lookahead", 1, MAX_LOOKAHEAD, True, None),
    ("--acceptance", "acceptance", 0, 100, False, None),  # required unless a curve is given (_settings)
    ("--mem-efficiency", "mem_efficiency", 1, 100, False, serving.DEFAULT_SETTINGS.memEfficiency),
    ("--flop-efficiency", "flop_efficiency", 1, 100, False, serving.DEFAULT_SETTINGS.flopEfficiency),
    ("--overhead-ms", "overhead_ms", 0, 1000, False, serving.DEFAULT_SETTINGS.overheadMs),
    ("--gpus", "gpus", 1, 8, True, 1),
    ("--tree-tokens", "tree_tokens", 0, 1024, True, 0),
)
NAMES = (("--target", "target", tuple(serving.TARGETS)), ("--draft", "draft", serving.PRICED_DRAFT_NAMES),
         ("--gpu", "gpu", tuple(serving.GPUS)), ("--precision", "precision", tuple(serving.PRECISIONS)),
         ("--step-model", "step_model", tuple(serving.STEP_MODELS)), ("--engine", "engine", tuple(serving.ENGINES)))
OPTIONAL_NAMES = {"--precision": "bf16", "--step-model": serving.MEASURED, "--engine": serving.DEFAULT_ENGINE}


from . import deployment as _deployment_command  # noqa: E402  (its curve flags)
from .deployment import HUGGING_FACE_EXAMPLES, hugging_face_words, model_preset  # noqa: E402  (the model flags' names)
from .deployment import ENGINE_WORDS, engine_preset, engine_version_fields, engine_version_line  # noqa: E402  (--engine by version)


def _value_flags() -> dict[str, str]:
    from ..cli import range_text

    return {**{flag: f"one of {', '.join(valid)}" + (f" ({hugging_face_words(flag)})" if flag in HUGGING_FACE_EXAMPLES else "")
               for flag, _, valid in NAMES},
            **{flag: range_text(low, high, integer) for flag, _, low, high, integer, _ in NUMBERS},
            "--engine": f"one of {', '.join(serving.ENGINES)} ({ENGINE_WORDS})",
            "--acceptance-curve": "1 to 64 comma-separated numbers from 0 to 100"}


# Flags whose numbers are percentages, and flags a curve replaces (lab.cli.input_notes)
PERCENT_FLAGS = ("--acceptance", "--acceptance-curve")
CURVE_REPLACES = ("--acceptance",)

# Every flag that takes a value, with what it accepts (lab.cli names a flag left without one).
VALUE_FLAGS = _value_flags()
VALUE_FLAGS.update(_deployment_command.CURVE_FLAGS)  # an acceptance curve (lab.acceptance), as `deployment` takes it


def add_parser(commands):
    parser = commands.add_parser(
        "serving", help="step time, speedup, throughput and crossover batch on a GPU preset",
        description="One decode step under the per-operator model calibrated on measured step times (weight GEMMs, "
                    "attention, LM head, tensor-parallel all-reduce, per-pass fixed costs; --step-model measured, "
                    "the default) or the roofline t(B, n, L) = max((N b + B L kv) / (BW eta_mem), 2 N B n / "
                    "(F eta_flop)) + t_fixed (--step-model roofline, where --mem-efficiency, --flop-efficiency and "
                    "--overhead-ms apply); a speculative cycle is k draft steps plus one verify step over k + 1 "
                    "tokens per sequence (or --tree-tokens), as --engine runs it: each engine version pays the costs "
                    "read in its code (vllm-v1, today's V1, the default; vllm-v1-0.10 adds synchronous scheduling's "
                    "host work a step; vllm-v0 verifies by batch expansion and pays serial output processing; sglang "
                    "adds a draft extend pass, sglang-no-overlap serial output processing, sglang-eager-extend an "
                    "extend pass outside a CUDA graph; trtllm runs an MTP head's steps inside the verify pass's CUDA "
                    "graph). --engine also takes an engine and the version you run (vllm==0.11.2, sglang 0.5.3, "
                    "trtllm==1.0): the JSON's engineVersion names the preset it ran as.")
    for flag, dest, valid in NAMES:
        required = flag not in OPTIONAL_NAMES
        parser.add_argument(flag, dest=dest, default=None, metavar="NAME", required=required,
                            help=f"one of: {', '.join(valid)}" + ("" if required else f" (default {OPTIONAL_NAMES[flag]})")
                            + (f"; {hugging_face_words(flag)}" if flag in HUGGING_FACE_EXAMPLES else "")
                            + (f"; {ENGINE_WORDS}" if flag == "--engine" else ""))
    for flag, dest, minimum, maximum, integer, default in NUMBERS:
        kind = "an integer" if integer else "a number"
        extra = "" if default is None else f" (default {default:g})"
        extra += " (or give a curve: --acceptance-curve, --per-position, --vllm-per-position, --lengths)" \
            if flag == "--acceptance" else ""
        parser.add_argument(flag, dest=dest, default=None, metavar="N", required=default is None and flag != "--acceptance",
                            help=f"{kind} from {minimum} to {maximum}{extra}".replace("%", "%%"))
    parser.add_argument("--acceptance-curve", dest="acceptance_curve", default=None, metavar="P1,P2,...",
                        help="conditional acceptance by draft position, in %% (replaces --acceptance in tokens per "
                             "cycle; past them the acceptance model continues the curve)")
    from .deployment import add_curve_flags

    add_curve_flags(parser)  # a curve from lab.acceptance (--lengths, --per-position)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    return parser


def _settings(args) -> serving.ServingSettings:
    from ..cli import UsageError, parse_number

    values = {}
    for flag, dest, valid in NAMES:
        text = getattr(args, dest)
        if text is None:
            text = OPTIONAL_NAMES[flag]
        if flag in HUGGING_FACE_EXAMPLES:  # a Hugging Face name runs as its preset, which the JSON's params name
            text = model_preset(flag, text, valid)
            setattr(args, dest, text)      # the curve flags' default family reads args.draft and args.target
        if flag == "--engine":  # an engine and its version (vllm==0.11.2) runs as its preset; run() names both
            text, args.engine_version = engine_preset(text, values["draft"])
        if text not in valid:
            raise UsageError(f"{flag}: unknown name {text!r}; valid: {', '.join(valid)}")
        values[dest] = text
    numbers = {}
    for flag, dest, minimum, maximum, integer, default in NUMBERS:
        text = getattr(args, dest)
        if text is None and flag == "--acceptance":
            if not _curve_given(args):
                raise UsageError("--acceptance is required (a number from 0 to 100), unless a curve is given: "
                                 "--acceptance-curve, --per-position, --vllm-per-position or --lengths")
            text = "0"  # a placeholder: run() sets the curve's i.i.d. equivalent at --lookahead
        numbers[dest] = default if text is None else parse_number(flag, text, minimum, maximum, integer=integer)
    problem = serving.draft_engine_problem(values["draft"], values["engine"])  # suffix decoding: vLLM V1 only
    if problem:
        raise UsageError(f"--engine: {problem}")
    if 0 < numbers["tree_tokens"] < numbers["lookahead"] + 1:  # lab.serving.verify_tokens refuses it too
        raise UsageError(f"--tree-tokens must be 0 (a chain) or at least k + 1 = {numbers['lookahead'] + 1} "
                         f"(the root and a chain of --lookahead drafts), got {numbers['tree_tokens']}")
    return serving.ServingSettings(
        target=values["target"], draft=values["draft"], gpu=values["gpu"], precision=values["precision"],
        gpus=numbers["gpus"], stepModel=values["step_model"], treeTokens=numbers["tree_tokens"], engine=values["engine"],
        lookahead=numbers["lookahead"], acceptance=numbers["acceptance"], memEfficiency=numbers["mem_efficiency"],
        flopEfficiency=numbers["flop_efficiency"], overheadMs=numbers["overhead_ms"], batch=numbers["batch"],
        context=numbers["context"])


def _curve_given(args) -> bool:
    from .deployment import curve_flags_given

    return args.acceptance_curve is not None or bool(curve_flags_given(args))


def _curve(args):
    """The --acceptance-curve values as fractions, or None; a bad list is a usage error. A curve from
    --lengths/--per-position without --method takes the family of --draft, as the deployment panel does."""
    from ..cli import UsageError, quote, require_ascii

    from ..acceptance import family_of_draft
    from .deployment import curve_from_args

    model = curve_from_args(args, required=False, default_method=family_of_draft(args.draft, args.target))
    if model is not None:
        if args.acceptance_curve is not None:
            raise UsageError("give --acceptance-curve or a curve from --lengths/--per-position, not both")
        args.acceptance_model = model  # run() takes the best k from it (plateau cap, extrapolation)
        return tuple(model.rates(64))  # every position the model's: none repeats a last measured rate
    text = args.acceptance_curve
    if text is None:
        return None
    parts = [part.strip() for part in text.split(",")]
    require_ascii("--acceptance-curve", text)
    try:
        values = [float(part) for part in parts]
    except ValueError:
        values = []
    if not values or len(values) > 64 or any(not 0 <= v <= 100 for v in values):  # NaN fails the range test
        raise UsageError(f"--acceptance-curve must be 1 to 64 comma-separated numbers from 0 to 100, got {quote(text)!r}")
    args.measured_k = len(values)  # past it the acceptance model continues the curve, as the widget does
    return serving.received_curve([v / 100 for v in values], None, MAX_LOOKAHEAD)


def run(args):
    settings = _settings(args)
    curve = _curve(args)
    if args.acceptance is None:  # the curve alone: --acceptance is its i.i.d. equivalent at --lookahead, for params
        from ..ledger import alpha_iid

        tokens = serving.tokens_per_cycle(0.0, settings.lookahead, curve)
        settings = settings.with_(acceptance=round(100 * alpha_iid(tokens - 1, settings.lookahead), 6))
    result = serving.serving(settings, curve)
    document = {key: value for key, value in result._asdict().items() if key not in ("plainRegime", "verifyRegime")}
    document["crossoverBatch"] = serving.crossover_batch(settings, curve=curve)
    measured_k = getattr(args, "measured_k", None)
    document["bestLookahead"] = serving.best_lookahead(settings, MAX_LOOKAHEAD, curve, measured_k)[0]  # the flag's range
    if measured_k is not None:
        document["bestLookaheadExtrapolatedFrom"] = measured_k if document["bestLookahead"] > measured_k else None
    model = getattr(args, "acceptance_model", None)
    if model is not None:  # a curve from lab.acceptance: never past its plateau's start plus one
        from .. import acceptance

        best = acceptance.best_lookahead(
            lambda k: serving.speedup_at(settings.with_(lookahead=k), settings.batch, settings.context, curve), model,
            MAX_LOOKAHEAD)
        document["bestLookahead"] = best["k"]
        document["bestLookaheadExtrapolatedFrom"] = best["extrapolatedFrom"]
        document["plateauStart"] = best["plateauStart"]
    document["regime"] = f"plain step {result.plainRegime}, verify step {result.verifyRegime}"
    document["plainStepTerms"] = serving.step_breakdown(serving.TARGETS[settings.target], settings, settings.batch, 1,
                                                        settings.context)
    document["verifyStepTerms"] = serving.step_breakdown(serving.TARGETS[settings.target], settings, settings.batch,
                                                         serving.verify_tokens(settings), settings.context, "verify")
    document["memoryNeededBytes"] = serving.memory_needed_bytes(settings)
    document["fitsInMemory"] = document["memoryNeededBytes"] <= serving.memory_available_bytes(settings)
    document = {"params": settings._asdict(), **document}
    document.update(engine_version_fields(getattr(args, "engine_version", None)))
    lines = [f"{key:>21}  {value:.6f}" if isinstance(value, float) else f"{key:>21}  {value}"
             for key, value in document.items() if key not in ("params", "engineVersion")]
    if not document["fitsInMemory"]:
        lines.append(serving.memory_note(settings))
    document["draftSharesVocabulary"] = not serving.draft_vocabulary_note(settings.target, settings.draft)
    lines += ["note: " + note for note in (engine_version_line(getattr(args, "engine_version", None)),
                                           *serving.setting_notes(settings.target, settings.draft, settings.engine,
                                                                  settings.batch))
              if note]
    return document, "\n".join(lines), 0
