"""The serving instrument's readouts check: every number the serving widget prints (readouts, lead, summary, live
line, heatmap and load tables), the serving section's validation, calibration and held-out tables, its crossover
brackets and its trust line, each held to the serving model's own numbers through the page's formatter.
Apart from :mod:`lab.checks.serving` so that module stays under the thousand lines a lab module may have; the family's
CHECKS name it there.
"""

import re

from .. import serving, serving_calibration
from ..jsformat import to_fixed
from . import cells_difference, close, phrase_missing, readout_difference, table_cells, views_at
from ..stats import median

__all__ = ["READOUT_SETTINGS", "TRUST_SETTINGS", "body_cells", "readouts_match_model"]


# --- the widget's readouts ---------------------------------------------------------------------

# Form values for the widget (lab.widgets.serving): its defaults, both ends of every slider and the
# selects that change how its view speaks (step model, draft, engine, precision, a measured curve).
READOUT_SETTINGS = (
    {},
    {"lookahead": "1", "acceptance": "0", "batchExp": "10", "contextExp": "17"},
    {"lookahead": "12", "acceptance": "100", "batchExp": "0", "contextExp": "9"},
    {"treeTokens": "64", "batchExp": "6"},
    {"treeTokens": "13", "lookahead": "12", "batchExp": "8", "gpu": "a100-80g"},
    {"stepModel": "roofline", "memEfficiency": "10", "flopEfficiency": "100", "overheadMs": "5", "requestOutputTokens": "16"},
    {"stepModel": "operators", "draft": "ngram", "gpus": "8", "precision": "fp8", "requestOutputTokens": "2048",
     "memEfficiency": "100", "flopEfficiency": "10", "overheadMs": "0"},
    {"engine": "sglang", "target": "llama-3-70b", "gpus": "4", "batchExp": "3"},
    {"engine": "vllm-v0", "attentionFlops": "1", "batchExp": "4"},
    {"srvCurve": "custom:0.9,0.7,0.5", "lookahead": "5", "batchExp": "2"},
    {"requestOutputTokens": "16", "gpus": "8"},   # the load table past 1,000 requests/s and its curves crossing there
    {"target": "deepseek-v3", "gpus": "8"},  # not even the weights fit: the limit named, no speedup claimed
)


def _widget_settings(widget, values: dict):
    """The serving model's settings for the widget's form ``values``, built here from the widget's
    declared defaults (not from the view): batch and context are 2 ** their sliders."""
    p = {**{s.name: s.default for s in widget.SLIDERS}, **{c.name: c.default for c in widget.SELECTS}, **values}
    return serving.ServingSettings(
        target=p["target"], draft=p["draft"], gpu=p["gpu"], precision=p["precision"], gpus=int(p["gpus"]),
        lookahead=int(p["lookahead"]), acceptance=float(p["acceptance"]), memEfficiency=float(p["memEfficiency"]),
        flopEfficiency=float(p["flopEfficiency"]), overheadMs=float(p["overheadMs"]), batch=2 ** int(p["batchExp"]),
        context=2 ** int(p["contextExp"]), attentionFlops=p["attentionFlops"] == "1",
        requestOutputTokens=int(p["requestOutputTokens"]), stepModel=p["stepModel"], treeTokens=int(p["treeTokens"]),
        engine=p["engine"])


def _rate_text(rate: float) -> str:
    """A request rate to three significant figures, with thousands separators and no exponent: 1188.5
    is '1,190', 0.0667 is '0.0667' (written here, apart from the widget's rate_label)."""
    rounded = float(f"{rate:.3g}")
    return f"{int(round(rounded)):,}" if rounded >= 1000 else f"{rate:.3g}"


def _chain_tokens(alpha: float, k: int, curve=None) -> float:
    """Tokens per verifier call of a chain, summed here: ``1 + sum_i prod_{j <= i} a_j`` (a_j = alpha,
    or the curve with its last rate repeated)."""
    total, survive = 1.0, 1.0
    for i in range(k):
        survive *= alpha if curve is None else curve[min(i, len(curve) - 1)]
        total += survive
    return total


def _tail_runs(tail_cache: dict) -> dict:
    """The exact lab's default setting, and (kept in ``tail_cache``) the tail panel's runs at it and its
    seed's own speedup, from lab.serving.tail and lab.sampler.generate_trace."""
    from ..sampler import generate_trace
    from ..urlstate import EXACT_SLIDERS

    exact = {slider.name: int(slider.default) for slider in EXACT_SLIDERS}
    if "tail" not in tail_cache:
        tail_cache["tail"] = serving.tail(exact["certainty"], exact["match"], exact["gamma"], exact["length"],
                                          exact["draftCost"])
        trace = generate_trace(exact["certainty"], exact["match"], exact["gamma"], exact["length"], exact["seed"])
        tail_cache["seed"] = exact["length"] / (trace.targetCalls + trace.draftCalls * exact["draftCost"] / 100)
    return exact


