"""Weights files: exact JSON, read with bounds, written so that nothing is ever lost.

A weights file is the picoGPT-shaped JSON of a weights dict, one matrix row per line, with an
optional ``"labels"`` entry (the alphabet and the names of the directions). Reading refuses
anything that is not a regular file or is larger than any real weights file, before reading it.
Writing goes to a temporary file in the same folder, which is then renamed over the target: a
failed write (a full disk, a size limit) leaves the old file as it was. A file that is not a
weights file is only replaced when asked (``force=True``).
"""

import contextlib
import json
import math
import os
import re
import stat
import sys
from pathlib import Path

import numpy as np

from .arguments import SHOWN_PATH, file_name, is_whole, shown_path, text_of, whole, writable, yes_or_no
from .basis import Basis, Labels, brief
from .i18n import _
from .reasons import not_text
from .reasons import reason as said
from .weights import WeightsError, check_weights, walk

SAID_PATH = 200  # characters of the file a save names: whole, as it was typed, unless it is very long
FAILED_PATH = 2 * SHOWN_PATH  # characters of the file a failure names: most folders whole, with room for the reason
MAX_FILE_BYTES = 10_000_000  # a weights file of this series is at most a few hundred kilobytes
MAX_LABELS = 4096  # names in one list of labels


# ---- writing ------------------------------------------------------------------------------


def _jsonable(path, leaf):  # a leaf of the weights (``walk``) as JSON has it: n_head an int, an array nested lists
    return int(leaf) if is_whole(leaf) else np.asarray(leaf, dtype=np.float64).tolist()


def _json_number(x):  # exact: repr() of a float reads back as the same float
    if x.is_integer() and abs(x) < 2**53 and math.copysign(1, x) > 0:
        return str(int(x))  # 1024 rather than 1024.0, for files people edit by hand
    return repr(x)


