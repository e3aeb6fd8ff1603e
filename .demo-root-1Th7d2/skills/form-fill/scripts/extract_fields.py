#!/usr/bin/env python3
"""Lists the fields of a text form as JSON: python scripts/extract_fields.py form.txt fields.json"""

import sys

from form_common import fields_of, read_text, usage, write_json


def main(argv):
    source, target = usage(argv, ["FORM.txt", "FIELDS.json"])
    fields = fields_of(read_text(source))
    if not fields:
        print(f"warning: {source} has no [[field]] blanks; there is nothing to fill")
    write_json(target, fields)
    print(f"{len(fields)} fields written to {target}")


if __name__ == "__main__":
    main(sys.argv)
