"""An MLP: its units' shares of what the reader reads and its bias's; the unit at fault (one that fires
and works against the reader, or one that would serve it and does not fire), and its pre-activation split
by writer, ``mlp.c_fc.b`` apart."""

from dataclasses import replace

import numpy as np

from ...arguments import fmt
from ...i18n import _, listed, then
from ...model import Name
from ...names import T
from ..explain import tolerance
from .scores import head_step
from .stream import (
    BLOCK_PARTS,
    PathStep,
    Read,
    bias_step,
    effect_said,
    entries_said,
    is_bias,
    largest_said,
    layer_read,
    norm_note,
    reader_said,
    writer_said,
    written_by,
)


def step_on(model, read):
    """The step on the part ``read`` reads the write of: an MLP, a bias (the last step), or a head."""
    if read.part.kind == "mlp":
        return mlp_step(model, read)
    if is_bias(read.part):
        return bias_step(model, read)
    return head_step(model, read)


def mlp_step(model, read):
    b, p = read.part.block, read.position
    worth = _worth(model, read)  # [n_hidden]
    units, bias = _units_read(model, read), _bias_read(model, read)  # [n_hidden], and the bias's share
    amount = float(units.sum() + bias)
    small = tolerance([*units, bias, *worth])
    facts = {"units": _units_json(model, b, p, units), "bias": bias}
    unit = _unit_at_fault(model, b, p, units, worth, bias, small)
    if unit is None:  # the bias outweighs the units: at fault, unless what feeds the units is
        return _outweighed(model, read, facts, units, bias, amount, small)
    if unit == _unsent_unit(model, b, p, small):  # it fires, and its row of mlp.c_proj.w sends nothing anywhere
        return _unit(model, read, facts, unit, units, bias, amount, how="unsent")
    if units[unit] >= -small and worth[unit] <= small:  # no unit could serve the reader
        if abs(bias) > small:  # its bias alone does: too little, or the wrong way
            return _mlp_bias(model, read, facts, units, bias, amount), None
        col = int(np.argmax(read.direction))  # what the reader wants more of most
        named = (model.entry("mlp.c_proj.b", b, col, model.params["blocks"][b]["mlp"]["c_proj"]["b"][col]),)
        text = _(
            "At position {position}, no unit of {mlp} can serve {reader}: mlp.c_proj.w sends none of them there, and its output bias adds nothing there ({entries})."
        )
        said = text.format(
            position=p, mlp=writer_said(read.part), reader=reader_said(read.reader), entries=entries_said(named)
        )
        return PathStep("unit", read.part, p, amount, facts, named, said), None
    return _unit(model, read, facts, unit, units, bias, amount)


def _outweighed(model, read, facts, units, bias, amount, small):
    """The step where the MLP's output bias outweighs its units: on the unit that serves the reader most, when a
    threshold or a bias held it back, or its own entry of mlp.c_fc.w is weak, or what fed it is at fault; else on the bias."""
    helper = int(np.argmax(units))
    if units[helper] > small and _held_back(model, read, helper):  # a threshold or a bias took from it
        return _unit(model, read, facts, helper, units, bias, amount, how="held")
    if units[helper] > small and _weak_entry(model, read, helper, units, bias) is not None:
        return _unit(model, read, facts, helper, units, bias, amount, how="weak")
    if units[helper] > small:
        step, after = _unit(model, read, facts, helper, units, bias, amount, how="feed")
        if isinstance(after, Read) and (units.sum() < -bias / 2 or _faulty(model, after)):
            return step, after
    return _mlp_bias(model, read, facts, units, bias, amount), None


def _unit_at_fault(model, b, p, units, worth, bias, small):
    """The unit that works against the reader most; else, when the bias does and no unit serves the reader,
    the unit that would serve it most and does not fire (None: the bias is at fault, outweighing what its
    units do, or with no unit that could); else the unit that would serve the reader most."""
    worst = int(np.argmin(units))
    if units[worst] < -small and units[worst] <= bias:
        return worst
    pre = model.tapped[Name(T.mlp_pre, b)][p]  # [n_hidden]
    idle = np.where(pre <= 0, worth, -np.inf)  # what each unit that does not fire would give, once it did
    unsent = _unsent_unit(model, b, p, small)
    if bias < -small and unsent is not None:  # a unit fires and sends nothing: what it should add is missing
        return unsent
    if bias < -small:
        return _nearest(idle, pre) if idle.max() > small and units.sum() <= small else None
    return _nearest(worth, pre)


