"""Notebooks are tests too: with nbval installed, every notebook given to pytest (by default the
whole ``notebooks/`` folder) is executed and each cell's output compared with the stored one.

Set here rather than in ``addopts`` so that ``pytest tests/test_model.py`` also works where nbval
is not installed.
"""

import faulthandler
import functools
import os
import queue
import shutil
import tempfile
from pathlib import Path

import pytest

MADE = []  # the temporary folders this process made for progress files: removed when it ends
STDERR = []  # this process's own stderr, kept before pytest captures it: where a hang and a silent kernel are told


def _progress_folder():
    MADE.append(tempfile.mkdtemp(prefix="handmade-progress-"))
    return MADE[-1]


def pytest_configure(config):
    # the learner's progress file: a temporary one, so that nothing a machine graded before shows
    os.environ["HANDMADE_DATA"] = _progress_folder()
    STDERR.append(os.fdopen(os.dup(2), "w", encoding="utf-8"))  # pytest's capture is not on yet (nor is it here)
    if config.pluginmanager.hasplugin("nbval"):
        config.option.nbval = True
        config.option.nbval_current_env = True
        config.option.nbval_sanitize_with = str(Path(__file__).parent / "tests" / "sanitize.cfg")
        import nbval.kernel

        nbval.kernel.start_new_kernel = started_again_if_it_died(nbval.kernel.start_new_kernel)
        nbval.kernel.RunningKernel.get_message = asked_again_when_silent(nbval.kernel.RunningKernel.get_message)
    try:  # the tests that run a notebook as a learner's Run All or nbgrader runs it (nbclient), likewise
        import nbclient
    except ImportError:
        pass
    else:
        nbclient.NotebookClient.execute = started_again_if_it_died(nbclient.NotebookClient.execute)


KERNEL_STARTS = 3  # a kernel that dies before it answers is started again, on new ports, this often in all


def started_again_if_it_died(start_kernel):
    """``start_kernel``, started again when the kernel dies before it answers. jupyter_client picks a
    kernel's ports by asking the system for free ones and letting them go; another process starting a
    kernel at the same moment (CI runs the conditions side by side, xdist two workers) can be handed
    the same port, and the kernel that binds second exits. A cell that fails is never run again: only
    a kernel that never ran one (nbclient's ``execute`` lets such a kernel go, and starts a new one when
    called again, before any cell)."""

    @functools.wraps(start_kernel)
    def start(*args, **kwargs):
        for attempt in range(1, KERNEL_STARTS + 1):
            try:
                return start_kernel(*args, **kwargs)
            except RuntimeError as error:
                if "died before replying" not in str(error) or attempt == KERNEL_STARTS:
                    raise

    return start


ASK_SECONDS = 5  # a kernel silent this long after its reply, while its cell's output is awaited, is asked for its info


def asked_again_when_silent(get_message):
    """nbval's ``get_message``, which, while it waits for a cell's output (after the kernel's reply), asks the kernel
    for its info (``kernel_info``) each ASK_SECONDS it hears nothing, and says so on this process's stderr. Twice in
    the whole suite's run a task playground's cell (notebook 18, 677 messages) heard nothing more for 5 s, then 60 s,
    after its reply, never with its notebook alone (the cause is not known): the request gives the kernel something to
    send, and what is said tells whether it spoke again. Its own answers have another parent, which nbval passes
    over; the outputs are compared all the same, and a kernel that stays silent still fails at the end of the wait."""

    @functools.wraps(get_message)
    def get(kernel, stream, timeout=None):
        if stream != "iopub" or timeout is None or timeout <= ASK_SECONDS:
            return get_message(kernel, stream, timeout)
        waited = 0
        while True:
            try:
                message = get_message(kernel, stream, min(ASK_SECONDS, timeout - waited))
            except queue.Empty:
                waited += ASK_SECONDS
                if waited >= timeout:
                    raise
                kernel.kc.kernel_info()
                said(f"nbval: the kernel has said nothing for {waited} s while its output was awaited: asked it again")
                continue
            if waited:
                said(f"nbval: the kernel spoke again after {waited} s ({message['msg_type']})")
            return message

    return get


def said(line):
    """A line on this process's own stderr, past pytest's capture (a worker's goes to the run's output)."""
    if STDERR:
        print(line, file=STDERR[0], flush=True)


# A test, with the setting up and tearing down of its fixtures, that runs past this ends its process, every thread's
# stack said first: a hang (CI once waited its whole 90 minutes on a tearing down) costs this much and shows where
# it is. xdist reports the test as its worker's crash and goes on with another worker.
ITEM_SECONDS = 1200  # past the browser tests' own bounds on each phase (tests/ui/conftest.py, 300 s each)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    if STDERR:
        faulthandler.dump_traceback_later(ITEM_SECONDS, exit=True, file=STDERR[0])
    try:
        yield
    finally:
        faulthandler.cancel_dump_traceback_later()


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    """Each notebook starts with an empty progress file of its own, before its kernel starts: what
    it stores must not depend on what other notebooks passed before it."""
    notebook = getattr(item, "parent", None)
    if type(notebook).__name__ == "IPyNbFile" and getattr(notebook, "_handmade_data", None) is None:
        notebook._handmade_data = os.environ["HANDMADE_DATA"] = _progress_folder()


def pytest_unconfigure(config):
    for folder in MADE:  # a run leaves no folder behind in the machine's temporary folder
        shutil.rmtree(folder, ignore_errors=True)
    for stream in STDERR:
        stream.close()
    STDERR.clear()


# The files that take longest (the website in Chromium, JupyterLab in Chromium, the hostile inputs),
# handed to the workers first, so that none of them starts when the others are nearly done; every
# file keeps its own tests in order (a notebook's cells run in order in one kernel).
FIRST = (
    "tests/test_site.py",
    "tests/ui/test_widgets_in_lab.py",
    "tests/ui/test_accessibility_in_lab.py",
    "tests/test_hostile.py",
)


OUTPUT_SECONDS = 60  # nbval's wait for each next message of a cell's output once the kernel has replied (its own: 5 s)


def pytest_collection_modifyitems(items):
    """The slowest files first (FIRST). nbval waits a fixed 5 s for each next message of a cell's output after the
    kernel has replied to it; a playground's cell sends hundreds, and in the whole suite's run the wait between two
    once ran past 5 s ("Timeout of 5 seconds exceeded waiting for output", notebook 18's task playground). It waits
    OUTPUT_SECONDS here, asking a silent kernel again (``asked_again_when_silent``: once 60 s ran out too): a wait,
    not a check; every output is compared all the same."""

    def rank(item):
        path = item.nodeid.split("::")[0]
        return FIRST.index(path) if path in FIRST else len(FIRST)

    items.sort(key=rank)  # stable: the order within each file, and of the other files, is kept
    for item in items:
        if hasattr(item, "output_timeout"):  # an nbval cell
            item.output_timeout = OUTPUT_SECONDS