def _format(value, indent):
    pad = "  " * indent
    if isinstance(value, dict):
        items = [f"{pad}  {json.dumps(key)}: {_format(item, indent + 1)}" for key, item in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + pad + "}"
    if isinstance(value, list) and any(isinstance(item, (list, dict)) for item in value):  # rows, or a basis per block
        rows = [f"{pad}  {_format(row, indent + 1)}" for row in value]
        return "[\n" + ",\n".join(rows) + "\n" + pad + "]"
    if isinstance(value, list) and value and isinstance(value[0], str):
        return json.dumps(value, ensure_ascii=False)  # a list of names
    if isinstance(value, list):
        return "[" + ", ".join(_json_number(x) for x in value) + "]"
    if isinstance(value, (int, str)) or value is None:
        return json.dumps(value, ensure_ascii=False)  # n_head, an alphabet
    return _json_number(value)


def weights_to_json(params):
    """JSON text for a weights dict (and its labels): one matrix row per line, numbers exact."""
    checked = check_weights(params)
    data = walk(_jsonable, dict(checked))
    if not checked.labels.defaulted:  # labels nobody gave are left out: the file says no more than the model did
        data["labels"] = checked.labels.to_json()
    return _format(data, 0) + "\n"


def save_weights(params, path, force=False):
    """Write ``params`` to ``path`` as JSON, atomically; returns a sentence saying what was done.

    The weights are checked first, so the file always loads. An existing weights file is
    replaced (the sentence says so); any other existing file only with ``force=True``
    (NotWeightsFile otherwise, a WeightsError).
    """
    force = yes_or_no(force, "force")  # "no" would be true: a file that is not weights replaced
    text = weights_to_json(params)
    if len(text) > MAX_FILE_BYTES:  # no file could be read back (a model trained wider than check_fits_a_file thought)
        raise WeightsError(
            _("these weights take {size} characters in a file; a weights file holds at most {limit}").format(
                size=f"{len(text):,}", limit=f"{MAX_FILE_BYTES:,}"
            )
        )
    path = file_name(path)
    replaced = may_replace(path, force)
    was_weights = replaced and (not force or is_weights_file(path))  # forced, it may have held anything
    write_atomically(path, text)
    if was_weights:
        return _("replaced the weights in '{path}'").format(path=shown_path(path, SAID_PATH))
    if replaced:
        return _("replaced '{path}', which was not a weights file, with the weights").format(
            path=shown_path(path, SAID_PATH)
        )
    return _("wrote the weights to '{path}'").format(path=shown_path(path, SAID_PATH))


def save_new_weights(params, path):
    """Write ``params`` to ``path`` unless it holds weights already (a design of the learner's,
    perhaps), which is then kept: a sentence saying which. A file there that is not weights is kept
    too, as ``save_weights`` keeps it (NotWeightsFile)."""
    if is_weights_file(file_name(path)):
        return _("kept '{path}': it holds weights already, perhaps your own design, and nothing was written").format(
            path=shown_path(path)
        )
    return save_weights(params, path)


def write_new_text(text, path, instead):
    """Write ``text`` to ``path`` unless another file is there (a person's, perhaps), which is kept:
    then to ``instead``, by the same rule. A file that holds ``text`` already is left as it is.
    Returns (the path that holds ``text`` now, a sentence saying which); WeightsError, naming both,
    when both hold other files."""
    text = writable(text_of(text, "text", MAX_FILE_BYTES), "text")
    size = len(text.encode("utf-8"))
    if size > MAX_FILE_BYTES:
        raise ValueError(
            _("text is {size} bytes in UTF-8; at most {limit} are allowed").format(size=size, limit=MAX_FILE_BYTES)
        )
    path, instead = file_name(path), file_name(instead, "instead")
    for target in (path, instead):
        held = _held_text(target, text)
        if held is None:
            write_atomically(target, text)
        if held != "other":
            break
    else:
        raise WeightsError(
            _(
                "'{path}' and '{instead}' hold other files, perhaps a person's: both are kept, and nothing was written"
            ).format(path=shown_path(path), instead=shown_path(instead))
        )
    if target == instead:
        said = _("'{path}' holds another file, perhaps a person's: it is kept, and this text is in '{instead}'")
    else:
        said = _("wrote '{path}'") if held is None else _("'{path}' holds this text already")
    return target, said.format(path=shown_path(path), instead=shown_path(instead))


def _held_text(path, text):  # None: no file there; "same": it holds text; "other": anything else
    if not os.path.lexists(path):
        return None
    try:
        return "same" if read_bounded(path, len(text.encode("utf-8"))) == text else "other"
    except WeightsError:  # larger than text, not UTF-8, not a regular file, unreadable
        return "other"


class NotWeightsFile(WeightsError):
    """A file that is there and is not a weights file: kept unless the caller is told to replace it."""

    def __init__(self, path):
        self.path = path
        super().__init__(
            _("'{path}' exists and is not a weights file; choose another name, or pass force=True").format(
                path=shown_path(path)
            )
        )


def may_replace(path, force=False):
    """True if ``path`` exists and may be replaced, False if it is not there; WeightsError if it may
    not be written (NotWeightsFile when it holds something else and ``force`` is False)."""
    path, force = file_name(path), yes_or_no(force, "force")
    try:
        info = path.stat()
    except FileNotFoundError:
        if path.is_symlink() and not force:  # a link to nothing, which a person made: kept unless asked
            raise NotWeightsFile(path) from None
        return False
    except OSError as error:
        raise _cannot_write(path, error) from None
    if not stat.S_ISREG(info.st_mode):
        raise WeightsError(
            _("cannot write weights to '{path}': it is not a regular file").format(path=shown_path(path))
        )
    if not force and not is_weights_file(path):
        raise NotWeightsFile(path)
    return True


BLANK_CHARACTERS = 3  # a weight of a blank model in its file: "0, "
TRAINED_CHARACTERS = 22  # one training wrote, most often: repr's 17 digits, a sign, a point and ", " ("-0.1234…, ")


def new_file(path, force, tasks_file=None):
    """``path``, for a command that makes weights (blank, export, train): it never replaces a file
    that is there, which may be a learner's design, unless ``--force`` says to, nor ever the file
    the tasks are read from (``--tasks``)."""
    file_name(path)  # checked here, said as typed ('./mine.py')
    force = yes_or_no(force, "force")
    if tasks_file is not None:
        file_name(tasks_file, "tasks_file")
    if tasks_file is not None and os.path.exists(path) and os.path.samefile(path, tasks_file):
        raise ValueError(
            _(
                "'{path}' is the file the tasks are read from (--tasks); it is kept: write the weights to another file"
            ).format(path=shown_path(path))
        )
    if not force and os.path.lexists(path) and is_weights_file(path):
        raise ValueError(
            _(
                "'{path}' already holds weights, perhaps your own design; it is kept: choose another name, or replace it with --force"
            ).format(path=shown_path(path))
        )
    return path  # a file that is not weights: save_weights refuses it without --force, in its own words


def check_fits_a_file(structure, characters, name):
    """WeightsError now, before weights of ``structure`` (the shape of the task ``name`` says: ``Task.called``) are
    made or trained, when their file would be more than a weights file may hold (MAX_FILE_BYTES), at ``characters`` a weight
    (BLANK_CHARACTERS, TRAINED_CHARACTERS)."""
    if too_large_for_a_file(structure, characters):
        n = _weight_count(structure)
        raise WeightsError(
            _(
                "a model of the shape of {task} has {n} weights, whose file would take about {size} characters; a weights file holds at most {limit}: give the task a smaller shape"
            ).format(task=name, n=f"{int(n):,}", size=f"{int(n * characters):,}", limit=f"{MAX_FILE_BYTES:,}")
        )


def too_large_for_a_file(structure, characters):
    """Whether the file of weights of ``structure``, at ``characters`` a weight, would be over MAX_FILE_BYTES."""
    return _weight_count(structure) * characters > MAX_FILE_BYTES


def _weight_count(structure):
    """How many weights a model of ``structure`` has, from its one description (no array is made)."""
    shapes = []
    structure.weights(
        lambda n_in, n_out: shapes.append((n_in, n_out)), lambda n: shapes.append((n,)), lambda n: shapes.append((n,))
    )
    return sum(np.prod(shape) for shape in shapes)


def check_can_save(path, force=False):
    """WeightsError now, before any long work, if ``save_weights(..., path, force)`` would fail for
    want of a folder, a permission or ``force``: a temporary file is made beside it, then removed."""
    path = file_name(path)
    may_replace(path, force)
    temporary = _temporary(_through_links(path))
    try:
        open(temporary, "xb").close()  # noqa: SIM115  (made, closed, removed: nothing to manage)
        temporary.unlink()
    except BaseException as error:
        _discard(temporary, error)
        if not isinstance(error, OSError):
            raise
        raise _cannot_write(path, error) from None


def is_weights_file(path):
    """True if ``path`` holds valid weights, as ``load_weights`` reads them: a file is ours only then."""
    try:
        load_weights(path)
    except (WeightsError, RecursionError):
        return False
    return True


def _through_links(path):
    """Where writing to ``path`` goes: the file a symbolic link there points to, so that the link, which a person
    made, stays a link; ``path`` itself otherwise (a link to nothing too: it is written only when asked, with force,
    and then replaced, never followed to make a file wherever it points)."""
    try:
        return Path(os.path.realpath(path)) if path.is_symlink() and path.exists() else path
    except OSError:  # a name no system takes (too long): what is done with it next says so
        return path


def write_atomically(path, text):
    """Write ``text`` to a temporary file beside ``path``, then rename it over ``path``. Whatever
    stops it (a full disk, a size limit, Ctrl-C), the temporary file is removed and ``path`` is as it was."""
    path = _through_links(file_name(path))
    text = writable(text_of(text, "text", MAX_FILE_BYTES), "text")  # UTF-8 can write every character of it
    temporary, made = _temporary(path), False  # named before it is made: whatever stops what follows, it is removed
    try:
        with open(temporary, "x", encoding="utf-8") as file:  # "x": made here, never another's file
            made = True
            file.write(text)
            file.flush()
            os.fsync(file.fileno())
        mode = path.stat().st_mode & 0o777 if path.exists() else 0o666 & ~_umask()
        os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException as error:
        _discard(temporary, error)
        if not isinstance(error, OSError):
            raise
        if not made:  # no folder, no permission: nothing was begun
            raise _cannot_write(path, error) from None
        raise WeightsError(
            _("could not write '{path}' ({reason}); the file there before, if any, is unchanged").format(
                path=shown_path(path), reason=said(error)
            )
        ) from None


def _temporary(path):
    """A new temporary file's name beside ``path``: hidden, random, and short enough for any file system."""
    return path.parent / f".{path.name[:64]}.{os.urandom(6).hex()}.tmp"


def _discard(temporary, error):
    """Remove the temporary file a save made, unless ``error`` says the name was another's (it existed)."""
    if not isinstance(error, FileExistsError):
        with contextlib.suppress(OSError):
            temporary.unlink(missing_ok=True)


def _cannot_write(path, error):
    sentence = _("cannot write weights to '{path}': {reason}")
    return WeightsError(sentence.format(path=shown_path(path, FAILED_PATH), reason=said(error)))


def _umask():
    mask = os.umask(0)
    os.umask(mask)
    return mask


# ---- reading ------------------------------------------------------------------------------


def read_bounded(path, limit=None):
    """The text of a regular file of at most ``limit`` bytes (None: MAX_FILE_BYTES), or WeightsError; never blocks."""
    path = file_name(path)
    limit = MAX_FILE_BYTES if limit is None else whole(limit, "limit", 0, MAX_FILE_BYTES)
    try:
        info = path.stat()
    except FileNotFoundError:
        raise _cannot_read(path, _("no such file")) from None
    except OSError as error:
        raise _cannot_read(path, said(error)) from None
    if not stat.S_ISREG(info.st_mode):
        raise _cannot_read(path, _("it is not a regular file"))
    if info.st_size > limit:
        raise _cannot_read(
            path,
            _("it has {size} bytes, more than the {limit} a weights file may have").format(
                size=info.st_size, limit=limit
            ),
        )
    try:
        with open(path, "rb") as file:
            data = file.read(limit + 1)
        if len(data) > limit:
            raise _cannot_read(path, _("it is larger than {limit} bytes").format(limit=limit))
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise _cannot_read(path, not_text(error)) from None
    except OSError as error:
        raise _cannot_read(path, said(error)) from None


def _cannot_read(path, reason):
    sentence = _("cannot read weights from '{path}': {reason}")
    return WeightsError(sentence.format(path=shown_path(path, FAILED_PATH), reason=reason))


def weights_from_json(text, source=None):
    """Checked weights (with their labels, if the JSON has them) from JSON text."""
    source = _("the JSON text") if source is None else text_of(source, "source", 2 * SHOWN_PATH)
    return _weights_in(text_of(text, "text", MAX_FILE_BYTES), source)


def _weights_in(text, source):
    """Checked weights from JSON ``text`` (a string of at most MAX_FILE_BYTES) that ``source`` names."""
    text = text.removeprefix("\ufeff")  # a byte-order mark, which some editors write first (Notepad's UTF-8)
    try:
        raw = json.loads(text, parse_float=_finite, object_pairs_hook=_keys_once)
    except _RepeatedKey as error:  # json would keep the last silently: a file that means two things is refused
        sentence = _("{source} gives the key {key} twice in one object; each key may appear once")
        raise WeightsError(sentence.format(source=source, key=brief(error.args[0]))) from None
    except json.JSONDecodeError as error:
        raise WeightsError(
            _("{source} is not valid JSON: {reason} at line {line}, column {column}").format(
                source=source, reason=said(error), line=error.lineno, column=error.colno
            )
        ) from None
    except RecursionError:
        raise WeightsError(_("{source} is nested too deeply to be weights").format(source=source)) from None
    except ValueError as error:  # a number float64 cannot hold (_TooLarge), or too long for Python's int
        raise _too_large(source, error, text) from None
    try:
        if not isinstance(raw, dict):
            raise WeightsError(
                _("weights are a JSON object with wte, wpe and blocks; found {value}").format(
                    value=json.dumps(raw) if raw is None or isinstance(raw, bool) else brief(raw)  # as JSON says them
                )
            )
        labels = labels_from_json(raw.pop("labels")) if "labels" in raw else None
        return check_weights(raw, labels)
    except WeightsError as error:
        raise WeightsError(_("{source}: {error}").format(source=source, error=error)) from None


def rounds_to_zero(text):
    """Whether the string ``text`` spells a number but 0 that float64 holds as 0 (1e-400): what a reader of numbers
    (a weights file, a box of the widgets) refuses, as it does a number too large, rather than take it for 0."""
    mantissa = text_of(text, "text", math.inf).lower().partition("e")[0]
    try:
        return float(text) == 0 and any(ch.isdecimal() and int(ch) != 0 for ch in mantissa)
    except ValueError:  # no number
        return False


class _RepeatedKey(Exception):  # a key an object of JSON text gives twice (not a ValueError: _weights_in's own)
    pass


def _keys_once(pairs):  # json's object_pairs_hook: the object as a dict, or _RepeatedKey naming a key given twice
    found = dict(pairs)
    if len(found) < len(pairs):
        raise _RepeatedKey(next(key for i, (key, _value) in enumerate(pairs) if key in dict(pairs[:i])))
    return found


class _TooLarge(ValueError):  # a number of JSON text, as written, that float64 cannot hold
    pass


class _TooSmall(_TooLarge):  # one float64 holds as 0
    pass


def _finite(text):
    """json's reader of a number with a point or an exponent: its float, or _TooLarge (1e400, which is inf), or
    _TooSmall (1e-400, which float64 makes 0)."""
    value = float(text)
    if abs(value) == math.inf:
        raise _TooLarge(text)
    if value == 0 and text.strip("-0.") and rounds_to_zero(text):  # 0.0 and -0.0 at once: most weights of a blank
        raise _TooSmall(text)
    return value


def _too_large(source, error, text):
    """WeightsError naming, as written, the number of JSON ``text`` that ``error`` refused: a float's (_TooLarge),
    or a whole number of more digits than Python reads into an int (sys.get_int_max_str_digits)."""
    found = str(error) if isinstance(error, _TooLarge) else None
    limit = getattr(sys, "get_int_max_str_digits", lambda: 0)()
    if found is None and limit:
        found = next((m[0] for m in re.finditer(rf"-?\d{{{limit + 1},}}", text)), None)
    if found is None:  # what else json's reader may refuse
        return WeightsError(_("{source}: {error}").format(source=source, error=brief(str(error))))
    sentence = _(
        "{source} holds the number {number}, too large for a weight (float64 holds numbers up to about 1.8e308)"
    )
    if isinstance(error, _TooSmall):
        sentence = _("{source} holds the number {number}, too close to 0 for a weight (float64 would hold it as 0)")
    return WeightsError(sentence.format(source=source, number=found if len(found) <= 40 else found[:39] + "…"))


def load_weights(path):
    """Read weights saved by ``save_weights`` (or written by hand); nothing half-loaded."""
    path = file_name(path)
    return _weights_in(read_bounded(path), f"'{shown_path(path)}'")


def labels_from_json(labels):
    """``Labels`` from the ``"labels"`` entry of a weights file: an alphabet (a string, or null for
    numbered tokens), the residual directions, and optionally the attention and hidden ones per block.
    The alphabet says what the token ids mean, everywhere; the directions' names only name them."""
    alphabet_ok = isinstance(labels, dict) and isinstance(labels.get("alphabet", 0), (str, type(None)))
    if not alphabet_ok or not isinstance(labels.get("residual"), (list, dict)):
        raise WeightsError(
            _(
                "labels must be an object with an alphabet (a string, or null for numbered tokens) and residual directions"
            )
        )
    extra = set(labels) - {"alphabet", "residual", "attention", "hidden"}
    if extra:
        raise WeightsError(_("labels has an unknown key {key}").format(key=brief(sorted(extra)[0])))
    try:
        residual, per_block = _basis(labels["residual"], "labels.residual"), {}
        for name in ("attention", "hidden"):  # a list of bases, one per block
            value = labels.get(name, [])
            if not isinstance(value, list) or len(value) > MAX_LABELS:
                raise WeightsError(_("labels.{name} must be a list (one entry per block)").format(name=name))
            per_block[name] = tuple(_basis(b, f"labels.{name}[{i}]") for i, b in enumerate(value))
        return Labels(labels.get("alphabet"), residual, **per_block)
    except (ValueError, TypeError) as error:
        raise WeightsError(str(error)) from None


def _basis(value, path):
    if value is None:
        return None
    groups = value if isinstance(value, dict) else {"": value}
    if not all(isinstance(names, list) and len(names) <= MAX_LABELS for names in groups.values()):
        raise WeightsError(_("{path} must be a list of names, or groups of them").format(path=path))
    return Basis(groups)
