"""``python -m handmade``: complete, predict and score with the blog's model or your own weights.

Bad input (a character outside the alphabet, a broken or oversized weights file, a negative or
huge -n, a teacher's --tasks file that is missing, is not Python, raises or defines no task) ends
with exit status 2 and one short line on stderr, never a traceback. Files are written atomically,
and a file that is not a weights file is only replaced with --force.

The exit status says how it ended: 0 done, 1 ``grade`` failed the model, 2 bad input, 3 the output
could not be written (a full disk, a closed terminal), 130 interrupted (Ctrl-C), 143 terminated
(on POSIX the process then ends by that signal itself, which the shell shows as 130 or 143, so
that a script running it stops too); when the reader of a pipe stops early (``| head -1``), it
stops quietly, with 141, as a tool that SIGPIPE ends does. The messages, argparse's own included,
are in the language of --lang, else of HANDMADE_LANG, else of the system's locale (LANGUAGE,
LC_ALL, LC_MESSAGES, LANG, as gettext reads them): any Chinese locale is "zh", anything else English.
"""

import argparse
import contextlib
import itertools
import json
import os
import re
import signal
import sys
from functools import partial

import numpy as np

from . import _quiet
from .arguments import MAX_MESSAGE, clip, shown_path
from .blog import ALPHABET, blog_model
from .files import (
    BLANK_CHARACTERS,
    TRAINED_CHARACTERS,
    NotWeightsFile,
    check_can_save,
    check_fits_a_file,
    load_weights,
    new_file,
    save_weights,
)
from .i18n import LANGUAGES, N_, _, from_environment, listed, ngettext, set_language
from .inference import MAX_NEW_TOKENS, accuracy, complete, predict
from .reasons import reason as said
from .training import MAX_SEED, MAX_STEPS, train_task

PROG = "python -m handmade"
MAX_LINE = len(PROG) + 10 + MAX_MESSAGE  # a line on stderr: the program, "error:", and the library's one line whole
TASK_COMMANDS = ("tasks", "blank", "grade", "train", "solution")  # the rest (complete, predict, ...) use one model
NOT_WEIGHTS = N_(
    "{prog}: error: '{path}' exists and is not a weights file; choose another name, or replace it with --force"
)
BAD_INPUT, CANNOT_WRITE, INTERRUPTED, PIPE_CLOSED, TERMINATED = 2, 3, 130, 141, 143  # and 0, or grade's 0 or 1
REQUIRED = N_("the following arguments are required: %s")  # argparse joins the names with ", ": see _Parser.error

# argparse's own sentences, which it looks up through ``argparse._`` and ``argparse.ngettext`` when it
# speaks; ``_argparse_speaks`` points those at the catalogue's, where these marks put them.
ARGPARSE_SENTENCES = (
    N_("usage: "),
    N_("positional arguments"),
    N_("options"),
    N_("%(heading)s:"),  # Python 3.13 and later
    N_("show this help message and exit"),
    REQUIRED,
    N_("unrecognized arguments: %s"),
    N_("invalid choice: %(value)r (choose from %(choices)s)"),
    N_("argument %(argument_name)s: %(message)s"),
    N_("expected one argument"),
    N_("expected at most one argument"),
    N_("expected at least one argument"),
    N_("invalid %(type)s value: %(value)r"),
    N_("ambiguous option: %(option)s could match %(matches)s"),
    N_("ignored explicit argument %r"),
    N_("one of the arguments %s is required"),
    N_("not allowed with argument %s"),
    N_("unexpected option string: %s"),
    ngettext("expected %s argument", "expected %s arguments", 1),
)


class _Formatter(argparse.HelpFormatter):
    """argparse's help with each section's heading ended by the language's own colon (位置参数：), which
    argparse before Python 3.13 writes as ":" whatever the language."""

    def format_help(self):
        headings = re.compile(r"^(\S[^\n]*?):$", re.M)  # a line at the margin ending in ":"
        return headings.sub(lambda m: _("{heading}:").format(heading=m[1]), super().format_help())


