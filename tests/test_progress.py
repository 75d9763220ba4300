"""The learner's progress: a small file the grader writes when a task passes, atomically, bounded,
and never replaced when it cannot be read unless the learner asks."""

import json
import re

import pytest

from handmade.course import progress
from handmade.course.grader import grade
from handmade.course.tasks import blank, reference


@pytest.fixture
def data(tmp_path, monkeypatch):
    monkeypatch.setenv("HANDMADE_DATA", str(tmp_path / "data"))
    return tmp_path / "data"


def test_a_pass_is_recorded_once_and_a_fail_or_an_unrecorded_pass_is_not(data):
    assert progress.read().passed == ()
    grade("abc", blank("abc"))
    grade("first", reference("first"), record=False)
    assert progress.read().passed == ()
    grade("abc", reference("abc"))
    grade("abc", reference("abc"))
    assert progress.read().passed == ("abc",)
    assert json.loads((data / "progress.json").read_text(encoding="utf-8")) == {"passed": ["abc"]}
    assert [p.name for p in data.iterdir()] == ["progress.json"]  # written atomically: no temporary left


@pytest.mark.parametrize(
    "content", ["{not json", '{"passed": "abc"}', '{"passed": [1]}', "\udcff".encode("utf-8", "surrogatepass")]
)
def test_a_file_that_cannot_be_read_is_reported_and_kept_until_the_learner_resets_it(data, content):
    data.mkdir()
    file = data / "progress.json"
    file.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
    before = file.read_bytes()
    state = progress.read()
    assert state.passed == () and "cannot be read" in state.problem and "reset()" in state.problem
    report = grade("abc", reference("abc"))
    assert report.passed and "cannot be read" in str(report) and file.read_bytes() == before
    assert "cannot be read" in progress.shown().markup
    progress.reset()
    grade("abc", reference("abc"))
    assert progress.read().passed == ("abc",)


def test_the_file_is_bounded(data):
    data.mkdir()
    (data / "progress.json").write_text(json.dumps({"passed": ["x"] * 100_000}), encoding="utf-8")
    assert "more than 65536 bytes" in progress.read().problem
    progress.reset()
    names = [f"t{i}" for i in range(progress.MAX_TASKS)]
    (data / "progress.json").write_text(json.dumps({"passed": names}), encoding="utf-8")
    assert progress.record("one_more") is None and len(progress.read().passed) == progress.MAX_TASKS


def test_a_write_that_fails_is_said_and_loses_nothing(data, monkeypatch):
    grade("abc", reference("abc"))
    monkeypatch.setattr(
        progress.os, "replace", lambda *a: (_ for _ in ()).throw(OSError(28, "No space left on device"))
    )
    report = grade("first", reference("first"))
    assert report.passed and "could not record the pass" in str(report) and "No space left" in str(report)
    assert progress.read().passed == ("abc",) and sorted(p.name for p in data.iterdir()) == ["progress.json"]


def test_the_table_marks_each_task(data):
    grade("abc", reference("abc"))
    shown = progress.shown()
    assert "1 of 12 tasks passed" in shown.markup and re.search(r"^abc +passed$", shown.text, re.M)


def test_the_folder_is_the_setting_or_the_platforms_usual_place(monkeypatch, tmp_path):
    monkeypatch.setenv("HANDMADE_DATA", str(tmp_path))
    assert progress.path() == tmp_path / "progress.json"
    monkeypatch.delenv("HANDMADE_DATA")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    if progress.os.name != "nt" and progress.sys.platform != "darwin":
        assert progress.folder() == tmp_path / "xdg" / "handmade"
