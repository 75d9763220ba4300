"""``python -m handmade``: complete, predict and score with the blog's model or your own weights.

Bad input (a character outside the alphabet, a broken or oversized weights file, a negative or
huge -n, a teacher's --tasks file that is missing, is not Python, raises or defines no task) ends
with exit status 2 and one short line on stderr, never a traceback. Files are written atomically,
and a file that is not a weights file is only replaced with --force.
"""

import argparse
import json
import sys

import numpy as np

from .blog import ALPHABET, blog_model
from .files import load_weights, save_weights
from .i18n import LANGUAGES, _, set_language
from .inference import MAX_NEW_TOKENS, accuracy, complete, predict
from .training import MAX_SEED, MAX_STEPS, train_task

MAX_MESSAGE = 200  # characters of an error line: enough to name the problem, never a wall of text


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # argparse prints the usage too; one line is enough
        raise UsageError(_("{message} (see --help)").format(message=message))


class UsageError(Exception):
    """Bad arguments: reported in one line with status 2."""


def _whole(low, high):
    """An argparse type: a whole number from ``low`` to ``high`` (the limits are in the message)."""

    def parse(text):
        try:
            n = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(
                _("invalid whole number: {text}").format(text=_clip(repr(text), 40))
            ) from None
        if not low <= n <= high:
            raise argparse.ArgumentTypeError(
                _("must be a whole number from {low} to {high}; found {n}").format(
                    low=low, high=high, n=_clip(text, 40)
                )
            )
        return n

    return parse


def build_parser():
    parser = _Parser(
        prog="python -m handmade",
        description=_(
            "complete, predict and score with the blog's model or your own weights; design and train models for tasks"
        ),
    )
    parser.add_argument(
        "--lang",
        choices=LANGUAGES,
        help=_("the language of every message: en (the default) or zh (also: HANDMADE_LANG=zh)"),
    )
    weights = argparse.ArgumentParser(add_help=False)
    weights.add_argument("--weights", metavar="FILE.json", help=_("weights saved as JSON (default: the blog's model)"))
    weights.add_argument(
        "--alphabet",
        help=_("the characters, token 0 first (default: the model's own, or {alphabet})").format(alphabet=ALPHABET),
    )
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    sub = commands.add_parser("complete", parents=[weights], help=_("continue TEXT greedily: TEXT :: CONTINUATION"))
    sub.add_argument("text", metavar="TEXT")
    sub.add_argument(
        "-n", type=_whole(0, MAX_NEW_TOKENS), default=10, metavar="N", help=_("how many tokens to add (default: 10)")
    )
    sub = commands.add_parser("predict", parents=[weights], help=_("the prediction at every position of TEXT"))
    sub.add_argument("text", metavar="TEXT")
    commands.add_parser("accuracy", parents=[weights], help=_('score the (aab)* task on "aab" * 10'))
    sub = commands.add_parser("export", help=_("write the blog's weights to a JSON file, to edit by hand"))
    sub.add_argument("path", metavar="FILE.json")
    sub.add_argument("--force", action="store_true", help=_("replace FILE.json even if it is not a weights file"))
    _task_commands(commands)
    return parser


def _task_commands(commands):
    """tasks, blank, grade and train: each also reads a teacher's tasks from --tasks FILE.py."""
    task_file = argparse.ArgumentParser(add_help=False)
    task_file.add_argument(
        "--tasks",
        metavar="FILE.py",
        help=_(
            "a Python file of tasks written with @handmade.task: tasks lists only its tasks; blank, grade and train take their names too"
        ),
    )
    commands.add_parser("tasks", parents=[task_file], help=_("list the tasks to design a transformer for"))
    sub = commands.add_parser(
        "blank", parents=[task_file], help=_("write all-zero weights of a task's shape, with its named directions")
    )
    sub.add_argument("task", metavar="TASK")
    sub.add_argument("path", metavar="FILE.json")
    sub.add_argument("--force", action="store_true", help=_("replace FILE.json even if it is not a weights file"))
    sub = commands.add_parser(
        "grade", parents=[task_file], help=_("grade weights on a task: exit 0 on a pass, 1 on a fail, 2 on bad input")
    )
    sub.add_argument("task", metavar="TASK")
    sub.add_argument("--weights", metavar="FILE.json", required=True, help=_("the weights to grade"))
    sub.add_argument("--json", action="store_true", help=_("print the report as one JSON object"))
    sub.add_argument(
        "--reveal", action="store_true", help=_("also show the reference solution's share of the margin: the answer")
    )
    sub = commands.add_parser(
        "train", parents=[task_file], help=_("train a task's model from a random start and save it")
    )
    sub.add_argument("task", metavar="TASK")
    sub.add_argument(
        "--steps", type=_whole(1, MAX_STEPS), default=300, metavar="N", help=_("training steps (default: 300)")
    )
    sub.add_argument(
        "--seed", type=_whole(0, MAX_SEED), default=0, metavar="S", help=_("the random start (default: 0)")
    )
    sub.add_argument("--out", metavar="FILE.json", required=True, help=_("where to save the trained weights"))
    sub.add_argument("--force", action="store_true", help=_("replace FILE.json even if it is not a weights file"))


