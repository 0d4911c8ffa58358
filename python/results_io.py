"""Reads run rows, their latency traces and machine.json from results trees and zips of them.

The layout rules are those of `ngraphbench analyze` (src/ngraphbench/analysis/load.h): a
directory <dir>/<device>/<compiler>/<run_id>.csv, or one holding such a tree as `results/`; a
.zip of the same layout, at its root or under a top-level `results/`. Hidden files, the
`*.latencies.csv` traces and the other files beside a row (`*.profile.csv`, `*.server_steps.csv`)
are not rows: is_row_file and the suffixes below are the twins of src/ngraphbench/results/layout.h. analyze has already validated the rows (it runs first in
`ngraphbench report`), so this reader only finds them; it does not judge their values.

Every file is read as the C++ reader reads it (src/ngraphbench/core/file.h): regular files only,
opened non-blocking (a FIFO never blocks the open) and checked on the open descriptor, read up to
a ceiling that fits the file's kind; a zip entry's declared size is checked against the same
ceiling before anything is inflated, and reading stops at the ceiling whatever the entry declares.
A zip whose entry names repeat, or are not plain relative paths, is refused as analyze refuses it.
What is wrong raises InputError naming the file: bad input (`ngraphbench report` exits 2). The
traces and machine.json are read only by the report: their callers may leave one out instead.
Standard library and numpy (matplotlib's dependency, which the report needs anyway).
"""

import csv
import errno
import io
import json
import os
import re
import stat
import zipfile
import zlib

import numpy

try:
    import lzma
    _LZMA_ERRORS = (lzma.LZMAError,)
except ImportError:  # a Python built without lzma: zipfile then refuses such entries itself
    _LZMA_ERRORS = ()

TRACE_SUFFIX = ".latencies.csv"
# Files beside a row that are not rows: the per-operator profile and a find_peak run's steps.
BESIDE_SUFFIXES = (TRACE_SUFFIX, ".profile.csv", ".server_steps.csv")
MACHINE_FILE = "machine.json"

# Ceilings on the files the report reads, the C++ reader's (src/ngraphbench/core/file.h):
MAX_ROW_BYTES = 1 << 20      # kMaxRowBytes
MAX_TRACE_BYTES = 1 << 30    # kMaxTraceBytes
MAX_MACHINE_BYTES = 4 << 20  # kMaxMachineJsonBytes
# An analysis table (scaling.csv and the others analyze writes): a line per run at most.
MAX_TABLE_BYTES = 1 << 30
# machine.json as the tool writes it is {machine_id: {key: value, list or object}}: 4 levels.
MAX_MACHINE_DEPTH = 16
# A trace's line is three integers; a longer one is not a trace's.
MAX_TRACE_LINE = 200
CHUNK = 1 << 20

# A field may be as long as a row (a row's process medians, its error): the csv module's own
# limit (128 KiB) would fail on rows analyze accepts.
csv.field_size_limit(MAX_ROW_BYTES)
# What opening or inflating a damaged zip entry raises (bz2 raises OSError).
_ZIP_ERRORS = (zipfile.BadZipFile, zlib.error, OSError, EOFError, ValueError, RuntimeError,
               NotImplementedError) + _LZMA_ERRORS


class InputError(Exception):
    """Bad input: the message names the file and what is wrong with it."""


def is_row_file(name):
    return bool(name) and not name.startswith(".") and name.endswith(".csv") and \
        not name.endswith(BESIDE_SUFFIXES)


def trace_beside(row_name):
    """<dir>/<run_id>.csv -> <dir>/<run_id>.latencies.csv"""
    return row_name[:-len(".csv")] + TRACE_SUFFIX


def _too_big(what, source, max_bytes, size):
    return InputError(f"{what} '{source}' holds {size} bytes, more than the {max_bytes} such a "
                      "file may hold")


def _kind(mode):
    """What a file that is not a regular one is, for a message."""
    for test, kind in ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISDIR, "a folder")):
        if test(mode):
            return kind
    return "of an unknown kind"


