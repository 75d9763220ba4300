"""Designs with one planted fault each, and whether a report's path back names the part planted.

Every task with a solution (the built-in ones, and a few teacher's tasks the notebooks define, with
their solutions written here) is broken in one part at a time, chosen by its kind (``faulted_parts``):
a head's query, key or value (q, k, v, q.b), an MLP's input weights, threshold and output bias
(mlp.c_fc.w, mlp.c_fc.b, mlp.c_proj.b), block 0's flag in a two-block design (blocks[0].v and
blocks[0].c_proj.w), a bias (c_proj.b), and in a design without blocks its embeddings (wte, wpe). Each
part is broken in several ways (zeroed, negated, weakened, an entry zeroed (two, one at a time), one
entry added; a part
the design leaves at zero is set, everywhere and one entry at a time); a fault that still passes is not
a fault and is left out. ``benchmarks/bench_explain.py`` prints the figures, ``tests/test_path.py``
holds them.
"""

from typing import NamedTuple

import numpy as np

import handmade
from handmade.course.builtin_tasks import induction
from handmade.course.grader import grade
from handmade.course.solutions import reference
from handmade.course.tasks import TASKS, get_task
from handmade.parts import part_values, with_parts

LG = 1024
FAULTED = ("q", "k", "v", "q.b", "c_proj.b", "mlp.c_fc.w", "mlp.c_fc.b", "mlp.c_proj.b")  # kinds of parts
FLAG = ("v", "c_proj.w")  # what block 0 of two blocks writes its flag with
EMBEDDINGS = ("wte", "wpe")  # the only parts of a design without blocks
QK = ("q", "k", "q.b")  # the kinds whose faults are measured by an entry of the very part


