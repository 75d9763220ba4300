"""Weights and tokens as they come from people: checked once, where they enter, and run safely.

``gpt()`` trusts its arguments, as picoGPT does. Everything that takes weights or tokens from a person (the
predict functions, the loaders, the widgets, the checkers, the command line) passes them through ``check_weights``
and ``forward``: a message names the matrix, the shape it expected and the shape it found, the token that does not
fit, or the first intermediate that overflowed. ``check_weights`` returns checked ``Weights``, carrying the
Structure read off them, which every function after that edge takes as they are: checked once however far it goes.
"""

import dataclasses
import functools
import operator

import numpy as np

from .arguments import brief, function, is_whole, number_array, tokens_for
from .basis import Labels, default_labels
from .i18n import _, listed
from .model import KVCache, gpt, recording
from .names import T
from .structure import Structure, attention_width, dotted

TOP_KEYS = ("wte", "wpe", "blocks", "ln_f")
BLOCK_KEYS = ("attn", "ln_1", "ln_2", "mlp", "n_head")

# Limits on what a model may ask for: far beyond any model of this series, small enough that no
# request can exhaust the machine (a context of n tokens builds an n x n attention table).
MAX_N_CTX = 1024  # positions (rows of wpe)
MAX_WIDTH = 1024  # n_embd, n_attn and the MLP's hidden units
MAX_N_VOCAB = 1024  # tokens (rows of wte)
MAX_BLOCKS = 16
MAX_HEADS = 64


class WeightsError(ValueError):
    """A weights dict or file that cannot be used: the message says which part and why."""


class NonFiniteError(FloatingPointError):
    """The forward pass produced inf or nan: some weight is too large for float64."""


class Weights(dict):
    """A weights dict with picoGPT's keys, so that ``gpt(tokens, **weights)`` works, which also
    carries its ``labels`` (a ``handmade.Labels``: the alphabet and the names of its directions)
    and, once checked, its ``structure`` (a ``handmade.Structure``: what the model has).

    ``check_weights`` makes the checked ones (arrays and labels that fit, the Structure read once). A change
    anywhere in one (a key, the labels, an array or a block put in, taken out or reshaped, however deep) makes
    it unchecked, checked again where next used; the numbers in its arrays are trusted, as ``gpt()`` trusts
    them (``handmade.with_parts`` checks the copy it makes). ``Weights(params, labels)`` checks nothing.

    A plain ``dict(weights)`` keeps the numbers and loses the labels; everything that takes weights
    works on it too, with default names (tokens a, b, ... or t0, t1, ...; directions e0, e1, ...).
    """

    def __init__(self, params=(), labels=None):
        if not isinstance(params, dict) and not (isinstance(params, tuple) and not params):
            raise TypeError(_("weights must be a dict; found {value}").format(value=brief(params)))
        if labels is not None and not isinstance(labels, Labels):
            raise TypeError(_("labels must be a handmade.Labels; found {value}").format(value=brief(labels)))
        super().__init__(params)
        self.labels = labels
        self._seal, self._read = None, None  # as checked (_checked), or None; (_skeleton, Structure) read unchecked

    @property
    def checked(self):
        """Whether ``check_weights`` made these weights and nothing has changed them since but the numbers
        inside their arrays: every dict, list and array in them is as it checked it."""
        return self._seal is not None and self._seal[0] is self.labels and self._seal[1] == _skeleton(self)

    @property
    def structure(self):
        """The ``Structure``: of checked weights whose top level is as it was, the one checked (a change deeper is
        read where they are next checked); else read when asked for, and kept while they stay as they were."""
        if self._seal is not None and self._seal[4] == tuple((key, id(value)) for key, value in self.items()):
            return self._seal[2]
        now = _skeleton(self)
        if self._read is None or self._read[0] != now:
            self._read = (now, check_weights(self).structure)
        return self._read[1]

    def __repr__(self):
        shape = ", ".join(f"{key}={np.shape(self[key])}" for key in ("wte", "wpe") if key in self)
        blocks = len(self.get("blocks", ()))
        return f"Weights({shape}, {blocks} block{'s' if blocks != 1 else ''}, labels={self.labels})"


