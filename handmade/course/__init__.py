"""The course around the model: the exercises' checkers (``checks``), the tasks a learner designs a
model for (``tasks``) and the grader that scores one (``grader``), the cost of a pass
(``efficiency``), and a second worked example (``worked_example``).
"""
