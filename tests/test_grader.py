"""The grader explains from the learner's own model: the margin shared out among its parts, the part
at fault named, for any shape; the reference solution shown only when asked."""

import json
import re

import numpy as np
import pytest
from helpers import counted, random_params
from hypothesis import given, settings
from hypothesis import strategies as st

import handmade
from handmade.arguments import fmt
from handmade.course import explain
from handmade.course.grader import MARGIN_THRESHOLD, grade, submission
from handmade.course.solutions import reference
from handmade.course.tasks import TASKS, blank, examples, get_task
from handmade.parts import get, with_parts
from handmade.structure import LAYER_NORM_EPS, Structure


@settings(max_examples=40, deadline=None)
@given(
    st.fixed_dictionaries(
        {"n_layer": st.integers(0, 2), "n_head": st.sampled_from([1, 2]), "ln": st.booleans(), "mlp": st.booleans()}
    ),
    st.booleans(),
    st.integers(0, 2**32 - 1),
)
def test_the_shares_add_up_to_the_margin_for_any_shape(shape, ln_f, seed):
    params = handmade.check_weights(random_params(np.random.default_rng(seed), ln_f=ln_f, **shape))
    tokens = [0, 2, 1, 1]
    logits = handmade.gpt(np.array(tokens), **params)[-1]
    found = explain.shares(explain.read_window(tokens, params), 3, params, 2, 0)
    assert sum(found.values()) == pytest.approx(logits[2] - logits[0], rel=1e-9, abs=1e-9)
    heads = sum(b.n_head for b in Structure.of(params).blocks)
    assert len(found) == 2 + heads + shape["n_layer"] * (1 + shape["mlp"]) + ln_f  # every part, once


def turn_in_the_values(c_proj_strength):
    """(abc)* as notebook 14's exercise builds it: v turns a into b (and so on), c_proj copies."""
    model = submission("abc", blank("abc"))
    basis = model.labels.residual
    letters = ["Ta", "Tb", "Tc"]
    turned = {("Ta", "Tb"): 1, ("Tb", "Tc"): 1, ("Tc", "Ta"): 1}
    return with_parts(
        model,
        {
            "wte": basis.one_hot_rows(letters),
            "q": basis.matrix({(t, t): 1024 for t in letters}),
            "k": basis.matrix({(t, t): 1 for t in letters}),
            "v": basis.matrix(turned),
            "c_proj.w": basis.matrix({(t, t): c_proj_strength for t in letters}),
        },
    )


def test_a_valid_design_with_a_weak_c_proj_is_told_its_head_does_not_push_enough():
    report = grade("abc", turn_in_the_values(0.5))
    assert not report.passed
    assert "head 0 of block 0 (through c_proj) pushes toward b by 0.5, not enough" in report.diagnosis
    step = report.focus.path[0]  # the values are right: the path says so, and names the weak entry of c_proj
    assert step.kind == "value" and "its output there, Tb = 1, pushes toward b by 0.5" in step.text
    assert dict(step.entries)["c_proj.w[Tb, Tb]"] == 0.5
    assert "reference" not in str(report)
    assert grade("abc", turn_in_the_values(1024)).passed


def test_a_head_that_reads_the_wrong_value_is_named_as_pushing_the_wrong_way():
    model = turn_in_the_values(1024)
    broken = with_parts(model, {"v": -get(model, "v")})
    report = grade("abc", broken)
    assert "head 0 of block 0 (through c_proj) pushes toward" in report.diagnosis
    assert report.shares["blocks[0].head0"] < 0


def test_another_width_and_an_extra_head_are_explained_too():
    params = handmade.check_weights(random_params(np.random.default_rng(0), n_vocab=3, n_ctx=5, n_embd=6, n_head=2))
    report = grade("abc", params)
    assert not report.passed and any(word in report.diagnosis for word in ("head", "embedding"))
    assert set(report.shares) == {"wte", "wpe", "blocks[0].head0", "blocks[0].head1", "blocks[0].c_proj.b"}
    first = report.explained[0]
    assert sum(first.shares.values()) == pytest.approx(first.margin)