def _skeleton(tree, kept=None):
    """``tree`` (weights) as any change but to an array's numbers changes it: dicts by their keys, lists by their
    items, other values by identity, shape and dtype (``kept`` holds them: no identity is reused). Not ``walk``,
    which leaves out what holds no array (an empty part, a None): here they count."""
    if isinstance(tree, dict):
        return tuple((key, _skeleton(value, kept)) for key, value in tree.items())
    if isinstance(tree, list):
        return [_skeleton(value, kept) for value in tree]
    kept is None or kept.append(tree)
    return id(tree), getattr(tree, "shape", None), getattr(tree, "dtype", None)


def labels_of(params):
    """The labels a person gave ``params``, or None: for a plain dict, and for the defaults ``check_weights`` gives
    weights nobody named (a file without labels), whose alphabet states nothing of what their token ids mean."""
    labels = getattr(params, "labels", None)
    return None if getattr(labels, "defaulted", False) else labels


def _checked(arrays, labels, structure):
    """Weights of ``arrays`` that are checked already, with ``labels`` that fit ``structure``, read off them."""
    made, kept = Weights(arrays, labels), []
    top = tuple((key, id(value)) for key, value in made.items())  # what Weights.structure looks at
    made._seal = (labels, _skeleton(made, kept), structure, kept, top)
    return made


# ---- the weights --------------------------------------------------------------------------


def check_weights(params, labels=None):
    """``params`` as checked ``Weights``: itself when it is checked already, else a checked copy of
    float64 arrays that shares nothing with it, with the Structure read off them once.

    ``labels`` (or the ones ``params`` carries) must fit the shapes; a plain dict gets default
    labels (a, b, c, ... and directions e0, e1, ...); other labels for checked weights give a copy
    that shares their arrays, with only the labels checked. Raises WeightsError naming the first
    problem: a missing or unknown key, a shape that does not fit, a value that is not a number,
    or a value that is not finite.
    """
    if isinstance(params, Weights) and params.checked:
        if labels is None or (labels == params.labels and labels.defaulted == params.labels.defaulted):
            return params
        return _checked(dict(params), check_labels(labels, params.structure), params.structure)
    arrays = _checked_arrays(params)
    structure = Structure.of(arrays)
    return _checked(arrays, check_labels(labels or labels_of(params), structure), structure)


def copied(params):
    """Checked weights whose arrays are their own, to change in place (``with_parts``, ``train``)."""
    params = check_weights(params)
    return _checked(map_arrays(np.copy, params), params.labels, params.structure)


# ---- the one walk over a weights dict --------------------------------------------------------


def walk(visit, tree, path=()):
    """``tree`` (weights, gradients, or a part of them) in the same nesting, ``visit(path, leaf)`` in place
    of every leaf (an array, nested lists, or an ``n_head``): the one walk over a weights dict. ``path``
    reaches the leaf, ``("blocks", 0, "attn", "c_attn", "w")``; a part left out (None) stays out."""
    if isinstance(tree, dict):
        return {key: walk(visit, value, (*path, key)) for key, value in tree.items() if value is not None}
    if isinstance(tree, (list, tuple)) and all(isinstance(item, dict) for item in tree):  # the blocks
        return [walk(visit, item, (*path, i)) for i, item in enumerate(tree)]
    return visit(path, tree)


def arrays_of(params):
    """{path: array} of every array of ``params`` (``walk``'s paths), in their order; ``n_head``, a count, left out."""
    found = {}
    walk(found.__setitem__, params)
    return {path: leaf for path, leaf in found.items() if path[-1:] != ("n_head",)}


def map_arrays(fn, params, *others):
    """``fn(array, *arrays at the same place in others)`` for every array of ``params``, in its nesting;
    ``n_head``, a count, not a weight, kept as it is."""
    function(fn, _("fn must be a function of an array; found {value}"))

    def each(path, leaf):
        if path[-1:] == ("n_head",):
            return leaf
        return fn(leaf, *(functools.reduce(operator.getitem, path, other) for other in others))

    return walk(each, params)


