"""The trace reader reads what is left. A cut-off last line (the complete lines are
read and the notes say the last was cut), a Prometheus exposition missing a per-position series
(the totals are read, the notes name what is missing), SGLang's per-request JSON (meta_info and
sglext spec_tokens_details, by version), vllm-project/speculators' acceptance.csv and
TensorRT-LLM's per-request perf metrics as a format of their own. Samples in lab/traces/samples
(README there names each source)."""

import json
from pathlib import Path

import pytest

from lab import traces
from lab.widgets import traces as widget

DATA = Path(traces.SAMPLES_DIR)


golden = traces.sample_text


# --- a cut-off last line -----------------------------------------------------------------------

def _cut_inside_last_line(text: str, keep: float = 0.5) -> str:
    body = text.rstrip("\n")
    start = body.rfind("\n") + 1
    return body[:start + int((len(body) - start) * keep)]


@pytest.mark.parametrize("name,lookahead,complete", [
    ("vllm_log.txt", None, {"drafts": 262, "accepted": 489}),             # the first of two real lines
    ("llamacpp_stats_two.log", 16, None),
    ("vllm_request.jsonl", None, None),
    ("trtllm_null_stats.jsonl", None, None),
])
def test_a_cut_off_last_line_reads_the_complete_lines_and_says_so(name, lookahead, complete):
    text = golden(name)
    cut = _cut_inside_last_line(text)
    model = "draft" if name == "llamacpp_stats_two.log" else None
    trace = traces.parse(cut, lookahead=lookahead)  # llama.cpp: the cut line was the 'draft' implementation's
    said = " ".join(trace.notes)
    assert "cut" in said, trace.notes
    if complete:
        for field, value in complete.items():
            assert getattr(trace, field) == value
    # the same text with its last line whole is read without the note
    assert not any("cut off" in note for note in traces.parse(text, lookahead=lookahead, model=model).notes)


def test_a_cut_last_line_is_read_in_slices_the_same_way():
    cut = _cut_inside_last_line(golden("vllm_log.txt"))
    parser = traces.TraceParser()
    for start in range(0, len(cut), 100):
        parser.feed(cut[start:start + 100])
    trace = parser.finish()
    last = cut.count("\n") + 1
    assert trace.drafts == 262 and any(f"line {last}" in note and "cut off" in note for note in trace.notes)


def test_a_cut_line_that_was_the_only_line_is_refused_with_its_own_reason():
    line = next(line for line in golden("vllm_log.txt").splitlines() if "SpecDecoding metrics:" in line)
    with pytest.raises(traces.TraceError, match="without Accepted/Drafted"):
        traces.parse(line[:line.index("Accepted:")])


def test_a_json_document_cut_inside_its_last_object_keeps_the_iterations_before():
    text = ('[{"iter": 1, "specDecodingStats": {"numDraftTokens": 12, "numAcceptedTokens": 7, '
            '"numRequestsWithDraftTokens": 4}},\n {"iter": 2, "specDecodingStats": {"numDraftTokens": 1')
    trace = traces.parse(text)
    assert (trace.drafts, trace.accepted) == (4, 7) and any("cut off" in note for note in trace.notes)


def test_the_page_says_the_last_line_was_cut():
    view = widget.view({"trcText": _cut_inside_last_line(golden("vllm_log.txt"))})
    assert view["analysis"]["drafts"] == 262 and "cut off" in view["summary"]


# --- Prometheus missing one per-position series ------------------------------------------------

def _without(text: str, fragment: str) -> str:
    return "\n".join(line for line in text.splitlines() if fragment not in line) + "\n"


@pytest.mark.parametrize("dropped,named", [('position="1"', "position 1"), ('position="2"', "position 2"),
                                          ('engine="1",model_name="meta-llama/Llama-3.1-8B-Instruct",position="0"',
                                           "add up to")])
