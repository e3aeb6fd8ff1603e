#!/usr/bin/env python3
"""Prints the value of every field of a filled form: python scripts/verify_fields.py form.txt filled.txt"""

import sys

from form_common import fields_of, read_text, usage, values_in


def main(argv):
    source, filled_path = usage(argv, ["FORM.txt", "FILLED.txt"])
    form = read_text(source)
    found = values_in(form, read_text(filled_path))
    fields = fields_of(form)
    filled = 0
    for field in fields:
        value = found.get(field["name"], "")
        filled += value != ""
        print(f"{field['name']}: {value if value != '' else '(empty)'}")
    print(f"{filled} of {len(fields)} fields filled")


if __name__ == "__main__":
    main(sys.argv)
