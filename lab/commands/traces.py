"""``python -m lab trace`` and ``python -m lab translate``: measured traces from a terminal.

    python -m lab trace [FILE|-] [--format auto|FORMAT] [--lookahead K] [--model NAME]
                        [--target-ms X --draft-cost PCT --verify-tax PCT --overhead-ms X] [--json]
    python -m lab translate --lookahead K (--alpha PCT | --acceptance-rate PCT | --mean-acceptance-length X) [--json]

Rates in the output are fractions in [0, 1]; the ledger flags keep the ledger's percent units.
A file is read in 1 MB pieces through the same streaming parser the page uses, decoded as UTF-8
(a byte-order mark dropped) or, when it starts with a UTF-16 byte-order mark (what PowerShell's ``>``
writes), as UTF-16.
"""

import codecs
import sys

CHUNK = 1 << 20
LEDGER_FLAGS = (("targetMs", "--target-ms"), ("draftCost", "--draft-cost"), ("verifyTax", "--verify-tax"),
                ("overheadMs", "--overhead-ms"))




def _value_flags() -> dict[str, str]:
    """Every flag of ``trace`` and ``translate`` that takes a value, with what it accepts (the
    two subcommands give ``--lookahead`` the same range)."""
    from ..cli import range_text
    from ..traces import FORMATS, MAX_LOOKAHEAD
    from ..urlstate import LEDGER_SLIDERS

    sliders = {slider.name: slider for slider in LEDGER_SLIDERS}
    return {
        "--format": f"auto or one of {', '.join(FORMATS)}",
        "--lookahead": range_text(1, MAX_LOOKAHEAD, integer=True),
        "--model": "the name of one model, implementation or run the input holds",
        **{flag: range_text(sliders[name].minimum, sliders[name].maximum) for name, flag in LEDGER_FLAGS},
        "--alpha": range_text(0, 100), "--acceptance-rate": range_text(0, 100),
        "--mean-acceptance-length": "a number from 1 to the lookahead + 1",
    }


# Flags whose numbers are percentages (lab.cli.input_notes: 0.74 is 0.74 %, not 74 %)
PERCENT_FLAGS = ("--alpha", "--acceptance-rate")
VALUE_FLAGS = _value_flags()


def add_parser(commands):
    from ..traces import FORMATS, MAX_LOOKAHEAD

    trace = commands.add_parser("trace", help="read a serving engine's speculative decoding metrics (file or -)")
    trace.set_defaults(instrument="traces", traces_command="trace")
    trace.add_argument("file", nargs="?", default="-", help="the trace file, or - for standard input (default)")
    trace.add_argument("--format", default="auto", choices=("auto",) + FORMATS, help="the format (default: detect it)")
    trace.add_argument("--lookahead", default=None, metavar="K",
                       help=f"draft tokens per verifier call, for formats that do not record it (1 to {MAX_LOOKAHEAD})")
    trace.add_argument("--model", default=None, metavar="NAME",
                       help="the model (Prometheus model_name, JSON model), llama.cpp implementation or benchmark run "
                            "to read when the input holds several")
    for name, flag in LEDGER_FLAGS:
        trace.add_argument(flag, dest=f"ledger_{name}", default=None, metavar="X",
                           help="ledger cost setting for the speedup (the ledger's units and defaults)")
    trace.add_argument("--json", action="store_true", help="print one JSON object")

    translate = commands.add_parser("translate", help="alpha <-> engine acceptance rate <-> mean acceptance length")
    translate.set_defaults(instrument="traces", traces_command="translate")
    translate.add_argument("--lookahead", default=None, metavar="K", help=f"draft tokens per verifier call (1 to {MAX_LOOKAHEAD})")
    given = translate.add_mutually_exclusive_group()
    given.add_argument("--alpha", default=None, metavar="PCT", help="per-token acceptance, percent (0 to 100)")
    given.add_argument("--acceptance-rate", default=None, metavar="PCT",
                       help="the engine's accepted / drafted tokens, percent (0 to 100)")
    given.add_argument("--mean-acceptance-length", default=None, metavar="X",
                       help="tokens per verifier call counting the verifier's own (1 to k + 1)")
    translate.add_argument("--json", action="store_true", help="print one JSON object")


