"""Weights enter through one check, and travel as exact JSON."""

import dataclasses
import json

import numpy as np
import pytest
from helpers import counted, random_params

import handmade
from handmade import WeightsError, check_weights, load_weights, save_weights, weights_from_json, weights_to_json
from handmade.structure import Structure
from handmade.weights import iter_matrices, largest_weight


def blog():
    return handmade.blog_model()


def attn(params):
    return params["blocks"][0]["attn"]


def test_the_blog_model_passes_and_comes_back_as_float_copies():
    original = blog()
    checked = check_weights(original)
    for (path, a), (_, b) in zip(iter_matrices(original), iter_matrices(checked)):
        assert np.array_equal(a, b) and b.dtype == np.float64, path
    checked["wte"][0, 0] = 99
    assert original["wte"][0, 0] == 0  # a copy: editing it leaves the original alone


def test_lists_and_ints_are_accepted():
    checked = check_weights(handmade.BLOG_LITERALS)
    assert checked["blocks"][0]["attn"]["c_proj"]["b"].dtype == np.float64


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda p: p.pop("wpe"), "the weights are missing 'wpe'; they need wte, wpe, blocks"),
        (lambda p: attn(p).pop("c_proj"), r"blocks\[0\].attn is missing 'c_proj'; it needs c_attn, c_proj"),
        (lambda p: attn(p)["c_attn"].pop("b"), r"blocks\[0\].attn.c_attn is missing 'b'; it needs w, b"),
        (
            lambda p: p["blocks"][0].update(atn=p["blocks"][0].pop("attn")),
            r"blocks\[0\] has an unknown key 'atn'; allowed keys are attn, ln_1, ln_2, mlp, n_head",
        ),
        (lambda p: p.update(wtf=1), "the weights have an unknown key 'wtf'; allowed keys are wte, wpe, blocks, ln_f"),
        (
            lambda p: attn(p)["c_attn"].update(w=np.zeros((8, 23))),
            r"the width of blocks\[0\].attn.c_attn.w, 23, does not divide by 3: its columns are q \| k \| v side by side",
        ),
        (
            lambda p: attn(p)["c_proj"].update(b=np.zeros(7)),
            r"blocks\[0\].attn.c_proj.b has shape \(7,\); expected \(8,\), that is \[n_embd\]",
        ),
        (
            lambda p: p.update(wpe=np.zeros((5, 7))),
            r"wpe has shape \(5, 7\); expected \(any, 8\), that is \[n_ctx, n_embd\], n_embd = 8 from wte",
        ),
        (
            lambda p: p.update(wte=np.zeros(8)),
            r"wte has shape \(8,\); expected \(any, any\), that is \[n_vocab, n_embd\]",
        ),
        (
            lambda p: p.update(wpe=np.zeros((0, 8))),
            r"wpe has shape \(0, 8\): it is empty; a model needs at least one",
        ),
        (lambda p: attn(p)["c_proj"]["w"].__setitem__((7, 5), np.nan), r"blocks\[0\].attn.c_proj.w\[7, 5\] is nan"),
        (lambda p: p["wte"].__setitem__((1, 2), np.inf), r"wte\[1, 2\] is inf; every weight must be a finite number"),
        (lambda p: p.update(wte=[[0, 1], [0]]), r"wte is not a table of numbers: its rows have different lengths"),
        (lambda p: p.update(wte=[["a", 1]]), r"wte\[0, 0\] is 'a', not a number \(expected \[n_vocab, n_embd\]\)"),
        (lambda p: p.update(blocks={"attn": 1}), "blocks must be a list of blocks; found {'attn': 1}"),
        (lambda p: p["blocks"].__setitem__(0, 5), r"blocks\[0\] must be a dict with keys attn; found 5"),
        (
            lambda p: p["blocks"][0].update(n_head=3),
            r"blocks\[0\].n_head is 3, but n_attn = 8 does not split into 3 equal heads; allowed: 1, 2, 4, 8",
        ),
        (lambda p: p["blocks"][0].update(n_head=2.0), r"blocks\[0\].n_head is 2.0; it must be a whole number of heads"),
        (
            lambda p: p["blocks"][0].update(n_head=-(10**5000)),  # never written out: its digits, or "a huge number"
            r"blocks\[0\].n_head is far outside 1 to 64, the numbers of heads a block may have; allowed: 1, 2, 4, 8$",
        ),
        (
            lambda p: p["blocks"][0].update(ln_2={"g": np.ones(8), "b": np.zeros(8)}),
            r"blocks\[0\] has ln_2 but no mlp; ln_2 normalises the mlp's input",
        ),
        (
            lambda p: p["blocks"][0].update(ln_1={"g": np.ones(7), "b": np.zeros(8)}),
            r"blocks\[0\].ln_1.g has shape \(7,\); expected \(8,\)",
        ),
        (
            lambda p: p["blocks"][0].update(
                mlp={
                    "c_fc": {"w": np.zeros((8, 32)), "b": np.zeros(32)},
                    "c_proj": {"w": np.zeros((31, 8)), "b": np.zeros(8)},
                }
            ),
            r"blocks\[0\].mlp.c_proj.w has shape \(31, 8\); expected \(32, 8\), that is \[n_hidden, n_embd\], "
            r"n_embd = 8 from wte and n_hidden = 32 from c_fc.w",
        ),
    ],
)
def test_each_problem_gets_a_message_that_names_it(edit, message):
    params = blog()
    edit(params)
    with pytest.raises(WeightsError, match=message):
        check_weights(params)