def _checked_arrays(params):
    """A fresh weights dict of float64 arrays from ``params``, every key, shape and number checked."""
    _check_keys(params, None, required=("wte", "wpe", "blocks"), allowed=TOP_KEYS)
    wte = _array(params["wte"], "wte", (None, None), "[n_vocab, n_embd]", limits=(MAX_N_VOCAB, MAX_WIDTH))
    n_embd = wte.shape[1]
    dims = _("n_embd = {n} from wte").format(n=n_embd)
    wpe = _array(params["wpe"], "wpe", (None, n_embd), "[n_ctx, n_embd]", dims, limits=(MAX_N_CTX, None))
    blocks = params["blocks"]
    if not isinstance(blocks, (list, tuple)):
        raise WeightsError(_("blocks must be a list of blocks; found {value}").format(value=brief(blocks)))
    if len(blocks) > MAX_BLOCKS:
        raise WeightsError(
            _("blocks has {n} blocks; at most {limit} are allowed").format(n=len(blocks), limit=MAX_BLOCKS)
        )
    checked = {
        "wte": wte,
        "wpe": wpe,
        "blocks": [_checked_block(b, f"blocks[{i}]", n_embd, dims) for i, b in enumerate(blocks)],
    }
    if params.get("ln_f") is not None:
        checked["ln_f"] = _checked_norm(params["ln_f"], "ln_f", n_embd, dims)
    return checked


def _checked_block(block, path, n_embd, dims):
    """The weights of one block, at ``path`` (``blocks[1]``), checked against the stream's width ``n_embd``."""
    _check_keys(block, path, required=("attn",), allowed=BLOCK_KEYS)
    attn = block["attn"]
    _check_keys(attn, f"{path}.attn", required=("c_attn", "c_proj"), allowed=("c_attn", "c_proj"))
    c_attn = attn["c_attn"]
    _check_keys(c_attn, f"{path}.attn.c_attn", required=("w", "b"), allowed=("w", "b"))
    w = _array(c_attn["w"], f"{path}.attn.c_attn.w", (n_embd, None), "[n_embd, 3*n_attn]", dims, (None, 3 * MAX_WIDTH))
    if w.shape[1] % 3:
        raise WeightsError(
            _(
                "the width of {path}.attn.c_attn.w, {n}, does not divide by 3: its columns are q | k | v side by side"
            ).format(path=path, n=w.shape[1])
        )
    n_attn = attention_width(w)
    attn_dims = _("{dims} and n_attn = {n} from c_attn.w").format(dims=dims, n=n_attn)
    b = _array(c_attn["b"], f"{path}.attn.c_attn.b", (3 * n_attn,), "[3*n_attn]", attn_dims)
    checked = {
        "attn": {
            "c_attn": {"w": w, "b": b},
            "c_proj": _checked_linear(
                attn["c_proj"], f"{path}.attn.c_proj", n_attn, n_embd, "n_attn", "n_embd", attn_dims
            ),
        }
    }
    if "n_head" in block:
        checked["n_head"] = checked_n_head(block["n_head"], f"{path}.n_head", n_attn)
    for name in ("ln_1", "ln_2"):
        if block.get(name) is not None:
            checked[name] = _checked_norm(block[name], f"{path}.{name}", n_embd, dims)
    if block.get("mlp") is not None:
        checked["mlp"] = _checked_mlp(block["mlp"], f"{path}.mlp", n_embd, dims)
    elif "ln_2" in checked:
        raise WeightsError(
            _("{path} has ln_2 but no mlp; ln_2 normalises the mlp's input, so give both or neither").format(path=path)
        )
    return checked


def _checked_linear(layer, path, n_in, n_out, in_name, out_name, dims):
    _check_keys(layer, path, required=("w", "b"), allowed=("w", "b"))
    return {
        "w": _array(layer["w"], f"{path}.w", (n_in, n_out), f"[{in_name}, {out_name}]", dims),
        "b": _array(layer["b"], f"{path}.b", (n_out,), f"[{out_name}]", dims),
    }


def _checked_norm(norm, path, n_embd, dims):
    _check_keys(norm, path, required=("g", "b"), allowed=("g", "b"))
    return {key: _array(norm[key], f"{path}.{key}", (n_embd,), "[n_embd]", dims) for key in "gb"}


