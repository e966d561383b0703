"""Speculative decoding on real text (lab/realtext.py): tokenizer, Kneser-Ney rows against an
independent numpy implementation, vLLM's prompt lookup against a port of vLLM's own KMP code, the
rule's exact law, T = 0 against greedy decoding, the CLI and its trace, the model's size."""

from __future__ import annotations

import json
import math
import random
import re
import subprocess
import sys
from collections import Counter
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from lab import realtext, realtext_rule, traces
from lab.checks import realtext as family
from lab.errors import LabValueError
from lab.widgets import realtext as widget

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def model():
    return realtext.default_model()


@pytest.fixture(scope="module")
def held_out(model):
    """(texts, widget.held_out_comparison on them): computed once for the tests that read it (about 3 s)."""
    texts = realtext.held_out_texts()
    return texts, widget.held_out_comparison(model, texts)


@pytest.fixture(scope="module")
def page_comparison():
    """The comparison the page shows, widget.page_context()["comparison"], made once (about 3 s)."""
    return widget.page_context()["comparison"]


def _cli(*args, stdin=None):
    return subprocess.run([sys.executable, "-m", "lab", *args], cwd=ROOT, capture_output=True, text=True,
                          input=stdin, timeout=600)


# --- tokenizer ----------------------------------------------------------------------------------

def test_every_text_round_trips_and_every_byte_is_a_token(model):
    tokenizer = model.tokenizer
    assert len(tokenizer) == realtext.VOCABULARY_SIZE
    assert [tokenizer.pieces[b] for b in range(256)] == [bytes([b]) for b in range(256)]
    rng = random.Random(5)
    samples = ["", "def f(x):\n    return x\n", "naïve café — ∑ 😀", "\t\r\n  \x00\x7f", "ÿ" * 40]
    samples += ["".join(chr(rng.randrange(0, 0x2FFF)) for _ in range(60)) for _ in range(20)]
    for text in samples:
        assert tokenizer.decode(tokenizer.encode(text)) == text


def test_tokens_merge_common_code(model):
    """A trained vocabulary: common stdlib words are single tokens, so text takes far fewer tokens
    than bytes (measured: about 3.3 bytes per token on the presets)."""
    tokenizer = model.tokenizer
    for word in (" self", " return", " def", " import", " the"):
        assert len(tokenizer.encode(word)) == 1, word
    text = "".join(prompt for _, prompt in realtext.PRESETS.values())
    assert len(text.encode()) / len(tokenizer.encode(text)) > 2.5


def test_training_is_deterministic():
    first = realtext.build_model_file([family.CHECK_CORPUS], family.CHECK_VOCABULARY)
    assert first == realtext.build_model_file([family.CHECK_CORPUS], family.CHECK_VOCABULARY)


def test_model_fits_the_byte_budget():
    """At most 1.5 MB brotli (the page's budget for the models), measured on the cached file.
    brotli.compress(data, quality=11) through the build's compressor (sitebuild.compress), which
    computes exactly that and keeps it by content: the build writes the same file's .br sibling, so
    whichever of the two comes first pays for quality 11 (seconds on a multi-megabyte file), not both."""
    from sitebuild import realtext_train
    from sitebuild.compress import BROTLI_QUALITY, Compressor

    data = realtext_train.model_bytes(ROOT)
    assert BROTLI_QUALITY == 11
    assert len(Compressor(ROOT / ".cache" / "compressed").encode("br", data)) <= 1_500_000


# --- Kneser-Ney against numpy --------------------------------------------------------------------

def _numpy_kn(tables: dict[int, Counter], context: tuple, size: int) -> np.ndarray:
    """Interpolated Kneser-Ney written again from Chen and Goodman's recursion with numpy arrays,
    from the count tables (not from the packed file)."""
    unigram = np.zeros(size)
    for (w,), c in tables[1].items():
        unigram[w] = c
    total, types = unigram.sum(), np.count_nonzero(unigram)
    row = np.maximum(unigram - 0.75, 0) / total + 0.75 * types / total / size
    for n in range(2, max(tables) + 1):
        if len(context) < n - 1:
            break
        history = tuple(context[len(context) - (n - 1):])
        counts = np.zeros(size)
        for gram, c in tables[n].items():
            if gram[:-1] == history:
                counts[gram[-1]] = c
        if counts.sum() == 0:
            continue
        row = np.maximum(counts - 0.75, 0) / counts.sum() + 0.75 * np.count_nonzero(counts) / counts.sum() * row
    return row


