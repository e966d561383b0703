"""The real-text widget's costs: one decoding cycle in Pyodide, and the model's bytes.

``generateCycleP50Ms`` / ``generateCycleP95Ms``: :func:`lab.realtext.run_cycle` at lookahead 5,
timed in the npm Pyodide under Node (``bench/realtext_cycles.mjs``: the page's runtime and the
built site's lab zip, trimmed standard library and model file, without a browser around them), 40
cycles on each preset with the sampled draft at T = 1 and T = 0.7 and prompt lookup at T = 0 (360
cycles). ``realModelBytes``: the model file as a reader downloads it (its .br sibling).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from .stats import percentile

SCRIPT = Path(__file__).with_name("realtext_cycles.mjs")


def measure(site: Path, config: dict) -> dict:
    [asset] = config["dataAssets"]["realtext"]
    model = site / asset["url"]
    done = subprocess.run(["node", str(SCRIPT), str(site / config["labZipURL"]), str(model),
                           str(site / config["stdlibURL"])], capture_output=True, text=True, timeout=900, check=True)
    result = json.loads(done.stdout)
    times = result["cycleMs"]
    brotli_sibling = model.with_name(model.name + ".br")
    return {"generateCycleP50Ms": round(percentile(times, 50), 2), "generateCycleP95Ms": round(percentile(times, 95), 2),
            "realModelBytes": brotli_sibling.stat().st_size if brotli_sibling.is_file() else model.stat().st_size,
            "realModelBytesUncompressed": model.stat().st_size, "modelLoadMs": round(result["modelLoadMs"], 1),
            "cpuMsPerCycle": round(result["cpuMsPerCycle"], 2), "cycles": len(times), "settings": result["settings"]}
