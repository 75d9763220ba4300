"""Designs with one planted fault each, and whether a report's path back names the part planted.

Every task with a solution (the built-in ones, and a few teacher's tasks the notebooks define, with
their solutions written here) is broken in one part at a time: a head's query, key or value (q, k,
v, q.b), an MLP's input weights or threshold (mlp.c_fc.w, mlp.c_fc.b, mlp.c_proj.b), block 0's flag
in a two-block design (blocks[0].v and blocks[0].c_proj.w), a bias (c_proj.b). Each part is broken
in several ways (zeroed, negated, weakened, one entry zeroed, one entry added), a fault that still
passes is not a fault and is left out. ``benchmarks/bench_explain.py`` prints the figures,
``tests/test_path.py`` holds them.
"""

import numpy as np

import handmade
from handmade.course.builtin_tasks import induction
from handmade.course.grader import grade
from handmade.course.tasks import TASKS, get_task, reference
from handmade.parts import get, parts, with_parts

LG = 1024
FAULTED = ("q", "k", "v", "q.b", "c_proj.b", "mlp.c_fc.w", "mlp.c_fc.b", "mlp.c_proj.b")
FLAG = ("v", "c_proj.w")  # what block 0 of two blocks writes its flag with
QK = ("q", "k", "q.b", "k.b")


def teachers_tasks():
    """{name: (task, its solution)}: tasks notebooks 15 and 16 and the README define, solved."""
    xor, ind = get_task("xor"), get_task("induction")

    @handmade.task(alphabet="01", n_ctx=5, labels=xor.labels, mlp=True)
    def xnor(context):
        """Say 1 if the last two bits are the same, 0 if they differ."""
        return str(int(context[-1] == context[-2])) if len(context) >= 2 else None

    B, H = xor.labels.residual, xor.labels.hidden[0]
    xnor_model = with_parts(
        reference("xor"),
        {
            "mlp.c_proj.w": H.matrix({("s>0", "T1"): 1, ("s<0", "T1"): 1}, cols=B),
            "mlp.c_proj.b": B.vector({"T0": LG / 2}),
        },
    )

    @handmade.task(alphabet="abc", n_ctx=6, labels=ind.labels, n_layer=2)
    def latest_match(context):
        """After x y ... x, say y, the letter after the latest earlier x."""
        earlier = [j for j in range(len(context) - 1) if context[j] == context[-1]]
        return context[earlier[-1] + 1] if earlier else None

    IB = ind.labels.residual
    places = [f"P{i}" for i in range(6)]
    ramp = {(p, p): i for i, p in enumerate(places) if i > 0}
    previous = [f"prev {c}" for c in "abc"]
    latest_model = with_parts(
        reference("induction"),
        {
            "blocks[1].k": IB.matrix({**{(n, n): 1 for n in previous}, ("P0", "P0"): 1, **ramp}),
            "blocks[1].q.b": IB.vector({"P0": -LG, **{p: LG / 16 for p in places[1:]}}),
        },
    )

    @handmade.task(alphabet="abc", n_ctx=3, n_embd=3, n_layer=1)
    def shift(context):
        """Say the letter after the last one: a to b, b to c, c to a."""
        return {"a": "b", "b": "c", "c": "a"}[context[-1]]

    eye = np.eye(3)
    shift_model = handmade.with_parts(
        handmade.course.tasks.blank(shift),
        {"wte": eye, "q": LG * eye, "k": eye, "v": eye, "c_proj.w": LG * np.roll(eye, 1, axis=1)},
    )

    @handmade.task(alphabet="abc", n_ctx=6, labels=ind.labels, n_layer=2)
    def induction_again(context):
        """Induction, as a teacher's task."""
        return induction(context)

    return {
        "xnor": (xnor, xnor_model),
        "latest_match": (latest_match, latest_model),
        "shift": (shift, shift_model),
        "induction_again": (induction_again, reference("induction")),
    }


