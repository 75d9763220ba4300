"""The playground: edit a model's weights and watch every view of it update at once.

``Playground`` edits any model the package can run, laid out by stage (the embedding, each block's
attention, values, projection and MLP, the output): in each stage the weight grids sit beside the
views they change, and a bar above always shows the context, the model's prediction and its score.
Every view is a table of one ``trace()`` of the package's ``gpt()``; one edit costs that one pass
plus the passes the score needs. The views are HTML from ``handmade.display.views``; the boxes
are laid out by ``layout``; the tools (break it, save, load) are in ``tools``. Nothing here knows
the blog's model: ``handmade.widgets.blog`` passes what is the blog's as options.

A bad entry (not a number, not finite, or weights that overflow) shows a message beside the
editor and leaves the model as it was. In a viewer without a kernel the widgets do not render,
so each notebook also shows ``playground.snapshot()``: the same views as static HTML, collapsed
and titled as the state saved with the notebook.
"""

import numpy as np

from .. import parts as P
from ..arguments import brief, exact, shown_path, text_of
from ..display import views as V
from ..display.outputs import Html
from ..display.trace import trace, weight_tables
from ..i18n import _, listed
from ..inference import prepare
from ..names import T
from ..tokenizer import fold
from ..weights import NonFiniteError, WeightsError, arrays_of, copied
from . import layout, tools
from . import options as O
from .editors import LARGEST, MatrixEditor, NumberControl, marked, message_html, say_in
from .options import Strength  # noqa: F401 (a playground's option, exported from here too)
from .score import TaskScore
from .undo import UNDO_SAID, Undo


