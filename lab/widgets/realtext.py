"""The real-text widget (Part three): speculative decoding on real text with real models, exact.

The reader picks a prompt (a preset or their own text), the proposer, the lookahead k, the
temperature T, how many tokens and a seed (the first two shown right above the text, the rest
folded under More settings); every change generates again (one request, at most
:data:`MAX_WIDGET_TOKENS` tokens, so it stays short). The run can be stepped through: ``rtStep``
is how many verifier calls are shown, and the page's generic Play / Step / Stop buttons move
it (``data-action="step"``, ``"play"``, ``"stop"``). No answer depends on an earlier request:
each one asks for the seeded run up to that call (:func:`lab.realtext.generate`'s answer with
``max_calls``, the same calls as the whole run's first ones), read from the run of those settings
kept in this module (:func:`_run`, a memo: a Step makes only the new call), and the view sends
back the run's length as the step's ``limits`` once it is known. The newest call is shown in
detail: its drafts with p(x) and q(x), the prefix kept, the target's token, and the chance, before
its first draft was drawn, that it would survive (the analytic sum_x min(p, q)). The text shows
every verifier call: accepted drafts underlined, the rejected draft struck through, the
verifier's correction boxed and the bonus token in a dashed box (shape, not colour alone, tells them apart; each also has its ``k-`` colour).
The numbers go through the trace reader's analysis (:func:`lab.realtext.summarise`), and the run's
trace can be sent to the trace reader, the ledger and the lookahead policies (the page's generic
``data-action="send"``).

The model file is not part of the page's first load: the page's worker fetches it when the widget
comes near (the form's ``data-assets``) and writes it where :func:`lab.realtext.default_model` looks.
"""

import json
import math
from functools import lru_cache

from ..figures import escape, split_width
from ..jsformat import to_fixed, to_js_string
from ..urlstate import Choice, Slider, Text, format_query, read_controls
from .. import realtext
from . import ledger_lookahead

__all__ = ["SLIDERS", "CONTROLS", "DATA_FILES", "view", "page_context", "text_html", "send_html", "call_html",
           "preset_comparison", "comparison_html", "OPERATIONS", "MAX_WIDGET_TOKENS"]

MAX_WIDGET_TOKENS = 64
SLIDERS = (
    Slider("rtLookahead", "Lookahead k", 1, realtext.LIMITS["lookahead"][1], 1, 4, "tokens", integer=True),
    Slider("rtTemperature", "Temperature T (0 = greedy)", 0, 2, 0.1, 1, ""),
    Slider("rtTokens", "Tokens to write", 8, MAX_WIDGET_TOKENS, 8, 48, "tokens", integer=True),
    Slider("rtSeed", "Seed", 0, 9999, 1, 1, "", integer=True, control="number"),
)
PRESET_KEY, PROPOSER_KEY, PROMPT_KEY = "rtPreset", "rtProposer", "rtPrompt"
DEFAULT_PROPOSER = "draft"
ASSET = "realtext-model.zip"   # the model file's logical asset name (the build hashes it)
# The files this widget reads that are not part of the page's first load: (asset name, where the
# worker writes it, the build function that makes it). The build (sitebuild.pipeline) finds them here.
DATA_FILES = ((ASSET, realtext.MODEL_DATA_PATH, "sitebuild.realtext_train:prepare"),)
PRESET = Choice(PRESET_KEY, PRESET_KEY, "Prompt", {name: title for name, (title, _) in realtext.PRESETS.items()},
                realtext.DEFAULT_PRESET)
PROPOSER = Choice(PROPOSER_KEY, PROPOSER_KEY, "Proposer", dict(realtext.PROPOSER_NAMES), DEFAULT_PROPOSER)
PROMPT = Text(PROMPT_KEY, "Your prompt", max_length=realtext.MAX_PROMPT_CHARS)  # typed text never rides in a link
# How many verifier calls are shown: a hidden input the Play / Step buttons move. Its default
# shows the whole run (a run of at most MAX_WIDGET_TOKENS tokens makes at most that many calls).
STEP_KEY = "rtStep"
STEP = Slider(STEP_KEY, "Verifier calls shown", 1, MAX_WIDGET_TOKENS, 1, MAX_WIDGET_TOKENS, "calls", integer=True)
CONTROLS = (*SLIDERS, STEP, PRESET, PROPOSER, PROMPT)
# What the table of presets measures, when the page is built: (proposer, temperature, seeds, label).
COMPARISON = (("draft", 1.0, (1, 2, 3, 4), "draft model, sampled, T = 1"),
              ("draft", 0.0, (1,), "draft model, greedy, T = 0"),
              ("ngram", 0.0, (1,), "prompt lookup, T = 0"))