@pytest.mark.parametrize("language", ["en", "zh"])
@pytest.mark.parametrize("name", list(TASKS))
def test_no_report_shows_the_reference_unless_asked(name, language):
    handmade.set_language(language)
    try:
        ref = reference(name)
        ref_numbers = {f"{share:.4g}" for share in grade(name, blank(name), reveal=True).shares.values()}
        report = str(grade(name, blank(name)))
        assert "reference" not in report and "参考" not in report
        revealed = grade(name, blank(name), reveal=True)
        assert revealed.revealed and ("reference" in revealed.revealed or "参考" in revealed.revealed)
        assert ref_numbers and ref is not None
    finally:
        handmade.set_language("en")


def test_the_report_as_json_has_every_failing_context_and_its_shares():
    report = grade("abc", turn_in_the_values(0.5))
    data = json.loads(json.dumps(report.to_json()))
    assert {k: data[k] for k in ("passed", "right", "graded")} == {"passed": False, "right": 0, "graded": 15}
    assert len(data["failing"]) == 15 and data["margin"] == pytest.approx(report.margin)
    for case in data["failing"]:
        assert {"context", "expected", "predicted", "against", "margin", "contributions", "path"} <= set(case)
        assert sum(case["contributions"].values()) == pytest.approx(case["margin"])
        example = next(e for e in examples(TASKS["abc"]) if e.context == case["context"])
        assert case["expected"] == example.expected != case["predicted"]