class _Parser(argparse.ArgumentParser):
    """argparse's parser, made with ``_Formatter`` (``PARSER``), whose errors and help are ours to print, and whose
    options take one value each (``_Once``)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.register("action", None, _Once)  # argparse's default action, "store", for every argument

    def error(self, message):  # argparse prints the usage too; one line is enough
        message = _required_listed(message)
        raise UsageError(_("{message} (see --help)").format(message=clip(message, MAX_MESSAGE - 50)))

    def _check_value(self, action, value):  # argparse joins the choices with ", ", whatever the language
        if action.choices is not None and value not in action.choices:
            choices = listed(map(repr, action.choices))
            message = _("invalid choice: %(value)r (choose from %(choices)s)") % {"value": value, "choices": choices}
            raise argparse.ArgumentError(action, message)

    def _print_message(self, message, file=None):  # argparse drops a failed write: ours says so (_write)
        raise HelpShown(message)


def _required_listed(message):
    """argparse's message on the missing arguments with their names listed as the language lists them
    (TASK、--weights in Chinese): argparse joins them with ", ", whatever the language. Any other message as it is."""
    before, _percent, after = _(REQUIRED).partition("%s")
    if len(message) < len(before) + len(after) or not (message.startswith(before) and message.endswith(after)):
        return message
    names = message[len(before) : len(message) - len(after)]
    return _(REQUIRED) % listed(names.split(", "))


PARSER = partial(_Parser, formatter_class=_Formatter)  # the command line's parser and each command's


class _Once(argparse.Action):
    """An option that takes one value: given a second time it is refused, naming both (argparse would keep
    the last, and a teacher's first --tasks file would be left out without a word)."""

    def __call__(self, parser, namespace, values, option_string=None):
        given = vars(namespace).setdefault("_given", set())
        if self.dest in given:
            first, second = (clip(repr(v), 40) for v in (getattr(namespace, self.dest), values))
            raise argparse.ArgumentError(
                self, _("given twice, {first} and then {second}; give it once").format(first=first, second=second)
            )
        given.add(self.dest)
        setattr(namespace, self.dest, values)


class HelpShown(Exception):  # noqa: N818  (not a failure: the text --help asked for, to print)
    """The help argparse would print: printed by ``_write``, which handles a closed pipe or a full disk."""


class UsageError(Exception):
    """Bad arguments: reported in one line with status 2."""


def _whole(low, high, text):
    """An argparse type, its limits given first (``partial``): ``text`` as a whole number
    from ``low`` to ``high`` (the limits are in the message)."""
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(_("invalid whole number: {text}").format(text=clip(repr(text), 40))) from None
    if not low <= n <= high:
        raise argparse.ArgumentTypeError(
            _("must be a whole number from {low} to {high}; found {n}").format(low=low, high=high, n=clip(text, 40))
        )
    return n


def build_parser():
    parser = PARSER(
        prog=PROG,
        description=_(
            "complete, predict and score with the blog's model or your own weights; design and train models for tasks"
        ),
    )
    parser.add_argument(
        "--lang",
        action="append",  # more than once, the last counts: _language reads them first
        choices=LANGUAGES,
        help=_("the language of every message: en (the default) or zh (also: HANDMADE_LANG=zh)"),
    )
    weights = PARSER(add_help=False)
    weights.add_argument("--weights", metavar="FILE.json", help=_("weights saved as JSON (default: the blog's model)"))
    weights.add_argument(
        "--alphabet",
        help=_("the characters, token 0 first (default: the model's own, or {alphabet})").format(alphabet=ALPHABET),
    )
    # prog given: argparse would otherwise format the whole help to find it, on every call
    commands = parser.add_subparsers(  # named COMMAND, as TASK is, in every language: not by its dest, "command"
        dest="command", metavar="COMMAND", required=True, parser_class=PARSER, prog=PROG
    )
    sub = commands.add_parser("complete", parents=[weights], help=_("continue TEXT greedily: TEXT :: CONTINUATION"))
    sub.add_argument("text", metavar="TEXT")
    tokens = partial(_whole, 0, MAX_NEW_TOKENS)
    sub.add_argument("-n", type=tokens, default=10, metavar="N", help=_("how many tokens to add (default: 10)"))
    sub = commands.add_parser("predict", parents=[weights], help=_("the prediction at every position of TEXT"))
    sub.add_argument("text", metavar="TEXT")
    commands.add_parser("accuracy", parents=[weights], help=_('score the (aab)* task on "aab" * 10'))
    sub = commands.add_parser("export", help=_("write the blog's weights to a JSON file, to edit by hand"))
    sub.add_argument("path", metavar="FILE.json")
    sub.add_argument("--force", action="store_true", help=_("replace FILE.json if it exists"))
    _task_commands(commands)
    sub = commands.add_parser("solution", help=_("show the solution of a challenge, with its reasons: the answer"))
    sub.add_argument("task", metavar="TASK")
    for command in commands.choices.values():  # --lang after the command too, as people write options last
        command.add_argument(
            "--lang", action="append", choices=LANGUAGES, default=argparse.SUPPRESS, help=argparse.SUPPRESS
        )
    return parser


def _task_commands(commands):
    """tasks, blank, grade and train: each also reads a teacher's tasks from --tasks FILE.py."""
    task_file = PARSER(add_help=False)
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
    sub.add_argument("--force", action="store_true", help=_("replace FILE.json if it exists"))
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
        "--steps", type=partial(_whole, 1, MAX_STEPS), default=300, metavar="N", help=_("training steps (default: 300)")
    )
    sub.add_argument(
        "--seed", type=partial(_whole, 0, MAX_SEED), default=0, metavar="S", help=_("the random start (default: 0)")
    )
    sub.add_argument("--out", metavar="FILE.json", required=True, help=_("where to save the trained weights"))
    sub.add_argument("--force", action="store_true", help=_("replace FILE.json if it exists"))


