"""The parts of a model, by name: get one, replace some, or see them as labelled tables.

``q``, ``k`` and ``v`` are column blocks of ``c_attn.w``; ``c_proj.w`` is a matrix of its own;
``blocks[1].mlp.c_fc.b`` is a vector. Where each sits, and what its rows and columns stand for,
is the model's ``Structure``'s to say; this module reads and writes them by name::

    parts.get(model, "v")                       # the v block of c_attn.w, [n_embd, n_attn]
    parts.with_part(model, "v", new_v)          # a checked copy with the v block replaced
    parts.with_qkv(model, q=new_q, v=new_v)     # several at once

``handmade.display.trace.weight_tables(model)`` shows them as labelled tables.

Names follow the structure's one rule: ``blocks[0].q`` in full, and ``q`` where that is unique.
"""

import numpy as np

from .arguments import brief, few, number_array
from .i18n import _
from .model import Name
from .structure import Part, part_name
from .weights import WeightsError, check_weights, copied, first_not_finite


def parts(params):
    """{name: Part} for every part of ``params``, in the order of the pass, each by its shortest name."""
    structure = check_weights(params).structure
    names = structure.part_names()
    return {names[part.name]: part for part in structure.parts()}


def _reach(params, path):
    node = params
    for key in path:
        node = node[key]
    return node


def get(params, name):
    """The values of one part: a matrix, or a vector as a matrix of one row."""
    params = check_weights(params)
    return part_values(params, params.structure.part(name))


def part_values(params, part):
    """The values of ``part`` (a Part of the checked ``params``), as a matrix."""
    if not isinstance(part, Part):
        raise TypeError(
            _("part must be a Part of the model, from parts(params); found {value}").format(value=brief(part))
        )
    params = check_weights(params)
    if part not in params.structure.parts():
        raise ValueError(_("part {name} is a part of another model, not of this one").format(name=part.name))
    values = _reach(params, part.path)
    if part.columns is not None:
        values = values[..., part.columns[0] : part.columns[1]]
    return np.atleast_2d(values).copy()


def with_part(params, name, values):
    """A checked copy of ``params`` with the part ``name`` set to ``values`` (same shape)."""
    return with_parts(params, {part_name(name): values})


def with_parts(params, changes):
    """A checked copy of ``params`` with several parts replaced: ``{"q": ..., "c_proj.b": ...}``."""
    new = copied(params)  # checked, with arrays of its own to change
    if not isinstance(changes, dict):
        raise TypeError(
            _("changes must be a dict of new values by part name, such as {{'q': ...}}; found {value}").format(
                value=brief(changes)
            )
        )
    given = {}  # {part: the name it was given by}
    for name, values in changes.items():
        part = new.structure.part(name)
        if part.name in given:
            raise ValueError(
                _("{first} and {second} name the same part, {part}: give its values once").format(
                    first=repr(given[part.name]), second=repr(name), part=part.name
                )
            )
        given[part.name] = name
        values = _values_for(part, name, values, new)
        *outer, key = part.path
        holder = _reach(new, outer)
        start, stop = part.columns if part.columns is not None else (0, holder[key].shape[-1])
        holder[key][..., start:stop] = values.reshape(holder[key][..., start:stop].shape)
    problem = first_not_finite(new)  # checked weights' numbers changed in place since: said, not kept
    if problem:
        raise WeightsError(problem)
    return new  # still checked: finite numbers of the shapes there were went in


def _values_for(part, name, values, params):
    """``values`` as the float64 array ``part`` (called ``name``) of ``params`` takes; WeightsError naming
    what does not fit, or the first entry that is not finite by ``name`` and its directions (``v[Ta, Tb]``)."""
    meaning = _("{rows}x{cols} numbers for {name}").format(rows=part.shape[0], cols=part.shape[1], name=name)
    values = number_array(values, "values", 2, meaning, WeightsError)
    if values.shape not in (part.shape, part.shape[1:] if part.shape[0] == 1 else part.shape):
        raise WeightsError(
            _("{name} is {rows}x{cols} ({row_names} by {col_names}); the new values have shape {shape}").format(
                name=name,
                rows=part.shape[0],
                cols=part.shape[1],
                row_names=few(params.structure.basis(part.rows, params.labels), limit=40),
                col_names=few(params.structure.basis(part.cols, params.labels), limit=40),
                shape=values.shape,
            )
        )
    grid = values.reshape(part.shape)  # [rows, cols]: an entry not finite named by the name given and its directions
    bad = np.argwhere(~np.isfinite(grid))
    if len(bad):
        i, j = (int(k) for k in bad[0])
        said = _("{entry} is {value}; every weight must be a finite number")
        raise WeightsError(said.format(entry=params.structure.entry(part, params.labels, i, j, name), value=grid[i, j]))
    return values


def qkv(params, block=0):
    """The q, k and v blocks of ``blocks[block]``'s c_attn.w: 3 of [n_embd, n_attn]."""
    params = check_weights(params)
    block = params.structure.block_index(block)
    return tuple(get(params, Name(x, block)) for x in "qkv")


def with_qkv(params, block=0, *, q=None, k=None, v=None):
    """A checked copy of ``params`` with any of the q, k and v blocks of one block replaced."""
    block = check_weights(params).structure.block_index(block)
    return with_parts(params, {Name(x, block): m for x, m in (("q", q), ("k", k), ("v", v)) if m is not None})