def test_a_task_without_a_reference_that_blames_an_embedding_says_what_the_blocks_add():
    """A teacher's task has no reference to prefer a part: when the embedding's fixed push is the
    one named, the explanation goes on to the head that could outweigh it, and where it looked."""
    from handmade.course.builtin_tasks import induction

    @handmade.task(alphabet="abc", n_ctx=6, labels=get_task("induction").labels, n_layer=2)
    def induction_again(context):
        """Induction, as a teacher's task: no reference."""
        return induction(context)

    model = reference("induction")
    w = model["blocks"][1]["attn"]["c_attn"]["w"]
    model = handmade.with_parts(model, {"blocks[1].q": np.zeros((w.shape[0], w.shape[1] // 3))})  # looks nowhere
    diagnosis = grade(induction_again, model).diagnosis
    assert "the token embedding (wte) pushes toward" in diagnosis
    assert (
        "None of the blocks pushes toward" in diagnosis
        and "head 0 of block 1 (through c_proj), the nearest" in diagnosis
    )
    path = grade(induction_again, model).focus.path  # block 1's head: where it looked, from the learner's model
    assert "reads position 1 (b) with weight 0.5" in path[0].text


@pytest.mark.parametrize("lang, position", [("en", "pos {i}"), ("zh", "位置 {i}")])
@pytest.mark.parametrize("name", ["repeat", "alternate"])
def test_a_model_without_blocks_that_writes_nothing_here_is_told_which_two_rows_are_0(name, lang, position):
    """Without blocks the stream is wte's row of the token plus wpe's row of the position, read through
    wte's rows: where both rows are 0 (a blank, or one token's row left empty), the report names those
    two rows of the context it speaks of; where the part it names writes nothing, that part's row; where
    a part writes, what it writes. Only rows that are exactly 0 are said to be (ln_f centres rows of 2 away)."""
    handmade.set_language(lang)
    try:
        empty = grade(name, blank(name))
        wte = np.zeros_like(get(blank(name), "wte"))
        wte[0, -1] = 1  # a's row writes its last direction; every other token's row is 0
        some = grade(name, with_parts(blank(name), {"wte": wte}))
        width = wte.shape[1]  # with ln_f, rows of 2 are centred away: nothing is written, but no row is 0
        normed = handmade.Weights(
            {**blank(name), "ln_f": {"g": np.ones(width), "b": np.zeros(width)}}, blank(name).labels
        )
        centred = grade(name, with_parts(normed, {"wpe": np.full(get(normed, "wpe").shape, 2.0)}))
    finally:
        handmade.set_language("en")
    for report, written in ((empty, ""), (some, "a")):  # the tokens whose row writes something
        context = report.diagnosed.context[-get_task(name).n_ctx :]  # the window it reads
        at = position.format(i=len(context) - 1)
        rows = f"wte[{context[-1]}] 和 wpe[{at}]" if lang == "zh" else f"wte[{context[-1]}] and wpe[{at}]"
        assert (rows in report.diagnosis) == (context[-1] not in written), (report.diagnosis, rows)
        if context[-1] in written and report.focus.named == "wpe":  # the part named, which writes nothing here
            nothing = "什么也没有写入：wpe[{at}] 全是 0" if lang == "zh" else "writes nothing: wpe[{at}] is all 0"
            assert nothing.format(at=at) in report.diagnosis, report.diagnosis
    assert set(empty.shares.values()) == {0.0} and set(centred.shares.values()) == {0.0}
    assert ("全是 0" if lang == "zh" else "all 0") not in centred.diagnosis, centred.diagnosis
    assert some.focus.named == "wpe" if name == "alternate" else some.focus.named is None  # both kinds are met


def digits_count(context):
    """Say how many characters the context has, as a digit."""
    return str(len(context))


@pytest.mark.parametrize("name", ["abc", "xor", "induction"])
def test_a_model_with_blocks_where_nothing_is_written_is_told_which_two_rows_are_0_as_without(name):
    """With blocks too: where no part writes anything at the context's position (the blocks read a stream of 0s and
    add nothing), the report names the two rows of the embedding that are 0, as a model without blocks is told;
    where a block writes something (a bias), it is not said."""
    empty = grade(name, blank(name))
    context = empty.diagnosed.context[-get_task(name).n_ctx :]
    rows = f"Here nothing is written into the stream: wte[{context[-1]}] and wpe[pos {len(context) - 1}]"
    assert rows in empty.diagnosis, empty.diagnosis
    bias = np.zeros_like(get(blank(name), "blocks[0].c_proj.b"))
    bias[..., -1] = 1  # the block writes its last direction everywhere: something is written
    written = grade(name, with_parts(blank(name), {"blocks[0].c_proj.b": bias}))
    assert "nothing is written into the stream" not in written.diagnosis, written.diagnosis


def test_a_teachers_model_whose_one_empty_position_row_hides_a_token_is_told_the_row(tmp_path):
    """The teacher's case: say how long the context is; wte writes the token, wpe the position, but wpe's last row
    was left 0, and the model has a block it does not use: after '000' the stream is 0, and the report says which rows."""
    task = handmade.task(alphabet="0123", n_ctx=3, n_embd=7, n_layer=1)(digits_count)
    wte, wpe = np.zeros((4, 7)), np.zeros((3, 7))
    wte[1:4, 0:3] = np.eye(3)
    wpe[[0, 1], [0, 1]] = 4  # wpe[pos 2] left 0: the fault
    report = grade(task, with_parts(blank(task), {"wte": wte, "wpe": wpe}))
    assert report.diagnosed.context == "000"
    assert "nothing is written into the stream: wte[0] and wpe[pos 2], the rows the embedding adds up, are all 0" in (
        report.diagnosis
    ), report.diagnosis


@pytest.mark.parametrize("emptied", [False, True])
@pytest.mark.parametrize("name", sorted(TASKS))
def test_two_tokens_whose_wte_rows_are_the_same_are_named_as_the_cause_with_no_path_into_the_blocks(name, emptied):
    """The logits read the stream through wte's rows: where the right token's row and the wrong one's are the same
    (b's row made a's; or every row emptied, the embedding left out while the blocks still write), no part's write
    moves the margin. The report says so, names wte, and follows no path into a head or MLP that only did its job."""
    wte = np.array(get(reference(name), "wte"))
    wte[:] = 0 if emptied else wte
    wte[1] = wte[0]
    report = grade(name, with_parts(reference(name), {"wte": wte}))
    focus, tokens = report.focus, get_task(name).alphabet
    if not any(np.abs(v).max() > 0 for v in explain.part_vectors(*_read(report, name, wte)).values()):
        # nothing written into the stream there (wte emptied, no block adding anything): said as a blank's is
        assert emptied and focus.sentence.startswith("no part of the model tells"), focus.sentence
        return
    assert {focus.expected, focus.wrong} <= set(tokens[:2]) or emptied, (focus.expected, focus.wrong)
    said = f"wte's rows of {focus.expected} and {focus.wrong} are the same, and the logits read the stream through them"
    assert focus.sentence.startswith(said), focus.sentence
    assert focus.named == "wte" and focus.part is None and focus.path == ()
    assert not any(line.startswith("    →") for line in report.diagnosis_lines())


def _read(report, name, wte):  # (reading, position, params) of the context a report diagnoses
    params = submission(name, with_parts(reference(name), {"wte": wte}))
    window = [get_task(name).alphabet.index(c) for c in report.focus.window]
    return explain.read_window(window, params), len(window) - 1, params


@pytest.mark.parametrize("scale", [1, 1 / 16])
@pytest.mark.parametrize("name", ["abc", "first", "two_back"])
def test_a_bias_that_pushes_the_wrong_way_is_named_at_any_scale_the_heads_are_built_at(name, scale):
    """A correct design built at another scale than the reference (its head's c_proj.w 16 times smaller) with
    c_proj.b pushing toward c: the bias is named, pushing toward c, not the head for pushing less than the
    reference's does. The reference is compared with part by part; a part that pushes the wrong way where the
    reference's does not comes first, whatever the scales."""
    model = reference(name)
    bias = np.zeros_like(get(model, "c_proj.b"))  # [1, n_embd]: a bias is a row
    bias[0, model.labels.residual.index("Tc")] = 1.2 * 1024 * scale
    report = grade(name, with_parts(model, {"c_proj.w": get(model, "c_proj.w") * scale, "c_proj.b": bias}))
    focus = report.focus
    assert focus.named == "blocks[0].c_proj.b" and focus.wrong == "c", (focus.expected, focus.sentence)
    assert focus.sentence.startswith(f"c_proj's bias in block 0 pushes toward c by {fmt(bias.max())}"), focus.sentence


@pytest.mark.parametrize("head, nudge", [(50, 1e-3), (50, 1.0), (50, 500.0), (1024, 2000.0)])
def test_a_wrong_way_push_too_small_to_matter_does_not_hide_a_head_that_pushes_too_little(head, nudge):
    """seen_b with its head's c_proj.w[Tb, Tb] at ``head`` (the reference's 1024; c_proj.b pushes toward a by 102.4,
    by design), and wpe nudging toward a everywhere, where the reference's wpe adds nothing. A nudge is named when
    taking it away alone would pass the margin (a fault on its own); else the head that pushes too little is."""
    model = reference("seen_b")
    c_proj, wpe = np.array(get(model, "c_proj.w")), np.array(get(model, "wpe"))
    c_proj[1, 1], wpe[:, model.labels.residual.index("Ta")] = head, nudge
    focus = grade("seen_b", with_parts(model, {"c_proj.w": c_proj, "wpe": wpe})).focus
    alone = focus.margin + nudge > MARGIN_THRESHOLD  # the margin without the nudge
    assert alone == (head == 1024)  # both kinds are met
    if alone:  # the blocks first, as for any embedding named, then the nudge's push
        assert f"the position embedding (wpe) pushes toward a by {fmt(nudge)}" in focus.sentence, focus.sentence
    else:
        assert focus.sentence.startswith("head 0 of block 0 (through c_proj) pushes toward b by 50, not enough")
        assert "wpe" not in focus.sentence, focus.sentence


READ_THROUGH_WTE = re.compile(r"\((wte|wpe|ln_f\.b)\) writes (\S+) = \S+, which the logits read through wte's rows")


def _written(params, part, token, position):  # [n_embd]: what ``part`` adds to the stream the logits read
    row = {"wte": get(params, "wte")[token], "wpe": get(params, "wpe")[position]}
    if "ln_f" not in params:
        return row[part]
    norm, stream = params["ln_f"], row["wte"] + row["wpe"]
    spread = np.sqrt(np.var(stream) + LAYER_NORM_EPS)  # the whole stream's: each part's vector is centred, over it
    return norm["b"] if part == "ln_f.b" else norm["g"] * (row[part] - row[part].mean()) / spread


@pytest.mark.parametrize("ln_f", [False, True])
@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("name", ["repeat", "alternate"])
def test_in_a_model_without_blocks_the_direction_named_carries_the_push_its_part_is_said_to_make(name, seed, ln_f):
    """Without blocks, after "wte pushes toward a by 1" the report names a direction that the part writes
    and the two entries of wte's rows that read it: of every direction, the one that pushes most the way
    the part's share goes; where its share is 0, the one it writes most. Worked out here from the weights,
    with a final layer norm too (each part's vector centred, over the stream's spread, times g)."""
    rng = np.random.default_rng(seed)
    params = with_parts(blank(name), {key: rng.normal(size=get(blank(name), key).shape) for key in ("wte", "wpe")})
    if ln_f:
        width = get(params, "wte").shape[1]
        norm = {"g": rng.uniform(0.5, 2, width), "b": rng.normal(size=width)}
        params = handmade.Weights({**params, "ln_f": norm}, params.labels)
    task, directions = get_task(name), list(params.labels.residual.names)
    said = 0
    for failing in grade(name, params).to_json()["failing"]:
        found = READ_THROUGH_WTE.search(failing["sentence"])
        if found is None:
            continue
        part, d = found[1], directions.index(found[2])
        window = failing["context"][-task.n_ctx :]
        vector = _written(params, part, task.alphabet.index(window[-1]), len(window) - 1)  # [n_embd]
        right, wrong = (task.alphabet.index(failing[key]) for key in ("expected", "against"))
        pushes = vector * (get(params, "wte")[right] - get(params, "wte")[wrong])  # [n_embd]
        share = failing["contributions"][part]
        assert share == pytest.approx(pushes.sum(), abs=1e-9)
        best = np.sign(share) * pushes if abs(share) > 1e-9 else np.abs(vector)
        assert best[d] == best.max(), (failing["sentence"], pushes)
        said += 1
    assert said, "no sentence read through wte's rows"


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize(
    "rows, named, not_named",
    [  # repeat's wte, each row what its token writes and what its logit reads; the context is "a"
        ([[1, 0, 5], [0, 1, 5], [0, 0, 5]], "wte[a, Ta] = 1", "Tc"),  # Tc, written most, is read alike: no push
        ([[1, 1, 1], [4, -1, -1], [0, 0, 0]], "wte[a, Tb] = 1", "Ta]"),  # Ta pushes most, but toward b
        ([[0, 0, 5], [1, 0, 5], [0, 0, 0]], "wte[a, Tc] = 5", "Ta]"),  # no push at all: what it writes most
    ],
)
def test_the_direction_named_without_blocks_is_the_one_that_makes_the_push_said(rows, named, not_named, lang):
    """The cases: a direction written most that the two rows read alike (it pushes nothing), a direction
    that pushes most but against the part's share, and a part that pushes nothing, which is said to
    write what it writes most."""
    params = with_parts(blank("repeat"), {"wte": np.array(rows, dtype=float)})
    handmade.set_language(lang)
    try:
        report = grade("repeat", params)
    finally:
        handmade.set_language("en")
    (failing,) = [f for f in report.to_json()["failing"] if f["context"] == "a"]
    assert named in failing["sentence"] and not_named not in failing["sentence"], failing["sentence"]


@pytest.mark.parametrize("unit, context", [("s<0", "11"), ("s>0", "00")])
def test_a_unit_that_reads_nothing_is_the_one_named_not_its_twin(unit, context):
    """xor's two units are alike (each writes T0 through mlp.c_proj.w = 1): with one's input weight zeroed,
    the context that needed it fails, and the path names that unit and the entry it would read through,
    not the other unit, which is right to stay off there."""
    model = reference("xor")
    hidden, residual = model.labels.hidden[0].names, model.labels.residual.names
    c_fc = get(model, "mlp.c_fc.w").copy()
    c_fc[residual.index("V"), hidden.index(unit)] = 0
    report = grade("xor", with_parts(model, {"mlp.c_fc.w": c_fc}))
    (failing,) = [f for f in report.to_json()["failing"] if f["context"] == context]
    assert report.diagnosed.context == context
    units = [step.facts["unit"] for step in report.focus.path if step.kind == "unit"]
    entries = [name for step in report.focus.path for name, _value in step.entries]
    assert units == [unit] and f"mlp.c_fc.w[V, {unit}]" in entries, (units, entries)
    assert failing["sentence"] == report.focus.sentence


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("strength", [-512, 0])
def test_a_part_said_to_push_too_little_is_told_what_the_others_push_against_it(strength, lang):
    """first_not_last's head 1 pushes toward the right letter and head 0 toward the first: with head 1's rows
    of c_proj.w weakened (or zeroed), the report speaks of head 1, whose share falls furthest short of the
    reference's, and says by how much all the other parts push the other way, not only that a pass needs a
    margin above 1 (a margin of -513 is not "just short")."""
    model = reference("first_not_last")
    c_proj = get(model, "c_proj.w").copy()
    for letter in "abc":
        c_proj[
            model.structure.basis(model.structure.space("attention", 0), model.labels).names.index(f"h1·{letter}"),
            model.labels.residual.names.index(f"T{letter}"),
        ] = strength
    handmade.set_language(lang)
    try:
        report = grade("first_not_last", with_parts(model, {"c_proj.w": c_proj}))
    finally:
        handmade.set_language("en")
    focus = report.focus
    others = focus.margin - focus.shares[focus.named]
    assert focus.named == "blocks[0].head1" and others < -1, (focus.sentence, focus.shares)
    said = fmt(abs(others))
    wanted = {
        "en": f"all the other parts together push toward {focus.wrong} by {said}",
        "zh": f"其余所有部件加在一起往 {focus.wrong} 推了 {said}",
    }
    assert wanted[lang] in focus.sentence, focus.sentence


@pytest.mark.parametrize(
    "vote, passed", [(2.00001, True), (2 + 1e-8, True), (2 + 1e-12, False), (2 - 1e-9, False), (2.0, False)]
)
def test_a_margin_next_to_the_threshold_is_never_written_as_the_threshold(vote, passed):
    """alternate's position votes at 2 make every margin exactly 1, which fails (a pass needs more): a hair
    above passes and a hair below fails, and the report writes the margin with the digits that tell it
    from 1, in its text and in a playground's summary, as the verdict does. Within rounding's reach of 1 (a
    billionth of the largest logit, 2 here: ``explain.margins_of``) a margin is 1, on every machine: it fails,
    and is written 1."""
    from handmade.widgets.score import TaskScore

    model = reference("alternate")
    wpe = get(model, "wpe")
    params = with_parts(model, {"wpe": np.where(wpe != 0, vote, 0.0)})
    report = grade("alternate", params)
    said = str(report).splitlines()[2]  # "  margin: 1.00001 (smallest at 'a' → b); a pass needs ..."
    shown = said.split("margin: ")[1].split(" ")[0]
    assert report.passed == passed and (float(shown) > 1) == passed and (shown == "1") == (report.margin == 1), said
    _passed, summary, _details = TaskScore("alternate")(params)  # what a playground's score line says
    assert f"margin {shown} (" in summary, summary


def test_a_task_that_grades_nothing_is_refused_in_one_line():
    @handmade.task(alphabet="ab", n_ctx=3, n_embd=2)
    def nothing(context):
        """Never says."""
        return None

    with pytest.raises(ValueError, match="grades no context: its rule returns None for every text of 1 to 3 letters"):
        grade(nothing, blank(nothing))


def _unnamed_forms(params, folder):
    """``params`` (a plain dict of numbers) in every form that names none of its tokens: the dict, checked
    Weights with the default labels, a file without labels, a file saved from the dict."""
    written = folder / "written.json"
    handmade.save_weights(params, written)
    unlabelled = folder / "unlabelled.json"
    data = json.loads(written.read_text(encoding="utf-8"))
    data.pop("labels", None)
    unlabelled.write_text(json.dumps(data), encoding="utf-8")
    return {
        "dict": params,
        "checked": handmade.check_weights(params),
        "file without labels": handmade.load_weights(unlabelled),
        "file saved from the dict": handmade.load_weights(written),
    }


@pytest.mark.parametrize("alphabet", ["ba", "01", "cab"])
def test_weights_whose_tokens_nobody_named_are_graded_in_the_tasks_order_however_they_come(tmp_path, alphabet):
    """Default labels (a, b, c, ...) state nothing of what the token ids mean: a plain dict, checked weights, a
    file without labels and one saved from a dict are all read in the task's order, and graded alike; a file
    that states an alphabet is still read in its own (its rows put in the task's order)."""

    @handmade.task(alphabet=alphabet, n_ctx=3, n_embd=len(alphabet), n_layer=0)
    def say_the_first_letter(context):
        """Always say the alphabet's first letter."""
        return alphabet[0]

    wte = np.zeros((len(alphabet), len(alphabet)))
    wte[:, 0] = [3] + [1] * (len(alphabet) - 1)  # logits x @ wte.T: token 0, the first letter, 3 times any other
    model = {"wte": wte, "wpe": np.zeros((3, len(alphabet))), "blocks": []}
    forms = _unnamed_forms(model, tmp_path)
    assert "labels" not in json.loads((tmp_path / "written.json").read_text(encoding="utf-8"))
    for form, params in forms.items():
        assert grade(say_the_first_letter, params).passed, form
    stated = handmade.Labels(alphabet[::-1], handmade.Basis.numbered(len(alphabet)))
    named = handmade.check_weights(forms["checked"], stated)  # the same numbers, said to mean the letters reversed
    assert not named.labels.defaulted and not grade(say_the_first_letter, named).passed
    restated = handmade.check_weights(forms["checked"], handmade.Labels(*_defaults(len(alphabet))))
    assert not restated.labels.defaulted  # the defaults, given by a person: stated


def _defaults(n):
    return "abcdefghij"[:n], handmade.Basis.numbered(n)


# ---- weights are checked once, where they come in ------------------------------------------------


@pytest.mark.parametrize("name", ["abc", "xor", "induction"])
def test_grading_checks_a_weights_dict_once_and_reads_its_structure_once(monkeypatch, name):
    """A plain dict is checked array by array once (check_weights' walk) and its Structure read once
    (Structure.of), however many passes the grade runs; checked Weights not again at all."""
    from handmade import weights

    plain = {key: value for key, value in reference(name).items()}  # a plain dict: no labels, nothing checked
    walks, reads = counted(monkeypatch, weights, "_checked_arrays"), counted(monkeypatch, Structure, "of")
    passes = counted(monkeypatch, weights, "gpt")
    assert grade(name, plain).passed
    assert (len(walks), len(reads)) == (1, 1) and len(passes) > 1
    checked = handmade.check_weights(reference(name))  # checked, with the task's labels
    walks.clear(), reads.clear()
    assert grade(name, checked).passed
    assert (len(walks), len(reads)) == (0, 0)


@pytest.mark.parametrize("diagnose", [False, True])
def test_the_graders_own_token_ids_are_not_checked_again(monkeypatch, diagnose):
    """The token ids the grader makes from its task's contexts fit the weights it checked: its passes
    (and the explanation's) run them through finite_pass, with no token check; forward checks a person's."""
    from handmade import weights

    checks, passes = counted(monkeypatch, weights, "tokens_for"), counted(monkeypatch, weights, "gpt")
    report = grade("abc", blank("abc"), diagnose=diagnose)
    assert not report.passed and (report.diagnosis is not None) == diagnose
    assert checks == [] and len(passes) > 1
    handmade.forward([0, 1], blank("abc"))
    assert len(checks) == 1
    with pytest.raises(ValueError, match="token ids are whole numbers from 0 to 2"):
        handmade.forward([0, 3], blank("abc"))


def test_a_failing_grade_checks_the_learners_weights_once_and_the_reference_once(monkeypatch):
    from handmade import weights

    weak = {key: value for key, value in turn_in_the_values(0.5).items()}
    from handmade.course import grader

    grader._reference_built.cache_clear()
    walks = counted(monkeypatch, weights, "_checked_arrays")
    report = grade("abc", weak)
    assert not report.passed and report.diagnosis and len(walks) == 2  # the learner's, then the reference's
    walks.clear()
    assert grade("abc", weak).lines() == report.lines() and len(walks) == 1  # the reference built once: kept
    walks.clear()  # a blank: no part tells the tokens apart, and the reference would change no word
    report = grade("abc", {key: value for key, value in blank("abc").items()})
    assert not report.passed and "no part of the model" in report.diagnosis and len(walks) == 1


def test_reveal_says_why_it_shows_no_shares_when_the_model_passes_or_the_reference_reads_another_window():
    """--reveal always says something: on a pass, that there is no failing context to show the shares on;
    where the reference has more positions and the context is longer than this model's, that its shares
    are of another margin (not that the task has no reference)."""

    @handmade.task(alphabet="ab", n_ctx=2, n_embd=2, n_layer=0, extra_examples=[("abab", "a")])
    def say_a(context):
        """Say a."""
        return "a"

    @say_a.reference
    def wide():  # four positions, each pushing toward a
        return {"wte": np.eye(2), "wpe": np.tile([10.0, 0.0], (4, 1)), "blocks": []}

    passing = grade(say_a, wide(), reveal=True)
    assert passing.passed and "the model passes: there is no failing context" in passing.revealed
    assert "no failing context" in str(passing) and grade(say_a, wide()).revealed is None
    failing = grade(say_a, blank(say_a), reveal=True)  # two positions: 'abab' is read as 'ab'
    assert failing.diagnosed.context == "abab"
    assert "reads the last 4 letters of this context, and this model the last 2" in failing.revealed
    assert "no reference solution" not in str(failing)
    roomy = {"wte": np.zeros((2, 2)), "wpe": np.zeros((6, 2)), "blocks": []}  # both read all of 'abab': the same margin
    assert "the reference solution, on the same context, part by part" in grade(say_a, roomy, reveal=True).revealed

    @handmade.task(alphabet="ab", n_ctx=2, n_embd=2, n_layer=0, extra_examples=[("abab", "a")])
    def also_a(context):
        """Say a."""
        return "a"

    also_a.reference(lambda: {"wte": np.eye(2), "wpe": np.tile([10.0, 0.0], (2, 1)), "blocks": []})
    said = grade(also_a, roomy, reveal=True).revealed  # the reference reads 'ab', this model all of 'abab'
    assert "reads the last 2 letters of this context, and this model the last 4" in said


def test_an_equal_copy_of_a_report_says_the_same():
    """Which failing context the text speaks of is found by its context, not by which object holds it."""
    import dataclasses

    report = grade("abc", with_parts(blank("abc"), {"wte": np.eye(3)}))
    copy = dataclasses.replace(report, focus=dataclasses.replace(report.focus))
    assert copy.lines() == report.lines() and copy.to_json()["diagnosed"] == report.to_json()["diagnosed"] is not None


def test_a_context_longer_than_the_model_reads_says_which_letters_its_positions_count_in():
    @handmade.task(alphabet="ab", n_ctx=2, n_embd=4, extra_examples=[("abbbba", "b")])
    def before_last(context):
        """Say the letter before the last one."""
        return context[-2] if len(context) > 1 else None

    report = grade(before_last, blank(before_last))
    focus = report.to_json()["failing"][report.to_json()["diagnosed"]]
    assert (focus["context"], focus["window"]) == ("abbbba", "ba")
    assert "The model reads only its last 2 letters, 'ba': positions are counted from the first of them." in str(report)
    short = next(e for e in report.to_json()["failing"] if e["context"] == "ab")
    assert short["window"] == "ab"


@pytest.mark.parametrize("extra", ["blocks[1].c_proj.b", "ln_f.b"])
def test_a_part_the_reference_lacks_is_compared_as_pushing_nothing_and_named_when_it_breaks_the_model(extra):
    """A part the task's designed shape has not (a second block's bias, ln_f's shift) that pushes the wrong way by
    thousands: the report names it, as an install without the references does, never a part that differs from the
    reference's by a little (here wte, by 1 to 3)."""
    model = reference("abc")
    wte = get(model, "wte").copy()
    wte[0, 0] = 2
    params = {**dict(model), "wte": wte, "blocks": [dict(block) for block in model["blocks"]]}
    if extra == "ln_f.b":
        params["ln_f"] = {"g": np.full(3, 1000.0), "b": np.array([0.0, 5000.0, 0.0])}
    else:
        second = {
            "attn": {
                "c_attn": {"w": np.zeros((3, 9)), "b": np.zeros(9)},
                "c_proj": {"w": np.zeros((3, 3)), "b": np.array([5000.0, 0.0, 0.0])},
            }
        }
        params["blocks"].append(second)
    report = grade("abc", params)
    assert not report.passed and str(report.focus.named) == extra, (report.focus.sentence, report.focus.shares)
    assert report.focus.shares[report.focus.named] <= -5000