def _nearest(worth, pre):
    """The unit worth most to the reader; of equals (units a design made alike), the nearest to firing:
    the one whose pre-activation is largest, which this context was meant to make fire."""
    return int(np.lexsort((-pre, -worth))[0])


def _unsent_unit(model, b, p, small):
    """The unit that fires most at ``p`` of those a design made to read something (a column of mlp.c_fc.w not all 0)
    whose row of mlp.c_proj.w is all 0, while other rows are not: what it computes reaches nothing; or None."""
    mlp = model.params["blocks"][b]["mlp"]
    w, read = mlp["c_proj"]["w"], np.abs(mlp["c_fc"]["w"]).max(axis=0)  # [n_hidden, n_embd], [n_hidden]
    hidden = model.tapped[Name(T.mlp_hidden, b)][p]  # [n_hidden]
    sends = np.abs(w).max(axis=1) > tolerance(w.ravel())  # [n_hidden]
    unsent = ~sends & (read > tolerance(read)) & (hidden > small)
    if not unsent.any() or not sends.any():
        return None
    return int(np.argmax(np.where(unsent, hidden, -np.inf)))


def _weak_entry(model, read, unit, units, bias):
    """The entry of mlp.c_fc.w that fed ``unit`` (which fires and serves the reader, too little) the most, when it
    gives the reader less than the MLP's strongest unit gives of that input (its entry of mlp.c_fc.w times what a unit
    of its activation gives the reader: units a design scales differently compare alike) and, that strong, would make
    the unit outweigh the output bias (its pre-activation grown as the entry does): (row, the entry that strong,
    "strongest"); else, when no unit is stronger, ``_small_entry``'s; else None."""
    b, p = read.part.block, read.position
    mlp = model.params["blocks"][b]["mlp"]
    c_fc, share = mlp["c_fc"]["w"], units[unit]  # [n_embd, n_hidden]
    worth = _worth(model, read)  # [n_hidden]
    pieces = layer_read(model, b, "mlp")[p] * c_fc[:, unit]  # [n_embd]: what each entry gives its pre-activation
    pre = float(model.tapped[Name(T.mlp_pre, b)][p][unit])
    row = int(np.argmax(pieces))
    target = float(np.abs(c_fc[row] * worth).max() / abs(worth[unit]))  # the size that would gain as much as the most
    if pre <= 0 or pieces[row] <= tolerance(pieces):
        return None
    if abs(c_fc[row, unit]) >= target * (1 - 1e-6):  # as strong as the strongest unit, which are all too weak
        return _small_entry(model, read, unit, units, bias, row)
    grown = pre + pieces[row] * (target / abs(c_fc[row, unit]) - 1)  # its pre-activation with the entry that large
    outweighs = units.sum() - share + share * grown / pre + bias > tolerance([*units, bias])
    return (row, float(np.copysign(target, c_fc[row, unit])), "strongest") if outweighs else None


def _small_entry(model, read, unit, units, bias, row):
    """(row, the size of entry ``row`` of ``unit``'s column of mlp.c_fc.w at which the unit outweighs the output bias,
    "stream") when what the entry reads would have to grow larger than anything the stream holds at that position
    to do it instead: it is the entry that is small, not what its writer wrote; else None (the writer's step says)."""
    b, p = read.part.block, read.position
    c_fc = model.params["blocks"][b]["mlp"]["c_fc"]["w"]  # [n_embd, n_hidden]
    layer_in = layer_read(model, b, "mlp")[p]  # [n_embd]
    pre = float(model.tapped[Name(T.mlp_pre, b)][p][unit])
    rest = float(units.sum() - units[unit] + bias)  # what the unit has to outweigh: the bias and the other units
    if units[unit] <= 0 or units[unit] + rest > 0:
        return None
    needed = pre * -rest / units[unit]  # the pre-activation at which its share outweighs the rest (as it grows alike)
    growth = 1 + (needed - pre) / (layer_in[row] * c_fc[row, unit])  # of the entry, or of what it reads
    if abs(layer_in[row]) * growth <= np.abs(layer_in).max():  # what it reads could be that large: its writer's
        return None
    return row, float(c_fc[row, unit] * growth), "stream"