def _small_tables():
    model = family.small_model()
    tokens = realtext.encode_texts([family.CHECK_CORPUS], model.tokenizer)
    return model, tokens, realtext.count_tables(tokens, realtext.ORDER, {n: 1 for n in range(1, 5)})


def test_kn_rows_match_numpy_on_every_context_of_the_small_model():
    model, tokens, tables = _small_tables()
    contexts = {tuple(tokens[max(0, i - 3):i]) for i in range(0, len(tokens), 7)} | {(), (5,), (999 % model.size,)}
    for context in sorted(contexts):
        exact = model.exact_row("target", context)
        assert sum(exact) == 1
        assert np.allclose([float(x) for x in exact], _numpy_kn(tables, context, model.size), rtol=1e-12, atol=0)


def test_signature_value_recomputed_with_numpy():
    model, tokens, tables = _small_tables()
    draft_tables = {1: tables[1], 2: Counter(zip(tokens, tokens[1:]))}
    draft_tables[2] = Counter({g: c for g, c in draft_tables[2].items() if c >= realtext.DRAFT_MIN_COUNT})
    context = tuple(model.tokenizer.encode(realtext.PRESETS[realtext.DEFAULT_PRESET][1]))
    p, q = _numpy_kn(tables, context, model.size), _numpy_kn(draft_tables, context, model.size)
    assert round(float(np.minimum(p, q).sum()), 6) == float(family.signature_value())


def test_real_rows_are_distributions(model):
    for _, prompt in realtext.PRESETS.values():
        context = model.tokenizer.encode(prompt)
        for which in ("target", "draft"):
            row = model.row(which, context)
            assert len(row) == model.size and min(row) > 0 and abs(sum(row) - 1) < 1e-12
            for temperature in (0.0, 0.5, 1.7):
                tempered = model.row(which, context, temperature)
                assert min(tempered) >= 0 and abs(sum(tempered) - 1) < 1e-12
            assert model.row(which, context, 0.0)[realtext.argmax(row)] == 1.0


# --- prompt lookup against vLLM ------------------------------------------------------------------

def _vllm_find_longest_matched_ngram(origin, min_ngram, max_ngram, k):
    """vLLM's ``_find_longest_matched_ngram_and_propose_tokens`` (vllm/v1/spec_decode/ngram_proposer.py,
    commit 016e8ede), ported line by line from numba to Python: KMP on the reversed tokens."""
    total = len(origin)
    if total < min_ngram or k <= 0:
        return []
    tokens = origin[::-1]
    lps = [0] * max_ngram
    longest, position, prev, i = 0, 0, 0, 1
    while i < total:
        if tokens[prev] == tokens[i]:
            prev += 1
            if prev >= longest:
                longest, position = prev, i
            if i < max_ngram:
                lps[i] = prev
            if prev == max_ngram:
                prev = lps[max_ngram - 1]
            i += 1
        elif prev != 0:
            prev = lps[prev - 1]
        else:
            i += 1
    if longest < min_ngram:
        return []
    start = total - 1 - position + longest
    return list(origin[start:start + min(k, total - start)])


def test_prompt_lookup_agrees_with_vllm():
    rng = random.Random(11)
    for _ in range(3000):
        alphabet = rng.choice((2, 3, 5))
        tokens = [rng.randrange(alphabet) for _ in range(rng.randrange(1, 30))]
        k = rng.randrange(1, 7)
        assert realtext.prompt_lookup(tokens, k) == _vllm_find_longest_matched_ngram(tokens, *realtext.PROMPT_LOOKUP, k), tokens


# --- the rule ------------------------------------------------------------------------------------

def test_first_token_law_is_the_target_for_random_rows():
    rng = random.Random(3)
    for _ in range(60):
        size = rng.randrange(2, 7)
        p = [Fraction(rng.randrange(0, 5)) for _ in range(size)]
        p[rng.randrange(size)] += 1
        q = [Fraction(rng.randrange(0, 5)) for _ in range(size)]
        q[rng.randrange(size)] += 1
        p, q = [x / sum(p) for x in p], [x / sum(q) for x in q]
        assert realtext.first_token_law(p, q) == p


def test_the_bug_the_law_would_catch():
    """Resampling from q after a rejection (the classic bug) gives a law other than p."""
    p, q = [Fraction(3, 4), Fraction(1, 4)], [Fraction(1, 4), Fraction(3, 4)]
    original = realtext_rule.residual
    try:
        realtext_rule.residual = lambda p_row, q_row: q_row  # the function first_token_law's verify_block calls
        assert realtext.first_token_law(p, q) != p
    finally:
        realtext_rule.residual = original


