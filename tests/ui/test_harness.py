"""The harness's bound (``helpers.bounded``): a call Playwright gives no timeout to is stopped, not left to hang."""

import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import pytest
from helpers import Hang, bounded


def test_a_call_that_does_not_return_in_time_is_stopped_with_its_name():
    started = time.monotonic()
    stopped = pytest.raises(Hang, match="opening a page in Chromium took more than 0.2 s")
    with stopped, bounded(0.2, "opening a page in Chromium"):
        time.sleep(5)
    assert time.monotonic() - started < 2


def test_a_call_that_returns_in_time_is_left_alone_and_leaves_no_timer():
    with bounded(0.5, "something quick"):
        time.sleep(0.01)
    time.sleep(0.7)  # a timer left running would raise here


def test_outside_the_main_thread_the_block_runs_unbounded():
    found = []

    def run():
        with bounded(0.1, "a thread's call"):
            time.sleep(0.3)
        found.append("done")

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    assert found == ["done"]


def test_a_bound_inside_another_stops_its_own_call_and_the_outer_one_still_holds():
    started = time.monotonic()
    with pytest.raises(Hang, match="the test took more than 0.6 s"), bounded(0.6, "the test"):
        with pytest.raises(Hang, match="a page's script took more than 0.2 s"), bounded(0.2, "a page's script"):
            time.sleep(5)
        time.sleep(5)  # the outer bound, with what it had left, stops this
    assert 0.5 < time.monotonic() - started < 2


def test_an_outer_bound_that_comes_first_speaks_for_itself_inside_a_longer_one():
    started = time.monotonic()
    outer = pytest.raises(Hang, match="the test took more than 0.3 s")
    with outer, bounded(0.3, "the test"), bounded(10, "a page's script"):
        time.sleep(5)
    assert time.monotonic() - started < 2


def test_an_outer_bound_that_came_first_rings_once_and_lets_the_clean_up_between_them_run():
    cleaned = []
    with pytest.raises(Hang, match="the test took more than 0.3 s"), bounded(0.3, "the test"):
        try:
            with bounded(10, "a page's script"):
                time.sleep(5)
        finally:
            time.sleep(0.05)  # a page closed, say: not cut short by the outer bound ringing again
            cleaned.append(True)
    assert cleaned == [True]
    time.sleep(0.1)  # and no timer left running


def test_a_bound_inside_another_that_returns_in_time_gives_the_outer_one_its_time_back():
    with bounded(0.8, "the test"):
        with bounded(0.2, "a page's script"):
            time.sleep(0.01)
        time.sleep(0.3)  # more than the inner bound, less than the outer one: nothing raised
    time.sleep(0.7)  # and no timer left running


ALONE = """
import sys, time
sys.path[:0] = sys.argv[2:]
from playwright.sync_api import sync_playwright
from helpers import Hang, bounded
from lab import new_page, open_browser
with sync_playwright() as playwright:
    browser = open_browser(playwright, sys.argv[1])
    page, started = new_page(browser), time.monotonic()
    try:
        with bounded(1, "a page's script"):
            page.evaluate("new Promise(() => {})")  # Playwright waits for it without a timeout
    except Hang as stopped:
        print(stopped)
    print(time.monotonic() - started < 5)
    print(new_page(browser).evaluate("1 + 1"))  # the same browser opens the next page
    browser.close()
"""


def test_a_page_script_that_never_answers_is_stopped_and_the_browser_still_works(chromium):
    """In a browser of its own, in a process of its own: the bound's timer signal stops the one call that hangs,
    as around a test's call, with no other page (a session's notebooks) talking on the connection it interrupts."""
    here = Path(__file__).resolve().parent
    run = [sys.executable, "-c", ALONE, chromium, str(here), str(here.parent)]
    done = subprocess.run(run, capture_output=True, text=True, encoding="utf-8", timeout=120)
    assert done.stdout.splitlines() == ["a page's script took more than 1 s", "True", "2"], done.stderr[-2000:]


def test_a_lab_whose_free_port_another_process_took_first_starts_on_a_new_one(monkeypatch):
    """The race conftest.py meets for kernels, met by the server: its port handed out, then taken."""
    import socket

    import lab

    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        taken = held.getsockname()[1]
        handed = []

        def taken_first(free_port=lab.free_port):
            handed.append(free_port() if handed else taken)
            return handed[-1]

        monkeypatch.setattr(lab, "free_port", taken_first)
        with lab.Lab() as server:
            assert server.port != taken and len(handed) == 2
            with urllib.request.urlopen(f"{server.url}/api/status?token={server.token}", timeout=10) as answer:
                assert answer.status == 200
        monkeypatch.setattr(lab, "SERVER_STARTS", 1)
        handed.clear()
        given_up = lab.Lab()
        with pytest.raises(RuntimeError, match="already in use"):
            given_up.__enter__()
        assert not given_up.tmp.exists()  # nothing left behind by a server that never started


@pytest.mark.parametrize(
    "jupyterlab, ipykernel, refused",
    [("4.6.6", "7.4.0", False), ("4.6.6", "7.2.1", True), ("4.4.0", "7.0.0rc1", True), ("4.3.5", "7.2.1", False)]
    + [("4.6.6", "6.29.5", False), ("4.4.0", "7.3.9", True), ("5.0.0", "8.0.0", False)],
)
def test_settle_refuses_a_lab_and_kernel_that_run_widget_messages_beside_code(
    monkeypatch, jupyterlab, ipykernel, refused
):
    """settle waits for a quiet run sent after the widgets' messages, answered after them only when both run in one
    thread, in order: JupyterLab 4.4 and later beside ipykernel 7.0 to 7.3 run them apart, and the tests say so."""
    import lab

    monkeypatch.setattr(lab.metadata, "version", {"jupyterlab": jupyterlab, "ipykernel": ipykernel}.get)
    said = lab.out_of_order()
    assert (said is not None) == refused
    assert not refused or f"ipykernel {ipykernel[:3]}" in said and "7.4 and later" in said