def _serving_expected(widget, values: dict, tail_cache: dict) -> dict:
    """Every readout of the serving widget for form ``values``, from the model's own functions."""
    s = _widget_settings(widget, values)
    curve = tuple(float(a) for a in values["srvCurve"][len("custom:"):].split(",")) if "srvCurve" in values else None
    if curve is not None:  # continued past its measured positions by the acceptance model, as the widget runs it
        curve = serving.received_curve(curve, None, s.lookahead)
    r = serving.serving(s, curve)
    crossover = serving.crossover_batch(s, curve=curve)
    limit = max(1, min(serving.MAX_BATCH, int(serving.max_batch_in_memory(s))))
    need, have = serving.memory_needed_bytes(s), serving.memory_available_bytes(s)
    cross = serving.curves_cross(s.with_(batch=1), widget.LOAD_RATES, curve)
    readouts = _expected_readouts(s, r, (crossover, limit, need, have, cross), tail_cache)
    best_k, best_speedup = serving.best_lookahead(s, curve=curve)
    table = _expected_heatmap_table(widget, s, curve, have)
    load = _expected_load_table(widget, s, curve)
    phrases, live = _expected_lead_and_live(s, r, crossover, limit, have)
    f = to_fixed
    summary = [f"a plain step takes {f(r.plainStepMs, 2)} ms", f"({f(r.draftStepMs, 2)} ms each",
               f"one verify step ({f(r.verifyStepMs, 2)} ms", f"commits {f(r.tokensPerCall, 2)} tokens per sequence",
               f"a token costs {f(r.specMsPerToken, 2)} ms instead of {f(r.plainMsPerToken, 2)} ms: {f(r.speedup, 2)}x",
               f"The best lookahead here is {best_k} ({f(best_speedup, 2)}x"
               # a best k that rounds to the shown k's speedup gives both to three places (a reader sees two equal)
               + (f", {f(best_speedup, 3)}x against k = {s.lookahead}'s {f(r.speedup, 3)}x"
                  if best_k != s.lookahead and f(best_speedup, 2) == f(r.speedup, 2) else "")
               # at the widget's longest k it says a longer one may pay more
               + (f"); k = {best_k} is the longest lookahead this widget tries" if best_k >= widget.LONGEST_K else ").")]
    return {"result": r, "settings": s, "curve": curve, "readouts": readouts, "table": table, "load": load,
            "lead": phrases, "summary": summary, "live": live}


def _expected_readouts(s, r, model: tuple, tail_cache: dict) -> dict:
    """The readouts as the model gives them: the step times, tokens per call and speedup, throughputs, regimes,
    crossover, effective batch, memory, the load curves' crossing and the tail's runs (the exact lab's, rerun).
    ``model`` is (crossover, the largest batch that fits, memory needed, memory held, the load curves' crossing)."""
    crossover, limit, need, have, cross = model
    exact = _tail_runs(tail_cache)
    runs, f = tail_cache["tail"], to_fixed
    verified = s.treeTokens if s.treeTokens else s.lookahead + 1
    return {
        "batch": str(s.batch), "context": str(s.context),
        "plainStepMs": f(r.plainStepMs, 3), "draftStepMs": f(r.draftStepMs, 3), "verifyStepMs": f(r.verifyStepMs, 3),
        "tokensPerCall": f(r.tokensPerCall, 3), "speedup": f(r.speedup, 3),
        "plainTokensPerSecond": f"{r.plainTokensPerSecond:,.0f}", "specTokensPerSecond": f"{r.specTokensPerSecond:,.0f}",
        "ridge": f(r.effectiveRidgeFlopsPerByte, 1), "regime": f"plain {r.plainRegime}, verify {r.verifyRegime}",
        "crossover": ("no batch fits" if serving.max_batch_in_memory(s) < 1 else f"none up to {limit}"
                      if crossover is None else str(crossover)),
        "effectiveBatch": str(s.batch * verified),
        "memory": f"{need / 1e9:,.0f} of {have / 1e9:,.0f} GB",
        "loadCross": "nowhere" if cross is None else f"{_rate_text(cross)} req/s",
        "tailRange": f"{f(runs['minimum'], 2)}x to {f(runs['maximum'], 2)}x",
        "tailMiddle": f"{f(runs['p05'], 2)}x / {f(runs['median'], 2)}x / {f(runs['p95'], 2)}x",
        "tailPrediction": f"{f(runs['prediction'], 2)}x",
        "tailSeed": f"seed {exact['seed']}: {f(tail_cache['seed'], 2)}x",
        "gapP50": f"{f(runs['gapP50'], 2)} (plain {f(runs['plainGapP50'], 2)})",
        "gapP99": f"{f(runs['gapP99'], 2)} (plain {f(runs['plainGapP99'], 2)})",
    }