def open_regular(path, what):
    """A binary file object of `path`, refused (InputError) unless it is a regular file. Opened
    with O_NONBLOCK, so that a FIFO never blocks the open, and checked with fstat on the open
    descriptor, so that a file swapped after a check cannot slip past it."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as e:
        if e.errno == errno.ENXIO:  # what opening a socket gives
            raise InputError(f"{what} '{path}' is a socket, not a regular file") from None
        raise InputError(f"cannot open {what} '{path}': {e.strerror}") from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise InputError(f"{what} '{path}' is {_kind(mode)}, not a regular file; remove it "
                             "or give a regular file")
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_capped(f, source, max_bytes, what):
    """All of the binary stream `f`, at most max_bytes, read in chunks: reading stops one byte
    past them, whatever the stream (a zip entry) declared."""
    parts, used = [], 0
    while True:
        chunk = f.read(min(CHUNK, max_bytes + 1 - used))
        if not chunk:
            return b"".join(parts)
        parts.append(chunk)
        used += len(chunk)
        if used > max_bytes:
            raise _too_big(what, source, max_bytes, f"more than {max_bytes}")


def read_file(path, max_bytes, what):
    """The bytes of the regular file `path`, at most max_bytes (InputError otherwise)."""
    with open_regular(path, what) as f:
        size = os.fstat(f.fileno()).st_size
        if size > max_bytes:
            raise _too_big(what, path, max_bytes, size)
        return read_capped(f, path, max_bytes, what)


def unguard_text(cell):
    """A cell as the tool wrote it, less the single quote it puts before a text a spreadsheet
    would evaluate (first character after any quotes one of = + - @ tab CR): CsvUnguardText in
    src/ngraphbench/results/csv.h. Numbers are never guarded, so every cell may go through it."""
    stripped = cell.lstrip("'")
    if len(stripped) < len(cell) and stripped[:1] in ("=", "+", "-", "@", "\t", "\r"):
        return cell[1:]
    return cell


def csv_dicts(text):
    """The rows of a CSV text as dicts, each cell through unguard_text."""
    return [{k: unguard_text(v) if isinstance(v, str) else v for k, v in row.items()}
            for row in csv.DictReader(io.StringIO(text, newline=""))]


def read_table(path, max_bytes=MAX_TABLE_BYTES, what="analysis table"):
    """The rows of a CSV file as dicts. Bytes that are not UTF-8 (a name in a row analyze
    accepted) become U+FFFD, the same in every file, so that keys still join."""
    text = read_file(path, max_bytes, what).decode("utf-8", errors="replace")
    return csv_dicts(text)


def check_entry_names(archive, names):
    """Refuses an archive whose entry names repeat (which of two would be read is the reader's
    choice) or are not plain relative paths (a leading '/', a '.' or '..' part): the rules of
    analyze's zip loader (src/ngraphbench/analysis/load.cc)."""
    seen = set()
    for name in names:
        parts = name.split("/")
        if not name or name.startswith("/") or any(p in (".", "..") for p in parts):
            raise InputError(f"{archive}: entry '{name[:200]}' is not a plain relative path (no "
                             "leading '/', no '.' or '..' part); expected entries "
                             "<device>/<compiler>/<run_id>.csv, optionally under results/")
        if name in seen:
            raise InputError(f"{archive}: two entries are named '{name[:200]}'; expected each "
                             "entry once (an archive appended to? unzip -l lists its entries)")
        seen.add(name)


