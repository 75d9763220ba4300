"""What training costs, and how fast it learns: the hand-written gradients and AdamW on the character
model of Coriolanus (notebook 21), beside jax.jit's step for the same model and loss.

Prints, measured in this one run (best of several repeats, so other work on the machine counts
as little as it can):
- one ``loss_and_grads`` call on notebook 21's model (batch 32, context 8, width 32, one head of
  size 16, the play's 66 characters), split into its recorded forward pass and the backward pass;
- one training step as ``train()`` takes it (a batch, loss_and_grads, AdamW), and beside it, when
  jax is installed, one step of ``jax.jit(value_and_grad)`` and the same AdamW on the same model,
  loss and batches, in float32 and float64 (the ratio's target: at most 1.75 times float32's step);
  without jax it says it skipped them (jax is only for measuring: ``pip install jax jaxlib``);
- how fast the start learns: the mean loss of steps 90 to 99 on notebook 21's settings (the first
  90% of the play, AdamW at 1e-2), over seeds 0 to 4, from ``init_params``' default start,
  1 / sqrt(n_embd), and from GPT-2's 0.02 (target: at most 2.8 from the default);
- ``train()`` itself for 300 steps, and its losses at the steps the source printed (0 and 41);
- training the blog's shape (n_ctx 5, "ab", width 8, one head, no mlp) on (aab)* from a seeded
  random start until it scores 27 / 27 (target: well under 10 s), and the command line doing it;
- the step and its ratio to jax again in a fresh interpreter with OPENBLAS_NUM_THREADS=1, as
  notebook 21 runs it. The backward pass's products of [n_in, B * n_seq] by [B * n_seq, n_out]
  are large enough for OpenBLAS to share them among threads, which on a busy 2-core machine
  costs more than it saves.

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
STEPS_TIMED = 50  # steps in one timed run of train() (or of jax's loop)


def character_data():
    """The play's alphabet and its token ids, all of them and the first 90% (notebook 21's training part)."""
    text = TEXT.read_text(encoding="utf-8")
    alphabet = "".join(sorted(set(text)))
    ids = np.array(handmade.tokenize(text, alphabet))
    return alphabet, ids, ids[: int(len(ids) * 0.9)]


def character_model(seed=0, std=None):
    """Notebook 21's model and its batches, from ``seed``: width 32, context 8, one head of 16."""
    alphabet, _ids, train_ids = character_data()
    params = training.init_params(len(alphabet), 8, 32, n_attn=16, n_head=1, rng=seed, alphabet=alphabet, std=std)
    return params, training.batches(train_ids, 32, 8, rng=seed)


def best_ms(fn, number=20, repeat=7):  # best of `repeat` runs, in milliseconds per call
    return min(timeit.repeat(fn, number=number, repeat=repeat)) / number * 1000


def step_times(params, batch_fn):
    """Milliseconds of loss_and_grads, of its forward and backward passes, and of a step of train()."""
    inputs, targets = batch_fn()
    seen = training.record(params, inputs)
    _value, d_logits = training.cross_entropy_backward(seen.logits, targets)
    return {
        "loss_and_grads": best_ms(lambda: training.loss_and_grads(params, inputs, targets)),
        "forward": best_ms(lambda: training.record(params, inputs)),
        "backward": best_ms(lambda: training.gpt_backward(d_logits, inputs, seen, **params)),
        "step": train_step_ms(params, batch_fn),
    }


def train_step_ms(params, batch_fn, repeat=7):
    """A step as train() takes it: STEPS_TIMED steps at a time, best of ``repeat``."""
    run = lambda: training.train(params, batch_fn, STEPS_TIMED, progress=False)  # noqa: E731
    return best_ms(run, number=1, repeat=repeat) / STEPS_TIMED


# ---- the same model, loss and optimiser in jax ------------------------------------------------


