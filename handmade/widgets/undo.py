"""A playground's undo: what its last reset or load replaced (the weights and the context), kept until the next
change, and the buttons that bring it back: "undo reset" beside reset, "undo load" beside "load weights", one shown
at a time, for the last of them. A click on either loses nothing a learner made."""

from ..i18n import N_
from .marks import give_focus

UNDO_SAID = {  # what a reset or a load says, and its undo
    "reset": {
        "done": N_("reset to the starting weights"),
        "done_undoable": N_("reset to the starting weights; “undo reset” brings back the ones from before"),
        "undone": N_("the weights and the context from before the reset are back"),
        "none": N_("there is no reset to undo: “undo reset” brings back what a reset replaced until the next change"),
    },
    "load": {
        "done": N_("loaded the weights from {path}"),
        "done_undoable": N_("loaded the weights from {path}; “undo load” brings back the ones from before"),
        "undone": N_("the weights from before the load are back"),
        "none": N_("there is no load to undo: “undo load” brings back what a load replaced until the next change"),
    },
}


class Undo:
    """What the last reset or load replaced, ``before``: (kind, weights, context), or None; and each kind's buttons."""

    def __init__(self):
        self.before = None
        self.buttons = {}  # kind ("reset", "load") -> [its undo buttons]

    def add(self, kind, undo, back, press):
        """``undo``, shown while there is a ``kind`` to undo, calls ``press(kind)`` and then gives the keyboard to ``back``,
        the button beside it (the undo goes, and the focus with it)."""
        self.buttons.setdefault(kind, []).append(undo)
        undo.layout.display = None if self.offers(kind, self.before) else "none"
        undo.on_click(lambda _button: (press(kind), give_focus(back)))

    def offer(self, before):
        """Keep ``before`` and show its kind's button alone, or (None) forget what was kept and hide them all."""
        self.before = before
        for kind, buttons in self.buttons.items():
            for undo in buttons:
                undo.layout.display = None if self.offers(kind, before) else "none"

    def said(self, kind, before):
        """What a reset or a load (``kind``) says when it keeps ``before``: whether its undo is offered."""
        return UNDO_SAID[kind]["done_undoable" if self.offers(kind, before) else "done"]

    def offers(self, kind, before):
        """Whether ``before`` is what a ``kind`` replaced, for its undo to bring back."""
        return before is not None and before[0] == kind
