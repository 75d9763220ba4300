"""What a playground is given, checked where it comes in, and what it may show.

Each option is refused in one line that names it and what it allows (a TypeError for the wrong
kind, a ValueError for a wrong value), before a widget is built. What a playground shows is bounded
before it is drawn: a grid holds at most ``MAX_BOXES`` boxes, the views of one edit draw at most
``MAX_CELLS`` numbers (each table at most ``window.TABLE_SIDE`` rows and columns), and the pass an
edit runs costs at most ``MAX_PASS_FLOPS`` operations, and a task's grade at each edit ``MAX_EDIT_GRADING``; a
refusal gives the estimate.
"""

from dataclasses import dataclass

from ..arguments import brief, chosen, file_name, function, number, text_of
from ..cost import pass_flops
from ..display import views as V
from ..display.window import TABLE_SIDE
from ..i18n import _, listed
from .editors import LARGEST, MAX_BOXES, css_class

MAX_CONTEXT_CHARS = 10_000  # what the context box accepts (the model reads the last n_ctx)
MAX_CELLS = 16_384  # numbers the views draw at each edit: four full tables, about 0.2 s here (13 µs a number)
MAX_PASS_FLOPS = 10**8  # operations of the pass an edit runs: at most about half a second here (numpy runs a
# pass over a long context at 0.2 to 0.8 GFLOP/s on 2 cores: softmax and exp, not only products)
# operations of the grade a task's playground runs at each edit (tasks.grading_cost, explained): 0.4 to 1.7 s here,
# at the rates benchmarks/bench_grader.py measures; the largest built-in task's (after_last_c) is 6.8e9
MAX_EDIT_GRADING = 10**10
CONTROLS = ("text", "reset", "strength", "break", "save")


@dataclass(frozen=True)
class Strength:
    """A number that sets several weights at once by a rule (the blog's Lg sets c_proj): shown as a
    box and a slider beside the grids of ``stage``. With ``read``, weights that come in following the rule
    at another value (a load) show that value in the box."""

    name: str  # for CSS classes: hm-{name}-box
    label: str  # beside the box
    value: float  # where it starts
    apply: object  # (params, value) -> new params; may raise ValueError with a sentence
    stage: str  # the stage whose grids it sits with
    done: str  # a sentence with {value}: what the status line says after it applied a value
    read: object = None  # params -> the value whose rule they may follow (checked by applying it), or None

    def __post_init__(self):
        css_class(self.name, "name")
        text_of(self.label, "label", 100)
        number(self.value, "value", -LARGEST, LARGEST)
        function(self.apply, _("apply must be a function (params, value) -> new params; found {value}"))
        if self.read is not None:
            function(self.read, _("read must be a function params -> a value, or None; found {value}"))
        text_of(self.stage, "stage", 100)
        if not _formats(text_of(self.done, "done", 1000)):
            raise ValueError(
                _("done must be a sentence with {{value}} where the value goes; found {value}").format(
                    value=brief(self.done)
                )
            )


def _formats(sentence):
    """Whether ``sentence`` holds {value} and no other placeholder."""
    try:
        return "{value}" in sentence and sentence.format(value="") is not None
    except (KeyError, IndexError, ValueError):
        return False


def context(text):
    """The context to start from: a string of at most MAX_CONTEXT_CHARS characters."""
    return text_of(text, "text", MAX_CONTEXT_CHARS)


def score(value):
    """None, or a function of the weights."""
    if value is None:
        return None
    return function(
        value, _("score must be a function of the weights that returns (passed, summary, details); found {value}")
    )


def strength(value, stages):
    """None, or a Strength whose stage is one of this model's."""
    if value is None:
        return None
    if not isinstance(value, Strength):
        raise TypeError(
            _("strength must be a handmade.widgets.Strength, or None; found {value}").format(value=brief(value))
        )
    keys = [stage.key for stage in stages]
    chosen([value.stage], "strength.stage", keys, _("strength.stage: no stage called {name}; choose from {allowed}"))
    return value


def save_path(value, default):
    return default if value is None else file_name(value, "save_path")


