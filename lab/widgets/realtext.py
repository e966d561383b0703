"""The real-text widget (Part three): speculative decoding on real text with real models, exact.

The reader picks a prompt (a preset or their own text), the proposer, the lookahead k, the
temperature T, how many tokens and a seed; every change generates again (one request, at most
:data:`MAX_WIDGET_TOKENS` tokens, so it stays short). The text shows every verifier call: accepted
drafts underlined, the rejected draft struck through, the verifier's correction boxed and the bonus
token in a dashed box (shape, not colour alone, tells them apart; each also has its ``k-`` colour).
The numbers go through the trace reader's analysis (:func:`lab.realtext.summarise`), and the run's
trace can be sent to the trace reader, the ledger and the lookahead policies (the page's generic
``data-action="send"``).

The model file is not part of the page's first load: the page's worker fetches it when the widget
comes near (the form's ``data-assets``) and writes it where :func:`lab.realtext.default_model` looks.
"""

import json

from ..figures import escape, split_width
from ..jsformat import to_fixed, to_js_string
from ..urlstate import Choice, Slider, Text, format_query, read_controls
from .. import realtext

__all__ = ["SLIDERS", "CONTROLS", "DATA_FILES", "view", "page_context", "text_html", "send_html", "OPERATIONS",
           "MAX_WIDGET_TOKENS"]

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
DATA_FILES = ((ASSET, realtext.MODEL_DATA_PATH, "sitebuild.realtext_train:model_bytes"),)
PRESET = Choice(PRESET_KEY, PRESET_KEY, "Prompt", {name: title for name, (title, _) in realtext.PRESETS.items()},
                realtext.DEFAULT_PRESET)
PROPOSER = Choice(PROPOSER_KEY, PROPOSER_KEY, "Proposer", dict(realtext.PROPOSER_NAMES), DEFAULT_PROPOSER)
PROMPT = Text(PROMPT_KEY, "Your prompt", max_length=realtext.MAX_PROMPT_CHARS)  # typed text never rides in a link
CONTROLS = (*SLIDERS, PRESET, PROPOSER, PROMPT)


def _f(value, digits=2) -> str:
    return "n/a" if value is None else to_fixed(value, digits)


def _settings(raw) -> tuple[dict, list[str], int]:
    """The settings from a URL query or form values (:func:`lab.urlstate.read_controls`), the
    notes for anything that had to change, and the figure panel's width."""
    raw, width = split_width(raw)
    values, notes = read_controls(raw, CONTROLS)
    settings = {**{slider.name: values[slider.name] for slider in SLIDERS}, "preset": values[PRESET_KEY],
                "proposer": values[PROPOSER_KEY], "prompt": values[PROMPT_KEY]}
    return settings, notes, width


def _query(settings: dict) -> str:
    return (format_query(settings, SLIDERS) + f"&{PRESET_KEY}={settings['preset']}"
            + f"&{PROPOSER_KEY}={settings['proposer']}")


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
        parts.append(f'<span class="rt-call" title="{title}">{"".join(pieces)}</span>')
    return f'<pre class="rt-text">{"".join(parts)}</pre>'  # pre: the build's HTML minifier keeps its white space


def positions_html(summary: dict, k: int) -> str:
    """Per-position survival as a small table: measured (calls whose first i drafts survived, over
    calls that drafted) and what one alpha (the MLE) predicts, alpha^i."""
    if summary["perPosition"] is None:
        return '<p class="rt-empty">No call drafted anything, so there is no per-position curve.</p>'
    alpha = summary["alphaMle"]
    rows = "".join(f"<tr><th scope=\"row\">{i + 1}</th><td>{_f(rate * 100, 1)}%</td><td>{_f(alpha ** (i + 1) * 100, 1)}%</td></tr>"
                   for i, rate in enumerate(summary["perPosition"]))
    return ('<table class="rt-positions"><caption>Survival by draft position</caption><thead><tr><th scope="col">'
            'position i</th><th scope="col">first i drafts kept (measured)</th><th scope="col">'
            '&alpha;<sub>MLE</sub><sup>i</sup> (independent model)</th></tr></thead>'
            f"<tbody>{rows}</tbody></table>")


def send_html(summary: dict, k: int) -> str:
    """Buttons that hand the run to the trace reader (its cycles), the ledger (its measured curve,
    or one alpha) and the lookahead policies (the curve)."""
    if not summary["cycles"]:
        return ""
    from .. import traces

    analysis = traces.analyse(traces.cycles_to_trace(_histogram(summary["cycles"]), k))
    curve = "custom:" + ",".join(to_fixed(r, 4) for r in traces.measured_curve(analysis))
    acceptance = to_fixed(100 * analysis["alphaIid"], 0)
    lookahead = str(min(12, k))
    buttons = (
        ("traces", {"trcText": "\n".join(map(str, summary["cycles"])) + "\n", "trcFormat": "cycles",
                    "trcLookahead": str(k)}, "Read this run in the trace reader"),
        ("ledger", {"trcCurve": curve, "lookahead": lookahead}, "Send the measured curve to the ledger"),
        ("ledger", {"trcCurve": "", "acceptance": acceptance, "lookahead": lookahead},
         f"Send alpha = {acceptance}% to the ledger"),
        ("policies", {"polCurve": curve}, "Use this curve in the lookahead policies"),
    )
    return "".join(f'<button type="button" data-action="send" data-target="{target}" disabled '
                   f'data-values="{escape(json.dumps(values))}">{escape(text)}</button>'
                   for target, values, text in buttons)


