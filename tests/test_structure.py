"""One description of a model: what it has, its parts, the arrays a pass taps, one naming rule; and
the package reading it instead of working a model's shape out for itself."""

import ast
import re
from pathlib import Path

import numpy as np
import pytest
from helpers import random_params
from hypothesis import given, settings
from hypothesis import strategies as st

import handmade
import handmade.display.trace
import handmade.training
from handmade import parts
from handmade.display.trace import trace
from handmade.model import Name, gpt, recording
from handmade.names import INTERMEDIATES, matches, resolve, shortest
from handmade.structure import BlockShape, Structure
from handmade.weights import iter_matrices

PACKAGE = Path(handmade.__file__).parent

shapes = st.fixed_dictionaries(
    {
        "n_layer": st.integers(0, 3),
        "n_head": st.sampled_from([1, 2, 4]),
        "ln": st.booleans(),
        "mlp": st.booleans(),
        "ln_f": st.booleans(),
    }
)


@settings(max_examples=40, deadline=None)
@given(shapes)
def test_the_taps_it_declares_are_what_a_pass_taps_in_order(shape):
    params = random_params(np.random.default_rng(0), **shape)
    heard = []
    with recording(lambda name, array: heard.append(name)):
        gpt(np.array([0, 2, 1]), **params)
    assert Structure.of(params).taps(derived=False) == heard
    assert [(n.kind, n.block, n.head) for n in heard] == [
        (n.kind, n.block, n.head) for n in Structure.of(params).taps(False)
    ]


@settings(max_examples=40, deadline=None)
@given(shapes)
def test_the_parts_cover_every_weight_once_and_zeros_rebuild_the_same_structure(shape):
    params = handmade.check_weights(random_params(np.random.default_rng(1), **shape))
    structure = params.structure
    covered = {path: np.zeros(array.shape[-1], int) for path, array in iter_matrices(params)}
    for part in structure.parts():
        path = re.sub(r"\.(\d+)\.", r"[\1].", ".".join(map(str, part.path)))  # as iter_matrices names it
        start, stop = part.columns or (0, len(covered[path]))
        covered[path][start:stop] += 1
        assert parts.get(params, part.name).shape == part.shape
    assert all((counts == 1).all() for counts in covered.values())
    assert Structure.of(structure.zeros()) == structure


def test_a_plain_dict_of_65_tokens_works_without_an_alphabet():
    params = random_params(np.random.default_rng(2), n_vocab=65, n_ctx=4, n_embd=8)
    loss, grads = handmade.training.loss_and_grads(params, [[0, 64, 3]], [[64, 3, 1]])
    assert np.isfinite(loss) and grads["wte"].shape == (65, 8)
    checked = handmade.check_weights(params)
    assert checked.labels.alphabet is None and handmade.display.trace.table(checked, "wte").rows[64] == "t64"
    with pytest.raises(ValueError, match="alphabet"):
        trace("ab", checked)  # text needs characters; the message says so without a command-line flag


def test_a_model_keeps_working_when_a_plain_dict_drops_its_labels():
    plain = dict(handmade.blog_model())
    assert handmade.accuracy(plain, alphabet="ab").perfect  # the numbers are the model
    assert list(parts.parts(plain))[:3] == ["wte", "wpe", "q"]


