"""``python -m lab tree``: the best token tree for an acceptance vector, its depth profile on a
measured acceptance curve, or the exact outputs of multi-draft verification, its no-update bug and
typical acceptance for one (p, q, k).

    python -m lab tree --rank-probs 60,20,10 --budget 32 --max-depth 6 [--json]
    python -m lab tree (--lengths K:L,... | --per-position R1,... | --vllm-per-position A1,...) [--method M]
                       [--top1 PCT --decay PCT --drafts K] [--budget N --max-depth D] [--json]
    python -m lab tree --verify --p 1/2,1/3,1/6 --q 0.2,0.5,0.3 --drafts 2 [--json]

A curve (as ``deployment`` takes it) gives what the trees widget shows in its measured-curve mode for the
token the deployment panel sends of it (:mod:`lab.trees_depth`): the tree its sliders choose (top-1,
decay, candidates per node, one rate at every level) valued level by level on the curve, a chain's
value, and the tree the curve's levels choose. The curve replaces ``--rank-probs`` (given, it is checked
and set aside), as the ledger's and the policies' curve replaces their acceptance.
"""

from fractions import Fraction

__all__ = ["add_parser", "run", "parse_vector", "VALUE_FLAGS"]

MAX_BUDGET = 256
MAX_DEPTH = 32
MAX_RANKS = 16
MAX_TOKENS = 64
MAX_DRAFTS = 16
MAX_ENTRY_DIGITS = 450                      # digits of one --p/--q entry, exactly
MAX_ENTRY_BITS = int(MAX_ENTRY_DIGITS * 3.3219280948873626)  # the same bound in bits
DEFAULT_BUDGET = "32"
DEFAULT_DEPTH = "6"
# Every flag that takes a value, with what it accepts (lab.cli names a flag left without one).
VALUE_FLAGS = {
    "--rank-probs": f"1 to {MAX_RANKS} comma-separated percentages that sum to at most 100",
    "--budget": f"an integer from 1 to {MAX_BUDGET}",
    "--max-depth": f"an integer from 1 to {MAX_DEPTH}",
    "--p": f"1 to {MAX_TOKENS} comma-separated weights (decimals or fractions like 1/3)",
    "--q": f"1 to {MAX_TOKENS} comma-separated weights (decimals or fractions like 1/3)",
    "--drafts": f"an integer from 1 to {MAX_DRAFTS}",
}
from .deployment import CURVE_FLAGS  # noqa: E402
from ..cli import flag_name  # noqa: E402
from ..urlstate import TREE_SLIDERS, describe_range  # noqa: E402

# The trees widget's sliders the curve mode takes (their ranges and defaults); --drafts keeps its own range.
CURVE_SLIDERS = {s.name: s for s in TREE_SLIDERS if s.name in ("top1", "decay", "drafts")}
VALUE_FLAGS.update({**CURVE_FLAGS, **{flag_name(name): describe_range(CURVE_SLIDERS[name]) for name in ("top1", "decay")}})
# Flags whose numbers are percentages, and flags a curve replaces (lab.cli.input_notes)
PERCENT_FLAGS = ("--rank-probs",)
CURVE_REPLACES = ("--rank-probs",)


