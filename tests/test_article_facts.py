"""Facts of the built article that can drift: each was checked against its source (docs/READING.md,
"Fact check"), and each assertion fails if the page goes back to what the source contradicts."""

from __future__ import annotations

import html
import re
import tomllib
from pathlib import Path

import pytest

from lab.widgets import policies as policies_widget
from lab.widgets import trees as trees_widget

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def page(built_site) -> str:
    return (built_site / "index.html").read_text(encoding="utf-8")


INLINE = r"(?:a|code|var|sup|sub|em|strong|span|dfn|q|small|s|time)"


def text_of(fragment: str) -> str:
    """Visible text of an HTML fragment: inline tags dropped, block tags turned into spaces, entities
    decoded, whitespace collapsed."""
    fragment = re.sub(rf"</?{INLINE}\b[^>]*>", "", fragment)
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", fragment)).split())


def between(page: str, start: str, end: str) -> str:
    return page[page.index(start):page.index(end, page.index(start))]


def source_item(page: str, key: str) -> str:
    return between(page, f'<li id="src-{key}">', "</li>")


def test_vllm_docs_links_use_the_moved_path(page):
    # the speculative decoding docs moved from features/spec_decode.html to features/speculative_decoding/
    assert "features/spec_decode.html" not in page
    for key in ("vllm-spec-decode", "vllm-lossless", "vllm-dynamic", "vllm-adaptive"):
        assert "https://docs.vllm.ai/en/latest/features/speculative_decoding/" in source_item(page, key), key
    assert "#lossless-guarantees-of-speculative-decoding" in source_item(page, "vllm-lossless")


def test_the_two_views_table_buys_tpot_and_keeps_itl_apart(page):
    table = between(page, "<caption>Two views of a speculative decoding benchmark</caption>", "</table>")
    rows = [text_of(row) for row in re.findall(r"<tr>(.*?)</tr>", table, re.S)]
    bought = [row for row in rows if "what speculation buys" in row]
    assert len(bought) == 1 and "Time per output token (TPOT)" in bought[0] and "Inter-token" not in bought[0]
    itl = [row for row in rows if "Inter-token latency (ITL)" in row]
    assert len(itl) == 1 and "can rise while TPOT falls" in itl[0] and "what speculation buys" not in itl[0]


def test_no_internal_brief_and_no_unconfirmed_source(page):
    # The trace widget's preset notes are lab/traces.py data (another part of the lab); the article's
    # own text, sources and every other widget must not mention a brief or the unconfirmed pull request.
    traces_widget = between(page, '<figure class="lab-widget" id="traces-lab"', "</figure>")
    rest = text_of(page.replace(traces_widget, ""))
    assert not re.search(r"\bbrief\b", rest, re.I)
    assert "46878" not in rest and 'id="src-vllm-pr-46878"' not in page


def test_computed_and_quoted_numbers_are_told_apart(page):
    text = text_of(page)
    assert "No number on the page is typed in by hand" not in text
    assert "Every computed number on the page comes from that code" in text


def test_the_lede_promises_the_distribution_not_the_same_text(page):
    lede = text_of(between(page, '<p class="lede">', "</p>"))
    assert "exactly what the large model alone would have produced" not in lede
    assert "distribution" in lede and "greedy" in lede and "numerics" in lede


def test_parts_are_capitalised_the_same_everywhere(page):
    body = page[page.index('<main id="main">'):]
    # The roofline subsection of Part two is rewritten elsewhere in the lab; its two lower-case
    # references are its owners' to fix, so this pins the rest of the page.
    roofline = between(body, 'id="queue-roofline"', 'id="exactness"')
    text = text_of(body.replace(roofline, ""))
    assert not re.findall(r"\bpart (?:one|two|three|four)\b", text)
    assert "Part three" in text


def test_one_symbol_for_the_lookahead(page):
    text = text_of(page[:page.index('<details class="audit-details maintainers">')])
    assert "\u03b3" not in text  # the lookahead is k everywhere (the maintainers' block keeps gamma=5)
    assert "Lookahead k" in text and "Per-token acceptance \u03b1" in text


def test_bibtex_and_byline_carry_author_and_url(page):
    extra = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["proofroom"]
    cite = page[page.index('<section id="cite-this"'):]
    bibtex = html.unescape(cite[cite.index("<pre><code>") + 11:cite.index("</code></pre>")])
    assert re.search(r"^  author = \{\{" + re.escape(extra["author"]) + r"\}\},$", bibtex, re.M)
    assert extra["url"].startswith("https://") and bibtex.count("{") == bibtex.count("}")
    if published_at(extra["url"]):
        assert re.search(r"^  url    = \{" + re.escape(extra["url"]) + r"\},$", bibtex, re.M)
    else:  # the reserved placeholder is never printed as the article's address (fact check, writing problem 10)
        assert "url    =" not in bibtex and ".invalid" not in page
    masthead = between(page, '<header class="masthead">', "</header>")
    assert html.escape(extra["author"]) in masthead


def test_hugging_face_blog_authors_in_the_posts_order(page):
    item = text_of(source_item(page, "hf-dynamic"))
    assert item.startswith("J. Mamou, O. Pereg (Intel), J. Gante, L. Tunstall (Hugging Face), D. Korat, "
                           "M. Wasserblat (Intel), N. Timor (Weizmann Institute of Science).")


def test_moving_sources_carry_an_accessed_date_or_a_commit(page):
    sources = between(page, '<ol class="sources">', "</ol>")
    for key, item in re.findall(r'<li id="src-([\w-]+)">(.*?)</li>', sources, re.S):
        moving = re.search(r'href="https://(docs\.|huggingface\.co/docs|github\.com/[^"]+/(issues|pull|blob/main))',
                           item)
        if moving:
            assert "Accessed" in item or "commit" in item, key