def test_seeded_first_tokens_follow_p(model):
    """20000 one-token cycles at one real context, sampled draft at T = 1: the committed token's
    histogram passes Pearson's chi-square against the target row (tokens with expected count < 5
    pooled)."""
    context = model.tokenizer.encode(realtext.PRESETS["docstring"][1])
    p = np.array(model.row("target", context))
    rng = random.Random(2024)
    counts = Counter()
    for _ in range(20000):
        cycle = realtext.run_cycle(model, "draft", list(context), 1, 1.0, rng)
        counts[cycle["committed"][0]] += 1
    expected = p * 20000
    big = expected >= 5
    observed = np.array([counts[t] for t in range(model.size)])
    chi2 = (((observed[big] - expected[big]) ** 2) / expected[big]).sum()
    rest_o, rest_e = observed[~big].sum(), expected[~big].sum()
    chi2 += (rest_o - rest_e) ** 2 / rest_e
    df = int(big.sum())
    assert chi2 < df + 5 * (2 * df) ** 0.5, (chi2, df)


@pytest.mark.parametrize("proposer", realtext.PROPOSERS)
def test_zero_temperature_is_greedy_on_the_real_model(model, proposer):
    for _, prompt in realtext.PRESETS.values():
        tokens = model.tokenizer.encode(prompt)
        cycles = realtext.generate(model, tokens, proposer, 5, 0.0, 40, 9)
        written = [t for c in cycles for t in c["committed"]]
        assert written == realtext.greedy(model, tokens, len(written))


def test_prompt_lookup_wins_on_the_template_at_zero_temperature(model):
    """The article's claim, measured on the real model: on the repetitive template prompt lookup
    writes more tokens per verifier call than the draft model; elsewhere it does not help."""
    tokens = model.tokenizer.encode(realtext.PRESETS["template"][1])
    by_proposer = {p: realtext.summarise(realtext.generate(model, tokens, p, 5, 0.0, 48, 1), 5)["tokensPerCall"]
                   for p in realtext.PROPOSERS}
    assert by_proposer["ngram"] > by_proposer["draft"] + 0.3


def test_summary_identities(model):
    tokens = model.tokenizer.encode(realtext.PRESETS["python"][1])
    cycles = realtext.generate(model, tokens, "draft", 4, 1.0, 64, 4)
    summary = realtext.summarise(cycles, 4)
    calls = len(cycles)
    assert summary["committedTokens"] == sum(len(c["committed"]) for c in cycles) >= 64
    assert summary["tokensPerCall"] == pytest.approx(1 + summary["acceptedTokens"] / calls)
    assert summary["meanAcceptanceLength"] == pytest.approx(summary["tokensPerCall"])
    assert all(len(c["drafts"]) == 4 for c in cycles)
    assert summary["acceptanceRate"] == pytest.approx(summary["acceptedTokens"] / (4 * calls))
    assert summary["alphaMle"] == traces.alpha_mle(summary["acceptedTokens"], sum(c["rejected"] for c in cycles))


# --- the CLI -------------------------------------------------------------------------------------

def test_cli_json_and_its_trace_round_trip():
    done = _cli("generate", "--preset", "template", "--proposer", "ngram", "--lookahead", "5", "--temperature", "0",
                "--tokens", "40", "--compare", "--json")
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    for key in ("text", "tokens", "cycles", "verifierCalls", "tokensPerCall", "acceptanceRate", "meanAcceptanceLength",
                "perPosition", "alphaIid", "alphaMle", "plainText", "identical"):
        assert key in document, key
    assert document["identical"] is True and document["plainText"] == document["text"]
    trace = _cli("trace", "-", "--format", "cycles", "--lookahead", "5", "--json",
                 stdin="\n".join(map(str, document["cycles"])) + "\n")
    assert trace.returncode == 0, trace.stderr
    read = json.loads(trace.stdout)
    assert read["acceptedTokens"] == sum(document["cycles"]) and read["drafts"] == len(document["cycles"])
    assert read["perPosition"] == pytest.approx(document["perPosition"])
    assert read["alphaIid"] == pytest.approx(document["alphaIid"]) and read["alphaMle"] == pytest.approx(document["alphaMle"])


def test_cli_text_output():
    done = _cli("generate", "--prompt", "import os\nimport", "--tokens", "12", "--seed", "3")
    assert done.returncode == 0 and "verifier calls for" in done.stdout


