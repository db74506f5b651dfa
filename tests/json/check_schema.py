#!/usr/bin/python3
"""gpuplan's JSON output against its published schema, and its CSV header
against the JSON keys of the same table.

  check_schema.py GPUPLAN SRC SCHEMA.json [--rc N] ARGS...
Runs `gpuplan ARGS --format json` (with --rc, it must exit N: 3 or 4 paths are
checked like success) (from SRC, GPUPLAN_TODAY=2026-12-02), validates
it against SCHEMA (JSON Schema 2020-12), then runs `gpuplan ARGS --format csv`
and checks that some table of the JSON document has exactly the CSV's columns,
in order (CSV column names equal the JSON keys).
"""
import csv, io, json, os, subprocess, sys

import jsonschema


def run(gpuplan, src, args, rc=None):
    env = dict(os.environ, GPUPLAN_TODAY="2026-12-02", LC_ALL="C", NO_COLOR="1")
    p = subprocess.run([gpuplan] + args, cwd=src, env=env, capture_output=True)
    if p.returncode not in (0, 3, 4) or (rc is not None and p.returncode != rc):
        sys.exit("FAIL: gpuplan %s exited %d: %s" % (" ".join(args), p.returncode, p.stderr.decode()))
    return p.stdout.decode()


def main():
    gpuplan, src, schema_path = sys.argv[1:4]
    args = sys.argv[4:]
    rc = None
    if args[:1] == ["--rc"]:
        rc, args = int(args[1]), args[2:]
    schema = json.load(open(schema_path))
    jsonschema.Draft202012Validator.check_schema(schema)
    doc = json.loads(run(gpuplan, src, args + ["--format", "json"], rc))
    errors = sorted(jsonschema.Draft202012Validator(schema).iter_errors(doc), key=lambda e: list(e.path))
    for e in errors[:10]:
        print("FAIL: %s: %s" % ("/".join(str(p) for p in e.path), e.message))
    if errors:
        sys.exit(1)
    rows = list(csv.reader(io.StringIO(run(gpuplan, src, args + ["--format", "csv"], rc))))
    header = rows[0] if rows else []
    tables = {k: v for k, v in doc.items() if isinstance(v, list) and v and isinstance(v[0], dict)}
    if header and not any(list(v[0].keys()) == header for v in tables.values()):
        sys.exit("FAIL: CSV columns %s are no table's JSON keys (%s)" % (header, {k: list(v[0].keys()) for k, v in tables.items()}))
    print("valid against %s; CSV columns = JSON keys" % os.path.basename(schema_path))


main()
