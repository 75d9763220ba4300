"""How often the grader's path back names the part at fault, and how long a diagnosis takes.

Prints, from one run:

- over the designs of ``tests/planted.py`` (every built-in task's solution, and five teacher's tasks
  solved, each with one planted fault, chosen by kind: a head's q, k, v or q.b, c_proj's bias, an MLP's
  c_fc.w, c_fc.b or c_proj.b, block 0's flag (v and c_proj.w) in two blocks, the embeddings of a design
  without blocks), how many of those that fail have the planted part named in the report (target: 95 %),
  and of the faults in q, k or q.b, how many have an entry of that part itself named (target: 95 %), by
  kind, with the misses; and how many paths go on past the part planted, to end on a part the plant left as
  it was (listed);
- the time to grade (the text: the diagnosed context's path) and to make ``--json`` (every context under
  the margin explained, each with its path back) for failing models of the two largest tasks (``induction``
  and ``after_last_c``: their blanks, their solutions with block 0's flag gone, and seeded random weights of
  their shape, whose paths are the longest), with the estimates that allowed them (``tasks.grading_cost``,
  with and without ``every_path``) over the times, in operations a second (bench_grader.py measures the rates).

    python benchmarks/bench_explain.py
"""

import sys
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import planted  # noqa: E402  (tests/planted.py: the designs)
from helpers import random_weights  # noqa: E402

from handmade.course import grader  # noqa: E402
from handmade.course.solutions import reference  # noqa: E402
from handmade.course.tasks import blank, grading_cost  # noqa: E402
from handmade.parts import get, with_parts  # noqa: E402


def figures():
    start = time.perf_counter()
    found = planted.measured()
    took = time.perf_counter() - start
    faults, named, qk, qk_named, past = planted.figures(found)
    print(f"planted faults that fail: {faults}; the part planted named: {named} ({100 * named / faults:.1f} %)")
    print(f"faults in q, k or q.b: {qk}; an entry of that part named: {qk_named} ({100 * qk_named / qk:.1f} %)")
    print(f"paths that go on past the part planted, to end on a part left as it was: {past}")
    table = defaultdict(lambda: [0, 0, 0])
    for _task, part, _how, hit, entry, _past in found:
        row = table[part.kind]  # q, mlp.c_fc.b, wte
        row[0], row[1], row[2] = row[0] + 1, row[1] + hit, row[2] + bool(entry)
    for kind, (n, hit, entry) in sorted(table.items()):
        print(f"  {kind:14} {n:4} faults, {hit:4} named" + (f", {entry:4} by an entry of it" if entry else ""))
    print(f"  tasks: {len({task for task, *_ in found})}; {took:.1f} s")
    misses = [f"{r.task} {r.part} {r.how}" for r in planted.misses(found)]
    print(f"  missed: {', '.join(misses) or 'none'}")
    print(f"  gone past: {', '.join(f'{r.task} {r.part} {r.how}' for r in found if r.past) or 'none'}")


def timings():
    for name in ("induction", "after_last_c"):
        flagless = with_parts(reference(name), {"blocks[0].v": 0 * get(reference(name), "blocks[0].v")})
        models = {"blank": blank(name), "without block 0's flag": flagless}
        models["random weights"] = random_weights(blank(name).structure, 0)
        for label, model in models.items():
            text, json = [], []
            structure = grader.submission(name, model).structure
            estimates = [grading_cost(name, structure, every_path=every)[0] for every in (False, True)]
            for _ in range(3):
                start = time.perf_counter()
                report = grader.grade(name, model, every_path=True)  # the paths: followed by to_json alone
                graded = time.perf_counter()
                str(report)  # the text: what grade prints
                text.append(time.perf_counter() - start)
                before = time.perf_counter()
                data = report.to_json()  # the data: what grade --json prints, without the text
                json.append(graded - start + time.perf_counter() - before)
            steps = sum(len(case["path"]) for case in data["failing"])
            print(
                f"grade {name}, {label}: text {np.median(text) * 1000:.0f} ms, --json {np.median(json) * 1000:.0f} ms"
                f" (medians of 3): {len(data['failing'])} contexts under the margin, {data['paths']} paths"
                f" followed, {steps} steps; the estimates at {estimates[0] / np.median(text):.1e} and"
                f" {estimates[1] / np.median(json):.1e} operations a second"
            )


if __name__ == "__main__":
    figures()
    timings()