def run(args):
    return _translate(args) if args.traces_command == "translate" else _trace(args)


def _ascii(flag: str, text):
    """The one rule for digits, shared with lab.traces (which refuses a count written in other
    digits): a number is written in ASCII digits 0-9. Python's float() would read '\u0663' (Arabic
    three) or a full-width digit as a number; the reader never does, so neither does the CLI."""
    from ..cli import UsageError
    from ..traces import shortened

    if isinstance(text, str) and not text.isascii():
        raise UsageError(f"{flag}: {shortened(text)!r} is not a number written in ASCII digits (0-9)")
    return text


def _lookahead(text, required: bool):
    from ..cli import UsageError, parse_number
    from ..traces import MAX_LOOKAHEAD

    if text is None:
        if required:
            raise UsageError(f"--lookahead is required: an integer from 1 to {MAX_LOOKAHEAD}")
        return None
    return parse_number("--lookahead", _ascii("--lookahead", text), 1, MAX_LOOKAHEAD, integer=True)


def _decoder(head: bytes):
    """An incremental decoder for the file's encoding, told by its first bytes: UTF-16 with a
    byte-order mark (or NULs between ASCII letters), else UTF-8 without its byte-order mark."""
    if head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return codecs.getincrementaldecoder("utf-16")(errors="replace")
    if len(head) >= 4 and head[1] == 0 and head[3] == 0 and head[0] != 0:
        return codecs.getincrementaldecoder("utf-16-le")(errors="replace")
    if len(head) >= 4 and head[0] == 0 and head[2] == 0 and head[1] != 0:
        return codecs.getincrementaldecoder("utf-16-be")(errors="replace")
    return codecs.getincrementaldecoder("utf-8-sig")(errors="replace")


def read_analysis(path: str, what: str) -> dict:
    """The trace reader's analysis of the file at ``path`` (``-``: standard input), read whole as ``trace`` reads
    it (in pieces, UTF-16 or UTF-8, any size), for the flags of other subcommands that take a trace (``--log``,
    ``--trace``); a file that cannot be read or parsed is one line starting with ``what``.

    >>> read_analysis("lab/traces/samples/vllm_log.txt", "--log")["drafts"]
    527
    """
    from ..cli import UsageError
    from ..traces import TraceError, TraceParser, analyse

    try:
        parser = TraceParser("auto", None, None)
        _read(path, parser, what)
        return analyse(parser.finish())
    except TraceError as error:
        raise UsageError(f"{what}: {error}") from None


def _read(path: str, parser, what: str = "trace"):
    from ..cli import UsageError
    from ..traces import TraceError

    if path == "-":
        if sys.stdin is None or getattr(sys.stdin, "closed", False):
            raise UsageError(f"{what}: standard input is closed; give a FILE, or pipe the trace in: "
                             "python -m lab trace < FILE")
        stream, close = getattr(sys.stdin, "buffer", None), False
        if stream is None:  # a text-only stdin (tests): read text
            try:
                for piece in iter(lambda: sys.stdin.read(CHUNK), ""):
                    parser.feed(piece)
            except (OSError, ValueError) as error:  # closed under us ('read of closed file')
                if isinstance(error, TraceError):
                    raise
                raise UsageError(f"{what}: cannot read standard input: {error}") from None
            return
    else:
        try:
            stream, close = open(path, "rb"), True
        except OSError as error:
            raise UsageError(f"{what}: cannot read {path}: {error.strerror or error}") from None
    try:
        decoder = None
        while True:
            piece = stream.read(CHUNK)
            if decoder is None:
                decoder = _decoder(piece[:4])
            if not piece:
                parser.feed(decoder.decode(b"", final=True))
                break
            parser.feed(decoder.decode(piece))
    except (OSError, ValueError) as error:  # ValueError: a stream closed under us ('read of closed file')
        if isinstance(error, TraceError):
            raise
        where = "standard input" if path == "-" else path
        raise UsageError(f"{what}: cannot read {where}: {error}") from None
    finally:
        if close:
            stream.close()


