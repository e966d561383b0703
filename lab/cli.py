"""``python -m lab {audit,<widget>...}``: the lab from a terminal and from CI.

``audit`` is the CLI's own; each widget of :mod:`lab.instruments` brings its subcommand
(``lab/commands/NAME.py``: ``add_parser(commands)``, ``run(args) -> (document, text, status)``
and ``VALUE_FLAGS``, every flag of its subcommands that takes a value mapped to the values it
accepts); they parse numbers with :func:`parse_number` or :func:`slider_value` and report bad
input by raising :class:`UsageError`. ``VALUE_FLAGS`` is read for the subcommand being run only
(two subcommands may give one flag different ranges): ``--flag VALUE`` reaches the flag's own
check even when VALUE starts with ``-`` (``--temperature -1``, ``--prompt "- item"``), and a flag
left without a value is one line naming the flag and what it accepts.

Unlike the sliders, the CLI does not clamp: a bad flag value (not a number, NaN, an
infinity, out of range, a fraction where an integer is needed) prints one line naming the
flag and its valid range on stderr and exits with status 2.
"""

import argparse
import json
import math
import os
import sys

from . import audit, instruments
from .urlstate import QUOTE_LIMIT, Slider, describe_range, quote


class UsageError(Exception):
    """A bad command line; its message is the whole line shown to the user."""


class _HelpFormatter(argparse.HelpFormatter):
    """argparse's help layout with a flag's help broken at spaces only: a preset's name (``eagle-head``,
    ``qwen3-next-80b-a3b``) is never cut at one of its hyphens, so the list a flag takes reads whole."""

    def _split_lines(self, text, width):
        import textwrap

        return textwrap.wrap(" ".join(text.split()), width, break_on_hyphens=False)


class _Parser(argparse.ArgumentParser):
    def __init__(self, *args, **kwargs):
        kwargs.setdefault("formatter_class", _HelpFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message):  # argparse would print usage and a second line; we want one line
        # argparse repeats a bad value as given; a newline or other control character in it is
        # written as its escape, so the message stays one line
        message = "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in message)
        raise UsageError(f"{self.prog}: {message} (see --help)")


def flag_name(name: str) -> str:
    """The command-line flag of a slider name.

    >>> flag_name("overheadMs")
    '--overhead-ms'
    """
    return "--" + "".join("-" + ch.lower() if ch.isupper() else ch for ch in name)


def range_text(minimum: float, maximum: float, integer: bool = False) -> str:
    """What a number flag accepts, in the words of its error message (a ``VALUE_FLAGS`` entry).

    >>> range_text(0, 2), range_text(1, 8, integer=True)
    ('a number from 0 to 2', 'an integer from 1 to 8')
    """
    return describe_range(Slider("", "", minimum, maximum, 1, minimum, "", integer))


def parse_number(flag: str, text, minimum: float, maximum: float, integer: bool = False):
    """Parse one flag value strictly (finite, in ``[minimum, maximum]``, integral where asked) or
    raise :class:`UsageError` naming the flag and its valid range.

    >>> parse_number("--batch", "8", 1, 4096, integer=True)
    8
    >>> parse_number("--batch", "0.5", 1, 4096, integer=True)
    Traceback (most recent call last):
    ...
    lab.cli.UsageError: --batch must be an integer from 1 to 4096, got '0.5'
    """
    require_ascii(flag, text)
    try:
        value = float(text)
    except (TypeError, ValueError):
        value = math.nan
    if not math.isfinite(value) or not minimum <= value <= maximum or (integer and not value.is_integer()):
        raise UsageError(f"{flag} must be {range_text(minimum, maximum, integer)}, got {quote(text)!r}")
    return int(value) if integer else value


def require_ascii(flag: str, text) -> None:
    """Refuse a number written with other than ASCII characters or with digits grouped by underscores
    (Python's ``float`` would read '\u0663' or '\uff15' as 3 and 5, and '1_000' as 1000; the trace reader
    refuses them, and so does every flag and slider).

    >>> require_ascii("--budget", "\u0663")
    Traceback (most recent call last):
    ...
    lab.cli.UsageError: --budget: '\u0663' is not a number written in ASCII digits (0-9)
    >>> require_ascii("--seed", "1_000")
    Traceback (most recent call last):
    ...
    lab.cli.UsageError: --seed: '1_000' is not a number written in ASCII digits (0-9)
    """
    if isinstance(text, str) and (not text.isascii() or "_" in text):
        raise UsageError(f"{flag}: {quote(text.strip())!r} is not a number written in ASCII digits (0-9)")