def add_parser(commands):
    parser = commands.add_parser(
        "tree", help="the best token tree for an acceptance vector (Sequoia's DP), its depth profile on an "
                     "acceptance curve, or --verify: exact multi-draft, no-update-bug and typical-acceptance "
                     "outputs for one (p, q, k)")
    parser.set_defaults(instrument="trees")   # the subcommand is `tree`; the instrument is `trees`
    parser.add_argument("--rank-probs", default=None, metavar="P1,P2,...",
                        help="percent chance that the b-th ranked child is the accepted one (sum at most 100; "
                             "a curve replaces it)")
    parser.add_argument("--budget", default=None, metavar="N",
                        help=f"node budget, root included (an integer from 1 to {MAX_BUDGET}; default {DEFAULT_BUDGET})")
    parser.add_argument("--max-depth", default=None, metavar="D",
                        help=f"levels, root included (an integer from 1 to {MAX_DEPTH}; default {DEFAULT_DEPTH})")
    parser.add_argument("--verify", action="store_true", help="compare the three verifiers for --p, --q, --drafts")
    parser.add_argument("--p", default=None, metavar="A,B,...",
                        help="target weights (decimals or fractions like 1/3; normalised exactly)")
    parser.add_argument("--q", default=None, metavar="A,B,...", help="draft weights, as --p")
    parser.add_argument("--drafts", default=None, metavar="K",
                        help=f"candidates per position (an integer from 1 to {MAX_DRAFTS}; with a curve, tree "
                             f"candidates per node, default {CURVE_SLIDERS['drafts'].default:g})")
    from .deployment import add_curve_flags

    add_curve_flags(parser)  # the widget's treCurve: the depth profile; the curve replaces --rank-probs
    for name, words in (("top1", "the top-1 acceptance the tree is chosen on (one rate at every level)"),
                        ("decay", "the decay of lower ranks, for that tree and on the curve's levels")):
        slider = CURVE_SLIDERS[name]
        parser.add_argument(flag_name(name), dest=name, default=None, metavar="PCT",
                            help=f"with a curve: {words}, as the trees widget's slider ({describe_range(slider)}, "
                                 f"percent; default {slider.default:g})")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.epilog = ("A curve (--lengths, --per-position or --vllm-per-position, with --method) gives the trees "
                     "widget's depth profile on the token the deployment panel sends for it; it replaces "
                     "--rank-probs, which is then checked and set aside.")


def _number(flag: str, text: str) -> Fraction:
    """One entry of a vector: a finite decimal or a fraction a/b, exactly."""
    from ..cli import UsageError, require_ascii

    require_ascii(flag, text)
    try:
        value = Fraction(text.strip())
    except (ValueError, ZeroDivisionError):
        raise UsageError(f"{flag}: {text.strip()[:24]!r} is not a number or a fraction like 1/3") from None
    # The tables print exact fractions: an entry whose numerator or denominator runs past a few
    # hundred digits would make them unprintable (and say nothing a float-sized weight does not).
    if max(abs(value.numerator), value.denominator).bit_length() > MAX_ENTRY_BITS:
        raise UsageError(f"{flag}: {text.strip()[:24]!r} needs more than {MAX_ENTRY_DIGITS} digits exactly; "
                         f"give a number between 1e-{MAX_ENTRY_DIGITS - 50} and 1e{MAX_ENTRY_DIGITS - 50}")
    return value


def parse_vector(flag: str, text, limit: int) -> list[Fraction]:
    """A comma-separated vector of non-negative exact numbers, 1..limit entries.

    >>> parse_vector("--p", "1/2, 0.25,1", 8)
    [Fraction(1, 2), Fraction(1, 4), Fraction(1, 1)]
    """
    from ..cli import UsageError

    if text is None or not text.strip():
        raise UsageError(f"{flag} needs a comma-separated list of 1 to {limit} numbers")
    values = [_number(flag, part) for part in text.split(",")]
    if len(values) > limit:
        raise UsageError(f"{flag} has {len(values)} entries; at most {limit}")
    negative = next((v for v in values if v < 0), None)
    if negative is not None:
        raise UsageError(f"{flag} has a negative entry ({negative}); every entry must be 0 or more")
    return values


def _fraction_text(x: Fraction) -> str:
    return f"{x.numerator}/{x.denominator}"


def _rank_percents(text) -> list[Fraction]:
    from ..cli import UsageError

    percents = parse_vector("--rank-probs", text, MAX_RANKS)
    if any(p > 100 for p in percents) or sum(percents) > 100:
        total = sum(percents)  # exact: a sum past a float's range (1e400) is still named, as 'more than 1e300'
        shown = f"{float(total):g}" if total < 10 ** 300 else "more than 1e300"
        raise UsageError(f"--rank-probs must sum to at most 100 (they are percentages); got {shown}")
    return percents


def _budget_and_depth(args) -> tuple[int, int]:
    from ..cli import parse_number

    return (parse_number("--budget", args.budget or DEFAULT_BUDGET, 1, MAX_BUDGET, integer=True),
            parse_number("--max-depth", args.max_depth or DEFAULT_DEPTH, 1, MAX_DEPTH, integer=True))