def test_one_naming_rule_for_parts_and_intermediates():
    names = [Name("q", 0), Name("q", 1), Name("mlp.c_proj.w", 1), Name("c_proj.w", 1), Name("scores", 0, 1)]
    assert names == [
        "blocks[0].q",
        "blocks[1].q",
        "blocks[1].mlp.c_proj.w",
        "blocks[1].c_proj.w",
        "blocks[0].head1.scores",
    ]
    assert matches("q", names[0]) and matches("head1.scores", names[4])
    assert not matches("0].q", names[0]) and not matches("proj.w", names[3])
    assert resolve("c_proj.w", names, "{name}") == "blocks[1].c_proj.w"  # not the MLP's
    assert resolve("scores", names, "{name}") == "blocks[0].head1.scores"
    with pytest.raises(KeyError, match="ambiguous here: say which of blocks\\[0\\].q, blocks\\[1\\].q"):
        resolve("q", names, "{name}")
    assert shortest(names[1], names) == "blocks[1].q" and shortest(names[3], names) == "c_proj.w"
    assert (names[4].kind, names[4].block, names[4].head, names[4].scope) == ("scores", 0, 1, "blocks[0].head1")
    model = handmade.check_weights(random_params(np.random.default_rng(3), n_layer=2, n_head=2))
    t = trace("abc", model, alphabet="abc")
    assert t["blocks[1].head0.attention_weights"].shape == (3, 3)
    with pytest.raises(KeyError, match="ambiguous"):
        t["head0.attention_weights"]
    with pytest.raises(KeyError, match="ambiguous"):
        parts.get(model, "q")
    assert parts.get(model, "blocks[1].q").shape == (8, 8)


def test_the_structure_of_the_blog_model():
    structure = handmade.blog_model().structure
    assert structure == Structure(2, 5, 8, (BlockShape(8),))
    assert [p.name for p in structure.parts()][:4] == ["wte", "wpe", "blocks[0].q", "blocks[0].k"]
    assert list(structure.part_names().values())[2:4] == ["q", "k"]


# ---- the package reads the description instead of re-deriving it -----------------------------------


def sources():
    return {
        path.relative_to(PACKAGE.parent).as_posix(): path.read_text(encoding="utf-8") for path in PACKAGE.rglob("*.py")
    }


def test_n_attn_is_worked_out_of_c_attn_in_one_place():
    found = [name for name, text in sources().items() for _ in re.finditer(r"//\s*3\b", text)]
    assert found == ["handmade/structure.py"]


# Words that name a tapped intermediate and also something else: weights' keys (ln_1, ln_2, ln_f),
# parts and letters (q, k, v, qkv), the labels' field for the stream's directions (residual).
ALSO_OTHER_THINGS = {"ln_1", "ln_2", "ln_f", "q", "k", "v", "qkv"}
ELSEWHERE = {  # module -> words it uses in another sense, and why
    "handmade/basis.py": {"residual"},  # Labels.residual: the names of the residual stream's directions
    "handmade/files.py": {"residual"},  # the same field in a weights file's labels
    "handmade/display/outputs.py": {"scores", "residual", "logits"},  # the words of the pipeline figure
    "handmade/course/worked_example.py": {"logits"},  # the worked example's own steps, as its source names them
    "handmade/course/explain.py": {"embedding"},  # a sentence's slot for the embedding it names ({embedding})
    "handmade/course/path/embeddings.py": {"embedding"},  # the kind of a path's step at an entry of wte or wpe
}


def spelled_tap_names(text):
    """The tap names a module spells as string literals, outside messages."""
    tree, in_messages = ast.parse(text), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) in ("_", "N_", "ngettext"):
            in_messages |= {id(sub) for sub in ast.walk(node)}
    literals = {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and id(n) not in in_messages}
    return literals & (set(INTERMEDIATES) - ALSO_OTHER_THINGS)


def test_tap_names_are_spelled_only_where_the_pass_taps_them_and_where_they_are_declared():
    spelled = {name: spelled_tap_names(text) - ELSEWHERE.get(name, set()) for name, text in sources().items()}
    assert {name for name, found in spelled.items() if found} == {"handmade/model.py", "handmade/names.py"}


def code_lines(function, text):
    """Lines of a function that hold code: not blank, not only a comment, not its docstring."""
    body = function.body
    docstring = body and isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None), ast.Constant)
    skip = set(range(body[0].lineno, body[0].end_lineno + 1)) if docstring else set()
    lines = text.splitlines()[function.lineno - 1 : function.end_lineno]
    return sum(
        1
        for number, line in enumerate(lines, function.lineno)
        if number not in skip and line.strip() and not line.strip().startswith("#")
    )


