"""What ``@task`` is given, checked: the task's alphabet and context length, its extra examples,
and the shape and the named directions of the model it is designed for.

Each mistake is one sentence, an ``OptionError``, which ``tasks`` puts after the task's name in the
TaskError a teacher reads: "task shift: n_ctx must be a whole number from 1 to 1024 ...". A task
that is well written but over a limit (more texts than its rule may be asked about, more or longer
extra examples than allowed) is made all the same, with the reason it cannot be used: it is refused
when it is used, so that the other tasks of its file still work.

A task whose author names no directions gets the names the built-in tasks use (``task_labels``).
"""

import difflib
import itertools
from dataclasses import replace

from ..arguments import MAX_ALPHABET, TOKEN_SHOWN, brief, check_alphabet, is_whole, whole
from ..basis import Basis, Labels
from ..i18n import _, listed
from ..inference import Example
from ..structure import BlockShape, Structure
from ..weights import MAX_BLOCKS, MAX_HEADS, MAX_N_CTX, MAX_WIDTH
from . import user_code

MAX_TEXTS = 100_000  # strings of 1 to n_ctx characters one task may ask its rule about: about a second;
# what grading them costs is bounded by the estimate (tasks.check_grading), not by their number
MAX_EXTRA = 1000  # extra examples of one task: hand-picked cases (the blog's are 27), not data
MAX_EXTRA_LENGTH = MAX_N_CTX  # characters of one extra example's context: no model sees more positions
MLP_WIDTH = 4  # mlp=True: 4 * n_embd hidden units in each block, as in GPT-2, unless labels name them


class TaskError(ValueError):
    """A task written wrongly: one line naming the task, the argument and what is allowed."""


class OptionError(ValueError):
    """What is wrong with one option of @task, as a sentence; ``tasks`` names the task."""


def options(alphabet, n_ctx, labels, extra_examples, n_embd, n_layer, n_head, mlp):
    """(labels, structure, extra examples, refused) of a task from what ``@task`` was given, or
    OptionError; ``refused`` is why the task cannot be used (a limit it is over), or None."""
    _check_alphabet(alphabet)
    n_ctx = _check_whole(n_ctx, "n_ctx", 1, MAX_N_CTX)  # a numpy integer becomes an int: no overflow later
    n_layer = _check_whole(n_layer, "n_layer", 0, MAX_BLOCKS)
    n_head = _check_whole(n_head, "n_head", 1, MAX_HEADS)
    mlp = _check_mlp(mlp, n_layer, n_head)
    named = _labels(labels, alphabet, n_ctx, n_embd)
    structure = _structure(alphabet, n_ctx, named, n_layer, n_head, mlp)
    extra, refused = _extra_examples(extra_examples, alphabet)
    labels = named if labels is not None else _task_labels(named, structure)
    return labels, structure, extra, _too_many_texts(alphabet, n_ctx) or refused


def _check_alphabet(alphabet):
    if not isinstance(alphabet, str) or not 2 <= len(alphabet) <= MAX_ALPHABET or len(set(alphabet)) < len(alphabet):
        raise OptionError(
            _("alphabet must be a string of 2 to {limit} distinct characters; found {value}").format(
                limit=MAX_ALPHABET, value=brief(alphabet)
            )
        )
    try:  # what every alphabet must be (characters that can be written and shown on their own), said for the task
        check_alphabet(alphabet)
    except ValueError as error:
        raise OptionError(str(error)) from None


def longest_context(n_vocab):
    """The largest n_ctx whose strings of 1 to n_ctx characters over ``n_vocab`` letters number at most MAX_TEXTS."""
    n_vocab, n_ctx, texts = whole(n_vocab, "n_vocab", 1, MAX_ALPHABET), 0, 0
    while n_ctx < MAX_N_CTX and texts + n_vocab ** (n_ctx + 1) <= MAX_TEXTS:
        n_ctx, texts = n_ctx + 1, texts + n_vocab ** (n_ctx + 1)
    return n_ctx


def _too_many_texts(alphabet, n_ctx):
    """Why the rule may not be asked about every text of 1 to n_ctx characters, or None."""
    high = longest_context(len(alphabet))
    if n_ctx <= high:
        return None
    return _(
        "with {n} characters, n_ctx = {n_ctx} makes more than {limit} texts to ask its rule about: n_ctx can be at most {high}"
    ).format(n=len(alphabet), n_ctx=n_ctx, limit=MAX_TEXTS, high=high)


def _check_whole(value, argument, low, high):
    """``whole``, the package's one whole-number check, with its sentence as the problem: the int."""
    try:
        return whole(value, argument, low, high)
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
    return mlp if isinstance(mlp, bool) else int(mlp)