def _tree_run(args):
    from ..cli import UsageError
    from .. import trees

    curve = "a curve (--lengths, --per-position or --vllm-per-position)"
    for flag, value, owner in (("--p", args.p, "--verify"), ("--q", args.q, "--verify"),
                               ("--drafts", args.drafts, f"--verify or to {curve}"), ("--top1", args.top1, curve),
                               ("--decay", args.decay, curve), ("--method", args.method, curve)):
        if value is not None:
            raise UsageError(f"{flag} belongs to {owner}; the tree mode takes --rank-probs, --budget, --max-depth")
    percents = _rank_percents(args.rank_probs)
    budget, depth = _budget_and_depth(args)
    probs = tuple(float(p / 100) for p in percents)
    tree = trees.fast_best_tree(probs, budget, depth)   # the widget's tree, where equally good trees differ
    chain = trees.chain_value(probs[0], budget, depth)
    document = {"rankProbs": [float(p) for p in percents], "budget": budget, "maxDepth": depth,
                "expectedLength": tree.value, "chainLength": chain, "nodes": tree.nodes, "depth": tree.depth,
                "parents": tree.parents}
    lines = [f"best tree     {tree.value:.6f} tokens per verify pass ({tree.nodes} nodes, {tree.depth} levels)",
             f"chain         {chain:.6f} tokens per verify pass ({min(budget, depth)} nodes)",
             f"parents       {' '.join(str(p) for p in tree.parents)}"]
    return document, "\n".join(lines), 0


def _curve_run(args, received):
    """The trees widget's measured-curve mode (lab.widgets.trees, ``treCurve``) on the token the deployment
    panel sends for the curve: the slider tree's depth profile and the depth-aware tree (lab.trees_depth)."""
    from ..cli import UsageError, parse_number, slider_value
    from ..figures import plural
    from .. import trees_depth

    for flag, value in (("--p", args.p), ("--q", args.q)):
        if value is not None:
            raise UsageError(f"{flag} belongs to --verify; a curve takes --top1, --decay, --drafts, --budget, --max-depth")
    set_aside = None if args.rank_probs is None else [float(p) for p in _rank_percents(args.rank_probs)]
    budget, depth = _budget_and_depth(args)
    top1, decay = (CURVE_SLIDERS[name].default if getattr(args, name) is None
                   else slider_value(CURVE_SLIDERS[name], getattr(args, name)) for name in ("top1", "decay"))
    drafts = int(CURVE_SLIDERS["drafts"].default) if args.drafts is None else parse_number(
        "--drafts", args.drafts, 1, MAX_DRAFTS, integer=True)
    top1, decay = int(top1), int(decay)  # whole percents, as the widget's sliders hold them
    from ..acceptance import token_method

    token, rates, measured = received
    tree = trees_depth.slider_tree(top1, decay, drafts, budget, depth)
    level_rates = trees_depth.depth_rates(rates, top1, measured, max(trees_depth.CURVE_LEVELS, depth), token_method(token))
    profile = trees_depth.profile_on_curve(tree.parents, level_rates, decay, drafts, budget, depth)
    levels, aware = len(profile["rows"]), profile["aware"]
    past = measured if levels > measured else None
    document = {"params": {"top1": top1, "decay": decay, "drafts": drafts, "budget": budget, "maxDepth": depth,
                           "rankProbs": set_aside},
                "curve": token, "measuredAt": measured,
                "tree": {"parents": tree.parents, "value": tree.value, "nodes": tree.nodes, "depth": tree.depth},
                "depthProfile": profile, "extrapolatedFrom": past}
    lines = [f"curve         {token}",
             f"slider tree   {plural(tree.nodes, 'node')} over {plural(tree.depth, 'level')}, chosen on top-1 {top1}%, decay {decay}%, "
             f"{drafts} candidate{'' if drafts == 1 else 's'} per node (i.i.d.): {tree.value:.6f} tokens per verify "
             "pass at those ranks",
             "level  top-1 acceptance  nodes  tokens added"]
    lines += [f"{row['depth']:>5}  {100 * row['top1']:>15.1f}%  {row['nodes']:>5}  {row['tokens']:>12.6f}"
              for row in profile["rows"]] or ["    (none: the tree is its root alone)"]
    lines += [f"on the curve  the slider tree {profile['value']:.6f} tokens per verify pass; a chain of "
              f"{plural(levels + 1, 'node')} {profile['chain']:.6f}",
              f"depth-aware   {aware['value']:.6f} tokens per verify pass ({plural(aware['nodes'], 'node')} over "
              f"{plural(aware['depth'], 'level')}, root included), the best tree within {budget} nodes and {depth} "
              "levels on the curve's levels"]
    if past is not None:
        which = trees_depth.levels_resting(past + 1, levels)
        lines.append(f"note          {which} on the acceptance model's extrapolation past the {past} measured positions")
    if set_aside is not None:
        lines.append("note          the curve replaces --rank-probs (set aside)")
    return document, "\n".join(lines), 0