def _task_command(args):
    """(the output of tasks, blank, grade, train or solution as text, exit status); raises ValueError (or
    another reported error) on bad input."""
    if args.command == "solution":
        from .course.solutions import solution

        return str(solution(args.task)), 0
    from .course import grader, progress, tasks

    loaded = tasks.load_tasks(args.tasks) if args.tasks is not None else {}
    if args.command == "tasks":  # the file's tasks alone when there is a file: the ones its author is writing
        return _task_list(loaded or tasks.TASKS)
    task = tasks.get_task(args.task, {**tasks.TASKS, **loaded})
    tasks.usable(task)  # a task that cannot be used (or graded) says so before anything else is read or written
    if args.command == "blank":
        check_fits_a_file(task.structure, BLANK_CHARACTERS, task.called())  # before the weights are made
        return save_weights(tasks.blank(task), new_file(args.path, args.force, args.tasks), force=args.force), 0
    if args.command == "train":
        check_fits_a_file(task.structure, TRAINED_CHARACTERS, task.called())  # a file it could not write: said now
        check_can_save(new_file(args.out, args.force, args.tasks), args.force)  # training, and one it may not write
        params, history = train_task(task, args.steps, seed=args.seed, progress=sys.stderr.isatty())
        saved = save_weights(params, args.out, force=args.force)
        report = grader.grade(task, params, diagnose=False)  # training found it, not the learner: nothing recorded
        problem = progress.note_trained(task, grader.submission(task, params))  # nor will be, when it is graded
        return "\n".join([str(history), saved, *report.lines()[:3], *([problem] if problem else [])]), 0
    report = grader.handed_in(task, load_weights(args.weights), reveal=args.reveal, every_path=args.json)
    if args.json:  # every failing context's path back, counted in the estimate that allowed the grade
        return json.dumps(report.to_json(), ensure_ascii=False).translate(JSON_ESCAPED), 0 if report.passed else 1
    return str(report), 0 if report.passed else 1


def _task_list(listed):
    """(each task described, those this learner has passed marked so, and how many: from the progress
    file the grader writes (handmade.course.progress), or why it cannot be read; status 0), or with a
    task that cannot be used (over a limit, or its rule fails), the others listed, its one line said
    on stderr, and status 2; so are the tasks left when time ran out (``course.listing``)."""
    from .course import progress
    from .course.listing import entries

    current = progress.read()
    found, usable, refused = entries(listed, current.has)
    done = sum(current.has(task) for task in usable)
    summary = current.problem or ngettext(
        "You have passed {done} of {total} task (recorded in {path}).",
        "You have passed {done} of these {total} tasks (recorded in {path}).",
        len(usable),
    ).format(done=done, total=len(usable), path=progress.path())
    for error in refused:
        _fail(_("{prog}: error: {error}"), error)
    if not usable:  # nothing to list: the lines on stderr say why
        return None, BAD_INPUT
    return "\n\n".join([*found, summary]), BAD_INPUT if refused else 0


def _model_command(args):
    """(the output of export, complete, predict or accuracy as text, 0)."""
    if args.command == "export":
        return save_weights(blog_model(), new_file(args.path, args.force), force=args.force), 0
    params = None if args.weights is None else load_weights(args.weights)
    if args.command == "complete":
        return complete(args.text, args.n, params, alphabet=args.alphabet), 0
    if args.command == "predict":
        return str(predict(args.text, params, alphabet=args.alphabet)), 0
    score = accuracy(params, alphabet=args.alphabet)
    misses = [
        _("  missed: {context} → expected {expected}, got {got}").format(
            context=ex.context, expected=ex.expected, got=got
        )
        for ex, got in score.failures
    ]
    return "\n".join([str(score), *misses]), 0