def _misled(model, read, odd=False):
    """Whether what a unit read was written by a head that looked in the wrong place, or carried what works
    against the unit (not when the unit is ``odd``: it sends the reader the other way from its sibling units, so what
    the head carried serves them, and the unit's own weights are at fault), or was never written."""
    step, _after = step_on(model, read)
    carried = step.kind == "value" and step.amount < -tolerance([step.amount, 1.0]) and not odd
    return carried or step.kind in ("attention", "unwritten", "unit", "bias")


def _odd_unit(model, read, unit):
    """Whether ``unit`` sends the reader the other way from most of the MLP's other units that send it anything."""
    worth = _worth(model, read)  # [n_hidden]
    others = np.delete(worth, unit)
    signs = np.sign(others[np.abs(others) > tolerance(worth)])
    return float(signs.sum() * np.sign(worth[unit])) < 0


def _faulty(model, read):
    """Whether the step ``read`` leads to finds a fault there: a head that looks in the wrong place, a
    write that works against its reader, or one that nothing makes."""
    step, _after = step_on(model, read)
    return step.kind in ("attention", "unwritten") or step.amount < -tolerance([step.amount, 1.0])


def _held_back(model, read, unit):
    """Whether a threshold or a bias took from the pre-activation of ``unit`` (one that serves the reader, too
    little) the most of what any writer took from it."""
    want, shares = _want(model, read, unit), _pre_shares(model, read.part.block, read.position, unit)
    against = {n: want * v for n, v in shares.items() if n.kind in BLOCK_PARTS or _threshold_or_bias(n)}
    worst = min(against, key=against.get, default=None)
    return worst is not None and _threshold_or_bias(worst) and against[worst] < -tolerance(shares.values())


def _want(model, read, unit):
    """+1 when more of ``unit``'s activation serves the reader, else -1."""
    return 1 if (model.params["blocks"][read.part.block]["mlp"]["c_proj"]["w"][unit] @ read.direction) > 0 else -1


def _threshold_or_bias(name):
    return name.kind == "mlp.c_fc.b" or is_bias(name)


def _pre_shares(model, b, p, unit):
    """{writer: its share of the pre-activation of ``unit`` at position ``p``}, mlp.c_fc.b (its threshold) apart."""
    c_fc = model.params["blocks"][b]["mlp"]["c_fc"]
    shares = {name: float(x @ c_fc["w"][:, unit]) for name, x in model.input(p, (b, "mlp")).shares.items()}
    shares[Name("mlp.c_fc.b", b)] = float(c_fc["b"][unit])
    return shares


def _firing(pre, acting):
    """The sentence on whether a unit fires: its pre-activation ``pre`` above 0; else, where it still acts
    (``acting``: gelu's small negative lobe, made large by mlp.c_proj.w), that it is below its threshold yet
    gelu passes something on."""
    if pre > 0:
        return _(
            "At position {position}, unit {unit} of {mlp} fires (its pre-activation, {pre}, is above 0) and {effect}."
        )
    if acting:
        return _(
            "At position {position}, unit {unit} of {mlp} is below its threshold (its pre-activation, {pre}, is not above 0), yet gelu passes on {hidden} there, and {effect}."
        )
    return _(
        "At position {position}, unit {unit} of {mlp} does not fire (its pre-activation, {pre}, is not above 0) and {effect}."
    )