def _expected_heatmap_table(widget, s, curve, have: float) -> list:
    """The heatmap table's cells: the speedup at each batch and context (batch 1 to 1024, context 512 up), or "does
    not fit" where a cell's weights and KV caches exceed GPU memory."""
    f = to_fixed
    grid = serving.speedup_grid(s.with_(batch=1, context=512, requestOutputTokens=widget.DEFAULT.requestOutputTokens), curve=curve)
    # a cell whose weights and KV caches exceed GPU memory prints no speedup
    return [f(grid[row][column], 2)
            if serving.memory_needed_bytes(s.with_(batch=batch, context=context)) <= have else "does not fit"
            for row, context in reversed(list(enumerate(serving.HEATMAP_CONTEXTS)))
            for column, batch in enumerate(serving.HEATMAP_BATCHES)]


def _expected_load_table(widget, s, curve) -> list:
    """The load table's cells: each rate, plain and speculative latency (or "overloaded") and their ratio, up to the
    first rate both overload at."""
    f = to_fixed
    plain = serving.latency_curve(s.with_(batch=1), widget.LOAD_RATES, False, curve)
    spec = serving.latency_curve(s.with_(batch=1), widget.LOAD_RATES, True, curve)
    load = []
    for rate, p, q in zip(widget.LOAD_RATES, plain, spec):  # every rate up to the first both overload at
        load += [_rate_text(rate), "overloaded" if p is None else f(p, 2), "overloaded" if q is None else f(q, 2),
                 "" if p is None or q is None else f(p / q, 2)]
        if p is None and q is None:
            break
    return load


def _expected_lead_and_live(s, r, crossover, limit: int, have: float) -> tuple:
    """(the lead's phrases, the live line's): the speedup at the batch and where it stops paying; where nothing runs,
    the weights and the GPUs, and no speedup."""
    f = to_fixed
    phrases = [f"runs {f(r.speedup, 2)}x", f"batch {s.batch}",
               f"stops paying at batch {crossover}" if crossover is not None else f"(up to {limit})"]
    live = [f"{f(r.speedup, 2)}x", f"at batch {s.batch}"]
    if serving.max_batch_in_memory(s) < 1:  # nothing runs: the lead names the weights and the GPUs, no speedup
        precision = serving.PRECISIONS[s.precision]
        weights = sum(shape.params * precision.bytes for shape in (serving.TARGETS[s.target], serving.draft_shape(s))
                      if shape is not None)
        gpus = f"{s.gpus} x {serving.GPUS[s.gpu].label}"
        phrases = [f"does not fit on {gpus}", f"alone need {weights / 1e9:,.0f} GB in {precision.label}",
                   f"more than the {have / 1e9:,.0f} GB they hold", "no speedup is claimed"]
        live = [f"does not fit: {gpus} hold {have / 1e9:,.0f} GB"]
    return phrases, live


def _readout_mismatch(view: dict, expected: dict, where: str) -> str | None:
    """The first readout, lead, summary or table cell of ``view`` that differs from ``expected``."""
    return (readout_difference(where, view["readouts"], expected["readouts"])
            or phrase_missing(where, view, {part: expected[part] for part in ("lead", "summary", "live")})
            or cells_difference(where, "table", table_cells(view["figures"]["table"]), expected["table"])
            or cells_difference(where, "loadTable", body_cells(view["figures"]["loadTable"]), expected["load"])
            or _heatmap_marks_mismatch(view["figures"]["heatmap"], expected["table"], where)
            or _crossover_mark_mismatch(view["figures"]["batch"], expected["readouts"]["crossover"], where))


# The batch figure's crossover line: drawn exactly when the model's crossover batch lies within the sweep drawn
# (batch 1 to the description's last), at that batch on the log batch axis its labels set; and, since a readouts
# setting seldom puts the crossover at the sweep's very last batch, the figure drawn with its crossover there too.
_CROSS = re.compile(r'<line x1="([0-9.]+)" x2="[0-9.]+" y1="[0-9.]+" y2="[0-9.]+" class="srv-cross"')


