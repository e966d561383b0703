"""Detection and the streaming front door: :func:`detect_line`, :class:`TraceParser`, :func:`parse`.
"""

from .common import SPLIT_LONG_LINE, LookaheadMissing, Trace, TraceError, _check_lookahead, _clean, shortened
from .formats import ENGINE_MARKERS, ENGINE_OF, FORMATS, HINTS, JSON_FORMATS, PARSERS, REGISTRY, SHORT_NAMES
from .plain import _Single
from .method import MethodScan


# --- detection and the streaming front door -----------------------------------------------------

# Another engine's speculative-decoding lines, told apart by a marker each prints (a substring test); each
# family module names its engine and markers, so a new engine's module brings its own
OTHER_ENGINE_MARKERS = ENGINE_MARKERS


def _engine(fmt: str) -> str:
    """The engine whose output a format is (for :data:`OTHER_ENGINE_MARKERS`), or the format's name.

    >>> _engine("prometheus"), _engine("sglang-json"), _engine("cycles")
    ('vLLM', 'SGLang', 'cycles')
    """
    return ENGINE_OF.get(fmt) or fmt


# The first bytes of a compressed file, as read (a byte that is no UTF-8 text decodes to U+FFFD), and how to
# undo each: a reader who gives the engine's rotated, compressed log gets told that, not "unrecognised format"
COMPRESSED = (("\x1f\x8b", "gzip", "gunzip"), ("\x1f\ufffd\x08", "gzip", "gunzip"), ("PK\x03\x04", "zip", "unzip"),
              ("(\xb5/\xfd", "zstd", "zstd -d"), ("(\ufffd/\ufffd", "zstd", "zstd -d"), ("\xfd7zXZ", "xz", "xz -d"),
              ("\ufffd7zXZ", "xz", "xz -d"))


def not_text(line: str) -> str | None:
    r"""Why a first line that no format reads is not text at all, or None: a compressed file (by its magic
    bytes, :data:`COMPRESSED`) or binary data (a tenth or more of the line bytes that are no UTF-8 text, or
    control characters).

    >>> not_text("\x1f\ufffd\x08\x08\ufffd")
    'the input is gzip-compressed, not text: decompress it first (gunzip) and give the text it holds'
    >>> not_text("q\ufffd}\ufffd\x11S\ufffd\x0c\x15\ufffdH\ufffd"), not_text("Mean acceptance length: 2.5")
    ("the input is binary data, not text: give the engine's own text output (a log, /metrics or bench output)", None)
    """
    start = line.lstrip("\ufeff")
    for magic, name, undo in COMPRESSED:
        if start.startswith(magic):
            return f"the input is {name}-compressed, not text: decompress it first ({undo}) and give the text it holds"
    odd = sum(1 for ch in start if ch == "\ufffd" or (ch < " " and ch not in "\t\r\n"))
    if odd >= 4 and odd * 10 >= len(start):
        return "the input is binary data, not text: give the engine's own text output (a log, /metrics or bench output)"
    return None


def detect_line(line: str) -> str | None:
    """The format one line belongs to, or None. Bare integers are ``cycles`` (only as the
    first readable line, see :class:`TraceParser`).

    >>> detect_line("vllm:spec_decode_num_drafts_total{engine=\\"0\\"} 4816.0")
    'prometheus'
    >>> detect_line("INFO 05-12 10:11:12 [metrics.py:101] SpecDecoding metrics: Mean acceptance length: 2.87, ...")
    'vllm-log'
    >>> detect_line("Mean acceptance length: 2.8")
    'single-number'
    """
    line = _clean(line)
    stripped = line.strip()
    for row in REGISTRY:
        if row.detect(line, stripped):
            return row.name
    return None