def _unit(model, read, facts, unit, units, bias, amount, how=None):
    """The step on one unit (that works against the reader, or would serve it), and the next Read: the
    writer that pushed its pre-activation the wrong way (``how`` "held": one that serves the reader, held back);
    with "feed", the one that fed it most; with "weak" (its own entry of mlp.c_fc.w) or "unsent" (its row of
    mlp.c_proj.w), None: the path ends at it."""
    b, p = read.part.block, read.position
    pre = float(model.tapped[Name(T.mlp_pre, b)][p][unit])
    want = _want(model, read, unit)  # raise the unit, or lower it
    at = model.input(p, (b, "mlp"))
    shares = _pre_shares(model, b, p, unit)
    after = None if how in ("weak", "unsent") else _after_unit(model, read, at, shares, unit, want, units, pre, how)
    named, note = _unit_entries(model, read, at, shares, unit, want, pre, after, how)
    name = model.basis(model.structure.space("hidden", b))[unit]
    said = {
        "position": p,
        "unit": name,
        "mlp": writer_said(read.part),
        "effect": effect_said(read, float(units[unit])),
        "pre": fmt(pre),
        "shares": largest_said(shares),
        "entries": entries_said(named),
    }
    said["hidden"] = fmt(model.tapped[Name(T.mlp_hidden, b)][p][unit])
    fires = _firing(pre, abs(units[unit]) > tolerance(units)).format(**said)
    parts = _("The pre-activation of unit {unit}, part by part: {shares}; through {entries}.").format(**said)
    text = then(fires, parts) + note + _alike_said(model, b, unit)
    if abs(bias) > tolerance([bias, *units]):  # after the unit's own sentences, named: never read as the unit's
        bias_said = _("The output bias of {mlp}, mlp.c_proj.b, {effect}.")
        text = then(text, bias_said.format(mlp=said["mlp"], effect=effect_said(read, bias)))
    text += norm_note(at, p)
    facts = {**facts, "unit": name, "pre": pre, "fires": pre > 0, "pre_shares": {str(n): v for n, v in shares.items()}}
    return PathStep("unit", read.part, p, amount, facts, tuple(named), text), after


def _unit_entries(model, read, at, shares, unit, want, pre, after, how):
    """([the entries named], a sentence or ""): what fed the unit, too little (when the path goes on to it), else
    what pushed it the wrong way, else, should it fire, what it reads nothing of; and how it reaches the reader."""
    b = read.part.block
    layer_in = layer_read(model, b, "mlp")[read.position]  # [n_embd]
    if how == "unsent":
        return _unsent_entries(model, read, unit, layer_in)
    if how == "weak":
        return _weak_entries(model, read, unit, layer_in)
    fed = how == "feed" or (isinstance(after, Read) and want * shares.get(after.part, 0.0) > tolerance(shares.values()))
    taken = _unit_input_entry(model, b, unit, layer_in, want if fed else -want)
    taken = taken or (_unread_entry(model, b, unit, at, layer_in) if pre <= 0 < want else None)
    return [e for e in (taken, _unit_output_entry(model, read, unit)) if e], ""


def _unsent_entries(model, read, unit, layer_in):
    """The entries of a unit that fires and sends nothing anywhere: what made it fire, and the entry of its row of
    mlp.c_proj.w in the direction the reader wants more of most (0, as the whole row); and the sentence."""
    b, col = read.part.block, int(np.argmax(read.direction))
    w = model.params["blocks"][b]["mlp"]["c_proj"]["w"]  # [n_hidden, n_embd]
    sent = model.entry("mlp.c_proj.w", b, (unit, col), w[unit, col])
    named = [e for e in (_unit_input_entry(model, b, unit, layer_in, 1), sent) if e]
    sentence = _("Its row of mlp.c_proj.w is all 0, so what it computes reaches nothing, not even {reader}: {entry}.")
    return named, then("", sentence.format(reader=reader_said(read.reader), entry=entries_said([sent])))


def _weak_entries(model, read, unit, layer_in):
    """The entries of a unit held back by its own weak entry of mlp.c_fc.w: that entry, and how the unit reaches
    the reader; and the sentence that says how large it would have to be."""
    b = read.part.block
    row, target, why = _weak_entry(model, read, unit, _units_read(model, read), _bias_read(model, read))
    c_fc = model.params["blocks"][b]["mlp"]["c_fc"]["w"]  # [n_embd, n_hidden]
    weak = model.entry("mlp.c_fc.w", b, (row, unit), c_fc[row, unit])
    named = [e for e in (weak, _unit_output_entry(model, read, unit)) if e]
    if why == "strongest":
        sentence = _(
            "{entry} is smaller in size than {target}: at that size, what it reads would reach {reader} through this unit as strongly as through the strongest unit of the MLP (an entry of mlp.c_fc.w times what the unit's activation gives {reader}), and the unit would outweigh the output bias."
        )
    else:
        sentence = _(
            "{entry} is smaller in size than {target}, the size at which the unit would outweigh the output bias; what it reads, {read}, could not grow that much instead without outgrowing everything else in the stream there, so it is the entry that is small."
        )
    said = {"entry": entries_said([weak]), "target": fmt(target), "reader": reader_said(read.reader)}
    said["read"] = fmt(layer_read(model, b, "mlp")[read.position][row])
    return named, then("", sentence.format(**said))


