#!/usr/bin/env python3
"""Fills a text form: python scripts/fill_fields.py form.txt values.json filled.txt"""

import sys

from form_common import fields_of, fill, load_values, read_text, usage, write_text


def main(argv):
    source, values_path, target = usage(argv, ["FORM.txt", "VALUES.json", "FILLED.txt"])
    form = read_text(source)
    values = load_values(values_path, [f["name"] for f in fields_of(form)])
    write_text(target, fill(form, values))
    print(f"filled {len(values)} fields into {target}")


if __name__ == "__main__":
    main(sys.argv)