def test_no_function_of_the_package_is_longer_than_40_lines_of_code():
    long = []
    for name, text in sources().items():
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and code_lines(node, text) > 40:
                long.append(f"{name}:{node.name} ({code_lines(node, text)})")
    assert not long


# ---- labels the check accepts work everywhere after it ----------------------------------------

NAME = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1, max_size=40)
ALPHABET = st.sampled_from(["ab", " a", "\nb", "a\tb"[:2], "中文", "\x00a", None])  # a space, a new line: ␣, ⏎ in names


def _basis(draw, n):
    """A Basis of ``n`` distinct names, in groups of any sizes (None: left to the defaults)."""
    names = draw(st.lists(NAME, min_size=n, max_size=n, unique=True))
    cuts = sorted(draw(st.lists(st.integers(0, n), max_size=3)))
    groups = [names[a:b] for a, b in zip([0, *cuts], [*cuts, n])]
    return handmade.Basis({f"g{i}": group for i, group in enumerate(groups)})


@st.composite
def labelled_weights(draw):
    """Two-block weights (two heads, an MLP in the second) with any labels that check_weights accepts."""
    alphabet = draw(ALPHABET)
    structure = Structure(2, 3, 4, (BlockShape(4, n_head=2), BlockShape(2, n_hidden=3)))
    attention = tuple(draw(st.sampled_from([None, "named"])) for _block in structure.blocks)
    labels = handmade.Labels(
        alphabet,
        _basis(draw, 4),
        attention=tuple(None if a is None else _basis(draw, b.n_attn) for a, b in zip(attention, structure.blocks)),
        hidden=(None, draw(st.sampled_from([None, "named"])) and _basis(draw, 3)),
    )
    params = structure.weights(lambda n_in, n_out: np.arange(n_in * n_out, dtype=float).reshape(n_in, n_out) / 7)
    return handmade.weights.check_weights(params, labels)


@settings(max_examples=60, deadline=None)
@given(labelled_weights())
def test_labels_the_check_accepts_are_read_shown_and_saved_by_everything_after_it(params):
    """Whatever names check_weights accepts (any groups, names of up to 40 characters, an alphabet that
    shows alike, None for a block), the tables of every part and space show them, and a file keeps them."""
    structure = params.structure
    for part in structure.parts():  # each part's rows and columns, named
        assert len(structure.basis(part.rows, params.labels)) == part.rows.size
        assert len(structure.basis(part.cols, params.labels)) == part.cols.size
    for b, block in enumerate(structure.blocks):
        for kind in ("attention", "qkv"):
            structure.basis(structure.space(kind, b), params.labels)
        for head in range(block.n_head):
            assert len(structure.basis(structure.space("head", b, head), params.labels)) == block.d_head
    structure.basis(structure.space("tokens"), params.labels)
    handmade.display.trace.weight_tables(params)
    if params.labels.alphabet is not None:
        trace(params.labels.alphabet[:2], params)
    again = handmade.weights_from_json(handmade.weights_to_json(params))
    assert again.labels.to_json() == params.labels.to_json()  # (None, None) per block and () say the same


def test_a_basis_keeps_every_name_it_is_given_or_says_why_not():
    with pytest.raises(ValueError, match=r"a basis's groups need distinct names; found \[1, '1'\]"):
        handmade.Basis({1: ["a", "b"], "1": ["c"]})  # the same group, as text: "c" would replace a and b
    assert handmade.Basis({1: ["a", "b"], 2: ["c"]}).names == ("a", "b", "c")


