"""How long the grader takes: the built-in tasks' references, a teacher's homework, and the limit.

Prints, measured in this one run:
- the time to grade every built-in task's reference solution, all together (target: under 2 s),
  the first time (contexts enumerated and tokenized) and the best of a few repeats; per task: its
  shape, the graded contexts, the forward passes they took (one per longest window: a pass over a
  context answers all its prefixes too), the best time, and the reference's non-zero weights;
- a teacher's homework of four tasks of the sizes issue 29 measured (thousands of contexts, a
  model 16 wide with two blocks; 8 letters; 16,382 contexts; 1,000 extra examples), written to a
  file and loaded with ``load_tasks``: per task the contexts, the passes, the estimate
  (``tasks.grading_cost``) and the time to grade its blank model with and without the
  explanations (a blank fails most contexts: the most explaining there is), and the time per
  1,000 contexts; then the same file with a fifth task over a limit: the others still grade, the
  fifth is refused in one line;
- the estimate against the time on models from small to large (many short passes, few long
  ones): operations per second, so that the limit (``tasks.MAX_GRADING`` operations) reads as
  seconds on this machine.

    python benchmarks/bench_grader.py
"""

import tempfile
import time
from pathlib import Path

import numpy as np

from handmade import weights
from handmade.course import grader
from handmade.course.solutions import reference
from handmade.course.tasks import MAX_GRADING, TASKS, blank, examples, grading_cost, load_tasks
from handmade.training import init_params
from handmade.weights import check_weights, count_nonzero

REPEATS = 5

HOMEWORK = '''"""A homework of four tasks, of the sizes issue 29 measured."""
import handmade


@handmade.task(alphabet="abcd", n_ctx=6, n_embd=16, n_layer=2)
def after_d(context):
    """Say the letter that came after the last d before the current letter."""
    i = context[:-1].rfind("d")
    return context[i + 1] if i >= 0 else None


@handmade.task(alphabet="abcdefgh", n_ctx=4, n_embd=16)
def any_c(context):
    """Say a if the text holds a c, else b."""
    return "a" if "c" in context else "b"


@handmade.task(alphabet="ab", n_ctx=13, n_embd=16)
def more_b(context):
    """Say b if the text holds more b's than a's, else a."""
    return "b" if context.count("b") > context.count("a") else "a"


@handmade.task(alphabet="abc", n_ctx=6, n_embd=12,
               extra_examples=[(t, "a" if t[0] == t[-1] else "b")  # the rule's own answers: they agree with it
                               for t in ("abc" * (i % 40 + 1) + "a" * (i // 40) for i in range(1000))])
def same_ends(context):
    """Say a if the text starts and ends with the same letter, else b."""
    return "a" if context[0] == context[-1] else "b"
'''

OVER = '''

@handmade.task(alphabet="abcdefgh", n_ctx=9, n_embd=16)
def eight_letters(context):
    """Say the first letter again."""
    return context[0]
'''


def seconds(fn):
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def best(fn, repeats=REPEATS):
    return min(seconds(fn) for _ in range(repeats))


def grade_all(solutions):
    for name, params in solutions.items():
        assert grader.grade(TASKS[name], params).passed, name


def forward_passes(task, params, diagnose=True):
    """How many passes grading ``params`` runs: gpt() counted, wrapped for one grade."""
    calls, original = [], weights.gpt
    weights.gpt = lambda *args, **kwargs: calls.append(1) or original(*args, **kwargs)
    try:
        grader.grade(task, params, diagnose=diagnose)
    finally:
        weights.gpt = original
    return len(calls)


def built_in():
    solutions = {name: reference(task) for name, task in TASKS.items()}
    first = seconds(lambda: grade_all(solutions))
    fastest = best(lambda: grade_all(solutions))
    print(
        f"grading all {len(TASKS)} reference solutions: {first:.3f} s the first time, best of {REPEATS}: {fastest:.3f} s"
    )
    print("(target: under 2 s)\n")
    header = f"{'task':<16}{'alphabet':>9}{'n_ctx':>6}  {'shape':<34}{'graded':>7}{'passes':>7}{'ms':>8}{'non-zero':>9}"
    print(header)
    print("-" * len(header))
    for name, params in solutions.items():
        task = TASKS[name]
        ms = 1000 * best(lambda t=task, p=params: grader.grade(t, p))
        blocks = f"{task.n_layer} block(s), {task.n_head} head(s)" if task.n_layer else "no block"
        shape = f"{task.n_embd} wide, {blocks}{', MLP' if task.mlp else ''}"
        print(
            f"{name:<16}{task.alphabet:>9}{task.n_ctx:>6}  {shape:<34}{len(examples(task)):>7}"
            f"{forward_passes(task, params):>7}{ms:>8.1f}{count_nonzero(params):>9}"
        )