class Playground:
    """Edit a model's weights and watch every view of it update at once.

    ``params``: the model, or ``task``: a task's name (its blank model, graded as you edit).
    ``edit``: which parts get grids (names from ``handmade.parts``; default: every part a grid can
    hold, at most ``editors.MAX_BOXES`` weights; the status line names the others). ``views``: which
    views to show (keys of ``display.views.VIEW_KINDS`` and ``OUTCOMES``; default: every stage's
    views and the score). ``controls``: any of "text" (the context), "reset", "strength" (shown
    when a ``strength`` is given), "break", "save". ``score``: ``params -> (passed, summary,
    details)``, shown in the bar. ``text``: the context to start from. ``break_at``: (part, row,
    column) that "break it" starts on. Each option is checked where it comes in (one line naming it),
    and what the views would draw is bounded before a widget is built (``options``).
    """

    def __init__(self, params=None, *, task=None, text=None, edit=None, views=None, controls=None, save_path=None,
                 score=None, strength=None, break_at=None):  # fmt: skip
        params, score = _with_task(params, task, score)
        self.task, self.original = task, _owned(prepare(params))
        self._params, self.score, self.stages = self.original, O.score(score), V.stages(self.original.structure)
        self.strength_option = O.strength(strength, self.stages)
        self.text = self._start_text = _first_context(task, self.params) if text is None else O.context(text)
        self.save_path = O.save_path(save_path, _save_name(task))
        O.check_pass(self.params.structure, self.text)  # before the layout's first pass
        if isinstance(self.score, TaskScore):  # graded at each edit: the model's grade, within a playground's time
            O.check_task_grading(self.score.task, self.params.structure)
        tables = weight_tables(self.params)
        shapes = {name: tables[name].shape for name in P.parts(self.params)}
        self.edit, self.view_names, self.controls, left_out = O.choices(
            shapes, self.stages, edit, views, controls, strength is not None
        )
        self.editors = {name: MatrixEditor(name, tables[name], self._edited) for name in self.edit}
        self.break_at = O.break_at(break_at, self.editors)
        self.strength = NumberControl(strength.name, strength.label, strength.value, self._strength_changed) if (
            strength is not None and "strength" in self.controls) else None  # fmt: skip
        self._last = None  # the trace on screen, to mark what an edit changed
        self.undo = Undo()  # what the last reset or load replaced, and the buttons that bring it back
        self._lay_out(O.left_out_note(left_out, shapes))

    def _lay_out(self, note):
        """The widgets, once what they will draw is known to fit; then the first views, and ``note``."""
        first = trace(self.text, self.params)
        self.laid_out = layout.what_each_stage_shows(self, first)  # [(stage, its grids, its views)]
        O.check_cells(self._tables(first))  # before a widget is built
        screen = self.screen = layout.build(self)
        self.widget, self.panels, self.summary, self.outcomes = (
            screen.widget, screen.panels, screen.summary, screen.outcomes)  # fmt: skip
        self.status, self.text_box, self.text_message = screen.status, screen.text_box, screen.text_message
        self._show(self._render(self.params, self.text, self._last))
        self.status.value = message_html(note, ok=True)

    # ---- the public surface: what notebooks and tests use

    def _ipython_display_(self):
        from IPython.display import display

        display(self.widget)

    def snapshot(self):
        """The current views as static HTML, collapsed, titled as the state saved with the notebook."""
        _t, shown = self._render(self.params, self.text, None)  # the live views' markup, unmarked
        heading = [f"<p>{shown['prediction']} {shown['accuracy']}</p>{shown.get('diagnosis', '')}"]
        heading += [shown[outcome] for outcome in ("predictions", "completion") if outcome in shown]
        sections, seen = [], set()  # a view two tabs share (q and k both show the scores) is shown once
        for stage in self.stages:
            views = [v for v in stage.views if (stage.key, v) in shown and (stage.block, v) not in seen]
            seen.update((stage.block, v) for v in views)
            if views:
                sections.append((stage.label, [shown[(stage.key, v)] for v in views]))
        summary = _(
            "Snapshot saved with the notebook, for readers without a running kernel (context {text}); the live playground above is the one to use"
        ).format(text=brief(self.text, 40))
        markup = V.snapshot_html(summary, "".join(heading), sections)
        return Html(markup, _("(snapshot of the playground on {text})").format(text=brief(self.text, 40)))

    def refresh(self):
        """Redraw every view from the current weights and context."""
        self._show(self._render(self.params, self.text, self._last))

    @property
    def params(self):
        """The weights it shows and runs: its own copy, whose arrays are read-only (change them with its grids,
        ``replace`` or ``handmade.with_parts``), so that what is graded is what is shown."""
        return self._params

    @params.setter
    def params(self, _value):
        raise AttributeError(_("a playground's params are its own: put other weights in with replace(weights)"))

    def replace(self, params, note=""):
        """Take a copy of new weights and show them everywhere (changing ``params`` afterwards changes nothing
        here). Weights that cannot run here raise ValueError, which the status line says too; the model is kept."""
        problem = self._take(params, note)
        if problem is not None:
            raise ValueError(problem)

    def _take(self, params, note, by_strength=False):
        """``replace``, for its buttons and controls: None, or why not (said in the status line). ``by_strength``:
        the strength's box sets these weights by its rule, and shows its value itself."""
        text_of(note, "note", 1000)
        try:
            params = _owned(params)  # checked there, by copied()
            self._check_fits(params)
            rendered = self._render(params, self.text, self._last)
        except (NonFiniteError, ValueError) as error:
            problem = _("{error}; the model is unchanged").format(error=error)
            say_in(self.status, message_html(problem))
            return problem
        self._params = params
        self.undo.offer(None)  # what a reset or a load replaced is no longer one step back
        self._show(rendered)  # the views first, then the grids: a page that shows the new grids shows their effect
        tables = weight_tables(params)
        self.status.value = ""  # a hidden tab's refusal said there goes with the grids' text: not said again as they go
        for name, editor in self.editors.items():
            editor.set_values(tables[name].values)
        say_in(self.status, message_html(note, ok=True))  # the same note again is read out again
        if not by_strength:
            self._strength_followed()
        return None

    def reset(self):
        """Every weight and every control back to where this playground started. What it replaced (the weights
        and the context) comes back with ``undo_reset``, until the next change: a click loses nothing, and a second
        click, which changes nothing, keeps what the first replaced."""
        self._use_undoably("reset", self.original, self._start_text, first=self._controls_as_started)

    def _controls_as_started(self):
        """A reset's part beside the weights: the context and the Lg box as this playground started, no cell marked."""
        self._use(self._start_text)
        if self.strength is not None:
            self.strength.set(self.strength_option.value)
            self.strength.show("")  # what it said of the weights before is no longer so
        self._last = None

    def _load(self, params, path):
        """The weights loaded from the file ``path``, in place of this playground's (the save row's "load weights").
        What they replaced comes back with ``undo_load``, until the next change: a design not saved is not lost."""
        return self._use_undoably("load", params, self.text, path=shown_path(path))

    def _use_undoably(self, kind, params, text, first=None, **names):
        """Take ``params`` (and ``text``, which ``first`` puts in use with the other controls) for a reset or a load
        (``kind``), keeping what they replace for "undo reset" or "undo load" until the next change; one that changes
        nothing keeps what was kept before. None, or why not."""
        changed = text != self.text or not _same_model(params, self.params)
        before = (kind, self.params, self.text) if changed else self.undo.before  # or None: nothing to bring back
        if first is not None:
            first()
        problem = self._take(params, _(self.undo.said(kind, before)).format(**names))
        if problem is None:
            self.undo.offer(before)
        return problem

    def undo_reset(self):
        """The weights and the context the last reset replaced, back; when there are none (no reset that changed
        anything, or a change since), the status line says so."""
        self._undo("reset")

    def undo_load(self):
        """The weights the last load replaced, back; when there are none, the status line says so."""
        self._undo("load")

    def _undo(self, kind):
        if not self.undo.offers(kind, self.undo.before):
            return say_in(self.status, message_html(_(UNDO_SAID[kind]["none"]), ok=True))
        _kind, params, text = self.undo.before
        if text != self.text:  # a load's undo keeps the context, and a refused one the learner typed since
            self._use(text)
        self._last = None
        self._take(params, _(UNDO_SAID[kind]["undone"]))

    def _use(self, text):
        """Use the context ``text`` (one this playground has used before) and show it in its box, run by the
        caller's ``_take`` with the weights that go with it."""
        self.text = text
        if self.text_box is not None:
            self.text_box.value = text  # the observer finds it in use and runs nothing
            self._accept_text()  # a refused context the box showed is taken back, changed or not

    # ---- computing what is shown

    def _render(self, params, text, before):
        """(trace, {what: html}) for the bar and every panel, the cells that changed since the trace
        ``before`` (None: nothing to compare with) outlined; raises if these weights cannot run on ``text``."""
        O.check_pass(params.structure, text)
        t = trace(text, params)
        O.check_cells(self._tables(t))  # before any HTML is built
        shown = {"prediction": V.prediction_html(t), **self._score_html(params)}
        if "predictions" in self.outcomes:
            shown["predictions"] = V.predictions_html(t)
        if "completion" in self.outcomes:
            shown["completion"] = V.completion_html(params, text)
        for stage in self.stages:
            for view in stage.views:
                if (stage.key, view) in self.panels:
                    shown[(stage.key, view)] = V.panel_html(t, V.view_names(t, view, stage.block), before)
        return t, shown

    def _tables(self, t):
        """The shapes of the tables the views show for the trace ``t``."""
        shapes = [t[T.probabilities].shape] if "predictions" in self.view_names else []
        for stage, _grids, views in self.laid_out:
            for view in views:
                shapes += [t[name].shape for name in V.view_names(t, view, stage.block)]
        return shapes

    def _show(self, rendered):
        t, shown = rendered
        same = _same_trace(self._last, t)  # nothing on screen changed: keep what the last change outlined
        for key, value in shown.items():
            target = self.summary.get(key) or self.outcomes.get(key) or (None if same else self.panels.get(key))
            if target is not None and target.value != value:
                target.value = value
        self._last = self._last if same else t

    def _score_html(self, params):
        """{"accuracy": the score's verdict, "diagnosis": its details} (shown below the grids)."""
        if self.score is None:
            return {"accuracy": ""}
        passed, summary, details = _verdict(self.score(params))
        return {
            "accuracy": V.score_html(getattr(self.score, "label", ""), passed, summary),
            "diagnosis": V.details_html(details),
        }

    # ---- editing

    def _edited(self, name, values):
        try:
            candidate = P.with_part(self.params, name, values)
            rendered = self._render(candidate, self.text, self._last)
        except (NonFiniteError, ValueError) as error:
            return str(error)
        self._params = _owned(candidate)
        self._show(rendered)
        self._news_past()
        self._strength_followed()
        return ""

    def _news_past(self):
        """Something else happened (an edit, another context): what the status line said of the action before it
        (a reset, a break, a load) no longer tells what is shown, and goes, but not what a hidden tab's boxes refuse,
        which stands while it is so (``layout``); and so does what an undo would bring back."""
        if not layout.says_a_refusal_left(self):
            self.status.value = ""
        self.undo.offer(None)

    def _strength_followed(self):
        """After anything that changed the weights (an edit, a break, a load), the strength's box shows the value
        whose rule they follow: the one it shows while they still follow it, else the one they follow now (the
        option's ``read``: weights saved at another Lg, loaded), said beside it; else it is emptied, and says
        why (``forget``), so that a value typed there then is used, the same one too."""
        box = self.strength
        if box is None or (not box.forgotten and self._follows(box.value)):
            return
        read = self.strength_option.read
        found = None if read is None else read(self.params)
        if found is not None and abs(found) <= LARGEST and self._follows(found):
            box.set(found)
            box.show(_("these weights follow this rule at {value}").format(value=exact(found)), ok=True)
        else:
            box.forget()

    def _follows(self, value):
        """Whether the weights are what the strength's rule makes of them at ``value``."""
        try:
            ruled = self.strength_option.apply(self.params, value)
        except ValueError:  # the rule cannot be applied to these weights at all
            return False
        return _same_weights(ruled, self.params)

    def _use_text(self, text):
        folded = fold(text, self.params.labels.alphabet)
        if folded != text:  # the box shows what is used: the observer comes back here with it
            self.text_box.value = folded
            return
        if text == self.text:  # the context in use (typed again, or put back by a reset): nothing to run again
            return self._accept_text()
        if len(text) > O.MAX_CONTEXT_CHARS:
            return self._refuse_text(
                _("a context of at most {limit} characters, please; still showing {text}").format(
                    limit=O.MAX_CONTEXT_CHARS, text=brief(self.text, 30)
                )
            )
        try:
            rendered = self._render(self.params, text, None)  # another context: nothing to compare with
        except (NonFiniteError, ValueError) as error:
            return self._refuse_text(_("{error}; still showing {text}").format(error=error, text=brief(self.text, 30)))
        self.text = text
        self._accept_text()
        self._show(rendered)
        self._news_past()

    def _accept_text(self):
        self.text_message.value = ""
        marked(self.text_box, _("context"), "")

    def _refuse_text(self, said):
        say_in(self.text_message, message_html(said))
        marked(self.text_box, _("context"), said)

    def _check_fits(self, params):
        """The grids need the same parts of the same shapes as the model this playground started with."""
        mine = {name: p.shape for name, p in P.parts(self.params).items()}
        theirs = {name: p.shape for name, p in P.parts(params).items()}
        if mine != theirs:
            raise WeightsError(
                _("this playground edits a model with parts {mine}; these weights have {theirs}").format(
                    mine=_shape_summary(mine), theirs=_shape_summary(theirs)
                )
            )

    def _strength_changed(self, value):
        option = self.strength_option
        try:
            new = option.apply(self.params, value)
        except ValueError as error:
            self.strength.show(str(error))
            return False
        return self._take(new, option.done.format(value=exact(value)), by_strength=True) is None

    def break_control(self):
        """The row that breaks one weight: a part with a grid is needed."""
        if not self.editors:
            raise ValueError(_("break_control needs a part with a grid; this playground edits none (edit=[])"))
        return tools.break_control(self, self.break_at)

    def save_control(self):
        return tools.save_control(self, self.save_path)

    def reveal_control(self):
        """The button that shows the reference solution's shares: a task's playground has one."""
        if not isinstance(self.score, TaskScore):
            raise ValueError(
                _("reveal_control shows a task's answer: only a task's playground has one (Playground(task=...))")
            )
        return tools.reveal_control(self)


