"""How often the grader's path back names the part at fault, and how long a diagnosis takes.

Prints, from one run:

- over the designs of ``tests/planted.py`` (every built-in task's solution, and four teacher's tasks
  solved, each with one planted fault: a head's q, k, v or q.b, an MLP's c_fc.w, c_fc.b or threshold,
  block 0's flag, c_proj.b), how many of those that fail have the planted part named in the report's
  path (target: 95 %), and of the faults in q or k, how many have an entry of q or k named (target:
  95 %), with the misses;
- the time to grade, with every context under the margin explained and the first paths followed, a
  failing model of the largest task (``induction``, its blank, and its solution with block 0's flag gone).

    python benchmarks/bench_explain.py
"""

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import planted  # noqa: E402  (tests/planted.py: the designs)

from handmade.course import grader  # noqa: E402
from handmade.course.tasks import blank, reference  # noqa: E402
from handmade.parts import get, with_parts  # noqa: E402


def main():
    start = time.perf_counter()
    found, named, qk, qk_named, misses = planted.measured()
    took = time.perf_counter() - start
    print(
        f"planted faults that fail: {found}; the part planted named in the path: {named} ({100 * named / found:.1f} %)"
    )
    print(f"faults in q or k: {qk}; an entry of q or k named: {qk_named} ({100 * qk_named / qk:.1f} %)")
    print(f"  ({took:.1f} s; missed: {', '.join(f'{task} {part} {how}' for task, part, how in misses) or 'none'})")
    flagless = with_parts(reference("induction"), {"blocks[0].v": 0 * get(reference("induction"), "blocks[0].v")})
    for label, model in (("blank", blank("induction")), ("without block 0's flag", flagless)):
        times = []
        for _ in range(3):
            start = time.perf_counter()
            report = grader.grade("induction", model)
            times.append(time.perf_counter() - start)
        data = report.to_json()
        print(
            f"grade induction, {label}: {np.median(times) * 1000:.0f} ms (median of 3), "
            f"{len(data['failing'])} contexts under the margin explained, {data['paths']} paths followed"
        )


if __name__ == "__main__":
    main()
