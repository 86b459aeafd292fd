#!/usr/bin/python3
"""Validate JSON Lines traces against schemas/record.schema.json (draft
2020-12).  Usage: validate.py SCHEMADIR FILE...  Prints one line per bad
record and exits 1 if there was any."""
import json
import pathlib
import sys

import jsonschema

schemadir = pathlib.Path(sys.argv[1])
store = {}
for p in schemadir.glob("*.json"):
    s = json.loads(p.read_text())
    store[s.get("$id", p.name)] = s
    store[p.name] = s
root = json.loads((schemadir / "record.schema.json").read_text())
resolver = jsonschema.RefResolver(base_uri=root.get("$id", ""), referrer=root, store=store)
validator = jsonschema.Draft202012Validator(root, resolver=resolver)
bad = 0
for name in sys.argv[2:]:
    with open(name, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.endswith("\n"):
                continue  # a torn last line is not a record
            try:
                rec = json.loads(line)
            except ValueError as e:
                print(f"{name}:{n}: not JSON: {e}")
                bad += 1
                continue
            event = rec.get("event") if isinstance(rec, dict) else None
            for err in validator.iter_errors(rec):
                print(f"{name}:{n}: {event}: {'/'.join(map(str, err.path))}: {err.message}")
                bad += 1
                break
sys.exit(1 if bad else 0)
