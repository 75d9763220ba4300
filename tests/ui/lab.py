"""JupyterLab in a real browser, for the UI tests and the latency benchmark.

``Lab`` starts a JupyterLab server on 127.0.0.1 (a free port, every setting in a temporary folder,
no news prompt) serving a temporary copy of the notebooks, so running them never touches the
repository. ``open_browser`` launches headless Chromium through Playwright, using the machine's
own Chromium (nothing is downloaded). ``NotebookPage`` opens a notebook, runs all its cells and
finds the widgets by the CSS classes the package gives them.
"""

import contextlib
import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# the tests' helpers, for the bound on a call (also when a benchmark imports this)
sys.path.insert(0, str(ROOT / "tests"))
from helpers import bounded  # noqa: E402

CHROMIUM_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
    "--disable-dev-shm-usage",
]
NEW_PAGE_SECONDS = 60  # Playwright's new_page takes no timeout: a browser that stops answering fails the test


def find_chromium():
    """The path of a Chromium (or Chrome) on this machine, or None.

    HANDMADE_CHROMIUM, when set, is the only place looked at (set it to "" to see the skip).
    """
    if "HANDMADE_CHROMIUM" in os.environ:
        path = os.environ["HANDMADE_CHROMIUM"]
        return path if path and Path(path).is_file() and os.access(path, os.X_OK) else None
    candidates = ["/usr/bin/chromium"]
    candidates += [
        shutil.which(name) for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
    ]
    return next((c for c in candidates if c and Path(c).is_file() and os.access(c, os.X_OK)), None)


