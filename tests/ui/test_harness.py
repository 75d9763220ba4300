"""The harness's bound (``helpers.bounded``): a call Playwright gives no timeout to is stopped, not left to hang."""

import threading
import time

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
