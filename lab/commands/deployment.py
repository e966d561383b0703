"""``python -m lab deployment``: one deployment's answer, and what every instrument takes from it.

    python -m lab deployment (--alpha PCT | --acceptance-rate PCT | --mean-acceptance-length X)
                             [--measured-at K] [--target NAME --draft NAME --gpu NAME --gpus N --engine NAME]
                             [--precision bf16|fp8|fp4]
                             [--batch B --context L --lookahead K] [--json]
                             [--config vllm|sglang|trtllm|llamacpp] [--dollars-per-gpu-hour X] [--tpot-target-ms X]
                             [--log FILE]

The acceptance is the reader's figure in its own unit, measured at ``--measured-at`` (default: the
lookahead). Batch and context are whole counts (48 is computed at 48), as the panel's typed fields take them;
its sliders stop at powers of two.
"""

__all__ = ["add_parser", "run", "VALUE_FLAGS"]

from .. import deployment, serving
from ..traces import MAX_LOOKAHEAD
from ..engine_config import CONFIG_ENGINES

D = deployment.DEFAULT_DEPLOYMENT

# The flags that name a model also take its Hugging Face name (lab.serving_presets.HUGGING_FACE_FAMILIES; the
# serving and deployment commands both), with an example.
HUGGING_FACE_EXAMPLES = {"--target": "Qwen/Qwen3-8B", "--draft": "Qwen/Qwen3-0.6B"}


def hugging_face_words(flag: str) -> str:
    """What a model flag's help and refusal add to its list of presets: that a Hugging Face name of one is taken too.

    >>> hugging_face_words("--target")
    'or the Hugging Face name of one of those models, e.g. Qwen/Qwen3-8B'
    """
    return f"or the Hugging Face name of one of those models, e.g. {HUGGING_FACE_EXAMPLES[flag]}"


# What --engine takes beside a preset's name (lab.serving_engine_versions; `serving` and `deployment` both).
ENGINE_WORDS = ("or an engine and the version you run: vllm==0.11.2, vllm@0.11.2, vllm 0.11.2, vllm-0.11.2, "
                "sglang==0.5.3, trtllm==1.0 (any case), run as the preset its version's defaults match")


def engine_preset(text: str, draft: str = ""):
    """``--engine``'s preset and the engine version read (None for a preset's name): a preset's name, or an engine
    and its version (:func:`lab.serving_engine_versions.resolve_engine`, told whether ``draft`` is a separate draft
    model); anything else is a usage error of one line.

    >>> engine_preset("VLLM 0.7.3")[0], engine_preset("trtllm")
    ('vllm-v0', ('trtllm', None))
    """
    from ..cli import UsageError
    from ..errors import LabValueError
    from ..serving_engine_versions import resolve_engine

    try:
        return resolve_engine(text, draft_model=draft in serving.DRAFTS)
    except LabValueError as error:
        raise UsageError(f"--engine: {error}") from None


def engine_version_fields(read) -> dict:
    """The JSON's ``engineVersion``: the engine, the version as given, the preset it ran as and the note; nothing
    when --engine named a preset."""
    if read is None:
        return {}
    return {"engineVersion": read._asdict()}


def engine_version_line(read) -> str:
    """The text answer's line for an engine version ("" for a preset's name).

    >>> from lab.serving_engine_versions import read_engine_version
    >>> engine_version_line(read_engine_version("sglang", "0.4.6.post1"))
    'engine: sglang 0.4.6.post1 runs as the preset sglang-eager-extend'
    """
    if read is None:
        return ""
    return f"engine: {read.engine} {read.version} runs as the preset {read.preset}" + (f"; {read.note}" if read.note else "")


def model_preset(flag: str, text: str, valid) -> str:
    """The preset a model flag's value names (a preset's name, or a Hugging Face name of its model:
    :func:`lab.serving.preset_named`); an unknown name is a usage error that lists the presets."""
    from ..cli import UsageError

    preset = serving.preset_named(text, valid)
    if preset is None:
        raise UsageError(f"{flag}: unknown name {text!r}; valid: {', '.join(valid)} ({hugging_face_words(flag)})")
    return preset


