"""What ``@task`` is given, checked: the task's alphabet and context length, and the shape and
the named directions of the model it is designed for.

Each mistake is one sentence, an ``OptionError``, which ``tasks`` puts after the task's name in the
TaskError a teacher reads: "task shift: n_ctx must be a whole number from 1 to 8 ...".
"""

from ..arguments import brief, is_whole, whole
from ..basis import Basis, Labels
from ..i18n import _
from ..inference import Example
from ..structure import BlockShape, Structure
from ..tokenizer import MAX_ALPHABET
from ..weights import MAX_BLOCKS, MAX_HEADS, MAX_N_CTX, MAX_WIDTH

MAX_TEXTS = 20_000  # strings of 1 to n_ctx characters one task may ask its rule about: well under a second
MLP_WIDTH = 4  # mlp=True: 4 * n_embd hidden units in each block, as in GPT-2, unless labels name them


class OptionError(ValueError):
    """What is wrong with one option of @task, as a sentence; ``tasks`` names the task."""


def options(alphabet, n_ctx, labels, extra_examples, n_embd, n_layer, n_head, mlp):
    """(labels, structure, extra examples) of a task from what ``@task`` was given, or OptionError."""
    _check_alphabet(alphabet)
    _check_n_ctx(n_ctx, alphabet)
    _check_whole(n_layer, "n_layer", 0, MAX_BLOCKS)
    _check_whole(n_head, "n_head", 1, MAX_HEADS)
    _check_mlp(mlp, n_layer, n_head)
    labels = _labels(labels, alphabet, n_embd)
    structure = _structure(alphabet, n_ctx, labels, n_layer, n_head, mlp)
    return labels, structure, _extra_examples(extra_examples, alphabet)


def _check_alphabet(alphabet):
    if not isinstance(alphabet, str) or not 2 <= len(alphabet) <= MAX_ALPHABET or len(set(alphabet)) < len(alphabet):
        raise OptionError(
            _("alphabet must be a string of 2 to {limit} distinct characters; found {value}").format(
                limit=MAX_ALPHABET, value=brief(alphabet)
            )
        )


def longest_context(n_vocab):
    """The largest n_ctx whose strings of 1 to n_ctx characters over ``n_vocab`` letters number at most MAX_TEXTS."""
    n_vocab, n_ctx, texts = whole(n_vocab, "n_vocab", 1, MAX_ALPHABET), 0, 0
    while n_ctx < MAX_N_CTX and texts + n_vocab ** (n_ctx + 1) <= MAX_TEXTS:
        n_ctx, texts = n_ctx + 1, texts + n_vocab ** (n_ctx + 1)
    return n_ctx


def _check_n_ctx(n_ctx, alphabet):
    high = longest_context(len(alphabet))
    if not is_whole(n_ctx) or not 1 <= n_ctx <= high:
        raise OptionError(
            _(
                "n_ctx must be a whole number from 1 to {high}: with {n} characters, longer contexts make more than {limit} texts to ask the rule about; found {value}"
            ).format(high=high, n=len(alphabet), limit=MAX_TEXTS, value=brief(n_ctx, 24))
        )


def _check_whole(value, argument, low, high):
    """``whole``, the package's one whole-number check, with its sentence as the problem."""
    try:
        whole(value, argument, low, high)
    except (TypeError, ValueError) as wrong:
        raise OptionError(str(wrong)) from None


def _check_mlp(mlp, n_layer, n_head):
    if not (isinstance(mlp, bool) or (is_whole(mlp) and 0 <= mlp <= MAX_WIDTH)):
        raise OptionError(
            _("mlp must be False, True or a number of hidden units from 0 to {limit}; found {value}").format(
                limit=MAX_WIDTH, value=brief(mlp)
            )
        )
    if n_layer == 0 and (mlp or n_head != 1):
        raise OptionError(
            _("with n_layer = 0 there is no block for heads or an MLP: leave n_head at 1 and mlp at False")
        )


def _labels(labels, alphabet, n_embd):
    """The task's labels: as given (they say n_embd), or e0, e1, ... for ``n_embd`` directions."""
    if labels is None:
        if n_embd is None:
            raise OptionError(_("n_embd is required when no labels name the residual directions"))
        _check_whole(n_embd, "n_embd", 1, MAX_WIDTH)
        return Labels(alphabet, Basis.numbered(n_embd))
    if not isinstance(labels, Labels):
        raise OptionError(_("labels must be a handmade.Labels; found {kind}").format(kind=type(labels).__name__))
    if labels.alphabet != alphabet:
        raise OptionError(_("its labels' alphabet is not its alphabet"))
    if n_embd is not None and n_embd != len(labels.residual):
        raise OptionError(
            _("n_embd is {n_embd}, but its labels name {n} residual directions").format(
                n_embd=brief(n_embd), n=len(labels.residual)
            )
        )
    return labels


def _structure(alphabet, n_ctx, labels, n_layer, n_head, mlp):
    """The shape of the blank model: per block, attention as wide as its labels name (else
    n_embd) and an MLP of ``mlp`` hidden units (True: as many as labels name, else 4 * n_embd)."""
    if len(labels.attention) > n_layer:
        raise OptionError(_("its labels name attention for blocks it does not have"))
    if len(labels.hidden) > n_layer:
        raise OptionError(_("its labels name hidden units for blocks it does not have"))
    if not mlp and any(hidden is not None for hidden in labels.hidden):
        raise OptionError(_("its labels name hidden units, but mlp is False"))
    n_embd, blocks = len(labels.residual), []
    for b in range(n_layer):
        n_attn = len(labels.attention_basis(b, n_embd))
        if n_attn % n_head:
            raise OptionError(
                _("n_head = {n_head} does not divide the {n_attn} attention directions of block {block}").format(
                    n_head=n_head, n_attn=n_attn, block=b
                )
            )
        named = labels.hidden[b] if b < len(labels.hidden) else None
        blocks.append(BlockShape(n_attn, n_head, _n_hidden(mlp, named, n_embd, b)))
    return Structure(len(alphabet), n_ctx, n_embd, tuple(blocks))


def _n_hidden(mlp, named, n_embd, block):
    """Hidden units of a block's MLP: none without one; as many as ``named``, if its units are named."""
    if not mlp:
        return 0
    if named is not None and mlp is not True and mlp != len(named):
        raise OptionError(
            _("mlp is {mlp} hidden units, but its labels name {n} for block {block}").format(
                mlp=mlp, n=len(named), block=block
            )
        )
    if named is not None:
        return len(named)
    return min(MLP_WIDTH * n_embd, MAX_WIDTH) if mlp is True else mlp


def _extra_examples(pairs, alphabet):
    """``pairs`` as Examples over ``alphabet``: a context of its characters, and one of them to follow."""
    try:
        given = tuple(pairs)
        found = tuple(pair if isinstance(pair, Example) else Example(*pair) for pair in given)
        fits = all(_over(e.context, alphabet) and len(e.expected) == 1 and _over(e.expected, alphabet) for e in found)
        fits = fits and not isinstance(pairs, str) and not any(isinstance(pair, str) for pair in given)
    except TypeError:
        fits = False
    if not fits:
        raise OptionError(
            _(
                "extra_examples must be (context, next character) pairs over the alphabet {alphabet}; found {value}"
            ).format(alphabet=repr(alphabet), value=brief(pairs))
        )
    return found


def _over(text, alphabet):  # a string of one or more characters of alphabet
    return isinstance(text, str) and text != "" and set(text) <= set(alphabet)
