"""What the system, json or numpy said, in the learner's language: the reason a message quotes.

An error from the operating system ("No such file or directory"), from ``json`` ("Expecting value")
or from numpy ("operands could not be broadcast together ...") is English whatever the language.
``reason(error)`` says it in the current language and, when that is not English, keeps the original
in brackets, so that it can still be looked up: "没有这个文件或文件夹（No such file or directory）".
"""

import errno
import re

from .i18n import N_, _, language

OS_REASONS = {
    errno.ENOENT: N_("no such file or folder"),
    errno.EACCES: N_("permission denied"),
    errno.EPERM: N_("the operation is not permitted"),
    errno.EISDIR: N_("it is a folder"),
    errno.ENOTDIR: N_("a part of the path is not a folder"),
    errno.ENOSPC: N_("no space left on the device"),
    errno.EROFS: N_("the file system is read-only"),
    errno.EEXIST: N_("the file exists already"),
    errno.EFBIG: N_("the file is too large"),
    errno.ENAMETOOLONG: N_("the file name is too long"),
    errno.EIO: N_("an input/output error"),
    errno.EINVAL: N_("an invalid argument"),
    errno.ELOOP: N_("too many levels of symbolic links"),
    errno.EMFILE: N_("too many open files"),
    errno.EPIPE: N_("the pipe is closed at the other end"),
    errno.EBUSY: N_("the device or file is busy"),
    errno.ENXIO: N_("no such device or address"),
    getattr(errno, "EDQUOT", -1): N_("the disk quota is used up"),
}

# the beginnings of json's messages (json.decoder, Python 3.10 to 3.13)
JSON_REASONS = (
    ("Expecting value", N_("a value was expected here")),
    ("Expecting property name enclosed in double quotes", N_("a key in double quotes was expected here")),
    ("Expecting ',' delimiter", N_("a comma was expected here")),
    ("Expecting ':' delimiter", N_("a colon was expected here")),
    ("Extra data", N_("there is more text after the JSON value")),
    ("Unterminated string", N_("a string is not closed")),
    ("Invalid control character", N_("a string holds a control character")),
    ("Invalid \\escape", N_("a string holds an invalid escape")),
    ("Invalid \\uXXXX escape", N_("a string holds an invalid \\u escape")),
    ("Illegal trailing comma", N_("a comma comes before the closing bracket")),
)

# the beginnings of what numpy and Python say when a learner's code, or a teacher's rule, fails as it runs
CODE_REASONS = (
    (r"operands could not be broadcast together", N_("the shapes do not broadcast together")),
    (r"matmul: Input operand \d+ has a mismatch in its core dimension", N_("the shapes do not fit a matrix product")),
    (r"shapes \S+ and \S+ not aligned", N_("the shapes do not fit a matrix product")),
    (r"index -?\d+ is out of bounds", N_("an index is out of range")),
    (r"(list|tuple|string) index out of range", N_("an index is out of range")),
    (r"division by zero", N_("division by zero")),
    (r"'utf-8' codec can't decode", N_("it is not UTF-8 text")),
    (r"unsupported operand type", N_("the operation does not take these types")),
    (r"maximum recursion depth exceeded", N_("calls nest deeper than Python allows")),
    (r"name '[^']+' is not defined", N_("a name is used that is not defined")),
    (
        r"(local variable '[^']+' referenced before assignment|cannot access local variable)",
        N_("a local name is used before it is given a value"),
    ),
    (r"'[^']+' object is not callable", N_("something that is not a function is called")),
    (r"('[^']+' object|type '[^']+') is not subscriptable", N_("something that cannot be indexed is indexed")),
    (
        r"('[^']+' object|argument of type '[^']+') is not iterable",
        N_("something that cannot be looped over is looped over"),
    ),
    (r"(module |type object )?'[^']+' (object )?has no attribute", N_("an object has no attribute of that name")),
    (r"invalid literal for int\(\)", N_("a text is not a whole number")),
    (r"could not convert string to float", N_("a text is not a number")),
    (
        r"((not enough|too many) values to unpack|cannot unpack non-iterable)",
        N_("there are not as many values as names to unpack them into"),
    ),
    (r"\S+\(\) missing \d+ required positional arguments?", N_("a function is called without arguments it needs")),
    (
        r"\S+\(\) takes (from \d+ to )?\d+ positional arguments? but \d+",
        N_("a function is called with more arguments than it takes"),
    ),
)

# the beginnings of what Python says of code it cannot compile (a teacher's tasks file), Python 3.10 to 3.13
SYNTAX_REASONS = (
    (r"invalid syntax", N_("the syntax is not valid")),
    (r"unexpected indent", N_("a line is indented where no block begins")),
    (r"unindent does not match any outer indentation level", N_("a line's indentation matches no line above it")),
    (r"expected an indented block", N_("an indented block was expected")),
    (r"'.' was never closed", N_("a bracket is opened and never closed")),
    (r"unmatched '.'", N_("a bracket is closed that was never opened")),
    (
        r"closing parenthesis '.' does not match opening parenthesis",
        N_("a closing bracket does not match its opening one"),
    ),
    (r"(unterminated (triple-quoted )?string literal|EO[LF] while scanning)", N_("a string is not closed")),
    (r"expected ':'", N_("a colon was expected here")),
    (r"invalid character", N_("a character that Python does not allow in code")),
    (r"inconsistent use of tabs and spaces", N_("tabs and spaces are mixed in the indentation")),
    (r"source code (string )?cannot contain null bytes", N_("the file holds a null character")),
    (r"invalid (decimal|hexadecimal|octal|binary) literal", N_("a number is written with letters in it")),
    (r"cannot assign to", N_("what is left of = cannot be assigned to")),
)


def reason(error):
    """The reason ``error`` gives (an exception, or the text of one), in the current language."""
    original = " ".join(str(_original(error)).split())
    said = _said(error, original)
    if said is None or language() == "en":
        return original
    return _("{said} ({original})").format(said=_(said), original=original)


def not_text(error):
    """What a UnicodeDecodeError means, in a sentence of the current language: which byte, and where, as an editor
    finds it: its line and its place in that line, each counted from 1 (bytes, since the line is not text there)."""
    data, start = bytes(error.object), error.start
    return _(
        "it is not text in {encoding}: on line {line}, byte {column} of the line ({byte}) is not a character"
    ).format(
        encoding=error.encoding,
        line=data.count(b"\n", 0, start) + 1,
        column=start - (data.rfind(b"\n", 0, start) + 1) + 1,
        byte=f"0x{data[start]:02x}",
    )


def _original(error):
    if isinstance(error, OSError) and error.strerror:
        return error.strerror
    if hasattr(error, "doc"):  # json.JSONDecodeError: its msg, after which our sentence says "at line ..."
        return error.msg.removesuffix(" at")  # "Unterminated string starting at": the place is ours to say
    return error


def _said(error, original):
    if isinstance(error, OSError):
        return OS_REASONS.get(error.errno)
    found = [said for start, said in JSON_REASONS if original.startswith(start)]
    found += [said for pattern, said in (*CODE_REASONS, *SYNTAX_REASONS) if re.match(pattern, original)]
    return found[0] if found else None