def _checked_mlp(mlp, path, n_embd, dims):
    _check_keys(mlp, path, required=("c_fc", "c_proj"), allowed=("c_fc", "c_proj"))
    c_fc = mlp["c_fc"]
    _check_keys(c_fc, f"{path}.c_fc", required=("w", "b"), allowed=("w", "b"))
    w = _array(c_fc["w"], f"{path}.c_fc.w", (n_embd, None), "[n_embd, n_hidden]", dims, limits=(None, MAX_WIDTH))
    n_hidden = w.shape[1]
    hidden = _("{dims} and n_hidden = {n} from c_fc.w").format(dims=dims, n=n_hidden)
    return {
        "c_fc": {"w": w, "b": _array(c_fc["b"], f"{path}.c_fc.b", (n_hidden,), "[n_hidden]", hidden)},
        "c_proj": _checked_linear(mlp["c_proj"], f"{path}.c_proj", n_hidden, n_embd, "n_hidden", "n_embd", hidden),
    }


def checked_n_head(n_head, path, n_attn):
    """``n_head`` (called ``path`` in a message) as an int, if it splits ``n_attn`` into equal heads; else WeightsError."""
    divisors = [d for d in range(1, min(n_attn, MAX_HEADS) + 1) if n_attn % d == 0]
    allowed = listed(divisors)
    if not is_whole(n_head):
        raise WeightsError(
            _("{path} is {value}; it must be a whole number of heads ({allowed})").format(
                path=path, value=brief(n_head), allowed=allowed
            )
        )
    if abs(n_head) > 10**6:  # a number of any length: never written out whole
        raise WeightsError(
            _("{path} is far outside 1 to {limit}, the numbers of heads a block may have; allowed: {allowed}").format(
                path=path, limit=MAX_HEADS, allowed=allowed
            )
        )
    if n_head not in divisors:
        sentence = (
            _("{path} is {value}, but a block may have at most {limit} heads; allowed: {allowed}")
            if n_head > MAX_HEADS and n_attn % n_head == 0  # it would split: too many
            else _("{path} is {value}, but n_attn = {n} does not split into {value} equal heads; allowed: {allowed}")
        )
        raise WeightsError(
            sentence.format(path=path, value=brief(int(n_head)), n=n_attn, limit=MAX_HEADS, allowed=allowed)
        )
    return int(n_head)


def _check_keys(mapping, path, required, allowed):  # path None: the weights themselves, said in sentences of their own
    if not isinstance(mapping, dict):
        top = _("the weights must be a dict with keys {keys}; found {value}")
        sentence = _("{path} must be a dict with keys {keys}; found {value}") if path else top
        raise WeightsError(sentence.format(path=path, keys=listed(required), value=brief(mapping)))
    unknown, missing = [k for k in mapping if k not in allowed], [k for k in required if k not in mapping]
    if unknown:
        top = _("the weights have an unknown key {key}; allowed keys are {keys}")
        sentence = _("{path} has an unknown key {key}; allowed keys are {keys}") if path else top
        raise WeightsError(sentence.format(path=path, key=brief(unknown[0]), keys=listed(allowed)))
    if missing:
        top = _("the weights are missing {key}; they need {keys}")
        sentence = _("{path} is missing {key}; it needs {keys}") if path else top
        raise WeightsError(sentence.format(path=path, key=repr(missing[0]), keys=listed(required)))


