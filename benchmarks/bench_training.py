"""What training costs: the hand-written gradients and AdamW on the character model of Coriolanus.

Prints, measured in this one run (best of several repeats, so other work on the machine counts
as little as it can):
- one ``loss_and_grads`` call on the character model of issue 12 (batch 32, context 8, width 32,
  one head of size 16, the play's 66 characters), split into its recorded forward pass (32 runs
  of gpt()) and the backward pass;
- one full training step (a batch, loss_and_grads and the AdamW update), and steps a second
  (target: more than 100);
- ``train()`` itself for 300 steps, and its losses at the steps the source printed (0 and 41);
- training the blog's shape (n_ctx 5, "ab", width 8, one head, no mlp) on (aab)* from a seeded
  random start until it scores 27 / 27 (target: well under 10 s);
- the step again in a fresh interpreter with OPENBLAS_NUM_THREADS=1. The backward pass's products
  of [n_in, B * n_seq] by [B * n_seq, n_out] are large enough for OpenBLAS to share them among
  threads, which on a busy 2-core machine costs far more than it saves.

    python benchmarks/bench_training.py
"""

import os
import subprocess
import sys
import time
import timeit
from pathlib import Path

import numpy as np

import handmade
from handmade import training

TEXT = Path(__file__).resolve().parent.parent / "notebooks" / "data" / "coriolanus.txt"


def character_model():
    """The source's sizes on our gpt() shape, its batches, and one batch to time."""
    text = TEXT.read_text(encoding="utf-8")
    alphabet = "".join(sorted(set(text)))
    params = training.init_params(len(alphabet), 8, 32, n_attn=16, n_head=1, rng=0, alphabet=alphabet)
    batch_fn = training.batches(np.array(handmade.tokenize(text, alphabet)), 32, 8, rng=0)
    return params, batch_fn


def best_ms(fn, number=20, repeat=7):  # best of `repeat` runs, in milliseconds per call
    return min(timeit.repeat(fn, number=number, repeat=repeat)) / number * 1000


def step_times(params, batch_fn):
    inputs, targets = batch_fn()
    optimizer = training.AdamW(lr=1e-2)
    state = optimizer.init(params)

    def step():
        _loss, grads = training.loss_and_grads(params, *batch_fn())
        optimizer.update(params, grads, state)

    seen = training.record(params, inputs)
    d_logits = training.cross_entropy_backward(seen["logits"], targets)

    def backward():
        training.gpt_backward(d_logits, inputs, seen, **params)

    return {
        "loss_and_grads": best_ms(lambda: training.loss_and_grads(params, inputs, targets)),
        "forward": best_ms(lambda: training.record(params, inputs)),
        "backward": best_ms(backward),
        "step": best_ms(step),
    }


def train_run(params, batch_fn, steps=300):
    start = time.perf_counter()
    _params, history = training.train(params, batch_fn, steps, lr=1e-2, progress=False)
    return time.perf_counter() - start, history


def aab_to_27(seed=0, lr=3e-2, check_every=10, most=2000):
    """Steps and seconds until the blog's shape, trained from ``seed``, scores 27 / 27 on (aab)*."""
    params = training.init_params(2, 5, 8, rng=seed, alphabet="ab")
    batch_fn = training.example_batches(handmade.prefix_examples(), None, 5, rng=seed, alphabet="ab")
    start, steps = time.perf_counter(), 0
    while steps < most:
        params, _history = training.train(params, batch_fn, check_every, lr=lr, progress=False)
        steps += check_every
        if handmade.accuracy(params).perfect:
            break
    return steps, time.perf_counter() - start, handmade.accuracy(params)


def command_line_aab():
    """Seconds for ``python -m handmade train aab`` and the accuracy of what it wrote, as a learner runs them."""
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        out = os.path.join(folder, "aab.json")
        start = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "handmade", "train", "aab", "--out", out], check=True, capture_output=True
        )
        score = subprocess.run(
            [sys.executable, "-m", "handmade", "accuracy", "--weights", out],
            check=True,
            capture_output=True,
            text=True,
            encoding="utf-8",
        )
        return time.perf_counter() - start, score.stdout.strip()


def one_thread_step():
    """The step's milliseconds in a fresh interpreter whose BLAS uses one thread."""
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
    return float(subprocess.check_output([sys.executable, __file__, "--step"], env=env))


if __name__ == "__main__" and sys.argv[1:] == ["--step"]:
    print(step_times(*character_model())["step"])
elif __name__ == "__main__":
    params, batch_fn = character_model()
    times = step_times(params, batch_fn)
    print("character model: 66 tokens, batch 32, context 8, width 32, one head of size 16")
    print(
        f"loss_and_grads: {times['loss_and_grads']:.2f} ms  "
        f"(forward, one recorded gpt() pass over the batch: {times['forward']:.2f} ms; backward: {times['backward']:.2f} ms)"
    )
    print(f"one training step (batch, loss_and_grads, AdamW): {times['step']:.2f} ms")
    print(f"steps a second: {1000 / times['step']:.0f}  (target > 100)")
    seconds, history = train_run(params, batch_fn)
    print(f"train() for 300 steps: {seconds:.2f} s, {300 / seconds:.0f} steps a second")
    print(
        f"  losses: step 0 {history.losses[0]:.4f}, step 41 {history.losses[41]:.4f}, "
        f"step 299 {history.losses[299]:.4f}  (the source: 4.1797 at step 0, 3.2729 at step 41)"
    )
    steps, seconds, score = aab_to_27()
    print(f"(aab)* from seed 0, lr 3e-2, the 27 examples as one batch: {score} after {steps} steps, {seconds:.2f} s")
    seconds, line = command_line_aab()
    print(f"python -m handmade train aab (300 steps) then accuracy: {seconds:.2f} s in all; {line}  (target < 10 s)")
    step = one_thread_step()
    print(f"with one BLAS thread (OPENBLAS_NUM_THREADS=1): one step {step:.2f} ms, {1000 / step:.0f} steps a second")