def choices(shapes, stages, edit, views, controls, strength_given):
    """(the parts with grids, the views, the controls, the parts left out), each checked against what
    there is (``shapes``: {part: its shape}); by default every part small enough for a grid, every
    view of every stage and the score, every control."""
    if edit is None:
        edit = [name for name, (rows, cols) in shapes.items() if rows * cols <= MAX_BOXES]
    else:
        edit = chosen(edit, "edit", list(shapes), _("edit: no part called {name}; choose from {allowed}"))
        for name in edit:
            _fits_a_grid(name, shapes[name])
    default_views = {view for stage in stages for view in stage.views} | {"accuracy"}
    kinds = [*V.VIEW_KINDS, *V.OUTCOMES]
    views = default_views if views is None else set(
        chosen(views, "views", kinds, _("views: no view called {name}; choose from {allowed}"))
    )  # fmt: skip
    default_controls = tuple(c for c in CONTROLS if c != "strength" or strength_given)
    controls = default_controls if controls is None else tuple(
        chosen(controls, "controls", CONTROLS, _("controls: no control called {name}; choose from {allowed}"))
    )  # fmt: skip
    left_out = [name for name, (rows, cols) in shapes.items() if name not in edit and rows * cols > MAX_BOXES]
    return edit, views, controls, left_out


def _fits_a_grid(name, shape):
    rows, cols = shape
    if rows * cols > MAX_BOXES:
        raise ValueError(
            _(
                "edit: {name} has {rows} x {cols} = {n} weights, more boxes than a grid holds ({limit}); leave it out and change it with with_part"
            ).format(name=name, rows=rows, cols=cols, n=f"{rows * cols:,}", limit=f"{MAX_BOXES:,}")
        )


def left_out_note(left_out, shapes):
    """What the status line says at the start when parts are too large for a grid, or ""."""
    if not left_out:
        return ""
    shown = [f"{name} ({shapes[name][0]} x {shapes[name][1]})" for name in left_out[:3]]
    return _("not edited here, more weights than a grid holds ({limit}): {parts}; with_part changes them").format(
        limit=f"{MAX_BOXES:,}", parts=listed(shown + ["…"] * (len(left_out) > 3))
    )


def break_at(value, editors):
    """None, or (part, row, column): a part with a grid, a row and a column of it."""
    if value is None:
        return None
    if not isinstance(value, (tuple, list)) or len(value) != 3 or not all(isinstance(v, str) for v in value):
        raise TypeError(
            _("break_at must be (part, row, column), three names, or None; found {value}").format(value=brief(value))
        )
    part, row, col = value
    chosen([part], "break_at", list(editors), _("break_at: no part with a grid called {name}; choose from {allowed}"))
    matrix = editors[part].matrix
    chosen([row], "break_at", matrix.rows, _("break_at: no row called {name}; choose from {allowed}"))
    chosen([col], "break_at", matrix.cols, _("break_at: no column called {name}; choose from {allowed}"))
    return tuple(value)


# ---- what one edit costs, estimated before anything is drawn -------------------------------------


def check_pass(structure, text):
    """Refuse a context whose pass would cost more than MAX_PASS_FLOPS, with the estimate."""
    positions = min(len(text), structure.n_ctx)
    cost = pass_flops(structure, positions)
    if cost > MAX_PASS_FLOPS:
        raise ValueError(
            _(
                "a pass of this model over {n} positions costs {cost} operations; a playground's edit may cost at most {limit}: a shorter text, please"
            ).format(n=positions, cost=f"{cost:.2g}", limit=f"{MAX_PASS_FLOPS:.0g}")
        )


def check_task_grading(task, structure):
    """Refuse a playground of ``task`` whose grade at each edit, of a model of ``structure``, would cost more than
    MAX_EDIT_GRADING, with the estimate."""
    from ..course.tasks import grading_cost

    cost = grading_cost(task, structure)[0]
    if cost > MAX_EDIT_GRADING:
        raise ValueError(
            _(
                "grading {task} at each edit would take about {cost:.1e} operations; a playground grades at most {limit:.0e} at each edit: grade a model of it in a cell, with grade(...)"
            ).format(task=task.called(), cost=cost, limit=MAX_EDIT_GRADING)
        )


def shown_cells(shape):
    """The numbers a table of ``shape`` draws: at most TABLE_SIDE rows and TABLE_SIDE columns."""
    return min(shape[0], TABLE_SIDE) * min(shape[1], TABLE_SIDE)


def check_cells(tables):
    """Refuse views that would draw more than MAX_CELLS numbers at each edit, with the estimate;
    ``tables``: the shapes of the tables they show."""
    cells = sum(shown_cells(shape) for shape in tables)
    if cells > MAX_CELLS:
        raise ValueError(
            _(
                "the views would draw {cells} numbers in {tables} tables at each edit; at most {limit} are drawn in time: a shorter text, or fewer views (views=[...])"
            ).format(cells=f"{cells:,}", tables=len(tables), limit=f"{MAX_CELLS:,}")
        )