@pytest.mark.parametrize("args, message", [
    (("--preset", "nope"), "--preset must be one of python, docstring, template, got 'nope'"),
    (("--prompt", "x", "--lookahead", "0"), "--lookahead must be an integer from 1 to 8, got '0'"),
    (("--prompt", "x", "--temperature", "nan"), "--temperature must be a number from 0 to 2, got 'nan'"),
    (("--prompt", "x", "--proposer", "eagle"), "--proposer must be one of draft, draft-greedy, ngram, got 'eagle'"),
    (("--prompt", "x", "--tokens", "1.5"), "--tokens must be an integer from 1 to 256, got '1.5'"),
    (("--prompt", "x", "--seed", "-1"), "--seed must be an integer from 0 to 2147483647, got '-1'"),
    ((), "generate needs --prompt TEXT or --preset NAME (python, docstring, template)"),
])
def test_cli_bad_flags_one_line_exit_2(args, message):
    done = _cli("generate", *args)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.strip() == message and "\n" not in done.stderr.strip()


# --- the widget ----------------------------------------------------------------------------------

def test_widget_view_never_raises_and_sends_its_trace():
    view = widget.view(None)
    assert view["notes"] == [] and view["figures"]["text"].count('class="rt-call') == int(view["readouts"]["calls"])
    buttons = view["figures"]["send"]
    assert 'data-target="traces"' in buttons and 'data-target="ledger"' in buttons and 'data-target="policies"' in buttons
    for raw in (None, "", "?rtLookahead=abc&rtPreset=../x&rtProposer=", {"rtTemperature": "9", "rtPrompt": "x" * 3000},
                {"rtPrompt": "\x00\ud800"}, 7, ["x"], {"rtTokens": "-5", "width": "5000"}):
        view = widget.view(raw)
        assert isinstance(view["summary"], str) and isinstance(view["notes"], list)
        json.dumps(view)


def test_an_unreadable_model_file_is_one_line(tmp_path):
    bad = tmp_path / "model.zip"
    bad.write_bytes(b"not a zip")
    done = subprocess.run([sys.executable, "-m", "lab", "generate", "--preset", "python"], cwd=ROOT, capture_output=True,
                          text=True, timeout=600, env={**__import__("os").environ, "PROOFROOM_REALTEXT_MODEL": str(bad)})
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.strip() == "generate: no model (the model file cannot be read (BadZipFile: File is not a zip file))"


def test_the_build_finds_data_files_where_a_widget_declares_them(monkeypatch):
    """sitebuild.pipeline names no widget: it reads each widget module's DATA_FILES (the real-text
    models here, and a file any other widget would declare the same way)."""
    from lab.widgets import trees as another
    from sitebuild import pipeline, realtext_train

    assert "realtext" not in Path(pipeline.__file__).read_text(encoding="utf-8")
    monkeypatch.setattr(another, "DATA_FILES", (("extra.bin", "/lab-data/extra.bin", "os:fsencode"),), raising=False)
    files = {kind: (name, data, path) for kind, name, data, path in pipeline.widget_data_files(ROOT)}
    assert files["realtext"] == (widget.ASSET, realtext_train.model_bytes(ROOT), realtext.MODEL_DATA_PATH)
    assert files["trees"] == ("extra.bin", bytes(ROOT), "/lab-data/extra.bin")


# --- stepping through a run, call by call ---------------------------------------------------------