UNIT_FLAGS = {"--alpha": "alpha", "--acceptance-rate": "rate", "--mean-acceptance-length": "length"}
RANGES = {"--batch": "a whole number of sequences from 1 to 1024", "--context": "a whole number of tokens from 512 to 131072",
               "--lookahead": f"an integer from 1 to {deployment.MAX_LOOKAHEAD}",
               "--measured-at": f"an integer from 1 to {MAX_LOOKAHEAD}", "--gpus": "1, 2, 4 or 8"}
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
VALUE_FLAGS["--engine"] += f" ({ENGINE_WORDS})"
VALUE_FLAGS.update({flag: VALUE_FLAGS[flag] + f" ({hugging_face_words(flag)})" for flag in HUGGING_FACE_EXAMPLES})

# --- acceptance by position: `python -m lab acceptance`, and the curve flags `deployment` shares ---
CURVE_FLAGS = {"--per-position": "conditional rates R1,R2,... (fractions from 0 to 1)",
               "--vllm-per-position": "vLLM's or llama.cpp's printed per-position rates A1,A2,... (unconditional)",
               "--lengths": "mean acceptance lengths K:L[,K:L...] (1 <= L <= K + 1)",
               "--method": "one of draft, block, eagle, mtp, ngram, suffix (or an engine's name for one: eagle3, "
                           "deepseek_mtp, nextn, ngram_gpu, draft_model, ...)"}
VALUE_FLAGS.update({**CURVE_FLAGS, "--trace": "a trace file (any format `python -m lab trace` reads), or - for stdin"})
# Flags whose numbers are percentages (lab.cli.input_notes: 0.74 is 0.74 %, not 74 %)
PERCENT_FLAGS = ("--alpha", "--acceptance-rate")


def add_curve_flags(parser, with_trace: bool = False):
    """The flags that give an acceptance curve (lab.acceptance), for `acceptance` and `deployment`."""
    parser.add_argument("--per-position", dest="per_position", default=None, metavar="R1,R2,...",
                        help=CURVE_FLAGS["--per-position"])
    parser.add_argument("--vllm-per-position", dest="vllm_per_position", default=None, metavar="A1,A2,...",
                        help=CURVE_FLAGS["--vllm-per-position"])
    parser.add_argument("--lengths", default=None, metavar="K:L,...", help=CURVE_FLAGS["--lengths"])
    if with_trace:
        parser.add_argument("--trace", default=None, metavar="FILE", help=VALUE_FLAGS["--trace"])
    parser.add_argument("--method", default=None, metavar="NAME", help=CURVE_FLAGS["--method"])


# The flags that give a curve, each with its argparse destination (a command has those add_curve_flags gave it).
CURVE_SOURCES = (("--per-position", "per_position"), ("--vllm-per-position", "vllm_per_position"),
                 ("--lengths", "lengths"), ("--trace", "trace"))


def curve_flags_given(args) -> list[str]:
    """The curve flags given on this command line, in :data:`CURVE_SOURCES` order."""
    return [flag for flag, dest in CURVE_SOURCES if getattr(args, dest, None) is not None]


def method_family(name: str) -> str:
    """``--method``'s family: one of lab.acceptance.FAMILIES, or the name an engine gives the drafter (vLLM's
    ``eagle3``, ``deepseek_mtp``, SGLang's ``NEXTN``, TensorRT-LLM's ``DraftTarget``: lab.traces.method, the table the
    trace reader uses), any case; anything else is a UsageError of one line."""
    from .. import acceptance
    from ..cli import UsageError
    from ..traces.method import family_of_method

    key = str(name).strip().lower()
    family = key if key in acceptance.FAMILIES else family_of_method(key)
    if family is None:
        raise UsageError(f"--method must be one of {', '.join(acceptance.FAMILIES)} (or an engine's name for one: "
                         f"eagle3, deepseek_mtp, nextn, ngram_gpu, draft_model, ...), got {str(name)[:40]!r}")
    return family