COMPARISON_LOOKAHEAD, COMPARISON_TOKENS = 4, MAX_WIDGET_TOKENS


def _f(value, digits=2) -> str:
    return "n/a" if value is None else to_fixed(value, digits)


def _settings(raw) -> tuple[dict, list[str], int]:
    """The settings from a URL query or form values (:func:`lab.urlstate.read_controls`), the
    notes for anything that had to change, and the figure panel's width."""
    raw, width = split_width(raw)
    values, notes = read_controls(raw, CONTROLS)
    settings = {**{slider.name: values[slider.name] for slider in SLIDERS}, "preset": values[PRESET_KEY],
                "proposer": values[PROPOSER_KEY], "prompt": values[PROMPT_KEY], "step": values[STEP_KEY]}
    if 0 < settings["rtTemperature"] < realtext.MIN_TEMPERATURE:  # tempered rows would underflow
        label = next(slider.label for slider in SLIDERS if slider.name == "rtTemperature")
        smallest = to_js_string(realtext.MIN_TEMPERATURE)
        notes.append(f"{label}: {to_js_string(settings['rtTemperature'])} is between 0 (greedy) and the smallest "
                     f"temperature that samples, {smallest}; using {smallest}")
        settings["rtTemperature"] = realtext.MIN_TEMPERATURE
    return settings, notes, width


def _query(settings: dict) -> str:
    return (format_query(settings, SLIDERS) + f"&{PRESET_KEY}={settings['preset']}"
            + f"&{PROPOSER_KEY}={settings['proposer']}&{STEP_KEY}={settings['step']}")


# --- figures -----------------------------------------------------------------------------------

def _token(model, token: int, css: str) -> str:
    return f'<span class="rt-tok {css}">{escape(model.tokenizer.piece(token))}</span>'


WHITESPACE_MARKS = str.maketrans({"\n": "\u21b5", " ": "\u00b7", "\t": "\u2192"})


def _visible(text: str) -> str:
    """A rejected draft is not in the text, so its white space is shown as marks (a line break
    would otherwise break the line of text it never entered).

    >>> _visible("\\n    x")
    '↵····x'
    """
    return text.translate(WHITESPACE_MARKS)


def text_html(model, prompt_tokens, cycles: list[dict]) -> str:
    """The prompt, then every verifier call: accepted drafts (``rt-accepted``: underlined), the
    rejected draft (``rt-rejected``: struck through, a ``<del>``), the correction (``rt-correction``:
    boxed) or the bonus token (``rt-bonus``: dashed box). Each call is one span whose title says
    what happened in it (a thin mark separates the calls)."""
    parts = [f'<span class="rt-prompt">{escape(model.tokenizer.decode(prompt_tokens))}</span>']
    for number, cycle in enumerate(cycles, 1):
        drafts, accepted = cycle["drafts"], cycle["accepted"]
        pieces = [_token(model, t, "rt-accepted") for t in drafts[:accepted]]
        if cycle["rejected"]:
            pieces.append(f'<del class="rt-tok rt-rejected">{escape(_visible(model.tokenizer.piece(drafts[accepted])))}</del>')
            pieces.append(_token(model, cycle["committed"][-1], "rt-correction"))
            title = f"call {number}: {accepted} of {len(drafts)} drafts kept, then a correction"
        else:
            pieces.append(_token(model, cycle["committed"][-1], "rt-bonus"))
            title = (f"call {number}: all {len(drafts)} drafts kept, then a bonus token" if drafts
                     else f"call {number}: nothing drafted, one token from the target")
        newest = " rt-newest" if number == len(cycles) else ""  # the call the detail table shows
        parts.append(f'<span class="rt-call{newest}" title="{title}">{"".join(pieces)}</span>')
    return f'<pre class="rt-text" aria-hidden="true">{"".join(parts)}</pre>'


def plain_text_html(model, prompt_tokens, cycles: list[dict]) -> str:
    """The same text for screen readers (the page hides :func:`text_html` from them): the prompt and
    every committed token as plain text, after one line of what the calls kept, not the marked-up
    pieces read as fragments with "deletion" for every rejected draft."""
    committed = [token for cycle in cycles for token in cycle["committed"]]
    kept = sum(cycle["accepted"] for cycle in cycles)
    drafted = sum(len(cycle["drafts"]) for cycle in cycles)
    calls = f'{len(cycles)} verifier call{"" if len(cycles) == 1 else "s"}'
    return (f'<p>The text after {calls}, {kept} of {drafted} drafts kept:</p>'
            f'<pre class="rt-plain">{escape(model.tokenizer.decode(list(prompt_tokens) + committed))}</pre>')  # pre: kept as built


