"""The names of what a model holds and makes: one naming rule, and every intermediate declared once.

A ``Name`` (``handmade.model.Name``: the forward pass makes them) is a string,
``"blocks[1].head0.scores"``, that also says what it names (``kind``: ``scores``) and where (``block``
1, ``head`` 0; None at the model's level): a dict keyed by names is read with plain strings too, and
code that wants the block or the head reads them, never the string. The forward pass hands every
array it taps to a recording under such a name; the parts of a model (``blocks[0].q``) and the
shares of a margin (``blocks[0].head1``) are named the same way.

One naming rule for all of them: a full name is its scopes (``blocks[1].``, ``head0.``) then its kind
within them (``q``, ``c_proj.w``, ``attention_weights``), and any of the leading scopes may be left
out while what is left names exactly one thing. So ``q`` and ``attention_weights`` are enough in a
model with one block and one head; ``blocks[1].q`` and ``head0.attention_weights`` where there are
more.

``INTERMEDIATES`` declares each array a pass taps (or the trace derives from one), once: its name,
its title, what its columns stand for, and where the pass makes it. ``T`` and ``TAPS`` are read off it,
and ``Structure.taps`` reads which of them a model makes, in order (tests/test_structure.py checks
that this is what a pass taps, name for name).
"""

from dataclasses import dataclass
from types import SimpleNamespace

from .arguments import UnknownName, brief, few
from .i18n import N_, _, listed


def matches(query, name):
    """Whether the string ``query`` names ``name`` (a Name): one of its forms."""
    return isinstance(query, str) and query in name.forms()


def resolve(query, names, missing, paths=None):
    """The one of ``names`` (Names) that ``query`` names; UnknownName (a ValueError and a KeyError)
    otherwise, saying which ones it could mean, or ``missing`` (a sentence with ``{name}`` and
    ``{names}``) when it names none, with the ones it may have meant: of ``paths`` ({another way to
    write where some of them are, such as a weights dict's path: [those names]}), or as ``_close`` finds."""
    if query in names:
        return names[names.index(query)]
    found = [name for name in names if matches(query, name)]
    if len(found) == 1:
        return found[0]
    if found:
        raise UnknownName(
            _("{name} is ambiguous here: say which of {names}").format(name=brief(query), names=few(found, limit=120))
        )
    said = missing.format(name=brief(query), names=few(names, limit=100))
    close = _by_path(query, names, paths or {}) or _close(query, names)
    if len(close) > 3:  # the list above may leave them out: these are said whole, and how many more
        said = _("{sentence}; did you mean one of {close}?").format(sentence=said, close=few(close, limit=80))
    elif close:
        close = close[0] if len(close) == 1 else _("{names} or {last}").format(names=listed(close[:-1]), last=close[-1])
        said = _("{sentence}; did you mean {close}?").format(sentence=said, close=close)
    raise UnknownName(said)


def _by_path(query, names, paths):
    """The names (said as ``shortest`` says them) at the paths ``query`` writes whole keys of
    (``attn.c_attn.w``: q, k and v; ``c_attn``: those and their biases)."""
    if not isinstance(query, str):
        return []
    found = [name for path, at in paths.items() if f".{query}." in f".{path}." for name in at]
    return [shortest(name, names) for name in found]


def _close(query, names):
    """The names (each said as ``shortest`` says it) that ``query`` begins (``c_proj``: ``c_proj.w``,
    ``c_proj.b``), else the one or two of the block it names (if it names one) that it is closest to as
    text, as a typo would be."""
    import difflib  # here, where a name names nothing, and not in the time ``import handmade`` takes

    if not isinstance(query, str):
        return []
    said = {shortest(name, names): name for name in names}
    begun = [form for form, name in said.items() if any(f.startswith(query + ".") for f in name.forms())]
    scope = query.split(".")[0] + "." if query.startswith("blocks[") else ""  # a typo within the block it names
    alike = [form for form, name in said.items() if str(name).startswith(scope)]
    return begun or difflib.get_close_matches(query, alike, n=2, cutoff=0.8)