def curve_from_args(args, required: bool, default_method: str | None = None):
    """The curve the flags give (lab.acceptance.Curve), or None when none is given and not required;
    a bad value is a UsageError of one line. Without --method the prior is ``default_method``'s family
    (the draft's, for `serving` and `deployment`; none for `acceptance`)."""
    from .. import acceptance
    from ..cli import UsageError
    from ..errors import LabValueError

    given = curve_flags_given(args)
    if len(given) > 1 or (required and not given):  # the flags this command takes (only `acceptance` takes --trace)
        raise UsageError(f"give exactly one of {', '.join(flag for flag, dest in CURVE_SOURCES if hasattr(args, dest))}")
    if args.method is not None:  # an engine's name for the method read as its family, once, for every later use
        args.method = method_family(args.method)
    if not given:
        return None
    method = args.method or default_method
    try:
        if given[0] == "--per-position":
            return acceptance.from_conditional(acceptance.parse_rates(args.per_position), method)
        if given[0] == "--vllm-per-position":
            return acceptance.from_unconditional(acceptance.parse_rates(args.vllm_per_position, "--vllm-per-position"),
                                                 method)
        if given[0] == "--lengths":
            return acceptance.from_lengths(acceptance.parse_lengths(args.lengths), method)
        return _trace_curve(args.trace, method)
    except LabValueError as error:
        raise UsageError(f"{given[0]}: {error}" if not str(error).startswith("--") else str(error)) from None


def received_from_args(args, default_method: str | None = None):
    """The curve the flags give as an instrument receives it from the deployment panel: ``(token, rates,
    measured_k)``, the rates read back from its token (4 decimals, 16 positions, the measured mark; the token names
    the curve's drafter family when it has one, :func:`lab.acceptance.token_method`), so the
    CLI answers what the widget sent the same curve answers; None when no curve flag is given."""
    from .. import acceptance

    model = curve_from_args(args, required=False, default_method=default_method)
    if model is None:
        return None
    token = acceptance.curve_token(model)
    rates = acceptance.token_rates(token)
    return token, rates, acceptance.token_measured_at(token) or len(rates)


def _trace_curve(path: str, method):
    from .. import acceptance, traces
    from .traces import read_analysis

    analysis = read_analysis(path, "--trace")  # the whole file, as `trace` reads it
    method = method or analysis["method"]  # --method, else the drafter the log's configuration lines name
    if analysis["conditional"] is not None:
        return acceptance.from_conditional(traces.measured_curve(analysis), method)
    return acceptance.from_single(analysis["meanAcceptanceLength"], analysis["lookahead"], method)


def add_acceptance_parser(commands):
    parser = commands.add_parser("acceptance", help="acceptance by draft position: the mean acceptance length at any k")
    add_curve_flags(parser, with_trace=True)
    parser.add_argument("--lookahead", default=None, metavar="K", help=f"an integer from 1 to {64}")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(instrument="deployment")


def run_acceptance(args):
    from .. import acceptance
    from ..cli import UsageError, parse_number

    if args.lookahead is None:
        raise UsageError("--lookahead is required: an integer from 1 to 64")
    k = parse_number("--lookahead", args.lookahead, 1, 64, integer=True)
    curve = curve_from_args(args, required=True)
    document = acceptance.report(curve, k)
    # the curve as the instruments receive it (16 positions, @m, ~family when --method or the trace names one)
    document["curve"] = acceptance.curve_token(curve)
    low, high = document["interval"]
    past = document["extrapolatedFrom"]
    lines = [f"mean acceptance length at k = {k}: {document['meanAcceptanceLength']:.3f}"
             + (f" (interval {low:.3f} to {high:.3f}; extrapolated past position {past})" if past is not None else ""),
             "conditional rate by position: " + ", ".join(f"{r:.3f}" for r in document["perPosition"]),
             f"i.i.d. from the same figure: alpha {document['alphaIid']:.4f}, mean acceptance length "
             f"{document['meanAcceptanceLengthIid']:.3f}"]
    lines.append(f"curve token (the instruments' trcCurve, srvCurve, polCurve, treCurve): {document['curve']}")
    if document["priorNote"]:
        lines.append(f"note: {document['priorNote']}")
    if document["plateauStart"] is not None:
        start = document["plateauStart"]
        lines.append(f"the curve {acceptance.plateau_words(start, curve.rates(start + 1))}")
    return document, "\n".join(lines), 0
