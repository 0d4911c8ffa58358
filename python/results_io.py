"""Reads run rows, their latency traces and machine.json from results trees and zips of them.

The layout rules are those of `ngraphbench analyze` (src/ngraphbench/analysis/load.h): a
directory <dir>/<device>/<compiler>/<run_id>.csv, or one holding such a tree as `results/`; a
.zip of the same layout, at its root or under a top-level `results/`. Hidden files, the
`*.latencies.csv` traces and the other files beside a row (`*.profile.csv`, `*.server_steps.csv`)
are not rows. analyze has already validated the rows (it runs first in
`ngraphbench report`), so this reader only finds them; it does not judge them.
Standard library only.
"""

import csv
import io
import json
import os
import zipfile

TRACE_SUFFIX = ".latencies.csv"
# Files beside a row that are not rows: the per-operator profile and a find_peak run's steps.
BESIDE_SUFFIXES = (TRACE_SUFFIX, ".profile.csv", ".server_steps.csv")
MACHINE_FILE = "machine.json"


def is_row_file(name):
    return bool(name) and not name.startswith(".") and name.endswith(".csv") and \
        not name.endswith(BESIDE_SUFFIXES)


def trace_beside(row_name):
    """<dir>/<run_id>.csv -> <dir>/<run_id>.latencies.csv"""
    return row_name[:-len(".csv")] + TRACE_SUFFIX


class Tree:
    """One input: a results directory or a zip. rows() yields (row dict, trace key); trace(key)
    gives the trace's text or None; machines() the machine.json of each device."""

    def __init__(self, path):
        self.path = path
        self._zip = None
        if os.path.isdir(path):
            results = os.path.join(path, "results")
            self._root = results if os.path.isdir(results) else path
        elif zipfile.is_zipfile(path):
            self._zip = zipfile.ZipFile(path)
            names = self._zip.namelist()
            self._prefix = "results/" if any(n.startswith("results/") for n in names) else ""
            self._names = set(names)
        else:
            raise SystemExit(f"{path}: neither a results directory nor a .zip archive of one")

    def close(self):
        if self._zip is not None:
            self._zip.close()

    def _entries(self, depth):
        """Relative paths of the files `depth` levels below the tree's root, sorted."""
        if self._zip is not None:
            out = []
            for name in self._names:
                if not name.startswith(self._prefix) or name.endswith("/"):
                    continue
                parts = name[len(self._prefix):].split("/")
                if len(parts) == depth:
                    out.append(name[len(self._prefix):])
            return sorted(out)
        out = []
        if depth == 2:
            for device in sorted(os.listdir(self._root)):
                if os.path.isfile(os.path.join(self._root, device, MACHINE_FILE)):
                    out.append(f"{device}/{MACHINE_FILE}")
            return out
        for device in sorted(os.listdir(self._root)):
            device_dir = os.path.join(self._root, device)
            if not os.path.isdir(device_dir):
                continue
            for compiler in sorted(os.listdir(device_dir)):
                compiler_dir = os.path.join(device_dir, compiler)
                if not os.path.isdir(compiler_dir):
                    continue
                for name in sorted(os.listdir(compiler_dir)):
                    out.append(f"{device}/{compiler}/{name}")
        return out

    def _read(self, relative):
        if self._zip is not None:
            name = self._prefix + relative
            if name not in self._names:
                return None
            return self._zip.read(name).decode("utf-8")
        try:
            with open(os.path.join(self._root, relative), encoding="utf-8") as f:
                return f.read()
        except FileNotFoundError:
            return None

    def rows(self):
        for relative in self._entries(3):
            if is_row_file(relative.rsplit("/", 1)[-1]):
                text = self._read(relative)
                for row in csv.DictReader(io.StringIO(text)):
                    yield row, trace_beside(relative)

    def trace(self, key):
        """The trace's text (`process,iteration,latency_ns` lines), or None when there is none."""
        return self._read(key)

    def machines(self):
        """{device: {machine_id: description}} from each <device>/machine.json."""
        out = {}
        for relative in self._entries(2):
            device, name = relative.split("/")
            if name == MACHINE_FILE:
                try:
                    out[device] = json.loads(self._read(relative))
                except json.JSONDecodeError as e:
                    out[device] = {"(unreadable)": {"error": f"{relative}: {e}"}}
        return out


def trace_latencies_ns(text):
    """(process, latency_ns) pairs of a trace's text; rows of schema 1 have no process column."""
    # Plain splits: a trace holds only integers, and 20,000 traces through csv.reader take
    # seconds longer.
    lines = text.split("\n")
    header = lines[0].strip().split(",")
    latency = header.index("latency_ns")
    process = header.index("process") if "process" in header else None
    out = []
    for line in lines[1:]:
        if line.strip():
            fields = line.split(",")
            out.append((int(fields[process]) if process is not None else 0,
                        int(fields[latency])))
    return out
