"""The path back: from the part a margin names to the part at fault, step by step.

A head or an MLP computes from what the parts before it wrote into the residual stream, so the part
the margin names (``explain``) may only have done what its input told it. Each step here takes what a
reader reads of one part's write (the margin reads a direction of the stream; an MLP unit its
pre-activation; a later head's score a key or a query; a later head's value what it carries), and
says where that came from, exactly, in sums of terms from the recorded pass:

- an MLP: its units' shares of the read and its bias's; the unit at fault (one that fired and works
  against the reader, or one that would help and did not fire), and its pre-activation split by writer
  (``mlp.c_fc.b`` apart): the writer that pushed it the wrong way is the next step;
- a head: where it looked, and which key would have served the reader best. When looking there would
  gain much, the attention is at fault: the scaled score of the query on the key that took the weight
  (the rival) and on the wanted one is a double sum over what wrote the query's input and what wrote
  the key's (token, position, earlier heads and MLPs, biases; ``q.b`` and ``k.b`` too), and the largest
  term that made the rival win, or the wanted key lose, is named with the entries of q and k that
  carry it (``q[P1, P1]``). When it looked well, what it carried is at fault: the entries of v and
  c_proj.w that made its output, and a writer of the value that pushed the wrong way is the next step.

A step whose cause is another head or MLP leads to it, unless that one wrote what the step reads as a flag is
written (positive, where the reader reads most of it) and the step's own q or k read it against the query, or
the unit's own entry of mlp.c_fc.w is at fault (it reads an embedding the wrong way, or is too small for what its
input, of the stream's size, can give): the path ends at the step, naming those entries; a bias that wrote the most of what was read
(c_proj.b of an earlier block, a layer norm's b) is the last step, naming its entry (``bias_step``); a
unit's own threshold, a query that asks nothing of what tells its keys apart (the entries of q and q.b
that could, and of k that tells them apart), an embedding or the step's own weights end the path where
they are named; a row of wte or wpe unlike the embedding's other rows, where they are alike (one value each, in a
direction of their own), ends it at the entry that, made like theirs, would serve the reader (``embeddings``). A negative threshold that keeps shut a unit that should fire is a gate (an AND's): the
path goes on to what fed the unit too little when that part's own step finds it at fault, or to what could
write what the unit reads when nothing fed it. Through a layer norm (ln_1, ln_2), each writer's share is its write centred, divided
by the stream's spread at that position and scaled by the norm's g, and the norm's b has a share of its
own, as ``explain`` shares the margin out through ln_f: they add up exactly.
"""

from .stream import PassView, PathStep, Read
from .units import step_on

MAX_PATH_STEPS = 8  # steps followed at most (each goes to an earlier layer, so a path is rarely longer than its blocks)


def follow(reading, position, params, part, direction, reader):
    """The Steps back from ``part`` (a head or an MLP) at ``position``, read along ``direction``."""
    model = PassView(reading, params)
    read, steps = Read(part, position, direction, 1, reader), []
    while isinstance(read, Read) and len(steps) < MAX_PATH_STEPS:
        step, read = step_on(model, read)
        steps.append(step)
    if isinstance(read, PathStep) and len(steps) < MAX_PATH_STEPS:  # the last: nothing before writes what was read
        steps.append(read)
    return tuple(steps)


__all__ = ["MAX_PATH_STEPS", "Read", "PathStep", "follow"]
