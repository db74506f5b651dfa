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
  xlsx_check.py GPUPLAN SRC WORK NAME edit-all ARGS...
      every input cell of a compare workbook, one at a time: moved to a new value
      within its data validation and recalculated, the totals equal gpuplan's with
      the --set the workbook names beside it (column E); the horizon is locked
  xlsx_check.py GPUPLAN SRC WORK NAME chart ARGS...
      a compare workbook's Summary holds one native line chart whose series are
      the Cash flow sheet's cumulative columns (formulas, one per option of
      `gpuplan ARGS --format json`), their cached points gpuplan's values; after
      a LibreOffice round trip (recalculating) the chart is still there, same ranges
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
    return recalculate_many([xlsx], work, name)[xlsx]


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
        out[r[0]] = (as_number(r[2]), as_number(r[3]), as_number(r[12]) if len(r) > 12 and r[12] else None)
    return out


def check_estimate(sheets, doc, edited=False):
    """The Costs rows (matched by offer and mode) and the wall time against `estimate --format json`.
    After an edit, spot rows are left out: their stretch for reclaims is a fixed factor in the
    workbook (Daly's model on each offer's own shape), which gpuplan recomputes for the new inputs."""
    rows = sheets["Costs"]
    head = rows[0]
    total_col = next(i for i, h in enumerate(head) if h.startswith("total"))
    got = {(r[0], r[3]): as_number(r[total_col]) for r in rows[1:] if r and r[0]}
    cur = "total"
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


def recalc_profile(work, name):
    """A fresh LibreOffice user profile that recalculates every formula on load."""
    profile = os.path.join(work, name + "-profile")
    shutil.rmtree(profile, ignore_errors=True)
    os.makedirs(os.path.join(profile, "user"))
    with open(os.path.join(profile, "user", "registrymodifications.xcu"), "w") as f:
        f.write(RECALC_PROFILE)
    return profile


def recalculate_many(paths, work, name):
    """Like recalculate() for several workbooks in one LibreOffice start: {path: {sheet: rows}}."""
    profile = recalc_profile(work, name)
    out = os.path.join(work, name + "-csv")
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    subprocess.run(["soffice", "-env:UserInstallation=file://" + profile, "--headless", "--convert-to",
                    "csv:Text - txt - csv (StarCalc):44,34,76,1,,0,false,true,false,false,false,-1",
                    "--outdir", out] + paths, capture_output=True, timeout=900)
    result = {}
    for path in paths:
        base = os.path.splitext(os.path.basename(path))[0]
        sheets = {}
        for f in sorted(os.listdir(out)):
            if f.startswith(base + "-") and f.endswith(".csv"):
                with open(os.path.join(out, f), newline="", encoding="utf-8") as h:
                    sheets[f[len(base) + 1:-4]] = list(csv.reader(h))
        if not sheets:
            fail("LibreOffice wrote nothing for " + path)
        result[path] = sheets
    return result


# Inputs whose setting is not "key={}": what gpuplan is told for each cell value.
FLAG_SETTINGS = {
    "cover_by_renting": lambda v, cells: (["buy.lead_time_cover=rent"] if v == 1 else
                                          ["buy.lead_time_cover=delay_cost",
                                           "buy.delay_cost_per_month=%r" % cells["delay_cost_per_month"]]),
    "h_auto_release": lambda v, cells: ["rent.hourly.auto_release=%s" % ("true" if v == 1 else "false")],
    "resale_mode": lambda v, cells: ({0: [], 1: ["buy.resale_value=%r" % cells["resale_value"]],
                                      2: ["buy.resale_amount=%r" % cells["resale_amount"]]}[int(v)]),
    "financing": lambda v, cells: ["buy.financing=%s" % ("cash", "loan", "lease")[int(v)]],
    "vat_recoverable": lambda v, cells: ["tax.vat_recoverable=%s" % ("true" if v == 1 else "false")],
    "operations_in_house": lambda v, cells: ["tax.operations_in_house=%s" % ("true" if v == 1 else "false")],
}


# Inputs that only count when another cell says so: edited while inactive,
# they must change nothing (gpuplan gets no --set).
ACTIVE_WHEN = {
    "resale_value": lambda cells: cells.get("resale_mode") == 1,
    "resale_amount": lambda cells: cells.get("resale_mode") == 2,
    "delay_cost_per_month": lambda cells: cells.get("cover_by_renting") == 0,
    "m_upfront": lambda cells: cells.get("m_commitment_months", 0) > 0,
}