def _chance(value) -> str:
    """A probability as a percentage: one decimal, or two significant digits below 1% (a
    rejected draft's p(x) is often far below 0.1%, and 0.0% would read as impossible).

    >>> _chance(0.4567), _chance(0.00013), _chance(0.0)
    ('45.7%', '0.013%', '0%')
    """
    return f"{to_fixed(100 * value, 1)}%" if value >= 0.01 else f"{100 * value:.2g}%"


def call_html(model, cycles: list[dict], proposer: str, complete: bool) -> str:
    """The newest verifier call in detail: every draft with q(x), the draft's probability, p(x),
    the target's, and the chance min(1, p(x) / q(x)) that the rule keeps it; which were kept, the
    one rejected and the ones after it, never examined; then the token the target adds: sampled
    from the residual norm(max(0, p - q)) after a rejection, from p after a fully kept block; and
    the chance, before the first draft was drawn, that it would survive (:func:`lab.realtext.first_alpha`)."""
    if not cycles:
        return '<p class="rt-empty">No verifier call yet.</p>'
    cycle, number = cycles[-1], len(cycles)
    drafts, accepted, checked = cycle["drafts"], cycle["accepted"], cycle["checked"]
    rows = []
    for index, token in enumerate(drafts):
        piece = f"<code>{escape(_visible(model.tokenizer.piece(token)))}</code>"
        if index < len(checked):
            p_x, q_x = checked[index]
            keep = realtext.acceptance_probability(p_x, q_x)
            verdict = "kept" if index < accepted else "rejected"
            cells = f"<td>{_chance(q_x)}</td><td>{_chance(p_x)}</td><td>{_chance(keep)}</td><td>{verdict}</td>"
        else:
            cells = '<td colspan="3">not examined</td><td>discarded (after the rejection)</td>'
        rows.append(f'<tr class="rt-row-{"kept" if index < accepted else "dropped"}"><th scope="row">{index + 1}</th>'
                    f"<td>{piece}</td>{cells}</tr>")
    last = f"<code>{escape(_visible(model.tokenizer.piece(cycle['committed'][-1])))}</code>"
    source = ("sampled from the residual norm(max(0, p &minus; q)) at the rejected position" if cycle["rejected"]
              else "sampled from p after the last kept draft (the bonus token)" if drafts
              else "sampled from p (nothing was drafted)")
    state = "the run is complete" if complete else "Step shows the next call"
    head = ('<tr><th scope="col">draft i</th><th scope="col">token</th><th scope="col">q(x), draft</th>'
            '<th scope="col">p(x), target</th><th scope="col">kept with chance min(1, p/q)</th>'
            '<th scope="col">verdict</th></tr>')
    caption = (f"Verifier call {number}: {len(drafts)} drafted, {accepted} kept, then the target's token "
               f"({state})")
    chance = realtext.first_alpha(cycle)
    before = ("" if chance is None else
              f'<tr><th scope="row">before</th><td colspan="5">draft 1\'s chance to survive, before it was drawn: '
              f'sum<sub>x</sub> min(p(x), q(x)) = {_chance(chance)}</td></tr>')
    return (f'<table class="rt-call-detail"><caption>{escape(caption)}</caption><thead>{head}</thead>'
            f'<tbody>{"".join(rows)}</tbody><tfoot><tr><th scope="row">+1</th><td>{last}</td>'
            f'<td colspan="4">the target\'s token, {source}</td></tr>{before}</tfoot></table>')


@lru_cache(maxsize=1)  # the build asks once per model; the tests ask again
def preset_comparison(model) -> list[dict]:
    """For each preset, measured on this widget's model by the functions the live widget runs:
    ``text``, the per-token acceptance on the prompt's own text (:func:`lab.realtext.text_alpha`:
    its mean, standard error over positions and count), and ``cells``, its run under each setting
    of :data:`COMPARISON` (lookahead :data:`COMPARISON_LOOKAHEAD`, :data:`COMPARISON_TOKENS`
    tokens per seed, the seeds' calls pooled): alpha (MLE), acceptance rate, tokens per call."""
    rows = []
    for name, (title, prompt) in realtext.PRESETS.items():
        tokens = model.tokenizer.encode(prompt)
        alphas = realtext.text_alpha(model, tokens)
        mean, spread = _mean_and_error(alphas)
        cells = []
        for proposer, temperature, seeds, _ in COMPARISON:
            cycles = [cycle for seed in seeds for cycle in realtext.generate(
                model, tokens, proposer, COMPARISON_LOOKAHEAD, temperature, COMPARISON_TOKENS, seed)]
            summary = realtext.summarise(cycles, COMPARISON_LOOKAHEAD)
            cells.append({**{key: summary[key] for key in ("alphaMle", "acceptanceRate", "tokensPerCall", "verifierCalls")},
                          "examined": sum(len(cycle["checked"]) for cycle in cycles)})
        rows.append({"name": name, "title": title, "text": {"alpha": mean, "error": spread, "positions": len(alphas)},
                     "cells": cells})
    return rows