def _labels(labels, alphabet, n_ctx, n_embd):
    """The task's labels: as given (they say n_embd), or the residual directions named for ``n_embd``."""
    if labels is None:
        if n_embd is None:
            raise OptionError(_("n_embd is required when no labels name the residual directions"))
        n_embd = _check_whole(n_embd, "n_embd", 1, MAX_WIDTH)
        return Labels(alphabet, _residual_names(alphabet, n_ctx, n_embd))
    if not isinstance(labels, Labels):
        raise OptionError(_("labels must be a handmade.Labels; found {kind}").format(kind=type(labels).__name__))
    if labels.alphabet != alphabet:
        raise OptionError(_("its labels' alphabet is not its alphabet"))
    if n_embd is not None and n_embd != len(labels.residual):
        raise OptionError(
            _("n_embd is {n_embd}, but its labels name residual directions for a width of {n}").format(
                n_embd=brief(n_embd), n=len(labels.residual)
            )
        )
    return labels


# ---- the names of a task whose author named none ----------------------------------------------


def positions(n):  # P0, P1, ...: the direction that says "the token is at position i"
    return [f"P{i}" for i in range(whole(n, "n", 0, MAX_N_CTX))]


def token_direction(letter):  # the direction that says "the token is <letter>": Ta, Tb, ... (T␣ for a space)
    if not isinstance(letter, str) or len(letter) != 1:
        raise (ValueError if isinstance(letter, str) else TypeError)(
            _("letter must be one character; found {value}").format(value=brief(letter))
        )
    return "T" + TOKEN_SHOWN.get(letter, letter)


def token_names(alphabet):
    """Ta, Tb, ... for the characters of ``alphabet``; T0, T1, ... when one of them cannot show in a
    name (a control character, or two that would show alike)."""
    names = [token_direction(c) for c in check_alphabet(alphabet)]
    if all(c.isprintable() or c in TOKEN_SHOWN for c in alphabet) and len(set(names)) == len(names):
        return names
    return [f"T{i}" for i in range(len(alphabet))]


def _residual_names(alphabet, n_ctx, n_embd):
    """The ``n_embd`` residual directions of a task whose author named none, as the built-in tasks name
    theirs: positions P0 .. P{n_ctx-1}, tokens Ta Tb ..., then spare directions V, V1, V2, ... (where
    attention can write). The tokens come first: the positions are named only if they all fit beside
    them (else the rest is spare), and the directions are e0, e1, ... only when even the tokens do not fit."""
    tokens = token_names(alphabet)
    if n_embd < len(tokens):
        return Basis.numbered(n_embd)
    places = positions(n_ctx) if n_embd >= len(tokens) + n_ctx else []
    n_spare = n_embd - len(tokens) - len(places)
    spare = ["V", *(f"V{i}" for i in range(1, n_spare))][:n_spare]
    groups = {"position": places, "token": tokens, "scratch": spare}
    return Basis({group: names for group, names in groups.items() if names})


def _task_labels(labels, structure):
    """``labels`` with every block's attention directions and hidden units named as a model of
    ``structure`` shows them (the residual's names, else a0, a1, ...; h0, h1, ...), so that
    ``labels.attention[b]`` and ``labels.hidden[b]`` are there to build with, as the notebooks do."""
    blocks = list(enumerate(structure.blocks))
    attention = tuple(labels.attention_basis(b, block.n_attn) for b, block in blocks)
    hidden = tuple(labels.hidden_basis(b, block.n_hidden) if block.mlp else None for b, block in blocks)
    return replace(labels, attention=attention, hidden=hidden)


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
            _("mlp is {mlp} hidden units, but its labels name hidden units for an mlp of {n} in block {block}").format(
                mlp=mlp, n=len(named), block=block
            )
        )
    if named is not None:
        return len(named)
    return min(MLP_WIDTH * n_embd, MAX_WIDTH) if mlp is True else mlp