def run(args):
    """(the command's output as text, exit status); raises ValueError (or another reported error) on bad input."""
    if args.command in ("tasks", "blank", "grade", "train"):
        return _task_command(args)
    return _model_command(args), 0


def _task_command(args):
    from .course import grader, tasks

    loaded = tasks.load_tasks(args.tasks) if args.tasks is not None else {}
    if args.command == "tasks":  # the file's tasks alone when there is a file: the ones its author is writing
        return "\n\n".join(task.describe() for task in (loaded or tasks.TASKS).values()), 0
    task = tasks.get_task(args.task, {**tasks.TASKS, **loaded})
    if args.command == "blank":
        return save_weights(tasks.blank(task), args.path, force=args.force), 0
    if args.command == "train":
        params, history = train_task(task, args.steps, seed=args.seed, progress=sys.stderr.isatty())
        saved = save_weights(params, args.out, force=args.force)
        report = grader.grade(task, params, diagnose=False)
        return "\n".join([str(history), saved, *report.lines()[:3]]), 0
    report = grader.grade(task, load_weights(args.weights), reveal=args.reveal)
    if args.json:
        return json.dumps(
            {**report.to_json(), **({"revealed": report.revealed} if args.reveal else {})}, ensure_ascii=False
        ), report.exit_status
    return str(report), report.exit_status


def _model_command(args):
    if args.command == "export":
        return save_weights(blog_model(), args.path, force=args.force)
    params = None if args.weights is None else load_weights(args.weights)
    if args.command == "complete":
        return complete(args.text, args.n, params, alphabet=args.alphabet)
    if args.command == "predict":
        return str(predict(args.text, params, alphabet=args.alphabet))
    score = accuracy(params, alphabet=args.alphabet)
    misses = [
        _("  missed: {context} -> expected {expected}, got {got}").format(
            context=ex.context, expected=ex.expected, got=got
        )
        for ex, got in score.failures
    ]
    return "\n".join([str(score), *misses])


def _clip(text, limit=MAX_MESSAGE):
    text = " ".join(str(text).split())  # one line, whatever the message held
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _language(argv):
    """The --lang the arguments ask for, read before the parser is built (its help is translated)."""
    for i, arg in enumerate(argv):
        if arg.startswith("--lang="):
            return arg.split("=", 1)[1]
        if arg == "--lang" and i + 1 < len(argv):
            return argv[i + 1]
    return None


def main(argv=None):
    _utf8_when_redirected()
    argv = sys.argv[1:] if argv is None else list(argv)
    if _language(argv) in LANGUAGES:
        set_language(_language(argv))
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        with np.errstate(all="ignore"):  # overflow is reported as an error below, not as warnings
            output, status = run(args)
    except UsageError as error:
        return _fail(parser, error)
    except (ValueError, FloatingPointError, OSError, RecursionError, MemoryError) as error:
        return _fail(parser, error)
    except KeyboardInterrupt:
        print(_clip(_("{prog}: interrupted").format(prog=parser.prog)), file=sys.stderr)
        return 130
    print(output)
    return status


def _utf8_when_redirected():
    """Output into a file or a pipe is UTF-8 on every platform (Windows' usual default, cp1252, has
    no '→' and no Chinese); a terminal keeps the encoding it declares."""
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure") and not stream.isatty():
            stream.reconfigure(encoding="utf-8")


def _fail(parser, error):
    print(_clip(_("{prog}: error: {error}").format(prog=parser.prog, error=error)), file=sys.stderr)
    return 2