def _mean_and_error(values) -> tuple[float, float | None]:
    """The mean of ``values`` and its standard error, ``sqrt(sum (v - mean)^2 / (n - 1) / n)``
    (None for fewer than two values).

    >>> _mean_and_error([1.0, 2.0, 3.0])
    (2.0, 0.5773502691896257)
    """
    mean = math.fsum(values) / len(values)
    if len(values) < 2:
        return mean, None
    return mean, math.sqrt(math.fsum((v - mean) ** 2 for v in values) / (len(values) - 1) / len(values))


HELD_OUT_BLOCK = 64  # positions per block: the error of a held-out alpha is that of its block means


HELD_OUT_TITLES = {"code": "code the models never saw", "english": "English the models never saw"}


def _names(sources, readme: bool = False) -> str:
    """``a, b and c``: file names, or for README files the npm packages they come from.

    >>> _names(("lab/stats.py", "lab/ledger.py")), _names(("node_modules/ws/README.md",), readme=True)
    ('lab/stats.py and lab/ledger.py', 'ws')
    """
    names = [source.split("/")[-2] if readme else source for source in sources]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def held_out_comparison(model, texts: dict) -> dict:
    """``{kind: {"alpha", "error", "positions", "sources", "charsEach"}}`` for text the models never
    saw (``texts`` as :func:`lab.realtext.held_out_texts` gives them): alpha as in :func:`preset_comparison`'s text column,
    its error the standard error of the means of blocks of :data:`HELD_OUT_BLOCK` positions
    (neighbouring positions are correlated, so the positions' own standard error would be too small).

    >>> model = realtext._example_model()
    >>> text = {"text": "x = 1\\n" * 40, "sources": ("a.py",), "charsEach": 240}
    >>> row = held_out_comparison(model, {"code": text})["code"]
    >>> row["positions"], 0 < row["alpha"] <= 1, row["sources"]
    (199, True, ('a.py',))
    """
    out = {}
    for kind, held in texts.items():
        alphas = realtext.text_alpha(model, model.tokenizer.encode(held["text"]))
        blocks = [math.fsum(alphas[start:start + HELD_OUT_BLOCK]) / HELD_OUT_BLOCK
                  for start in range(0, len(alphas) - HELD_OUT_BLOCK + 1, HELD_OUT_BLOCK)]
        error = _mean_and_error(blocks)[1] if blocks else None  # None: too short a text to say
        out[kind] = {"alpha": math.fsum(alphas) / len(alphas), "error": error, "positions": len(alphas),
                     "sources": tuple(held["sources"]), "charsEach": held["charsEach"]}
    return out


@lru_cache(maxsize=1)  # the build asks once per model; the tests ask again
def _held_out_rows(model) -> dict | None:
    """:func:`held_out_comparison` of :func:`lab.realtext.held_out_texts`, or None where those texts
    cannot be read (then the table compares the prompts alone)."""
    try:
        return held_out_comparison(model, realtext.held_out_texts())
    except realtext.ModelUnavailable:
        return None


def _alpha_gap(first: dict, second: dict) -> tuple[float, float]:
    """The difference of two measured alphas and its standard error. alpha's MLE is kept drafts
    over examined drafts (each examined draft a Bernoulli trial), so its variance is
    alpha (1 - alpha) / examined, and the two runs are independent.

    >>> [round(x, 4) for x in _alpha_gap({"alphaMle": 0.5, "examined": 100}, {"alphaMle": 0.4, "examined": 100})]
    [0.1, 0.07]
    """
    variance = sum(cell["alphaMle"] * (1 - cell["alphaMle"]) / cell["examined"] for cell in (first, second))
    return first["alphaMle"] - second["alphaMle"], math.sqrt(variance)


def _compared(gap: float, error: float, subject: str, other: str) -> str:
    """``subject`` accepts more than, less than or about as often as ``other``: a difference
    counts only beyond two standard errors.

    >>> _compared(0.1, 0.03, "code", "prose"), _compared(0.05, 0.03, "code", "prose")
    ('code accepts more than prose', 'code accepts about as much as prose (within two standard errors)')
    """
    if gap > 2 * error:
        return f"{subject} accepts more than {other}"
    if gap < -2 * error:
        return f"{subject} accepts less than {other}"
    return f"{subject} accepts about as much as {other} (within two standard errors)"