def slider_value(slider: Slider, text: str, maximum=None):
    """Parse one slider's flag value strictly: finite, in range (up to ``maximum`` when given),
    integral where the slider is; else :class:`UsageError` naming the flag and its range."""
    upper = slider.maximum if maximum is None else maximum
    bounds = Slider(slider.name, slider.label, slider.minimum, upper, slider.step, slider.default, slider.unit, slider.integer)
    require_ascii(flag_name(slider.name), text)
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or not bounds.minimum <= value <= bounds.maximum or (
            bounds.integer and not value.is_integer()):
        raise UsageError(f"{flag_name(slider.name)} must be {describe_range(bounds)}, got {quote(text)!r}")
    return int(value) if bounds.integer else value


def add_slider_flags(parser, sliders):
    """One ``--flag N`` per slider, its help the slider's label, range, unit and default."""
    for slider in sliders:
        unit = f" {slider.unit}" if slider.unit else ""
        help_text = f"{slider.label}: {describe_range(slider)}{unit} (default {slider.default:g})"
        parser.add_argument(flag_name(slider.name), dest=slider.name, default=None, metavar="N",
                            help=help_text.replace("%", "%%"))  # argparse formats help with %


def _build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="python -m lab", description="The speculative decoding proofroom's lab.")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    run = commands.add_parser("audit", help="run the 20 seed checks (or another suite); exit 0 only if all pass")
    run.add_argument("--suite", choices=("seed", "instruments", "all"), default="seed",
                     help="seed: the 20 checks of docs/CONTRACT.md section 3 (default); instruments: the second suite; all: both")
    run.add_argument("--json", action="store_true", help="print one JSON object")
    parser.widget_of = {}  # subcommand -> the widget whose commands module defines it
    for name in instruments.widget_names():
        before = set(commands.choices)
        instruments.part("commands", name).add_parser(commands)
        parser.widget_of.update(dict.fromkeys(set(commands.choices) - before, name))
    parser.subcommands = commands.choices  # subcommand -> its parser (the flags it takes)
    return parser


def _seed_audit() -> tuple[dict, list[str], bool]:
    result = audit.run_audit()
    document = {key: result[key] for key in ("checked", "passed", "failures", "settings", "maxExactTv", "maxAlphaGap")}
    document["signatures"] = audit.signatures(result)
    return document, _check_lines(result["checks"]) + [audit.counter_text(result)], not result["failures"]


def _instrument_audit() -> tuple[dict, list[str], bool]:
    from . import checks

    result = checks.run_suite()
    document = {"checked": result["checked"], "passed": result["passed"], "failures": result["failures"],
                "checks": {c["name"]: c["passed"] for c in result["checks"]}, "signature": checks.signature(result)}
    passed = not result["failures"] and result["checked"] > 0
    return document, _check_lines(result["checks"]) + [checks.counter_text(result)], passed


def _check_lines(results) -> list[str]:
    return [f"{'pass' if c['passed'] else 'FAIL'}  {c['name']}" + (f"  ({c['detail']})" if c["detail"] else "")
            for c in results]


def _audit_command(args) -> tuple[dict, str, int]:
    """``--suite seed`` prints exactly what the seed audit always printed; ``all`` prints the
    instruments suite first, so that the seed counter stays the last line."""
    if args.suite == "seed":
        document, lines, passed = _seed_audit()
    elif args.suite == "instruments":
        document, lines, passed = _instrument_audit()
    else:
        more, more_lines, more_passed = _instrument_audit()
        document, lines, passed = _seed_audit()
        document, lines, passed = {**document, "instruments": more}, more_lines + lines, passed and more_passed
    return document, "\n".join(lines), 0 if passed else 1


def _value_flags(parser, argv: list[str]) -> dict[str, str]:
    """The value-taking flags of the subcommand ``argv`` names (its commands module's
    ``VALUE_FLAGS``), each with what its error message says it accepts; ``{}`` for none.

    >>> _value_flags(_build_parser(), ["generate", "--seed"])["--seed"]
    'an integer from 0 to 2147483647'
    >>> _value_flags(_build_parser(), ["exact", "--seed"])["--seed"]
    'an integer from 0 to 9999'
    """
    command = next((token for token in argv if not token.startswith("-")), None)
    widget = parser.widget_of.get(command)
    return dict(getattr(instruments.part("commands", widget), "VALUE_FLAGS", {})) if widget else {}


def _attach_values(argv: list[str], flags: dict[str, str]) -> list[str]:
    """Join ``--flag VALUE`` into ``--flag=VALUE`` so that negative values such as ``-inf`` or
    ``-1e5`` (and text such as ``- item``) reach the flag's check instead of being mistaken for
    options; a flag of ``flags`` with no value left is an error that names the flag and what it
    accepts."""
    joined, index = [], 0
    while index < len(argv):
        token = argv[index]
        following = argv[index + 1] if index + 1 < len(argv) else ""
        name, equals, value = token.partition("=")
        if equals and name in flags and not value.strip():
            raise UsageError(f"{name} must be {flags[name]}, got an empty value")
        if token.startswith("--") and "=" not in token and token not in flags and _is_negative_number(following):
            joined.append(f"{token}={following}")  # any instrument's flag: '--x -1' reaches its range check
            index += 2
            continue
        if token in flags:
            following = argv[index + 1] if index + 1 < len(argv) else None
            if following is None or following.startswith("--"):
                raise UsageError(f"{token} needs a value: {flags[token]}")
            if not following.strip():  # `--budget ""` is refused, never read as the default
                raise UsageError(f"{token} must be {flags[token]}, got an empty value")
            joined.append(f"{token}={following}")
            index += 2
            continue
        joined.append(token)
        index += 1
    return joined


