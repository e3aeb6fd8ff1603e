"""What the form-fill scripts share: the field syntax, JSON files, errors.

A text form marks each blank as [[name]] (a letter, then letters, digits or
_); the text before it on its line, back to the previous blank, is its label.
Imported by the scripts beside it (`from form_common import ...`): Python puts
the running script's folder first on sys.path, so nothing needs installing.
"""

import json
import re
import sys

FIELD = re.compile(r"\[\[([A-Za-z][A-Za-z0-9_]{0,63})\]\]")
MAX_FORM_BYTES = 1024 * 1024


def fail(message, status=2):
    """Print one error line on stderr and exit."""
    print(f"error: {message}", file=sys.stderr)
    sys.exit(status)


def usage(argv, params):
    """The positional arguments after the script name, or exit 2 with a usage line."""
    if len(argv) != len(params) + 1:
        fail(f"usage: python {argv[0]} {' '.join(params)}")
    return argv[1:]


def read_text(path):
    """The UTF-8 text of `path`, or exit 1 saying why it cannot be read."""
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_FORM_BYTES + 1)
    except FileNotFoundError:
        fail(f"{path} does not exist; put the form in the current directory", 1)
    except IsADirectoryError:
        fail(f"{path} is a folder, not a form", 1)
    if len(data) > MAX_FORM_BYTES:
        fail(f"{path} is larger than {MAX_FORM_BYTES} bytes; is it really a text form?", 1)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        fail(f"{path} is not UTF-8 text; this skill fills plain-text forms only", 1)


def _label(text):
    return text.strip().rstrip(":").strip()


def fields_of(text):
    """Every field of a form, once each, in reading order: name, label, line (1-based)."""
    out, seen = [], set()
    for number, line in enumerate(text.splitlines(), start=1):
        start = 0
        for match in FIELD.finditer(line):
            name = match.group(1)
            if name not in seen:
                seen.add(name)
                out.append({"name": name, "label": _label(line[start : match.start()]), "line": number})
            start = match.end()
    return out


def load_values(path, known):
    """The object in `path` (field name -> one line of text), or exit 2 naming what is wrong."""
    try:
        with open(path, encoding="utf-8") as f:
            values = json.load(f)
    except FileNotFoundError:
        fail(f"{path} does not exist; write it first (see SKILL.md step 2)")
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        fail(f"{path} is not valid JSON ({err})")
    if not isinstance(values, dict):
        fail(f"{path} must hold one JSON object of field name to text")
    unknown = sorted(set(values) - set(known))
    if unknown:
        fail(f"no such fields: {', '.join(unknown)} (fields: {', '.join(known) or 'none'})")
    bad = sorted(
        k
        for k, v in values.items()
        if not isinstance(v, str) or "\n" in v or "\r" in v or "[[" in v or "]]" in v
    )
    if bad:
        fail(f"values must be one line of text without [[ or ]]; not so for: {', '.join(bad)}")
    return values


def write_text(path, text):
    try:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    except OSError as err:
        fail(f"cannot write {path} ({err.strerror})", 1)


def write_json(path, data):
    write_text(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def fill(text, values):
    """The form with every field that has a value filled in; the others left as [[name]]."""
    return FIELD.sub(lambda m: values.get(m.group(1), m.group(0)), text)


def values_in(form, filled):
    """Field name -> the value `filled` holds where `form` has the field ('' when still blank)."""
    form_lines, filled_lines = form.splitlines(), filled.splitlines()
    if len(form_lines) != len(filled_lines):
        fail("the filled file does not have the form's lines; was it made from this form?", 1)
    found = {}
    for number, (line, done) in enumerate(zip(form_lines, filled_lines), start=1):
        names = FIELD.findall(line)
        if not names:
            continue
        parts = FIELD.split(line)[::2]  # the text around the fields
        pattern = "(.*?)".join(re.escape(p) for p in parts)
        match = re.fullmatch(pattern, done)
        if match is None:
            fail(f"line {number} of the filled file does not match the form", 1)
        for name, value in zip(names, match.groups()):
            found.setdefault(name, "" if value == f"[[{name}]]" else value)
    return found
