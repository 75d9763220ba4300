"""Weights files: nothing lost when a save fails, nothing replaced that is not ours, nothing read without bound."""

import errno
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from helpers import posix_only

import handmade
from handmade import files
from handmade.arguments import shown_path
from handmade.course import tasks
from handmade.weights import WeightsError


def test_a_failed_save_leaves_the_previous_file_byte_for_byte(tmp_path, monkeypatch):
    path = tmp_path / "w.json"
    handmade.save_weights(handmade.blog_model(), path)
    before = path.read_bytes()

    def disk_full(fd):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(files.os, "fsync", disk_full)
    with pytest.raises(
        WeightsError,
        match=r"could not write .* \(No space left on device\); the file there before, if any, is unchanged",
    ):
        handmade.save_weights(handmade.blog_model(proj_lg=2), path)
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["w.json"]  # no temporary file left behind


@posix_only
def test_a_file_size_limit_mid_write_leaves_the_previous_file_intact(tmp_path):
    """A real failure: the process may not write more than 600 bytes, the weights need more."""
    path = tmp_path / "w.json"
    handmade.save_weights(handmade.blog_model(), path)
    before = path.read_bytes()
    script = textwrap.dedent(
        f"""
        import resource, signal, sys
        import handmade
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a failed write, not a killed process
        resource.setrlimit(resource.RLIMIT_FSIZE, (600, 600))
        try:
            handmade.save_weights(handmade.blog_model(proj_lg=3), {str(path)!r})
        except ValueError as error:
            print(error)
            sys.exit(3)
        """
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, encoding="utf-8")
    assert result.returncode == 3 and "is unchanged" in result.stdout, result
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["w.json"]


@posix_only
def test_saving_keeps_the_permissions_of_the_file_it_replaces(tmp_path):
    path = tmp_path / "w.json"
    handmade.save_weights(handmade.blog_model(), path)
    os.chmod(path, 0o640)
    assert "replaced" in handmade.save_weights(handmade.blog_model(), path)
    assert os.stat(path).st_mode & 0o777 == 0o640


def test_a_file_that_is_not_weights_is_replaced_only_when_forced(tmp_path):
    path = tmp_path / "essay.json"
    path.write_text('{"title": "not weights"}', encoding="utf-8")
    with pytest.raises(WeightsError, match="exists and is not a weights file"):
        handmade.save_weights(handmade.blog_model(), path)
    assert path.read_text(encoding="utf-8") == '{"title": "not weights"}'
    assert "replaced" in handmade.save_weights(handmade.blog_model(), path, force=True)


def test_a_new_blank_is_written_only_where_no_weights_are(tmp_path):
    path, blank = tmp_path / "echo.json", tasks.blank("repeat")
    assert files.save_new_weights(blank, path) == f"wrote the weights to '{path}'"  # as typed, when it is short
    handmade.save_weights(handmade.with_parts(blank, {"wte": 2 * np.eye(3)}), path)  # the learner's design
    before = path.read_bytes()
    assert files.save_new_weights(blank, path).startswith(f"kept '{shown_path(path)}': it holds weights already")
    assert path.read_bytes() == before
    essay = tmp_path / "essay.json"
    essay.write_text("my notes", encoding="utf-8")
    with pytest.raises(WeightsError, match="exists and is not a weights file"):
        files.save_new_weights(blank, essay)
    assert essay.read_text(encoding="utf-8") == "my notes"


