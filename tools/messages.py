"""The message catalogues: every learner-facing sentence of the package, and its translations.

Code marks a sentence with ``_("...")`` (or ``N_("...")`` where it is translated later, or
``ngettext``); this script finds them all with Babel's extractor and keeps the catalogues in step:

    python3 tools/messages.py update    # extract from handmade/, tools/site.py and the notebooks' code cells, merge into each .po
    python3 tools/messages.py compile   # write each .mo (what gettext reads at run time) from its .po
    python3 tools/messages.py check     # untranslated, fuzzy, obsolete or mismatched placeholders

The .po files are what translators edit; the .mo files are committed too, so that a plain install
of the package can show Chinese without any tool. ``tests/test_messages.py`` fails when a message
lacks a translation or a .mo is stale.

The statement of a task (its rule's docstring) is a message too, whether the task is in the package
or a notebook defines it (also inside a task file a cell writes): the Chinese notebook's docstring
is the catalogue's translation, word for word (``tests/test_editions.py``)."""

import ast
import gettext
import inspect
import io
import json
import re
import sys
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import extract as extract_from
from babel.messages.extract import extract_from_dir
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "handmade"
NOTEBOOKS = ROOT / "notebooks"  # the English edition; the Chinese one runs the same code cells
TOOLS = (ROOT / "tools" / "site.py",)  # the website's builder: its errors are in the learner's language too
LOCALES = PACKAGE / "locale"
DOMAIN = "handmade"
LANGUAGES = ("zh",)
KEYWORDS = {"_": None, "N_": None, "ngettext": (1, 2)}


def extract():
    """A Catalog of every marked message in handmade/ and TOOLS, with the places it comes from, of the
    statement of every task: the docstring of each ``@task`` rule, on one line as the Task has it
    (``inspect.cleandoc``, then its lines joined with single spaces), and of every message a
    notebook's code cell marks (see ``notebook_messages``)."""
    catalog = Catalog(project="handmade", domain=DOMAIN)
    for filename, lineno, message, comments, context in extract_from_dir(
        PACKAGE, method_map=[("**.py", "python")], keywords=KEYWORDS, comment_tags=("TRANSLATORS:",)
    ):
        catalog.add(message, locations=[(f"handmade/{filename}", lineno)], auto_comments=comments, context=context)
    for path in TOOLS:
        with open(path, "rb") as source:
            for lineno, message, comments, _context in extract_from(
                "python", source, keywords=KEYWORDS, comment_tags=("TRANSLATORS:",)
            ):
                catalog.add(message, locations=[(path.relative_to(ROOT).as_posix(), lineno)], auto_comments=comments)
    for path in sorted(PACKAGE.rglob("*.py")):
        for name, statement, lineno in task_statements(path.read_text(encoding="utf-8")):
            where = (path.relative_to(ROOT).as_posix(), lineno)
            catalog.add(statement, locations=[where], auto_comments=[f"the statement of the task {name}"])
    for message, where, comments in notebook_messages():
        catalog.add(message, locations=[where], auto_comments=comments)
    return catalog


def task_statements(source):
    """(name, statement, line) for each ``@task`` rule the Python ``source`` defines, and for each one
    defined in a string of it that is Python code itself (a task file a notebook writes); the
    statement on one line as the Task has it (``inspect.cleandoc``, its lines joined with spaces)."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and "@" in node.value:
            try:
                yield from task_statements(node.value)
            except SyntaxError:  # a string that is not code
                continue
        decorators = [d.func if isinstance(d, ast.Call) else d for d in getattr(node, "decorator_list", ())]
        is_task = any(getattr(d, "id", getattr(d, "attr", None)) == "task" for d in decorators)
        docstring = ast.get_docstring(node, clean=True) if isinstance(node, ast.FunctionDef) else None
        if is_task and docstring:
            statement = " ".join(line.strip() for line in inspect.cleandoc(docstring).splitlines() if line.strip())
            yield node.name, statement, node.body[0].lineno


def python_of(cell_source):
    """A code cell's source with its shell lines (``!...``, ``%...``) blanked: Python that ``ast`` reads."""
    lines = cell_source.splitlines()
    return "\n".join("" if line.lstrip().startswith(("%", "!")) else line for line in lines)


def notebook_messages():
    """(message, (notebook, code cell number), comments) for each ``_("...")`` / ``N_("...")`` in the
    code cells of the English notebooks, what they print and draw, and for the statement of each task
    they define (``task_statements``): the Chinese notebooks' docstring of it is its translation. The Chinese notebooks run the
    same cells (tests/test_editions.py), so one catalogue serves both; the place is the notebook
    and the number of its code cell, counted from 1."""
    for path in sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb")):
        cells = [c for c in json.loads(path.read_text(encoding="utf-8"))["cells"] if c["cell_type"] == "code"]
        for number, cell in enumerate(cells, 1):
            source = python_of("".join(cell["source"]))
            found = extract_from(
                "python", io.BytesIO(source.encode("utf-8")), keywords=KEYWORDS, comment_tags=("TRANSLATORS:",)
            )
            for _lineno, message, comments, _context in found:
                yield message, (path.relative_to(ROOT).as_posix(), number), comments
            for name, statement, _lineno in task_statements(source):
                yield statement, (path.relative_to(ROOT).as_posix(), number), [f"the statement of the task {name}"]


