"""Each engine's default share of GPU memory for weights and KV cache (lab.serving_calibration.engine_memory_bytes),
as read in each engine's code: vLLM's gpu_memory_utilization 0.9 of the memory, SGLang's mem_fraction_static derived
from the GPU's memory and the TP size (server_args.py), TensorRT-LLM's free_gpu_memory_fraction 0.9 of what the weights
leave free. Each test fails if an engine is given another engine's rule or a rule loses a term."""

import pytest

from lab import serving
from lab import serving_calibration as cal

MIB = 2 ** 20


def _by_hand(mem_mib, tp, reserve_mib):
    """SGLang's _handle_gpu_memory_settings written out again for the buckets used below."""
    if mem_mib < 35 * 1024:
        chunk, graphs = 2048, 80 if tp >= 4 else 24
    elif mem_mib < 60 * 1024:
        chunk, graphs = 4096, 160 if tp >= 4 else 32
    elif mem_mib < 160 * 1024:
        chunk, graphs = 8192, 512 if tp >= 4 else 256
    else:
        chunk, graphs = 16384, 512
    reserved = 512 + 1.5 * chunk + 2 * graphs + tp * 128
    if mem_mib > 60 * 1024:
        reserved = max(reserved, 10240)
    return round((mem_mib - reserved - reserve_mib) / mem_mib, 3)


@pytest.mark.parametrize("gpu", sorted(serving.GPUS))
@pytest.mark.parametrize("tp", [1, 2, 4, 8])
def test_sglang_fraction_follows_its_code_for_every_gpu_and_tp(gpu, tp):
    memory = serving.GPUS[gpu].memory
    for draft, reserve in (("eagle", 2048), ("model", 6144), ("ngram", 0)):
        assert cal.sgl_mem_fraction_static(memory, tp, draft) == _by_hand(memory / MIB, tp, reserve), (draft,)


def test_the_sglang_fraction_moves_with_tp_memory_and_draft():
    h100 = serving.GPUS["h100-sxm"].memory
    assert cal.sgl_mem_fraction_static(h100, 8) < cal.sgl_mem_fraction_static(h100, 1)   # more GPUs keep more
    assert cal.sgl_mem_fraction_static(h100, 1, "model") < cal.sgl_mem_fraction_static(h100, 1, "eagle") \
        < cal.sgl_mem_fraction_static(h100, 1, "ngram")
    # above 60 GiB at least 10 GiB is kept; a 192 GB GPU gives a larger share than an 80 GB one
    assert cal.sgl_mem_fraction_static(serving.GPUS["b200"].memory, 1) > cal.sgl_mem_fraction_static(h100, 1)


def test_every_engine_shares_memory_by_its_own_rule():
    for name, engine in cal.ENGINES.items():
        assert engine.memoryRule == ("sglang" if name.startswith("sglang") else "trtllm" if name == "trtllm" else "vllm"), name


def test_the_three_rules_differ_as_their_semantics_say():
    """vLLM's share does not depend on the weights; TensorRT-LLM's is the weights plus 0.9 of what they leave, so a
    bigger model leaves it a smaller KV cache but a larger total; SGLang's is its fraction of the whole."""
    mem = 80e9
    assert cal.engine_memory_bytes("vllm", mem, 2, 10e9) == cal.engine_memory_bytes("vllm", mem, 2, 100e9) == 144e9
    assert cal.engine_memory_bytes("trtllm", mem, 2, 100e9) == pytest.approx(100e9 + 0.9 * 60e9)
    assert cal.engine_memory_bytes("trtllm", mem, 2, 10e9) == pytest.approx(10e9 + 0.9 * 150e9)
    assert cal.engine_memory_bytes("sglang", mem, 2, 10e9) == pytest.approx(
        160e9 * cal.sgl_mem_fraction_static(mem, 2))
    with pytest.raises(ValueError, match="valid: vllm, sglang, trtllm"):
        cal.engine_memory_bytes("tgi", mem, 1, 0.0)


def _settings(engine, **kw):
    fields = dict(stepModel=serving.MEASURED, target="llama-3-70b", gpu="h100-sxm", gpus=4, draft=serving.EAGLE,
                  context=8192, engine=engine)
    return serving.DEFAULT_SETTINGS.with_(**{**fields, **kw})


def test_the_batch_that_fits_is_each_engines_own():
    """Llama-3-70B with an EAGLE head on 4 H100s at 8k context: SGLang keeps more memory back than vLLM, so fewer
    sequences fit; the model's spare memory is exactly each engine's share less the weights."""
    from lab.serving_step import _models, weight_bytes

    vllm, sglang = _settings("vllm-v1"), _settings("sglang")
    weights = sum(weight_bytes(shape, serving.PRECISIONS["bf16"]) for shape in _models(vllm))
    assert serving.memory_available_bytes(vllm) == pytest.approx(4 * serving.GPUS["h100-sxm"].memory * 0.9)
    assert serving.memory_available_bytes(sglang) == pytest.approx(
        4 * serving.GPUS["h100-sxm"].memory * cal.sgl_mem_fraction_static(serving.GPUS["h100-sxm"].memory, 4))
    assert serving.max_batch_in_memory(sglang) < serving.max_batch_in_memory(vllm)
    ratio = (serving.memory_available_bytes(sglang) - weights) / (serving.memory_available_bytes(vllm) - weights)
    assert serving.max_batch_in_memory(sglang) / serving.max_batch_in_memory(vllm) == pytest.approx(ratio)
    # the roofline (datasheet) limit does not depend on the engine
    roof = dict(stepModel="roofline")
    assert serving.memory_available_bytes(_settings("sglang", **roof)) == \
        serving.memory_available_bytes(_settings("vllm-v1", **roof))


def test_an_sglang_engine_given_vllms_share_is_caught(monkeypatch):
    engines = dict(cal.ENGINES)
    engines["sglang"] = engines["sglang"]._replace(memoryRule="vllm")
    from mutation import replace_in_serving
    replace_in_serving(monkeypatch, "ENGINES", engines, cal)
    with pytest.raises(AssertionError):
        test_the_batch_that_fits_is_each_engines_own()


def test_docs_reading_quotes_each_engines_rule_and_the_h100_values():
    from pathlib import Path

    text = " ".join(Path("docs/READING.md").read_text().split())
    h100 = serving.GPUS["h100-sxm"].memory
    assert (cal.sgl_mem_fraction_static(h100, 1), cal.sgl_mem_fraction_static(h100, 8)) == (0.797, 0.779)
    assert "0.797 on an H100 (80 GB) at TP 1 with an EAGLE head, 0.779 at TP 8" in text
    for fragment in ("'gpu_memory_utilization: float = 0.90'", "sgl-project/sglang pull request 10975",
                     "free_gpu_memory_fraction` 0.9 of the memory the weights leave free"):
        assert fragment in text, fragment
