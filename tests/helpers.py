"""Shared test helpers: random weights of any shape the package supports; a mark for POSIX-only tests."""

import os

import numpy as np
import pytest

posix_only = pytest.mark.skipif(
    os.name == "nt", reason="POSIX only: named pipes, /dev, resource limits and Unix file modes"
)


def random_params(
    rng, n_vocab=3, n_ctx=6, n_embd=8, n_layer=1, n_head=1, ln=False, mlp=False, ln_f=False, n_attn=None, n_hidden=None
):
    n_attn = n_embd if n_attn is None else n_attn
    n_hidden = 4 * n_embd if n_hidden is None else n_hidden

    def normal(*shape):
        return rng.normal(size=shape)

    def linear(n_in, n_out):
        return {"w": normal(n_in, n_out), "b": normal(n_out)}

    def norm():
        return {"g": normal(n_embd), "b": normal(n_embd)}

    blocks = []
    for _ in range(n_layer):
        block = {"attn": {"c_attn": linear(n_embd, 3 * n_attn), "c_proj": linear(n_attn, n_embd)}}
        if n_head != 1:
            block["n_head"] = n_head
        if ln:
            block["ln_1"] = norm()
        if mlp:
            block["mlp"] = {"c_fc": linear(n_embd, n_hidden), "c_proj": linear(n_hidden, n_embd)}
            if ln:
                block["ln_2"] = norm()
        blocks.append(block)
    params = {"wte": normal(n_vocab, n_embd), "wpe": normal(n_ctx, n_embd), "blocks": blocks}
    if ln_f:
        params["ln_f"] = norm()
    return params


def as_lists(params):
    if isinstance(params, dict):
        return {key: as_lists(value) for key, value in params.items()}
    if isinstance(params, list):
        return [as_lists(value) for value in params]
    if isinstance(params, np.ndarray):
        return params.tolist()
    return params