def _crossover_mark_mismatch(svg: str, crossover: str, where: str) -> str | None:
    """The batch figure's crossover line against the model's ``crossover`` readout (see above), or None."""
    import math

    from ..serving_figures import batch_svg

    high = int(re.search(r"against batch 1 to ([0-9]+)", svg).group(1))
    labels = [(float(x), int(b)) for x, b in re.findall(
        r'<text class="fig-tick" x="([0-9.]+)" y="[0-9.]+" text-anchor="middle">([0-9]+)</text>', svg)]
    (x0, b0), (x1, b1) = labels[0], labels[-1]
    batch_x = lambda b: x0 + (math.log(b) - math.log(b0)) / (math.log(b1) - math.log(b0)) * (x1 - x0)  # noqa: E731
    lines = [float(x) for x in _CROSS.findall(svg)]
    drawn = crossover.isdigit() and int(crossover) <= high
    if bool(lines) != drawn or (drawn and abs(lines[0] - batch_x(int(crossover))) > 0.15):
        return f"{where}: the batch figure's crossover line {lines[:1]} is not the model's crossover {crossover}"
    rows = [{"batch": 2 ** e, "speedup": 2.0 - 0.15 * e, "plainTokensPerSecond": 100.0 * 2 ** e,
             "specTokensPerSecond": 100.0 * 2 ** e * (2.0 - 0.15 * e)} for e in range(11)]  # 1x crossed at 1024
    if not _CROSS.findall(batch_svg(rows, 1, 1024)):
        return "the batch figure draws no crossover line for a crossover at the sweep's last batch (1024)"
    return None


# The heatmap's rows run bottom-up (the longest context on top), as the table's do top-down: the hover target must
# name its rows top row first and its columns left first, and every stroke of the "does not fit" hatch must cross
# a cell the table says does not fit (a stroke's midpoint, in the cells the hover target spans). The table's cells
# alone did not see a hatch drawn on the mirrored rows or hover names in the wrong order (the second outsider's
# mutation sweep, docs/CHECKS.md).
_HITS = re.compile(r'<rect class="srv-hits" x="([0-9.]+)" y="([0-9.]+)" width="([0-9.]+)" height="([0-9.]+)"')
_STROKE = re.compile(r"M([0-9.]+) ([0-9.]+)L([0-9.]+) ([0-9.]+)")


def _context_label(tokens: int) -> str:
    """A context as the heatmap names its row, written out here rather than borrowed from the figure: 4096 is "4k".

    >>> _context_label(4096), _context_label(512), _context_label(1536)
    ('4k', '512', '1536')
    """
    return f"{tokens // 1024}k" if tokens >= 1024 and tokens % 1024 == 0 else str(tokens)