def test_the_article_quotes_ranges_where_papers_give_them(page):
    table = text_of(between(page, "<caption>Many ways to propose, three ways to verify</caption>", "</table>"))
    assert "1.38× throughput at batch 64" in table and "Multi-token prediction (MTP)" in table
    text = text_of(page)
    assert "DFlash" in text and "adaptive verification" in text
    assert "easy stretches come in runs" not in text and "tests that the rate is constant" in text


def test_hugging_face_default_and_heuristic_are_told_apart(page):
    text = text_of(page)
    # the library default since 4.45 is the threshold (20 tokens, "constant", 0.4); +2/-1 from 5 is the
    # blog's recipe for going back to the heuristic
    assert 'at most 20 assistant tokens, schedule "constant", threshold 0.4' in text
    assert "as in the blog's recipe for switching back to it" in text
    assert "we start it at 5, as Hugging Face's heuristic setting does" not in text


def test_greedy_drafting_changes_what_acceptance_measures(page):
    text = text_of(page)
    assert 'draft_sample_method defaults to "greedy"' in text
    assert "This α is the acceptance rate" not in text  # alpha is the per-token acceptance, not the engines' rate


def test_policies_readout_flags_a_best_lookahead_past_the_measured_curve():
    # A flat measured curve of three positions: free drafts push the best k past them, onto the acceptance
    # model's continuation (until the plateau rule stops it), and the widget says so.
    view = policies_widget.view({"draftCost": "0", "threshold": "40", "lookahead": "5",
                                 "polCurve": "custom:0.9,0.9,0.9", "width": "400"})
    assert view["readouts"]["bestStatic"].endswith("(past the measured k = 3)")
    assert "beyond the measured k = 3" in view["summary"] and "acceptance model's extrapolation" in view["summary"]
    # club-3090's MTP curve plateaus inside its six measured positions: the best k stops there, unflagged.
    capped = policies_widget.view({"draftCost": "0", "threshold": "40", "lookahead": "5",
                                   "polCurve": "club3090-mtp", "width": "400"})
    assert "past the measured" not in capped["readouts"]["bestStatic"]
    assert "The best static k stops where the curve plateaus from k = " in capped["summary"]
    within = policies_widget.view({"draftCost": "12", "threshold": "40", "lookahead": "5",
                                   "polCurve": "club3090-mtp", "width": "400"})
    assert "past the measured" not in within["readouts"]["bestStatic"]
    assert "beyond the measured" not in within["summary"]


def test_trees_summary_names_the_depth_cap_of_the_chain():
    view = trees_widget.view(None)
    depth, budget = view["params"]["maxDepth"], view["params"]["budget"]
    assert f"a chain under the same limits ({min(budget, depth)} nodes, one per level)" in view["summary"]
    assert "a chain with the same budget" not in view["summary"]


# --- The December 2026 fact check: each corrected number pinned to the code or source
# entry it comes from, so that the prose and the lab cannot drift apart again.

def _cited_after(text_html: str, phrase: str, key: str, within: int = 400) -> bool:
    """``phrase`` occurs in the page's HTML and a citation of ``key`` follows it within ``within``
    characters (the sentence's own citation, not one further down the page)."""
    at = text_html.index(phrase)
    return f'href="#src-{key}"' in text_html[at:at + within]


def test_every_quoted_cost_names_its_pull_request(page):
    from lab import serving_calibration as cal

    roofline = between(page, 'id="queue-roofline"', 'id="exactness"')
    per_sequence = f"{cal.SEQUENCE_US:.2f}&nbsp;&micro;s"
    per_draft = f"{cal.REJECT_US:.1f}&nbsp;&micro;s"
    assert per_sequence in roofline and per_draft in roofline
    assert _cited_after(roofline, per_sequence, "vllm-46112") and _cited_after(roofline, per_draft, "vllm-5131")
    # the quoted conditions: no speculation in the scheduler timing, a 32k vocabulary in the sampler's
    assert "without\n    speculation" in roofline or "without speculation" in text_of(roofline)
    assert "32k-token" in text_of(roofline) and "a larger vocabulary costs more" in text_of(roofline)
    # the 70B reversal: cited, and its GPU, lookahead and acceptance said to be assumed
    text = text_of(roofline)
    assert "over four H100s. Part of the reason" not in text
    assert _cited_after(roofline, "reversal at batch 32", "vllm-17984")
    assert "assumes four H100s, k = 4 and the acceptance" in text
    # the 7B verify sweep is PR 5691's
    from lab.widgets.serving import _scoring_growth
    assert _cited_after(roofline, f"{_scoring_growth()['highMs']}&nbsp;ms), a pass of", "vllm-5691", 300)
    for key, quoted in (("vllm-46112", "0.287"), ("vllm-5131", "0.0017990445097287495"), ("vllm-17984", "Batchsize 32")):
        assert quoted in source_item(page, key), key


def test_spec_bench_is_quoted_at_its_rerun_and_agrees_with_the_trace_reader(page):
    from lab import traces

    rows = {name: (tau, speedup) for name, tau, speedup in traces.SPEC_BENCH}
    assert rows["EAGLE"] == (3.58, 2.10)  # Leaderboard.md at fd2c1cd (2025-04-22), A100, Vicuna-7B-v1.3
    assert "fd2c1cd" in traces.SPEC_BENCH_SOURCE and "fd2c1cd" in source_item(page, "spec-bench")
    text = text_of(between(page, "The presets are public traces", "</p>"))
    assert "re-ran it on 22 April 2025 (commit fd2c1cd)" in text
    for name, words in (("EAGLE", "EAGLE averaged {tau:.2f} tokens per step and {x:.2f}× overall"),
                        ("Medusa", "{tau:.2f} and {x:.2f}×"), ("SpS", "(SpS) {tau:.2f} and {x:.2f}×"),
                        ("PLD", "(PLD) {tau:.2f} and {x:.2f}×"), ("Lookahead", "lookahead decoding {tau:.2f} and {x:.2f}×")):
        tau, speedup = rows[name]
        assert words.format(tau=tau, x=speedup) in text, name
    assert "(3.61 and 2.29× before the re-run)" in text  # the superseded table, named as such