class TraceParser:
    """Feed text in chunks of any size (:meth:`feed`), then :meth:`finish`. Only the current
    partial line and the running counts are kept, so memory does not grow with the file (the
    per-request JSON, parsed whole, is the exception, capped at :data:`MAX_JSON_CHARS`).

    With ``fmt="auto"`` the first line that belongs to a format decides it; the lines before it
    are skipped (log noise, other metrics), except that a file of bare integers must start with
    one (a cycles file has nothing else in it). A JSON document's opening lines (``[``, ``{``) are
    kept so a per-request JSON can still be read whole. A UTF-8 byte-order mark is dropped, and
    UTF-16 text read as UTF-8 (what PowerShell's ``>`` writes) is repaired. ``model`` chooses one
    model, implementation or run when the input holds several.

    >>> parser = TraceParser(lookahead=3)
    >>> parser.feed("2\\n0\\n3")
    >>> parser.feed("\\n1\\n")
    >>> trace = parser.finish()
    >>> trace.format, trace.drafts, trace.accepted, trace.perPosition
    ('cycles', 4, 6, (3, 2, 1))
    """

    def __init__(self, fmt: str = "auto", lookahead=None, model=None):
        if fmt != "auto" and fmt not in PARSERS:
            raise TraceError(f"unknown format {shortened(str(fmt), 30)!r}; valid: auto, {', '.join(FORMATS)}")
        self.lookahead = _check_lookahead(lookahead)
        self.model = model if model not in ("", None) else None
        self.fmt = fmt
        self.accumulator = PARSERS[fmt]() if fmt != "auto" else None
        self.partial = ""
        self.pieces = []    # pieces of the current line that arrived without its end (joined by _held)
        self.partial_size = 0
        self.number = 0
        self.first_unread = None
        self.bytes = 0
        self.started = False
        self.utf16 = False
        self.json_head = []
        self.single_lines = []
        self.prelude = []  # the last unrecognised lines: a parser's PRELUDE among them is read once it is chosen
        self.others = {}  # engine -> (lines, first line number): another engine's output in the same text
        self.hint = None  # (line number, what it is): an engine's line with no acceptance in it (formats.HINTS)
        self.methods = MethodScan()  # the drafter the engine's configuration lines name (lab.traces.method)

    def _repair(self, text: str) -> str:
        if not self.started and text:
            self.started = True
            if text.startswith(("\ufffd\ufffd", "\xff\xfe", "\xfe\xff")) or text[:2].count("\x00") == 1:
                self.utf16 = True
                text = text.lstrip("\ufffd\xff\xfe")
            text = text.lstrip("\ufeff")
        if self.utf16 or "\x00" in text:
            text = text.replace("\x00", "")
        return text

    def feed(self, text: str):
        self.bytes += len(text)
        text = self._repair(text)
        size = len(self.partial) + self.partial_size + len(text)
        if "\n" not in text and (size <= SPLIT_LONG_LINE or "}" not in text):
            # no line ends here and nothing to cut at: hold the piece (joined once, when its line ends or a '}'
            # arrives), so a long line that arrives in many chunks costs its length once, not length x chunks
            self.pieces.append(text)
            self.partial_size += len(text)
            return
        text = self._held() + text
        lines = text.split("\n")
        self.partial = lines.pop()
        self.methods.lines(lines)
        if len(self.partial) > SPLIT_LONG_LINE:  # one huge line (a JSON array): cut after a '}'
            cut = self.partial.rfind("}") + 1
            if cut > 0:
                lines.append(self.partial[:cut])
                self.partial = self.partial[cut:]
                self.number -= 1  # the pieces of one line keep its number
        index = 0
        while self.accumulator is None and index < len(lines):  # detection: one line at a time
            self.number += 1
            self._line(lines[index])
            index += 1
        if index < len(lines):
            batch = lines[index:] if index else lines
            self.accumulator.lines(batch, self.number + 1)
            self._other_engines(batch, self.number + 1)
            self.number += len(lines) - index

    def _held(self) -> str:
        """The current partial line with the pieces held since, joined once."""
        held = self.partial + "".join(self.pieces)
        self.partial, self.pieces, self.partial_size = "", [], 0
        return held

    def _other_engines(self, batch, first_number: int):
        """Count the lines of another engine's speculative-decoding output (several engines' logs
        interleaved in one file): they are not read, and the notes say so."""
        own = _engine(self.fmt)
        joined = "\n".join(batch)  # one search per marker over the batch: most batches hold none
        present = [(engine, marker) for engine, markers in OTHER_ENGINE_MARKERS if engine != own
                   for marker in markers if marker in joined]
        if not present:
            return
        for offset, line in enumerate(batch):
            for engine, marker in present:
                if marker in line:
                    count, first = self.others.get(engine, (0, first_number + offset))
                    self.others[engine] = (count + 1, first)
                    break

    def _line(self, line: str):
        if self.accumulator is None:
            line = _clean(line)
            fmt = detect_line(line)
            if fmt == "cycles" and self.first_unread is not None:
                fmt = None
            if fmt is None:
                self.prelude = self.prelude[-7:] + [(self.number, line)]
                if self.hint is None:
                    self.hint = next(((self.number, what) for marker, what in HINTS if marker in line), None)
                stripped = line.strip()
                if self.first_unread is None and (self.json_head or stripped[:1] in ("[", "{")) \
                        and len(self.json_head) < 20000:
                    self.json_head.append((self.number, line))  # a JSON document's opening lines, kept whole
                    return
                if self.first_unread is None and stripped and not stripped.startswith(("#", "```", "~~~")):
                    self.first_unread = (self.number, line)
                return
            if fmt == "single-number" and self.fmt == "auto":
                # one figure may also open a longer output (the V0-era spec_decode summary starts with its
                # mean acceptance length): decide at the next recognised line, or at the end
                if len(self.single_lines) < 64:
                    self.single_lines.append((self.number, line))
                return
            self.fmt = fmt
            self.accumulator = PARSERS[fmt]()
            if fmt in ("vllm-log", "vllm-v0-log"):
                for number, held in self.single_lines:
                    self.accumulator.line(held, number)
            self.single_lines = []
            prelude = getattr(self.accumulator, "PRELUDE", None)
            for number, held in self.prelude if prelude is not None else ():  # lines that open no format alone
                if prelude.match(held) and self.number - number <= 4:
                    self.accumulator.line(held, number)
            self.prelude = []
            if fmt in JSON_FORMATS:
                for number, head in self.json_head:
                    self.accumulator.line(head, number)
            self.json_head = []
        self.accumulator.line(_clean(line), self.number)

    def finish(self) -> Trace:
        cut = self._read_last_line()
        self._decide_at_end()
        return self._closing_notes(self._result(cut), cut)

    def _read_last_line(self):
        """Read a last line that ends without a newline (it may be cut off): (its number, the error it raised)
        when the format is known and the line cannot be read, else None."""
        cut = None
        self.partial = self._held()
        if self.partial:  # the input does not end with a newline: its last line may be cut off
            self.number += 1
            line, self.partial = self.partial, ""
            self.methods.lines([line])
            if self.accumulator is not None:
                self.accumulator.unterminated = self.number
            try:
                self._line(line)
            except TraceError as error:
                if self.accumulator is None:
                    raise
                cut = (self.number, error)  # read the complete lines; say the last one was cut
            if self.accumulator is not None:  # also when this line was the one that decided the format
                self.accumulator.unterminated = self.number
        return cut

    def _decide_at_end(self):
        """At the end, with no format decided by a line: a single figure standing alone is one (else refused), an
        engine's line with no acceptance in it is named, and anything else is refused with its first line."""
        if self.accumulator is None and self.single_lines:
            self.fmt, self.accumulator = "single-number", _Single()
            for number, held in self.single_lines:
                self.accumulator.line(held, number)
            if self.first_unread is not None:
                number, line = self.first_unread
                figure = shortened(self.single_lines[0][1], 30)
                raise TraceError(f"line {number}: a single figure must stand alone; {shortened(line, 30)!r} is not "
                                 f"one and no engine output the reader knows: paste {figure!r} alone with --lookahead, "
                                 f"or the engine's own log or /metrics")
        if self.accumulator is None and self.hint is not None:
            number, what = self.hint
            raise TraceError(f"line {number}: {what}")
        if self.accumulator is None:
            if self.first_unread is None and self.json_head:
                self.first_unread = self.json_head[0]
            if self.first_unread is None:
                raise TraceError("the trace is empty")
            number, line = self.first_unread
            if number == 1 and not_text(line):
                raise TraceError(not_text(line))
            raise TraceError(f"unrecognised format (no line of vLLM, SGLang, llama.cpp or TensorRT-LLM output, and "
                             f"not a cycles file); first line not read: line {number}: {shortened(line)!r}")

    def _result(self, cut) -> Trace:
        """The format's trace, at the lookahead the engine printed in its configuration when none was given and the
        format needs one; nothing readable without a cut last line refuses with that line's own reason, and an
        input that exhausts the reader is refused in one sentence."""
        try:
            try:
                return self.accumulator.result(self.lookahead, self.model)
            except LookaheadMissing:
                configured = self.methods.lookahead  # the k the engine printed in its configuration, if one
                if self.lookahead is not None or configured is None:
                    raise
                trace = self.accumulator.result(_check_lookahead(configured), self.model)
                return trace._replace(notes=trace.notes + (self.methods.lookahead_note(),))
        except TraceError:
            if cut is not None:  # nothing readable without the cut line: its own reason is the clearer one
                raise cut[1] from None
            raise
        except (RecursionError, MemoryError, OverflowError, ZeroDivisionError) as error:
            raise TraceError(f"cannot read this input ({type(error).__name__}); check it is one engine's output") from None

    def _closing_notes(self, trace: Trace, cut) -> Trace:
        """The trace with the reader's own notes: other engines' lines not read, the drafter the configuration
        names, and a cut last line."""
        if self.others:
            trace = trace._replace(notes=trace.notes + tuple(
                f"{count} line(s) of {engine} output (the first is line {first}) are not read: the text is read as "
                f"{SHORT_NAMES.get(self.fmt, self.fmt)}, one engine's output at a time"
                for engine, (count, first) in self.others.items()))
        if self.methods.seen:
            trace = trace._replace(method=self.methods.family, notes=trace.notes + (self.methods.note(),))
        if cut is not None:
            number, error = cut
            trace = trace._replace(notes=trace.notes + (
                f"the last line (line {number}) ends without a newline and cannot be read ({error}): it looks cut "
                f"off, so only the complete lines before it are read",))
        return trace


def parse(text: str, fmt: str = "auto", lookahead=None, model=None) -> Trace:
    """Parse a whole text (see :class:`TraceParser`).

    >>> parse("Accepted: 1", fmt="cycles", lookahead=2)
    Traceback (most recent call last):
    ...
    lab.traces.TraceError: line 1: 'Accepted: 1' is not an integer count of accepted drafts
    """
    parser = TraceParser(fmt, lookahead, model)
    parser.feed(text)
    return parser.finish()


# --- statistics --------------------------------------------------------------------------------