def _histogram(cycles) -> dict:
    histogram: dict[int, int] = {}
    for value in cycles:
        histogram[value] = histogram.get(value, 0) + 1
    return histogram


# --- the view ----------------------------------------------------------------------------------

def _readouts(summary: dict, k: int) -> dict:
    achieved = summary["tokensPerCall"]
    predicted = summary["predictedTokensPerCall"]
    return {
        "calls": str(summary["verifierCalls"]),
        "tokensPerCall": _f(achieved, 2),
        "acceptanceRate": "n/a" if summary["acceptanceRate"] is None else _f(summary["acceptanceRate"] * 100, 1) + "%",
        "alphaIid": "n/a" if summary["alphaIid"] is None else _f(summary["alphaIid"] * 100, 1) + "%",
        "alphaMle": "n/a" if summary["alphaMle"] is None else _f(summary["alphaMle"] * 100, 1) + "%",
        "firstAlpha": "n/a" if summary["meanFirstAlpha"] is None else _f(summary["meanFirstAlpha"] * 100, 1) + "%",
        "ledger": "n/a" if predicted is None else f"{_f(predicted, 2)} vs {_f(achieved, 2)}",
    }


def _summary(settings: dict, summary: dict, k: int, source: str) -> str:
    proposer = realtext.PROPOSER_NAMES[settings["proposer"]]
    text = (f"{source}, {proposer}, lookahead k = {k}, T = {_f(settings['rtTemperature'], 1)}: "
            f"{summary['committedTokens']} tokens in {summary['verifierCalls']} verifier calls, "
            f"{_f(summary['tokensPerCall'], 2)} tokens per call.")
    if summary["alphaMle"] is not None:
        text += (f" Drafts survived at alpha = {_f(summary['alphaMle'] * 100, 1)}% (MLE; the analytic first-position "
                 f"chance over the contexts visited was {_f(summary['meanFirstAlpha'] * 100, 1)}%); with that alpha "
                 f"the ledger's independent model predicts {_f(summary['predictedTokensPerCall'], 2)} tokens per call.")
    if summary["callsWithoutDraft"]:
        text += (f" {summary['callsWithoutDraft']} calls had nothing to draft (prompt lookup found no earlier "
                 f"match) and wrote one token each.")
    if settings["rtTemperature"] == 0:
        text += " At T = 0 the text is exactly the target's greedy text."
    return text


def view(raw=None) -> dict:
    """The widget for form values or a URL query. Never raises: bad values are clamped with
    notes; a model that is not loaded gives a note and an empty run."""
    settings, notes, width = _settings(raw)
    k = int(settings["rtLookahead"])
    shown = {**{s.name: to_js_string(settings[s.name]) for s in SLIDERS}, PRESET_KEY: settings["preset"],
             PROPOSER_KEY: settings["proposer"]}
    base = {"params": {key: settings[key] for key in settings if key != "prompt"}, "shown": shown,
            "query": _query(settings), "width": width}
    try:
        model = realtext.default_model()
    except realtext.ModelUnavailable as error:
        notes.append(f"The models are not loaded ({error}); the text shown was generated when the page was built.")
        return {**base, "notes": notes, "summary": "The real-text models are not loaded in this page.",
                "live": "Models not loaded",
                "readouts": {}, "figures": {}}
    prompt = settings["prompt"]
    source = "Your prompt" if prompt.strip() else f"The preset ({realtext.PRESETS[settings['preset']][0]})"
    if not prompt.strip():
        prompt = realtext.PRESETS[settings["preset"]][1]
    prompt_tokens = model.tokenizer.encode(prompt)
    cycles = realtext.generate(model, prompt_tokens, settings["proposer"], k, float(settings["rtTemperature"]),
                               int(settings["rtTokens"]), int(settings["rtSeed"]))
    summary = realtext.summarise(cycles, k)
    readouts = _readouts(summary, k)
    return {
        **base,
        "notes": notes,
        "summary": _summary(settings, summary, k, source),
        "live": f"{summary['committedTokens']} tokens in {summary['verifierCalls']} calls, "
                f"{readouts['tokensPerCall']} per call",
        "readouts": readouts,
        "cycles": summary["cycles"],
        "figures": {"text": text_html(model, prompt_tokens, cycles), "positions": positions_html(summary, k),
                    "send": send_html(summary, k)},
    }


def page_context() -> dict:
    from ..views import slider_specs

    return {"view": view(None), "sliders": slider_specs(SLIDERS),
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
