"""How the Python scripts a worker runs end: exit status 0, 1, or 74 when the storage failed.

The compile scripts of the compilers that compile in a helper process
(src/ngraphbench/compilers/<name>/<name>_compile.py) and python/export_torch.py end through
run_main(). A write that the storage refused (a full disk) is the machine's failure, neither the
compiler's nor the model's: the script exits EXIT_STORAGE_FAILED, which the worker turns into a
StorageError (RunCompileScript in src/ngraphbench/compilers/compile_helper.h, ExportTorchModel in
src/ngraphbench/models/torch_export.cc), so that it writes no row and the sweep stops with exit 3.
Any other exception exits 1, with its one-line description last on stderr: what the worker quotes
in the row's error.

export_torch.py imports this module from its own folder; the compile scripts find it on
PYTHONPATH, which RunCompileScript points at this folder. Standard library only.
"""
import errno
import os
import sys
import traceback

# IsStorageFailure and kExitStorageFailed in src/ngraphbench/core/error.h.
STORAGE_ERRNOS = (errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EIO)
EXIT_STORAGE_FAILED = 74
# Below this much free space on the output folder's file system, a failure that names no storage
# error is taken for the disk's: torch's own writers (torch.export.save) report a full disk as a
# RuntimeError without an errno. A real failure of the model or the compiler is then recorded on
# the resume, once there is room.
NO_ROOM_BYTES = 1 << 20


def first_line(text, limit=300):
    """The first non-empty line of a message, for the row's error column (';' separates its
    settings)."""
    lines = [line.strip() for line in str(text).strip().splitlines() if line.strip()]
    return (lines[0] if lines else "").replace(";", ",")[:limit]


def _texts(e):
    """What exception `e` says: its message, and a failed subprocess's captured output."""
    texts = [str(e)]
    for name in ("output", "stderr"):  # subprocess.CalledProcessError
        value = getattr(e, name, None)
        if isinstance(value, bytes):
            value = value.decode(errors="replace")
        if isinstance(value, str):
            texts.append(value)
    return texts


def _chain(e):
    """`e` and the exceptions it came from (__cause__, __context__)."""
    seen = set()
    while e is not None and id(e) not in seen:
        seen.add(id(e))
        yield e
        e = e.__cause__ or e.__context__


def _storage_line(e):
    """The line of what `e` (or one it came from) says that names a storage error, or None."""
    names = [os.strerror(n) for n in STORAGE_ERRNOS]
    for cause in _chain(e):
        for text in _texts(cause):
            for line in text.splitlines():
                if any(name in line for name in names):
                    return line.strip()
    return None


def storage_failed(e, out_dir=None):
    """Whether exception `e` says that the storage failed: it, or an exception it came from
    (__cause__, __context__), is an OSError with one of STORAGE_ERRNOS or names one of them in its
    message (a compiler or linker run as a subprocess: TVM's export_library raises a RuntimeError
    quoting ld's "No space left on device"); or else out_dir's file system has less than
    NO_ROOM_BYTES free."""
    if any(isinstance(c, OSError) and c.errno in STORAGE_ERRNOS for c in _chain(e)):
        return True
    if _storage_line(e) is not None:
        return True
    if not out_dir:
        return False
    try:
        st = os.statvfs(out_dir)
        return st.f_bavail * st.f_frsize < NO_ROOM_BYTES
    except OSError:
        return False


def _out_dir(argv):
    """The script's --out-dir: where it writes, and whose file system may be full."""
    for i, arg in enumerate(argv):
        if arg == "--out-dir" and i + 1 < len(argv):
            return argv[i + 1]
        if arg.startswith("--out-dir="):
            return arg[len("--out-dir="):]
    return None


def _say(text):
    """Writes to stderr, which may be a log on the full disk itself: nothing it fails to write
    may change the exit status."""
    try:
        print(text, file=sys.stderr, flush=True)
    except OSError:
        pass


def run_main(main, who, describe=first_line):
    """Runs main() and exits with what it returns (None: 0). On an exception: its traceback and a
    last line "<who>: error: <type>: <describe(message)>" on stderr and exit 1, or, when the
    storage failed (storage_failed, with the script's --out-dir), "<who>: the storage failed:
    ..." and exit EXIT_STORAGE_FAILED. SystemExit (argparse, a script's own exit) passes."""
    try:
        code = main()
    except Exception as e:  # pylint: disable=broad-except
        storage = storage_failed(e, _out_dir(sys.argv))
        _say(traceback.format_exc().rstrip("\n"))
        # The last stderr line is what the worker quotes: for a full disk, the line that says so.
        line = _storage_line(e) if storage else None
        if line is None:
            line = describe(str(e))
        elif len(line) > 300:  # a tool's line ends with what failed
            line = "..." + line[-297:]
        _say(f"{who}: {'the storage failed' if storage else 'error'}: {type(e).__name__}: "
             f"{line.replace(';', ',')}")
        if not storage:
            sys.exit(1)
        # Without the interpreter's shutdown, whose flush of a buffered stdout on the full disk
        # would turn the status into 120.
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except OSError:
                pass
        os._exit(EXIT_STORAGE_FAILED)  # pylint: disable=protected-access
    sys.exit(code or 0)