class Tree:
    """One input: a results directory or a zip. rows() yields (row dict, trace key);
    latencies(key) gives the trace's latencies or None; machines() the machine.json of each
    device. InputError for what is wrong, naming the file."""

    def __init__(self, path):
        self.path = path
        self._zip = None
        if os.path.isdir(path):
            results = os.path.join(path, "results")
            self._root = results if os.path.isdir(results) else path
            return
        expected = "expected a results directory or a .zip archive of one"
        f = open_regular(path, "results archive")
        try:
            self._zip = zipfile.ZipFile(f)
        except _ZIP_ERRORS as e:
            f.close()
            raise InputError(f"{path}: not a .zip archive ({e}); {expected}") from None
        names = [info.filename for info in self._zip.infolist()]
        try:
            check_entry_names(path, names)
        except InputError:
            self.close()
            raise
        self._prefix = "results/" if any(n.startswith("results/") for n in names) else ""
        self._infos = {info.filename: info for info in self._zip.infolist()}

    def close(self):
        if self._zip is not None:
            fp = self._zip.fp
            self._zip.close()
            if fp is not None:
                fp.close()

    def source(self, relative):
        """How messages name a file: its path, or <archive>:<entry>."""
        if self._zip is not None:
            return f"{self.path}:{self._prefix}{relative}"
        return os.path.join(self._root, relative)

    def _entries(self, depth):
        """Relative paths of the files `depth` levels below the tree's root, sorted; in a
        directory, its subdirectories are not files."""
        if self._zip is not None:
            out = []
            for name in self._infos:
                if not name.startswith(self._prefix) or name.endswith("/"):
                    continue
                parts = name[len(self._prefix):].split("/")
                if len(parts) == depth:
                    out.append(name[len(self._prefix):])
            return sorted(out)
        out = []
        for device in sorted(os.listdir(self._root)):
            device_dir = os.path.join(self._root, device)
            if not os.path.isdir(device_dir):
                continue
            if depth == 2:
                if os.path.lexists(os.path.join(device_dir, MACHINE_FILE)):
                    out.append(f"{device}/{MACHINE_FILE}")
                continue
            for compiler in sorted(os.listdir(device_dir)):
                compiler_dir = os.path.join(device_dir, compiler)
                if not os.path.isdir(compiler_dir):
                    continue
                for name in sorted(os.listdir(compiler_dir)):
                    if not os.path.isdir(os.path.join(compiler_dir, name)):
                        out.append(f"{device}/{compiler}/{name}")
        return out

    def _open(self, relative, max_bytes, what):
        """(binary stream, source) of a file of the tree, or None where it has none; a zip
        entry whose declared size exceeds max_bytes is refused before it is inflated."""
        source = self.source(relative)
        if self._zip is not None:
            info = self._infos.get(self._prefix + relative)
            if info is None:
                return None
            if info.file_size > max_bytes:
                raise InputError(f"{what} '{source}': the entry claims {info.file_size} bytes, "
                                 f"more than such a file may hold ({max_bytes})")
            try:
                return self._zip.open(info), source
            except _ZIP_ERRORS as e:  # encrypted, an unknown method, a damaged header
                raise InputError(f"{what} '{source}': cannot open the entry ({e})") from None
        path = os.path.join(self._root, relative)
        if not os.path.lexists(path):
            return None
        f = open_regular(path, what)
        size = os.fstat(f.fileno()).st_size
        if size > max_bytes:
            f.close()
            raise _too_big(what, path, max_bytes, size)
        return f, source

    def _unreadable(self, what, source, error):
        if self._zip is None:
            return InputError(f"cannot read {what} '{source}': {error}")
        return InputError(f"{what} '{source}': corrupt entry ({error}); the archive is damaged: "
                          "unzip -t names its bad entries")

    def _read(self, relative, max_bytes, what):
        """(bytes, source) of a file of the tree, at most max_bytes; None where there is none."""
        opened = self._open(relative, max_bytes, what)
        if opened is None:
            return None
        f, source = opened
        with f:
            try:
                return read_capped(f, source, max_bytes, what), source
            except _ZIP_ERRORS as e:
                raise self._unreadable(what, source, e) from None

    def rows(self):
        for relative in self._entries(3):
            if is_row_file(relative.rsplit("/", 1)[-1]):
                read = self._read(relative, MAX_ROW_BYTES, "result file")
                if read is None:
                    continue
                text = read[0].decode("utf-8", errors="replace")
                for row in csv_dicts(text):
                    yield row, trace_beside(relative)

    def latencies(self, key):
        """The trace's latencies in ns (every process's, in order) as an int64 numpy array, or
        None when the run has none. InputError when it is no trace (parse_trace's rules)."""
        opened = self._open(key, MAX_TRACE_BYTES, "trace")
        if opened is None:
            return None
        f, source = opened
        with f:
            try:
                return parse_trace(f, source)
            except _ZIP_ERRORS as e:
                raise self._unreadable("trace", source, e) from None

    def machines(self):
        """({device: {machine_id: description}}, [message per machine.json left out]): a
        machine.json that cannot be read, or is not such an object, is shown as
        {"(unreadable)": {"error": message}}."""
        out, problems = {}, []
        for relative in self._entries(2):
            device, name = relative.split("/")
            if name != MACHINE_FILE:
                continue
            try:
                read = self._read(relative, MAX_MACHINE_BYTES, "machine.json")
                if read is not None:
                    out[device] = parse_machines(*read)
            except InputError as e:
                problems.append(str(e))
                out[device] = {"(unreadable)": {"error": str(e)}}
        return out, problems


