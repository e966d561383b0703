"""CPython-side figures: the audit's CPU time, the article's own bytes, and where the page's
HTML and the views' markup go (for the investigation section)."""

from __future__ import annotations

import gzip
import json
import resource
import subprocess
import sys
from pathlib import Path

from .stats import median, spread

ROOT = Path(__file__).resolve().parent.parent

# import + run, timed in the child with CPU time so a busy machine inflates it less than wall time.
_AUDIT_CHILD = """
import json, time
t0 = time.process_time()
import lab.audit
t1 = time.process_time()
result = lab.audit.run_audit()
t2 = time.process_time()
lab.audit.run_audit()
t3 = time.process_time()
print(json.dumps({"importMs": (t1 - t0) * 1e3, "runMs": (t2 - t1) * 1e3, "totalMs": (t2 - t0) * 1e3,
                  "repeatMs": (t3 - t2) * 1e3, "passed": result["passed"], "checked": result["checked"]}))
"""


def audit_cpu(runs: int = 5, cli_runs: int = 3) -> dict:
    """cpythonAuditMs: median CPU ms of `import lab.audit` + run_audit() over fresh processes,
    plus the whole `python -m lab audit` process (getrusage of the reaped child)."""
    children = []
    for _ in range(runs):
        out = subprocess.run([sys.executable, "-c", _AUDIT_CHILD], cwd=ROOT, capture_output=True, text=True,
                             check=True)
        children.append(json.loads(out.stdout))
    cli = []
    for _ in range(cli_runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        done = subprocess.run([sys.executable, "-m", "lab", "audit"], cwd=ROOT, capture_output=True, text=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cli.append({"cpuMs": ((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)) * 1e3,
                    "status": done.returncode})
    totals = [c["totalMs"] for c in children]
    return {
        "cpythonAuditMs": round(median(totals), 1),
        "spread": spread(totals),
        "importMs": round(median(c["importMs"] for c in children), 1),
        "runMs": round(median(c["runMs"] for c in children), 1),
        "repeatRunMs": round(median(c["repeatMs"] for c in children), 1),
        "checksPassed": f"{children[0]['passed']}/{children[0]['checked']}",
        "cliProcessCpuMs": round(median(c["cpuMs"] for c in cli), 1),
        "cliProcessCpuSpread": spread([c["cpuMs"] for c in cli]),
        "cliExitStatus": cli[0]["status"],
    }


def _gz_size(path: Path) -> int:
    sibling = Path(f"{path}.gz")
    return sibling.stat().st_size if sibling.is_file() else len(gzip.compress(path.read_bytes(), mtime=0))


def article_bytes(site: Path, config: dict) -> dict:
    """The article's own files (HTML, CSS, JS, the lab's core and chunks), uncompressed and gzipped, and
    the first load (all but the chunks); no Pyodide."""
    files = [site / "index.html"]
    files += sorted(p for p in site.glob("*.css"))
    files += sorted(p for p in site.glob("*.js"))
    files.append(site / config["labZipURL"])
    per_file = {}
    for path in files:
        raw = path.stat().st_size
        # a zip without a .gz sibling (the build found gzip did not pay) travels as it is
        gz = raw if path.suffix == ".zip" and not Path(f"{path}.gz").is_file() else _gz_size(path)
        per_file[path.relative_to(site).as_posix()] = {"bytes": raw, "gzip": gz}
    runtime = {p.relative_to(site).as_posix(): p.stat().st_size
               for p in sorted(site.glob("pyodide-*/*")) if not p.name.endswith((".gz", ".br"))}
    # The stdlib the article loads (the trimmed one at the top level; the full one is the bare page's).
    for path in sorted(site.glob("python_stdlib.*.zip")):
        runtime[path.relative_to(site).as_posix()] = path.stat().st_size
    trimmed = sorted(site.glob("python_stdlib.*.zip"))
    # The first load: all of the above but the lab's chunks, which a widget fetches as it nears
    # (config labChunks; the core, labZipURL, is what the worker boots on).
    chunks = set(config.get("labChunks", {}))
    for url in sorted(chunks):
        path = site / url
        gz = path.stat().st_size if not Path(f"{path}.gz").is_file() else _gz_size(path)
        per_file[url] = {"bytes": path.stat().st_size, "gzip": gz, "chunk": True}
    first = {name: f for name, f in per_file.items() if name not in chunks}
    return {
        "articleBytes": sum(f["bytes"] for f in per_file.values()),
        "articleBytesGzip": sum(f["gzip"] for f in per_file.values()),
        "firstLoadBytes": sum(f["bytes"] for f in first.values()),
        "firstLoadBytesGzip": sum(f["gzip"] for f in first.values()),
        "labCoreBytesGzip": per_file[config["labZipURL"]]["gzip"],
        "labChunksBytesGzip": sum(per_file[url]["gzip"] for url in chunks),
        "files": per_file,
        "pyodideRuntimeBytes": sum(runtime.values()),
        "pyodideRuntimeFiles": runtime,
        "stdlibBytes": {"full": (next(site.glob("pyodide-*/python_stdlib.zip"))).stat().st_size,
                        "fullGzip": _gz_size(next(site.glob("pyodide-*/python_stdlib.zip"))),
                        "trimmed": trimmed[0].stat().st_size if trimmed else None,
                        "trimmedGzip": _gz_size(trimmed[0]) if trimmed else None},
    }


_MARKUP_CHILD = """
import gzip, json, time
import lab.views as V
ctx = V.page_context()
def sizes(view, key):
    return {name: len(markup.encode()) for name, markup in view[key].items()}
out = {
    "ledgerFigures": sizes(ctx["widgets"]["ledger"]["view"], "figures"),
    "exactFigures": sizes(ctx["widgets"]["exact"]["view"], "figures"),
    "auditChecksHtml": len(ctx["audit"]["checksHtml"].encode()),
    "ledgerResponseJson": len(json.dumps({"kind": "ledger", **ctx["widgets"]["ledger"]["view"]}).encode()),
    "exactResponseJson": len(json.dumps({"kind": "exact", **ctx["widgets"]["exact"]["view"]}).encode()),
    "auditResponseJson": len(json.dumps({"kind": "audit", **ctx["audit"]}).encode()),
}
print(json.dumps(out))
"""

_PROFILE_CHILD = """
import cProfile, io, json, pstats, random
import lab.views as V
from lab.widgets import exact as exact_widget, ledger as ledger_widget
def top(fn, n=10):
    prof = cProfile.Profile()
    prof.enable(); fn(); prof.disable()
    stats = pstats.Stats(prof)
    rows = sorted(stats.stats.items(), key=lambda kv: -kv[1][2])[:n]
    total = sum(v[2] for v in stats.stats.values())
    return {"totalMs": round(total * 1e3, 2),
            "top": [{"fn": f"{k[0].rsplit('/', 1)[-1]}:{k[1]}:{k[2]}", "calls": v[1], "tottimeMs": round(v[2] * 1e3, 2),
                     "cumtimeMs": round(v[3] * 1e3, 2)} for k, v in rows]}
out = {"firstLedgerView": top(lambda: ledger_widget.view("")),
       "firstExactView": top(lambda: exact_widget.view("")),
       "exactViewNewSeed": top(lambda: exact_widget.view({"seed": "7", "length": "140"})),
       "audit": top(V.audit_view)}
print(json.dumps(out))
"""


# The deployment panel's k schedule (lab.production.k_by_batch): the sweep (lab.serving_sweep) against the
# straightforward scan it is held to float for float (k_by_batch_scan), alternated in one process over settings
# a reader reaches by one control of the panel (context, GPU, target, engine, draft) on its default curve.
_SCHEDULE_CHILD = """
import json, statistics, time
from lab import deployment, production
d = deployment.DEFAULT_DEPLOYMENT
changes = [{}, {"context": 512}, {"context": 4096}, {"gpu": "h200"}, {"gpu": "b200"},
           {"target": "mixtral-8x7b", "gpus": 2}, {"target": "qwen3-next-80b-a3b"}, {"engine": "sglang"},
           {"engine": "vllm-v0", "draft": "qwen2.5-0.5b"}, {"draft": "ngram"}]
rows = []
for change in changes:
    here = d._replace(**change)
    curve = deployment.figure_curve(deployment.alpha_from(2.8, "length", 4), 4, here.draft, target=here.target)
    rates, cap = deployment.curve_schedule_terms(curve)
    settings = deployment.serving_settings(here, 71)
    scan, sweep, same = [], [], True
    for _ in range(REPEATS):
        t0 = time.perf_counter()
        old = production.k_by_batch_scan(settings, deployment.MAX_LOOKAHEAD, rates, cap)
        t1 = time.perf_counter()
        production._KEPT.clear()
        new = production.k_by_batch(settings, deployment.MAX_LOOKAHEAD, rates, cap)
        t2 = time.perf_counter()
        production._KEPT.clear()
        scan.append((t1 - t0) * 1e3)
        sweep.append((t2 - t1) * 1e3)
        same = same and old == new
    rows.append({"change": change, "batches": len(new), "scanMs": statistics.median(scan),
                 "sweepMs": statistics.median(sweep),
                 "ratio": statistics.median(a / b for a, b in zip(scan, sweep)), "identical": same})
print(json.dumps(rows))
"""


def schedule_speed(repeats: int = 7) -> dict:
    """kByBatchSpeedup: how many times faster the deployment panel's k schedule is through lab.serving_sweep
    than the straightforward scan (lab.production.k_by_batch_scan), the median over settings of each setting's
    median ratio (the two alternated ``repeats`` times in one process, so load touches both alike); CPython,
    wall time. ``identical``: every list the same, float for float."""
    out = subprocess.run([sys.executable, "-c", _SCHEDULE_CHILD.replace("REPEATS", str(int(repeats)))], cwd=ROOT,
                         capture_output=True, text=True, check=True)
    rows = json.loads(out.stdout)
    return {"kByBatchSpeedup": round(median(r["ratio"] for r in rows), 2),
            "scanMsMedian": round(median(r["scanMs"] for r in rows), 2),
            "sweepMsMedian": round(median(r["sweepMs"] for r in rows), 2),
            "identical": all(r["identical"] for r in rows), "repeats": repeats,
            "settings": [{**r, "scanMs": round(r["scanMs"], 2), "sweepMs": round(r["sweepMs"], 2),
                          "ratio": round(r["ratio"], 2)} for r in rows]}


def markup_sizes(site: Path) -> dict:
    """Bytes of each pre-rendered figure, the views' JSON responses and the page's parts."""
    out = subprocess.run([sys.executable, "-c", _MARKUP_CHILD], cwd=ROOT, capture_output=True, text=True,
                         check=True)
    sizes = json.loads(out.stdout)
    html = (site / "index.html").read_bytes()
    sizes["indexHtml"] = len(html)
    sizes["indexHtmlGzip"] = _gz_size(site / "index.html")
    sizes["indexHtmlFigureShare"] = round(
        (sum(sizes["ledgerFigures"].values()) + sum(sizes["exactFigures"].values()) + sizes["auditChecksHtml"])
        / len(html), 3)
    return sizes


def profile_views() -> dict:
    out = subprocess.run([sys.executable, "-c", _PROFILE_CHILD], cwd=ROOT, capture_output=True, text=True,
                         check=True)
    return json.loads(out.stdout)