def _is_negative_number(text: str) -> bool:
    """A value such as ``-1e5``, ``-inf`` or a list ``-0.1,0.5`` (not an option)."""
    try:
        float(text)
    except ValueError:
        return text[:1] == "-" and text[1:2] in tuple("0123456789.")
    return text.startswith("-")


# Other spellings of a flag (an engine's own, or another subcommand's): a flag a subcommand does not take is
# refused naming the one of its group it does take ('--batch-size' -> serving's '--batch', '--gamma' -> ledger's
# '--lookahead', '--lookahead' -> exact's '--gamma')
FLAG_SPELLINGS = (
    ("--lookahead", "--gamma", "--k", "-k", "--num-speculative-tokens", "--speculative-num-draft-tokens",
     "--num-draft-tokens", "--draft-tokens", "--draft-max", "--max-draft"),
    ("--batch", "--batch-size", "--bs", "--max-num-seqs", "--concurrency"),
    ("--context", "--context-length", "--ctx", "--ctx-size", "--max-model-len", "--seq-len"),
    ("--gpus", "--tp", "--tp-size", "--tensor-parallel-size", "--num-gpus"),
    ("--acceptance", "--alpha"),
    ("--target", "--model", "--target-model"),
    ("--draft", "--draft-model", "--speculative-model"),
    ("--tokens", "--max-tokens", "--max-new-tokens"),
)


def unknown_flag(argv: list[str], known) -> str | None:
    """The first option in ``argv`` (before a bare ``--``) that is not one of ``known`` nor a prefix argparse
    takes for exactly one of them, with the flag meant when one is plain: one of its other spellings
    (:data:`FLAG_SPELLINGS`, underscores read as hyphens) or a near miss; None when every option is known.

    >>> unknown_flag(["--batch-size", "8"], {"--batch", "--context"})
    '--batch-size is not a flag of this command; did you mean --batch?'
    >>> unknown_flag(["--lookahead=5"], {"--gamma", "--seed"}), unknown_flag(["--look", "5"], {"--lookahead"})
    ('--lookahead is not a flag of this command; did you mean --gamma?', None)
    """
    import difflib

    for token in argv:
        if token == "--":
            return None
        name = token.partition("=")[0]
        if not name.startswith("-") or name == "-" or _is_negative_number(name) or name in known:
            continue
        if name.startswith("--") and sum(flag.startswith(name) for flag in known) == 1:
            continue  # an abbreviation argparse reads (--look for --lookahead)
        spelled = name.replace("_", "-").lower()
        meant = next((flag for group in FLAG_SPELLINGS if spelled in group for flag in group if flag in known), None)
        meant = meant or next(iter(difflib.get_close_matches(spelled, sorted(known), n=1, cutoff=0.75)), None)
        return f"{name} is not a flag of this command" + (f"; did you mean {meant}?" if meant else "")
    return None


def _flag_of_no_command(parser, argv: list[str]) -> str | None:
    """:func:`unknown_flag` for the subcommand ``argv`` names, against the flags its parser takes (None for no
    subcommand or an unknown one, which argparse refuses itself)."""
    index = next((i for i, token in enumerate(argv) if not token.startswith("-")), None)
    command = parser.subcommands.get(argv[index]) if index is not None else None
    if command is None:
        return None
    unknown = unknown_flag(argv[index + 1:], {flag for a in command._actions for flag in a.option_strings})
    return f"{command.prog}: {unknown} (see --help)" if unknown else None