def test_engines_are_cited_to_their_own_code(page):
    part = between(page, 'id="own-trace"', "</p>")
    assert _cited_after(part, "llama.cpp prints the same ratio", "llamacpp-24536", 300)
    assert 'href="#src-sglang-metrics"' in part
    older = between(page, "SGLang's \"accept rate\" changed meaning", "</p>")
    assert 'href="#src-sglang-metrics"' in older
    positions = text_of(between(page, "Formats that count acceptances per draft position", "say more"))
    assert "llama.cpp's acceptance rate per position" in positions
    assert "acceptance rate per position = (0.805, 0.632, 0.483)" in text_of(source_item(page, "llamacpp-24536"))
    # the translator names the label llama.cpp prints since that pull request, and the old one as old
    from lab.widgets import traces as traces_widget
    from lab import traces

    table = traces_widget.translator_html(traces.analyse(traces.preset_trace(traces.DEFAULT_PRESET)))
    assert ("llama.cpp 'draft acceptance' ('draft acceptance rate' before its pull request 24536), as a fraction"
            in html.unescape(table))


def test_the_2026_studies_are_cited_where_their_findings_bear(page):
    text = text_of(page)
    views = text_of(between(page, "What a benchmark feeds the engine", "</p>"))
    assert "random tokens" in views and "about 23%" in views and "SPEED-Bench" in views
    assert page.index("What a benchmark feeds the engine") < page.index("<caption>Two views of a speculative")
    assert "arXiv:2604.09557" in source_item(page, "speed-bench")
    assert "not in the paper's table" in text_of(source_item(page, "speed-bench"))  # where the 23% was read
    assert "arXiv:2601.11580" in source_item(page, "specdecode-bench")
    assert "arXiv:2605.15051" in source_item(page, "latency-model")
    long_context = text_of(between(page, "Long contexts change the picture", "</p>"))
    assert "93.5% to 72.1%" in long_context and "loss" in long_context
    assert 'href="#src-vllm-47602"' in between(page, "Long contexts change the picture", "</p>")
    assert "the boundaries around tool calls" not in text  # uncited since the first check (T3 #33)


def test_the_long_context_batch_is_the_models_own_ratio(page):
    from lab import serving

    shape, bf16 = serving.TARGETS["llama-3-70b"], serving.PRECISIONS["bf16"]
    ratio = serving.weight_bytes(shape, bf16) / (serving.kv_bytes_per_token(shape, bf16) * 32768)
    assert round(ratio) == 13
    assert f"outweighs its weights at a batch of about {round(ratio)}, and" in text_of(page)


def test_the_panel_answers_at_the_readers_own_alpha(page):
    from lab import acceptance, deployment, serving
    from lab.widgets import deployment as panel
    from lab.jsformat import to_fixed

    view = panel.view(None)
    answer = view["answer"]
    assert answer["alpha"] == pytest.approx(0.705102, abs=1e-6)  # mean acceptance length 2.8 at k = 4
    d = panel._deployment(view["params"])
    # the figure travels as a curve (its length at k = 4 is the figure's, so at k = 4 i.i.d.'s speedup, to rounding);
    # the serving widget gets the curve's 4-decimal token, not 71% (the review found 1.57x against 1.59x for 71%)
    exact = serving.serving(deployment.serving_settings(d, 100 * answer["alpha"])).speedup
    assert answer["serving"]["speedup"] == pytest.approx(exact, rel=1e-12)
    token = acceptance.token_rates(answer["curve"]["token"])
    sent = serving.serving(deployment.serving_settings(d, answer["acceptancePercent"]), token).speedup
    assert answer["servingSent"]["speedup"] == sent
    assert abs(sent - exact) < abs(serving.serving(deployment.serving_settings(d, answer["acceptancePercent"])).speedup - exact)
    lead = text_of(between(page, 'id="deployment-lab"', "</figure>"))
    assert f"speculation pays: {to_fixed(exact, 2)}x at lookahead 4" in lead
    if to_fixed(exact, 2) != to_fixed(sent, 2):  # what the instruments then show is named beside it
        assert f"where the serving model gives {to_fixed(sent, 2)}x at lookahead 4 instead of {to_fixed(exact, 2)}x" in lead
    assert "fitted to the same step times, agrees" not in lead and "fitted to reproduce" in lead


def test_labels_say_what_the_lab_computes(page):
    from lab import serving

    # V0 ran draft-model speculation past 0.7: V1 had none up to 0.10.0 (N-6)
    assert serving.ENGINES["vllm-v0"].label == "vLLM V0 (≤0.7; drafts ≤0.10)"
    assert "V0 (to 0.7)" not in page
    # the trees' chain is capped by depth, not by the budget (T3 #16)
    view = trees_widget.view(None)
    depth = view["params"]["maxDepth"]
    widget = between(page, 'id="trees-lab"', "</figure>")
    assert "chain of the same budget" not in widget  # (the audit's check rightly says "same budget and depth")
    assert "chain under the same limits (one node per level" in widget
    assert f"Chain tokens (at most {depth} nodes)" in widget
    assert f"a chain of {min(view['params']['budget'], depth)} nodes, one per level" in view["lead"]
    # the heuristic strip's mean is a sample's; the readout is the exact long-run one (S5)
    strip = policies_widget.view(None)["figures"]["strip"]
    assert "over these calls (a sample" in html.unescape(strip)