def _refuse_constant(name):
    raise ValueError(f"{name} is not a JSON number")


def parse_machines(data, source):
    """machine.json's {machine_id: {key: value}}; InputError for anything else."""
    what = f"machine.json '{source}'"
    try:
        doc = json.loads(data.decode("utf-8"), parse_constant=_refuse_constant)
    except UnicodeDecodeError as e:
        raise InputError(f"{what} is not UTF-8 text (byte {e.start})") from None
    except RecursionError:
        raise InputError(f"{what} is nested deeper than {MAX_MACHINE_DEPTH} levels") from None
    except ValueError as e:  # JSONDecodeError, NaN, an integer of thousands of digits
        raise InputError(f"{what} is not valid JSON ({str(e)[:200]})") from None
    if not isinstance(doc, dict) or not all(isinstance(v, dict) for v in doc.values()):
        raise InputError(f"{what} is not an object of machine descriptions; expected "
                         "{\"<machine_id>\": {\"cpu_model\": ..., ...}}")
    stack = [(doc, 1)]
    while stack:
        value, depth = stack.pop()
        if depth > MAX_MACHINE_DEPTH:
            raise InputError(f"{what} is nested deeper than {MAX_MACHINE_DEPTH} levels")
        children = value.values() if isinstance(value, dict) else value
        stack.extend((c, depth + 1) for c in children if isinstance(c, (dict, list)))
    return doc


def _whole(field):
    """A whole number >= 0 of 64 bits from a trace's field (bytes: ASCII digits only; a sign or
    a space is not one)."""
    if not field.isdigit() or len(field) > 19:
        raise ValueError(field)
    value = int(field)
    if value >= 1 << 63:
        raise ValueError(field)
    return value


# A run of a trace's lines in the form that needs no closer look: fields of at most 18 digits
# (below 2^63), empty lines allowed. Checked in one pass; a run that does not match is read line
# by line, which accepts 19 digits below 2^63 too and names the first bad line.
_PLAIN_LINES = {True: re.compile(rb"(?:[0-9]{1,18},[0-9]{1,18},[0-9]{1,18}\n|\n)*"),
                False: re.compile(rb"(?:[0-9]{1,18},[0-9]{1,18}\n|\n)*")}


