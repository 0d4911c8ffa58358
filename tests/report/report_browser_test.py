#!/usr/bin/env python3
"""The interactive report in a real browser: headless Chromium (Debian's chromium and
chromium-driver, driven by selenium; all installed by ./setup.sh).

    report_browser_test.py NGRAPHBENCH SOURCE_DIR OUT_DIR [--update-docs]

Makes three reports with `ngraphbench report --html-only`: the released traces
(resources/traces/results_raw.zip), a synthetic zip of 20,350 runs (bench/synthetic_results.py,
its rows copied from a row that `ngraphbench run tiny null` writes here, so in today's schema;
350 of them offline and server runs, find_peak's with their steps files), and those null runs
copied under compilers and a device named __proto__, constructor and toString, and at int8 in a
second tree.
Loads each page from its file and checks: no JavaScript error (uncaught errors and rejections the
page collects, and the browser's console errors), every figure drawn by Plotly, that a filter
changes what is drawn (only onnxruntime: the latency figure then holds onnxruntime's single-stream
runs and no other compiler's), the offline and server figures: drawn with data on the
synthetic page, absent from the released traces' (which hold no such run), and on the third page
each compiler's line in the latency figure and the accuracy view's int8 point and fp32 line (no
accuracy section on the released traces' page, which has no int8 run). Prints each page's size and load time (navigation
start to every view drawn), and writes screenshots into OUT_DIR/screenshots/. --update-docs
also writes docs/report.png, the released traces' report as the README shows it.
Exit 0 when every check passed, 1 otherwise: a missing chromium, chromium-driver or selenium is
a failure, not a skip.
"""

import argparse
import base64
import csv
import io
import os
import shutil
import subprocess
import sys
import time