def test_scholarly_metadata_matches_the_bibtex(page):
    extra = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["proofroom"]
    head = page[:page.index("</head>")]
    meta = dict(re.findall(r'<meta name="(citation_[a-z_]+)" content="([^"]*)">', head))
    assert html.unescape(meta["citation_title"]) == extra["title"]
    assert html.unescape(meta["citation_author"]) == extra["author"]
    assert meta["citation_publication_date"] == extra["date"].replace("-", "/")
    if published_at(extra["url"]):
        assert meta["citation_public_url"] == extra["url"] == meta["citation_fulltext_html_url"]
        bibtex = html.unescape(page[page.index("<pre><code>@misc"):page.index("</code></pre>")])
        assert f"url    = {{{meta['citation_public_url']}}}" in bibtex
    else:
        assert "citation_public_url" not in meta and "citation_fulltext_html_url" not in meta


def published_at(url: str) -> bool:
    """Whether the publication address is real: a reserved .invalid host (RFC 6761) is a placeholder."""
    return not url.rstrip("/").endswith(".invalid")


@pytest.mark.parametrize("url", ["https://example.org/proofroom/", "https://proofroom.invalid/"])
def test_cite_this_prints_an_address_only_when_it_is_real(url):
    import jinja2
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(ROOT / "templates"), autoescape=True)
    publication = {"title": "T", "author": "A", "version": "1.2", "date": "2026-11-30", "dateText": "30 November 2026",
                   "url": url}
    out = html.unescape(env.get_template("article/09-cite-this.html.j2").render(publication=publication))
    bibtex = out[out.index("@misc"):out.index("</code></pre>")]
    assert bibtex.count("{") == bibtex.count("}") and "version = {1.2}" in bibtex
    if published_at(url):
        assert f"url    = {{{url}}}," in bibtex and f"30 November 2026, {url}." in out
    else:
        assert "invalid" not in out and "30 November 2026. As BibTeX" in out


def test_serving_numbers_quoted_as_their_sources_print_them(page):
    """The December fact check's N-47, N-58, N-62, N-16 (calibration row) and N-50, each pinned to the code or
    the source it was read from (docs/READING.md, "Serving: where each quoted number was read")."""
    from lab import serving
    from lab.serving_calibration import STEP_MEASUREMENTS
    from lab.widgets.serving import EXPANSION_EXAMPLE

    text = text_of(page)
    # N-47: the audit holds each step row to its own tolerance, not to "every one" alike
    assert {m.tolerance for m in STEP_MEASUREMENTS} == {0.15, 0.25}
    assert all(m.tolerance == 0.25 for m in STEP_MEASUREMENTS if "pull request 5691" in m.source)
    assert any(m.kind == "proposal" for m in STEP_MEASUREMENTS)
    assert all(m.tolerance == 0.25 for m in STEP_MEASUREMENTS if m.gpus > 1)
    assert all(m.tolerance == 0.15 for m in STEP_MEASUREMENTS if "pull request 5691" not in m.source and m.gpus == 1)
    assert [m.gpus for m in STEP_MEASUREMENTS if m.gpus > 1] == [4]
    assert ("holds the model to each within a stated tolerance (15% for most rows, the draft proposals among them, 25% "
            "for the scoring times of vLLM's pull request 5691 and for the one row on four GPUs)") in text
    # N-58: vLLM #5206 is one user's log line in vLLM 0.3.0: 1.93e-5 to 4.43e-5 s a call
    assert "about 21 µs each as a user's log of vLLM 0.3.0 timed it (19 to 44 µs a call)" in text
    # N-62: the batch-expansion example runs on a named preset, the vLLM sweep's RTX 3090 since that GPU has one,
    # and the page names it
    assert EXPANSION_EXAMPLE["gpu"] == "rtx-3090" and serving.GPUS["rtx-3090"].label == "RTX 3090"
    assert re.search(r"adds [0-9.]+ ms to a verify step of Llama-3-8B on an RTX 3090, [0-9.]+ ms of it", text)
    # N-16: the H100 sweep's rows past concurrency 4 are left out, and the page says so with their values
    sweep = [m for m in STEP_MEASUREMENTS if "concurrency-sweep" in m.source]
    assert sorted((m.batch, m.ms) for m in sweep) == [(1, 6.48), (4, 6.59)]
    assert "10.94 ms at concurrency 16 and 46.91 ms at 64; those two rows are left out on purpose" in text
    # N-50: the EAGLE-3 paper's Tables 3 and 5, as printed (arXiv 2503.01840)
    assert ("(chains of 3 drafts: 1.02× at batch 16, 0.93× at 24, the paper's Table 3) and between batch 24 and 32 "
            "in vLLM (chains of at most 2: 1.03× at 24, 0.93× at 32, its Table 5, run on an RTX 3090 by the paper's "
            "text and by its later version's caption, on an A100 by the first caption)") in text


def test_the_two_error_statistics_are_told_apart(page):
    from lab import serving_validation

    summary = serving_validation.summary()
    text = text_of(page)
    error = round(100 * summary["medianAbsError"])
    first, batched = serving_validation.summary_by_engine()[:2]   # each engine's error is stated apart
    mine = round(100 * first["medianAbsError"])
    assert f"the model is off by {mine}% (the median of each row's distance from its measurement" in text
    assert (f"has {batched['points']} rows at batch {batched['batches'][0]} to {batched['batches'][-1]}, off by "
            f"{round(100 * batched['medianAbsError'])}%, {batched['above']} of {batched['points']} above: "
            "DeepSeek-V3's multi-token prediction") in text
    assert ("(a signed statistic, unlike the engines' median errors above, which ignore the direction; pooled over "
            f"every row that error is {error}%)") in text


def test_the_older_engines_rows_are_stated_apart(page):
    """SGLang before its extend graph has its own row and error; vLLM V0 has none, and the page says so."""
    from lab import serving_validation

    text = text_of(page)
    older = next(e for e in serving_validation.summary_by_engine() if e["engine"] == "sglang-eager-extend")
    assert (f"has {older['points']} row{'s' if older['points'] != 1 else ''} at batch 1: Llama-3.3-70B on eight H100s "
            f"in March 2025") in text
    assert f"the model is off by {round(100 * older['medianAbsError'])}%, {older['above']} of {older['points']} above" in text
    assert "vllm-v0" not in {e["engine"] for e in serving_validation.summary_by_engine()}
    assert "V0, has no row (its two batch sweeps are among the crossover brackets below)" in text


