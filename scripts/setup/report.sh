# Sourced by setup.sh. python/report.py draws its figures with matplotlib (numpy is pinned by
# setup.sh itself). Not a compiler: it adds no CMake flags and is wanted on every device.
# Uses $PY and setup.sh's pip_install.

MATPLOTLIB_VERSION=3.10.8

setup_report() {
  pip_install "matplotlib==$MATPLOTLIB_VERSION" || {
    echo "report: pip install matplotlib==$MATPLOTLIB_VERSION into $VENV failed" >&2
    return 1
  }
}
