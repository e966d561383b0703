"""bench.frame_profile.frame_split: a step's frame by thread CPU, from Chromium trace events (no browser here)."""

import pytest

from bench.frame_profile import frame_split


def _thread(pid, tid, name):
    return {"ph": "M", "name": "thread_name", "pid": pid, "tid": tid, "args": {"name": name}}


def _span(name, ts, dur, tdur, pid=1, tid=2):
    return {"ph": "X", "name": name, "pid": pid, "tid": tid, "ts": ts, "dur": dur, "tdur": tdur}


def test_a_parent_keeps_only_its_own_cpu_and_the_groups_add_up_to_the_main_thread():
    events = [_thread(1, 2, "CrRendererMain"),
              _span("RunTask", 0, 100, 10_000),            # 10 ms in all, 3 of them its own
              _span("Layout", 10, 20, 4_000),
              _span("Paint", 40, 10, 2_000),
              _span("ParseHTML", 60, 5, 1_000),
              _span("Layout", 200, 10, 2_000)]             # a second task, top level
    out = frame_split(events, 2)
    assert out["mainMs"] == 6.0                             # (10 + 2) ms over 2 steps
    assert out["groups"]["layout"] == 3.0 and out["groups"]["paint"] == 1.0 and out["groups"]["parse"] == 0.5
    assert out["groups"]["other"] == 1.5                    # RunTask's own 3 ms: named by no group
    assert sum(out["groups"].values()) == pytest.approx(out["mainMs"])
    assert out["largest"]["RunTask"] == 1.5


def test_the_page_is_the_busiest_renderer_main_thread_and_other_threads_are_apart():
    events = [_thread(1, 2, "CrRendererMain"), _thread(3, 4, "CrRendererMain"), _thread(1, 5, "Compositor"),
              _span("Layout", 0, 10, 1_000, pid=1, tid=2),
              _span("Paint", 0, 10, 8_000, pid=3, tid=4),       # the page that was stepped
              _span("Commit", 0, 10, 2_000, pid=1, tid=5)]
    out = frame_split(events, 1)
    assert out["mainMs"] == 8.0 and out["groups"]["paint"] == 8.0 and out["groups"]["layout"] == 0.0
    assert out["otherThreadsMs"] == {"Compositor": 2.0, "CrRendererMain": 1.0}


def test_a_trace_without_a_page_or_steps_is_refused_by_name():
    with pytest.raises(ValueError, match="no CrRendererMain"):
        frame_split([_thread(1, 2, "Compositor")], 1)
    with pytest.raises(ValueError, match="steps is 0"):
        frame_split([_thread(1, 2, "CrRendererMain")], 0)