@pytest.fixture(scope="module")
def appendix(built_site) -> str:
    return (built_site / "appendix.html").read_text(encoding="utf-8")


def test_the_validation_table_prints_each_source_once(page, appendix):
    """Writing problem 11: a source shared by many rows is one numbered note under the table, named by each row.
    The two tables live on the appendix page, each linked from its fold in the article."""
    from lab import serving_validation

    for part in ("appendix-validation", "appendix-calibration"):
        assert f'<a href="appendix.html#{part}" data-appendix="{part}">' in page and f'<section id="{part}"' in appendix
    table = between(appendix, 'aria-label="Validation table"', "</section>")
    sources = list(dict.fromkeys(point.source for point in serving_validation.VALIDATION))
    assert len(sources) < len(serving_validation.VALIDATION)
    for n, source in enumerate(sources, 1):
        assert text_of(table).count(source) == 1, source
        assert f'<li id="srv-val-source-{n}">S{n}: ' in table
    rows = re.findall(r"<tr><th scope=\"row\">\d+</th>(.*?)</tr>", table, re.S)
    assert len(rows) == len(serving_validation.VALIDATION)
    assert all(re.search(r'<a href="#srv-val-source-\d+">S\d+</a>; ', row) for row in rows)
    calibration = between(appendix, 'aria-label="Calibration table"', "</section>")
    from lab.serving_calibration import STEP_MEASUREMENTS
    for n, source in enumerate(dict.fromkeys(m.source for m in STEP_MEASUREMENTS), 1):
        assert text_of(calibration).count(source) == 1 and f'<li id="srv-cal-source-{n}">S{n}: ' in calibration, source


def test_the_serving_prose_quotes_what_the_lab_computes(page):
    """Numbers the serving paragraphs once typed by hand, each derived here from the lab itself: the ridge
    points, the GPUs whose calibration is assumed (the page named two of six), and the default preset's
    crossover charged vLLM V0's terms (the page said "a few dozen" where the model says 15)."""
    from lab import serving
    from lab.serving_calibration import CALIBRATIONS
    from lab.widgets import serving as widget

    text = text_of(page)
    h100, a100 = serving.GPUS["h100-sxm"], serving.GPUS["a100-80g"]
    assert (f"per byte it reads: about {round(h100.bf16 / h100.bandwidth)} for an H100 SXM in BF16, "
            f"{round(a100.bf16 / a100.bandwidth)} for an A100 80GB (the 40GB card's slower memory puts its ridge higher).") in text
    a100_40 = serving.GPUS["a100-40g"]
    assert a100_40.bf16 == a100.bf16 and a100_40.bandwidth < a100.bandwidth  # so its ridge is higher, as the page says
    assert h100.label.startswith("H100 SXM") and a100.label.startswith("A100 80GB")
    assumed = [serving.GPUS[name].label for name, cal in CALIBRATIONS.items() if not cal.measured]
    listed = assumed[0] if len(assumed) == 1 else ", ".join(assumed[:-1]) + " and " + assumed[-1]
    assert f"Where a GPU has no measurement ({listed}) the calibration is assumed" in text
    default = widget._settings(widget._parse(None)[0])
    assert (default.target, default.draft, default.gpu, default.gpus, default.engine) == (
        "llama-3-8b", "eagle-head", "h100-sxm", 1, "vllm-v1")  # what the sentence names
    v0 = serving.crossover_batch(default._replace(engine="vllm-v0"))
    assert v0 is not None and f"charged vLLM V0's terms, the same preset stops paying at batch {v0}." in text
    if serving.crossover_batch(default) is None:
        fits = int(serving.max_batch_in_memory(default, default.context))
        assert f"still gains at the largest batch that fits in memory ({fits} sequences of 1,024 tokens)" in text
    new = [serving.GPUS[n].label for n in ("b200", "b300", "mi300x", "mi355x") if not CALIBRATIONS[n].measured]
    assert ("no dense step time was found for them" in text) == (len(new) == 4)
    assert "few dozen" not in text and "(the L40S and the RTX 4090)" not in text
    # the page said "as published V1 sweeps on one H100 still gain at batch 128": no such sweep is in the table
    from lab import serving_validation
    sweep = [row for row in serving_validation.VALIDATION if row.engine == "vllm-v1"]
    top = [row for row in sweep if row.batch == max(r.batch for r in sweep)]
    assert all(row.measured > 1 for row in top) and {row.gpu for row in top} == {"b200"}
    assert (f"as today's V1 still gained at batch {top[0].batch} in the one published sweep of it past batch one "
            f"(Qwen3.8-27B on 1 x B200 (HGX), {min(r.measured for r in top):.2f}× to {max(r.measured for r in top):.2f}×)") in text
    assert "published V1 sweeps on one H100" not in text
    hybrid = serving.TARGETS["qwen3.8-27b"]  # a preset the preset paragraph did not name
    assert f"Qwen3.8-27B, a dense model of the same kind ({hybrid.linear_layers} of its {hybrid.layers} layers" in text
    assert hybrid.experts == 0 and 4 * hybrid.linear_layers == 3 * hybrid.layers  # the validation's "three-quarters"
    # the validation section's trust statement about the B200 follows its calibration and its held-out steps
    from lab import serving_validation
    b200_assumed = not CALIBRATIONS["b200"].measured
    assert ("though the B200's calibration is assumed, not measured" in text) == b200_assumed
    ways = {"slow" if row["ratio"] > 1 else "fast" for row in serving_validation.held_out_steps() if row["gpu"] == "b200"}
    if ways == {"fast"} and b200_assumed:
        assert "and the B200's, assumed from Hopper's efficiencies, prices Qwen3.8-27B's single-request step too fast," in text
    moe = widget._validation_context()["moePlain"]  # the SGLang MoE rows' own plain steps, held out
    assert (f"at batch one the plain runs took {moe['measured']} ms a step, where the model computes {moe['model']} ms, "
            f"{moe['moeMs']} ms of it the fixed cost of {moe['target']}'s MoE layers on the Triton kernels SGLang runs "
            f"({moe['times']} times the measured step, {moe['direction']})") in text
    assert f"charged to SGLang made {moe['target']}'s plain step {moe['trtTimes']} times too long" in text
    assert f"puts {moe['target']}'s plain step on SGLang’s H100s at {moe['times']} times its measured time." in text
    held = widget._validation_context()["moeHeld"]   # every held-out MoE plain step, the page's range
    assert (f"held against {held['sources']} other sources’ plain steps they give from {held['lowest']} to "
            f"{held['highest']} times their time") in text
    assert "from under half to over twice" not in text
    # the roofline paragraph's measured verify pass: it said "13.7 ms at batch 4 to 35.1 ms at batch 64, where the
    # roofline keeps it flat up to the ridge", but batch 64 x 6 tokens is past the A100's ridge and the lab's roofline
    # grows more than the measurement there; now the rows below the ridge, beside the roofline's own growth
    from lab.serving_calibration import STEP_MEASUREMENTS
    g = widget._scoring_growth()
    rows = {m.batch: m.ms for m in STEP_MEASUREMENTS if "pull request 5691" in m.source and m.kind == "pass"}
    assert (g["lowMs"], g["highMs"]) == (f"{rows[g['lowBatch']]:.1f}", f"{rows[g['highBatch']]:.1f}")
    assert g["passTokens"] < a100.bf16 / a100.bandwidth < 2 * g["passTokens"]  # the last batch below the ridge
    assert (f"vLLM's measured verify pass for a 7B model on an A100, 6 tokens per sequence, grows {g['measuredGrowth']}% "
            f"from batch {g['lowBatch']} to batch {g['highBatch']} ({g['lowMs']} to {g['highMs']} ms), a pass of "
            f"{g['passTokens']} tokens still below the ridge, where the roofline at the widget's default efficiencies "
            f"grows {g['rooflineGrowth']}%, all of it the extra KV cache it reads") in text
    assert "keeps it flat up to the ridge" not in text


