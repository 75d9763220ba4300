"""How much the package's structure costs: gpt() against the same maths written inline.

Prints, measured in this one run:
- one gpt() call on the blog model as a ratio to the blog's own forward pass written inline, in
  one function body with no functions, recording hooks, cache argument or checks (target: at
  most 1.1). The inline pass keeps the blog's -1e10 mask, which gives this model the same logits
  (asserted below); the package's -inf mask is built with np.where and costs a little less;
- the time of ``import handmade`` in a fresh interpreter (target: at most 150 ms), and the time it
  takes beyond numpy's own import, numpy imported first (target: at most 35 ms on a quiet machine;
  the least of 21 runs, since a busy machine only adds to it): the core alone, the course, display,
  widgets and training loading when first used. Both with every module's bytecode cached, as after an
  install (``PYTHONPYCACHEPREFIX``, a folder of the benchmark's own, so that neither this machine's
  ``PYTHONDONTWRITEBYTECODE=1`` nor a stale cache decides it); then the second again with the package's
  own bytecode taken out of that folder and none written, the package compiled from its source at each
  run, for comparison (what this machine, which sets PYTHONDONTWRITEBYTECODE=1, measured before);
- the code lines of the nine forward functions in handmade/model.py (target: at most 60; blank
  lines, comments and docstrings not counted; picoGPT's take 37);
- how many times one weight edit in the playground runs gpt() (one traced pass plus the passes
  the accuracy needs).

    python benchmarks/bench_gpt.py
"""

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import timeit
from pathlib import Path

import numpy as np

import handmade


def inline_gpt(inputs, wte, wpe, blocks):  # the blog's maths in one function body, its mask included
    x = wte[inputs] + wpe[range(len(inputs))]
    for block in blocks:
        c_attn, c_proj = block["attn"]["c_attn"], block["attn"]["c_proj"]
        q, k, v = np.split(x @ c_attn["w"] + c_attn["b"], 3, axis=-1)
        mask = (1 - np.tri(x.shape[0], dtype=x.dtype)) * -1e10  # the blog's mask: same logits for this model
        scores = q @ k.T / np.sqrt(q.shape[-1]) + mask
        exp = np.exp(scores - np.max(scores, axis=-1, keepdims=True))
        weights = exp / np.sum(exp, axis=-1, keepdims=True)
        x = x + ((weights @ v) @ c_proj["w"] + c_proj["b"])
    return x @ wte.T


def per_call(fn, number=2000, repeat=5):  # best of `repeat` runs, in microseconds per call
    return min(timeit.repeat(fn, number=number, repeat=repeat)) / number * 1e6


def gpt_ratio(rounds=25):
    params, tokens = handmade.blog_model(), np.array(handmade.tokenize("aabaa"))
    assert np.array_equal(inline_gpt(tokens, **params), handmade.gpt(tokens, **params))
    ratios, times = [], []
    for _ in range(rounds):  # interleaved, so both see the same machine
        package = per_call(lambda: handmade.gpt(tokens, **params))
        inline = per_call(lambda: inline_gpt(tokens, **params))
        ratios.append(package / inline)
        times.append((package, inline))
    return statistics.median(ratios), min(times)


def import_ms(runs=7, after="time", cached=True):
    """Wall times in ms of `import handmade` in fresh interpreters, after ``after``, every module's bytecode cached
    (in a folder of the benchmark's own, written by one run first), as after an install; not ``cached``: the
    package's own bytecode taken out of it and none written, so that the package is compiled from its source at
    each run (as where PYTHONDONTWRITEBYTECODE=1 is set and nothing was cached: this machine's default)."""
    code = f"import {after}, time; t = time.perf_counter(); import handmade; print(time.perf_counter() - t)"
    run = [sys.executable, "-c", code]
    with tempfile.TemporaryDirectory() as cache:
        env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = cache
        subprocess.check_output(run, env=env)  # every module's bytecode written
        if not cached:
            shutil.rmtree(Path(cache, *Path(handmade.__file__).parent.parts[1:]))
            env["PYTHONDONTWRITEBYTECODE"] = "1"
        return [float(subprocess.check_output(run, env=env)) * 1000 for _ in range(runs)]


NINE = (
    "softmax",
    "linear",
    "layer_norm",
    "gelu",
    "ffn",
    "attention",
    "causal_self_attention",
    "transformer_block",
    "gpt",
)


def model_code_lines():
    from handmade import model
    from handmade.display.source import code_lines

    return {name: code_lines(getattr(model, name)) for name in NINE}


def gpt_calls_per_edit():
    """Runs of gpt() caused by typing one number into the playground's q grid."""
    from handmade import weights
    from handmade.widgets import blog_playground

    calls, real = [], weights.gpt
    weights.gpt = lambda *args, **kwargs: calls.append(1) or real(*args, **kwargs)
    try:
        playground = blog_playground()
        calls.clear()
        playground.editors["q"].boxes[4][3].value = "0"
    finally:
        weights.gpt = real
    return len(calls)


if __name__ == "__main__":
    ratio, (package, inline) = gpt_ratio()
    print(f"gpt() on the blog model: {package:.1f} us; inline maths: {inline:.1f} us")
    print(f"ratio gpt / inline (median of 25 interleaved rounds): {ratio:.3f}  (target <= 1.1)")
    print(f"import handmade: {statistics.median(import_ms()):.0f} ms  (median of 7, bytecode cached; target <= 150 ms)")
    beyond = min(import_ms(21, after="numpy"))
    print(
        f"import handmade beyond numpy's own import: {beyond:.1f} ms  (least of 21, bytecode cached; target <= 35 ms)"
    )
    source = min(import_ms(21, after="numpy", cached=False))
    print(f"  the same compiled from source at each run (the package's bytecode not cached): {source:.1f} ms")
    lines = model_code_lines()
    print(f"code lines of the nine forward functions: {sum(lines.values())}  (target <= 60; picoGPT's: 37)")
    print("  " + ", ".join(f"{name} {n}" for name, n in lines.items()))
    print(
        f"gpt() calls per playground edit: {gpt_calls_per_edit()}  (1 traced pass + the accuracy's distinct contexts)"
    )
