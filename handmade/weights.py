"""Checking weights where they enter, and saving and loading them as JSON.

``gpt()`` itself trusts its arguments, as picoGPT does; everything that takes weights from a
person (the predict functions, the loaders, the widgets, the command line) passes them through
``check_weights`` once, which names the matrix, the shape it expected and the shape it found.
"""

import json
import math
from pathlib import Path

import numpy as np


class WeightsError(ValueError):
    """A weights dict or file that cannot be used: the message says which part and why."""


TOP_KEYS = ("wte", "wpe", "blocks", "ln_f")
BLOCK_KEYS = ("attn", "ln_1", "ln_2", "mlp", "n_head")


def check_weights(params):
    """Return a checked copy of ``params`` with every matrix as a float64 array.

    Raises WeightsError naming the first problem: a missing or unknown key, a shape that does
    not fit, a value that is not a number, or a value that is not finite.
    """
    _check_keys(params, "weights", required=("wte", "wpe", "blocks"), allowed=TOP_KEYS)
    wte = _array(params["wte"], "wte", (None, None), "[n_vocab, n_embd]")
    n_embd = wte.shape[1]
    dims = f"n_embd = {n_embd} from wte"
    checked = {
        "wte": wte,
        "wpe": _array(params["wpe"], "wpe", (None, n_embd), f"[n_ctx, n_embd] with {dims}"),
        "blocks": [],
    }
    if len(checked["wpe"]) == 0:
        raise WeightsError("wpe has no rows; it needs one row per position (n_ctx of them)")
    blocks = params["blocks"]
    if not isinstance(blocks, (list, tuple)):
        raise WeightsError(f"blocks must be a list of blocks; found {type(blocks).__name__}")
    for i, block in enumerate(blocks):
        checked["blocks"].append(_check_block(block, f"blocks[{i}]", n_embd, dims))
    if params.get("ln_f") is not None:
        checked["ln_f"] = _check_norm(params["ln_f"], "ln_f", n_embd, dims)
    return checked


def _check_block(block, path, n_embd, dims):
    _check_keys(block, path, required=("attn",), allowed=BLOCK_KEYS)
    attn = block["attn"]
    _check_keys(attn, f"{path}.attn", required=("c_attn", "c_proj"), allowed=("c_attn", "c_proj"))
    checked = {
        "attn": {
            "c_attn": _check_linear(
                attn["c_attn"], f"{path}.attn.c_attn", n_embd, 3 * n_embd, "n_embd", "3*n_embd", dims
            ),
            "c_proj": _check_linear(attn["c_proj"], f"{path}.attn.c_proj", n_embd, n_embd, "n_embd", "n_embd", dims),
        }
    }
    if "n_head" in block:
        checked["n_head"] = _check_n_head(block["n_head"], f"{path}.n_head", n_embd)
    for name in ("ln_1", "ln_2"):
        if block.get(name) is not None:
            checked[name] = _check_norm(block[name], f"{path}.{name}", n_embd, dims)
    if block.get("mlp") is not None:
        checked["mlp"] = _check_mlp(block["mlp"], f"{path}.mlp", n_embd, dims)
    elif "ln_2" in checked:
        raise WeightsError(f"{path} has ln_2 but no mlp; ln_2 normalises the mlp's input, so give both or neither")
    return checked


def _check_linear(layer, path, n_in, n_out, in_name, out_name, dims):
    _check_keys(layer, path, required=("w", "b"), allowed=("w", "b"))
    return {
        "w": _array(layer["w"], f"{path}.w", (n_in, n_out), f"[{in_name}, {out_name}] with {dims}"),
        "b": _array(layer["b"], f"{path}.b", (n_out,), f"[{out_name}] with {dims}"),
    }


def _check_norm(norm, path, n_embd, dims):
    _check_keys(norm, path, required=("g", "b"), allowed=("g", "b"))
    return {key: _array(norm[key], f"{path}.{key}", (n_embd,), f"[n_embd] with {dims}") for key in "gb"}


def _check_mlp(mlp, path, n_embd, dims):
    _check_keys(mlp, path, required=("c_fc", "c_proj"), allowed=("c_fc", "c_proj"))
    c_fc = mlp["c_fc"]
    _check_keys(c_fc, f"{path}.c_fc", required=("w", "b"), allowed=("w", "b"))
    w = _array(c_fc["w"], f"{path}.c_fc.w", (n_embd, None), f"[n_embd, n_hidden] with {dims}")
    n_hidden = w.shape[1]
    hidden = f"{dims} and n_hidden = {n_hidden} from c_fc.w"
    return {
        "c_fc": {"w": w, "b": _array(c_fc["b"], f"{path}.c_fc.b", (n_hidden,), f"[n_hidden] with {hidden}")},
        "c_proj": _check_linear(mlp["c_proj"], f"{path}.c_proj", n_hidden, n_embd, "n_hidden", "n_embd", hidden),
    }


def _check_n_head(n_head, path, n_embd):
    divisors = [d for d in range(1, n_embd + 1) if n_embd % d == 0]
    allowed = ", ".join(map(str, divisors))
    if isinstance(n_head, bool) or not isinstance(n_head, (int, np.integer)):
        raise WeightsError(f"{path} is {n_head!r}; it must be a whole number of heads ({allowed})")
    if n_head not in divisors:
        raise WeightsError(
            f"{path} is {n_head}, but n_embd = {n_embd} does not split into {n_head} equal heads; allowed: {allowed}"
        )
    return int(n_head)


