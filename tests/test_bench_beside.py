"""The benchmark's split-against-whole comparison times each page's keys with that page in front: a live
page that is not in front gets its frames late in headless Chromium, so timing it there measured the
browser's scheduling, not the page (bench.run.final_renders_beside)."""

from bench import run


class _Page:
    def __init__(self, name, log):
        self.name, self.log = name, log

    def bring_to_front(self):
        self.log.append(("front", self.name))


def test_each_page_is_in_front_while_its_keys_are_timed(monkeypatch):
    log = []
    split, whole = _Page("split", log), _Page("whole", log)
    monkeypatch.setattr(run.B, "widgets", lambda page: ["a", "b", "c"])

    def steps(page, kind, count, warmup, rng):
        log.append(("keys", page.name, kind))
        return {"steps": [{"finalMs": 1.0}]}

    monkeypatch.setattr(run.B, "final_steps", steps)
    out = run.final_renders_beside(None, split, whole, steps=3)
    assert set(out["finalRenders"]) == set(out["finalRendersWhole"]) == {"a", "b", "c"}
    keys = [i for i, entry in enumerate(log) if entry[0] == "keys"]
    assert len(keys) == 6
    for i in keys:
        assert log[i - 1] == ("front", log[i][1]), log
    # the two pages alternate which goes first, widget by widget
    assert [log[i][1] for i in keys] == ["split", "whole", "whole", "split", "split", "whole"]
