"""The real-text widget's costs: one decoding cycle in Pyodide, and the model's bytes.

``generateCycleP50Ms`` / ``generateCycleP95Ms``: :func:`lab.realtext.run_cycle` at lookahead 5,
timed in the npm Pyodide under Node (``bench/realtext_cycles.mjs``: the page's runtime and the
built site's lab zip, trimmed standard library and model file, without a browser around them), 40
cycles on each preset with the sampled draft at T = 1 and T = 0.7 and prompt lookup at T = 0 (360
cycles). ``realModelBytes``: the model file as a reader downloads it (its .br sibling).

``viewP50Ms`` / ``viewP95Ms`` (in the detail): the widget's whole view (:func:`lab.widgets.realtext.view`,
the Python of one slider step's request) in the same Pyodide, over :data:`VIEW_STEPS` steps of its
range sliders planned by the browser bench's :func:`bench.browser.slider_plan` with its seed (the
browser bench draws other widgets' steps from that generator first: other values, steps of the same
kind); ``stepViewP95Ms``: Step through the default run, one verifier call per request;
``cpuMsPerView``: the process's CPU time per view over both.
"""

from __future__ import annotations

import json
import random
import subprocess
import tempfile
from pathlib import Path

from .stats import percentile

SCRIPT = Path(__file__).with_name("realtext_cycles.mjs")
VIEW_STEPS = 60
PLAN_SEED = 20240611  # the browser bench's


def view_plan(steps: int = VIEW_STEPS) -> list[tuple[str, str]]:
    """Steps of the widget's range sliders (name, value), as the browser bench plans them."""
    from lab.widgets import realtext as widget

    from .browser import slider_plan

    sliders = [{"name": s.name, "min": s.minimum, "max": s.maximum, "step": s.step, "value": s.default}
               for s in widget.SLIDERS if s.control == "range"]
    return slider_plan(sliders, steps, random.Random(PLAN_SEED))


def measure(site: Path, config: dict) -> dict:
    [asset] = config["dataAssets"]["realtext"]
    model = site / asset["url"]
    from sitebuild.assets import lab_zip_bytes

    # The whole lab (the page's core and every chunk are the same modules, split; sitebuild/labsplit.py).
    with tempfile.NamedTemporaryFile("w", suffix=".json") as plan, tempfile.NamedTemporaryFile(suffix=".zip") as lab:
        lab.write(lab_zip_bytes(Path(__file__).resolve().parent.parent / "lab"))
        lab.flush()
        json.dump(view_plan(), plan)
        plan.flush()
        done = subprocess.run(["node", str(SCRIPT), lab.name, str(model),
                               str(site / config["stdlibURL"]), plan.name], capture_output=True, text=True,
                              timeout=900, check=True)
    result = json.loads(done.stdout)
    times = result["cycleMs"]
    brotli_sibling = model.with_name(model.name + ".br")
    return {"generateCycleP50Ms": round(percentile(times, 50), 2), "generateCycleP95Ms": round(percentile(times, 95), 2),
            "realModelBytes": brotli_sibling.stat().st_size if brotli_sibling.is_file() else model.stat().st_size,
            "realModelBytesUncompressed": model.stat().st_size, "modelLoadMs": round(result["modelLoadMs"], 1),
            "cpuMsPerCycle": round(result["cpuMsPerCycle"], 2), "cycles": len(times), "settings": result["settings"],
            "viewP50Ms": round(percentile(result["viewMs"], 50), 2), "viewP95Ms": round(percentile(result["viewMs"], 95), 2),
            "views": len(result["viewMs"]), "stepViewP95Ms": round(percentile(result["stepMs"], 95), 2),
            "stepViews": len(result["stepMs"]), "cpuMsPerView": round(result["cpuMsPerView"], 2)}