def comparison_html(rows: list[dict], held_out: dict | None = None) -> str:
    """The table of :func:`preset_comparison` and what it says, read off its numbers: on the
    prompts' own text, does the Python function (code) accept more than the docstring (prose); in
    the runs, where does prompt lookup write the most tokens per call. With ``held_out``
    (:func:`held_out_comparison` of code and English), the same question first on text the models
    never saw."""
    head = '<th scope="col">on the prompt\'s own text, T = 1</th>' + "".join(
        f'<th scope="col">run: {escape(label)}</th>' for *_, label in COMPARISON)
    body = "".join(
        f'<tr><th scope="row">{escape(row["title"])}</th><td>&alpha; {_f(row["text"]["alpha"], 2)} '
        f'&plusmn; {_f(row["text"]["error"], 2)} ({row["text"]["positions"]} positions)</td>' + "".join(
            f'<td>&alpha; {_f(cell["alphaMle"], 2)}; {_f(cell["tokensPerCall"], 2)} tokens per call</td>'
            for cell in row["cells"]) + "</tr>" for row in rows)
    held = ""
    if held_out:
        body += "".join(
            f'<tr class="rt-held-out"><th scope="row">{escape(HELD_OUT_TITLES[kind])}</th><td>&alpha; '
            f'{_f(row["alpha"], 2)} &plusmn; {_f(row["error"], 3)} ({row["positions"]:,} positions)</td>'
            f'<td colspan="{len(COMPARISON)}">not a prompt: no run</td></tr>' for kind, row in held_out.items())
        code_text, english = held_out["code"], held_out["english"]
        gap_error = (math.hypot(code_text["error"], english["error"])
                     if code_text["error"] is not None and english["error"] is not None else math.inf)
        held = (f"On text the models never saw, {_compared(code_text['alpha'] - english['alpha'], gap_error, 'code', 'English')}: "
                f"&alpha; {_f(code_text['alpha'], 2)} on code (the first {code_text['charsEach']:,} characters each of "
                f"{_names(code_text['sources'])}, comments and docstrings removed) against {_f(english['alpha'], 2)} "
                f"on English (the first {english['charsEach']:,} characters each of the README files of "
                f"{_names(english['sources'], readme=True)}, code and markup removed), "
                f"&plusmn; one standard error of {HELD_OUT_BLOCK}-position block means. So these models do not show "
                f"what LLM drafts show, code accepting more than prose (SPEED-Bench measured coding above creative "
                f"writing; see the sources): a target that knows a text better than its "
                f"draft (code like the standard library's) disagrees with it more, and on text neither knows (English "
                f"from elsewhere) both fall back to the same lower orders and agree; an LLM draft agrees with its "
                f"target on code because both are confident there. ")
    by_name = {row["name"]: row for row in rows}
    code, prose = by_name["python"]["text"], by_name["docstring"]["text"]
    on_text = _compared(code["alpha"] - prose["alpha"], math.hypot(code["error"], prose["error"]),
                        "code", "prose")
    code_run, prose_run = by_name["python"]["cells"][0], by_name["docstring"]["cells"][0]
    run_gap, run_error = _alpha_gap(code_run, prose_run)
    in_runs = _compared(run_gap, run_error, "the function's run", "the docstring's")
    why = ("the models were trained on code, so what they write after either prompt is mostly code"
           if abs(run_gap) <= 2 * run_error else
           "that error counts every examined draft as an independent trial, which drafts in one run are not, "
           "so the gap is less sure than it looks")
    lookup = max(rows, key=lambda row: row["cells"][2]["tokensPerCall"])
    sentence = (
        f"Measured when this page was built, on this widget's own models. {held}On the prompts' own text {on_text}: "
        f"&alpha; {_f(code['alpha'], 2)} on the Python function against {_f(prose['alpha'], 2)} on the "
        f"docstring (sum<sub>x</sub> min(p, q) at each position, &plusmn; one standard error). In the runs "
        f"(lookahead {COMPARISON_LOOKAHEAD}, {COMPARISON_TOKENS} tokens per seed) {in_runs} with the sampled "
        f"draft (&alpha; {_f(code_run['alphaMle'], 2)} against {_f(prose_run['alphaMle'], 2)}, two binomial "
        f"standard errors {_f(2 * run_error, 2)}): {why}. Prompt lookup at T = 0 "
        f"writes the most tokens per call on {escape(lookup['title'])} "
        f"({_f(lookup['cells'][2]['tokensPerCall'], 2)}).")
    # the table scrolls sideways in its wrapper; the sentence under it is outside, so that the
    # wrapper's edge fade never hides its words
    return (f'<div class="table-wrap" tabindex="0" role="group" aria-label="Acceptance by prompt, measured when the '
            f'page was built"><table class="rt-presets"><caption>Acceptance by prompt</caption><thead><tr>'
            f'<th scope="col">prompt</th>{head}</tr></thead><tbody>{body}</tbody></table></div>'
            f'<p class="rt-presets-note">{sentence}</p>')