def _verify_run(args):
    from ..cli import UsageError, parse_number
    from .. import trees

    for flag, value in (("--rank-probs", args.rank_probs), ("--budget", args.budget), ("--max-depth", args.max_depth),
                        ("--top1", args.top1), ("--decay", args.decay)):
        if value is not None:
            raise UsageError(f"{flag} belongs to the tree mode; --verify takes --p, --q, --drafts")
    from .deployment import curve_flags_given

    curve_flags = curve_flags_given(args) + (["--method"] if args.method is not None else [])
    if curve_flags:
        raise UsageError(f"{curve_flags[0]} gives a curve, which the tree mode takes; --verify takes --p, --q, --drafts")
    p_raw = parse_vector("--p", args.p, MAX_TOKENS)
    q_raw = parse_vector("--q", args.q, MAX_TOKENS)
    if len(p_raw) != len(q_raw):
        raise UsageError(f"--p has {len(p_raw)} entries and --q has {len(q_raw)}; they must have the same length")
    for flag, raw in (("--p", p_raw), ("--q", q_raw)):
        if sum(raw) == 0:
            raise UsageError(f"{flag} is all zeros; it needs some positive weight")
    if args.drafts is None:
        raise UsageError(f"--verify needs --drafts (an integer from 1 to {MAX_DRAFTS})")
    k = parse_number("--drafts", args.drafts, 1, MAX_DRAFTS, integer=True)
    p, q = trees.normalise(p_raw), trees.normalise(q_raw)
    exact = trees.multi_draft_output(p, q, k)
    buggy = trees.no_update_output(p, q, k)
    typical = trees.typical_output(p, q, k)
    tvs = {name: trees.total_variation(p, out) for name, out in
           (("exactTv", exact), ("buggyTv", buggy), ("typicalTv", typical))}
    document = {"p": [_fraction_text(x) for x in p], "q": [_fraction_text(x) for x in q], "drafts": k,
                "outputDistribution": [_fraction_text(x) for x in exact],
                "buggyOutputDistribution": [_fraction_text(x) for x in buggy],
                "typicalOutputDistribution": [_fraction_text(x) for x in typical],
                **{name: _fraction_text(tv) for name, tv in tvs.items()},
                "bugExactPredicted": trees.bug_is_exact_predicted(p, q, k)}
    row = lambda values: " ".join(_fraction_text(x) for x in values)  # noqa: E731
    lines = [f"p             {row(p)}", f"q             {row(q)}",
             f"multi-draft   {row(exact)}   TV {float(tvs['exactTv']):.6f}",
             f"no-update bug {row(buggy)}   TV {float(tvs['buggyTv']):.6f}",
             f"typical       {row(typical)}   TV {float(tvs['typicalTv']):.6f}"]
    return document, "\n".join(lines), 0


def run(args):
    """``(document, text, status)`` for either mode; bad input raises ``lab.cli.UsageError``."""
    from ..cli import UsageError

    if args.verify:
        return _verify_run(args)
    from .deployment import received_from_args

    received = received_from_args(args)
    if received is not None:
        return _curve_run(args, received)
    if args.rank_probs is None:
        raise UsageError("tree needs --rank-probs P1,P2,... (percentages), a curve (--lengths, --per-position or "
                         "--vllm-per-position), or --verify with --p, --q, --drafts")
    return _tree_run(args)