def teachers_tasks():
    """{name: (task, its solution)}: tasks notebooks 15 and 16 and the README define, and an AND of two bits
    (a unit with a threshold), solved."""
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

    @handmade.task(alphabet="01", n_ctx=5, labels=xor.labels, mlp=True)
    def both(context):
        """Say 1 if the last two bits are both 1, else 0."""
        return str(int(context[-2:] == "11")) if len(context) >= 2 else None

    # an AND: one unit reads -s (LG when both bits are 1) past a threshold of LG / 2 that one bit alone does not reach
    both_model = with_parts(
        reference("xor"),
        {
            "mlp.c_fc.w": B.matrix({("V", "s<0"): -LG}, cols=H),
            "mlp.c_fc.b": H.vector({"s<0": -LG / 2}),
            "mlp.c_proj.w": H.matrix({("s<0", "T1"): 4}, cols=B),
            "mlp.c_proj.b": B.vector({"T0": LG}),
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
        "both": (both, both_model),
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


def faulted_parts(structure):
    """The Parts of a model of ``structure`` to break, chosen by their kind and block (never by how their
    names are spelled): each head's q, k, v and q.b, c_proj's bias, an MLP's input weights, threshold and
    output bias, and in a design of more than one block, block 0's flag (its v and c_proj.w); in a design
    without blocks, its only parts, the embeddings."""
    if structure.n_layer == 0:
        return [part for part in structure.parts() if part.name.kind in EMBEDDINGS]
    flag = structure.n_layer > 1
    return [
        part
        for part in structure.parts()
        if part.name.kind in FAULTED or (flag and part.name.block == 0 and part.name.kind in FLAG)
    ]


def faults(values, rng):
    """([(how, new values)], [(how, new values)]) for one part: the faults planted (zeroed, negated, weakened,
    an entry zeroed, two of them one at a time, one entry added), and those tried one at a time, in a seeded order, until SET_KEPT
    fail (SET_TRIED at most). A part the design leaves at zero (a bias, a threshold, a query that asks for nothing) is set:
    everywhere, either way, and one entry at a time, either way (a bias set alike everywhere may change no
    margin at all)."""
    if np.abs(values).max() == 0:
        everywhere = [(f"set to {x:g} everywhere", np.full_like(values, x)) for x in (LG / 4, -LG / 4)]
        one_by_one = []
        for where in rng.permutation(np.argwhere(values == 0)):
            for x in (LG / 2, -LG / 2):
                changed = values.copy()
                changed[tuple(where)] = x
                one_by_one.append((f"entry {tuple(int(i) for i in where)} set to {x:g}", changed))
        return everywhere, one_by_one
    found = [("zeroed", 0 * values), ("negated", -values), ("weakened", values / 1000)]
    nonzero, zero = np.argwhere(values != 0), np.argwhere(values == 0)
    for i in rng.permutation(len(nonzero))[:2]:
        changed = values.copy()
        changed[tuple(nonzero[i])] = 0
        found.append((f"entry {tuple(int(x) for x in nonzero[i])} zeroed", changed))
    if len(zero):
        changed = values.copy()
        where = tuple(zero[rng.integers(len(zero))])
        changed[where] = np.abs(values).max()
        found.append((f"entry {tuple(int(x) for x in where)} added", changed))
    return found, []


SET_KEPT = 4  # faults kept per part of those set one entry at a time: the first that fail, in a seeded order
SET_TRIED = 16  # of those, tried at most


def planted(seed=0):
    """Every planted fault that fails its task (one that still passes is no fault): (task name, task,
    model, the part planted (its Name), how, the columns of the part it changed, the Report on it: each
    is graded once, explained when it fails)."""
    rng = np.random.default_rng(seed)
    found = []
    for name, (task, model) in solved().items():
        names = model.structure.part_names()
        for part in faulted_parts(model.structure):
            always, one_by_one = faults(part_values(model, part), rng)
            kept = 0
            for i, (how, changed) in enumerate(always + one_by_one):
                if i >= len(always) and (kept == SET_KEPT or i - len(always) == SET_TRIED):
                    break
                broken = with_parts(model, {names[part.name]: changed})
                report = grade(task, broken)
                if not report.passed:
                    columns = {int(c) for c in np.argwhere(changed != part_values(model, part))[:, -1]}
                    found.append((name, task, broken, part.name, how, columns, report))
                    kept += i >= len(always)
    return found


BLAMED = {  # a part's kind -> the kind of step on its head or MLP that blames what the part makes
    **dict.fromkeys(("q", "k"), "attention"),  # where the head looks
    **dict.fromkeys(("v", "c_proj.w"), "value"),  # what it carries from there
    "mlp.c_fc.w": "unit",  # which unit fires
}


def _diagnosed(report):
    data = report.to_json(every_path=False)  # the diagnosed context's path: the one the text shows
    return data["failing"][data["diagnosed"]]


def entry_of(report, part, model):
    """Whether a step of the diagnosed context's path names an entry of ``part`` itself (``q[P1, P1]`` for
    the q planted, never an entry of another part of its block)."""
    short = model.structure.part_names()[part]
    steps = _diagnosed(report)["path"] or []
    return any(e["entry"].startswith(f"{short}[") for step in steps for e in step["entries"])


def named_in_path(report, part, model, columns=None):
    """Whether the report on the diagnosed context names ``part`` (a Name of a part): an entry of the part
    itself in a step of its path or in its sentence (``wte[b, Tb]``, in a model without blocks); or, for a
    head's weights and an MLP's input weights, a step on that head or MLP of the kind that blames what the
    part makes (BLAMED: its attention for q and k, what it carries for v and c_proj.w, for mlp.c_fc.w a
    unit whose column of it was broken, one of ``columns``); or, for a part the margin is shared among (an
    embedding, c_proj.b), the sentence's naming it. A bias (q.b, mlp.c_fc.b, mlp.c_proj.b) is named by its
    entry. An MLP's input weights are named only at a unit they were broken for: an entry in its column,
    or a step on it (another unit of the same MLP is another part of the design)."""
    short = model.structure.part_names()[part]
    kind = BLAMED.get(part.kind)
    steps = _diagnosed(report)["path"] or []
    owner = f"blocks[{part.block}].mlp" if part.kind.startswith("mlp.") else f"blocks[{part.block}].head"
    if kind == "unit":  # the unit whose input was broken, not another of the same MLP
        hidden = model.structure.basis(model.structure.space("hidden", part.block), model.labels).names
        units = {hidden[c] for c in columns} if columns is not None else set(hidden)
        entries = [e["entry"] for step in steps for e in step["entries"]]
        return any(e.startswith(f"{short}[") and e.endswith(tuple(f", {u}]" for u in units)) for e in entries) or any(
            s["part"].startswith(owner) and s["kind"] == kind and s["unit"] in units for s in steps
        )
    if entry_of(report, part, model) or f"{short}[" in report.focus.sentence:
        return True
    if report.focus.named == part:
        return True
    return kind is not None and any(s["part"].startswith(owner) and s["kind"] == kind for s in steps)


def went_past(report, part, model):
    """Whether the diagnosed context's path goes on past the part planted, to end on a part the plant left as it
    was: a step on its head or MLP (or one naming an entry of it), and after the last of them a step on another part.
    In a design without blocks there is no step to go past."""
    steps = _diagnosed(report)["path"] or []
    if part.block is None:
        return False
    short = model.structure.part_names()[part]
    owner = f"blocks[{part.block}].mlp" if part.kind.startswith("mlp.") else f"blocks[{part.block}].head"
    on = [
        i
        for i, s in enumerate(steps)
        if s["part"].startswith(owner) or any(e["entry"].startswith(f"{short}[") for e in s["entries"])
    ]
    return bool(on) and on[-1] < len(steps) - 1


class Measured(NamedTuple):
    """One planted fault that fails its task, and what the report on it names."""

    task: str  # the task's name
    part: object  # the part planted: a Name (``blocks[0].q``), which says its kind and block
    how: str  # how it was broken
    named: bool  # whether the report names the part (``named_in_path``)
    entry: bool | None  # whether the path names an entry of the part itself; None outside q, k and q.b
    past: bool  # whether the path goes on past the part planted, to end on a part the plant left as it was


def measured(seed=0):
    """[Measured] for every planted fault that fails its task."""
    found = []
    for name, _task, model, part, how, columns, report in planted(seed):
        entry = entry_of(report, part, model) if part.kind in QK else None
        named = named_in_path(report, part, model, columns)
        found.append(Measured(name, part, how, named, entry, went_past(report, part, model)))
    return found


def figures(found):
    """(faults, named in the path, faults in q or k, of which an entry of the part itself is named, paths that go
    on past the part planted)."""
    qk = [r for r in found if r.entry is not None]
    return len(found), sum(r.named for r in found), len(qk), sum(r.entry for r in qk), sum(r.past for r in found)


def misses(found):
    """The faults whose part the report does not name, or not by an entry of its own where that is measured."""
    return [r for r in found if not r.named or r.entry is False]
