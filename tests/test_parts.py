"""Weights by name: the parts of c_attn, and the diagram of a model drawn from its weights."""

import re

import numpy as np
import pytest

import handmade
from handmade.display.diagram import diagram
from handmade.parts import get, qkv, with_qkv
from handmade.weights import WeightsError


def test_with_qkv_replaces_only_the_named_blocks_of_c_attn():
    model = handmade.blog_model()
    q, k, v = qkv(model)
    new_v = np.full_like(v, 2.0)
    changed = with_qkv(model, v=new_v)
    assert np.array_equal(qkv(changed)[2], new_v)
    assert np.array_equal(qkv(changed)[0], q) and np.array_equal(qkv(changed)[1], k)
    w, n_attn = changed["blocks"][0]["attn"]["c_attn"]["w"], q.shape[1]
    assert np.array_equal(w[:, 2 * n_attn :], new_v)  # v is the last third of c_attn.w
    assert np.array_equal(qkv(model)[2], v), "the original is left alone"


def test_with_qkv_names_the_block_and_refuses_a_wrong_shape():
    model = handmade.blog_model()
    with pytest.raises(ValueError, match="no blocks\\[1\\]"):
        with_qkv(model, 1, q=qkv(model)[0])
    with pytest.raises(WeightsError, match="new values have shape"):
        with_qkv(model, q=np.zeros((3, 3)))


def test_the_diagram_uses_gpt2_names_and_dashes_what_the_model_leaves_out():
    blog = diagram()
    assert all(name in blog.picture for name in ("wte + wpe", "c_attn", "c_proj", "x @ wte.T"))
    assert "without ln_1, ln_2, mlp, ln_f (dashed)" in str(blog) and "1 head" in str(blog)
    two_heads = diagram(handmade.two_head_model())
    assert "2 heads" in str(two_heads)
    with pytest.raises(WeightsError):
        diagram({"wte": 1})


@pytest.mark.parametrize(
    "name, close",
    [
        ("c_proj", "c_proj.w or c_proj.b"),
        ("c_proj.ww", "c_proj.w or c_proj.b"),
        ("blocks[0].wq", None),
        ("qq", None),
        # the paths of the weights dict gpt() reads: the parts in that array
        ("blocks[0].attn.c_proj.w", "c_proj.w"),
        ("attn.c_attn.w", "q, k or v"),
        ("c_attn.b", "q.b, k.b or v.b"),
        ("c_attn", "one of q, k, v, q.b, k.b, v.b"),
    ],
)
def test_a_part_name_that_names_none_says_the_close_ones_the_cut_list_may_leave_out(name, close):
    """The list of parts in the message is cut to a line; the names a part's name begins, or that a typo is
    close to, or the parts in the array a weights dict's path names, are said after it, as a one-block model
    says them (c_proj.w, not blocks[0].c_proj.w)."""
    from handmade.course.solutions import reference

    with pytest.raises(KeyError) as error:
        handmade.parts.get(reference("abc"), name)
    said = str(error.value)
    assert said.startswith(f"no part called {name!r}; this model has wte, wpe") and "\n" not in said
    assert said.endswith(f"; did you mean {close}?") if close else "did you mean" not in said


def test_a_part_may_be_rows_made_with_basis_vector_and_the_first_bad_entry_is_named():
    """A list of numpy rows (each a Basis.vector) is a matrix like a list of lists; the message for one that
    is not names its first wrong entry, in reading order, and says what it holds."""
    from handmade.arguments import number_array
    from handmade.course import tasks

    task = tasks.TASKS["abc"]
    rows = [task.labels.residual.vector({name: 1}) for name in ("Ta", "Tb", "Tc")]
    assert (get(handmade.with_part(tasks.blank(task), "wte", rows), "wte") == np.eye(3)).all()
    for value, said in [
        ([["x", "y"]], "w[0, 0] is 'x'"),
        ([[1, 2], [3, "y"], ["z", 4]], "w[1, 1] is 'y'"),
        ([np.array(["a", "b"])], "w[0] holds str"),
        ([[np.ones(2)]], "w[0, 0] is a list where a number should be"),
    ]:
        with pytest.raises(ValueError, match=re.escape(said)):
            number_array(value, "w", 2, "2 x 2")
    assert number_array(np.ones((2, 2, 2)), "w", 2, "").shape == (2, 2, 2)  # an array's shape: the caller's to judge


def test_new_values_are_judged_by_the_name_they_were_given_and_one_part_is_given_once():
    """A value that is not finite is named by the part the learner wrote and its directions, as its tables name
    them (v[P0, Tb], not an index, nor the column of c_attn.w it lands in); two names of one part in the same change
    are refused, not one kept."""
    blog = handmade.blog_model()
    v = np.zeros((8, 8))
    v[0, 6] = np.nan
    with pytest.raises(WeightsError, match=re.escape("v[P0, Tb] is nan; every weight must be a finite number")):
        handmade.with_parts(blog, {"v": v})
    with pytest.raises(WeightsError, match=re.escape("blocks[0].v[P0, Tb] is nan")):  # the name given
        handmade.with_parts(blog, {"blocks[0].v": v})
    with pytest.raises(WeightsError, match=re.escape("c_proj.b[V] is inf")):  # a bias: its one row unsaid
        handmade.with_part(blog, "c_proj.b", [0] * 7 + [np.inf])
    with pytest.raises(ValueError, match=re.escape("'q' and 'blocks[0].q' name the same part, blocks[0].q")):
        handmade.with_parts(blog, {"q": np.ones((8, 8)), "blocks[0].q": np.zeros((8, 8))})
    poked = handmade.check_weights(blog)
    poked["wte"][0, 0] = np.nan  # in place, after the check: the copy with_parts makes says so
    with pytest.raises(WeightsError, match=re.escape("wte[0, 0] is nan")):
        handmade.with_parts(poked, {"q": np.zeros((8, 8))})