def test_prometheus_missing_a_per_position_series_reads_the_totals(dropped, named):
    trace = traces.parse(_without(golden("prometheus.prom"), dropped))
    assert (trace.lookahead, trace.drafts, trace.draftTokens, trace.accepted) == (3, 160, 480, 225)
    assert trace.perPosition is None
    assert any(named in note and "totals are read" in note for note in trace.notes), trace.notes
    result = traces.analyse(trace)
    assert result["conditional"] is None and result["meanAcceptanceLength"] == 1 + 225 / 160


def test_prometheus_missing_the_accepted_total_sums_the_positions():
    trace = traces.parse(_without(golden("prometheus.prom"), "num_accepted_tokens_total{"))
    assert trace.accepted == 225 and trace.perPosition == (110, 75, 40)
    assert any("sum of the per-position counters" in note for note in trace.notes)


# --- SGLang per-request JSON ---------------------------------------------------------------------

def test_sglang_sglext_spec_reads_the_histogram_exactly():
    trace = traces.parse(golden("sglang_sglext_spec.json"))
    result = traces.analyse(trace)
    assert trace.format == "sglang-json" and trace.lookahead == 5
    assert (trace.drafts, trace.draftTokens, trace.accepted) == (43, 215, 63)
    assert trace.perPosition == (32, 18, 7, 3, 3)
    assert result["meanAcceptanceLength"] == pytest.approx(2.4651162790697674, abs=1e-15)  # SGLang's own figure
    assert result["acceptanceRate"] == pytest.approx(0.2930232558139535, abs=1e-15)
    assert not any("printed" in note for note in trace.notes)


def test_sglang_openai_response_with_n_2_sums_both_choices():
    detail = json.loads(golden("sglang_sglext_spec.json"))
    response = {"id": "x", "object": "chat.completion", "choices": [],
                "sglext": {"spec_tokens_details": [detail, dict(detail)]}}
    trace = traces.parse(json.dumps(response, indent=2))
    assert (trace.drafts, trace.accepted, trace.perPosition) == (86, 126, (64, 36, 14, 6, 6))
    assert trace.notes[0].startswith("summed 2 requests")
    # asked with return_meta_info too: each choice's meta_info repeats the counters, read once
    response["choices"] = [{"index": i, "meta_info": dict(detail, completion_tokens=106)} for i in range(2)]
    assert traces.parse(json.dumps(response)).drafts == 86


def test_sglang_2025_meta_info_names_the_older_conventions():
    with pytest.raises(traces.TraceError):  # no histogram, drafted counts the root: k is a guess without it
        traces.parse(golden("sglang_meta_info_2025.json"), fmt="sglang-json", lookahead=99)
    trace = traces.parse(golden("sglang_meta_info_2025.json"))
    assert trace.lookahead == 4  # 940 / 188 = 5 = k + 1
    said = " ".join(trace.notes)
    assert "completion_tokens / spec_verify_ct" in said and "verified root" in said


def test_sglang_older_histogram_key_and_a_request_without_speculation():
    lines = [json.dumps({"meta_info": {"spec_verify_ct": 15, "spec_accept_histogram": [5, 0, 0, 10],
                                       "spec_accept_token_num": 30}}),
             json.dumps({"meta_info": {"spec_verify_ct": 0, "completion_tokens": 3}})]
    trace = traces.parse("\n".join(lines))
    assert (trace.lookahead, trace.drafts, trace.accepted, trace.perPosition) == (3, 15, 30, (10, 10, 10))


def test_sglang_histogram_that_disagrees_with_the_verify_count_is_refused():
    with pytest.raises(traces.TraceError, match="line 1: spec_correct_drafts_histogram counts 5 calls, spec_verify_ct 6"):
        traces.parse('{"spec_verify_ct": 6, "spec_correct_drafts_histogram": [1, 4]}')


# --- speculators' acceptance.csv -------------------------------------------------------------------