def positions_html(summary: dict, k: int) -> str:
    """Per-position survival as a small table: measured (calls whose first i drafts survived, over
    calls that drafted) and what one alpha (the MLE) predicts, alpha^i."""
    if summary["perPosition"] is None:
        return '<p class="rt-empty">No call drafted anything, so there is no per-position curve.</p>'
    alpha = summary["alphaMle"]
    from ..acceptance import conditional_from_unconditional  # the run's own curve: r_i = a_i / a_(i-1)

    conditional = conditional_from_unconditional(summary["perPosition"])
    rows = "".join(f"<tr><th scope=\"row\">{i + 1}</th><td>{_f(rate * 100, 1)}%</td><td>{_f(conditional[i] * 100, 1)}%</td>"
                   f"<td>{_f(alpha ** (i + 1) * 100, 1)}%</td></tr>"
                   for i, rate in enumerate(summary["perPosition"]))
    return ('<table class="rt-positions"><caption>Survival by draft position</caption><thead><tr><th scope="col">'
            'position i</th><th scope="col">first i drafts kept (measured)</th><th scope="col">draft i kept when '
            'the ones before were (measured curve)</th><th scope="col">'
            '&alpha;<sub>MLE</sub><sup>i</sup> (independent model)</th></tr></thead>'
            f"<tbody>{rows}</tbody></table>")


def send_html(summary: dict, k: int, proposer: str | None = None) -> str:
    """Buttons that hand the run to the trace reader (its cycles), the ledger (its measured curve,
    or one alpha) and the lookahead policies (the curve). The curve's token names the ``proposer``'s drafter
    family (:data:`lab.realtext.PROPOSER_FAMILIES`), so a receiver continues it past k as that family's curve (a
    copying drafter's rises, a model drafter's falls). The trace reader gets the cycles after one comment line
    naming the drafter as vLLM's configuration prints it (:func:`handoff_text`), which its drafter reader
    (:mod:`lab.traces.method`) reads back as the same family."""
    if not summary["cycles"]:
        return ""
    from .. import traces
    from ..acceptance_text import rates_token

    analysis = traces.analyse(traces.cycles_to_trace(_histogram(summary["cycles"]), k))
    curve = rates_token(traces.measured_curve(analysis), realtext.PROPOSER_FAMILIES.get(proposer))
    acceptance = to_fixed(100 * analysis["alphaIid"], 0)
    lookahead = ledger_lookahead(k)
    buttons = (
        ("traces", {"trcText": handoff_text(summary["cycles"], proposer), "trcFormat": "cycles",
                    "trcLookahead": str(k)}, "Read this run in the trace reader"),
        ("ledger", {"trcCurve": curve, "lookahead": lookahead}, "Send the measured curve to the ledger"),
        ("ledger", {"trcCurve": "", "acceptance": acceptance, "lookahead": lookahead},
         f"Send alpha = {acceptance}% to the ledger"),
        ("policies", {"polCurve": curve}, "Use this curve in the lookahead policies"),
        ("serving", {"srvCurve": curve, "lookahead": lookahead}, "Use this curve in the serving model"),
    )
    return "".join(f'<button type="button" data-action="send" data-target="{target}" disabled '
                   f'data-values="{escape(json.dumps(values))}">{escape(text)}</button>'
                   for target, values, text in buttons)


def handoff_text(cycles, proposer: str | None = None) -> str:
    """The trace reader's text for a run: one line per verifier call (the drafts it accepted), after a comment
    line (the cycles format skips it) naming the ``proposer``'s drafter family as vLLM's configuration prints it,
    ``SpeculativeConfig(method=...)`` with the first engine name :data:`lab.traces.method.METHOD_FAMILIES` reads as
    that family, so the reader continues the curve past k as the real-text lab's own buttons do.

    >>> handoff_text([2, 0], "draft-greedy").splitlines()
    ["# the real-text lab's proposer draft-greedy: SpeculativeConfig(method='draft_model')", '2', '0']
    >>> handoff_text([2, 0], None).splitlines()
    ['2', '0']
    """
    from ..traces.method import METHOD_FAMILIES

    family = realtext.PROPOSER_FAMILIES.get(proposer)
    name = next((engine for engine, of in METHOD_FAMILIES.items() if of == family), None)
    head = "" if name is None else f"# the real-text lab's proposer {proposer}: SpeculativeConfig(method='{name}')\n"
    return head + "\n".join(map(str, cycles)) + "\n"


