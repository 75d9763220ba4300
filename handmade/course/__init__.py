"""The course around the model: the exercises' checkers (``checks``, a module each, and ``verdict``,
how they read answers and word verdicts), the tasks a learner designs a model for (``tasks``, what
``@task`` is given in ``task_options``, the built-in ones in ``builtin_tasks``, their answers in
``references``, looked up with the challenges' solutions in ``solutions``) and the grader that
scores one (``grader``, and the report it fills in, which ``explain`` words and ``path`` helps: the
margin shared out among the parts, and the path back from the part named to the cause), the FLOP
counter (``efficiency``), and a second worked example (``worked_example``).

Importing the package puts the built-in tasks in ``tasks.TASKS`` and attaches their reference
solutions, unless this install goes without them (``tasks.references_off``, or a wheel built
without the module: README, "For teachers"); ``solutions.reference`` then says so.
"""

import importlib
import importlib.util

from . import builtin_tasks  # noqa: F401  (the built-in tasks, which fill tasks.TASKS)
from .tasks import references_off

if not references_off() and importlib.util.find_spec(f"{__name__}.references") is not None:
    importlib.import_module(f"{__name__}.references")