def test_the_trace_examples_are_the_readers_own_numbers(page):
    """The worked examples of "What does your own deployment say?" are what the trace reader computes from
    its presets: club-3090's curve (73% first, 52% to 64% later, alpha_iid 0.66, a constant rate rejected below
    one in ten thousand), vLLM #26191's counts (3.53, 36%, 0.74) and the 44%-is-not-0.44 example."""
    from lab import traces
    from lab.ledger import LedgerSettings

    text = text_of(page)
    club = traces.analyse(traces.preset_trace("club3090-mtp"))
    first, *later = club["conditional"]
    assert (f"the first draft survives {round(100 * first)}% of the time and the later ones {round(100 * min(later))}% "
            f"to {round(100 * max(later))}%, against an α iid of {club['alphaIid']:.2f} that fits the same mean") in text
    assert club["independence"]["pValue"] < 1e-4 and "below one in ten thousand" in text
    run = traces.analyse(traces.preset_trace("vllm-26191-eagle3"))
    assert (f"reports {run['drafts']:,} drafts of {run['lookahead']} tokens and {run['acceptedTokens']:,} accepted: a mean "
            f"length of {run['meanAcceptanceLength']:.2f}, an acceptance rate of {round(100 * run['acceptanceRate'])}%, "
            f"and an α iid of {run['alphaIid']:.2f}.") in text
    settings = LedgerSettings()
    alpha, k = settings.acceptance / 100, settings.lookahead
    accepted = sum(alpha ** i for i in range(1, k + 1))
    rate = round(100 * accepted / k)
    assert f"Each call accepts E ≈ {accepted:.2f} drafts" in text
    assert f"A {rate}% acceptance rate is not an α of {rate / 100:.2f}: at lookahead {k} it means about {alpha:.2f}." in text


def test_the_acceptance_command_is_the_example_it_follows(page):
    """The terminal example gives the first length of the curve the paragraph quotes (DeepSeek-V4-Pro's MTP)."""
    from lab import acceptance

    first = acceptance.library_lengths("dsv4-pro-mtp-thinking")[0]
    assert (f"a mean acceptance length of {first:.2f} at k = 1 (the k = 1 figure of DeepSeek-V4-Pro's MTP curve in "
            "InferenceX, thinking on). The independent model picks") in text_of(page)
    # the deployment it is run on is DeepSeek-V3's own MTP module (the "EAGLE or MTP head" preset there), as the
    # prior and the command's --method mtp say, not an EAGLE head
    assert acceptance.family_of_draft("eagle-head", "deepseek-v3") == "mtp"
    assert "An example: DeepSeek-V3 drafted by its own MTP module" in text_of(page)
    assert "DeepSeek-V3 with an EAGLE head" not in text_of(page)
    assert f"python -m lab acceptance --lengths 1:{first:.2f} --method mtp --lookahead 8" in text_of(page)