def _histogram(cycles) -> dict:
    histogram: dict[int, int] = {}
    for value in cycles:
        histogram[value] = histogram.get(value, 0) + 1
    return histogram


# --- the view ----------------------------------------------------------------------------------

def _readouts(summary: dict, k: int, newest_chance: float | None) -> dict:
    """The readouts; ``newest_chance`` is the newest call's first-draft chance (:func:`lab.realtext.first_alpha`)."""
    achieved = summary["tokensPerCall"]
    predicted = summary["predictedTokensPerCall"]
    return {
        "calls": str(summary["verifierCalls"]),
        "tokensPerCall": _f(achieved, 2),
        "acceptanceRate": "n/a" if summary["acceptanceRate"] is None else _f(summary["acceptanceRate"] * 100, 1) + "%",
        "alphaIid": "n/a" if summary["alphaIid"] is None else _f(summary["alphaIid"] * 100, 1) + "%",
        "alphaMle": "n/a" if summary["alphaMle"] is None else _f(summary["alphaMle"] * 100, 1) + "%",
        "firstAlpha": "n/a" if newest_chance is None else _chance(newest_chance),
        "ledger": "n/a" if predicted is None else f"{_f(predicted, 2)} vs {_f(achieved, 2)}",
    }


def _summary(settings: dict, summary: dict, k: int, source: str, complete: bool = True) -> str:
    proposer = realtext.PROPOSER_NAMES[settings["proposer"]]
    asked = int(settings["rtTokens"])
    so_far = "" if complete else f" so far (stepping: call {summary['verifierCalls']}; the run goes on to " \
                                 f"{asked} tokens)"
    past = (f" (the last call's kept drafts carry it past the {asked} asked for)"
            if complete and summary["committedTokens"] > asked else "")
    text = (f"{source}, {proposer}, lookahead k = {k}, T = {_f(settings['rtTemperature'], 1)}: "
            f"{summary['committedTokens']} tokens in {summary['verifierCalls']} verifier calls{so_far}{past}, "
            f"{_f(summary['tokensPerCall'], 2)} tokens per call.")
    if summary["alphaMle"] is not None:
        text += (f" Drafts survived at alpha = {_f(summary['alphaMle'] * 100, 1)}% (MLE); with that alpha "
                 f"the ledger's independent model predicts {_f(summary['predictedTokensPerCall'], 2)} tokens per call.")
    if summary["callsWithoutDraft"]:
        text += (f" {summary['callsWithoutDraft']} calls had nothing to draft (prompt lookup found no earlier "
                 f"match) and wrote one token each.")
    if settings["rtTemperature"] == 0:
        text += " At T = 0 the text is exactly the target's greedy text."
    return text


def _lead(summary: dict, complete: bool) -> str:
    """The answer in one sentence: tokens per verifier call, and how often drafts survived."""
    so_far = "" if complete else f"So far (call {summary['verifierCalls']}), e"
    idle = summary["callsWithoutDraft"]
    text = (f"{so_far or 'E'}ach verifier call wrote {_f(summary['tokensPerCall'], 2)} tokens on average "
            f"({summary['committedTokens']} tokens in {summary['verifierCalls']} calls"
            + (f", {idle} with nothing to draft" if idle else "") + ")")
    if summary["alphaMle"] is not None:
        text += f", its drafts surviving at alpha = {_f(summary['alphaMle'] * 100, 1)}%"
    return text + "."


RUNS_KEPT = 8  # runs the worker keeps: stepping, or writing more or fewer tokens, extends or cuts one
_runs: dict = {}


def _run(model, prompt_tokens, proposer: str, k: int, temperature: float, seed: int) -> "realtext.Run":
    """The seeded run of these settings, kept across requests (:class:`lab.realtext.Run`): Step
    and Play show one more call per request, and the Tokens slider writes more or fewer
    tokens of the same run, so neither recomputes the calls before. The same calls as a run
    computed afresh (:func:`lab.realtext.generate`); the least recently used run goes first. Its
    drafts are lazy (:class:`lab.realtext.Drafts`): a draft after a call's rejected one is
    resolved only for the call shown in detail, which lists every draft."""
    key = (id(model), tuple(prompt_tokens), proposer, k, temperature, seed)
    run = _runs.pop(key, None)
    if run is None or run.model is not model:
        run = realtext.Run(model, prompt_tokens, proposer, k, temperature, seed, lazy=True)
    _runs[key] = run  # now the most recent
    while len(_runs) > RUNS_KEPT:
        del _runs[next(iter(_runs))]
    return run