def _verdict(said):
    """What a score returned, as (passed, summary, details): a truth, a sentence and a list of lines."""
    fits = isinstance(said, tuple) and len(said) == 3 and isinstance(said[1], str)
    if not fits or not isinstance(said[2], (list, tuple)) or not all(isinstance(d, str) for d in said[2]):
        raise TypeError(
            _(
                "score must return (passed, summary, details): a truth, a sentence and a list of lines; it returned {value}"
            ).format(value=brief(said))
        )
    return bool(said[0]), said[1], said[2]


def _same_trace(before, after):
    """Whether two traces show the same context with the same numbers everywhere."""
    if before is None or before.text != after.text or list(before) != list(after):
        return False
    return all(np.array_equal(before[name].values, after[name].values, equal_nan=True) for name in after)


def _same_model(params, other):
    """Whether two checked weights are one model as a playground shows it: the same arrays, heads and labels."""
    same_heads = params.structure == other.structure  # n_head is not an array
    return same_heads and params.labels == other.labels and _same_weights(params, other)


def _same_weights(params, other):
    """Whether two weights dicts hold the same arrays under the same names, entry for entry."""
    mine, theirs = arrays_of(params), arrays_of(other)
    return mine.keys() == theirs.keys() and all(np.array_equal(mine[k], theirs[k]) for k in mine)