def input_notes(argv: list[str], module) -> list[str]:
    """Notes on a command line that ran but may not say what its writer meant, one line each: a flag of the
    commands module's ``PERCENT_FLAGS`` given only numbers between 0 and 1 (``--acceptance 0.8`` is 0.8 %, not
    80 %), and a flag of its ``CURVE_REPLACES`` given with a curve, which replaces it.

    >>> class Ledger:
    ...     PERCENT_FLAGS, CURVE_REPLACES = ("--acceptance",), ("--acceptance",)
    >>> input_notes(["ledger", "--acceptance=0.8"], Ledger)
    ['--acceptance takes a percentage, so 0.8 is 0.8%; for the fraction 0.8 give --acceptance 80']
    >>> input_notes(["ledger", "--acceptance=80", "--lengths=1:1.8"], Ledger)
    ['--acceptance 80 is set aside: the curve from --lengths replaces it']
    """
    given = {}
    for index, token in enumerate(argv):
        name, equals, value = token.partition("=")
        if name.startswith("--"):  # given twice, the last counts, as argparse reads it
            given[name] = value if equals else (argv[index + 1] if index + 1 < len(argv) else "")
    notes = []
    for flag in getattr(module, "PERCENT_FLAGS", ()):
        numbers = [_as_fraction(part) for part in given.get(flag, "").split(",")]
        if flag in given and all(number is not None and 0 < number < 1 for number in numbers):
            text = quote(given[flag].replace(" ", ""))
            scaled = quote(",".join(f"{round(100 * number, 6):g}" for number in numbers))
            read = f"is {text}%" if len(numbers) == 1 else "are " + quote(", ".join(f"{n:g}%" for n in numbers))
            notes.append(f"{flag} takes {'a percentage' if len(numbers) == 1 else 'percentages'}, so {text} {read}; "
                         f"for the fraction{'s' if len(numbers) > 1 else ''} {text} give {flag} {scaled}")
    curve = next((flag for flag in ("--lengths", "--per-position", "--vllm-per-position", "--acceptance-curve")
                  if flag in given), None)
    for flag in getattr(module, "CURVE_REPLACES", ()) if curve else ():
        if flag in given:
            notes.append(f"{flag} {quote(given[flag])} is set aside: the curve from {curve} replaces it")
    return notes


def _as_fraction(text: str):
    """A number written in ASCII (as every flag reads one), else None."""
    text = text.strip()
    if not text.isascii() or "_" in text:
        return None
    try:
        return float(text)
    except ValueError:
        return None


def shorten(message: str, argv) -> str:
    """``message`` with every command-line value longer than :data:`QUOTE_LIMIT` characters that it
    repeats cut to that many (:func:`lab.urlstate.quote`), whoever wrote the message (argparse too).

    >>> shorten("bad value 'xxxxxxxxxx'", ["--flag=" + "x" * 10]) == "bad value 'xxxxxxxxxx'"
    True
    >>> len(shorten("got " + "y" * 5000, ["--flag", "y" * 5000]))
    53
    """
    for token in sorted({part for arg in argv for part in (arg, arg.partition("=")[2])}, key=len, reverse=True):
        if len(token) > QUOTE_LIMIT:
            for shown in (token, repr(token)[1:-1], token.strip()):
                message = message.replace(shown, quote(shown))
    return message


def _write_out(text: str) -> str | None:
    """Write ``text`` and a newline to standard output; a one-line reason when it cannot be
    written (closed, a full disk, a reader that went away), else None."""
    stream = sys.stdout
    if stream is None:
        return "standard output is closed; nothing was written"
    try:
        stream.write(text + "\n")
        stream.flush()
    except BrokenPipeError:
        return "standard output was closed before the output was written (broken pipe)"
    except (OSError, ValueError) as error:  # ENOSPC (> /dev/full), EBADF, a closed file object
        return f"could not write to standard output: {getattr(error, 'strerror', None) or error}"
    return None


def _say(line: str) -> None:
    """One line on standard error, if there is one to write to."""
    try:
        if sys.stderr is not None:
            print(line, file=sys.stderr)
    except (OSError, ValueError):
        pass


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        parser = _build_parser()
        joined = _attach_values(argv, _value_flags(parser, argv))
        unknown = _flag_of_no_command(parser, joined)
        if unknown:  # before argparse, whose "required: --batch" would hide that --batch-size is the slip
            raise UsageError(unknown)
        args = parser.parse_args(joined)
        if args.command == "audit":
            document, text, status = _audit_command(args)
        else:
            # a widget's subcommand is named after it, or carries set_defaults(instrument=NAME)
            document, text, status = instruments.part("commands", getattr(args, "instrument", args.command)).run(args)
    except UsageError as error:
        _say(shorten(str(error), argv))
        return 2
    except Exception as error:  # a bug, never a traceback: one line that names it (exit 1)
        said = " ".join(str(error).split())
        _say(shorten(f"python -m lab: internal error, please report it: {type(error).__name__}: {said}", argv)[:400])
        return 1
    failure = _write_out(json.dumps(document) if args.json else text)
    if failure is not None:
        try:  # nothing more reaches the closed or full stream, not even the interpreter's flush at exit
            sys.stdout = open(os.devnull, "w")
        except OSError:
            sys.stdout = None
        _say(f"python -m lab: {failure}")
        return 1
    widget = parser.widget_of.get(args.command)
    for note in input_notes(joined, instruments.part("commands", widget)) if widget else ():
        _say(shorten(f"python -m lab: note: {note}", argv))
    return status
