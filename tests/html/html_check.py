#!/usr/bin/python3
"""Checks gpuplan's HTML report in a real browser (Debian's chromium, headless,
with no network) and as a file.

  html_check.py GPUPLAN SRC WORK NAME CHART SERIES POINTS MAX_PAGES ARGS...
      (CHART "-" with SERIES 0: a report without a chart, its tables checked; a chart of
      stacked bars: SERIES groups, POINTS the bar segments in all)

runs `gpuplan ARGS -o WORK/NAME.html` from SRC and checks:
  - the file is self-contained: no script, no stylesheet or image from
    elsewhere, no URL but the SVG namespace;
  - chromium loads it with no console message of level warning or error;
  - the DOM chromium builds holds the chart CHART (svg[data-chart]) with SERIES
    polylines of POINTS points each;
  - printed to PDF (A4) it takes at most MAX_PAGES pages, and where the page
    holds Chinese text the PDF embeds a CJK font (fonts-noto-cjk) to draw it;
  - a screenshot is written (WORK/NAME.png; doc/ keeps one for the manual).
"""
import os, re, shutil, subprocess, sys


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def chromium(work, *args):
    """Headless chromium, its own profile, no network (a proxy that does not exist)."""
    profile = os.path.join(work, "chromium-profile")
    shutil.rmtree(profile, ignore_errors=True)
    cmd = ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
           "--user-data-dir=" + profile, "--proxy-server=127.0.0.1:9", "--proxy-bypass-list=<-loopback>",
           "--enable-logging=stderr", "--v=0"] + list(args)
    p = subprocess.run(cmd, capture_output=True, timeout=180)
    return p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def main():
    gpuplan, src, work, name, chart, series, points, max_pages = sys.argv[1:9]
    args = sys.argv[9:]
    if shutil.which("chromium") is None:
        fail("chromium is not installed (.ci/install-deps --test installs it)")
    os.makedirs(work, exist_ok=True)
    page = os.path.join(work, name + ".html")
    env = dict(os.environ, GPUPLAN_TODAY="2026-12-02", LC_ALL="C.UTF-8", NO_COLOR="1")
    p = subprocess.run([gpuplan] + args + ["-o", page], cwd=src, env=env, capture_output=True)
    if p.returncode != 0:
        fail("gpuplan exited %d: %s" % (p.returncode, p.stderr.decode()))
    html = open(page, encoding="utf-8").read()
    if "--lang" in args and args[args.index("--lang") + 1] == "zh":
        if not re.search(r"[\u4e00-\u9fff]", html) or '<html lang="zh-CN">' not in html:
            fail("--lang zh: the page is not Chinese (no CJK text or no lang=\"zh-CN\")")
    if re.search(r"<script|<link|<img|<iframe|@import|url\(", html, re.I):
        fail("the page loads something: a script, stylesheet, image or url()")
    urls = set(re.findall(r"https?://[^\s\"'<>)]+", html))
    outside = {u for u in urls if u != "http://www.w3.org/2000/svg"}
    # Sources quoted in the notes are text, not links: none may be an attribute the browser follows.
    if re.search(r"(?:src|href)=\"https?:", html):
        fail("the page links out: %s" % sorted(outside)[:3])
    url = "file://" + os.path.abspath(page)
    dom, log = chromium(work, "--dump-dom", url)
    console = [l for l in log.splitlines() if "CONSOLE" in l or "Uncaught" in l]
    if console:
        fail("console messages: %s" % console[:3])
    if "<table" not in dom:
        fail("no table in the page chromium built")
    svg = re.search(r'<svg[^>]*data-chart="%s".*?</svg>' % re.escape(chart), dom, re.S)
    if chart != "-" and not svg:
        fail("no chart %s in the page chromium built" % chart)
    lines = re.findall(r'<polyline[^>]*points="([^"]*)"', svg.group(0)) if svg else []
    groups = re.findall(r'<g class="series"[^>]*>(.*?)</g>', svg.group(0), re.S) if svg else []
    if groups:  # stacked bars: a group a series, POINTS the bars' segments in all
        lines = groups
        segments = sum(len(re.findall(r"<rect", g)) for g in groups)
        if segments != int(points.split(",")[0]):
            fail("chart %s: %d bar segments, expected %s" % (chart, segments, points))
    if len(lines) != int(series):
        fail("chart %s: %d series, expected %s" % (chart, len(lines), series))
    # POINTS: one count for every series, or one a series ("57,1": a frontier and its recommendation).
    wanted = [int(p) for p in points.split(",")]
    for i, l in enumerate(lines if not groups else []):
        want = wanted[i] if len(wanted) > 1 else wanted[0]
        if len(l.split()) != want:
            fail("chart %s: series %d has %d points, expected %d" % (chart, i, len(l.split()), want))
    pdf = os.path.join(work, name + ".pdf")
    chromium(work, "--no-pdf-header-footer", "--print-to-pdf=" + pdf, url)
    data = open(pdf, "rb").read() if os.path.exists(pdf) else b""
    pages = len(re.findall(rb"/Type\s*/Page[^s]", data))
    if not 1 <= pages <= int(max_pages):
        fail("printed to %d pages, expected 1 to %s" % (pages, max_pages))
    fonts = set(re.findall(rb"/(?:BaseFont|FontName)\s*/[A-Z]{6}\+([A-Za-z0-9-]+)", data))
    if re.search(r"[\u4e00-\u9fff]", html) and not any(b"CJK" in f for f in fonts):
        fail("the page holds Chinese text but the PDF embeds no CJK font (fonts-noto-cjk): %s" % sorted(fonts))
    png = os.path.join(work, name + ".png")
    chromium(work, "--screenshot=" + png, "--window-size=1200,1500", url)
    if not os.path.exists(png) or os.path.getsize(png) < 10000:
        fail("no screenshot")
    print("%s: self-contained, no console messages, %d series of %s points in %s, %d A4 pages, fonts %s" %
          (name, len(lines), points, chart, pages, b", ".join(sorted(fonts)).decode()))


main()