class _TraceReader:
    """The state of a trace read in chunks: the process and iteration the next line must have,
    and the number of the last line read."""

    def __init__(self, source, by_process):
        self.source, self.by_process = source, by_process
        self.process = -1 if by_process else 0  # the current process
        self.iteration = 0  # the next line's iteration within it
        self.number = 1  # the header's

    def bad(self, line):
        text = line[:80].decode("utf-8", errors="replace")
        expected = ("<process>,<iteration>,<latency_ns>' (processes count up from 0, "
                    "iterations from 0 within each" if self.by_process else
                    f"{self.iteration},<latency_ns>' (iterations count up from 0")
        return InputError(f"trace '{self.source}': line {self.number} ('{text}') is not "
                          f"'{expected}; latencies are integers >= 0)")

    def lines(self, body):
        """The latencies of `body` (whole lines, each ending in a newline), line by line."""
        out = []
        for line in body.split(b"\n")[:-1]:
            self.number += 1
            if not line:
                continue
            try:
                if len(line) > MAX_TRACE_LINE:
                    raise ValueError("long")
                if self.by_process:
                    p, i, ns = line.split(b",")
                    p = _whole(p)
                    if p == self.process + 1:
                        self.process, self.iteration = p, 0
                    elif p != self.process:
                        raise ValueError("process")
                else:
                    i, ns = line.split(b",")
                if _whole(i) != self.iteration:
                    raise ValueError("iteration")
                out.append(_whole(ns))
                self.iteration += 1
            except ValueError:
                raise self.bad(line) from None
        return numpy.array(out, dtype=numpy.int64)

    def block(self, body):
        """The latencies of `body` (whole lines, each ending in a newline): checked in one pass
        where its form is plain, else line by line."""
        if not _PLAIN_LINES[self.by_process].fullmatch(body):
            return self.lines(body)
        rows = body.split()
        if not rows:
            self.number += body.count(b"\n")
            return numpy.zeros(0, dtype=numpy.int64)
        fields = 3 if self.by_process else 2
        values = numpy.fromstring(b",".join(rows), dtype=numpy.int64, sep=",").reshape(-1, fields)
        i = values[:, fields - 2]
        if self.by_process:
            p = values[:, 0]
            previous_p = numpy.concatenate(([self.process], p[:-1]))
            previous_i = numpy.concatenate(([self.iteration - 1], i[:-1]))
            ok = ((p == previous_p) & (i == previous_i + 1)) | ((p == previous_p + 1) & (i == 0))
        else:
            ok = i == numpy.arange(self.iteration, self.iteration + len(i))
        if not ok.all():
            return self.lines(body)  # names the first bad line
        self.number += body.count(b"\n")
        if self.by_process:
            self.process = int(values[-1, 0])
        self.iteration = int(i[-1]) + 1
        return values[:, fields - 1].copy()


def parse_trace(f, source):
    """The latencies of a trace read from the binary stream `f` in chunks, at most
    MAX_TRACE_BYTES, as an int64 numpy array: the C++ reader's rules (ParseProcessLatencies in
    src/ngraphbench/results/csv.cc): a header 'process,iteration,latency_ns' (or
    'iteration,latency_ns', one process), then whole numbers >= 0 (ASCII digits, no sign),
    processes counting up from 0 and iterations from 0 within each. InputError names the file
    and the first bad line."""
    data, used = b"", 0
    while b"\n" not in data:
        chunk = f.read(CHUNK)
        used += len(chunk)
        data += chunk
        if not chunk or len(data) > MAX_TRACE_LINE:
            break
    header, _, rest = data.partition(b"\n")
    if header not in (b"process,iteration,latency_ns", b"iteration,latency_ns"):
        raise InputError(f"trace '{source}' does not start with 'process,iteration,latency_ns' "
                         "(or 'iteration,latency_ns', one process)")
    reader = _TraceReader(source, header.startswith(b"process"))
    out = []
    while True:
        chunk = f.read(CHUNK)
        used += len(chunk)
        if used > MAX_TRACE_BYTES:
            raise _too_big("trace", source, MAX_TRACE_BYTES, f"more than {MAX_TRACE_BYTES}")
        data = rest + chunk
        if not chunk:
            if data:
                out.append(reader.block(data + b"\n"))
            break
        cut = data.rfind(b"\n") + 1
        if len(data) - cut > MAX_TRACE_LINE:  # a line longer than a trace's ever is
            reader.number += data.count(b"\n", 0, cut)
            raise reader.bad(data[cut:])
        out.append(reader.block(data[:cut]))
        rest = data[cut:]
    return numpy.concatenate(out) if out else numpy.zeros(0, dtype=numpy.int64)