# --- end of the acceptance block ---


def _plateau_clause(start, token: str | None = None) -> str:
    """The answer's plateau clause (:func:`lab.acceptance.plateau_words`, on the rates of the curve's ``token``), or
    nothing without a plateau."""
    if start is None:
        return ""
    from ..acceptance import plateau_words, token_rates

    return f"; the curve {plateau_words(start, None if token is None else token_rates(token))}"


def add_parser(commands):
    parser = commands.add_parser("deployment", help="one deployment's answer, and what each instrument takes")
    for flag, unit in UNIT_FLAGS.items():
        parser.add_argument(flag, dest=unit, default=None, metavar="X",
                            help=deployment.UNITS[unit].replace("%", "%%"))
    parser.add_argument("--measured-at", dest="measured_at", default=None, metavar="K",
                        help="the lookahead the acceptance was measured at (default: --lookahead)")
    for flag, (dest, names) in NAMES.items():
        parser.add_argument(flag, dest=dest, default=getattr(D, dest), metavar="NAME", help=", ".join(names)
                            + (f" ({hugging_face_words(flag)})" if flag in HUGGING_FACE_EXAMPLES else "")
                            + (f" ({ENGINE_WORDS})" if flag == "--engine" else ""))
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
    add_curve_flags(parser)  # a curve in place of the one acceptance figure
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(instrument="deployment")
    add_acceptance_parser(commands)
    return parser


def _deployment(args) -> deployment.Deployment:
    from ..cli import UsageError, parse_number

    for flag, (dest, names) in NAMES.items():
        if flag in HUGGING_FACE_EXAMPLES:  # a Hugging Face name runs as its preset, which the JSON's deployment names
            setattr(args, dest, model_preset(flag, getattr(args, dest), names))
        if flag == "--engine":  # vllm==0.11.2 runs as its preset (the JSON's engineVersion names both)
            args.engine, args.engine_version = engine_preset(args.engine, args.draft)
        if getattr(args, dest) not in names:
            raise UsageError(f"{flag} must be one of {', '.join(names)}, got {getattr(args, dest)!r}")
    if args.gpus not in ("1", "2", "4", "8"):
        raise UsageError(f"--gpus must be {RANGES['--gpus']}, got {args.gpus!r}")
    problem = serving.draft_engine_problem(args.draft, args.engine)  # suffix decoding: vLLM V1 (today and 0.10) only
    if problem:
        raise UsageError(f"--engine: {problem}")
    return D._replace(target=args.target, draft=args.draft, gpu=args.gpu, gpus=int(args.gpus), engine=args.engine,
                      precision=args.precision,
                      batch=parse_number("--batch", args.batch, 1, 1024, integer=True),
                      context=parse_number("--context", args.context, 512, 131072, integer=True),
                      lookahead=parse_number("--lookahead", args.lookahead, 1, deployment.MAX_LOOKAHEAD, integer=True))