def jax_step_ms(params, batch_fn, repeat=7):
    """{"float32": ms, "float64": ms} of one jitted step (batch, value_and_grad, AdamW, the loss read
    back as train() records it), each measured beside train()'s own step, and that step's ms;
    None without jax."""
    try:
        import jax
    except ImportError:
        return None
    jax.config.update("jax_enable_x64", True)  # float64 allowed; each run says its own dtype
    found = {}
    for dtype in ("float32", "float64"):
        loop = jax_loop(jax, params, batch_fn, dtype)
        loop()  # compile
        ours, theirs = [], []
        for _repeat in range(repeat):  # side by side, so that both see the same machine
            ours.append(train_step_ms(params, batch_fn, repeat=1))
            theirs.append(best_ms(loop, number=1, repeat=1) / STEPS_TIMED)
        found[dtype] = (min(ours), min(theirs))
    return found


def jax_loop(jax, params, batch_fn, dtype):
    """A function that runs STEPS_TIMED jitted steps of AdamW on jax_loss, from ``params``, in ``dtype``."""
    jnp, tree = jax.numpy, jax.tree_util.tree_map
    weights = tree(lambda a: jnp.asarray(a, dtype), training.map_arrays(lambda a: a, dict(params)))
    step = jax.jit(jax_adamw_step(jax), donate_argnums=(0, 1, 2, 3))  # its state, updated in place
    state = [weights, tree(jnp.zeros_like, weights), tree(jnp.zeros_like, weights), jnp.asarray(0, dtype)]

    def loop():
        for _step in range(STEPS_TIMED):
            *state[:], value = step(*state, *batch_fn())
            float(value)  # train() records every step's loss

    return loop


def jax_adamw_step(jax, lr=1e-2, b1=0.9, b2=0.999, eps=1e-8, weight_decay=0.01):
    """One step of AdamW as ``training.AdamW`` takes it (only matrices decay), on jax_loss."""
    jnp, tree = jax.numpy, jax.tree_util.tree_map

    def step(weights, m, v, t, inputs, targets):
        value, grads = jax.value_and_grad(jax_loss)(weights, inputs, targets)
        t = t + 1
        m = tree(lambda m, g: b1 * m + (1 - b1) * g, m, grads)
        v = tree(lambda v, g: b2 * v + (1 - b2) * g**2, v, grads)

        def move(w, m, v):
            decay = weight_decay if w.ndim == 2 else 0.0
            return w - lr * (m / (1 - b1**t) / (jnp.sqrt(v / (1 - b2**t)) + eps) + decay * w)

        return tree(move, weights, m, v), m, v, t, value

    return step


def jax_loss(weights, inputs, targets):
    """gpt() and cross_entropy in jax, for blocks of attention alone (notebook 21's model): [B, n_seq] -> a number."""
    import jax
    import jax.numpy as jnp

    n_seq = inputs.shape[1]
    x = weights["wte"][inputs] + weights["wpe"][:n_seq]  # [B, n_seq, n_embd]
    mask = jnp.where(jnp.tri(n_seq, dtype=bool), 0.0, -jnp.inf).astype(x.dtype)
    for block in weights["blocks"]:
        qkv = x @ block["attn"]["c_attn"]["w"] + block["attn"]["c_attn"]["b"]
        q, k, v = jnp.split(qkv, 3, axis=-1)
        scores = q @ jnp.swapaxes(k, -1, -2) / jnp.sqrt(jnp.asarray(q.shape[-1], x.dtype)) + mask
        out = jax.nn.softmax(scores, axis=-1) @ v  # one head
        x = x + out @ block["attn"]["c_proj"]["w"] + block["attn"]["c_proj"]["b"]
    log_probs = jax.nn.log_softmax(x @ weights["wte"].T, axis=-1)  # [B, n_seq, n_vocab]
    return -jnp.mean(jnp.take_along_axis(log_probs, targets[..., None], axis=-1))