def _language(argv):
    """The --lang the arguments ask for, read before the parser is built (its help is translated), by
    argparse's own rules: ``--lang zh``, ``--lang=zh`` and the short forms it takes too (``--la zh``);
    given more than once, the last of a known language (a wrong one after it is said in that language)."""
    first = argparse.ArgumentParser(add_help=False, exit_on_error=False)
    first.add_argument("--lang", action="append", default=[])
    try:
        asked = first.parse_known_args(argv)[0].lang
    except argparse.ArgumentError:  # --lang with nothing after it (the parser says so): the one before it
        return _language(argv[: max(i for i, arg in enumerate(argv) if arg.startswith("--"))])
    return next((language for language in reversed(asked) if language in LANGUAGES), None)


def _misplaced(parser, argv):
    """An option of a command given before it ("--tasks f.py tasks", which argparse calls an invalid choice of command,
    'f.py'; "--tas", as argparse lets it be shortened, too): UsageError saying so, naming the commands that take it;
    else nothing (argparse's own line stands)."""
    commands = parser._subparsers._group_actions[0].choices  # {name: its parser}
    options = {o for sub in commands.values() for o in sub._option_string_actions} - {"--lang", "-h", "--help"}
    for arg in (a.split("=")[0] for a in itertools.takewhile(lambda a: a not in commands, argv)):
        meant = {arg} & options or {o for o in options if arg.startswith("--") and o.startswith(arg)}
        if len(meant) == 1:  # one option it can be
            option = meant.pop()
            takers = [name for name, sub in commands.items() if option in sub._option_string_actions]
            command = next((a for a in argv if a in takers), takers[0])  # the command typed, if it takes it
            misplaced = _(
                "{option} is an option of a command ({commands}): give it after the command, as in {prog} {command} {option} …"
            )
            raise UsageError(misplaced.format(option=option, commands=listed(takers), prog=PROG, command=command))


def main(argv=None):
    """Run the command line on ``argv`` (default: the process's arguments); returns the exit status."""
    saved = {}  # the signal handlers there were, put back for a caller that goes on (a test)
    _quiet.stops.clear()
    try:
        try:
            _as_a_command(saved)
            argv = sys.argv[1:] if argv is None else list(argv)
            set_language(_language(argv) or from_environment() or "en")
            with _argparse_speaks():  # the parser made in it too: its own help's words (-h) are translated
                parser = build_parser()
                try:
                    args = parser.parse_args(argv)
                except UsageError:
                    _misplaced(parser, argv)
                    raise
            with np.errstate(all="ignore"):  # overflow is reported as an error below, not as warnings
                run = _task_command if args.command in TASK_COMMANDS else _model_command
                output, status = run(args)
            if _quiet.stops:  # a SIGTERM that came while a module compiled: said before any output (and below)
                _quiet.again()
            return _write(output, status)
        except HelpShown as shown:  # --help: its output may meet a closed pipe or a full disk too
            return _write(shown.args[0].rstrip("\n"), 0)
        except NotWeightsFile as error:
            return _fail(_(NOT_WEIGHTS), error)
        except (UsageError, ValueError, TypeError, FloatingPointError, OSError, RecursionError, MemoryError) as error:
            return _fail(_("{prog}: error: {error}"), error)
        finally:
            try:
                if _quiet.stops:  # however the command ended: an error's status, an exception on its way
                    _quiet.again()
            finally:
                _put_back(saved)
                _quiet.stops.clear()
    except KeyboardInterrupt:  # here too while the handlers go back: the same line
        return _say(_("{prog}: interrupted").format(prog=PROG), INTERRUPTED)
    except Terminated:  # the stops it noted are cleared above, however the command ended
        return _say(_("{prog}: terminated").format(prog=PROG), TERMINATED)


def leave(status):
    """End ``python -m handmade`` with ``status``. Interrupted or terminated, it ends by that signal
    itself where there are signals, as programs that Ctrl-C stops do: the shell shows 130 or 143,
    and a script that ran the command stops too (a status of 130 alone would let it go on)."""
    signum = {INTERRUPTED: signal.SIGINT, TERMINATED: signal.SIGTERM}.get(status)
    if signum is not None and os.name == "posix":
        with contextlib.suppress(OSError, ValueError):
            sys.stdout.flush()
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)
    sys.exit(status)