def test_the_error_is_a_value_error_on_one_line():
    params = blog()
    attn(params)["c_attn"]["w"] = np.zeros((8, 23))
    with pytest.raises(ValueError) as error:
        check_weights(params)
    assert "\n" not in str(error.value)


def test_optional_parts_are_checked_and_kept():
    params = random_params(np.random.default_rng(0), n_head=2, ln=True, mlp=True, ln_f=True)
    checked = check_weights(params)
    assert checked["blocks"][0]["n_head"] == 2 and isinstance(checked["blocks"][0]["n_head"], int)
    assert set(checked["blocks"][0]) == {"attn", "n_head", "ln_1", "ln_2", "mlp"}
    assert "ln_f" in checked


def test_largest_weight_names_the_place_as_its_part_and_directions_name_it():
    params = blog()
    params["wpe"][3, 1] = -5000
    assert largest_weight(params) == ("wpe[pos 3, P1]", -5000.0)
    params["blocks"][0]["attn"]["c_attn"]["b"][21] = 9000  # v's bias, column 5 of its 8: Ta
    assert largest_weight(params) == ("blocks[0].v.b[Ta]", 9000.0)
    plain = dict(params)  # default labels: tokens a, b; directions e0, e1, ...
    assert largest_weight(plain) == ("blocks[0].v.b[e5]", 9000.0)


# ---- JSON ---------------------------------------------------------------------------------


def test_json_round_trip_is_exact(tmp_path):
    params = random_params(np.random.default_rng(7), n_head=2, ln=True, mlp=True, ln_f=True)
    params["wte"][0, 0] = 0.1 + 0.2  # a float that only repr() writes exactly
    params["wte"][0, 1] = -0.0
    params["wte"][0, 2] = 1e-300
    path = tmp_path / "w.json"
    save_weights(params, path)
    loaded = load_weights(path)
    for (p1, a), (p2, b) in zip(iter_matrices(check_weights(params)), iter_matrices(loaded)):
        assert p1 == p2 and a.tobytes() == b.tobytes(), p1  # bit for bit, signs of zero included
    assert loaded["blocks"][0]["n_head"] == 2


def test_json_keeps_one_matrix_row_per_line():
    text = weights_to_json(blog())
    assert "    [0, 0, 0, 0, 0, 1, 0, 0],\n" in text
    assert '"b": [0, 0, 0, 0, 0, 1024, 0, 0]' in text
    assert json.loads(text)["wte"] == [[0, 0, 0, 0, 0, 1, 0, 0], [0, 0, 0, 0, 0, 0, 1, 0]]