def jax_agrees(params, batch_fn):
    """The largest difference between jax's float64 loss and gradients and ours, on one batch; None without jax."""
    try:
        import jax
    except ImportError:
        return None
    jax.config.update("jax_enable_x64", True)
    inputs, targets = batch_fn()
    value, grads = training.loss_and_grads(params, inputs, targets)
    plain = training.map_arrays(lambda a: jax.numpy.asarray(a), dict(params))
    theirs, their_grads = jax.value_and_grad(jax_loss)(plain, inputs, targets)
    paired = zip(training.leaves(grads), training.leaves(their_grads))
    return max([abs(value - float(theirs))] + [float(np.abs(a - np.asarray(b)).max()) for a, b in paired])


# ---- how fast the start learns ------------------------------------------------------------------


def mean_late_loss(std, seeds=range(5), steps=100):
    """The mean loss of steps 90 to 99 on notebook 21's settings, averaged over ``seeds``, from
    normal(0, std) (None: init_params' default, 1 / sqrt(n_embd)); and each seed's."""
    each = []
    for seed in seeds:
        params, batch_fn = character_model(seed, std)
        _trained, history = training.train(params, batch_fn, steps, lr=1e-2, progress=False)
        each.append(float(history.losses[90:100].mean()))
    return float(np.mean(each)), each


# ---- the rest ----------------------------------------------------------------------------------


def train_run(params, batch_fn, steps=300):
    start = time.perf_counter()
    _params, history = training.train(params, batch_fn, steps, lr=1e-2, progress=False)
    return time.perf_counter() - start, history


def aab_to_27(seed=0, lr=3e-2, check_every=10, most=2000):
    """Steps and seconds until the blog's shape, trained from ``seed``, scores 27 / 27 on (aab)*."""
    params = training.init_params(2, 5, 8, rng=seed, alphabet="ab", std=training.TASK_STD)  # as train_task starts
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


def ratios(found):
    """``ours / jax's`` per dtype, as text."""
    return ", ".join(f"{ours / theirs:.2f}x jax.jit's {dtype} step" for dtype, (ours, theirs) in found.items())


def one_thread_step():
    """The step's milliseconds, and its ratios to jax, in a fresh interpreter whose BLAS uses one thread."""
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
    return subprocess.check_output([sys.executable, __file__, "--step"], env=env, text=True, encoding="utf-8").strip()


def one_step_line():
    params, batch_fn = character_model()
    found = jax_step_ms(params, batch_fn)
    if found is None:
        return f"one step {train_step_ms(params, batch_fn):.3f} ms (jax not installed: its ratio skipped)"
    return f"one step {found['float32'][0]:.3f} ms, {ratios(found)}"


def main():
    params, batch_fn = character_model()
    times = step_times(params, batch_fn)
    print("character model: 66 tokens, batch 32, context 8, width 32, one head of size 16")
    print(
        f"loss_and_grads: {times['loss_and_grads']:.3f} ms  (forward, one recorded gpt() pass over the batch: "
        f"{times['forward']:.3f} ms; backward: {times['backward']:.3f} ms)"
    )
    print(f"one training step as train() takes it (batch, loss_and_grads, AdamW): {times['step']:.3f} ms")
    found = jax_step_ms(params, batch_fn)
    if found is None:
        print("jax.jit's step: skipped (jax is not installed; pip install jax jaxlib to measure it)")
    else:
        for dtype, (ours, theirs) in found.items():
            print(f"  beside jax.jit's {dtype} step, {theirs:.3f} ms: ours {ours:.3f} ms, {ours / theirs:.2f}x")
        print(f"  (target: at most 1.75x float32's; jax and ours agree to {jax_agrees(params, batch_fn):.1e})")
    for name, std in (("1 / sqrt(n_embd), the default", None), ("0.02, GPT-2's", 0.02)):
        mean, each = mean_late_loss(std)
        print(
            f"mean loss of steps 90-99 over seeds 0-4, from std {name}: {mean:.4f}  "
            f"(each: {', '.join(f'{e:.3f}' for e in each)})"
        )
    print("  (target: at most 2.8 from the default)")
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
    print(f"with one BLAS thread (OPENBLAS_NUM_THREADS=1): {one_thread_step()}")


if __name__ == "__main__" and sys.argv[1:] == ["--step"]:
    print(one_step_line())
elif __name__ == "__main__":
    main()