def _extra_examples(pairs, alphabet):
    """(``pairs`` as Examples over ``alphabet``, why the task cannot use them, or None): too many, too
    long, or a generator of the teacher's that fails. At most MAX_EXTRA + 1 are read, so an endless
    iterator is never read to its end."""
    try:
        given = None if isinstance(pairs, str) else _first(pairs, MAX_EXTRA + 1)
    except user_code.Failed as failed:
        return (), _("its extra_examples {failed}").format(failed=failed.clause)
    except TypeError:  # not a collection of pairs at all
        given = None
    if given is None:
        raise OptionError(
            _(
                "extra_examples must be (context, next character) pairs over the alphabet {alphabet}; found {value}"
            ).format(alphabet=repr(alphabet), value=brief(pairs))
        )
    found = [_pair(pair, alphabet) for pair in given]
    if None in found:  # the first that is not a pair over the alphabet, named by its place
        i = found.index(None)
        raise OptionError(
            _(
                "extra_examples[{i}] is {value}; each extra example is a (context, next character) pair over the alphabet {alphabet}"
            ).format(i=i, value=brief(given[i]), alphabet=repr(alphabet))
        )
    found = tuple(found)
    if len(found) > MAX_EXTRA:
        return found[:MAX_EXTRA], _("it has more than {limit} extra examples; at most {limit} are allowed").format(
            limit=MAX_EXTRA
        )
    long = next((i for i, e in enumerate(found) if len(e.context) > MAX_EXTRA_LENGTH), None)
    if long is not None:
        return found, _(
            "its extra_examples[{i}] is {n} characters long; at most {limit}, the most positions a model can have"
        ).format(i=long, n=len(found[long].context), limit=MAX_EXTRA_LENGTH)
    return found, None


def _first(pairs, n):
    """The first ``n`` of ``pairs`` (TypeError if it is not iterable), read as a teacher's code (a
    generator's) when it is not a list or tuple: ``user_code.Failed`` when that code fails."""
    if isinstance(pairs, (list, tuple)):
        return tuple(pairs[:n])
    iterator = iter(pairs)
    return user_code.run_bounded(lambda: tuple(itertools.islice(iterator, n)))


def _pair(pair, alphabet):
    """``pair`` as an Example if it is one, or a (context, next character) pair, over ``alphabet``; else None."""
    try:
        found = pair if isinstance(pair, Example) else None if isinstance(pair, str) else Example(*pair)
    except TypeError:  # not two things
        return None
    fits = found is not None and _over(found.context, alphabet) and _over(found.expected, alphabet)
    return found if fits and len(found.expected) == 1 else None


def _over(text, alphabet):  # a string of one or more characters of alphabet
    return isinstance(text, str) and text != "" and set(text) <= set(alphabet)


def contradiction(n_ctx, context, answer, example, places, width=24):
    """The sentence on two graded contexts, ``context`` (asking for ``answer``) and ``example``'s, that ask
    for two answers though a model of the task's shape reads the same letters, their last ``n_ctx``, with
    where each answer comes from beside it (``places``: an extra example's index, or None for the rule's
    answer; the first is always an extra example, which come before the rule's); each context shown in at
    most ``width`` characters."""
    j, i = places
    said = {
        "first": repr(answer),
        "second": repr(example.expected),
        "context": brief(example.context, width),
        "first_from": _("extra_examples[{j}]").format(j=j),
        "second_from": _("the rule") if i is None else _("extra_examples[{j}]").format(j=i),
    }
    if context == example.context:
        return _(
            "it asks for both {first} ({first_from}) and {second} ({second_from}) after {context}: no model can give both"
        ).format(**said)
    return _(
        "it asks for {first} after {earlier} ({first_from}) and {second} after {context} ({second_from}), but a model of its shape reads only the last {n_ctx} letters, {window} in both"
    ).format(earlier=brief(context, width), n_ctx=n_ctx, window=brief(example.context[-n_ctx:], width), **said)


OPTIONS = ("alphabet", "n_ctx", "n_embd", "n_layer", "n_head", "mlp", "labels", "extra_examples")


def no_such_options(unknown):
    """TaskError naming the first of ``unknown`` (options given to @task that it does not have), and the options there are."""
    if unknown:
        name = next(iter(unknown))
        close = difflib.get_close_matches(name, OPTIONS, n=1)
        sentence = (
            _("@task has no option {name}; did you mean {close}? Its options are {options}")
            if close
            else _("@task has no option {name}; its options are {options}")
        )
        raise TaskError(sentence.format(name=brief(name), close=close[0] if close else "", options=listed(OPTIONS)))


def lengths_said(task, graded):
    """The line of ``task.describe`` on what is graded: its alphabet, its contexts' lengths (its extra examples
    longer than n_ctx apart, of which a model of its shape reads the last n_ctx letters) and how many."""
    longer = [len(e.context) for e in task.extra_examples if len(e.context) > task.n_ctx]
    sentence = (
        _(
            "  alphabet {alphabet}, contexts of 1 to {n_ctx} tokens and {n} longer (up to {longest}: a model of this shape reads their last {n_ctx}), {graded} graded"
        )
        if longer
        else _("  alphabet {alphabet}, contexts of 1 to {n_ctx} tokens, {graded} graded")
    )
    said = {"n": len(longer), "longest": max(longer, default=0)}
    return sentence.format(alphabet=repr(task.alphabet), n_ctx=task.n_ctx, graded=graded, **said)