CHROMIUM = os.environ.get("NGB_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("NGB_CHROMEDRIVER", "/usr/bin/chromedriver")
# Every figure the page always holds (fig-res-<column>: one more for each measured resource).
FIGURES = ("fig-latency", "fig-throughput", "fig-rtr", "fig-ase", "fig-speedup",
           "fig-depth-throughput", "fig-depth-speedup", "fig-ranking", "fig-profile",
           "fig-compile", "fig-first", "fig-dist")
# The offline and server section's figures: only on a page whose runs include such runs.
SCENARIO_FIGURES = ("fig-roads", "fig-latency-throughput", "fig-peak")
WIDTH, HEIGHT = 1400, 1000
failures = []


def check(ok, what):
    print(("ok:   " if ok else "FAIL: ") + what, flush=True)
    if not ok:
        failures.append(what)
    return ok


def run(argv, **kw):
    started = time.monotonic()
    done = subprocess.run(argv, capture_output=True, text=True, **kw)
    if done.returncode != 0:
        sys.stderr.write(done.stdout + done.stderr)
        raise SystemExit(f"FAIL: {' '.join(argv)} exited with {done.returncode}")
    return time.monotonic() - started


def make_reports(binary, source, out):
    """(released traces' report.html, synthetic report.html)"""
    traces = os.path.join(out, "traces")
    seconds = run([binary, "report", os.path.join(source, "resources/traces/results_raw.zip"),
                   "-o", traces, "--include-invalid", "--html-only"])
    print(f"released traces: ngraphbench report took {seconds:.1f} s")

    # A real row of today's schema, as the template of the synthetic rows.
    null = os.path.join(out, "null")
    os.makedirs(os.path.join(null, "configs"), exist_ok=True)
    with open(os.path.join(null, "configs", "experiments.yaml"), "w") as f:
        f.write("defaults:\n  batch_sizes: [1]\n  quick_batch_sizes: [1]\n  warmup: 1\n"
                "  repeats: 20\n  processes: 2\n  timeout_s: 60\n"
                "experiments:\n  tiny:\n    family: linear\n    widths: [8]\n")
    with open(os.path.join(null, "configs", "null.yaml"), "w") as f:
        f.write("options:\n  sleep_us: 20\n")
    run([binary, "run", "tiny", "null", "--quick", "--configs", os.path.join(null, "configs"),
         "--results", os.path.join(null, "results")])
    template = os.path.join(null, "results", "local", "null", "tiny_w8_b1.csv")
    synthetic_zip = os.path.join(out, "synthetic.zip")
    seconds = run([sys.executable, os.path.join(source, "bench", "synthetic_results.py"),
                   "--template", template, "-o", synthetic_zip])
    print(f"synthetic: 20,350 runs written in {seconds:.1f} s")
    synthetic = os.path.join(out, "synthetic")
    seconds = run([binary, "report", synthetic_zip, "-o", synthetic, "--html-only"])
    print(f"synthetic: ngraphbench report took {seconds:.1f} s")
    names = make_names_report(binary, os.path.join(null, "results", "local", "null"), out)
    return (os.path.join(traces, "report.html"), os.path.join(synthetic, "report.html"),
            os.path.join(names, "report.html"))


# Compilers and a device named like what every JavaScript object inherits.
NAMES = (("local", "null"), ("local", "__proto__"), ("local", "constructor"),
         ("__proto__", "toString"))


def make_names_report(binary, null_runs, out):
    """The null runs' rows and traces copied under each (device, compiler) of NAMES, the rows
    saying so, and their report (the device __proto__ has no machine.json)."""
    tree = os.path.join(out, "names")
    for device, compiler in NAMES:
        folder = os.path.join(tree, device, compiler)
        os.makedirs(folder)
        for name in os.listdir(null_runs):
            path = os.path.join(null_runs, name)
            if name.startswith(".") or not os.path.isfile(path):
                continue
            if name.endswith(".latencies.csv"):
                shutil.copy(path, folder)
                continue
            with open(path, newline="") as f:
                rows = list(csv.DictReader(f))
            for row in rows:
                row.update(device=device, compiler=compiler)
            with open(os.path.join(folder, name), "w", newline="") as f:
                writer = csv.DictWriter(f, fieldnames=list(rows[0]), lineterminator="\n")
                writer.writeheader()
                writer.writerows(rows)
    shutil.copy(os.path.join(null_runs, "..", "machine.json"), os.path.join(tree, "local"))
    # The null runs once more at int8, in a tree of their own (one tree holds one precision of
    # a run), with the output check's cosine and SNR: the accuracy view's points.
    int8 = os.path.join(out, "names_int8")
    shutil.copytree(os.path.join(tree, "local", "null"), os.path.join(int8, "local", "null"))
    for name in os.listdir(os.path.join(int8, "local", "null")):
        path = os.path.join(int8, "local", "null", name)
        if name.endswith(".latencies.csv"):
            continue
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f))
        for row in rows:
            row.update(precision="int8", check_cosine="0.99953", check_snr_db=str(INT8_SNR_DB))
        with open(path, "w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=list(rows[0]), lineterminator="\n")
            writer.writeheader()
            writer.writerows(rows)
    report = os.path.join(out, "names_report")
    run([binary, "report", tree, int8, "-o", report, "--include-invalid", "--html-only"])
    return report


INT8_SNR_DB = 31.5


def check_accuracy(driver, name, expected):
    """The accuracy view: an int8 point at its SNR and the fp32 line of the same compiler, or
    no such section (no run has an SNR)."""
    traces = driver.execute_script("""
      const gd = document.getElementById('fig-accuracy');
      if (!gd) return null;
      return (gd.data || []).map((t) => [t.name, t.mode, t.y]);""")
    if not expected:
        check(traces is None, f"{name}: no accuracy section (no int8 run): {traces}")
        return
    points = [t for t in traces or [] if t[1] == "markers"]
    lines = [t for t in traces or [] if t[1] == "lines"]
    check(any(t[0] == "null int8" and t[2] == [INT8_SNR_DB] for t in points) and
          any(t[0] == "null fp32" for t in lines),
          f"{name}: the accuracy view draws null's int8 run at SNR {INT8_SNR_DB} dB and its fp32 "
          f"run as a line ({traces})")


def check_names(driver):
    names = driver.execute_script(
        "return document.getElementById('fig-latency').data.map((t) => t.name);")
    check(sorted(names) == sorted({c for _, c in NAMES}),
          f"names like __proto__: each compiler has its line in the latency figure ({names})")


def browser():
    for path, package in ((CHROMIUM, "chromium"), (CHROMEDRIVER, "chromium-driver")):
        if not os.access(path, os.X_OK):
            raise SystemExit(f"FAIL: {path} not found: install Debian's {package} (./setup.sh "
                             "does), or point NGB_CHROMIUM / NGB_CHROMEDRIVER at it")
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        raise SystemExit("FAIL: selenium is not installed in this python; run ./setup.sh (it "
                         "installs the version pinned in scripts/setup/report.sh)")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                f"--window-size={WIDTH},{HEIGHT}", "--hide-scrollbars"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    # The driver given by path: selenium then never looks for (or downloads) one.
    return webdriver.Chrome(options=options, service=Service(CHROMEDRIVER))


def wait_for(driver, script, what, timeout_s=180):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        value = driver.execute_script(script)
        if value:
            return value
        time.sleep(0.05)
    raise SystemExit(f"FAIL: {what} within {timeout_s} s")


def console_errors(driver):
    return [e["message"] for e in driver.get_log("browser") if e["level"] == "SEVERE"]


def load(driver, path, name):
    """Opens the page, waits for every view; returns (load ms, size bytes)."""
    driver.get("about:blank")
    driver.get_log("browser")  # drop what came before
    started = time.monotonic()
    driver.get("file://" + os.path.abspath(path))
    wait_for(driver, "return window.__ngbDraws >= 1 || (window.__ngbErrors || []).length",
             f"{name}: the page drew its views")
    wall_ms = 1000 * (time.monotonic() - started)
    ready_ms = driver.execute_script("return window.__ngbReadyMs")
    views = driver.execute_script("return window.__ngbViewMs")
    size = os.path.getsize(path)
    if ready_ms is None:  # a JavaScript error stopped the drawing: check_page names it
        print(f"{name}: {path}\n  never drawn", flush=True)
        return None, size
    runs = driver.execute_script("return document.getElementById('shown-runs').textContent")
    print(f"{name}: {path}\n  size {size / 1e6:.2f} MB ({size} bytes), {runs} runs; load time "
          f"{ready_ms / 1000:.2f} s (navigation start to every view drawn; "
          f"{wall_ms / 1000:.2f} s as the driver saw it)\n  drawing, ms per view: {views}",
          flush=True)
    return ready_ms, size


def check_page(driver, name):
    errors = driver.execute_script("return window.__ngbErrors") + console_errors(driver)
    check(not errors, f"{name}: no JavaScript error" + (f" ({errors})" if errors else ""))
    drawn = driver.execute_script("""
      const ids = [...document.querySelectorAll('div.fig')].map((d) => d.id);
      return ids.map((id) => [id, !!document.querySelector('#' + id + ' .main-svg')]);""")
    found = {id_: ok for id_, ok in drawn}
    missing = [f for f in FIGURES if f not in found]
    undrawn = [id_ for id_, ok in drawn if not ok]
    check(not missing and not undrawn,
          f"{name}: every figure drawn ({len(found)}: {', '.join(sorted(found))})" +
          (f"; missing {missing}" if missing else "") + (f"; not drawn {undrawn}" if undrawn else ""))


LATENCY_FIGURE = """
  const gd = document.getElementById('fig-latency');
  return gd.data.filter((t) => t.y).map((t) => [t.name, t.y.filter((v) => v !== null).length]);"""


def check_filter(driver, name, compiler):
    from selenium.webdriver.support.ui import Select
    before = driver.execute_script(LATENCY_FIGURE)
    shown_before = driver.execute_script("return document.getElementById('shown-runs').textContent")
    expected = driver.execute_script(
        "const d = JSON.parse(document.getElementById('ngb-data').textContent).runs.cols;"
        "const dec = (c) => Array.isArray(c) ? c : c.codes.map((k) => c.dict[k]);"
        "const comp = dec(d.compiler), st = dec(d.status), sc = dec(d.scenario);"
        "return comp.filter((c, i) => c === arguments[0] && st[i] === 'ok' &&"
        "                             sc[i] === 'single_stream').length;", compiler)
    draws = driver.execute_script("return window.__ngbDraws")
    started = time.monotonic()
    select = Select(driver.find_element("id", "filter-compiler"))
    select.deselect_all()
    select.select_by_value(compiler)  # clicks, as a reader would: the page sees change events
    wait_for(driver, f"return window.__ngbDraws > {draws}", f"{name}: redraw after the filter")
    # Each click is a change event and the page redraws 120 ms after the last: on a busy machine
    # the driver's clicks come slower than that, and the first redraw is of a half-made choice.
    # The check reads the figure once the redraws stop (none for 1 s).
    settled, last = time.monotonic(), driver.execute_script("return window.__ngbDraws")
    while time.monotonic() - settled < 1 and time.monotonic() - started < 60:
        time.sleep(0.1)
        now = driver.execute_script("return window.__ngbDraws")
        if now != last:
            settled, last = time.monotonic(), now
    after = driver.execute_script(LATENCY_FIGURE)
    redraw_ms = driver.execute_script("return window.__ngbLastDrawMs")
    shown_after = driver.execute_script("return document.getElementById('shown-runs').textContent")
    print(f"{name}: filter compiler = {compiler}: fig-latency traces (name, points) {before} -> "
          f"{after}; runs shown {shown_before} -> {shown_after}; redrawn in {redraw_ms / 1000:.2f} s",
          flush=True)
    # Past MAX_LINES lines the figure draws the first ones and says so above it.
    capped = driver.execute_script("return document.getElementById('note-batch').textContent")
    drawn = after[0][1] if len(after) == 1 else 0
    check([t for t, _ in after] == [compiler] and before != after and
          (drawn == expected if not capped else 0 < drawn < expected),
          f"{name}: the compiler filter changed what is drawn (only {compiler}'s runs left in "
          f"the latency figure: {drawn} of its {expected} ok runs" +
          (f"; capped: {capped!r})" if capped else ")"))
    return select


SCENARIO_TRACES = """
  return arguments[0].map((id) => {
    const gd = document.getElementById(id);
    if (!gd) return [id, null];
    return [id, (gd.data || []).filter((t) => (t.y || []).some((v) => v !== null)).length];
  });"""


def check_scenarios(driver, name, expected):
    """The offline and server figures: each drawn with data traces (expected), or absent."""
    traces = dict(driver.execute_script(SCENARIO_TRACES, list(SCENARIO_FIGURES)))
    if expected:
        check(all(traces[f] for f in SCENARIO_FIGURES),
              f"{name}: batching against concurrency, latency against throughput and the peak "
              f"QPS drawn with data (traces per figure: {traces})")
    else:
        check(all(traces[f] is None for f in SCENARIO_FIGURES),
              f"{name}: no offline or server section (no such run): {traces}")


def screenshot(driver, path, full=True, scale=0.5):
    """A PNG of the page: the whole of it (scaled) or the first screen."""
    height = HEIGHT
    if full:
        height = driver.execute_cdp_cmd("Page.getLayoutMetrics", {})["cssContentSize"]["height"]
    shot = driver.execute_cdp_cmd("Page.captureScreenshot", {
        "format": "png", "captureBeyondViewport": full,
        "clip": {"x": 0, "y": 0, "width": WIDTH, "height": height, "scale": scale}})
    with open(path, "wb") as f:
        f.write(base64.b64decode(shot["data"]))
    print(f"screenshot: {path}", flush=True)


def docs_screenshot(driver, path):
    """The report's first screens (filters, latency, throughput, RTR, ASE, the heatmap's top) at
    full resolution, in 256 colours: a PNG well under 300 KB for the README."""
    from PIL import Image  # matplotlib's dependency, so in the venv
    shot = driver.execute_cdp_cmd("Page.captureScreenshot", {
        "format": "png", "captureBeyondViewport": True,
        "clip": {"x": 0, "y": 0, "width": WIDTH, "height": 1500, "scale": 1}})
    image = Image.open(io.BytesIO(base64.b64decode(shot["data"]))).convert("RGB")
    image = image.quantize(colors=256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    image.save(path, optimize=True)
    print(f"screenshot for the README: {path} ({os.path.getsize(path) // 1024} KB)", flush=True)


def main():
    started = time.monotonic()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("binary")
    parser.add_argument("source")
    parser.add_argument("out")
    parser.add_argument("--update-docs", action="store_true")
    args = parser.parse_args()
    shutil.rmtree(args.out, ignore_errors=True)
    os.makedirs(os.path.join(args.out, "screenshots"))
    driver = browser()  # before the reports: a missing browser fails at once
    try:
        traces, synthetic, names = make_reports(args.binary, args.source, args.out)
        shots = os.path.join(args.out, "screenshots")
        load(driver, traces, "released traces")
        check_page(driver, "released traces")
        check_scenarios(driver, "released traces", expected=False)
        check_accuracy(driver, "released traces", expected=False)
        screenshot(driver, os.path.join(shots, "traces_full.png"))
        if args.update_docs:
            docs_screenshot(driver, os.path.join(args.source, "docs", "report.png"))
        check_filter(driver, "released traces", "onnxruntime")
        check_page(driver, "released traces, filtered")
        screenshot(driver, os.path.join(shots, "traces_onnxruntime.png"))

        load(driver, synthetic, "synthetic 20,000 runs")
        check_page(driver, "synthetic")
        check_scenarios(driver, "synthetic", expected=True)
        screenshot(driver, os.path.join(shots, "synthetic_full.png"))
        check_filter(driver, "synthetic", "openvino")
        check_page(driver, "synthetic, filtered")
        check_scenarios(driver, "synthetic, filtered", expected=True)

        load(driver, names, "names like __proto__")
        check_page(driver, "names like __proto__")
        check_names(driver)
        check_accuracy(driver, "names like __proto__", expected=True)
    finally:
        driver.quit()
    print(f"report_browser_test: {len(failures)} failed check(s), "
          f"{time.monotonic() - started:.1f} s")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