def run(args):
    from ..cli import UsageError, parse_number

    if args.command == "acceptance":
        return run_acceptance(args)
    d = _deployment(args)
    curve, unit, value, measured_k, alpha = _acceptance_given(args, d)
    result = deployment.answer(d, alpha, curve)
    srv = result["serving"]
    document = {"deployment": d._asdict(), "given": {"unit": unit, "value": value, "measuredAt": measured_k},
                "alpha": alpha, "acceptancePercent": result["acceptancePercent"],
                "serving": srv, "servingSent": result["servingSent"], "ledger": result["ledger"], "agree": result["agree"],
                "ledgerCosts": result["costs"],
                "instruments": result["values"]}
    document.update(engine_version_fields(getattr(args, "engine_version", None)))
    lines = _answer_lines(d, alpha, curve, result)
    if curve is not None:
        document["curve"] = result["curve"]
    for name, values in result["values"].items():
        lines.append(f"{name}: " + ", ".join(f"{key}={value}" for key, value in values.items()))
    settings = deployment.serving_settings(d, result["acceptancePercent"])   # what the serving model answered at
    if not srv["fits"]:
        lines.append(serving.memory_note(settings))
    lines += ["note: " + note for note in (engine_version_line(getattr(args, "engine_version", None)),
                                           *serving.setting_notes(settings.target, settings.draft, settings.engine,
                                                                  settings.batch),
                                           deployment.lookahead_edge_note(result["serving"]["bestLookahead"]))
              if note]
    engine = args.config or "vllm"
    if engine not in CONFIG_ENGINES:
        raise UsageError(f"--config must be {CONFIG_FLAGS['--config']}, got {engine!r}")
    dollars = parse_number("--dollars-per-gpu-hour", args.dollars, 0.01, 1000)
    tpot_target = parse_number("--tpot-target-ms", args.tpot_target, 0.1, 10000)
    log = _log(args.log)
    extra = deployment.engine_answer(d, result["acceptancePercent"], engine, dollars, tpot_target, log, curve=curve)
    document.update(_production_fields(extra, log))
    if args.config:
        return document, _config_text(extra["config"]), 0
    lines += _production_lines(extra, dollars, tpot_target)
    from ..widgets.serving import trust_line   # the rule the serving widget and the panel's production fold state

    document["trust"] = trust_line(settings)
    lines.append(f"trust: {document['trust']}")
    lines += [f"diagnosis: {item['sentence']}" for item in extra["diagnosis"]]
    return document, "\n".join(lines), 0


def _acceptance_given(args, d: deployment.Deployment) -> tuple:
    """(curve or None, the unit of the one figure given, its value, the lookahead it was measured at, alpha): exactly
    one of the unit flags or a curve (which stands in as its mean acceptance length at the reader's k); one figure
    with a decay prior (``--method``, or any figure but alpha) becomes a curve, as the panel does."""
    from ..acceptance import family_of_draft
    from ..cli import UsageError, parse_number
    from ..errors import LabValueError

    curve = curve_from_args(args, required=False, default_method=family_of_draft(d.draft, d.target))
    given = [(flag, unit) for flag, unit in UNIT_FLAGS.items() if getattr(args, unit) is not None]
    if curve is not None and given:
        raise UsageError(f"give one figure ({given[0][0]}) or a curve, not both")
    if curve is not None:  # the curve alone: alpha is i.i.d.'s at the reader's k, for the sliders
        args.length, args.measured_at, given = str(curve.length(d.lookahead)), str(d.lookahead), [
            ("--mean-acceptance-length", "length")]
    if len(given) != 1:
        raise UsageError(f"give exactly one of {', '.join(UNIT_FLAGS)} (or a curve: --lengths, --per-position)")
    flag, unit = given[0]
    measured_k = d.lookahead if args.measured_at is None else parse_number("--measured-at", args.measured_at, 1, 64,
                                                                           integer=True)
    low, high = deployment.unit_ranges(measured_k)[unit]
    value = parse_number(flag, getattr(args, unit), low, high)
    try:
        alpha = deployment.alpha_from(value, unit, measured_k)
    except LabValueError as error:
        raise UsageError(f"{flag}: {error}") from None
    if curve is None and (unit != "alpha" or args.method is not None):  # one figure plus a decay prior, as the panel
        curve = deployment.figure_curve(alpha, measured_k, d.draft, args.method, d.target)
        alpha = deployment.alpha_from(curve.length(d.lookahead), "length", d.lookahead)
    return curve, unit, value, measured_k, alpha