def test_the_sweeps_paragraph_quotes_the_brackets(page):
    """The three batch sweeps' lookaheads and measured first losses are the brackets' own, and the 70B sweep is
    cited to its issue (the paragraph cited only the EAGLE-3 paper for all three)."""
    from lab import serving_validation

    sglang, vllm, draft = serving_validation.CROSSOVER_BRACKETS[:3]
    paragraph = between(page, "Three batch sweeps of early 2025", "</p>")
    text = text_of(paragraph)
    assert f"for SGLang on an H100 (k = {sglang.lookahead}, at the mean" in text
    assert f"at k = {vllm.lookahead};" in text and f"; acceptance and k = {draft.lookahead} assumed" in text
    # the 70B sweep's central crossover, on which the ratio below rests, is printed too
    central_70b = serving_validation.crossover_comparison()[2]["crossovers"][0]
    assert f"and at {central_70b} for a 1B draft on a 70B target at a length of" in text
    assert re.search(rf"first losses by batch {sglang.high} and {vllm.high}\[\d+\] and {draft.high}\[\d+\]\.", text)
    assert 'href="#src-vllm-17984"' in paragraph and "17984" in draft.source
    # how much later the model's crossover sits: the brackets' own range, where the page said "a factor of two or so"
    rows = serving_validation.crossover_comparison()
    central = [row["crossovers"][0] / row["high"] for row in rows if row["crossovers"][0] is not None]
    assert central and all(ratio > 1 for ratio in central)
    assert (f"at the central acceptance length of each sweep where it finds one, the model's crossover is "
            f"{min(central):.1f} to {max(central):.1f} times the batch by which it first lost") in text
    assert "factor of two or so" not in text
    # the vLLM sweep on the RTX 3090 the paper's text names (its own preset, calibration assumed), where the model's
    # search stops at the sequences that fit; and the sweeps' smallest batch beside the model's, computed by the build
    row = rows[1]
    assert "has no calibration for" not in text and "on an A100 (" not in text
    assert "its calibration is assumed, as for the RTX 4090: no step time measured on one was found" in text
    if row["crossovers"][0] is None:
        assert (f"nowhere up to the {row['fits']} sequences of {vllm.context} tokens that fit for vLLM V0 on the "
                f"RTX 3090 the paper's text names ({vllm.acceptanceLengths[0]:.2f} at k = {vllm.lookahead};") in text
        assert f"past {row['fits']} sequences its 24 GB holds no more KV cache at that context" in text
    else:
        assert (f"at {row['crossovers'][0]} for vLLM V0 on the RTX 3090 the paper's text names "
                f"({vllm.acceptanceLengths[0]:.2f} at k = {vllm.lookahead};") in text
    first = [serving_validation.smallest_batch_speedups(b) for b in (sglang, vllm)]
    assert (f"at batch {first[0]['batch']} the sweeps measured {first[0]['measured']:.2f}× and "
            f"{first[1]['measured']:.2f}× where the model gives {first[0]['model']:.2f}× and "
            f"{first[1]['model']:.2f}×, at acceptances the paper does not state") in text


def test_the_engine_costs_in_the_prose_are_the_calibrations_constants(page):
    """The per-cycle costs the step-model and engine paragraphs quote, rounded as printed, are the constants
    lab.serving_calibration charges (a constant refitted or re-read without the prose following fails here)."""
    from lab import serving_calibration as cal

    text = text_of(page)
    assert f"work per sequence ({cal.SEQUENCE_US:.2f} µs, from vLLM's scheduler" in text
    assert f"its rejection sampler per draft token ({cal.REJECT_US:.1f} µs, from vLLM's sampler" in text
    assert f"scans each sequence's whole context, {cal.NGRAM_SCAN_NS:.2f} ns a token on one thread" in text
    assert f"vLLM V0's proposer took {cal.NGRAM_V0_PROPOSAL_TOKEN_MS:g} ms a proposed token" in text
    assert f"about {cal.TOKEN_OUTPUT_US:.0f} µs each as a user's log of vLLM 0.3.0 timed it" in text
    assert f"({cal.EXPANSION_KV_SHARE:.2f} of a cache per extra token" in text and "without its rejection sampler" in text
    assert f"plus about {cal.SPEC_CYCLE_MS + cal.BATCH_EXPANSION_MS:.0f} ms of bookkeeping a cycle" in text
    assert f"about {cal.SERIAL_OUTPUT_US / 1000:.1f} ms a sequence" in text
    assert f"(the widget's “V1 0.10”, {cal.SYNC_STEP_HOST_MS:.1f} ms of host work every plain and speculative step" in text
    assert (f"{cal.SYNC_STEP_HOST_MS:.1f} ms of host work a step)" in text)  # SpecDecode-Bench's, as fitted


def test_the_curve_field_suggests_a_library_curve(page):
    """The deployment panel's example curve (its placeholder) is DeepSeek-V4-Pro's measured MTP lengths at k = 1..3,
    the curve the acceptance paragraphs quote, as the library holds them."""
    from lab import acceptance

    lengths = acceptance.library_lengths("dsv4-pro-mtp-thinking")[:3]
    example = ",".join(f"{k}:{length:.2f}" for k, length in enumerate(lengths, start=1))
    assert f'placeholder="{example}"' in between(page, 'id="deployment-lab"', "</figure>")


def test_acceptance_falls_at_the_second_position_in_most_curves(page):
    """The acceptance paragraph's "most of the library's curves" (it said "nearly always" with 30 of 36): the
    measured conditional rate at position 2 (from the lengths, or the engine's unconditional rates) is below
    position 1's in at least two thirds of the library, and the exception it names, lookups, is one."""
    from lab import acceptance
    from lab.acceptance_curves import CURVES

    falls, lookup_rises = [], 0
    for name, (family, kind, values, *_) in CURVES.items():
        if kind == "lengths":
            lengths = acceptance.library_lengths(name)
            first, second = lengths[0] - 1, (lengths[1] - lengths[0]) / (lengths[0] - 1)
        else:
            first, second = values[0], values[1] / values[0]
        falls.append(second < first)
        lookup_rises += family in ("ngram", "suffix") and second > first
    assert sum(falls) >= 2 * len(falls) / 3 and not all(falls) and lookup_rises >= 2
    assert "is lower at the second position than at the first in most of the library's curves" in text_of(page)


def widget_validation() -> dict:
    from lab.widgets import serving as widget
    return widget._validation_context()