def _heatmap_marks_mismatch(svg: str, table: list, where: str) -> str | None:
    """The serving heatmap's hover names and hatch against the table's cells (``table``, top row first), or None."""
    from . import tip_axis

    contexts, batches = serving.HEATMAP_CONTEXTS, serving.HEATMAP_BATCHES
    if (tip_axis(svg, "rows") != [_context_label(c) for c in reversed(contexts)]
            or tip_axis(svg, "cols") != [str(b) for b in batches]):
        return f"{where}: the heatmap's hover target names its rows or columns out of the grid's order"
    left, top, width, height = (float(v) for v in _HITS.search(svg).groups())
    cell_w, cell_h, cols = width / len(batches), height / len(contexts), len(batches)
    hatch = re.search(r'class="srv-nofit" d="([^"]*)"', svg)
    strokes = _STROKE.findall(hatch.group(1)) if hatch else []
    if bool(strokes) != ("does not fit" in table):
        return f"{where}: the heatmap {'hatches' if strokes else 'does not hatch'} cells, the table disagrees"
    for stroke in strokes:
        x1, y1, x2, y2 = (float(v) for v in stroke)
        row, column = int(((y1 + y2) / 2 - top) // cell_h), int(((x1 + x2) / 2 - left) // cell_w)
        if table[row * cols + column] != "does not fit":
            return (f"{where}: the hatch crosses the cell of context {_context_label(contexts[-1 - row])} and batch "
                    f"{batches[column]}, which fits ({table[row * cols + column]}x)")
    return None


def body_cells(html: str) -> list[str]:
    """The text of every cell of a table's body, row headers (``<th scope="row">``) included, in
    document order.

    >>> body_cells('<thead><tr><th>a</th></tr></thead><tbody><tr><th scope="row">1,190</th><td>2.00</td></tr></tbody>')
    ['1,190', '2.00']
    """
    import re

    body = html.split("<tbody>", 1)[-1]
    return re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", body)


# Settings whose trust line the check rebuilds: the default (today's V1: no validation row), the engine and family
# of the batch-one rows on an H100 (EAGLE-1 and EAGLE-3 rows are apart: another draft), a mixture of experts on the
# same engine (no row), the SGLang MTP rows' family (DeepSeek-V3 on H200s, batch 16), an assumed GPU and the
# idealised step model.
TRUST_SETTINGS = (
    {},
    {"engine": "vllm-v1-0.10", "gpu": "h100-sxm", "target": "llama-3-8b", "draft": "eagle-head", "gpus": "1"},
    {"engine": "vllm-v1-0.10", "gpu": "a100-40g", "target": "llama-3-8b", "draft": "eagle-head", "gpus": "1"},
    {"engine": "vllm-v1-0.10", "gpu": "h100-sxm", "target": "qwen3-30b-a3b", "draft": "eagle-head", "gpus": "1"},
    {"engine": "sglang-no-overlap", "gpu": "h200", "target": "deepseek-v3", "draft": "eagle-head", "gpus": "8",
     "precision": "fp8"},
    {"gpu": "b200"},
    # an assumed calibration with rows of its own (today's V1, a dense hybrid, its MTP layer), and the same GPU with a
    # softmax-only dense target, which those rows do not vouch for
    {"engine": "vllm-v1", "gpu": "b200", "target": "qwen3.8-27b", "draft": "eagle-head", "gpus": "1"},
    {"engine": "vllm-v1", "gpu": "b200", "target": "llama-3-8b", "draft": "eagle-head", "gpus": "1"},
    {"stepModel": "operators"},
)


def _trust_mismatch(widget, values: dict, rows) -> str | None:
    """The trust line at ``values`` against the validation ``rows`` of its own engine, GPU calibration, kind
    of target and draft, selected here: with rows, it states their median error and count; with none (or an
    assumed GPU, or no calibration), it says "not validated" and prints no error band."""
    s = _widget_settings(widget, values)
    shown = widget.view(dict(values))["readouts"]["crossoverTrust"]
    where = f"trust line at {values or 'defaults'}"
    if s.stepModel != serving.MEASURED:
        return None if "not a prediction" in shown and "%" not in shown else f"{where}: {shown!r}"
    cal = serving_calibration.CALIBRATIONS[s.gpu]
    kind = widget.target_kind(s.target)
    same = [r for r in rows if r["engine"] == s.engine and serving_calibration.CALIBRATIONS[r["gpu"]] is cal
            and widget.target_kind(r["target"]) == kind and r["draft"] == s.draft]
    if not cal.measured and "assumed" not in shown:
        return f"{where}: {shown!r} does not say the GPU's calibration is assumed"
    if not same:
        return None if "not validated" in shown and "%" not in shown else f"{where}: {shown!r} borrows a band"
    error = median([abs(r["predicted"] / r["measured"] - 1) for r in same])
    want = f"off by {to_fixed(100 * error, 0)}% (median) on {len(same)} published speedups"
    above = sum(r["predicted"] > r["measured"] for r in same)  # which way it errs: more than half, fewer, or half
    lean = (f", {above} of {len(same)} predicted above their measurement (optimistic)" if 2 * above > len(same) else
            f", {len(same) - above} of {len(same)} predicted below their measurement" if 2 * above < len(same) else
            ", half predicted above their measurement and half below")
    return None if want in shown and f"for this family{lean};" in shown else f"{where}: {shown!r} does not say " \
                                                                            f"{want!r} and {lean!r}"


def _rows_of(html: str) -> list[list[str]]:
    """Each body row of a table as the text of its cells (row headers included)."""
    import re

    body = html.split("<tbody>", 1)[-1]
    return [re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", row) for row in re.findall(r"<tr>(.*?)</tr>", body)]


def _tables_mismatch(widget) -> str | None:
    """The first number of the serving section's validation table and summary, calibration table, held-out
    steps and crossover brackets (figure and prose) that differs from the model's, recomputed here."""
    from .. import serving_validation

    context = widget._validation_context()
    rows = serving_validation.comparison()
    failure = (_validation_mismatch(context, rows) or _calibration_mismatch(context)
               or _scoring_growth_mismatch(widget) or _bracket_ratios_mismatch(context) or _brackets_mismatch(context))
    if failure:
        return failure
    for values in TRUST_SETTINGS:
        failure = _trust_mismatch(widget, values, rows)
        if failure:
            return failure
    return None


def _validation_mismatch(context: dict, rows: list) -> str | None:
    """The validation table (each published speedup's acceptance length, measured and predicted speedups and
    their ratio) and its summary against the model's comparison ``rows``."""
    from .. import serving_validation

    f = to_fixed
    table = _rows_of(context["table"])
    if len(table) != len(serving_validation.VALIDATION):
        return f"validation table: {len(table)} rows for {len(serving_validation.VALIDATION)} published speedups"
    for i, (cells, row) in enumerate(zip(table, rows), 1):
        want = [str(i), f(row["acceptanceLength"], 2), f(row["measured"], 2), f(row["predicted"], 2),
                f(row["predicted"] / row["measured"], 2)]
        got = [cells[0], *cells[3:7]]
        if got != want:
            return f"validation table row {i}: {got} where the model gives {want}"
    ratios = [row["predicted"] / row["measured"] for row in rows]
    summary = {"points": len(ratios), "median": f(median(ratios), 2),
               "worst": f(max(ratios, key=lambda r: max(r, 1 / r)), 2),
               "medianError": f(100 * median([abs(r - 1) for r in ratios]), 0), "above": sum(r > 1 for r in ratios)}
    if context["summary"] != summary:
        return f"validation summary {context['summary']} where the rows give {summary}"
    engines = {}
    for row in rows:  # each engine's summary apart, in the order the rows first name it
        engines.setdefault(row["engine"], []).append(row["predicted"] / row["measured"])
    want = [{"engine": serving.ENGINES[e].label, "points": len(r), "medianError": f(100 * median([abs(x - 1) for x in r]), 0),
             "above": sum(x > 1 for x in r)} for e, r in engines.items()]
    if [{key: e[key] for key in want[0]} for e in context["engines"]] != want:
        return f"validation by engine {context['engines']} where the rows give {want}"
    return _validation_figure_mismatch(context["figure"], rows)


def _validation_figure_mismatch(figure: str, rows: list) -> str | None:
    """The predicted-against-measured figure: its description names each row's measured and predicted speedups, and
    each dot sits on its row's side of the diagonal (above it where the prediction is the larger; the figure's
    x + y is smaller there, its y axis pointing down)."""
    from . import unescape

    f = to_fixed
    figure = unescape(figure)
    spoken = " ".join(f"Row {i}: measured {f(r['measured'], 2)}x, predicted {f(r['predicted'], 2)}x."
                      for i, r in enumerate(rows, 1))
    if spoken not in figure:
        return "the validation figure's description does not give each row's measured and predicted speedups"
    x0, y0 = (float(v) for v in re.search(r'<path class="srv-one" d="M([0-9.]+) ([0-9.]+)L', figure).groups())
    dots = [(float(x), float(y)) for x, y in re.findall(r'<circle class="k-speculative" cx="([0-9.]+)" cy="([0-9.]+)"', figure)]
    for i, ((x, y), r) in enumerate(zip(dots, rows), 1):
        side = (x0 + y0) - (x + y)   # > 0: above the diagonal
        if abs(r["predicted"] / r["measured"] - 1) > 0.02 and (side > 0) != (r["predicted"] > r["measured"]):
            return f"the validation figure's dot {i} is on the wrong side of the diagonal for ratio {r['predicted'] / r['measured']:.3f}"
    return None if len(dots) == len(rows) else f"the validation figure draws {len(dots)} dots for {len(rows)} rows"


def _calibration_mismatch(context: dict) -> str | None:
    """The calibration table (each measured step against the model's) and the held-out steps (how far off, which
    way) against the model."""
    from .. import serving_validation

    f = to_fixed
    calibration = _rows_of(context["calibration"])
    measurements = serving_calibration.STEP_MEASUREMENTS
    if len(calibration) != len(measurements):
        return f"calibration table: {len(calibration)} rows for {len(measurements)} step measurements"
    for i, (cells, m) in enumerate(zip(calibration, measurements), 1):
        model = serving_validation.step_measurement_ms(m)
        want = [str(m.batch), str(m.newTokens), f(m.ms, 2), f(model, 2), f(model / m.ms, 2)]
        if cells[2:7] != want:
            return f"calibration table row {i}: {cells[2:7]} where the model gives {want}"
    for shown, m in zip(context["heldOutSteps"], serving_validation._held_out_steps()):
        ratio = serving_validation.step_measurement_ms(m) / m.ms
        want = {"ms": f(m.ms, 2), "percent": f(100 * abs(ratio - 1), 0), "direction": "slow" if ratio > 1 else "fast"}
        if {key: shown[key] for key in want} != want:
            return f"held-out step {shown} where the model gives {want}"
    return None


def _bracket_ratios_mismatch(context: dict) -> str | None:
    """The range of the brackets' crossover over first loss, and the EAGLE-3 cycle in plain steps, against the
    sweeps and the model."""
    from .. import serving_validation

    f = to_fixed
    central = [row["crossovers"][0] / row["high"] for row in serving_validation.crossover_comparison()
               if row["crossovers"][0] is not None]
    ratios = {"low": f(min(central), 1), "high": f(max(central), 1)} if central else {"low": "", "high": ""}
    if context["bracketRatios"] != ratios:
        return f"brackets' crossover over first loss {context['bracketRatios']} where the sweeps give {ratios}"
    cycle = serving_validation.eagle3_cycle_in_plain_steps()
    if context["eagle3Cycle"] != {key: v if key == "lookahead" else f(v, 2) for key, v in cycle.items()}:
        return f"EAGLE-3 cycle in plain steps {context['eagle3Cycle']} where the model and the fit give {cycle}"
    return None


def _brackets_mismatch(context: dict) -> str | None:
    """Each crossover bracket as the page says it (sequences that fit, its first quoted batch, the model's
    crossover at each acceptance length, in the figure too) against the model."""
    from .. import serving_validation
    from . import unescape

    f = to_fixed
    figure = unescape(context["bracketsFigure"])
    dots = iter(_bracket_dots(figure))
    for shown, bracket in zip(context["brackets"], serving_validation.CROSSOVER_BRACKETS):
        runs = []
        for length in bracket.acceptanceLengths:
            settings = serving.DEFAULT_SETTINGS.with_(
                gpu=bracket.gpu, target=bracket.target, draft=bracket.draft, gpus=bracket.gpus,
                lookahead=bracket.lookahead, context=bracket.context, stepModel=serving.MEASURED, engine=bracket.engine,
                acceptance=100 * serving_validation.alpha_for_length(length, bracket.lookahead))
            found = serving.crossover_batch(settings)
            runs.append({"length": f(length, 2), "crossover": "none" if found is None else str(found)})
        fits = max(1, min(serving.MAX_BATCH, int(serving.max_batch_in_memory(settings))))
        if shown["fits"] != fits:
            return f"bracket {bracket.label!r}: the page says {shown['fits']} sequences fit on its GPU, the model {fits}"
        smallest = serving_validation.smallest_batch_speedups(bracket)
        want = None if smallest is None else {"batch": smallest["batch"], "measured": f(smallest["measured"], 2),
                                              "model": f(smallest["model"], 2)}
        if shown["smallest"] != want:
            return f"bracket {bracket.label!r}: the page's first quoted batch {shown['smallest']}, the model's {want}"
        if shown["runs"] != runs or (shown["low"], shown["high"]) != (bracket.low, bracket.high):
            return f"bracket {bracket.label!r}: the page says {shown['runs']} in ({shown['low']}, {shown['high']}], " \
                   f"the model {runs} in ({bracket.low}, {bracket.high}]"
        spoken = ", ".join(f"{run['crossover']} at acceptance length {run['length']}" for run in runs)
        if f"first loss above batch {bracket.low} and by {bracket.high}; the model's crossover {spoken}." not in figure:
            return f"the brackets figure does not say {bracket.label!r}'s crossovers {spoken}"
        dot_x, batch_x = next(dots, (None, None))
        central = runs[0]["crossover"]
        if dot_x is None or (central != "none" and abs(dot_x - batch_x(int(central))) > 0.15):
            return f"the brackets figure's dot for {bracket.label!r} is not at its central crossover {central}"
    return None


# Each sweep's dot marks the model's crossover at the sweep's central acceptance (its first acceptance length),
# the line's other ticks the others': the dot must sit at that batch on the figure's log2 batch axis, read from
# the axis' own labels (the prose above names the crossovers, not where the dot is drawn).
_BATCH_LABEL = re.compile(r'<text class="fig-tick" x="([0-9.]+)" y="[0-9.]+" text-anchor="middle">([0-9]+)</text>')
_DOT = re.compile(r'<circle class="k-speculative(?: srv-open-dot)?" cx="([0-9.]+)"')


def _bracket_dots(figure: str) -> list:
    """(each dot's x, the batch axis as a function of batch -> x), in the figure's order."""
    import math

    labels = [(float(x), int(batch)) for x, batch in _BATCH_LABEL.findall(figure)]
    (x0, b0), (x1, b1) = labels[0], labels[-1]
    batch_x = lambda batch: x0 + (math.log2(batch) - math.log2(b0)) / (math.log2(b1) - math.log2(b0)) * (x1 - x0)  # noqa: E731
    return [(float(x), batch_x) for x in _DOT.findall(figure)]


def _scoring_growth_mismatch(widget) -> str | None:
    """The roofline paragraph's measured-against-roofline growth (the widget's scoringGrowth), recomputed
    here: pull request 5691's MQA scoring rows, the first and the last whose pass stays below the GPU's BF16 ridge,
    and the whole-step roofline written out by hand at the widget's default efficiencies."""
    f = to_fixed
    rows = [m for m in serving_calibration.STEP_MEASUREMENTS if "pull request 5691" in m.source and m.kind == "pass"]
    gpu = serving.GPUS[rows[0].gpu]
    below = [m for m in rows if m.batch * m.newTokens < gpu.bf16 / gpu.bandwidth]
    low, high = below[0], below[-1]
    s = serving.DEFAULT_SETTINGS
    shape, precision = serving.TARGETS[low.target], serving.PRECISIONS[low.precision]

    def roofline_ms(m):
        memory = (serving.weight_bytes(shape, precision) + m.batch * m.context * serving.kv_bytes_per_token(shape, precision)) \
            / (m.gpus * gpu.bandwidth * s.memEfficiency / 100)
        compute = 2 * serving.parameter_count(shape) * m.batch * m.newTokens / (m.gpus * gpu.bf16 * s.flopEfficiency / 100)
        return 1000 * max(memory, compute) + s.overheadMs

    want = {"lowBatch": low.batch, "lowMs": f(low.ms, 1), "highBatch": high.batch, "highMs": f(high.ms, 1),
            "tokens": low.newTokens, "passTokens": high.batch * high.newTokens,
            "measuredGrowth": f(100 * (high.ms / low.ms - 1), 0),
            "rooflineGrowth": f(100 * (roofline_ms(high) / roofline_ms(low) - 1), 0)}
    shown = widget._prose_context()["scoringGrowth"]
    if {key: shown.get(key) for key in want} != want:
        return f"roofline paragraph's scoring growth {shown} where the rows and the roofline give {want}"
    return None


def readouts_match_model(out):
    """Every readout, the lead's and summary's numbers, every cell of the heatmap and load tables of
    the serving widget, and every number of the validation table and its summary, the calibration table,
    the held-out steps, the EAGLE-3 cycle in plain steps (fit, model, rows), the crossover brackets (figure
    and prose) and the trust line (per engine and family; "not validated" with no band where no row exists)
    equal the serving model's own numbers through the page's formatter (lab.jsformat.to_fixed), at the
    defaults, both ends of every slider, each step model, draft kind, engine and a measured curve; the identities hold (tokens per call = 1 + a + ... + a^k, a chain's
    effective batch is B x (k + 1), speedup = plain ms per token / speculative ms per token), and a
    tree-tokens setting changes the verify step."""
    from ..widgets import serving as widget

    tail_cache: dict = {}
    _tail_runs(tail_cache)  # the tail panel's 300 seeded runs, in a step of their own
    yield
    for values, where, view in views_at(out, widget, READOUT_SETTINGS):
        expected = _serving_expected(widget, values, tail_cache)
        failure = _readout_mismatch(view, expected, where)
        if failure:
            return out.fail(failure)
        if "no speedup is claimed" in expected["lead"] and f"{to_fixed(expected['result'].speedup, 2)}x" in view["lead"]:
            return out.fail(f"{where}: nothing fits, yet the lead claims a speedup: {view['lead']!r}")
        r, s, curve = expected["result"], expected["settings"], expected["curve"]
        if s.treeTokens == 0 and not close(r.tokensPerCall, _chain_tokens(s.acceptance / 100, s.lookahead, curve), 1e-9):
            return out.fail(f"{where}: tokens per call {r.tokensPerCall} is not 1 + a + ... + a^k = "
                            f"{_chain_tokens(s.acceptance / 100, s.lookahead, curve)}")
        if not close(r.speedup, r.plainMsPerToken / r.specMsPerToken, 1e-9):
            return out.fail(f"{where}: speedup {r.speedup} is not plain / speculative ms per token")
        yield  # a pause: the browser answers a reader between two settings
    # A tree verifies more tokens than the chain: at a compute-bound batch its verify step costs more.
    chain = _widget_settings(widget, {"batchExp": "10", "contextExp": "9"})
    tree = chain.with_(treeTokens=64)
    out.visited += 1
    if not serving.serving(tree).verifyStepMs > serving.serving(chain).verifyStepMs:
        return out.fail(f"64 tree tokens at batch 1024 do not cost more to verify than the chain's k + 1 = "
                        f"{chain.lookahead + 1} ({serving.serving(tree).verifyStepMs} ms vs "
                        f"{serving.serving(chain).verifyStepMs} ms)")
    tree_view, chain_view = widget.view({"batchExp": "10", "contextExp": "9", "treeTokens": "64"}), widget.view(
        {"batchExp": "10", "contextExp": "9"})
    if tree_view["readouts"]["verifyStepMs"] == chain_view["readouts"]["verifyStepMs"]:
        return out.fail("the widget's tree-tokens setting does not change its verify step readout")
    yield
    # The tables of "How well the serving model predicts" and the trust line, each number recomputed.
    out.visited += 1
    failure = _tables_mismatch(widget)
    if failure:
        return out.fail(failure)

