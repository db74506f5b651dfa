#!/usr/bin/python3
"""Checks gpuplan's workbooks in a real spreadsheet program (LibreOffice,
headless, recalculating on load) and with openpyxl.

  xlsx_check.py GPUPLAN SRC WORK NAME cached  ARGS...
      every value LibreOffice recalculates equals the value gpuplan cached
  xlsx_check.py GPUPLAN SRC WORK NAME totals  ARGS...
      the recalculated Summary totals and NPVs equal `gpuplan ARGS --format json` to the cent
  xlsx_check.py GPUPLAN SRC WORK NAME edit CELLNAME VALUE SETARG ARGS...
      after setting the named assumption cell to VALUE (openpyxl) and recalculating,
      the totals equal `gpuplan ARGS --set SETARG --format json` to the cent
ARGS run from SRC with GPUPLAN_TODAY=2026-12-02; NAME names the work files.
"""
import csv, datetime, json, math, os, shutil, subprocess, sys

import openpyxl

RECALC_PROFILE = """<?xml version="1.0" encoding="UTF-8"?>
<oor:items xmlns:oor="http://openoffice.org/2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
<item oor:path="/org.openoffice.Office.Calc/Formula/Load"><prop oor:name="OOXMLRecalcMode" oor:op="fuse"><value>0</value></prop></item>
<item oor:path="/org.openoffice.Office.Calc/Formula/Load"><prop oor:name="ODFRecalcMode" oor:op="fuse"><value>0</value></prop></item>
</oor:items>
"""


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def run_gpuplan(gpuplan, src, args):
    env = dict(os.environ, GPUPLAN_TODAY="2026-12-02", LC_ALL="C", NO_COLOR="1")
    p = subprocess.run([gpuplan] + args, cwd=src, env=env, capture_output=True)
    if p.returncode not in (0, 4):  # 4: plan found nothing feasible, and still reports (and writes) it
        fail("gpuplan %s exited %d: %s" % (" ".join(args), p.returncode, p.stderr.decode()))
    return p.stdout


def recalculate(xlsx, work, name):
    """LibreOffice opens the workbook, recalculates every formula (the profile
    says so: by default it trusts the cached values of OOXML files) and writes
    each sheet as CSV. Returns {sheet: rows}."""
    profile = os.path.join(work, name + "-profile")
    shutil.rmtree(profile, ignore_errors=True)
    os.makedirs(os.path.join(profile, "user"))
    with open(os.path.join(profile, "user", "registrymodifications.xcu"), "w") as f:
        f.write(RECALC_PROFILE)
    out = os.path.join(work, name + "-csv")
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    p = subprocess.run(["soffice", "-env:UserInstallation=file://" + profile, "--headless", "--convert-to",
                        "csv:Text - txt - csv (StarCalc):44,34,76,1,,0,false,true,false,false,false,-1",
                        "--outdir", out, xlsx], capture_output=True, timeout=300)
    base = os.path.splitext(os.path.basename(xlsx))[0]
    sheets = {}
    for f in sorted(os.listdir(out)):
        if f.startswith(base + "-") and f.endswith(".csv"):
            with open(os.path.join(out, f), newline="", encoding="utf-8") as h:
                sheets[f[len(base) + 1:-4]] = list(csv.reader(h))
    if not sheets:
        fail("LibreOffice wrote nothing: %s %s" % (p.stdout.decode(), p.stderr.decode()))
    return sheets


def as_number(text):
    t = text.strip()
    try:
        if t.endswith("%"):
            return float(t[:-1]) / 100
        return float(t)
    except ValueError:
        return None


def summary_totals(sheets):
    rows = sheets["Summary"]
    header = next(i for i, r in enumerate(rows) if r and r[0] == "option")
    out = {}
    for r in rows[header + 1:]:
        if not r or not r[0]:
            break
        out[r[0]] = (as_number(r[2]), as_number(r[3]))
    return out