def _ledger_settings(args):
    from ..cli import parse_number
    from ..ledger import LedgerSettings
    from ..urlstate import LEDGER_SLIDERS

    values = {}
    sliders = {slider.name: slider for slider in LEDGER_SLIDERS}
    for name, flag in LEDGER_FLAGS:
        text = getattr(args, f"ledger_{name}")
        if text is not None:
            slider = sliders[name]
            values[name] = parse_number(flag, _ascii(flag, text), slider.minimum, slider.maximum)
    return LedgerSettings(**values)


def trace_document(analysis: dict, settings) -> dict:
    """The JSON document of ``python -m lab trace`` (also what the widget's numbers come from), with ``method``, the
    drafter family the log names (or None), and ``curve``, the measured-curve token the widget's Send buttons hand the
    other instruments (``custom:`` and the rates, ``~family`` when the log names it:
    :func:`lab.acceptance_text.rates_token`)."""
    from ..acceptance import best_lookahead_from_curve, rates_token
    from ..ledger import ledger_from_curve
    from ..traces import measured_curve
    from ..widgets.traces import BEST_K_MAX, extended_curve

    curve = measured_curve(analysis)
    k = analysis["lookahead"]
    speedup = ledger_from_curve(settings.with_(lookahead=k), curve).speedup
    extended, _ = extended_curve(analysis, max(k, BEST_K_MAX))  # past k: lab.acceptance's continuation
    best_k, best_speedup = best_lookahead_from_curve(settings, extended, BEST_K_MAX)
    independence = analysis["independence"]
    return {
        **{key: analysis[key] for key in ("format", "model", "lookahead", "drafts", "draftTokens", "acceptedTokens",
                                          "meanAcceptanceLength", "acceptanceRate", "perPosition", "conditional",
                                          "alphaIid", "alphaMle", "callsBound", "bounds")},
        "independence": None if independence is None else
        {key: independence[key] for key in ("statistic", "df", "pValue", "verdict")},
        "speedup": speedup, "bestLookahead": best_k, "bestSpeedup": best_speedup,
        "bestLookaheadExtrapolatedFrom": k if best_k > k else None,
        "ledger": settings._asdict() | {"lookahead": k},
        "perPositionIntervals": analysis["perPositionIntervals"], "conditionalIntervals": analysis["conditionalIntervals"],
        "formatName": analysis["formatName"], "notes": analysis["notes"], "missing": analysis["missing"],
        "method": analysis["method"], "curve": rates_token(curve, analysis["method"]),
    }


def _number(value, digits=6):
    return "n/a" if value is None else f"{value:.{digits}f}"