def test_a_stopped_run_is_the_whole_runs_first_calls(model):
    """generate(max_calls=n) makes the same calls as the whole run's first n: a step's answer is
    a function of its settings (the widget reads it from the run it keeps, or recomputes it from
    the seed: the same calls)."""
    tokens = model.tokenizer.encode(realtext.PRESETS["docstring"][1])
    for proposer, temperature in (("draft", 1.0), ("draft-greedy", 0.7), ("ngram", 0.0)):
        whole = realtext.generate(model, tokens, proposer, 4, temperature, 40, 11)
        for n in (1, 2, len(whole) // 2, len(whole), len(whole) + 5):
            assert realtext.generate(model, tokens, proposer, 4, temperature, 40, 11, max_calls=n) == whole[:n]


def test_a_kept_run_grows_and_shrinks_to_the_fresh_runs_calls(model):
    """A Run asked for more tokens, fewer tokens or fewer calls, in any order, answers what a run
    computed afresh by generate() gives for each request (the worker keeps runs, not state the
    page depends on)."""
    tokens = model.tokenizer.encode(realtext.PRESETS["docstring"][1])
    for proposer, temperature in (("draft", 1.0), ("draft-greedy", 0.7), ("ngram", 0.0)):
        run = realtext.Run(model, tokens, proposer, 3, temperature, 5)
        for count, calls in ((16, None), (8, None), (40, 2), (40, None), (24, None), (64, 5), (64, None), (8, 1)):
            assert run.upto(count, calls) == realtext.generate(model, tokens, proposer, 3, temperature, count, 5,
                                                               max_calls=calls), (proposer, count, calls)


def test_the_widget_steps_a_kept_run_to_the_same_view(model):
    """Stepping through a run call by call (each request served from the kept run) shows what a
    fresh worker shows for the same controls."""
    raw = {"rtLookahead": "3", "rtTemperature": "0.8", "rtTokens": "32", "rtSeed": "4"}
    stepped = [widget.view({**raw, "rtStep": str(step)}) for step in range(1, 8)]
    widget._runs.clear()
    assert [widget.view({**raw, "rtStep": str(step)}) for step in range(7, 0, -1)] == stepped[::-1]
    assert len(widget._runs) == 1
    for seed in range(widget.RUNS_KEPT + 3):  # bounded: the least recently used runs go
        widget.view({**raw, "rtSeed": str(seed)})
    assert len(widget._runs) == widget.RUNS_KEPT


def test_checked_holds_the_rows_the_verifier_compared(model):
    """Each examined draft's (p(x), q(x)) equals the target's and the draft's rows recomputed from
    the context, and exactly the kept drafts plus the rejected one were examined."""
    tokens = model.tokenizer.encode(realtext.PRESETS["python"][1])
    cycles = realtext.generate(model, tokens, "draft", 4, 0.8, 48, 5)
    context = list(tokens)
    for cycle in cycles:
        assert len(cycle["checked"]) == cycle["accepted"] + cycle["rejected"]
        for i, (p_x, q_x) in enumerate(cycle["checked"]):
            seen = context[-(model.order - 1):] + cycle["drafts"][:i]
            token = cycle["drafts"][i]
            assert p_x == model.row("target", seen, 0.8)[token]
            assert q_x == model.row("draft", seen, 0.8)[token]
        context += cycle["committed"]


def test_the_widget_steps_one_call_per_request(model):
    whole = widget.view({"rtStep": str(widget.MAX_WIDGET_TOKENS)})
    calls = int(whole["readouts"]["calls"])
    assert whole["complete"] and whole["limits"]["rtStep"] == {"min": 1, "max": calls}
    assert whole["figures"]["text"] == widget.view(None)["figures"]["text"]
    previous = ""
    for step in range(1, calls + 1):
        view = widget.view({"rtStep": str(step)})
        assert view["figures"]["text"].count('class="rt-call') == step
        assert view["figures"]["text"].count("rt-newest") == 1
        # each step shows the previous step's calls unchanged, then one more
        shown = view["figures"]["text"].replace(" rt-newest", "")
        assert shown.startswith(previous.removesuffix("</pre>"))
        previous = shown
        assert view["shown"]["rtStep"] == str(step) and f"rtStep={step}" in view["query"]
        assert view["complete"] == (step == calls)
        assert view["limits"]["rtStep"]["max"] == (calls if step == calls else widget.MAX_WIDGET_TOKENS)
        assert ("so far" in view["summary"]) != view["complete"]
        assert f"Verifier call {step}:" in view["figures"]["call"]
    assert previous == whole["figures"]["text"].replace(" rt-newest", "")
    # the same settings from a link
    assert widget.view("?rtStep=3")["figures"] == widget.view({"rtStep": "3"})["figures"]


def test_the_call_table_shows_each_drafts_verdict(model):
    view = widget.view({"rtStep": "1", "rtProposer": "draft", "rtTemperature": "1", "rtSeed": "1"})
    cycle = realtext.generate(model, model.tokenizer.encode(realtext.PRESETS["python"][1]), "draft", 4, 1.0, 48, 1,
                              max_calls=1)[0]
    table = view["figures"]["call"]
    assert table.count("<td>kept</td>") == cycle["accepted"]
    assert table.count("<td>rejected</td>") == int(cycle["rejected"])
    assert table.count("not examined") == len(cycle["drafts"]) - len(cycle["checked"])
    for p_x, q_x in cycle["checked"]:
        assert f"<td>{widget._chance(min(1.0, p_x / q_x))}</td>" in table
    assert ("residual" in table) == cycle["rejected"] and ("bonus" in table) == (not cycle["rejected"])


@pytest.mark.parametrize("proposer, preset", [("draft", "python"), ("ngram", "template")])
def test_the_newest_calls_first_draft_chance_is_the_overlap_of_its_rows(model, proposer, preset):
    """The call table and the readout give the newest call's analytic first-draft chance: sum_x
    min(p(x), q(x)) of the target's and the draft's rows at that call's context, recomputed here
    token by token (for prompt lookup q is one-hot: p of the proposed token)."""
    prompt = model.tokenizer.encode(realtext.PRESETS[preset][1])
    for step in (1, 2, 7):  # prompt lookup on the template drafts at calls 1 and 7, not at 2
        query = {"rtStep": str(step), "rtProposer": proposer, "rtPreset": preset, "rtTemperature": "0.7",
                 "rtSeed": "2"}
        view = widget.view(query)
        cycles = realtext.generate(model, prompt, proposer, 4, 0.7, 48, 2, max_calls=step)
        context = (prompt + [t for cycle in cycles[:-1] for t in cycle["committed"]])[-(model.order - 1):]
        newest = cycles[-1]
        if not newest["drafts"]:
            assert view["readouts"]["firstAlpha"] == "n/a" and "before it was drawn" not in view["figures"]["call"]
            continue
        p = model.row("target", context, 0.7)
        q = (model.row("draft", context, 0.7) if proposer == "draft"
             else [1.0 if x == newest["drafts"][0] else 0.0 for x in range(model.size)])
        expected = math.fsum(map(min, p, q))
        assert newest["firstAlpha"] == pytest.approx(expected, rel=1e-12)
        assert view["readouts"]["firstAlpha"] == widget._chance(newest["firstAlpha"])
        assert f"min(p(x), q(x)) = {widget._chance(newest['firstAlpha'])}" in view["figures"]["call"]


def test_the_preset_table_is_measured_on_the_widgets_model(model, held_out, page_comparison):
    """The table of presets is computed from runs of the widget's own model (not typed in): each
    cell is summarise() of those runs, and the page shows exactly that table."""
    rows = widget.preset_comparison(model)
    for row in rows:
        tokens = model.tokenizer.encode(realtext.PRESETS[row["name"]][1])
        for cell, (proposer, temperature, seeds, _) in zip(row["cells"], widget.COMPARISON):
            cycles = [c for seed in seeds for c in realtext.generate(model, tokens, proposer, widget.COMPARISON_LOOKAHEAD,
                                                                       temperature, widget.COMPARISON_TOKENS, seed)]
            summary = realtext.summarise(cycles, widget.COMPARISON_LOOKAHEAD)
            assert cell["alphaMle"] == summary["alphaMle"] and cell["tokensPerCall"] == summary["tokensPerCall"]
    for row in rows:  # the text column: sum_x min(p, q) at each position, from the exact rows
        tokens = model.tokenizer.encode(realtext.PRESETS[row["name"]][1])
        exact = [float(sum(map(min, model.exact_row("target", tokens[:i]), model.exact_row("draft", tokens[:i]))))
                 for i in range(1, len(tokens))]
        assert row["text"]["positions"] == len(exact)
        assert row["text"]["alpha"] == pytest.approx(np.mean(exact), abs=1e-9)
        assert row["text"]["error"] == pytest.approx(np.std(exact, ddof=1) / len(exact) ** 0.5, abs=1e-9)
    assert page_comparison == widget.comparison_html(rows, held_out[1])
    by_name = {row["name"]: row["cells"][2]["tokensPerCall"] for row in rows}
    assert "Prompt lookup at T = 0 writes the most tokens per call on a repetitive template" in \
        widget.comparison_html(rows)
    assert by_name["template"] > max(by_name["python"], by_name["docstring"])


def test_held_out_text_is_not_in_the_corpus_and_is_what_the_build_reads():
    """The comparison's held-out code and English are absent from the training corpus (twelve
    80-character windows of each, none found in the stdlib's text), and are cut as stated."""
    from sitebuild import realtext_train

    corpus = "\n".join(realtext_train.corpus_texts(realtext_train.stdlib_zip_path(ROOT).read_bytes())[0])
    texts = realtext.held_out_texts()
    assert set(texts) == {"code", "english"}
    for held in texts.values():
        text = held["text"]
        assert len(held["sources"]) == 4 and held["charsEach"] == realtext_train.HELD_OUT_CHARS
        assert len(text) <= 4 * held["charsEach"] + 3 * 2
        windows = [text[start:start + 80] for start in range(0, len(text) - 80, max(1, (len(text) - 80) // 12))]
        assert len(windows) >= 12 and not [w for w in windows if w in corpus]
    assert "def " in texts["code"]["text"] and '"""' not in texts["code"]["text"]  # code without docstrings
    assert "```" not in texts["english"]["text"] and "](" not in texts["english"]["text"]


def test_held_out_alphas_are_measured_and_the_sentence_follows_them(model, held_out, page_comparison):
    """Each held-out alpha is the mean of sum_x min(p, q) over the text's positions (numpy, from
    the model's rows), its error the standard error of 64-position block means; the page's
    sentence says what those numbers say, and says the opposite when they are swapped."""
    texts, held = held_out
    for kind, row in held.items():
        tokens = model.tokenizer.encode(texts[kind]["text"])
        overlaps = np.array([np.minimum(np.array(model.row("target", tokens[:i])), np.array(model.row("draft", tokens[:i]))).sum()
                             for i in range(1, len(tokens))])
        assert row["positions"] == len(overlaps)
        assert row["alpha"] == pytest.approx(overlaps.mean(), abs=1e-9)
        size = widget.HELD_OUT_BLOCK
        blocks = overlaps[: len(overlaps) // size * size].reshape(-1, size).mean(axis=1)
        assert row["error"] == pytest.approx(blocks.std(ddof=1) / len(blocks) ** 0.5, abs=1e-9)
    rows = widget.preset_comparison(model)
    html = widget.comparison_html(rows, held)
    gap = held["code"]["alpha"] - held["english"]["alpha"]
    bound = 2 * float(np.hypot(held["code"]["error"], held["english"]["error"]))
    expected = ("code accepts more than English" if gap > bound else "code accepts less than English" if gap < -bound
                else "code accepts about as much as English")
    assert f"On text the models never saw, {expected}" in html
    assert html.count('class="rt-held-out"') == 2 and page_comparison == html
    swapped = {"code": {**held["english"], "sources": held["code"]["sources"]},
               "english": {**held["code"], "sources": held["english"]["sources"]}}
    opposite = {"more": "less", "less": "more"}
    word = expected.split()[2]
    if word in opposite:
        assert f"code accepts {opposite[word]} than English" in widget.comparison_html(rows, swapped)
    assert "code accepts" in widget.comparison_html(rows, None) and "never saw" not in widget.comparison_html(rows, None)


def test_the_runs_sentence_follows_the_runs(model):
    """The sentence on the runs says what their alphas say (two binomial standard errors, from
    ``_alpha_gap``) and explains only that: the models writing code after either prompt when the
    runs agree, the binomial error's blind spot (drafts in one run are not independent) when
    they differ."""
    rows = widget.preset_comparison(model)

    def with_runs(function_alpha, docstring_alpha):
        changed = {"python": function_alpha, "docstring": docstring_alpha}
        return [{**row, "cells": [{**row["cells"][0], "alphaMle": changed[row["name"]]}, *row["cells"][1:]]}
                if row["name"] in changed else row for row in rows]

    agree = widget.comparison_html(with_runs(0.35, 0.34))
    assert "the function's run accepts about as much as the docstring's" in agree
    assert "what they write after either prompt is mostly code" in agree and "independent trial" not in agree
    for first, second, word in ((0.45, 0.25, "more"), (0.25, 0.45, "less")):
        differ = widget.comparison_html(with_runs(first, second))
        assert f"the function's run accepts {word} than the docstring's" in differ
        assert "independent trial" in differ and "mostly code" not in differ
    gap, error = widget._alpha_gap(rows[0]["cells"][0], rows[1]["cells"][0])
    assert f"two binomial standard errors {widget._f(2 * error, 2)}" in widget.comparison_html(rows)


# --- the smallest temperature, and the discount ---------------------------------------------------

EXTREME_TEMPERATURES = ("0.003", "1e-300", "5e-324", "0.0499")


def test_a_temperature_between_greedy_and_the_minimum_is_one_line_from_the_cli():
    """T is 0 (greedy) or at least MIN_TEMPERATURE (stated, and enforced: below it tempered rows
    underflow); the CLI refuses anything between with one line and exit 2, before loading a model."""
    for temperature in EXTREME_TEMPERATURES:
        done = _cli("generate", "--preset", "python", "--tokens", "4", f"--temperature={temperature}")
        assert done.returncode == 2 and done.stdout == "", temperature
        assert done.stderr.strip() == f"--temperature must be 0 (greedy) or from 0.05 to 2, got '{temperature}'"
    done = _cli("generate", "--preset", "python", "--tokens", "4", f"--temperature={realtext.MIN_TEMPERATURE}")
    assert done.returncode == 0 and "verifier calls for" in done.stdout, done.stderr


def test_a_temperature_between_greedy_and_the_minimum_is_a_note_in_the_page(model):
    """The page form (and a link) with such a T runs at the minimum and says so in the reader's words."""
    for temperature in EXTREME_TEMPERATURES:
        view = widget.view({"rtTemperature": temperature, "rtTokens": "8"})
        assert view["params"]["rtTemperature"] == realtext.MIN_TEMPERATURE
        assert f"Temperature T (0 = greedy): {temperature} is between 0 (greedy)" in " ".join(view["notes"])
        assert view["readouts"] and view["summary"], temperature
    with pytest.raises(LabValueError, match="neither 0"):
        realtext.check_temperature(0.0499)


def test_rows_at_the_smallest_temperature_are_distributions(model):
    """At MIN_TEMPERATURE every preset's target and draft rows keep a positive, finite normaliser and
    sum to 1 (the underflow the minimum keeps away would make the total 0)."""
    for _, prompt in realtext.PRESETS.values():
        context = model.tokenizer.encode(prompt)
        for which in ("target", "draft"):
            row = model.row(which, context, realtext.MIN_TEMPERATURE)
            assert 0 < row.total < math.inf
            assert math.fsum(row) == pytest.approx(1.0, abs=1e-9)
            assert 0 <= realtext.sample_row(row, random.Random(1)) < model.size


def test_the_discount_constant_is_the_discount():
    """DISCOUNT is read, not retyped: a Kneser-Ney row in fractions is the textbook formula with D = DISCOUNT."""
    from lab import realtext_rows

    assert Fraction(realtext_rows.UNITS, realtext_rows.SCALE) == realtext.DISCOUNT
    d = realtext.DISCOUNT
    tables = [realtext.Table(realtext.pack_table(Counter({(0,): 3, (1,): 1}), 1, 3), 3),
              realtext.Table(realtext.pack_table(Counter({(0, 1): 2, (0, 2): 1}), 2, 3), 3)]
    unigram = [(3 - d) / 4 + d * 2 / 4 / 3, (1 - d) / 4 + d * 2 / 4 / 3, d * 2 / 4 / 3]
    weight = d * 2 / 3  # D N1+(h .) / c(h) after token 0: two words, three counts
    expected = [weight * unigram[0], weight * unigram[1] + (2 - d) / 3, weight * unigram[2] + (1 - d) / 3]
    assert realtext.kn_row(tables, (0,), 3, Fraction) == expected
    level = realtext.Level([1, 2], [2, 1])
    assert (level.weight, level.kept(1)) == (float(weight), float((2 - d) / 3))
    for path in sorted((ROOT / "lab").glob("realtext*.py")):
        assert not re.search(r"\b4 \* (count|sum|total)|\b3 \* (len|types|\()", path.read_text(encoding="utf-8")), path


def test_the_parts_name_only_what_they_have_and_the_module_still_names_everything():
    """Each part's ``__all__`` is true (``from lab.realtext_rows import *`` works), and every name a part
    exports is lab.realtext's too (the split moved code, not names)."""
    import importlib

    for part in ("realtext_training", "realtext_rows", "realtext_rule"):
        module = importlib.import_module(f"lab.{part}")
        assert all(hasattr(module, name) for name in module.__all__), part
        assert all(getattr(realtext, name) is getattr(module, name) for name in module.__all__), part
    assert all(hasattr(realtext, name) for name in realtext.__all__)


def test_reading_the_model_moves_the_heap_alive_then_out_of_the_collectors_way(monkeypatch):
    """Once the model is read, what is alive (the modules, the model) sits in the collector's permanent
    generation, so the collections a new run triggers do not scan it again (docs/PERFORMANCE.md)."""
    import gc

    monkeypatch.delitem(realtext._MODELS, "default", raising=False)
    gc.unfreeze()
    assert gc.get_freeze_count() == 0
    realtext.default_model()
    assert gc.get_freeze_count() > 0


def test_without_the_builds_files_the_lab_says_how_to_make_them(tmp_path, monkeypatch):
    """The lab reads the model and the held-out texts from files and never imports the build: where
    neither file is, it says so (ModelUnavailable, which the CLI and the widget turn into one line)."""
    monkeypatch.delitem(realtext._MODELS, "default", raising=False)
    monkeypatch.delenv("PROOFROOM_REALTEXT_MODEL", raising=False)
    monkeypatch.setattr(realtext, "MODEL_DATA_PATH", str(tmp_path / "worker" / "model.zip"))
    monkeypatch.setattr(realtext, "_checkout_path", lambda name: str(tmp_path / name))
    assert not realtext.model_available()
    with pytest.raises(realtext.ModelUnavailable, match="python -m sitebuild.realtext_train builds it"):
        realtext.default_model()
    with pytest.raises(realtext.ModelUnavailable, match="only when the page is built"):
        realtext.held_out_texts()
    (tmp_path / realtext.CHECKOUT_HELD_OUT).write_text('{"code": {"text": "x = 1"}}')
    assert realtext.held_out_texts() == {"code": {"text": "x = 1"}}
