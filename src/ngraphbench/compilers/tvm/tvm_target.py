"""The TVM target a model is compiled for, and what links its library (tvm_compile.py's).

`host` is LLVM's view of the CPU the compiling python runs on, unless the worker runs on another
architecture (an aarch64 worker emulated on x86-64 starts the host's python): then it is that
architecture's generic CPU, and the library is linked by its cross g++.
"""

import json


def resolve_target(spec, threads, machine=""):
    """The TVM target: 'host' (LLVM's view of this CPU), a kind ('llvm') or a JSON dict.

    `machine` is the architecture the library will run on (the worker's uname). Where it is not
    this python's (an aarch64 worker emulated on x86-64 starts the host's python), 'host' is that
    architecture's generic CPU, cross compiled (build)."""
    import platform  # pylint: disable=import-outside-toplevel
    import tvm  # pylint: disable=import-outside-toplevel

    # "host" asks LLVM for this CPU (e.g. mcpu=skylake-avx512), so that tuning and codegen use its
    # real vector width.
    if spec in ("", "host") and machine and machine != platform.machine():
        config = {"kind": "llvm", "mtriple": f"{machine}-linux-gnu"}
    elif spec in ("", "host"):
        config = dict(tvm.target.Target.from_device("cpu").export())
    elif spec.lstrip().startswith("{"):
        config = json.loads(spec)
    else:
        config = dict(tvm.target.Target(spec).export())
    # MetaSchedule sizes parallel loops by the target's core count: the thread pool we run with.
    config.setdefault("num-cores", threads)
    return tvm.target.Target(config)


def cross_arch(target):
    """The target's architecture where it is not this python's machine (a cross build), else ""."""
    import platform  # pylint: disable=import-outside-toplevel

    arch = str(target.attrs["mtriple"]).split("-", 1)[0] if "mtriple" in target.attrs else ""
    return arch if arch and arch != platform.machine() else ""


def describe_target(target):
    """A short form for the result row, e.g. "llvm -mcpu=rocketlake -num-cores=2"."""
    attrs = target.attrs
    parts = [str(target.kind.name)]
    if cross_arch(target):
        parts.append(f"-mtriple={attrs['mtriple']}")
    for key in ("mcpu", "mattr", "num-cores"):
        if key in attrs and attrs[key]:
            value = attrs[key]
            value = ",".join(value) if key == "mattr" else value
            parts.append(f"-{key}={value}")
    return " ".join(parts)


def linker(target):
    """export_library's compiler: the default one, or for a cross build the architecture's cross
    g++ (Debian's g++-aarch64-linux-gnu is aarch64-linux-gnu-g++)."""
    import shutil  # pylint: disable=import-outside-toplevel
    from tvm.support import cc  # pylint: disable=import-outside-toplevel

    arch = cross_arch(target)
    if not arch:
        return None
    cxx = f"{arch}-linux-gnu-g++"
    if not shutil.which(cxx):
        raise RuntimeError(f"linking the library for {arch} needs {cxx} on the PATH (Debian: "
                           f"apt-get install g++-{arch.replace('_', '-')}-linux-gnu)")
    return cc.cross_compiler(cxx)