def test_a_space_of_a_block_or_head_the_model_lacks_is_refused_never_counted_from_the_end():
    """Structure.space and Structure.basis name a block and a head by index: -1 is not the last, a head past
    the block's is not an empty basis, and an unknown kind is said with the kinds there are."""
    from handmade.course.tasks import TASKS, blank
    from handmade.structure import Space

    structure = blank("induction").structure  # two blocks of one head
    for args, said in [
        (("attention", -1), r"there is no blocks\[-1\]"),
        (("hidden", 2), r"2 blocks, blocks\[0\] to blocks\[1\]; there is no blocks\[2\]"),
        (("head", 0, 3), "head must be a whole number from 0 to 0; found 3"),
        (("hiden", 0), "there is no space of kind 'hiden'; the kinds are tokens, positions"),
    ]:
        with pytest.raises(ValueError, match=said):
            structure.space(*args)
    labels = TASKS["induction"].labels
    for space, said in [
        (Space("attention", 2, -1), r"there is no blocks\[-1\]"),
        (Space("head", 12, 0, 5), "head must be a whole number from 0 to 0; found 5"),
        (Space("head", 12, 0, -1), "head must be a whole number from 0 to 0; found -1"),
        (Space("hiden", 12, 0), "there is no space of kind 'hiden'"),
    ]:
        with pytest.raises(ValueError, match=said):
            structure.basis(space, labels)
    with pytest.raises(ValueError, match="this model has no blocks, so no block 0"):
        blank("alternate").structure.space("attention", 0)


def test_every_index_the_labels_and_entries_take_is_refused_below_0_never_counted_from_the_end():
    """The index arguments of the core's public methods (found by their names: block, i, j, n), each given -1
    and one past the end: a one-line error naming it, never the last one's names, never an IndexError."""
    model = handmade.blog_model()
    labels = handmade.Labels("ab", handmade.Basis.numbered(3), attention=(handmade.Basis(["x", "y", "z"]),) * 2)
    q = model.structure.part("q")
    for call, name in [
        (lambda: labels.attention_basis(-1, 3), "block"),
        (lambda: labels.hidden_basis(-1, 2), "block"),
        (lambda: model.structure.entry(q, model.labels, -1, 0), "i"),
        (lambda: model.structure.entry(q, model.labels, 0, -1), "j"),
        (lambda: model.structure.entry(q, model.labels, 8, 0), "i"),
        (lambda: handmade.Basis.numbered(-1), "n"),
    ]:
        with pytest.raises(ValueError, match=f"^{name} must be a whole number from 0 to"):
            call()
    assert labels.attention_basis(5, 3) == labels.residual  # past the blocks labelled: the defaults, as before
    assert model.structure.entry(q, model.labels, 7, 0) == "blocks[0].q[V, P0]"


def test_q_k_and_v_are_put_together_and_apart_only_as_matrices_of_one_shape():
    from handmade.basis import qkv_weights, split_qkv

    eye = np.eye(2)
    assert qkv_weights(eye, 2 * eye, 3 * eye)["w"].shape == (2, 6)
    assert [x.tolist() for x in split_qkv(np.arange(6.0)[None])] == [[[0, 1]], [[2, 3]], [[4, 5]]]
    for call, said in [
        (lambda: qkv_weights(eye, np.zeros((3, 2)), eye), r"q, k and v must be matrices of one shape.*k \(3, 2\)"),
        (lambda: qkv_weights([["a"]], [[1]], [[1]]), r"q\[0, 0\] is 'a', not a number"),
        (lambda: split_qkv(np.zeros((2, 5))), r"c_attn_w must be a matrix of 3\*n_attn columns.*\(2, 5\)"),
        (lambda: split_qkv([1, 2, 3]), r"c_attn_w must be a matrix of 3\*n_attn columns.*\(3,\)"),
    ]:
        with pytest.raises((TypeError, ValueError), match=said):
            call()


@pytest.mark.parametrize("value", [float("nan"), float("inf"), -float("inf"), 2**2000])
def test_a_weight_written_by_name_is_a_finite_number_or_refused_naming_its_entry(value):
    basis = handmade.Basis.numbered(3)
    with pytest.raises(ValueError, match=r"entries\['e1'\] is .*; every weight must be a finite number"):
        basis.vector({"e1": value})
    with pytest.raises(ValueError, match=r"entries\[\('e1', 'e2'\)\] is .*; every weight must be a finite number"):
        basis.matrix({("e1", "e2"): value})
