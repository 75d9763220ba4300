"""``python -m handmade``: the blog's lines on stdout; every bad input one short line with status 2."""

import argparse
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import a_task, one_line, posix_only, reads_as_chinese

import handmade
from handmade.course.explain import shares_listed
from handmade.course.task_files import MAX_FILE_TASKS


def run(*args, cwd=None, timeout=60, env=None):
    result = subprocess.run(
        [sys.executable, "-m", "handmade", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=timeout,
        encoding="utf-8",
        env=None if env is None else {**os.environ, **env},
    )
    return result.returncode, result.stdout, result.stderr


def test_complete_prints_the_blogs_line():
    assert run("complete", "abaab") == (0, "abaab :: aabaabaaba\n", "")


def test_output_into_a_pipe_is_utf8_whatever_the_platforms_default_encoding():
    """On Windows a pipe gets the locale's encoding (often cp1252, which has no Chinese): the
    command line writes UTF-8 into files and pipes wherever it runs. latin-1 stands for cp1252 here."""
    env = {**os.environ, "PYTHONIOENCODING": "latin-1"}
    command = [sys.executable, "-m", "handmade", "--lang", "zh", "complete", "abc"]
    result = subprocess.run(command, capture_output=True, env=env, timeout=60)
    assert result.returncode == 2 and "字母表是 'ab'" in result.stderr.decode("utf-8")


def test_complete_takes_n():
    assert run("complete", "a", "-n", "4")[1] == "a :: baab\n"


def test_predict_prints_the_per_position_table():
    code, out, err = run("predict", "aabaa")
    assert code == 0 and err == ""
    assert out == str(handmade.predict("aabaa")) + "\n"
    assert out.splitlines()[3] == "a (0): next=a (0) probs=[1. 0.] logits=[1025.    0.]"


def test_accuracy_prints_the_blogs_line():
    assert run("accuracy") == (0, "ACCURACY: 100.0% (27 / 27)\n", "")


def test_export_then_use_the_file(tmp_path):
    path = tmp_path / "blog.json"
    assert run("export", str(path)) == (0, f"wrote the weights to '{path}'\n", "")
    assert run("accuracy", "--weights", str(path))[1] == "ACCURACY: 100.0% (27 / 27)\n"
    code, out, err = run("export", str(path))  # a weights file there, perhaps a design: kept
    assert (code, out) == (2, "") and "already holds weights" in err and "--force" in err
    assert run("export", str(path), "--force")[1] == f"replaced the weights in '{path}'\n"  # says what it replaced


def test_export_replaces_a_file_that_is_not_weights_only_with_force(tmp_path):
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes\n", encoding="utf-8")
    code, _, err = run("export", str(notes))
    assert code == 2 and "exists and is not a weights file" in err and "--force" in err
    assert notes.read_text(encoding="utf-8") == "my notes\n"
    assert run("export", str(notes), "--force")[0] == 0
    assert handmade.load_weights(notes)["wte"].shape == (2, 8)


def test_the_plain_json_export_wrote_before_labels_still_loads(tmp_path):
    plain = json.loads(handmade.weights_to_json(handmade.blog_model()))
    del plain["labels"]
    path = tmp_path / "plain.json"
    path.write_text(json.dumps(plain), encoding="utf-8")
    assert run("accuracy", "--weights", str(path))[1] == "ACCURACY: 100.0% (27 / 27)\n"


def test_weights_file_changes_the_answers(tmp_path):
    weak = json.loads(handmade.weights_to_json(handmade.blog_model(proj_lg=0.5)))
    path = tmp_path / "weak.json"
    path.write_text(json.dumps(weak), encoding="utf-8")
    code, out, _ = run("accuracy", "--weights", str(path))
    assert code == 0 and out.startswith("ACCURACY: ") and "(27 / 27)" not in out
    assert "  missed: aa → expected b, got a" in out


# ---- bad input: one short line, status 2, never a traceback -----------------------------


def blog_json():
    return json.loads(handmade.weights_to_json(handmade.blog_model()))


def with_edit(edit):
    data = blog_json()
    edit(data)
    return json.dumps(data)


def c_attn(data):
    return data["blocks"][0]["attn"]["c_attn"]


WEIGHTS_FILES = {  # name: (content, a phrase the message must contain)
    "empty": ("", "is not valid JSON"),
    "a list": ("[1, 2]", "weights are a JSON object with wte, wpe and blocks; found [1, 2]"),
    "nested 100000 deep": ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
    "a 400-digit weight": (
        with_edit(lambda d: d["wte"][0].__setitem__(0, "BIG")).replace('"BIG"', "9" * 400),
        "wte[0, 0] is a whole number of 400 digits",
    ),
    "a 5000-digit weight": (
        with_edit(lambda d: None).replace("1024", "9" * 5000, 1),
        f"holds the number {'9' * 39}…, too large for a weight (float64 holds numbers up to about 1.8e308)",
    ),
    "a weight of 1e400": (
        with_edit(lambda d: None).replace("1024", "-1e400", 1),
        "holds the number -1e400, too large for a weight",
    ),
    "a weight of 1e-400": (  # not 0, which float64 would make it
        with_edit(lambda d: None).replace("1024", "1e-400", 1),
        "holds the number 1e-400, too close to 0 for a weight (float64 would hold it as 0)",
    ),
    "missing wpe": (with_edit(lambda d: d.pop("wpe")), "the weights are missing 'wpe'"),
    "an unknown key": (with_edit(lambda d: d.update(wtf=1)), "unknown key 'wtf'"),
    "c_attn 23 wide": (
        with_edit(lambda d: [row.pop() for row in c_attn(d)["w"]]),
        "the width of blocks[0].attn.c_attn.w, 23, does not divide by 3",
    ),
    "NaN": (with_edit(lambda d: None).replace("1024", "NaN", 1), "is nan; every weight must be a finite number"),
    "Infinity": (with_edit(lambda d: None).replace("1024", "-Infinity", 1), "is -inf"),
    "a string of digits": (with_edit(lambda d: d["wte"][0].__setitem__(0, "1")), "wte[0, 0] is '1', not a number"),
    "a boolean": (with_edit(lambda d: d["wte"][0].__setitem__(0, True)), "wte[0, 0] is True, not a number"),
    "a complex-looking pair": (with_edit(lambda d: d["wte"][0].__setitem__(0, [1, 2])), "is a list where a number"),
    "n_head 3": (with_edit(lambda d: d["blocks"][0].update(n_head=3)), "does not split into 3 equal heads"),
    "n_head true": (with_edit(lambda d: d["blocks"][0].update(n_head=True)), "n_head is True"),
    "n_embd 0": (
        json.dumps({"wte": [[], []], "wpe": [[]], "blocks": []}),
        "wte has shape (2, 0): it is empty",
    ),
    "wte with no rows": (with_edit(lambda d: d.update(wte=[])), "wte has shape (0,)"),
    "an MLP with 0 hidden units": (
        with_edit(
            lambda d: d["blocks"][0].update(mlp={"c_fc": {"w": [[]] * 8, "b": []}, "c_proj": {"w": [], "b": [0] * 8}})
        ),
        "mlp.c_fc.w has shape (8, 0): it is empty",
    ),
    "labels of the wrong size": (
        with_edit(lambda d: d["labels"].update(alphabet="abc")),
        "the alphabet 'abc' has length 3, but n_vocab, the token rows of wte, is 2",
    ),
    "labels that are not labels": (with_edit(lambda d: d.update(labels=5)), "labels must be an object"),
    "a wpe of 2000 positions": (
        with_edit(lambda d: d.update(wpe=[[0] * 8] * 2000)),
        "at most 1024 are allowed",
    ),
    "a weight of 1e308": (
        with_edit(lambda d: c_attn(d)["w"][5].__setitem__(23, 1e308)),
        "inf or nan (first in blocks[0].c_proj_output)",
    ),
}


def _special_paths(tmp_path):
    fifo = tmp_path / "pipe.json"
    if hasattr(os, "mkfifo"):
        os.mkfifo(fifo)
    huge = tmp_path / "huge.json"
    with open(huge, "wb") as file:
        file.truncate(200_000_000)  # sparse: 200 MB on paper, nothing on disk
    binary = tmp_path / "binary.json"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    return {
        "/dev/zero": ("/dev/zero", "it is not a regular file"),
        "a pipe": (str(fifo), "it is not a regular file"),
        "a folder": (str(tmp_path), "it is not a regular file"),
        "a 200 MB file": (str(huge), "it has 200000000 bytes, more than the 10000000"),
        "a binary file": (str(binary), "it is not text in utf-8: on line 1, byte 1 of the line (0xff)"),
        "a missing file": ("/nonexistent/w.json", "cannot read weights from '/nonexistent/w.json': no such file"),
    }


ARGUMENTS = {  # name: (arguments, a phrase the message must contain)
    "a letter outside the alphabet": (
        ["complete", "abc"],
        "cannot tokenize 'c' at position 2 of 'abc': the alphabet is 'ab'",
    ),
    "an empty context": (["complete", ""], "cannot predict from an empty context"),
    "a space": (["predict", "a b"], "cannot tokenize ' ' at position 1"),
    "-n -1": (["complete", "a", "-n", "-1"], "must be a whole number from 0 to 10000; found -1"),
    "-n x": (["complete", "a", "-n", "x"], "invalid whole number: 'x'"),
    "-n 1.5": (["complete", "a", "-n", "1.5"], "invalid whole number: '1.5'"),
    "-n of 27 digits": (["complete", "a", "-n", "1" + "0" * 26], "must be a whole number from 0 to 10000"),
    "no TEXT": (["complete"], "the following arguments are required: TEXT"),
    "an unknown command": (["frobnicate"], "invalid choice: 'frobnicate'"),
    "no command": ([], "the following arguments are required: COMMAND"),
    "an unknown option": (["accuracy", "--wieghts", "w.json"], "unrecognized arguments: --wieghts"),
    "100 KB with one bad letter": (
        ["predict", "ab" * 25_000 + "x" + "ab" * 25_000],
        "cannot tokenize 'x' at position 50000 of …",
    ),
    "2 MB of text": (["predict", "a" * 2_000_000], "the text has 2000000 characters; at most 1000000"),
    "an empty alphabet": (["predict", "a", "--alphabet", ""], "an alphabet is a string of 1 to 1024"),
    "a repeating alphabet": (["predict", "a", "--alphabet", "aa"], "the alphabet 'aa' repeats 'a'"),
    "an alphabet of the wrong size": (
        ["predict", "a", "--alphabet", "abc"],
        "has length 3, but n_vocab, the token rows of wte, is 2",
    ),
    "export into a folder that is not there": (["export", "/nonexistent/dir/w.json"], "cannot write weights to"),
}


def _assert_one_short_line(code, out, err, phrase):
    assert code == 2, (code, out, err)
    assert out == ""
    assert one_line(err), err  # the program, "error:", the library's 200 characters at most, the newline
    assert "Traceback" not in err and phrase in err, err


@pytest.mark.parametrize("name", list(ARGUMENTS))
def test_bad_arguments(name):
    args, phrase = ARGUMENTS[name]
    if name == "2 MB of text":  # too long for a command line: the same through the library's limit
        with pytest.raises(ValueError, match=phrase):
            handmade.tokenize(args[1])
        return
    _assert_one_short_line(*run(*args), phrase)


@pytest.mark.parametrize("name", list(WEIGHTS_FILES))
def test_bad_weights_files(tmp_path, name):
    content, phrase = WEIGHTS_FILES[name]
    path = tmp_path / "w.json"
    path.write_text(content, encoding="utf-8")
    _assert_one_short_line(*run("complete", "aab", "--weights", str(path)), phrase)


@pytest.mark.parametrize(
    "name",
    [
        pytest.param("/dev/zero", marks=posix_only),
        pytest.param("a pipe", marks=posix_only),
        "a folder",
        "a 200 MB file",
        "a binary file",
        "a missing file",
    ],
)
def test_paths_that_are_not_weights_files_are_refused_at_once(tmp_path, name):
    path, phrase = _special_paths(tmp_path)[name]
    _assert_one_short_line(*run("accuracy", "--weights", path, timeout=20), phrase)


def test_the_table_is_at_least_forty_bad_inputs():
    assert len(ARGUMENTS) + len(WEIGHTS_FILES) + 6 >= 40


def test_a_very_long_path_is_cut_to_one_short_line(tmp_path):
    long_name = "/nonexistent/" + "x" * 5000 + ".json"
    _assert_one_short_line(*run("accuracy", "--weights", long_name), "cannot read weights from")


# ---- tasks, blank, grade ----------------------------------------------------------------


def test_tasks_lists_every_task_with_its_statement_and_shape():
    code, out, err = run("tasks")
    assert code == 0 and err == ""
    from handmade.course.tasks import TASKS

    assert len(TASKS) >= 12 and all(f"{name}: " in out for name in TASKS)
    assert out.count("designed for:") == len(TASKS)


def test_tasks_marks_the_tasks_this_learner_has_passed_and_only_those(tmp_path):
    from helpers import own_model

    from handmade.course.solutions import reference
    from handmade.course.tasks import TASKS, blank

    data = {"HANDMADE_DATA": str(tmp_path / "data")}
    first = run("tasks", env=data)[1]
    assert "passed: you" not in first and first.rstrip().endswith(
        f"passed 0 of these {len(TASKS)} tasks (recorded in {tmp_path / 'data' / 'progress.json'})."
    )
    handmade.save_weights(own_model("xor"), tmp_path / "xor.json")
    handmade.save_weights(reference("first"), tmp_path / "first.json")
    handmade.save_weights(blank("abc"), tmp_path / "abc.json")
    assert run("grade", "xor", "--weights", str(tmp_path / "xor.json"), env=data)[0] == 0
    code, out, _err = run("grade", "first", "--weights", str(tmp_path / "first.json"), env=data)
    assert code == 0 and "not recorded" in out and "the reference solution of first" in out  # not the learner's
    assert run("grade", "abc", "--weights", str(tmp_path / "abc.json"), env=data)[0] == 1  # a fail records nothing
    assert (
        run("train", "alternate", "--out", str(tmp_path / "t.json"), "--steps", "300", env=data)[0] == 0
    )  # nor does training
    code, out, err = run("tasks", env=data)
    entries = {entry.split(":")[0]: entry for entry in out.split("\n\n")}
    assert code == 0 and err == "" and [name for name in TASKS if "passed: you" in entries[name]] == ["xor"]
    assert f"passed 1 of these {len(TASKS)} tasks" in out
    (tmp_path / "data" / "progress.json").write_text("{not json", encoding="utf-8")
    code, out, err = run("tasks", env=data)
    assert code == 0 and "cannot be read" in out.splitlines()[-1] and "passed: you" not in out
    assert (tmp_path / "data" / "progress.json").read_text(encoding="utf-8") == "{not json"  # kept until reset()


def test_blank_then_grade_fails_with_status_1_and_says_where(tmp_path):
    path = tmp_path / "abc.json"
    assert run("blank", "abc", str(path)) == (0, f"wrote the weights to '{path}'\n", "")
    code, out, err = run("grade", "abc", "--weights", str(path))
    assert code == 1 and err == "" and out.startswith("task abc: FAIL")
    assert "where it goes wrong" in out


def test_a_reference_solution_passes_with_status_0(tmp_path):
    from handmade.course.solutions import reference
    from handmade.course.tasks import TASKS

    path = tmp_path / "abc.json"
    handmade.save_weights(reference(TASKS["abc"]), path)
    code, out, _ = run("grade", "abc", "--weights", str(path))
    assert code == 0 and out.startswith("task abc: PASS")


def test_grade_accepts_the_plain_json_export_writes(tmp_path):
    path = tmp_path / "blog.json"
    data = json.loads(handmade.weights_to_json(handmade.blog_model()))
    del data["labels"]
    path.write_text(json.dumps(data), encoding="utf-8")
    code, out, _ = run("grade", "aab", "--weights", str(path))
    assert code == 0 and "right: 40 / 40" in out


@pytest.mark.parametrize(
    "args, phrase",
    [
        (["grade", "abd", "--weights", "w.json"], "there is no task 'abd'; did you mean abc? The tasks are alternate"),
        (["grade", "abc"], "the following arguments are required: --weights"),
        (["grade", "aab", "--weights", "BLANK"], "n_vocab, the token rows of wte, is 3, but the task aab has 2 tokens"),
        (["grade", "abc", "--weights", "BROKEN"], "is not valid JSON"),
        (["blank", "nope", "x.json"], "there is no task 'nope'"),
    ],
)
def test_grade_and_blank_refuse_bad_input_with_status_2(tmp_path, args, phrase):
    blank = tmp_path / "blank.json"
    run("blank", "abc", str(blank))
    broken = tmp_path / "broken.json"
    broken.write_text("{", encoding="utf-8")
    args = [{"BLANK": str(blank), "BROKEN": str(broken)}.get(a, a) for a in args]
    _assert_one_short_line(*run(*args, cwd=tmp_path), phrase)


def test_train_aab_from_the_command_line_reaches_27_of_27(tmp_path):
    path = tmp_path / "learned.json"
    code, out, err = run("train", "aab", "--steps", "300", "--seed", "1", "--out", str(path))
    assert code == 0, err
    assert out.splitlines()[0].startswith("300 steps: loss 0.69") and "task aab: PASS" in out
    assert run("accuracy", "--weights", str(path))[1] == "ACCURACY: 100.0% (27 / 27)\n"
    assert run("grade", "aab", "--weights", str(path))[0] == 0


@pytest.mark.parametrize(
    "args, phrase",
    [
        (["train", "aab", "--steps", "0", "--out", "x.json"], "must be a whole number from 1 to 100000; found 0"),
        (["train", "aab", "--steps", "10" * 20, "--out", "x.json"], "must be a whole number from 1 to 100000"),
        (["train", "aab", "--seed", "-3", "--out", "x.json"], "must be a whole number from 0 to 4294967295"),
        (["train", "nope", "--out", "x.json"], "there is no task 'nope'"),
        (["train", "aab"], "the following arguments are required: --out"),
        (["train", "aab", "--steps", "1", "--out", "notes.txt"], "exists and is not a weights file"),
    ],
)
def test_train_refuses_bad_input_with_status_2(tmp_path, args, phrase):
    (tmp_path / "notes.txt").write_text("mine", encoding="utf-8")
    _assert_one_short_line(*run(*args, cwd=tmp_path), phrase)
    assert (tmp_path / "notes.txt").read_text(encoding="utf-8") == "mine"


WIDE = """import handmade

@handmade.task(alphabet="ab", n_ctx=3, n_embd=1024, n_layer=8, n_head=4, mlp=True)
def wide(context):
    "Say a."
    return "a"

@handmade.task(alphabet="ab", n_ctx=8, n_embd=128, n_layer=4, mlp=True)
def middling(context):
    "Say b."
    return "b"
"""


@pytest.mark.parametrize(
    "args, n",
    [
        (["blank", "wide", "w.json"], "50,385,920"),
        (["train", "wide", "--out", "w.json"], "50,385,920"),
        (["train", "middling", "--out", "w.json"], "792,320"),  # its blank fits (3 characters a weight), not trained
    ],
)
def test_weights_whose_file_would_be_too_large_are_refused_before_they_are_made_or_trained(tmp_path, args, n):
    """A teacher's task may have a shape whose weights no file holds: blank and train say so first, naming the
    weights and the characters, instead of making them (gigabytes) and failing at the save."""
    (tmp_path / "big.py").write_text(WIDE, encoding="utf-8")
    said = f"of the shape of task {args[1]} in 'big.py' has {n} weights, whose file would take"  # named as others
    _assert_one_short_line(*run(*args, "--tasks", "big.py", cwd=tmp_path), said)
    assert not (tmp_path / "w.json").exists()
    assert run("blank", "middling", "m.json", "--tasks", "big.py", cwd=tmp_path)[0] == 0


def test_training_that_would_take_too_long_is_refused_in_one_line_before_it_starts(tmp_path):
    """train --steps 100000 on a large built-in task: one line naming the most steps allowed (the README's 7,235),
    nothing written."""
    said = run("train", "induction", "--steps", "100000", "--out", "i.json", cwd=tmp_path)
    _assert_one_short_line(*said, "are allowed: 7235 steps at most")
    assert not (tmp_path / "i.json").exists()


ESCAPES = r"""import handmade

@handmade.task(alphabet="ab", n_ctx=2, n_embd=2, n_layer=0)
def coloured(context):
    "Say a. \x1b[31mred\x1b[0m here\x07"
    return "a"

@handmade.task(alphabet="ab", n_ctx=2, n_embd=2, n_layer=0)
def boom(context):
    "Say b."
    raise ValueError("line1\nline2\x1b[2Jcleared")
"""


def test_a_teachers_words_cannot_drive_the_learners_terminal(tmp_path):
    """A statement or a message with control characters (colour, clearing the screen, a bell) is printed
    with them as escapes, on stdout and on stderr; the tab and the new line stay what they are."""
    (tmp_path / "esc.py").write_text(ESCAPES, encoding="utf-8")
    code, out, err = run("tasks", "--tasks", "esc.py", cwd=tmp_path)
    assert code == 2 and "\x1b" not in out + err and "\r" not in out + err
    assert "Say a. \\x1b[31mred\\x1b[0m here\\x07" in out and "line2\\x1b[2Jcleared" in err
    assert out.count("\n") > 3  # the listing's own lines


def test_grade_json_stays_json_when_the_alphabet_holds_control_characters(tmp_path):
    """C1 controls (U+0085) json leaves raw are written as JSON's own escapes, which the terminal cannot act on."""
    (tmp_path / "tk.py").write_text(
        'import handmade\n\n@handmade.task(alphabet="a\\x85", n_ctx=2, n_embd=4, n_layer=1)\n'
        'def copy_last(context):\n    "Say the last letter."\n    return context[-1]\n',
        encoding="utf-8",
    )
    assert run("blank", "copy_last", "b.json", "--tasks", "tk.py", cwd=tmp_path)[0] == 0
    code, out, _err = run("grade", "copy_last", "--tasks", "tk.py", "--weights", "b.json", "--json", cwd=tmp_path)
    assert code == 1 and "\x85" not in out and "\x85" in [m["context"] for m in json.loads(out)["first_wrong"]]


# ---- a teacher's tasks: --tasks FILE.py ------------------------------------------------------

README = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
TASKS_SECTION = README[README.index("## Tasks") : README.index("## Tests")]
SHIFT = re.search(r"```python\n(.+?)\n```", TASKS_SECTION, re.S).group(1)  # the README's example
UNSOLVED = '''

@handmade.task(alphabet="ab", n_ctx=2, n_embd=2, n_layer=0)
def last(context):
    """Say the last letter again."""
    return context[-1]


if __name__ == "__main__":
    raise SystemExit("the command line does not run this part")
'''


@pytest.fixture
def teacher(tmp_path):
    """A folder with the teacher's shift.py (the README's example, and a task without a reference)."""
    (tmp_path / "shift.py").write_text(SHIFT + UNSOLVED, encoding="utf-8")
    return tmp_path


def test_the_readmes_task_commands_run_as_it_says(teacher):
    commands = re.findall(r"^\$ python -m handmade (.+?--tasks shift\.py)", README, re.M)
    assert len(commands) == 3
    results = [run(*command.split()[: command.split().index("--tasks") + 2], cwd=teacher) for command in commands]
    assert [code for code, _, _ in results] == [0, 0, 1]  # listed, blank written, blank graded: a fail
    assert results[2][1].startswith("task shift: FAIL")


def test_tasks_lists_only_the_files_tasks(teacher):
    code, out, err = run("tasks", "--tasks", "shift.py", cwd=teacher)
    assert code == 0 and err == ""
    assert out.startswith("shift: Say the letter after the last one: a to b, b to c, c to a.\n")
    assert "\n\nlast: Say the last letter again.\n" in out and out.count("designed for:") == 2
    assert "alternate:" not in out


def test_a_teachers_task_is_blanked_and_graded_pass_and_fail(teacher):
    from handmade.course.solutions import reference
    from handmade.course.tasks import load_tasks

    assert run("blank", "shift", "blank.json", "--tasks", "shift.py", cwd=teacher)[0] == 0
    code, out, err = run("grade", "shift", "--weights", "blank.json", "--tasks", "shift.py", cwd=teacher)
    assert code == 1 and err == "" and out.startswith("task shift: FAIL") and "where it goes wrong" in out
    handmade.save_weights(reference(load_tasks(teacher / "shift.py")["shift"]), teacher / "mine.json")
    code, out, _ = run("grade", "shift", "--weights", "mine.json", "--tasks", "shift.py", cwd=teacher)
    assert code == 0 and out.startswith("task shift: PASS") and "right: 39 / 39" in out


def test_a_task_without_a_reference_is_graded_too(teacher):
    assert run("blank", "last", "last.json", "--tasks", "shift.py", cwd=teacher)[0] == 0
    code, out, err = run("grade", "last", "--weights", "last.json", "--tasks", "shift.py", cwd=teacher)
    assert code == 1 and err == "" and out.startswith("task last: FAIL")


def test_the_built_in_tasks_stay_available_beside_a_file_and_train_takes_it_too(teacher):
    assert run("blank", "abc", "abc.json", "--tasks", "shift.py", cwd=teacher)[0] == 0
    assert run("grade", "abc", "--weights", "abc.json", "--tasks", "shift.py", cwd=teacher)[0] == 1
    code, out, err = run("train", "last", "--steps", "3", "--out", "t.json", "--tasks", "shift.py", cwd=teacher)
    assert code == 0, err
    assert "task last:" in out and handmade.load_weights(teacher / "t.json")["wte"].shape == (2, 2)


MANY_TASKS = """\
import handmade


def make(i):
    def rule(context):
        \"\"\"Say a.\"\"\"
        return "a"

    rule.__name__ = f"t{{i}}"
    handmade.task(alphabet="ab", n_ctx=2, n_embd=2)(rule)


for i in range({n}):
    make(i)
"""

BAD_TASK_FILES = {  # name: (the file's name, its content (None: no file), a phrase of the one line)
    "a missing file": ("gone.py", None, "cannot load tasks from 'gone.py': no such file"),
    "not named .py": ("tasks.json", '{"a": 1}', "'tasks.json': it is not a Python file: its name does not end in .py"),
    "a syntax error": ("broken.py", "def f(:\n", "'broken.py': it is not Python (invalid syntax at line 1)"),
    "a binary file": (
        "binary.py",
        b"\xff\xfe\x00garbage",
        "'binary.py': it is not text in utf-8: on line 1, byte 1 of the line (0xff) is not a character",
    ),
    "a raise": ("raises.py", "import handmade\n1 / 0\n", "'raises.py': it raised ZeroDivisionError: division by zero"),
    "an exit": ("exits.py", "import sys\nsys.exit(3)\n", "'exits.py': it raised SystemExit: 3"),
    "a long message": ("long.py", "raise ValueError('x' * 5000)\n", "'long.py': it raised ValueError: xxx"),
    "no task": (
        "none.py",
        "import handmade\n",
        "'none.py': it defines no task: decorate a rule function with @handmade",
    ),
    "a built-in name": ("clash.py", a_task("abc"), "'clash.py': there is already a built-in task called abc"),
    "two of one name": ("twice.py", a_task() + a_task(), "'twice.py': it defines two tasks called mine"),
    "too many tasks": (
        "many.py",
        MANY_TASKS.format(n=101),
        "'many.py': it defines 101 tasks; a file may define at most 100: put the others in another file",
    ),
    "a wrong argument": ("zero.py", a_task(options='alphabet="ab", n_ctx=0, n_embd=2'), "'zero.py': task mine: n_ctx"),
    "no statement": ("mute.py", a_task().replace('"""Say a."""', "pass"), "'mute.py': task mine: the rule's docstring"),
    "a failing rule": (
        "fails.py",
        a_task(body="return {}[context]"),
        "task mine in 'fails.py': its rule, asked what follows 'a', raised KeyError: 'a'",
    ),
    "an answer outside": ("d.py", a_task(body='return "d"'), "task mine in 'd.py': its rule answered 'd' after 'a'"),
}


def test_a_file_of_as_many_tasks_as_allowed_lists_them_all(tmp_path):
    (tmp_path / "many.py").write_text(MANY_TASKS.format(n=MAX_FILE_TASKS), encoding="utf-8")
    code, out, err = run("tasks", "--tasks", "many.py", cwd=tmp_path)
    assert code == 0 and err == "" and out.count(": Say a.") == MAX_FILE_TASKS == 100, (code, err)


SIZES = {"wide": 1024, "middling": 400, "small": 8}  # n_embd: a blank too large for a file, a trained one, neither


def test_a_listing_says_which_tasks_blank_and_train_refuse_as_too_large_for_a_file_and_they_do(tmp_path):
    """The issue: tasks listed a teacher's task (n_embd 1024) as any other, and blank then refused it, its file
    being over the limit. The listing says so, and says nothing that the commands do not do."""
    tasks = "".join(a_task(name, options=f'alphabet="abc", n_ctx=3, n_embd={n}') for name, n in SIZES.items())
    (tmp_path / "big.py").write_text(tasks, encoding="utf-8")
    code, out, err = run("tasks", "--tasks", "big.py", cwd=tmp_path)
    assert code == 0 and err == "", err
    for entry, name in zip(out.split("\n\n"), SIZES):
        blank = run("blank", name, f"{name}.json", "--tasks", "big.py", cwd=tmp_path)
        train = run("train", name, "--steps", "1", "--out", f"t_{name}.json", "--tasks", "big.py", cwd=tmp_path)
        assert entry.startswith(f"{name}: ") and (blank[0], train[0]) in ((0, 0), (0, 2), (2, 2)), (blank, train)
        assert ("blank and train refuse it" in entry) == (blank[0] == 2) == ("file would take about" in blank[2])
        assert ("train refuses it" in entry) == (blank[0] == 0 and train[0] == 2), (entry, train)
        assert (train[0] == 2) == ("file would take about" in train[2]), train
    assert [(tmp_path / f"{n}.json").exists() for n in SIZES] == [False, True, True]


def write_task_file(folder, case):
    name, content, phrase = BAD_TASK_FILES[case]
    if isinstance(content, str):
        (folder / name).write_text(content, encoding="utf-8")
    elif content is not None:
        (folder / name).write_bytes(content)
    return name, phrase


@pytest.mark.parametrize("case", list(BAD_TASK_FILES))
def test_a_tasks_file_that_cannot_be_used_is_one_line_naming_it(tmp_path, case):
    name, phrase = write_task_file(tmp_path, case)
    _assert_one_short_line(*run("tasks", "--tasks", name, cwd=tmp_path), phrase)


NOT_UTF8 = {  # what reads a person's text file: (its name, its content's first two lines, the command that reads it)
    "a tasks file": ("mine.py", b"import handmade\n\n", ["tasks", "--tasks", "mine.py"]),
    "a weights file": ("w.json", b'{\n"wte": [[1]],\n', ["grade", "abc", "--weights", "w.json"]),
    "the progress file": ("data/progress.json", b'{\n"passed": [\n', ["tasks"]),
}


@pytest.mark.parametrize("language", ["en", "zh"])
@pytest.mark.parametrize("case", list(NOT_UTF8))
def test_a_byte_that_is_not_utf8_is_found_by_its_line_and_its_place_in_it(tmp_path, case, language):
    """Not the byte's offset in the file, which no editor shows: the line, and the byte's place in it, from 1."""
    name, start, command = NOT_UTF8[case]
    (tmp_path / "data").mkdir()
    (tmp_path / name).write_bytes(start + b'  "caf\xe9"\n')  # line 3: the 7th byte, after two spaces, " and caf
    env = {"HANDMADE_DATA": str(tmp_path / "data"), "HANDMADE_LANG": language}
    status, out, err = run(*command, cwd=tmp_path, env=env)
    said = {
        "en": "it is not text in utf-8: on line 3, byte 7 of the line (0xe9) is not a character",
        "zh": "它不是 utf-8 编码的文本：第 3 行的第 7 个字节（0xe9）在这种编码里不是字符",
    }[language]
    assert said in out + err, (status, out, err)


@pytest.mark.parametrize("command", [["blank", "mine", "x.json"], ["grade", "mine", "--weights", "x.json"]])
def test_blank_and_grade_refuse_such_a_file_before_anything_else(tmp_path, command):
    name, phrase = write_task_file(tmp_path, "a failing rule")
    _assert_one_short_line(*run(*command, "--tasks", name, cwd=tmp_path), phrase)
    assert not (tmp_path / "x.json").exists()


def test_a_folder_and_an_unknown_name_are_one_line_too(teacher):
    (teacher / "folder.py").mkdir()
    _assert_one_short_line(*run("tasks", "--tasks", "folder.py", cwd=teacher), "'folder.py': it is not a regular file")
    _assert_one_short_line(
        *run("grade", "nope", "--weights", "x.json", "--tasks", "shift.py", cwd=teacher),
        "there is no task 'nope'; the tasks are shift, last, alternate, ",  # a teacher's first
    )
    err = run("grade", "nope", "--weights", "x.json", "--tasks", "shift.py", cwd=teacher)[2]
    assert "--tasks" not in err  # the file was read: the name is in none of its tasks


def test_grade_json_is_one_object_with_every_failing_context_and_its_shares(tmp_path):
    path = tmp_path / "abc.json"
    run("blank", "abc", str(path))
    code, out, err = run("grade", "abc", "--weights", str(path), "--json")
    report = json.loads(out)
    assert code == 1 and err == "" and out.count("\n") == 1
    # every context is under the margin, a tie (margin 0), which predicts nothing right: the token it ties with is said
    assert (report["passed"], report["right"], report["graded"], len(report["failing"])) == (False, 0, 15, 15)
    assert all(case["predicted"] == case["against"] != case["expected"] for case in report["failing"])
    assert all(miss["tie"] and miss["margin"] == 0 for miss in report["first_wrong"])
    for case in report["failing"]:
        assert sum(case["contributions"].values()) == pytest.approx(case["margin"])
        assert case["margin"] <= report["threshold"] and case["path"] is not None
    assert report["revealed"] is None is report["reference_problem"] is report["answer_shares"]  # nothing of the answer
    assert "reference" not in out.replace('"reference_problem": null', "")


def test_grade_reveal_shows_the_reference_only_when_asked(tmp_path):
    path = tmp_path / "abc.json"
    run("blank", "abc", str(path))
    assert "reference" not in run("grade", "abc", "--weights", str(path))[1]
    code, out, _err = run("grade", "abc", "--weights", str(path), "--reveal")
    assert code == 1 and "the reference solution, on the same context" in out and "blocks[0].head0 1024" in out
    shown = json.loads(run("grade", "abc", "--weights", str(path), "--reveal", "--json")[1])
    assert shown["answer_shares"]["blocks[0].head0"] == 1024 and shares_listed(shown["answer_shares"]) in out
    withheld = {"HANDMADE_NO_REFERENCES": "1"}  # a learners' install: why there are none, no numbers
    report = json.loads(run("grade", "abc", "--weights", str(path), "--reveal", "--json", env=withheld)[1])
    assert "not installed here" in report["revealed"] and report["answer_shares"] is None


OVER_A_LIMIT_IN_A_FILE = {  # a task of the file over a limit, and a phrase of the one line refusing it
    "too many texts": ('alphabet="abcdefgh", n_ctx=9, n_embd=8', "more than 100000 texts"),
    "too costly to grade": ('alphabet="ab", n_ctx=13, n_embd=256, n_layer=16, mlp=True', "cannot be graded"),
    "too many extra examples": (
        'alphabet="abc", n_ctx=3, n_embd=8, extra_examples=[("ab", "c")] * 1001',
        "more than 1000 extra examples",
    ),
}


@pytest.mark.parametrize("case", list(OVER_A_LIMIT_IN_A_FILE))
def test_a_file_with_one_task_over_a_limit_keeps_its_other_tasks_working(tmp_path, case):
    """The big one is refused in one line when it is used, naming it and its file; the file's other
    task is listed, blanked and graded as ever."""
    options, phrase = OVER_A_LIMIT_IN_A_FILE[case]
    (tmp_path / "homework.py").write_text(SHIFT + "\n\n" + a_task("big", options=options), encoding="utf-8")
    code, out, err = run("tasks", "--tasks", "homework.py", cwd=tmp_path)
    assert code == 2 and out.startswith("shift: ") and "big:" not in out, (out, err)
    assert err.count("\n") == 1 and "task big in 'homework.py'" in err and phrase in err, err
    assert run("blank", "shift", "shift.json", "--tasks", "homework.py", cwd=tmp_path)[0] == 0
    code, out, _err = run("grade", "shift", "--weights", "shift.json", "--tasks", "homework.py", cwd=tmp_path)
    assert code == 1 and out.startswith("task shift: FAIL")
    for argv in (["blank", "big", "big.json"], ["grade", "big", "--weights", "shift.json"]):
        code, out, err = run(*argv, "--tasks", "homework.py", cwd=tmp_path)
        assert (code, out) == (2, "") and err.count("\n") == 1 and phrase in err and "'homework.py'" in err, err
    assert not (tmp_path / "big.json").exists()


@pytest.mark.parametrize("command", [["blank", "mine", "{file}"], ["train", "mine", "--steps", "1", "--out", "{file}"]])
def test_no_command_writes_weights_over_the_tasks_file_it_reads_even_with_force(tmp_path, command):
    tasks_file = tmp_path / "mine.py"
    tasks_file.write_text(a_task(), encoding="utf-8")
    for spelled in ("mine.py", "./mine.py"):  # the same file, however it is named
        argv = [part.replace("{file}", spelled) for part in command]
        status, out, err = run(*argv, "--tasks", "mine.py", "--force", cwd=tmp_path)
        assert (status, out) == (2, "") and one_line(err), err
        assert "'" + spelled + "' is the file the tasks are read from (--tasks); it is kept" in err
    assert tasks_file.read_text(encoding="utf-8") == a_task()


def test_a_tasks_file_imports_a_module_beside_it_from_any_folder(tmp_path):
    folder = tmp_path / "course"
    folder.mkdir()
    (folder / "helper.py").write_text('ANSWER = "a"\n', encoding="utf-8")
    (folder / "mine.py").write_text(
        a_task(body="return ANSWER").replace("import handmade", "import handmade\nfrom helper import ANSWER"),
        encoding="utf-8",
    )
    status, out, err = run("tasks", "--tasks", "course/mine.py", cwd=tmp_path)
    assert status == 0 and out.startswith("mine: Say a."), err
    from handmade.course.task_files import load_tasks

    before = list(sys.path)
    assert list(load_tasks(folder / "mine.py")) == ["mine"] and sys.path == before  # the folder only while it runs


def test_two_tasks_files_each_import_their_own_helper_of_one_name(tmp_path):
    from handmade.course.task_files import load_tasks

    for letter in "ab":
        folder = tmp_path / letter
        folder.mkdir()
        (folder / "rules.py").write_text(f"LETTER = {letter!r}\n", encoding="utf-8")
        source = a_task(name=f"say_{letter}", body="return LETTER").replace(
            "import handmade", "import handmade\nfrom rules import LETTER"
        )
        (folder / "mine.py").write_text(source, encoding="utf-8")
    said = [load_tasks(tmp_path / letter / "mine.py")[f"say_{letter}"]("a") for letter in "ab"]
    assert said == ["a", "b"] and "rules" not in sys.modules


def test_lang_may_come_after_the_command_and_the_last_one_counts():
    assert run("accuracy", "--lang", "zh")[1] == "准确率：100.0%（27 / 27）\n"
    assert run("--lang", "zh", "accuracy", "--lang", "en")[1] == "ACCURACY: 100.0% (27 / 27)\n"
    _assert_one_short_line(*run("accuracy", "--lang", "fr"), "invalid choice: 'fr'")


def test_the_missing_arguments_are_listed_as_the_language_lists_them():
    """argparse joins the names of the missing arguments with ", " whatever the language: in Chinese
    they are joined with 、, as the choices of an invalid choice are."""
    _assert_one_short_line(*run("--lang", "zh", "grade"), "缺少以下必需参数：TASK、--weights（参见 --help）")
    _assert_one_short_line(*run("--lang", "en", "grade"), "the following arguments are required: TASK, --weights")
    _assert_one_short_line(*run("--lang", "zh"), "缺少以下必需参数：COMMAND（参见 --help）")  # a name, as TASK is
    _assert_one_short_line(
        *run("--lang", "zh", "frobnicate"), "参数 COMMAND：无效的选择：'frobnicate'（可选：'complete'、"
    )


def test_accuracy_of_weights_of_another_alphabet_says_what_it_scores(tmp_path):
    """The blog's contexts are over 'ab': weights over '01' are told so, not of a context the learner never typed."""
    from handmade.course.solutions import reference

    handmade.save_weights(reference("xor"), tmp_path / "xor.json")
    code, out, err = run("accuracy", "--weights", str(tmp_path / "xor.json"))
    _assert_one_short_line(code, out, err, "accuracy scores the blog's (aab)* contexts, over 'ab'")
    assert "these weights' alphabet is '01'" in err and "'aa'" not in err


def _value_options():
    """(command, option) for every option of every command that takes a value, found in the parser itself:
    a new one is tried as soon as it is written."""
    from handmade.cli import build_parser

    commands = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    for command, parser in commands.choices.items():
        for action in parser._actions:
            if action.option_strings and action.nargs is None and action.dest not in ("lang", "help"):
                yield command, action.option_strings[-1]


TWO_VALUES = {"-n": ("1", "2"), "--steps": ("1", "2"), "--seed": ("1", "2"), "--alphabet": ("ab", "abc")}


@pytest.mark.parametrize(("command", "option"), list(_value_options()))
def test_an_option_given_twice_is_refused_naming_both_values_never_the_first_dropped(command, option):
    """argparse keeps the last of an option given twice: a teacher's --tasks week1.py --tasks week2.py lost
    week1.py's tasks without a word. Every option that takes a value is refused a second (--lang alone may
    come again, the last counting: test_lang_may_come_after_the_command_and_the_last_one_counts)."""
    first, second = TWO_VALUES.get(option, ("one.json", "two.json"))
    code, out, err = run(command, option, first, option, second)
    _assert_one_short_line(code, out, err, f"argument {option}: given twice, ")
    assert first in err and second in err, err


def _command_options():
    """(command, option, whether it takes a value) for every option of every command but --lang and --help, found
    in the parser itself."""
    from handmade.cli import build_parser

    commands = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    for command, parser in commands.choices.items():
        for action in parser._actions:
            if action.option_strings and action.dest not in ("lang", "help"):
                yield command, action.option_strings[-1], action.nargs is None


@pytest.mark.parametrize(("command", "option", "value"), list(_command_options()))
def test_a_commands_option_given_before_the_command_is_said_so_naming_where_it_goes(capsys, command, option, value):
    """A teacher's "--tasks week1.py tasks": argparse took week1.py for an unknown command ("invalid choice:
    'week1.py'"), or the option for an unrecognized one. Said as what it is, naming the commands that take it."""
    from handmade import cli

    assert cli.main([option, *(["x.json"] if value else []), command, "x"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and one_line(err) and "invalid choice" not in err and "unrecognized" not in err, err
    assert f"error: {option} is an option of a command (" in err and command in err.split("(")[1].split(")")[0], err
    assert err.endswith(f"give it after the command, as in python -m handmade {command} {option} …\n"), err


@pytest.mark.parametrize(
    "argv, said",
    [
        (["--tas", "w.py", "tasks"], "--tasks is an option of a command (tasks, blank, grade, train)"),  # shortened
        (["--task=w.py", "blank", "t", "x.json"], "as in python -m handmade blank --tasks …"),
        (
            ["--weights", "tasks", "grade", "abc"],
            "as in python -m handmade grade --weights …",
        ),  # its value a command's name
        (
            ["--reveal", "blank", "abc", "x.json"],
            "--reveal is an option of a command (grade): give it after the command, as in python -m handmade grade --reveal …",
        ),
    ],
)
def test_an_option_before_the_command_is_found_shortened_and_the_example_is_a_command_that_takes_it(capsys, argv, said):
    from handmade import cli

    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert said in err and one_line(err), err


def test_an_option_before_the_command_is_said_in_chinese_and_lang_there_is_no_mistake(capsys):
    from handmade import cli

    try:
        assert cli.main(["--lang", "zh", "--tasks", "week1.py", "tasks"]) == 2
    finally:
        handmade.set_language("en")
    err = capsys.readouterr().err
    assert "--tasks 是命令（tasks、blank、grade、train）的选项" in err and reads_as_chinese(
        err.partition("错误：")[2].partition("例如")[0]
    ), err
    assert cli.main(["--lang", "en", "--bogus", "tasks"]) == 2  # no command's option: argparse's own line
    assert "unrecognized arguments: --bogus" in capsys.readouterr().err


def test_an_async_rule_is_refused_in_one_line_without_a_warning_that_it_was_never_awaited(tmp_path):
    """An ``async def`` rule answers a coroutine: refused as any answer that is no character, in one line; the
    coroutines it made are closed, not left to warn on stderr that they were never awaited."""
    source = a_task().replace("def mine(context):", "async def mine(context):")
    (tmp_path / "rules.py").write_text(source, encoding="utf-8")
    for command in (["tasks"], ["blank", "mine", str(tmp_path / "w.json")]):
        code, out, err = run(*command, "--tasks", str(tmp_path / "rules.py"))
        assert "never awaited" not in err and "RuntimeWarning" not in err, err
        _assert_one_short_line(code, "", err, "its rule answered coroutine after 'a'")