class Terminated(BaseException):
    """SIGTERM, raised where the process is, so that a save in progress cleans up after itself."""


def _as_a_command(saved):
    """Ready the process for a command: Ctrl-C raises KeyboardInterrupt from here on (``handmade/__init__``
    quiets it before this) and SIGTERM raises Terminated, the handlers there were kept in ``saved``, by
    signal, each before it is replaced (a Ctrl-C may come right after); and output into a file or a
    pipe is UTF-8 on every platform (Windows' usual default, cp1252, has no '→' and no Chinese), a
    terminal keeping the encoding it declares, a character that cannot be written shown as an escape
    (\\udc80) rather than ending the command."""
    with contextlib.suppress(ValueError, OSError):  # not in the main thread: leave them as they are
        for number, handler in ((signal.SIGINT, signal.default_int_handler), (signal.SIGTERM, _terminated)):
            saved[number] = signal.getsignal(number)  # kept before it is replaced: a Ctrl-C may come right after
            signal.signal(number, handler)
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):
            with contextlib.suppress(ValueError, OSError):
                stream.reconfigure(errors="backslashreplace", **({} if stream.isatty() else {"encoding": "utf-8"}))


def _put_back(saved):
    """The handlers kept in ``saved``, put back with SIGINT and SIGTERM held where they can be: one that comes
    meanwhile acts once the last is back, by the handler put back, so none is left as the command's."""
    held = hasattr(signal, "pthread_sigmask")  # not on Windows
    before = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM}) if held else None
    try:
        for number, handler in saved.items():
            signal.signal(number, handler)
    finally:
        if held:
            signal.pthread_sigmask(signal.SIG_SETMASK, before)


def _terminated(signum, frame):
    _quiet.stops.append(signum)  # a C call that drops what this raises (compiling a module) does not end it: again()
    raise Terminated


@contextlib.contextmanager
def _argparse_speaks():
    """argparse's sentences in the current language, through the catalogue, while the parser runs."""
    saved = argparse._, argparse.ngettext
    argparse._, argparse.ngettext = _, ngettext
    try:
        yield
    finally:
        argparse._, argparse.ngettext = saved


def _write(output, status):
    """Print ``output`` (None: only flush what is printed) and return ``status``: PIPE_CLOSED, quietly, when the
    reader went away (BAD_INPUT still, whose line is on stderr: a script learns of the bad input); CANNOT_WRITE, in
    one line, when the output could not be written (or there is no stdout at all: started with it closed, ``>&-``)."""
    try:
        if sys.stdout is None:
            raise OSError(_("the standard output is closed"))
        if output is not None:
            print(output.translate(ESCAPED))
        sys.stdout.flush()
    except BrokenPipeError:
        _to_nowhere(sys.stdout)
        return BAD_INPUT if status == BAD_INPUT else PIPE_CLOSED
    except OSError as error:
        _to_nowhere(sys.stdout)
        sentence = _("{prog}: error: could not write the output ({reason})")
        return _say(sentence.format(prog=PROG, reason=said(error)), CANNOT_WRITE)
    return status


def _to_nowhere(stream):
    """What is left in ``stream``'s buffer, sent to the null device: the interpreter's last flush cannot fail again."""
    with contextlib.suppress(AttributeError, ValueError, OSError):
        os.dup2(os.open(os.devnull, os.O_WRONLY), stream.fileno())


# every control character but the tab and the new line, as its escape (\x1b): a message or a task's statement
# from a teacher's file cannot move the cursor, colour or clear the learner's terminal (str.translate's table)
ESCAPED = {code: repr(chr(code))[1:-1] for code in (*range(0x09), *range(0x0B, 0x20), *range(0x7F, 0xA0))}
JSON_ESCAPED = {code: f"\\u{code:04x}" for code in range(0x7F, 0xA0)}  # what json leaves raw of those: JSON's escapes


def _say(line, status):
    """Write one line on stderr, clipped; return ``status``. A stderr that cannot be written (or is closed) is left."""
    if sys.stderr is None:
        return status
    try:
        print(clip(line, MAX_LINE).translate(ESCAPED), file=sys.stderr)
        sys.stderr.flush()
    except OSError:
        _to_nowhere(sys.stderr)
    return status


def _fail(sentence, error):
    """Bad input: one line on stderr, the error's sentence whole (the library's: within MAX_MESSAGE) or clipped."""
    shown = clip(error, MAX_MESSAGE)
    return _say(sentence.format(prog=PROG, error=shown, path=shown_path(getattr(error, "path", ""))), BAD_INPUT)