def _check_keys(mapping, path, required, allowed):
    if not isinstance(mapping, dict):
        raise WeightsError(f"{path} must be a dict with keys {', '.join(required)}; found {type(mapping).__name__}")
    for key in mapping:
        if key not in allowed:
            raise WeightsError(f"{path} has an unknown key {key!r}; allowed keys are {', '.join(allowed)}")
    for key in required:
        if key not in mapping:
            raise WeightsError(f"{path} is missing {key!r}; it needs {', '.join(required)}")


def _array(value, path, shape, meaning):
    """``value`` as a float64 array of ``shape`` (None matches any length), or WeightsError."""
    try:
        array = np.array(value, dtype=np.float64)
    except (TypeError, ValueError) as error:
        reason = "rows of different lengths" if "inhomogeneous" in str(error) else str(error)
        raise WeightsError(f"{path} is not a table of numbers ({reason}); expected {meaning}") from None
    fits = array.ndim == len(shape) and all(want in (None, got) for want, got in zip(shape, array.shape))
    if not fits:
        expected = (
            "(" + ", ".join("any" if n is None else str(n) for n in shape) + ("," if len(shape) == 1 else "") + ")"
        )
        raise WeightsError(f"{path} has shape {array.shape}; expected {expected}, that is {meaning}")
    bad = np.argwhere(~np.isfinite(array))
    if len(bad):
        index = tuple(int(i) for i in bad[0])
        raise WeightsError(f"{path}{list(index)} is {array[index]}; every weight must be a finite number")
    return array


def iter_matrices(params, path=""):
    """Yield (path, array) for every array in a weights dict, in a stable order."""
    if isinstance(params, dict):
        for key, value in params.items():
            yield from iter_matrices(value, f"{path}.{key}" if path else key)
    elif isinstance(params, (list, tuple)) and params and not np.isscalar(params[0]):
        for i, value in enumerate(params):
            yield from iter_matrices(value, f"{path}[{i}]")
    elif path.endswith("n_head") or params is None:
        return
    else:
        yield path, np.asarray(params, dtype=np.float64)


def largest_weight(params):
    """(path with index, value) of the weight with the largest magnitude."""
    best = ("", 0.0)
    with np.errstate(all="ignore"):
        for path, array in iter_matrices(params):
            if array.size == 0:
                continue
            flat = int(np.nanargmax(np.where(np.isnan(array), np.inf, np.abs(array)), axis=None))
            index = np.unravel_index(flat, array.shape)
            value = float(array[index])
            if not abs(value) <= abs(best[1]):
                best = (f"{path}{list(map(int, index))}", value)
    return best


# ---- JSON ---------------------------------------------------------------------------------


def to_jsonable(params):
    if isinstance(params, dict):
        return {key: to_jsonable(value) for key, value in params.items() if value is not None}
    if isinstance(params, (list, tuple)):
        return [to_jsonable(value) for value in params]
    if isinstance(params, (int, np.integer)) and not isinstance(params, bool):
        return int(params)
    return np.asarray(params, dtype=np.float64).tolist()


def _number(x):  # exact: repr() of a float reads back as the same float
    if x.is_integer() and abs(x) < 2**53 and math.copysign(1, x) > 0:
        return str(int(x))  # 1024 rather than 1024.0, for files people edit by hand
    return repr(x)


def _format(value, indent):
    pad = "  " * indent
    if isinstance(value, dict):
        items = [f'{pad}  "{key}": {_format(item, indent + 1)}' for key, item in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + pad + "}"
    if isinstance(value, list) and value and isinstance(value[0], (list, dict)):
        rows = [f"{pad}  {_format(row, indent + 1)}" for row in value]
        return "[\n" + ",\n".join(rows) + "\n" + pad + "]"
    if isinstance(value, list):
        return "[" + ", ".join(_number(x) for x in value) + "]"
    if isinstance(value, int):
        return str(value)  # n_head
    return _number(value)


def weights_to_json(params):
    """JSON text for a weights dict: one matrix row per line, numbers exact."""
    return _format(to_jsonable(check_weights(params)), 0) + "\n"


def weights_from_json(text, source="the JSON text"):
    """A checked weights dict from JSON text; WeightsError says what is wrong with it."""
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as error:
        raise WeightsError(
            f"{source} is not valid JSON: {error.msg} at line {error.lineno}, column {error.colno}"
        ) from None
    try:
        return check_weights(raw)
    except WeightsError as error:
        raise WeightsError(f"{source}: {error}") from None


def save_weights(params, path):
    """Write ``params`` to ``path`` as JSON (checked first, so the file always loads)."""
    Path(path).write_text(weights_to_json(params), encoding="utf-8")


def load_weights(path):
    """Read weights saved by ``save_weights`` (or written by hand); nothing half-loaded."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise WeightsError(f"cannot read weights from '{path}': no such file") from None
    except (OSError, UnicodeDecodeError) as error:
        raise WeightsError(f"cannot read weights from '{path}': {error}") from None
    return weights_from_json(text, source=f"'{path}'")
