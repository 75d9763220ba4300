"""How long the grader takes: every task's reference solution graded, together and one by one.

Prints, measured in this one run:
- the time to grade every task's reference solution, all together (target: under 2 s), the
  first time (contexts enumerated and tokenized) and the best of a few repeats;
- per task: its shape, the graded contexts, the forward passes they took (one per longest
  window: a pass over a context answers all its prefixes too), the best time, and the size of
  the reference solution in non-zero weights (the table for the README).

    python benchmarks/bench_grader.py
"""

import time

from handmade.course import grader
from handmade.course.tasks import TASKS, examples, reference
from handmade.weights import count_nonzero

REPEATS = 5


def grade_all(solutions):
    for name, params in solutions.items():
        assert grader.grade(TASKS[name], params).passed, name


def seconds(fn):
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def forward_passes(name, params):
    """How many times grading ``params`` calls forward(): counted by wrapping it for one grade."""
    calls, original = [], grader.forward
    grader.forward = lambda *args, **kwargs: calls.append(1) or original(*args, **kwargs)
    try:
        grader.grade(TASKS[name], params)
    finally:
        grader.forward = original
    return len(calls)


def main():
    solutions = {name: reference(task) for name, task in TASKS.items()}
    first = seconds(lambda: grade_all(solutions))
    best = min(seconds(lambda: grade_all(solutions)) for _ in range(REPEATS))
    print(
        f"grading all {len(TASKS)} reference solutions: {first:.3f} s the first time, best of {REPEATS}: {best:.3f} s"
    )
    print("(target: under 2 s)\n")
    header = f"{'task':<16}{'alphabet':>9}{'n_ctx':>6}  {'shape':<34}{'graded':>7}{'passes':>7}{'ms':>8}{'non-zero':>9}"
    print(header)
    print("-" * len(header))
    for name, params in solutions.items():
        task = TASKS[name]
        ms = 1000 * min(seconds(lambda n=name, p=params: grader.grade(TASKS[n], p)) for _ in range(REPEATS))
        blocks = f"{task.n_layer} block(s), {task.n_head} head(s)" if task.n_layer else "no block"
        shape = f"{task.n_embd} wide, {blocks}{', MLP' if task.mlp else ''}"
        print(
            f"{name:<16}{task.alphabet:>9}{task.n_ctx:>6}  {shape:<34}{len(examples(task)):>7}"
            f"{forward_passes(name, params):>7}{ms:>8.1f}{count_nonzero(params):>9}"
        )


if __name__ == "__main__":
    main()