def _worth(model, read):  # -> [n_hidden]: what one unit of each hidden unit's activation gives the reader
    return model.params["blocks"][read.part.block]["mlp"]["c_proj"]["w"] @ read.direction


def _units_read(model, read):
    """[n_hidden]: each unit's share of what the reader reads of the MLP ``read.part`` at ``read.position``."""
    return model.tapped[Name(T.mlp_hidden, read.part.block)][read.position] * _worth(model, read)


def _bias_read(model, read):
    return float(model.params["blocks"][read.part.block]["mlp"]["c_proj"]["b"] @ read.direction)


def _after_unit(model, read, at, shares, unit, want, units, pre, how):
    """The next Read after the step on ``unit``, or None where the path ends at it (see ``_unit``)."""
    if how == "feed":
        return _next_of_unit(model, read, at, shares, unit, want, feed=True)
    helps = units[unit] >= -tolerance(units) and pre > 0  # it fires the right way, too little: its own weights
    after = None if helps and how != "held" else _next_of_unit(model, read, at, shares, unit, want)
    if pre > 0 and isinstance(after, Read) and units[unit] < 0:
        if not _misled(model, after, _odd_unit(model, read, unit)):
            return None  # it fires on what it was given, and works against the reader: its own weights
        return replace(after, tied=True)  # of keys read alike, one context cannot tell which entry of v is at fault
    return after


def _alike_said(model, b, unit):
    """A sentence when other units of block ``b``'s MLP read its input exactly as ``unit`` does (the same column
    of mlp.c_fc.w, the same bias, not all 0): they fire together everywhere, which a design seldom means; else ""."""
    c_fc = model.params["blocks"][b]["mlp"]["c_fc"]
    columns = np.vstack([c_fc["w"], c_fc["b"]]).T  # [n_hidden, n_embd + 1]: what each unit reads, and its bias
    names = model.basis(model.structure.space("hidden", b))
    alike = [names[u] for u in np.flatnonzero((columns == columns[unit]).all(axis=1)) if u != unit]
    if not alike or not columns[unit].any():  # units that read nothing yet (a blank) are not a design's mistake
        return ""
    sentence = _(
        "Units {units} read their input alike (the same column of mlp.c_fc.w, the same bias), so they fire together everywhere; one of them may be meant to read it another way."
    )
    return then("", sentence.format(units=listed([names[unit], *alike])))


def _next_of_unit(model, read, at, shares, unit, want, feed=False):
    """The head, MLP or bias that pushed the unit's pre-activation the wrong way most (with ``feed``, the
    right way most); None when that is the unit's own threshold, or (not with ``feed``) when an embedding pushed it
    the wrong way more than any of them (the unit's step names its entry); or, when nothing was written there, one
    that could write it; or None."""
    b, p = read.part.block, read.position
    column = model.params["blocks"][b]["mlp"]["c_fc"]["w"][:, unit]  # [n_embd]
    turn = -1 if feed else 1
    against = {n: want * v * turn for n, v in shares.items() if n.kind in BLOCK_PARTS or _threshold_or_bias(n)}
    worst = min(against, key=against.get, default=None)
    reader = ("unit", b, model.basis(model.structure.space("hidden", b))[unit])
    pushes = {n: want * v * turn for n, v in shares.items()}
    first = min(pushes, key=pushes.get, default=None)
    if not feed and first is not None and first.kind in ("wte", "wpe") and pushes[first] < -tolerance(shares.values()):
        return None  # an embedding, which the unit's own entry of mlp.c_fc.w reads (its step names it), pushed most
    if worst is not None and against[worst] < -tolerance(shares.values()):
        if worst.kind == "mlp.c_fc.b":  # its own threshold: at fault, unless it is a gate what should open it missed
            return _gate_missed(model, read, at, shares, column, want, reader)
        return Read(worst, p, want * at.along(worst, column), want, reader)
    if any(abs(v) > tolerance([*shares.values(), 1.0]) for n, v in against.items() if n.kind in BLOCK_PARTS):
        return None
    return written_by(model, Read(None, p, want * at.back(column), want, reader))


