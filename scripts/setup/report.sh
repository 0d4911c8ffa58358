# Sourced by setup.sh. python/report.py draws its figures with matplotlib (numpy is pinned by
# setup.sh itself); python/report_html.py embeds Plotly's offline bundle from the plotly package
# into report.html; tests/report/report_browser_test.py drives Debian's chromium (setup.sh's
# Debian packages) through chromium-driver with selenium. Not a compiler: it adds no CMake flags
# and is wanted on every device. Uses $PY and setup.sh's pip_install.

MATPLOTLIB_VERSION=3.10.8
PLOTLY_VERSION=7.1.0
# 4.52.0 needs a newer certifi than this workplace's PyPI mirror has.
SELENIUM_VERSION=4.51.0

setup_report() {
  local reqs=("matplotlib==$MATPLOTLIB_VERSION" "plotly==$PLOTLY_VERSION"
              "selenium==$SELENIUM_VERSION")
  pip_install "${reqs[@]}" || {
    echo "report: pip install ${reqs[*]} into $VENV failed" >&2
    return 1
  }
}