def view(raw=None) -> dict:
    """The widget for form values or a URL query. Never raises: bad values are clamped with
    notes; a model that is not loaded gives a note and an empty run."""
    settings, notes, width = _settings(raw)
    k = int(settings["rtLookahead"])
    shown = {**{s.name: to_js_string(settings[s.name]) for s in SLIDERS}, PRESET_KEY: settings["preset"],
             PROPOSER_KEY: settings["proposer"], STEP_KEY: str(settings["step"])}
    base = {"params": {key: settings[key] for key in settings if key != "prompt"}, "shown": shown,
            "query": _query(settings), "width": width,
            "limits": {STEP_KEY: {"min": STEP.minimum, "max": STEP.maximum}}}
    try:
        model = realtext.default_model()
    except realtext.ModelUnavailable as error:
        notes.append(f"The models are not loaded ({error}); the text shown was generated when the page was built.")
        unloaded = "The real-text models are not loaded in this page."
        return {**base, "notes": notes, "lead": unloaded, "summary": unloaded,
                "live": "Models not loaded",
                "readouts": {}, "figures": {}}
    prompt = settings["prompt"]
    source = "Your prompt" if prompt.strip() else f"The preset ({realtext.PRESETS[settings['preset']][0]})"
    if not prompt.strip():
        prompt = realtext.PRESETS[settings["preset"]][1]
    prompt_tokens = model.tokenizer.encode(prompt)
    # The run up to the call shown, from the seed: the page's state is the controls alone, and the
    # worker keeps the runs it computed lately (_run) only so as not to compute them again.
    run = _run(model, prompt_tokens, settings["proposer"], k, float(settings["rtTemperature"]), int(settings["rtSeed"]))
    cycles = run.upto(int(settings["rtTokens"]), max_calls=settings["step"])
    # The analytic first-draft chance is shown for the newest call only (the call table): averaged
    # over the run it was about a quarter of a new run's Python, for one readout.
    summary = realtext.summarise(cycles, k, analytic=False)
    complete = summary["committedTokens"] >= int(settings["rtTokens"])
    if complete:  # the run's length is known: Play and Step stop at its last call
        base["limits"] = {STEP_KEY: {"min": STEP.minimum, "max": len(cycles)}}
    readouts = _readouts(summary, k, realtext.first_alpha(cycles[-1]) if cycles else None)
    live = (f"{summary['committedTokens']} tokens in {summary['verifierCalls']} calls, "
            f"{readouts['tokensPerCall']} per call")
    if not complete:
        newest = cycles[-1]
        live = (f"Call {len(cycles)}: {newest['accepted']} of {len(newest['drafts'])} drafts kept; "
                f"{summary['committedTokens']} tokens so far")
    return {
        **base,
        "notes": notes,
        "lead": _lead(summary, complete),
        "summary": _summary(settings, summary, k, source, complete),
        "live": live,
        "readouts": readouts,
        "cycles": summary["cycles"],
        "complete": complete,
        "figures": {"text": text_html(model, prompt_tokens, cycles),
                    "plainText": plain_text_html(model, prompt_tokens, cycles), "positions": positions_html(summary, k),
                    "send": send_html(summary, k, settings["proposer"]),
                    "call": call_html(model, cycles, settings["proposer"], complete)},
    }


def differs(view: dict) -> str:
    """Under the lead when the deployment panel sent these settings: why its numbers are not the
    panel's (one sentence)."""
    return ("It takes only your k: its acceptance is its own small models' on Python source and it prices no "
            "cost, so it shows speculation on real text, not your deployment's speedup.")


def page_context() -> dict:
    from ..urlstate import slider_specs

    try:
        model = realtext.default_model()
        comparison = comparison_html(preset_comparison(model), _held_out_rows(model))
    except realtext.ModelUnavailable as error:
        comparison = f'<p class="rt-empty">The models could not be loaded to measure the presets ({escape(str(error))}).</p>'
    return {"view": view(None), "sliders": slider_specs(SLIDERS), "comparison": comparison,
            "step": {"name": STEP_KEY, "minimum": STEP.minimum, "maximum": STEP.maximum},
            "presets": [{"name": name, "title": title} for name, (title, _) in realtext.PRESETS.items()],
            "proposers": [{"name": name, "title": realtext.PROPOSER_NAMES[name]} for name in realtext.PROPOSERS],
            "asset": ASSET, "vocabulary": realtext.VOCABULARY_SIZE}


OPERATIONS: dict = {}


def _preload() -> None:
    """In the page the worker writes the model file before the warm request that imports this
    module, so it is read here, while the reader is still scrolling, not on their first change."""
    import sys

    if sys.platform == "emscripten" and realtext.model_available():
        try:
            realtext.default_model()
        except realtext.ModelUnavailable:
            pass  # the view says so when it is asked


_preload()