SERVER_STARTS = 3  # a server whose port another process took first is started this often in all


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Lab:
    """A JupyterLab server for one test session; use as a context manager."""

    def __init__(self, notebooks=ROOT / "notebooks"):
        self.tmp = Path(tempfile.mkdtemp(prefix="handmade-ui-"))
        self.root = self.tmp / "notebooks"
        shutil.copytree(notebooks, self.root, ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
        # a token of its own: another test process's server, on a port this one was handed too, answers 403, not 200
        self.port, self.token = free_port(), secrets.token_hex(8)
        self.url = f"http://127.0.0.1:{self.port}"
        self.process = None
        self._environment = self._settings()

    def _settings(self):
        """The server's environment, with every setting in the temporary folder (made once)."""
        env = dict(os.environ)
        for name in ("config", "data", "runtime", "settings", "workspaces"):
            (self.tmp / name).mkdir()
        env.update(
            JUPYTER_CONFIG_DIR=str(self.tmp / "config"),
            JUPYTER_DATA_DIR=str(self.tmp / "data"),
            JUPYTER_RUNTIME_DIR=str(self.tmp / "runtime"),
            JUPYTERLAB_SETTINGS_DIR=str(self.tmp / "settings"),
            JUPYTERLAB_WORKSPACES_DIR=str(self.tmp / "workspaces"),
            MPLBACKEND="module://matplotlib_inline.backend_inline",
        )
        quiet = self.tmp / "settings" / "@jupyterlab" / "apputils-extension"
        quiet.mkdir(parents=True)
        (quiet / "notification.jupyterlab-settings").write_text(
            json.dumps({"fetchNews": "false", "checkForUpdates": False}), encoding="utf-8"
        )
        # Every cell attached to the page, so a test can find any cell's widgets without scrolling
        # (Lab's default, "contentVisibility", may leave the views of far-away cells unrendered).
        notebook = self.tmp / "settings" / "@jupyterlab" / "notebook-extension"
        notebook.mkdir(parents=True)
        (notebook / "tracker.jupyterlab-settings").write_text(json.dumps({"windowingMode": "none"}), encoding="utf-8")
        return env

    def __enter__(self):
        """Start the server; on a new port if another process took the free one first (the same race as a
        kernel's, conftest.py), which it says in its log before it exits."""
        for attempt in range(1, SERVER_STARTS + 1):
            self._start()
            try:
                self._wait_until_up()
                return self
            except RuntimeError as error:
                if "already in use" not in str(error) or attempt == SERVER_STARTS:
                    self.__exit__(None, None, None)  # the folder goes, the log is closed
                    raise
                self.log.close()
                self.port = free_port()
                self.url = f"http://127.0.0.1:{self.port}"

    def _start(self):
        command = [
            sys.executable, "-m", "jupyter", "lab", "--no-browser",
            "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={self.port}", "--ServerApp.port_retries=0",
            f"--IdentityProvider.token={self.token}", f"--ServerApp.root_dir={self.root}",
            "--LabApp.expose_app_in_browser=True", "--ServerApp.allow_root=True",
            "--LabApp.check_for_updates_class=jupyterlab.handlers.announcements.NeverCheckForUpdate",
        ]  # fmt: skip
        self.log = open(self.tmp / "server.log", "w", encoding="utf-8")  # noqa: SIM115 (closed in __exit__)
        self.process = subprocess.Popen(  # a group of its own: it and its kernels are stopped together (__exit__)
            command,
            env=self._environment,
            stdout=self.log,
            stderr=subprocess.STDOUT,
            start_new_session=os.name == "posix",
        )

    def _wait_until_up(self, timeout=60):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(
                    f"JupyterLab exited: {(self.tmp / 'server.log').read_text(encoding='utf-8')[-2000:]}"
                )
            try:
                urllib.request.urlopen(f"{self.url}/api/status?token={self.token}", timeout=2)
                return
            except OSError:
                time.sleep(0.25)
        raise RuntimeError(f"JupyterLab did not start in {timeout} s")

    def __exit__(self, *exc):
        """Stop the server and every kernel it started, at once: nothing they hold is kept (the folder goes
        too), so none is asked to shut down in turn (eight idle kernels: 1.3 s that way, 0.01 s this way)."""
        if self.process and self.process.poll() is None:
            if os.name == "posix":
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(self.process.pid, signal.SIGKILL)
            else:  # no process groups: the server stops its kernels itself
                self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
        self.log.close()
        shutil.rmtree(self.tmp, ignore_errors=True)

    def notebook_url(self, name):
        return f"{self.url}/lab/tree/{name}?token={self.token}&reset"


def open_browser(playwright, chromium):
    return playwright.chromium.launch(executable_path=chromium, headless=True, args=CHROMIUM_FLAGS)


def settle(page, timeout=30_000):
    """Wait until the kernel has answered every message the page sent before (a box's text, a click) and the widgets
    have taken the answers: a quiet run of nothing is answered after them, in order (``out_of_order`` says when a
    kernel keeps no such order). Waiting for the kernel to be idle is not enough: just after a message is sent, the
    kernel is often still idle from before it."""
    asked = page.evaluate(JS_SETTLE)
    page.wait_for_function("(n) => window.hmSettled >= n || window.hmSettleFailed", arg=asked, timeout=timeout)
    failed = page.evaluate("() => window.hmSettleFailed")
    if failed:
        raise AssertionError(f"the kernel did not answer a quiet run of nothing: {failed}")


def out_of_order():
    """Why this JupyterLab and ipykernel run a widget's messages beside the code that ``settle`` sends (None: they
    do not). JupyterLab 4.4 sends widget messages to a subshell of their own, another thread; ipykernel 7.0 to 7.3
    run them there (7.4 runs the package's in the main thread, ``choice.in_order``; 6 has no subshells)."""
    lab, kernel = (_major_minor(metadata.version(name)) for name in ("jupyterlab", "ipykernel"))
    if lab >= (4, 4) and (7, 0) <= kernel < (7, 4):
        return (
            f"the browser tests need ipykernel 6 or 7.4 and later beside JupyterLab {lab[0]}.{lab[1]}, "
            f"which runs widget messages in a thread of their own on ipykernel {kernel[0]}.{kernel[1]}"
        )
    return None


def _major_minor(version):
    return tuple(int(part) for part in re.match(r"(\d+)\.(\d+)", version).groups())


def new_page(browser, **options):
    """``browser.new_page(**options)``, bounded (``NEW_PAGE_SECONDS``)."""
    with bounded(NEW_PAGE_SECONDS, "opening a page in Chromium"):
        return browser.new_page(**options)


class NotebookPage:
    """One notebook open in JupyterLab, with helpers to run it and to reach its widgets."""

    def __init__(self, page, lab, name):
        self.page, self.lab, self.name = page, lab, name
        self.console = []
        page.on("console", lambda message: self.console.append(f"{message.type}: {message.text}"))
        page.on("pageerror", lambda error: self.console.append(f"pageerror: {error}"))

    def open(self):
        self.page.goto(self.lab.notebook_url(self.name))
        self.page.wait_for_selector(".jp-NotebookPanel .jp-Cell", timeout=60_000)
        self.page.wait_for_function(JS_KERNEL_IDLE, timeout=60_000)
        return self

    def keep_kernel_busy(self, seconds):
        """Start ``seconds`` of work in the notebook's kernel, as a learner's earlier action still at work would, and
        return once the kernel is at it, without waiting for the end (``kernel_busy`` says whether it still is)."""
        self.run_quietly(f"import time; time.sleep({seconds})")
        self.page.wait_for_function("() => " + JS_KERNEL_BUSY)

    def run_quietly(self, code):
        """Send ``code`` to the notebook's kernel to run, with no cell and no output, and return at once."""
        self.page.evaluate(JS_RUN_QUIETLY, code)

    def settle(self, timeout=30_000):
        settle(self.page, timeout)

    def kernel_busy(self):
        return self.page.evaluate("() => " + JS_KERNEL_BUSY)

    def run_all(self, timeout=120_000):
        self.page.evaluate("window.jupyterapp.commands.execute('notebook:run-all-cells')")
        self.page.wait_for_function(JS_ALL_CELLS_RUN, timeout=timeout)
        self.settle(timeout)
        return self

    def errors(self):
        """Text of every error output (a traceback) on the page."""
        return self.page.locator(
            ".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.error']"
        ).all_inner_texts()

    def widget(self, css_class):
        return self.page.locator(f".{css_class}").first

    def tab(self, title):
        """Open the first playground's tab whose title holds ``title`` (its grids are built when first shown)."""
        self.page.locator(".hm-stages .lm-TabBar-tab", has_text=title).first.click()
        self.settle()

    def cell_box(self, matrix, i, j):
        return self.page.locator(f".hm-cell-{matrix}-{i}-{j} input").first

    def type_into(self, locator, text):
        locator.scroll_into_view_if_needed()
        locator.click()
        locator.fill(text)
        locator.press("Enter")

    def wait_for_change(self, css_class, before, timeout=10_000):
        """Wait until the widget's HTML differs from ``before``; return the new HTML."""
        self._wait(css_class, "e.innerHTML !== value", before, timeout)
        return self.html(css_class)

    def wait_for_text(self, css_class, text, timeout=10_000):
        """Wait until the widget's text contains ``text``."""
        self._wait(css_class, "e.textContent.includes(value)", text, timeout)

    def _wait(self, css_class, condition, value, timeout):  # condition: JS over the element e and value
        from playwright.sync_api import TimeoutError as PlaywrightTimeout

        script = f"([selector, value]) => {{ const e = document.querySelector(selector); return !!e && {condition}; }}"
        try:
            self.page.wait_for_function(script, arg=[f".{css_class}", value], timeout=timeout)
        except PlaywrightTimeout as error:  # what it shows instead, for whoever reads the failure
            found = self.page.evaluate(
                "(s) => { const e = document.querySelector(s); return e && e.textContent; }", f".{css_class}"
            )
            raise AssertionError(
                f"after {timeout} ms .{css_class} says {found!r}, waiting for {condition} with {value!r}"
            ) from error
        # and until the kernel has answered all: the change that redrew this view may also update other
        # widgets (the grids, the Lg box), whose messages arrive before the answer
        self.settle(timeout)

    def html(self, css_class):
        return self.widget(css_class).inner_html()

    def text(self, css_class):  # textContent: cells scrolled out of view are not laid out
        return self.widget(css_class).text_content()


# The notebook's cells all have an execution count (no "[*]", none blank).
JS_ALL_CELLS_RUN = """() => {
  const panel = window.jupyterapp.shell.currentWidget;
  if (!panel || !panel.content) return false;
  const cells = panel.content.model.cells;
  for (let i = 0; i < cells.length; i++) {
    const cell = cells.get(i);
    if (cell.type === 'code' && !cell.executionCount) return false;
  }
  return !document.querySelector('.jp-InputPrompt')?.textContent.includes('*')
      && ![...document.querySelectorAll('.jp-InputPrompt')].some(p => p.textContent.includes('*'));
}"""

# (seconds): sleeps that long in the kernel, silently (no output, no execution count), without waiting for it
JS_KERNEL = "window.jupyterapp.shell.currentWidget.sessionContext.session.kernel"  # the open notebook's
JS_RUN_QUIETLY = (
    """(code) => {
  const kernel = """
    + JS_KERNEL
    + """;
  kernel.requestExecute({code, silent: true, store_history: false});
}"""
)
# the number of this settle; window.hmSettled is that number once its quiet run is answered, and the widgets' own
# promises after it (50 ms), or window.hmSettleFailed says why it never will be (the kernel restarted)
JS_SETTLE = (
    """() => {
  const kernel = """
    + JS_KERNEL
    + """;
  const n = (window.hmSettling = (window.hmSettling || 0) + 1);
  window.hmSettleFailed = null;
  kernel.requestExecute({code: "", silent: true, store_history: false}).done.then(
    () => setTimeout(() => { window.hmSettled = Math.max(window.hmSettled || 0, n); }, 50),
    (error) => { window.hmSettleFailed = String(error && error.message || error); },
  );
  return n;
}"""
)
JS_KERNEL_BUSY = JS_KERNEL + ".status === 'busy'"

JS_KERNEL_IDLE = """() => {
  const panel = window.jupyterapp && window.jupyterapp.shell.currentWidget;
  const kernel = panel && panel.sessionContext && panel.sessionContext.session && panel.sessionContext.session.kernel;
  return !!kernel && kernel.status === 'idle';
}"""