def solved():
    """{name: (task, a model that passes it)}: every built-in task and the teacher's tasks above."""
    found = {name: (task, reference(name)) for name, task in TASKS.items()}
    found.update(teachers_tasks())
    for name, (task, model) in found.items():
        assert grade(task, model, diagnose=False).passed, name
    return found


def faults(values, rng):
    """(how, new values) for one part: zeroed, negated, weakened, one entry zeroed, one entry added."""
    found = [("zeroed", 0 * values), ("negated", -values), ("weakened", values / 1000)]
    nonzero, zero = np.argwhere(values != 0), np.argwhere(values == 0)
    for i in rng.permutation(len(nonzero))[:2]:
        changed = values.copy()
        changed[tuple(nonzero[i])] = 0
        found.append((f"entry {tuple(int(x) for x in nonzero[i])} zeroed", changed))
    if len(zero):
        changed = values.copy()
        where = tuple(zero[rng.integers(len(zero))])
        changed[where] = np.abs(values).max() if np.abs(values).max() > 0 else LG
        found.append((f"entry {tuple(int(x) for x in where)} added", changed))
    if np.abs(values).max() == 0:  # a part the design leaves at zero: a bias, or a threshold
        found = [("set", np.full_like(values, LG / 4)), ("set", np.full_like(values, -LG / 4))]
    return found


def planted(seed=0):
    """Every planted fault: (task name, task, model, the part planted, how); some may still pass."""
    rng = np.random.default_rng(seed)
    found = []
    for name, (task, model) in solved().items():
        n_layer = model.structure.n_layer
        names = [
            n
            for n in parts(model)
            if n.split(".", 1)[-1] in FAULTED or (n_layer > 1 and n.startswith("blocks[0].") and n[10:] in FLAG)
        ]
        for part in names:
            for how, values in faults(get(model, part), rng):
                broken = with_parts(model, {part: values.reshape(get(model, part).shape)})
                found.append((name, task, broken, model.structure.part(part).name, how))
    return found


def named_in_path(report, part, model):
    """Whether the report on the diagnosed context names ``part`` (a Name of a part): as the part its
    sentence speaks of, as a step of its path (a head for its q, k, v and their biases, an MLP for its
    weights), or in an entry a step names."""
    data = report.to_json()
    focus = data["failing"][data["diagnosed"]]
    shown = {report.focus.named} if report.focus.named is not None else set()
    steps = focus["path"] or []
    block, local = part.block, part.kind
    entries = [e["entry"] for step in steps for e in step["entries"]]
    short = model.structure.part_names()[part]
    if any(e.startswith(f"{short}[") for e in entries):
        return True
    if local in ("q", "k", "v", "q.b", "k.b", "v.b", "c_proj.w"):
        kind = {"v": "value", "v.b": "value"}.get(local)
        return any(s["part"].startswith(f"blocks[{block}].head") and (kind is None or s["kind"] == kind) for s in steps)
    if local.startswith("mlp."):
        return any(s["part"] == f"blocks[{block}].mlp" for s in steps)
    return str(part) in {str(n) for n in shown}


def entry_named(report, part, model):
    """Whether a step names an entry of q or k (or their biases) of ``part``'s block."""
    data = report.to_json()
    steps = data["failing"][data["diagnosed"]]["path"] or []
    names = model.structure.part_names()
    wanted = [names[n] for n in names if n.block == part.block and n.kind in QK]
    return any(e["entry"].startswith(f"{w}[") for w in wanted for s in steps for e in s["entries"])


def measured(seed=0):
    """(faults, named in the path, q or k faults, of which an entry of q or k is named), and the misses:
    of the planted faults that fail their task (one that still passes is no fault)."""
    found, named, qk, qk_named, misses = 0, 0, 0, 0, []
    for name, task, model, part, how in planted(seed):
        report = grade(task, model)
        if report.passed:
            continue
        found += 1
        hit = named_in_path(report, part, model)
        named += hit
        if not hit:
            misses.append((name, str(part), how))
        if part.kind in QK:
            qk += 1
            qk_named += entry_named(report, part, model)
    return found, named, qk, qk_named, misses