def _array(value, path, shape, names, dims=None, limits=()):
    """``value`` as a float64 array of ``shape`` (None matches any length), or WeightsError saying what it
    should be: ``names`` its axes, "[n_ctx, n_embd]", and ``dims`` where their sizes come from."""
    meaning = names if dims is None else _("{shape}, {dims}").format(shape=names, dims=dims)  # ，in Chinese
    array = number_array(value, path, len(shape), meaning, WeightsError)
    fits = array.ndim == len(shape) and all(want in (None, got) for want, got in zip(shape, array.shape))
    if not fits:
        expected = (
            # TRANSLATORS: a length a shape allows to be anything, as in "(any, 7)"
            "(" + ", ".join(_("any") if n is None else str(n) for n in shape) + ("," if len(shape) == 1 else "") + ")"
        )
        raise WeightsError(
            _("{path} has shape {found}; expected {expected}, that is {meaning}").format(
                path=path, found=array.shape, expected=expected, meaning=meaning
            )
        )
    for axis, (size, limit) in enumerate(zip(array.shape, limits)):
        if limit is not None and size > limit:
            raise WeightsError(
                _("{path} has shape {found}: at most {limit} are allowed along axis {axis}").format(
                    path=path, found=array.shape, limit=limit, axis=axis
                )
            )
    if array.size == 0:
        raise WeightsError(
            _("{path} has shape {found}: it is empty; a model needs at least one ({meaning})").format(
                path=path, found=array.shape, meaning=meaning
            )
        )
    if not np.isfinite(array).all():
        raise WeightsError(not_finite(array, path))
    return array


def not_finite(array, path):
    """A sentence naming the first entry of ``array`` (the weights at ``path``) that is inf or nan, or None."""
    bad = np.argwhere(~np.isfinite(array))
    if not len(bad):
        return None
    index = tuple(int(i) for i in bad[0])
    return _("{path}{index} is {value}; every weight must be a finite number").format(
        path=path, index=list(index), value=array[index]
    )


# ---- the labels ---------------------------------------------------------------------------


def check_labels(labels, structure):
    """``labels`` if they fit a model of ``structure`` (default labels when None), else WeightsError
    naming the first way they do not: the alphabet's length, or how many directions they name."""
    if labels is None:
        return default_labels(structure)
    if not isinstance(labels, Labels):
        raise WeightsError(_("labels must be a handmade.Labels; found {kind}").format(kind=type(labels).__name__))
    unfit = _("the weights' labels do not fit: {problem}")
    if labels.alphabet is not None and len(labels.alphabet) != structure.n_vocab:
        problem = _("the alphabet {alphabet} has length {n}, but n_vocab, the token rows of wte, is {rows}").format(
            alphabet=brief(labels.alphabet), n=len(labels.alphabet), rows=structure.n_vocab
        )
        raise WeightsError(unfit.format(problem=problem))
    if len(labels.residual) != structure.n_embd:
        problem = _(
            "the labels name residual directions for a width of {n}, but the model is {width} wide (n_embd)"
        ).format(n=len(labels.residual), width=structure.n_embd)
        raise WeightsError(unfit.format(problem=problem))
    for i, block in enumerate(structure.blocks):
        attention = labels.attention[i] if i < len(labels.attention) else None
        if attention is not None and len(attention) != block.n_attn:
            problem = _(
                "the labels name attention directions for a width of {n} in blocks[{i}], but its n_attn is {width}"
            ).format(n=len(attention), i=i, width=block.n_attn)
            raise WeightsError(unfit.format(problem=problem))
        hidden = labels.hidden[i] if i < len(labels.hidden) else None  # a block without an mlp ignores them
        if hidden is not None and block.mlp and len(hidden) != block.n_hidden:
            problem = _(
                "the labels name hidden units for an mlp of {n} in blocks[{i}], but its n_hidden is {width}"
            ).format(n=len(hidden), i=i, width=block.n_hidden)
            raise WeightsError(unfit.format(problem=problem))
    return labels


def with_alphabet(params, alphabet):
    """Checked ``params`` whose labels say the tokens are ``alphabet`` (sharing the arrays of ``params``)."""
    params = check_weights(params)
    return check_weights(params, dataclasses.replace(params.labels, alphabet=alphabet))


# ---- running a checked model ----------------------------------------------------------------