def test_the_validation_prose_describes_the_engines_it_indexes(page):
    """The validation paragraph indexes the engines' summaries by position (e[0], e[1], e[2]) and describes each in
    words: batch-one Llama-3-8B EAGLE rows on vLLM V1 0.10, SGLang without overlap in two families (DeepSeek-V3 MTP
    on H200s at batch 16; Qwen3-30B-A3B with EAGLE-3 heads on H100s at batch 1 to 64, December 2025), today's V1 as one Qwen3.8-27B MTP sweep on one B200, TensorRT-LLM's batch-one DeepSeek-R1 MTP rows on B200s, and
    SGLang of March 2025 (its extend pass eager) with Llama-3.3-70B's EAGLE-3 tree on H100s. Rows added to the table
    must come with words for them."""
    from lab import serving_validation

    rows = serving_validation.VALIDATION
    engines = list(dict.fromkeys(row.engine for row in rows))
    assert engines[:5] == ["vllm-v1-0.10", "sglang-no-overlap", "vllm-v1", "trtllm", "sglang-eager-extend"]
    assert len(engines) == 5, ("a new engine's rows: say in templates/article/05-serving-validation.html.j2 what "
                               "e[5] is, then list it here")
    first, sglang, today, trtllm, older_sglang = ([row for row in rows if row.engine == e] for e in engines)
    assert {(row.target, row.gpu, row.gpus, row.batch, row.treeTokens) for row in older_sglang} == {
        ("llama-3-70b", "h100-sxm", 8, 1, 64)}
    assert "Llama-3.3-70B on eight H100s in March 2025, drafted by an EAGLE-3 head as a tree of 64 tokens" in text_of(page)
    assert {(row.target, row.gpu, row.gpus, row.batch) for row in trtllm} == {("deepseek-v3", "b200", 8, 1)}
    assert sorted(row.lookahead for row in trtllm) == [1, 2, 3, 4, 5]
    assert ("has 5 rows at batch 1: DeepSeek-R1 on eight B200s drafting 1 to 5 tokens a step with its one "
            "multi-token-prediction layer, run autoregressively") in text_of(page)
    from lab import serving
    assert serving.TARGETS["deepseek-v3"].mtp  # the checkpoint's one MTP layer (num_nextn_predict_layers 1)
    assert {(row.target, row.batch) for row in first} <= {("llama-3-8b", 1)}
    # SGLang 2025 (no overlap) has two families the paragraph names apart: DeepSeek-V3's MTP on H200s (the LMSYS
    # blog) and Qwen3-30B-A3B's EAGLE-3 heads on two and four H100s (SpecForge #339, AngelSlim #163)
    assert {(row.target, row.gpu) for row in sglang} == {("deepseek-v3", "h200"), ("qwen3-30b-a3b", "h100-sxm")}
    assert {row.gpus for row in sglang if row.target == "qwen3-30b-a3b"} == {2, 4}
    targets = widget_validation()["targets"]
    m, q = targets["sglang-no-overlap/deepseek-v3"], targets["sglang-no-overlap/qwen3-30b-a3b"]
    text = text_of(page)
    assert (f"DeepSeek-V3's multi-token prediction on eight H200s in July 2025 (batch {m['batchRange']}), off by "
            f"{m['medianError']}%") in text
    assert (f"Qwen3-30B-A3B drafted by EAGLE-3 heads on two and four H100s in December 2025 ({q['points']} rows at "
            f"batch {q['batchRange']}), slower with speculation than without in {q['slower']} of {q['points']} where the "
            f"model predicts {q['lowest']}× to {q['highest']}×, off by {q['medianError']}%") in text
    assert "eight GPUs a node as tensor parallel, where the blog ran data-parallel attention" in text  # in the fold
    assert "where the model predicts gains of" not in text   # since the MoE cost by kernel stack, not all are gains
    assert {(row.target, row.gpu, row.gpus, row.lookahead) for row in today} == {("qwen3.8-27b", "b200", 1, 2)}
    assert "Today's vLLM V1 has" in text_of(page) and "on one B200: Qwen3.8-27B" in text_of(page)


def test_the_tail_paragraph_names_the_exact_labs_own_run(page):
    """"generates its 96 tokens with seed 23 ... Seed 23 is one draw, and a lucky one": the exact lab's defaults,
    and its draw above the 300 seeds' median (the paragraph would mislead the day the draw fell below it)."""
    import inspect

    from lab import exact, serving
    from lab.widgets import serving as widget

    defaults = inspect.signature(exact.evaluate).parameters
    length, seed = defaults["length"].default, defaults["seed"].default
    text = text_of(page)
    assert f"generates its {length} tokens with seed {seed} at" in text and f"the {serving.TAIL_SEEDS} seeds around it" in text
    readouts = widget.view(None)["readouts"]
    drawn = float(readouts["tailSeed"].split(": ")[1].rstrip("x"))
    median = float(readouts["tailMiddle"].split(" / ")[1].rstrip("x"))
    assert readouts["tailSeed"].startswith(f"seed {seed}: ")
    assert drawn > median and f"Seed {seed} is one draw, and a lucky one." in text


def test_the_eagle3_sentence_names_what_the_model_charges(page):
    """The EAGLE-3 rows' optimism: the model charges their head as vLLM builds it (a 32,000-token draft vocabulary)
    and the eager operations its proposer launches (lab.serving_calibration.eagle3_eager_ms), and the page says both
    before it says the rest is unexplained."""
    from lab import serving, serving_calibration as cal

    head = serving.eagle3_head(serving.TARGETS["llama-3-8b"])
    assert head.vocab == 32000 and cal.eagle3_eager_ms(cal.ENGINES["vllm-v1-0.10"], 2) > 0
    assert ("(their own 32,000-token LM head, lighter than EAGLE-1's, and the small operations vLLM's proposer launched "
            "one by one around each draft step, read in its code): their cycles still cost more") in text_of(page)
