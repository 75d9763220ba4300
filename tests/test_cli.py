"""``python -m handmade``: the blog's lines on stdout, one-line errors with status 2."""

import json
import subprocess
import sys

import pytest

import handmade


def run(*args):
    result = subprocess.run([sys.executable, "-m", "handmade", *args], capture_output=True, text=True)
    return result.returncode, result.stdout, result.stderr


def test_complete_prints_the_blogs_line():
    assert run("complete", "abaab") == (0, "abaab :: aabaabaaba\n", "")


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
    assert run("export", str(path))[0] == 0
    assert run("accuracy", "--weights", str(path))[1] == "ACCURACY: 100.0% (27 / 27)\n"


def test_weights_file_changes_the_answers(tmp_path):
    weak = json.loads(handmade.weights_to_json(handmade.blog_model(proj_lg=0.5)))
    path = tmp_path / "weak.json"
    path.write_text(json.dumps(weak))
    code, out, _ = run("accuracy", "--weights", str(path))
    assert code == 0 and out.startswith("ACCURACY: ") and "(27 / 27)" not in out
    assert "  missed: aa -> expected b, got a" in out


@pytest.mark.parametrize(
    "args, message",
    [
        (["complete", "abc"], "cannot tokenize 'c' at position 2 of 'abc': the alphabet is 'ab'"),
        (["complete", ""], "cannot predict from an empty context"),
        (["predict", "a b"], "cannot tokenize ' ' at position 1"),
        (["complete", "a", "-n", "-1"], "argument -n: must be 0 or more; found -1"),
        (["complete", "a", "-n", "x"], "argument -n: invalid int value: 'x'"),
        (
            ["accuracy", "--weights", "/nonexistent/w.json"],
            "cannot read weights from '/nonexistent/w.json': no such file",
        ),
        (["frobnicate"], "invalid choice: 'frobnicate'"),
        ([], "the following arguments are required: command"),
    ],
)
def test_bad_input_exits_2_with_one_line(args, message):
    code, out, err = run(*args)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and message in err and "Traceback" not in err


def test_broken_weights_file_exits_2_with_one_line(tmp_path):
    path = tmp_path / "w.json"
    path.write_text('{"wte": [[0, 1]], "wpe": [[1, 0]], "blocks": [{"attn": {}}]}')
    code, _, err = run("predict", "ab", "--weights", str(path))
    assert code == 2 and err.count("\n") == 1
    assert "blocks[0].attn is missing 'c_attn'" in err


def test_overflowing_weights_exit_2_with_one_line(tmp_path):
    params = handmade.blog_model()
    params["blocks"][0]["attn"]["c_attn"]["w"][5, 23] = 1e308
    path = tmp_path / "big.json"
    handmade.save_weights(params, path)
    code, _, err = run("complete", "aab", "--weights", str(path))
    assert code == 2 and err.count("\n") == 1 and "inf or nan" in err and "Warning" not in err