def new_value(name, value, whole, percent, lo, hi):
    """A different value within the cell's validation."""
    if name in FLAG_SETTINGS:
        # resale_mode 0 → 1 → 2 → 1: leaving an override for depreciation has no --set (a key cannot be unset)
        if name in ("resale_mode", "financing"):
            return {0: 1, 1: 2, 2: 1}[int(value)]
        return 1 - value
    if name.endswith("commitment_months"):
        return value + 12
    if whole:
        v = value - 1 if name == "gpus" else value + 1
    elif percent:
        v = round(value * 0.9, 6) if value > 0.05 else round(value + 0.1, 6)
    else:
        v = round(value * 1.1, 6) if value != 0 else 0.5
    if lo is not None and v < lo or hi is not None and v > hi:
        v = round((lo + hi) / 2, 6) if lo is not None and hi is not None else value + 1
    return v


def edit_all(gpuplan, src, work, name, args, xlsx):
    wb = openpyxl.load_workbook(xlsx)
    ws = wb["Assumptions"]
    named = {}
    for dn in wb.defined_names.definedName:  # openpyxl 3.0 (Debian 12)
        for sheet, coord in dn.destinations:
            if sheet == "Assumptions":
                named[coord.replace("$", "")] = dn.name
    rules = {}
    for dv in ws.data_validations.dataValidation:
        for rng in dv.sqref.ranges:
            f1 = float(dv.formula1) if dv.formula1 is not None else None
            f2 = float(dv.formula2) if dv.formula2 is not None else None
            lo, hi = (f1, f2) if dv.operator == "between" else ((f1, None) if dv.operator == "greaterThanOrEqual" else (None, f1))
            rules[rng.coord] = (dv.type == "whole", lo, hi)
    cells = {n: ws[c].value for c, n in named.items()}
    # The horizon is locked: its validation allows only its own value.
    horizon = next(r for r in ws.iter_rows() if r[0].value == "horizon (rows of Cash flow)")
    whole, lo, hi = rules.get(horizon[1].coordinate, (None, None, None))
    if not (whole and lo == hi == horizon[1].value):
        fail("the horizon cell is not locked to %r by validation" % horizon[1].value)
    cases = []
    for row in ws.iter_rows(min_row=5):
        b, e = row[1], row[4] if len(row) > 4 else None
        n = named.get(b.coordinate)
        if n is None or n == "horizon_months" or e is None or not e.value or b.data_type == "f" or isinstance(b.value, str):
            continue
        if b.coordinate not in rules:
            fail("input %s (%s) has no data validation" % (n, b.coordinate))
        whole, lo, hi = rules[b.coordinate]
        v = new_value(n, b.value, whole, "%" in (b.number_format or ""), lo, hi)
        if n in ACTIVE_WHEN and not ACTIVE_WHEN[n](cells):
            sets = []
        elif n in FLAG_SETTINGS:
            sets = FLAG_SETTINGS[n](v, cells)
        else:
            template = e.value.split(" (")[0]
            sets = [template.replace("{}", ("%.10g" % v))]
        edited = os.path.join(work, "%s-%s.xlsx" % (name, n))
        wb2 = openpyxl.load_workbook(xlsx)
        wb2["Assumptions"][b.coordinate].value = v
        wb2.save(edited)
        cases.append((n, v, sets, edited))
    if len(cases) < 20:
        fail("only %d input cells found" % len(cases))
    recalculated = recalculate_many([c[3] for c in cases], work, name)
    for n, v, sets, edited in cases:
        extra = []
        for st in sets:
            extra += ["--set", st]
        doc = json.loads(run_gpuplan(gpuplan, src, args + extra + ["--format", "json"]))
        print("%s = %r  <->  %s" % (n, v, " ".join("--set " + x for x in sets) or "(inactive: no change)"))
        check_totals(recalculated[edited], doc, edited=True)
    print("%d input cells: each edit recalculates to gpuplan's totals with its --set" % len(cases))


def check_serve(sheets, doc):
    """Each rental row's month in the (edited, recalculated) Offers sheet equals
    gpuplan's at the same inputs, matched by offer and mode (owned rows carry
    compare's month as a value)."""
    rows = sheets["Offers"]
    head = rows[0]
    col = next(i for i, h in enumerate(head) if h.endswith(" a month"))
    theirs = {(o["offer"], o["mode"]): o["monthly"] for o in doc["offers"] if o["monthly"] is not None}
    matched = 0
    for r in rows[1:]:
        if len(r) <= col or r[2] == "own" or (r[0], r[2]) not in theirs:
            continue
        mine = as_number(r[col])
        if mine is None or abs(mine - float(theirs[(r[0], r[2])])) > 0.01:
            fail("%s %s month: spreadsheet %s, gpuplan %s" % (r[0], r[2], r[col], theirs[(r[0], r[2])]))
        matched += 1
    if matched == 0:
        fail("no rental row of the workbook matches gpuplan's")
    print("the months of %d rental rows equal gpuplan's to the cent" % matched)