def _answer_lines(d: deployment.Deployment, alpha: float, curve, result: dict) -> list[str]:
    """The answer's first lines: alpha (what the instruments take), the serving model's speedup and best k, the
    ledger's, and on a curve where its best k rests and its plateau."""
    srv, led = result["serving"], result["ledger"]
    lines = [f"alpha {alpha:.6f} (instruments take {result['acceptancePercent']}%)" if curve is None else
             f"alpha {alpha:.6f}, the independent model's equivalent of the curve at k = {d.lookahead} (the one-slider "
             f"instruments take {result['acceptancePercent']}%; the speedups below run on the curve)",
             f"serving model: {srv['speedup']:.4f}x at k = {d.lookahead}; best k = {srv['bestLookahead']} "
             f"({srv['bestSpeedup']:.4f}x) " + (f"at your alpha; {result['servingSent']['speedup']:.4f}x at the "
                                                f"instruments' {result['acceptancePercent']}%" if curve is None else
                                                f"on your curve; {result['servingSent']['speedup']:.4f}x on the curve "
                                                "the serving widget receives (4 decimals)")
             + ("" if srv["fits"] else " if it fitted in memory (it does not: see the note)"),
             f"ledger (fitted, rounded sliders): {led['speedup']:.4f}x at k = {d.lookahead}; best k = "
             f"{led['bestLookahead']} ({led['bestSpeedup']:.4f}x)"
             + ("" if result["agree"] else "  (differs only by its sliders' whole units)"
                if led["unroundedBestLookahead"] == result["servingSent"]["bestLookahead"] else
                "  (differs: a straight verify line fitted at your k)")]
    if curve is not None:
        lines.append("on the acceptance curve" + (f": best k rests on positions past the measured {srv['bestExtrapolatedFrom']}"
                                                  if srv["bestExtrapolatedFrom"] is not None else "")
                     + _plateau_clause(result["curve"]["plateauStart"], result["curve"]["token"]))
    return lines


def _production_fields(extra: dict, log) -> dict:
    """The JSON document's fields of the engine's answer: its configuration, the lookahead schedule (held and rising
    stretches), each way of running's cost and throughputs, the production figures, the diagnosis and the log read."""
    prod = extra["production"]
    return {"config": extra["config"], "schedule": extra["schedule"], "scheduleHeld": extra["held"],
            "scheduleRises": extra["rises"],
            "costPerMillionTokens": {name: prod[name]["costPerMillionTokens"] for name in ("plain", "speculative", "scheduled")},
            "tokensPerSecondPerGpu": {name: prod[name]["tokensPerSecondPerGpu"] for name in ("plain", "speculative", "scheduled")},
            "tokensPerSecondPerUser": {name: prod[name]["tokensPerSecondPerUser"] for name in ("plain", "speculative", "scheduled")},
            "production": prod, "diagnosis": extra["diagnosis"], "log": log}


def _config_text(config: dict) -> str:
    """``--config``'s output: the engine's launch configuration (or why it cannot run this), and why each line is
    there."""
    lines = [config["text"] if config["supported"] else f"# {config['label']}: {config['reason']}"]
    lines += [f"#   {line['text'][:40]}...: {line['why']}" for line in config["lines"] if line["why"]]
    return "\n".join(lines)


def _production_lines(extra: dict, dollars: float, tpot_target: float) -> list[str]:
    """The production lines: the lookahead schedule (and its notes), each way of running's TPOT, throughput and
    cost, the largest batch meeting the TPOT target, and what the draft adds to prefill."""
    prod = extra["production"]
    lines = ["schedule: " + ", ".join(f"batch {r['from']}-{r['to']}: k = {r['lookahead']}" for r in extra["schedule"])]
    if extra["held"]:
        from ..widgets.deployment import held_words

        lines.append("schedule note: " + held_words(extra["held"]))
    if extra["rises"]:
        from ..widgets.deployment import rises_words

        lines.append("schedule note: " + rises_words(extra["rises"]))
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
    return lines


def _log(path):
    """The trace reader's analysis of the log at ``path`` (lab.traces), read whole as ``trace`` reads it, or None
    without one."""
    if path is None:
        return None
    from .traces import read_analysis

    return read_analysis(path, "--log")
