"""The traces widget's file path under load: a 50 MB vLLM log read in 1 MB slices by the page's
worker. Standalone, for the bench runner to call (this module touches no other bench file):

    from bench.trace_parse import measure
    result = measure(page, base_url)   # a fresh Playwright page on the built site
    # {"traceParseMBps": ..., "traceParseLongestTaskMs": ..., "traceParseSeconds": ..., "traceParseBytes": ...}

traceParseMBps is megabytes (10^6 bytes) per second from the file input's change event to the
finished summary on the page clock; traceParseLongestTaskMs is the longest main-thread task
(PerformanceObserver "longtask", which reports tasks over 50 ms; 0 when there was none) in
that window. The goal is < 50 ms: the page stays responsive while the worker parses.
"""

from __future__ import annotations

FILE_MB = 50
BOOT_TIMEOUT_MS = 120_000
PARSE_TIMEOUT_MS = 300_000

_START = """([block, copies]) => {
  // The file is made in the page, not pushed through the automation protocol: a 50 MB transfer
  // over CDP blocks the renderer for seconds and would be measured as the page's own stall.
  const file = new File([block.repeat(copies)], "bench.log", { type: "text/plain" });
  const transfer = new DataTransfer();
  transfer.items.add(file);
  const input = document.querySelector("#traces-file");
  input.files = transfer.files;
  window.__trcLongTasks = [];
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) window.__trcLongTasks.push([entry.startTime, entry.duration]);
  }).observe({ type: "longtask" });
  setTimeout(() => {  // a fresh task, after the file was built
    window.__trcStart = performance.now();
    input.dispatchEvent(new Event("change", { bubbles: true }));
  }, 100);
  return file.size;
}"""

_DONE = """() => {
  const out = document.querySelector('form[data-lab="traces"] output[name="summary"]');
  if (out && out.value.startsWith('Your file bench.log') && window.__trcEnd === undefined) window.__trcEnd = performance.now();
  return window.__trcEnd !== undefined;
}"""


def _block() -> str:
    from lab.traces import PRESETS

    noise = ("(APIServer pid=1) INFO 05-08 16:25:19 [loggers.py:271] Engine 000: Avg prompt throughput: 0.0 "
             "tokens/s, Avg generation throughput: 72.0 tokens/s, Running: 1 reqs, Waiting: 0 reqs\n") * 40
    return noise + PRESETS["club3090-mtp"]["text"]


def measure(page, base_url: str) -> dict:
    """Load the page, wait for the live lab, read a 50 MB file through the traces widget."""
    page.goto(base_url.rstrip("/") + "/#traces-lab")
    page.wait_for_function("() => document.documentElement.dataset.labState", timeout=BOOT_TIMEOUT_MS)
    if page.evaluate("() => document.documentElement.dataset.labState") != "live":
        raise RuntimeError("the lab did not go live")
    block = _block()
    size = page.evaluate(_START, [block, FILE_MB * 1_000_000 // len(block.encode())])
    page.wait_for_function(_DONE, timeout=PARSE_TIMEOUT_MS, polling=20)
    start, end, tasks = page.evaluate("() => [window.__trcStart, window.__trcEnd, window.__trcLongTasks]")
    seconds = (end - start) / 1000
    during = [duration for begin, duration in tasks if begin + duration >= start and begin <= end]
    return {
        "traceParseMBps": round(size / 1e6 / seconds, 2),
        "traceParseLongestTaskMs": round(max(during, default=0.0), 1),
        "traceParseSeconds": round(seconds, 3),
        "traceParseBytes": size,
    }


if __name__ == "__main__":  # python -m bench.trace_parse http://127.0.0.1:PORT/
    import json
    import sys

    from playwright.sync_api import sync_playwright

    from bench.browser import launcher

    with sync_playwright() as pw:
        browser = launcher()(pw)
        page = browser.new_page()
        print(json.dumps(measure(page, sys.argv[1] if len(sys.argv) > 1 else "http://127.0.0.1:8000/")))
        browser.close()
