"""``make bench``: how fast the proofroom starts, responds and how much it downloads.

One run builds the site (with its precompressed .br/.gz siblings) into a temporary directory, serves it
with tools/serve.py on 127.0.0.1 (wrapped to count the bytes it sends), drives Chromium through
Playwright (cold starts on loopback and with the network emulated at 20 Mbit/s and 40 ms round
trip; slider steps on every widget, unthrottled and with the main thread's CPU throttled 4x; the
bytes Chromium received, encodedDataLength, page and worker) and times the lab's audit in CPython. It prints a table with each figure against its
target and writes every number as one JSON object to $BENCH_OUT (default bench-results.json).

Modules: ``stats`` (median/percentile helpers), ``server`` (byte-counting server), ``browser``
(the Playwright measurements and the in-worker probe), ``cpython`` (audit CPU time, on-disk
sizes), ``run`` (orchestration, table, JSON). The report never fails the process: a missed
target is printed as FAIL and recorded, and the exit status stays 0.
"""

from .stats import iqr, median, percentile, spread

__all__ = ["iqr", "median", "percentile", "spread"]