def po_path(language):
    return LOCALES / language / "LC_MESSAGES" / f"{DOMAIN}.po"


def read(language):
    with open(po_path(language), "rb") as file:
        return read_po(file, locale=language, domain=DOMAIN)


def update():
    template = extract()
    for language in LANGUAGES:
        path = po_path(language)
        path.parent.mkdir(parents=True, exist_ok=True)
        catalog = read(language) if path.exists() else Catalog(locale=language, domain=DOMAIN, project="handmade")
        created = catalog.creation_date
        catalog.update(template, no_fuzzy_matching=True)
        catalog.creation_date = created  # the header changes only when the messages do
        catalog.obsolete.clear()
        tidy_header(catalog, language)
        with open(path, "wb") as file:
            write_po(file, catalog, width=0, sort_output=False, omit_header=False, include_previous=False)
        print(f"{path.relative_to(ROOT)}: {len(catalog)} messages, {len(untranslated(catalog))} to translate")


HEADER = """# {name} translations of the messages of handmade: what the package and the notebooks print and draw.
# This file is distributed under the same licence as the handmade project (MIT).
# The terms translators follow: handmade/locale/GLOSSARY.md"""
NAMES = {"zh": "Chinese (Simplified)"}


def tidy_header(catalog, language):
    """The header says what this project is, not Babel's template: no "#, fuzzy" (which would make
    gettext tools skip the header), no YEAR-MO-DA, FIRST AUTHOR, EMAIL@ADDRESS or VERSION."""
    catalog.header_comment = HEADER.format(name=NAMES.get(language, language))
    catalog.fuzzy = False
    catalog.project, catalog.version = "handmade", project_version()
    catalog.copyright_holder = "the handmade authors"
    catalog.msgid_bugs_address = "https://github.com/handmade-course/handmade/issues"
    catalog.last_translator = "handmade translators"
    catalog.language_team = NAMES.get(language, language)
    catalog.revision_date = catalog.creation_date  # changes only when the messages do, as the creation date


def project_version():
    found = re.search(r'^version = "([^"]+)"', (ROOT / "pyproject.toml").read_text(encoding="utf-8"), re.M)
    return found[1] if found else "0"


def mo_bytes(catalog):
    out = io.BytesIO()
    write_mo(out, catalog, use_fuzzy=False)
    return out.getvalue()


def mo_messages(data):
    """What a compiled catalogue says: {msgid (or (singular, n)): translation}, whichever babel wrote it
    (its header names babel's version: that line left out)."""
    messages = dict(gettext.GNUTranslations(io.BytesIO(data))._catalog)
    messages[""] = re.sub(r"^Generated-By: .*\n", "", messages.get("", ""), flags=re.M)
    return messages


def compile_all():
    for language in LANGUAGES:
        path = po_path(language).with_suffix(".mo")
        path.write_bytes(mo_bytes(read(language)))
        print(f"wrote {path.relative_to(ROOT)}")


def untranslated(catalog):
    return [m.id for m in catalog if m.id and (not strings(m.string) or m.fuzzy)]


def strings(string):
    """The translation(s) of a message: one string, or one per plural form; empty ones left out."""
    return [s for s in (string if isinstance(string, (tuple, list)) else [string]) if s]


def placeholders(text):
    return sorted(set(re.findall(r"\{(\w*)[^{}]*\}", text)))


def problems(language):
    """Sentences of the code that the catalogue of ``language`` does not translate properly."""
    catalog, found = read(language), []
    wanted = {m.id if isinstance(m.id, str) else m.id[0] for m in extract() if m.id}
    have = {m.id if isinstance(m.id, str) else m.id[0]: m for m in catalog if m.id}
    for msgid in sorted(wanted):
        message = have.get(msgid)
        if message is None or not strings(message.string) or message.fuzzy:
            found.append(f"no translation: {msgid!r}")
            continue
        ids = message.id if isinstance(message.id, (tuple, list)) else (message.id,)
        for translation in strings(message.string):
            if placeholders(translation) != placeholders(ids[0]):
                found.append(f"placeholders differ: {msgid!r} -> {translation!r}")
    stale = mo_messages(mo_bytes(catalog)) != mo_messages(po_path(language).with_suffix(".mo").read_bytes())
    if stale:
        found.append(
            f"{po_path(language).with_suffix('.mo').relative_to(ROOT)} does not say what its .po says: compile it"
        )
    return found


if __name__ == "__main__":
    command = sys.argv[1] if len(sys.argv) > 1 else "check"
    if command == "update":
        update()
    elif command == "compile":
        compile_all()
    elif command == "check":
        issues = [f"{language}: {p}" for language in LANGUAGES for p in problems(language)]
        print("\n".join(issues) or "every message is translated")
        sys.exit(1 if issues else 0)
    else:
        sys.exit(f"unknown command {command!r}: use update, compile or check")
