"""How much GPU memory each engine's defaults give to weights and KV cache (:func:`engine_memory_bytes`, by an engine's
``memoryRule``): vLLM's gpu_memory_utilization, SGLang's mem_fraction_static as its server derives it from the GPU's
memory and the TP size (:func:`sgl_mem_fraction_static`), TensorRT-LLM's free_gpu_memory_fraction of what the weights
leave free. Data and two functions, apart from :mod:`lab.serving_calibration` (which re-exports every name) so that
module stays under the thousand lines a lab module may have; it imports nothing of the lab's. What fits in that memory
is :mod:`lab.serving_memory`'s.
"""

__all__ = ["VLLM_GPU_MEMORY_UTILIZATION", "TRTLLM_FREE_GPU_MEMORY_FRACTION", "MIB", "sgl_mem_fraction_static",
           "engine_memory_bytes"]

# The share of GPU memory each engine gives to weights and KV cache, by default, read in each engine's code:
# - vLLM: gpu_memory_utilization 0.9 of each GPU's memory (vllm/engine/arg_utils.py, EngineArgs:
#   'gpu_memory_utilization: float = 0.90', read through the code index, id 32179759; vllm/config/cache.py's
#   CacheConfig keeps 0.9), out of which the weights and the KV cache are allocated.
# - SGLang: mem_fraction_static, '(model weights and KV cache memory pool)' of each GPU, derived from the GPU's memory
#   and the TP size when not given (sgl_mem_fraction_static).
# - TensorRT-LLM: KvCacheConfig.free_gpu_memory_fraction 0.9 'of GPU memory ... allocated for the KV cache'
#   (tensorrt_llm/llmapi/llm_args.py, 'Field(default=0.9, ge=0, le=1, ...)', read through the code index, id 7019226376):
#   a fraction of the memory still free once the weights are loaded, not of the whole (engine_memory_bytes).
VLLM_GPU_MEMORY_UTILIZATION = 0.9
TRTLLM_FREE_GPU_MEMORY_FRACTION = 0.9
MIB = 2 ** 20


def sgl_mem_fraction_static(memory_bytes: float, tp: int, draft: str = "eagle") -> float:
    """SGLang's default ``mem_fraction_static`` on a GPU of ``memory_bytes`` at tensor-parallel size ``tp``, speculating
    with ``draft`` ("eagle": an EAGLE or MTP head; "model": a draft model, SGLang's STANDALONE; "ngram"), as
    python/sglang/srt/server_args.py's ``_handle_gpu_memory_settings`` derives it (sgl-project/sglang pull request
    10975, 'General heuristics for --mem-fraction-static'; read through the code index, id 8356329), in MiB:
    ``chunked_prefill_size`` and ``cuda_graph_max_bs`` by memory bucket (< 20 GiB: 2048 and 8; < 35: 2048 and 24, 80
    from TP 4; < 60: 4096 and 32, 160 from TP 4; < 160: 8192 and 256, 512 from TP 4; above: 16384 and 512), then
    ``reserved = 512 + 1.5 max(chunk, 2048) + 2 cuda_graph_max_bs + tp / 8 x 1024``, at least 10 GiB above 60 GiB, plus
    2 GiB for an EAGLE draft or 6 GiB for a draft model, and ``round((memory - reserved) / memory, 3)``.

    >>> sgl_mem_fraction_static(80 * 2**30, 1), sgl_mem_fraction_static(80 * 2**30, 8)
    (0.811, 0.794)
    >>> sgl_mem_fraction_static(24 * 2**30, 1, "ngram"), sgl_mem_fraction_static(192 * 2**30, 8, "model")
    (0.847, 0.831)
    """
    mem = memory_bytes / MIB
    big_tp = tp >= 4
    if mem < 20 * 1024:
        chunk, graphs = 2048, 8
    elif mem < 35 * 1024:
        chunk, graphs = 2048, 80 if big_tp else 24
    elif mem < 60 * 1024:
        chunk, graphs = 4096, 160 if big_tp else 32
    elif mem < 160 * 1024:
        chunk, graphs = 8192, 512 if big_tp else 256
    else:
        chunk, graphs = 16384, 512
    reserved = 512 + max(chunk, 2048) * 1.5 + graphs * 2 + tp / 8 * 1024
    if mem > 60 * 1024:
        reserved = max(reserved, 10 * 1024)
    reserved += {"eagle": 2 * 1024, "model": 6 * 1024, "ngram": 0}[draft]
    return round((mem - reserved) / mem, 3)


def engine_memory_bytes(rule: str, memory_bytes: float, gpus: int, weights_bytes: float, draft: str = "eagle") -> float:
    """The memory an engine's defaults give to weights and KV cache on ``gpus`` GPUs of ``memory_bytes`` each
    (``rule``: a :class:`lab.serving_calibration.Engine`'s ``memoryRule``): vLLM 0.9 of it; SGLang :func:`sgl_mem_fraction_static` of it;
    TensorRT-LLM the weights plus 0.9 of what they leave free.

    >>> g = 80e9
    >>> [round(engine_memory_bytes(r, g, 1, 16e9) / 1e9, 1) for r in ("vllm", "sglang", "trtllm")]
    [72.0, 63.8, 73.6]
    """
    total = memory_bytes * gpus
    if rule == "vllm":
        return total * VLLM_GPU_MEMORY_UTILIZATION
    if rule == "sglang":
        return total * sgl_mem_fraction_static(memory_bytes, gpus, draft)
    if rule == "trtllm":
        return weights_bytes + TRTLLM_FREE_GPU_MEMORY_FRACTION * max(0.0, total - weights_bytes)
    raise ValueError(f"unknown memory rule {rule!r}; valid: vllm, sglang, trtllm")