def forward(inputs, params, cache=None):  # [n_seq] -> [n_seq, n_vocab], never inf or nan
    """``gpt()`` with its inputs checked and its result too: NonFiniteError says where it overflowed.

    ``params`` not yet through ``check_weights`` go through it here; so do the tokens. A ``cache``
    serves the weights object that filled it, which the caller passes each time: another is
    refused (weights changed in place are that object still: start a new cache after changing them).
    """
    checked = check_weights(params)
    if cache is not None and not isinstance(cache, KVCache):
        raise TypeError(_("cache must be a handmade.model.KVCache, or None; found {value}").format(value=brief(cache)))
    if cache is not None and cache.model is not None and cache.model is not params:
        raise ValueError(
            _(
                "this cache holds the keys and values of other weights; a cache serves the weights that filled it: start a new KVCache() for these"
            )
        )
    cached = 0 if cache is None else len(cache)
    logits = finite_pass(tokens_for(inputs, len(checked["wte"]), len(checked["wpe"]), cached), checked, cache)
    if cache is not None:
        cache.model = params
    return logits


def finite_pass(tokens, params, cache=None):  # [n_seq] -> [n_seq, n_vocab], never inf or nan
    """``gpt()`` on checked weights and token ids that fit them, such as the grader's own, which it
    made from its task's contexts (``forward`` checks a person's first): NonFiniteError says where it
    overflowed. A pass that fails leaves the ``cache`` as it was."""
    state, finite = None if cache is None else cache.state(), False
    try:
        with np.errstate(all="ignore"):  # reported below, by name, rather than as warnings
            logits = gpt(tokens, **params, cache=cache)
        finite = bool(np.isfinite(logits).all())
    finally:
        if cache is not None and not finite:  # a pass that overflowed, or raised, is taken back
            cache.restore(state)
    if not finite:  # run again from there, recorded, to say where
        raise NonFiniteError(where_non_finite(tokens, params, cache=cache))
    return logits


def where_non_finite(tokens, params, tapped=None, cache=None):
    """A sentence naming a weight that is not finite, else the first intermediate that overflowed (``tapped``: a
    pass recorded in order, else it is run again, after what ``cache`` holds, kept), and the largest weight."""
    problem = first_not_finite(params)
    if problem:
        return problem
    if tapped is None:
        tapped, state = {}, None if cache is None else cache.state()
        try:
            with np.errstate(all="ignore"), recording(tapped.__setitem__):
                gpt(tokens, **params, cache=cache)
        finally:
            if cache is not None:
                cache.restore(state)
    where = next((name for name, array in tapped.items() if not _finite(name, array)), T.logits)
    place, value = largest_weight(params)
    return _(
        "the forward pass produced inf or nan (first in {where}): too large for float64; the largest weight is {value:.3g}, at {place}"
    ).format(where=where, value=value, place=place)


def _finite(name, array):
    """Whether a tapped array is finite; -inf in the masked scores is the mask's doing, not overflow."""
    masked = name.kind == T.masked_scores
    return bool((np.isfinite(array) | (np.isneginf(array) if masked else False)).all())


def first_not_finite(params):
    """A sentence naming the first weight of ``params`` that is inf or nan, or None when every one is finite."""
    return next(filter(None, (not_finite(array, path) for path, array in iter_matrices(params))), None)


def iter_matrices(params):
    """[(path, array)] for every array of a weights dict, in its order: ``("blocks[0].attn.c_attn.w", array)``."""
    return [(dotted(path), np.asarray(array, dtype=np.float64)) for path, array in arrays_of(params).items()]


def largest_weight(params):
    """(the entry, as its part and its directions name it, ``blocks[0].c_proj.w[V, Tb]``, its value) of the
    weight of checked ``params`` with the largest magnitude."""
    params = check_weights(params)  # itself, when checked (every caller's are)
    best, structure = ("", 0.0), params.structure
    with np.errstate(all="ignore"):
        for part in structure.parts():  # none is empty: checked weights
            array = np.atleast_2d(functools.reduce(operator.getitem, part.path, params))  # [rows, cols]
            array = array if part.columns is None else array[:, slice(*part.columns)]  # q, k or v of c_attn
            i, j = np.unravel_index(int(np.argmax(np.abs(array))), array.shape)
            if not abs(array[i, j]) <= abs(best[1]):
                best = (structure.entry(part, params.labels, i, j), float(array[i, j]))
    return best


def count_nonzero(params):
    """How many weights are not zero: the size of a hand-made solution."""
    return int(sum(np.count_nonzero(array) for array in arrays_of(params).values()))