def check_totals(sheets, doc, edited=False):
    if "Hours" in sheets:
        return check_serve(sheets, doc)
    if "Costs" in sheets:
        return check_estimate(sheets, doc, edited)
    got = summary_totals(sheets)
    for o in doc["options"]:
        total, npv, vat = got.get(o["option"], (None, None, None))
        if vat is None or abs(vat - float(o["vat"])) > 0.005:
            fail("%s VAT: spreadsheet %s, gpuplan %s" % (o["option"], vat, o["vat"]))
        for what, mine, theirs in (("total", total, o["total"]),
                                   ("NPV", npv, o["npv"])):
            if mine is None or abs(mine - float(theirs)) > 0.005:
                fail("%s %s: spreadsheet %s, gpuplan %s" % (o["option"], what, mine, theirs))
    print("totals and NPVs of %d options equal gpuplan's to the cent" % len(doc["options"]))


def chart_ranges(path):
    """{sheet: [(name ref, categories ref, values ref, cached values)]} of every chart openpyxl reads."""
    wb = openpyxl.load_workbook(path)
    out = {}
    for ws in wb.worksheets:
        for ch in ws._charts:
            out.setdefault(ws.title, []).extend(
                (s.tx.strRef.f, (s.cat.numRef or s.cat.strRef).f, s.val.numRef.f,
                 [p.v for p in s.val.numRef.numCache.pt] if s.val.numRef.numCache else [])
                for s in ch.series)
    return out


def check_chart(gpuplan, src, work, name, args, xlsx):
    doc = json.loads(run_gpuplan(gpuplan, src, args + ["--format", "json"]))
    options = [o["option"] for o in doc["options"]]
    charts = chart_ranges(xlsx)
    if list(charts) != ["Summary"] or len(charts["Summary"]) != len(options):
        fail("expected one series per option (%d) on Summary, found %r" % (len(options), charts))
    formulas = openpyxl.load_workbook(xlsx)["Cash flow"]
    cached = openpyxl.load_workbook(xlsx, data_only=True)["Cash flow"]
    horizon = int(doc["inputs"]["horizon_months"])
    for (name_ref, cat_ref, val_ref, points), option in zip(charts["Summary"], options):
        col = val_ref.split("!")[1].split(":")[0].replace("$", "").rstrip("0123456789")
        if val_ref != "'Cash flow'!$%s$2:$%s$%d" % (col, col, horizon + 2):
            fail("%s: values %s are not the Cash flow rows of months 0..%d" % (option, val_ref, horizon))
        if cat_ref != "'Cash flow'!$A$2:$A$%d" % (horizon + 2):
            fail("%s: categories %s are not the months" % (option, cat_ref))
        head = formulas[col + "1"].value
        if head != "cumulative %s (discounted)" % option:
            fail("%s: column %s is %r, not its cumulative cost" % (option, col, head))
        if formulas[name_ref.split("!")[1].replace("$", "")].value != option:
            fail("%s: the series name %s is not the option" % (option, name_ref))
        for m in range(horizon + 1):
            cell = "%s%d" % (col, m + 2)
            if not str(formulas[cell].value).startswith("="):
                fail("%s: Cash flow!%s is not a formula" % (option, cell))
            if abs(float(points[m]) - cached[cell].value) > 0.005:
                fail("%s: month %d cached %s in the chart, %s in the cell" % (option, m, points[m], cached[cell].value))
    # LibreOffice opens it, recalculates and writes it back with the chart and its ranges.
    profile = recalc_profile(work, name)
    out = os.path.join(work, name + "-lo")
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    subprocess.run(["soffice", "-env:UserInstallation=file://" + profile, "--headless", "--convert-to", "xlsx",
                    "--outdir", out, xlsx], capture_output=True, timeout=900)
    again = chart_ranges(os.path.join(out, os.path.basename(xlsx)))
    if [r[1:3] for r in again.get("Summary", [])] != [r[1:3] for r in charts["Summary"]]:
        fail("after LibreOffice the chart's ranges are %r" % again)
    print("chart: %d options, %d months each, from the Cash flow formulas; LibreOffice keeps it" %
          (len(options), horizon + 1))


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
    elif mode == "edit-all":
        edit_all(gpuplan, src, work, name, args, xlsx)
    elif mode == "chart":
        check_chart(gpuplan, src, work, name, args, xlsx)
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