def test_speculators_csv_one_analysis_per_subset():
    with pytest.raises(traces.ModelChoiceError) as caught:
        traces.parse(golden("speculators_acceptance.csv"))
    assert caught.value.models == ["qa", "HumanEval"]
    qa = traces.analyse(traces.parse(golden("speculators_acceptance.csv"), model="qa"))
    assert qa["format"] == "speculators-csv" and qa["perPosition"] == [0.9, 0.4]
    assert qa["meanAcceptanceLength"] == 2.3 and qa["conditional"] == [0.9, 8 / 18]


def test_speculators_perf_results_layout_reads_each_subset_once():
    header = ("subset,strategy,target_rate,rps_median,latency_median_s,itl_median_ms,ttft_median_ms,"
              "output_tps_median,total_output_tokens,num_drafts,num_draft_tokens,num_accepted_tokens,"
              "acceptance_length,acceptance_at_pos_0,acceptance_at_pos_1")
    rows = ["qa,constant,1,1,0.15,4.2,18.0,95.0,200,20.0,40.0,26.0,2.3,0.9,0.4",
            "qa,constant,5,5,0.15,4.2,18.0,95.0,200,20.0,40.0,26.0,2.3,0.9,0.4"]
    trace = traces.parse("\n".join([header] + rows) + "\n")
    assert (trace.format, trace.drafts, trace.accepted, trace.perPosition) == ("speculators-csv", 20, 26, (18, 8))


def test_speculators_csv_whose_positions_do_not_add_up_keeps_the_totals():
    text = golden("speculators_acceptance.csv").replace("qa,20.0,40.0,26.0,2.3,0.9,0.4", "qa,20.0,40.0,26.0,2.3,1.0,0.9")
    trace = traces.parse(text, model="qa")
    assert trace.perPosition is None and trace.accepted == 26
    assert any("num_draft_tokens_per_pos" in note for note in trace.notes)


# --- TensorRT-LLM per-request perf metrics -----------------------------------------------------------

def test_trtllm_request_metrics_need_the_lookahead_and_name_the_printed_rate():
    with pytest.raises(traces.TraceError, match="--lookahead"):
        traces.parse(golden("trtllm_request_perf.json"))
    trace = traces.parse(golden("trtllm_request_perf.json"), lookahead=5)
    assert trace.format == "trtllm-request-json" and (trace.drafts, trace.draftTokens, trace.accepted) == (10, 50, 42)
    assert any("acceptance_rate 0.8500 is not accepted / drafted = 0.8400" in note for note in trace.notes)


def test_trtllm_perf_metrics_endpoint_records_sum_and_short_drafts_bound_the_calls():
    records = [{"request_id": i, "perf_metrics": {"first_iter": 10, "last_iter": 40, "speculative_decoding": {
        "acceptance_rate": acc / drafted, "total_accepted_draft_tokens": acc, "total_draft_tokens": drafted}}}
        for i, (acc, drafted) in enumerate([(20, 30), (9, 13)])]
    trace = traces.parse(json.dumps(records), lookahead=3)
    result = traces.analyse(trace)
    assert trace.callsBound and trace.draftTokens == 43 and trace.accepted == 29
    assert result["bounds"][0] == "verifier calls: at least 14.3"
    lines = "\n".join(json.dumps(record) for record in records)
    assert traces.parse(lines, lookahead=3).accepted == 29


def test_the_new_formats_are_detected_and_named():
    for name, fmt in (("sglang_sglext_spec.json", "sglang-json"), ("speculators_acceptance.csv", "speculators-csv"),
                      ("trtllm_request_perf.json", "trtllm-request-json")):
        assert fmt in traces.FORMATS and fmt in traces.FORMAT_NAMES and fmt in traces.SHORT_NAMES
        view = widget.view({"trcText": golden(name), "trcLookahead": "5" if fmt.startswith("trtllm") else "",
                            "trcModel": "qa" if fmt == "speculators-csv" else ""})
        assert view["analysis"] is not None and view["analysis"]["format"] == fmt, view["notes"]