def shortest(name, names):
    """The shortest way to say ``name`` that names nothing else in ``names``."""
    for form in reversed(name.forms()):  # the most scopes left out first
        if sum(matches(form, other) for other in names) == 1:
            return form
    return str(name)


# ---- the intermediates a forward pass taps --------------------------------------------------------


@dataclass(frozen=True)
class Intermediate:
    """One kind of array a pass taps (or the trace derives from one): how to read it, and where it is made."""

    name: str  # what gpt() taps it as: tap(name, array)
    title: str  # marked with N_; ``_(title)`` translates it
    columns: str  # the kind of Space of its columns: stream, attention, qkv, keys, hidden, tokens
    scope: str = "block"  # made once a pass ("model"), once a block ("block") or once a head ("head")
    needs: str | None = None  # made only in a block or a model that has this (ln_1, ln_2, mlp; ln_f)
    heated: bool = False  # shown shaded like a heatmap (scores, weights, logits)
    derived: bool = False  # not tapped: the trace derives it (q, k and v from qkv, probabilities from logits)


INTERMEDIATES = {  # in the order a pass makes them
    i.name: i
    for i in (
        Intermediate("token_embedding", N_("token embeddings: wte[tokens]"), "stream", "model"),
        Intermediate("position_embedding", N_("position embeddings: wpe[positions]"), "stream", "model"),
        Intermediate("embedding", N_("embedding: x = wte[tokens] + wpe[positions]"), "stream", "model"),
        Intermediate("ln_1", N_("ln_1: layer norm of x, the input to attention"), "stream", needs="ln_1"),
        Intermediate("qkv", N_("qkv = x @ c_attn.w + c_attn.b"), "qkv"),
        Intermediate("q", N_("q: what each position looks for"), "attention", derived=True),
        Intermediate("k", N_("k: what each position offers"), "attention", derived=True),
        Intermediate("v", N_("v: what each position passes on"), "attention", derived=True),
        Intermediate("scores", N_("scores: q @ k.T"), "keys", "head", heated=True),
        Intermediate("scaled_scores", N_("scaled scores: q @ k.T / sqrt(d)"), "keys", "head"),
        Intermediate("masked_scores", N_("masked scores: scaled scores + mask"), "keys", "head"),
        Intermediate(
            "attention_weights", N_("attention weights: softmax(scaled scores + mask)"), "keys", "head", heated=True
        ),
        Intermediate("attention_output", N_("attention output: weights @ v"), "attention", "head"),  # and see below
        Intermediate("c_proj_output", N_("c_proj output: attention output @ c_proj.w + c_proj.b"), "stream"),
        Intermediate("residual", N_("residual stream: x + c_proj output"), "stream"),
        Intermediate(
            "ln_2", N_("ln_2: layer norm of the residual stream, the input to the MLP"), "stream", needs="ln_2"
        ),
        Intermediate("mlp_pre", N_("MLP pre-activation: x @ c_fc.w + c_fc.b"), "hidden", needs="mlp"),
        Intermediate("mlp_hidden", N_("MLP hidden layer: gelu(x @ c_fc.w + c_fc.b)"), "hidden", needs="mlp"),
        Intermediate("mlp_output", N_("MLP output"), "stream", needs="mlp"),
        Intermediate("mlp_residual", N_("residual stream after the MLP"), "stream", needs="mlp"),
        Intermediate("ln_f", N_("ln_f: final layer norm"), "stream", "model", needs="ln_f"),
        Intermediate("logits", N_("logits: x @ wte.T"), "tokens", "model", heated=True),
        Intermediate(
            "probabilities", N_("probabilities: softmax(logits)"), "tokens", "model", heated=True, derived=True
        ),
    )
}
# With several heads, a block also taps the heads' attention outputs side by side, as its own
# attention_output (Structure.taps puts it after the last head's).

T = SimpleNamespace(**{name: name for name in INTERMEDIATES})
"""The name of each intermediate, for code that asks for one: ``T.attention_weights`` (a typo is an AttributeError)."""

TAPS = tuple(name for name, intermediate in INTERMEDIATES.items() if not intermediate.derived)
"""Every name the forward pass taps, in the order a pass taps them."""