def _trace(args):
    from ..cli import UsageError
    from ..traces import TraceError, TraceParser, analyse, count_text

    lookahead = _lookahead(args.lookahead, required=False)
    settings = _ledger_settings(args)
    try:
        parser = TraceParser(args.format, lookahead, args.model)
        _read(args.file, parser)
        analysis = analyse(parser.finish())
    except TraceError as error:
        raise UsageError(f"trace: {error}") from None
    document = trace_document(analysis, settings)
    bound = document["callsBound"]
    calls = "n/a" if document["drafts"] is None else count_text(document["drafts"])
    lines = [
        f"format                {document['format']} ({document['formatName']})",
        *([f"model                 {document['model']}"] if document["model"] else []),
        f"lookahead k           {document['lookahead']}",
        f"drafts (calls)        {('at least ' + calls) if bound else calls}",
        f"draft tokens          {document['draftTokens'] if document['draftTokens'] is not None else 'n/a'}",
        f"accepted tokens       {document['acceptedTokens'] if document['acceptedTokens'] is not None else 'n/a'}",
        f"mean accept. length   {'at most ' if bound else ''}{_number(document['meanAcceptanceLength'])}   "
        f"(1 + accepted / drafts)",
        f"acceptance rate       {_number(document['acceptanceRate'])}   (accepted / draft tokens)",
    ]
    if document["perPosition"] is not None:
        lines.append("position  unconditional [95% CI]        conditional [95% CI]")
        for i, (u, ui, c, ci) in enumerate(zip(document["perPosition"], document["perPositionIntervals"],
                                               document["conditional"], document["conditionalIntervals"]), 1):
            cond = "n/a" if c is None else f"{c:.4f} [{ci[0]:.4f}, {ci[1]:.4f}]"
            lines.append(f"{i:>8}  {u:.4f} [{ui[0]:.4f}, {ui[1]:.4f}]      {cond}")
    lines += [
        f"alphaIid              {'at most ' if bound else ''}{_number(document['alphaIid'])}   "
        f"(the ledger's acceptance / 100 that reproduces the mean length)",
        f"alphaMle              {_number(document['alphaMle'])}   (S / (S + R))",
    ]
    independence = document["independence"]
    if independence is not None:
        lines.append(f"one constant rate?    G = {independence['statistic']:.4f}, df = {independence['df']}, "
                     f"p = {independence['pValue']:.4g}: {independence['verdict']}")
    lines.append(f"speedup               {document['speedup']:.6f} at k = {document['lookahead']}; best lookahead "
                 f"{document['bestLookahead']} ({document['bestSpeedup']:.6f}x)"
                 + (f", extrapolated past the measured k = {document['bestLookaheadExtrapolatedFrom']} by the "
                    f"curve's fitted fall" if document["bestLookaheadExtrapolatedFrom"] is not None else ""))
    lines.append(f"curve token           {document['curve']}   (what the trace reader sends the ledger, serving, the "
                 "policies)")
    lines += [f"lower bound           {item}" for item in document["bounds"]]
    lines += [f"note                  {note}" for note in document["notes"] + document["missing"]]
    return document, "\n".join(lines), 0


TRANSLATOR_ASSUMES = ("full-length chain drafts of k tokens, each kept independently with one alpha; n-gram and "
                      "suffix drafts (often shorter than k), dynamic or adaptive lookahead, llama.cpp's early stop and "
                      "trees (topk > 1) break it: read their counts with `trace` instead")


def _translate(args):
    from ..cli import UsageError, parse_number
    from ..traces import TraceError, translate

    lookahead = _lookahead(args.lookahead, required=True)
    if args.alpha is not None:
        given = {"alpha": parse_number("--alpha", _ascii("--alpha", args.alpha), 0, 100) / 100}
    elif args.acceptance_rate is not None:
        given = {"acceptance_rate": parse_number("--acceptance-rate", _ascii("--acceptance-rate", args.acceptance_rate), 0, 100) / 100}
    elif args.mean_acceptance_length is not None:
        given = {"mean_acceptance_length": parse_number("--mean-acceptance-length", _ascii("--mean-acceptance-length", args.mean_acceptance_length),
                                                        1, lookahead + 1)}
    else:
        raise UsageError("translate: give one of --alpha PCT, --acceptance-rate PCT, --mean-acceptance-length X")
    try:
        result = translate(lookahead, **given)
    except TraceError as error:
        raise UsageError(f"translate: {error}") from None
    document = {key: result[key] for key in ("lookahead", "alpha", "acceptanceRate", "meanAcceptanceLength")}
    document["assumes"] = TRANSLATOR_ASSUMES
    text = "\n".join([
        f"lookahead k             {lookahead}",
        f"alpha                   {result['alpha']:.6f}   (per-token; the ledger slider is 100 x this)",
        f"acceptance rate         {result['acceptanceRate']:.6f}   (vLLM 'Avg Draft acceptance rate', llama.cpp "
        f"'draft acceptance', older 'draft acceptance rate')",
        f"mean acceptance length  {result['meanAcceptanceLength']:.6f}   (vLLM 'Mean acceptance length', SGLang "
        f"'accept len', llama.cpp 'mean acceptance length')",
        f"SGLang 'accept rate'    {result['sglangAcceptRateOld']:.6f} (older: accept len / (k + 1)) or "
        f"{result['acceptanceRate']:.6f} (newer: (accept len - 1) / k)",
        f"assumes                 {TRANSLATOR_ASSUMES}",
    ])
    return document, text, 0