def homework(folder):
    path = folder / "homework.py"
    path.write_text(HOMEWORK, encoding="utf-8")
    loaded = {}
    print(f"\nthe homework (4 tasks), loaded in {seconds(lambda: loaded.update(load_tasks(path))):.2f} s;")
    print(f"grading each task's blank model (the limit: {MAX_GRADING:.0e} operations)\n")
    header = (
        f"{'task':<10}{'contexts':>9}{'passes':>7}{'estimate':>10}{'no expl. s':>11}{'ops/s':>9}"
        f"{'failing':>8}{'estimate':>10}{'explained s':>12}{'ops/s':>9}{'s/1000':>8}"
    )
    print(header)
    print("-" * len(header))
    for name, task in loaded.items():
        n = len(examples(task))
        params = check_weights(blank(task))
        quick, passes, _longest = grading_cost(task, params.structure, explained=False)
        full = grading_cost(task, params.structure)[0]
        plain = best(lambda t=task, p=params: grader.grade(t, p, diagnose=False), 3)
        report = grader.grade(task, params)
        explained = best(lambda t=task, p=params: grader.grade(t, p), 2)
        print(
            f"{name:<10}{n:>9}{passes:>7}{quick:>10.1e}{plain:>11.2f}{quick / plain:>9.1e}"
            f"{report.n_failures:>8}{full:>10.1e}{explained:>12.2f}{full / explained:>9.1e}{1000 * explained / n:>8.3f}"
        )
    path.write_text(HOMEWORK + OVER, encoding="utf-8")
    loaded = load_tasks(path)
    fine = [name for name in loaded if name != "eight_letters"]
    took = seconds(lambda: [grader.grade(loaded[n], blank(loaded[n]), diagnose=False) for n in fine])
    try:
        examples(loaded["eight_letters"])
    except ValueError as error:
        print(f"\nwith a fifth task over a limit: the four others load and grade ({took:.2f} s); the fifth says:")
        print(f"  {error}")


SHAPES = {  # a model and a task, from many short passes to few long ones
    "16 wide, 2 blocks; 4004 contexts of up to 6": ((16, 2, False), ("after_d", None)),
    "64 wide, 8 blocks, MLP; 507 contexts": ((64, 8, True), ("induction", None)),
    "8 wide, 1 block, 1024 positions; 20 passes of 1024": ((8, 1, False), ("same_ends", 1024)),
    "64 wide, 4 blocks, MLP, 1024 positions; 4 of 1024": ((64, 4, True), ("same_ends", 1024)),
}


def estimate_against_time(folder):
    loaded = load_tasks(folder / "homework.py")
    print("\nthe estimate against the time, without the explanations (the passes alone)\n")
    header = f"{'model and task':<54}{'passes':>7}{'estimate':>10}{'seconds':>9}{'ops/s':>9}{'1e11 ops in':>12}"
    print(header)
    print("-" * len(header))
    for label, ((width, layers, mlp), (name, positions)) in SHAPES.items():
        task = loaded.get(name) or TASKS[name]
        model = check_weights(init_params(task.n_vocab, positions or task.n_ctx, width, rng=0, n_layer=layers, mlp=mlp,
                                          alphabet=task.alphabet))  # fmt: skip
        if positions:  # only the first 20 (or 4) extra examples, each padded to the model's 1024 positions
            task = _long(task, 20 if width == 8 else 4)
        cost, passes, _longest = grading_cost(task, model.structure, explained=False)
        took = best(lambda t=task, m=model: grader.grade(t, m, diagnose=False), 2)
        print(f"{label:<54}{passes:>7}{cost:>10.1e}{took:>9.2f}{cost / took:>9.1e}{MAX_GRADING / cost * took:>11.1f}s")


def _long(task, n):
    """A task like ``task`` whose extra examples are ``n`` contexts of 1,024 letters."""
    from handmade.course.tasks import task as make

    rng = np.random.default_rng(0)
    pairs = [("".join(rng.choice(list(task.alphabet), 1024)), task.alphabet[0]) for _ in range(n)]

    @make(alphabet=task.alphabet, n_ctx=task.n_ctx, n_embd=task.n_embd, extra_examples=pairs)
    def long_ones(context):
        """Say a."""
        return None

    return long_ones


def main():
    built_in()
    with tempfile.TemporaryDirectory() as folder:
        homework(Path(folder))
        estimate_against_time(Path(folder))


if __name__ == "__main__":
    main()