def test_saving_bad_weights_refuses_and_writes_nothing(tmp_path):
    params = blog()
    params["wte"][0, 0] = np.nan
    with pytest.raises(WeightsError, match=r"wte\[0, 0\] is nan"):
        save_weights(params, tmp_path / "w.json")
    assert not (tmp_path / "w.json").exists()


def test_malformed_json_names_the_file_line_and_column(tmp_path):
    path = tmp_path / "broken.json"
    path.write_text('{"wte": [[0, 1],\n  [1, 0]\n', encoding="utf-8")
    with pytest.raises(WeightsError, match=r"'.*broken.json' is not valid JSON: .* at line 3, column 1"):
        load_weights(path)


def refused(path, text, lang):
    """The one line ``load_weights`` raises, in ``lang``, on a file at ``path`` that holds ``text``."""
    path.write_text(text, encoding="utf-8")
    handmade.set_language(lang)
    try:
        with pytest.raises(WeightsError) as error:
            load_weights(path)
    finally:
        handmade.set_language("en")
    return str(error.value)


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("where", ["top", "block"])
def test_a_key_given_twice_is_refused_naming_it_not_the_last_one_kept(tmp_path, lang, where):
    """json keeps the last of two equal keys without a word: a file that says two things of one part is refused."""
    key = {"top": '"wpe"', "block": '"c_proj"'}[where]  # given a second time, before the one the file has
    text = weights_to_json(blog()).replace(f"{key}:", f"{key}: [[0]], {key}:", 1)
    said = refused(tmp_path / "twice.json", text, lang)
    wanted = {"en": "twice in one object; each key may appear once", "zh": "给了两次；每个键只能出现一次"}[lang]
    assert wanted in said and repr(key[1:-1]) in said and "\n" not in said


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_string_left_open_is_said_where_it_starts_in_one_sentence(tmp_path, lang):
    """json says "Unterminated string starting at" and gives the place apart: the sentence says "at" once."""
    said = refused(tmp_path / "cut.json", '{"wte": [[0, 1]], "wp', lang)
    wanted = {"en": "JSON: Unterminated string starting at line 1, column 19", "zh": "第 1 行第 19 列"}
    assert wanted[lang] in said and "at at" not in said and "starting at)" not in said, said


def test_wrong_shape_in_a_file_names_the_file_and_the_matrix(tmp_path):
    params = json.loads(weights_to_json(blog()))
    params["blocks"][0]["attn"]["c_proj"]["w"].pop()
    path = tmp_path / "short.json"
    path.write_text(json.dumps(params), encoding="utf-8")
    with pytest.raises(
        WeightsError, match=r"short.json': blocks\[0\].attn.c_proj.w has shape \(7, 8\); expected \(8, 8\)"
    ):
        load_weights(path)


def test_nan_written_into_a_file_is_rejected():
    text = weights_to_json(blog()).replace("1024", "NaN", 1)
    with pytest.raises(WeightsError, match=r"the JSON text: blocks\[0\].attn.c_attn.w\[0, 0\] is nan"):
        weights_from_json(text)


def test_missing_file_is_a_clear_error(tmp_path):
    with pytest.raises(WeightsError, match="cannot read weights from '.*nope.json': no such file"):
        load_weights(tmp_path / "nope.json")


def test_a_file_that_is_not_text_is_a_clear_error(tmp_path):
    path = tmp_path / "binary.json"
    path.write_bytes(b"\xff\xfe\x00")
    with pytest.raises(WeightsError, match="cannot read weights from"):
        load_weights(path)


# ---- the Structure travels with the weights --------------------------------------------------


@pytest.mark.parametrize("made", ["blog_model", "a task's reference"])
def test_unchecked_weights_read_their_structure_once_until_changed(monkeypatch, made):
    """``blog_model()`` and ``solutions.reference()`` are Weights nobody has checked: their Structure is read
    on the first ``.structure`` (checking them), kept for every read after, and read again after a change
    at the top level, which may change it."""
    from handmade.course import solutions

    weights = handmade.blog_model() if made == "blog_model" else solutions.reference("abc")
    reads = counted(monkeypatch, Structure, "of")
    assert not weights.checked
    first = weights.structure
    assert all(weights.structure is first for _ in range(10)) and len(reads) == 1
    weights["blocks"] = weights["blocks"][:0]  # no blocks now: another model
    assert weights.structure.n_layer == 0 and len(reads) == 2
    assert weights.structure.n_layer == 0 and len(reads) == 2
    assert check_weights(weights).structure == weights.structure and not weights.checked