def test_a_text_larger_than_a_file_may_be_in_utf8_is_refused_in_one_line(tmp_path):
    text = "中" * (files.MAX_FILE_BYTES // 3 + 1)  # fewer characters than the limit, more bytes
    with pytest.raises(ValueError, match=f"^text is {len(text) * 3} bytes in UTF-8; at most {files.MAX_FILE_BYTES}"):
        files.write_new_text(text, tmp_path / "a.py", tmp_path / "b.py")
    assert not list(tmp_path.iterdir())


def test_what_save_weights_says_names_the_file_on_one_line_as_every_message_does(tmp_path):
    folder = tmp_path / ("a long folder name\nwith a new line " * 5)
    folder.mkdir()
    path = folder / "w.json"
    for said in (
        handmade.save_weights(handmade.blog_model(), path),
        handmade.save_weights(handmade.blog_model(), path),
    ):
        assert "\n" not in said and shown_path(path, files.SAID_PATH) in said and len(said) < 300


def test_a_text_is_written_where_no_other_file_is_and_elsewhere_keeps_what_is_there(tmp_path):
    first, second, text = tmp_path / "homework.py", tmp_path / "notebook_17_homework.py", "print('echo')\n"
    assert files.write_new_text(text, first, second) == (first, f"wrote '{shown_path(first)}'")
    assert files.write_new_text(text, first, second) == (first, f"'{shown_path(first)}' holds this text already")
    first.write_text("a teacher's homework\n", encoding="utf-8")
    found = files.write_new_text(text, first, second)
    assert found[0] == second and "it is kept" in found[1] and second.read_text(encoding="utf-8") == text
    second.write_text("edited by the learner\n", encoding="utf-8")
    with pytest.raises(WeightsError, match="hold other files, perhaps a person's: both are kept"):
        files.write_new_text(text, first, second)
    assert first.read_text(encoding="utf-8") == "a teacher's homework\n"
    assert second.read_text(encoding="utf-8") == "edited by the learner\n"
    longer = tmp_path / "longer.py"
    longer.write_text(text + "# and more\n", encoding="utf-8")  # starts with the text: another file still
    assert files.write_new_text(text, longer, tmp_path / "other.py")[0] == tmp_path / "other.py"


@pytest.mark.parametrize("target", ["folder", pytest.param("/dev/null", marks=posix_only)])
def test_saving_onto_something_that_is_not_a_regular_file_is_refused(tmp_path, target):
    path = tmp_path if target == "folder" else target
    with pytest.raises(WeightsError, match="it is not a regular file"):
        handmade.save_weights(handmade.blog_model(), path)


@posix_only
def test_reading_a_pipe_is_refused_without_waiting(tmp_path):
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    with pytest.raises(WeightsError, match="it is not a regular file"):
        handmade.load_weights(fifo)  # would block forever if it opened the pipe


def test_reading_is_bounded(tmp_path):
    path = tmp_path / "big.json"
    with open(path, "wb") as file:
        file.truncate(files.MAX_FILE_BYTES + 1)
    with pytest.raises(WeightsError, match="more than the 10000000 a weights file may have"):
        handmade.load_weights(path)


def test_labels_travel_through_a_file(tmp_path):
    path = tmp_path / "two.json"
    handmade.save_weights(handmade.two_head_model(), path)
    loaded = handmade.load_weights(path)
    assert loaded.labels == handmade.two_head_model().labels
    assert loaded.labels.attention[0].names[:4] == ("h0·x", "h0·y", "h0·-", "h0·V")
    assert np.array_equal(
        loaded["blocks"][0]["attn"]["c_attn"]["w"], handmade.two_head_model()["blocks"][0]["attn"]["c_attn"]["w"]
    )


def test_a_file_that_an_editor_began_with_a_byte_order_mark_is_read(tmp_path):
    """Notepad's UTF-8 writes a byte-order mark first: the weights after it are read as they are."""
    path = tmp_path / "notepad.json"
    path.write_bytes(b"\xef\xbb\xbf" + handmade.weights_to_json(handmade.blog_model()).encode("utf-8"))
    assert handmade.load_weights(path).structure == handmade.blog_model().structure


@pytest.mark.skipif(not hasattr(os, "symlink") or os.name == "nt", reason="symbolic links as POSIX makes them")
def test_a_symbolic_link_a_person_made_stays_a_link_and_the_weights_go_where_it_points(tmp_path):
    (tmp_path / "real").mkdir()
    link, dangling = tmp_path / "w.json", tmp_path / "dangling.json"
    link.symlink_to(Path("real") / "w.json")
    dangling.symlink_to(Path("..") / "nowhere" / "x.json")
    handmade.save_weights(handmade.blog_model(), tmp_path / "real" / "w.json")
    handmade.save_weights(handmade.flip_model(), link)  # replaced, through the link
    assert link.is_symlink() and (tmp_path / "real" / "w.json").read_text(encoding="utf-8") == handmade.weights_to_json(
        handmade.flip_model()
    )  # the second save's, where the link points
    with pytest.raises(handmade.WeightsError, match="exists and is not a weights file"):
        handmade.save_weights(handmade.blog_model(), dangling)  # a link to nothing: kept, never followed
    assert dangling.is_symlink() and not (tmp_path.parent / "nowhere").exists()
    handmade.save_weights(handmade.blog_model(), dangling, force=True)  # asked: the link itself is replaced
    assert not dangling.is_symlink() and not (tmp_path.parent / "nowhere").exists()