def _owned(params):
    """Checked ``params`` as a playground's own: copies of their arrays, read-only, so that nothing but the
    playground changes what it shows (a learner's array changed in place, or one changed through ``params``)."""
    mine = copied(params)
    for array in arrays_of(mine).values():
        array.flags.writeable = False
    return mine


def _with_task(params, task, score):
    """(params, score): a task's blank model and its grade when a task is given."""
    if task is None:
        if params is None:
            raise ValueError(_("a playground needs a model (params) or a task (task=...)"))
        return params, score
    from ..course.tasks import blank, get_task

    task = get_task(task)
    return (blank(task) if params is None else params), (TaskScore(task) if score is None else score)


def _save_name(task):
    """Where a playground saves by default: a file named after its task, so that each task's
    playground keeps its own work."""
    if task is None:
        return "my_model.json"
    from ..course.tasks import get_task

    return f"{get_task(task).name}.json"


def _first_context(task, params):
    """The longest graded context of the task (every position of it is a question), else the
    alphabet's first n_ctx characters."""
    n_ctx = len(params["wpe"])
    if task is not None:
        from ..course.tasks import examples, get_task

        return max((e.context for e in examples(get_task(task))), key=len)[-n_ctx:]
    return (params.labels.alphabet or "")[:n_ctx]


def _shape_summary(shapes, limit=4):
    items = [f"{name} {rows}x{cols}" for name, (rows, cols) in shapes.items()]
    if len(items) <= limit:
        return listed(items)
    return _("{parts}, … ({n} parts)").format(parts=listed(items[:limit]), n=len(items))