def check_estimate(sheets, doc, edited=False):
    """The Costs rows (matched by offer and mode) and the wall time against `estimate --format json`.
    After an edit, spot rows are left out: their stretch for reclaims is a fixed factor in the
    workbook (Daly's model on each offer's own shape), which gpuplan recomputes for the new inputs."""
    rows = sheets["Costs"]
    head = rows[0]
    total_col = next(i for i, h in enumerate(head) if h.startswith("total"))
    got = {(r[0], r[3]): as_number(r[total_col]) for r in rows[1:] if r and r[0]}
    cur = [k for k in doc["costs"][0] if k.startswith("total_")][0] if doc["costs"] else None
    priced = [c for c in doc["costs"] if c[cur] is not None]  # offers that cannot run the job have no price
    if edited:
        priced = [c for c in priced if c["mode"] != "spot"]
    for c in priced:
        mine = got.get((c["offer"], c["mode"]))
        if mine is None or abs(mine - float(c[cur])) > 0.005:
            fail("%s %s: spreadsheet %s, gpuplan %s" % (c["offer"], c["mode"], mine, c[cur]))
    wall = next(as_number(r[1]) for r in sheets["Assumptions"] if r and r[0] == "wall time")
    if abs(wall - doc["estimate"]["wall_hours"]) > 1e-6 * doc["estimate"]["wall_hours"]:
        fail("wall time: spreadsheet %s, gpuplan %s" % (wall, doc["estimate"]["wall_hours"]))
    print("wall time and %d cost rows equal gpuplan's" % len(priced))


def check_totals(sheets, doc, edited=False):
    if "Costs" in sheets:
        return check_estimate(sheets, doc, edited)
    got = summary_totals(sheets)
    for o in doc["options"]:
        total, npv = got.get(o["option"], (None, None))
        for what, mine, theirs in (("total", total, o["total_cny" if "total_cny" in o else [k for k in o if k.startswith("total_")][0]]),
                                   ("NPV", npv, o[[k for k in o if k.startswith("npv_")][0]])):
            if mine is None or abs(mine - float(theirs)) > 0.005:
                fail("%s %s: spreadsheet %s, gpuplan %s" % (o["option"], what, mine, theirs))
    print("totals and NPVs of %d options equal gpuplan's to the cent" % len(doc["options"]))


def main():
    gpuplan, src, work, name, mode = sys.argv[1:6]
    rest = sys.argv[6:]
    os.makedirs(work, exist_ok=True)
    xlsx = os.path.join(work, name + ".xlsx")
    if mode == "edit":
        cell_name, value, set_arg, args = rest[0], rest[1], rest[2], rest[3:]
    else:
        args = rest
    run_gpuplan(gpuplan, src, args + ["--format", "xlsx", "-o", xlsx])
    if mode == "cached":
        cached = openpyxl.load_workbook(xlsx, data_only=True)
        sheets = recalculate(xlsx, work, name)
        checked = 0
        for ws in cached.worksheets:
            rows = sheets.get(ws.title)
            if rows is None:
                fail("LibreOffice lost sheet %s" % ws.title)
            for row in ws.iter_rows():
                for c in row:
                    if c.value is None:
                        continue
                    got = rows[c.row - 1][c.column - 1] if c.row - 1 < len(rows) and c.column - 1 < len(rows[c.row - 1]) else ""
                    if isinstance(c.value, datetime.datetime):
                        if c.value.strftime("%Y-%m-%d") != got:
                            fail("%s!%s: cached %s, recalculated %r" % (ws.title, c.coordinate, c.value, got))
                    elif isinstance(c.value, (int, float)):
                        g = as_number(got)
                        tol = max(1e-9 * abs(c.value), 0.005)
                        if g is None or not math.isfinite(g) or abs(g - c.value) > tol:
                            fail("%s!%s: cached %r, recalculated %r" % (ws.title, c.coordinate, c.value, got))
                    elif str(c.value) != got:
                        fail("%s!%s: cached %r, recalculated %r" % (ws.title, c.coordinate, c.value, got))
                    checked += 1
        print("%d cells: LibreOffice's recalculated values equal gpuplan's cached ones" % checked)
    elif mode == "totals":
        check_totals(recalculate(xlsx, work, name), json.loads(run_gpuplan(gpuplan, src, args + ["--format", "json"])))
    elif mode == "edit":
        wb = openpyxl.load_workbook(xlsx)
        dests = list(wb.defined_names[cell_name].destinations)
        if len(dests) != 1:
            fail("no single cell named %s" % cell_name)
        sheet, coord = dests[0]
        wb[sheet][coord.replace("$", "")].value = float(value)
        edited = os.path.join(work, name + "-edited.xlsx")
        wb.save(edited)  # openpyxl keeps the formulas and drops the cached values
        check_totals(recalculate(edited, work, name + "-edited"),
                     json.loads(run_gpuplan(gpuplan, src, args + ["--set", set_arg, "--format", "json"])), edited=True)
    else:
        fail("unknown mode " + mode)


main()
