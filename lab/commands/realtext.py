"""``python -m lab generate``: speculative decoding on real text from a terminal.

    python -m lab generate (--prompt TEXT | --preset NAME) [--proposer draft|draft-greedy|ngram]
                           [--lookahead K] [--temperature T] [--tokens N] [--seed S] [--compare] [--json]

The model is the build's (trained from Pyodide's standard library on first use and cached in
``.cache/realtext/``). ``cycles`` in the JSON is one accepted count per verifier call that carried
a draft, the input ``python -m lab trace --format cycles --lookahead K`` reads. ``--compare`` also
decodes the target greedily and says whether the speculative text is the same (it must be at T = 0).
"""

from ..cli import range_text
from ..realtext import LIMITS, MAX_PROMPT_CHARS, MIN_TEMPERATURE, PRESETS, PROPOSERS

__all__ = ["add_parser", "run", "settings", "VALUE_FLAGS"]

# Every flag that takes a value, with what it accepts (lab.cli: '--temperature -1' and a prompt
# such as '- item' reach their checks, and a flag left without a value is named).
VALUE_FLAGS = {
    "--prompt": f"the text to continue, 1 to {MAX_PROMPT_CHARS} characters (write --prompt=TEXT for text that "
                f"starts with --)",
    "--preset": f"one of {', '.join(PRESETS)}",
    "--proposer": f"one of {', '.join(PROPOSERS)}",
    **{f"--{name}": range_text(low, high, integer=name != "temperature") for name, (low, high, _) in LIMITS.items()},
    "--temperature": f"0 (greedy) or a number from {MIN_TEMPERATURE:g} to {LIMITS['temperature'][1]:g}",
}


def add_parser(commands):

    parser = commands.add_parser("generate", help="speculative decoding on real text with real models, exact")
    given = parser.add_mutually_exclusive_group()
    given.add_argument("--prompt", default=None, metavar="TEXT", help="the text to continue")
    given.add_argument("--preset", default=None, metavar="NAME", help=f"a preset prompt: {', '.join(PRESETS)}")
    parser.add_argument("--proposer", default="draft", metavar="NAME",
                        help=f"who drafts: {', '.join(PROPOSERS)} (default draft)")
    for flag, name in (("--lookahead", "lookahead"), ("--temperature", "temperature"), ("--tokens", "tokens"),
                       ("--seed", "seed")):
        low, high, default = LIMITS[name]
        parser.add_argument(flag, dest=f"realtext_{name}", default=None, metavar="N",
                            help=f"{low:g} to {high:d} (default {default:g})" if isinstance(high, int) else
                            f"{low:g} to {high:g} (default {default:g})")
    parser.add_argument("--compare", action="store_true", help="also decode the target greedily and compare")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(instrument="realtext")
    return parser


def settings(args) -> dict:
    """The flags, checked: one UsageError line naming the flag and its valid values."""
    from ..cli import UsageError, parse_number

    if args.prompt is None and args.preset is None:
        raise UsageError(f"generate needs --prompt TEXT or --preset NAME ({', '.join(PRESETS)})")
    if args.preset is not None and args.preset not in PRESETS:
        raise UsageError(f"--preset must be one of {', '.join(PRESETS)}, got {args.preset!r}")
    prompt = PRESETS[args.preset][1] if args.preset is not None else args.prompt
    if not prompt or len(prompt) > MAX_PROMPT_CHARS:
        raise UsageError(f"--prompt must be 1 to {MAX_PROMPT_CHARS} characters, got {len(prompt)}")
    if args.proposer not in PROPOSERS:
        raise UsageError(f"--proposer must be one of {', '.join(PROPOSERS)}, got {args.proposer!r}")
    values = {"prompt": prompt, "proposer": args.proposer}
    for name in ("lookahead", "temperature", "tokens", "seed"):
        low, high, default = LIMITS[name]
        text = getattr(args, f"realtext_{name}")
        values[name] = default if text is None else parse_number(f"--{name}", text, low, high,
                                                                 integer=name != "temperature")
    if 0 < values["temperature"] < MIN_TEMPERATURE:  # tempered rows would underflow (realtext.MIN_TEMPERATURE)
        raise UsageError(f"--temperature must be 0 (greedy) or from {MIN_TEMPERATURE:g} to {LIMITS['temperature'][1]:g}, "
                         f"got {args.realtext_temperature!r}")
    return values


def run(args):
    from ..cli import UsageError
    from .. import realtext

    values = settings(args)
    try:
        model = realtext.default_model()
    except realtext.ModelUnavailable as error:
        raise UsageError(f"generate: no model ({error})") from None
    document = realtext.run_document(model, values, compare=args.compare)
    lines = [document["text"], "",
             f"{document['verifierCalls']} verifier calls for {len(document['tokens'])} tokens: "
             f"{document['tokensPerCall']:.3f} tokens per call; acceptance rate "
             + (f"{document['acceptanceRate']:.3f}" if document["acceptanceRate"] is not None else "n/a (no drafts)")
             + (f"; alpha iid {document['alphaIid']:.4f}, MLE {document['alphaMle']:.4f}"
                if document["alphaIid"] is not None else "")]
    if document["perPosition"] is not None:
        lines.append("per position: " + " ".join(f"{rate:.3f}" for rate in document["perPosition"]))
    if args.compare:
        lines.append(f"greedy target: {'identical' if document['identical'] else 'different'}"
                     + ("" if values["temperature"] == 0 else " (T > 0: sampled text differs from greedy by design)"))
    return document, "\n".join(lines), 0