def _holders(params):
    """(the dict holding it, its key) for every array of a weights dict, however deep (n_head left out)."""
    found = []

    def visit(path, _leaf):
        holder = params
        for key in path[:-1]:
            holder = holder[key]
        found.append((holder, path[-1]))

    handmade.weights.walk(visit, params)
    return [(holder, key) for holder, key in found if key != "n_head"]


@pytest.mark.parametrize("model", ["abc", "xor", "induction"])
def test_a_change_anywhere_inside_checked_weights_unchecks_them(model):
    """Checked weights stay checked while only their numbers change; an array put in anywhere, however
    deep, of another shape or as a list, or a block added, makes them unchecked: the grader and the
    Structure see the weights as they are (a message naming the array, not numpy's broadcasting error)."""
    from handmade.course import grader, tasks

    for i in range(len(_holders(tasks.blank(model)))):
        weights = check_weights(tasks.blank(model))
        holder, key = _holders(weights)[i]
        holder[key][...] = 0.5  # numbers changed in place: still the weights it checked
        assert weights.checked
        shape = np.shape(holder[key])
        holder[key] = np.zeros(shape + (1,))  # another shape
        assert not weights.checked
        with pytest.raises(WeightsError, match=r"has shape .*expected"):
            grader.grade(model, weights)
        holder[key] = np.zeros(shape).tolist()  # a list of the right shape: checked again, and graded
        assert not weights.checked and grader.grade(model, weights, diagnose=False).total > 0
    grown = check_weights(tasks.blank("abc"))
    grown["blocks"].append(grown["blocks"][0])
    assert not grown.checked and check_weights(grown).structure.n_layer == 2
    assert handmade.forward([0, 1], grown).shape == (2, 3)
    grown["wpe"] = np.zeros((7, 3))  # at the top level: its own Structure is read again too
    assert grown.structure.n_ctx == 7


@pytest.mark.parametrize(
    "change, said",
    [
        ('w["ln_f"] = {}', "ln_f is missing 'g'"),
        ('w["extra"] = {}', "unknown key 'extra'"),
        ('w["blocks"].append({})', r"blocks\[2\] is missing 'attn'"),
        ('w["blocks"][0]["n_head"] = None', r"blocks\[0\].n_head is None"),
        ('w["blocks"][0]["attn"]["x"] = {}', r"blocks\[0\].attn has an unknown key 'x'"),
    ],
)
def test_an_empty_part_or_none_put_inside_checked_weights_is_said_where_they_are_next_used(change, said):
    """What holds no array (an empty dict, None) changes checked weights too: the grader says what is wrong."""
    from handmade.course import grader, tasks

    w = check_weights(tasks.blank("induction"))
    exec(change)
    assert not w.checked
    with pytest.raises(WeightsError, match=said):
        grader.grade("induction", w)


def test_checked_weights_carry_their_structure_and_a_change_unchecks_them():
    checked = check_weights(blog())
    assert checked.checked and checked.structure == Structure.of(checked)
    checked.labels = dataclasses.replace(checked.labels, alphabet="ba")  # other labels: checked again where used
    assert not checked.checked and check_weights(checked).checked
    again = check_weights(blog())
    del again["wpe"]
    assert not again.checked
    with pytest.raises(WeightsError, match="missing 'wpe'"):
        _ = again.structure


def test_more_heads_than_a_block_may_have_is_said_so_not_that_they_do_not_split():
    from handmade.structure import BlockShape

    params = Structure(2, 4, 128, (BlockShape(128),)).weights(lambda n_in, n_out: np.zeros((n_in, n_out)))
    for n_head, said in [(128, "is 128, but a block may have at most 64 heads"), (3, "does not split into 3 equal")]:
        params["blocks"][0]["n_head"] = n_head
        with pytest.raises(WeightsError, match=said):
            check_weights(params)