def _gate_missed(model, read, at, shares, column, want, reader):
    """When a unit's negative threshold holds it below firing, and it should fire: the head or MLP that fed it, too
    little, if its own step finds it at fault (it looked in the wrong place, or worked against what it feeds); or, when
    no head or MLP fed it at all, the one that can write what it reads. None: the threshold is at fault (its step names it)."""
    if want < 0:  # a threshold that lifts a unit that should stay off: nothing upstream excuses it
        return None
    p, small = read.position, tolerance([*shares.values(), 1.0])
    fed = {n: want * v for n, v in shares.items() if n.kind in BLOCK_PARTS and want * v > small}
    if fed:
        feeder = max(fed, key=fed.get)
        after = Read(feeder, p, want * at.along(feeder, column), want, reader)
        return after if _faulty(model, after) else None
    after = written_by(model, Read(None, p, want * at.back(column), want, reader))
    return after if isinstance(after, Read) else None


def _unit_input_entry(model, b, unit, layer_in, sign):
    """The entry of mlp.c_fc (w or b) that moved the unit's pre-activation most the way of ``sign``."""
    c_fc = model.params["blocks"][b]["mlp"]["c_fc"]
    pieces = np.append(layer_in * c_fc["w"][:, unit], c_fc["b"][unit])  # [n_embd + 1]
    oriented = sign * pieces
    if oriented.max() <= tolerance(pieces):
        return None
    row = int(np.argmax(oriented))
    if row == len(layer_in):
        return model.entry("mlp.c_fc.b", b, unit, c_fc["b"][unit])
    return model.entry("mlp.c_fc.w", b, (row, unit), c_fc["w"][row, unit])


def _unread_entry(model, b, unit, at, layer_in):
    """The entry of mlp.c_fc.w through which ``unit`` would read what the heads and MLPs before it write
    most at this position (what is written there at all, when they write nothing), or None."""
    written = sum((v for n, v in at.shares.items() if n.kind in BLOCK_PARTS), np.zeros_like(layer_in))  # [n_embd]
    source = written if np.abs(written).max() > tolerance(written) else layer_in
    if np.abs(source).max() <= tolerance([*source, 1.0]):
        return None
    row = int(np.argmax(np.abs(source)))
    return model.entry("mlp.c_fc.w", b, (row, unit), model.params["blocks"][b]["mlp"]["c_fc"]["w"][row, unit])


def _unit_output_entry(model, read, unit):
    """The entry of mlp.c_proj.w by which the unit's activation reaches the reader most."""
    w = model.params["blocks"][read.part.block]["mlp"]["c_proj"]["w"][unit]  # [n_embd]
    pieces = np.abs(w * read.direction)
    if pieces.max() <= tolerance(pieces):
        return None
    col = int(np.argmax(pieces))
    return model.entry("mlp.c_proj.w", read.part.block, (unit, col), w[col])


def _mlp_bias(model, read, facts, units, bias, amount):
    b, p = read.part.block, read.position
    w = model.params["blocks"][b]["mlp"]["c_proj"]["b"]
    col = int(np.argmax(np.sign(bias) * w * read.direction))  # the entry that pushes as the bias does, most
    named = (model.entry("mlp.c_proj.b", b, col, w[col]),)
    text = _(
        "At position {position}, the output bias of {mlp}, mlp.c_proj.b, {effect}, through {entries}; the sum of its units {units}."
    ).format(
        position=p,
        mlp=writer_said(read.part),
        effect=effect_said(read, bias),
        entries=entries_said(named),
        units=effect_said(read, float(units.sum())),
    )
    return PathStep("bias", read.part, p, amount, facts, named, text + norm_note(model.input(p, (b, "mlp")), p))


SHOWN_UNITS = 16  # units of an MLP listed in a step's JSON: those with the largest shares


def _units_json(model, b, p, units):
    """{unit: its pre-activation and its share of the read}, for the units with the largest shares."""
    pre = model.tapped[Name(T.mlp_pre, b)][p]
    names = model.basis(model.structure.space("hidden", b))
    largest = sorted(np.argsort(-np.abs(units), kind="stable")[:SHOWN_UNITS])
    return {names[u]: {"pre": float(pre[u]), "share": float(units[u])} for u in largest}
