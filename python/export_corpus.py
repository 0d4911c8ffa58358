#!/usr/bin/env python3
"""Exports a corpus of timm models, none of them from Table IV, with both of PyTorch's ONNX exporters.

The corpus tests what ngraphbench does with models users bring (the `onnx` family): the files are
written exactly as each exporter writes them — no onnxruntime folding, no onnxsim, no opset or IR
conversion — with random weights (pretrained=False, no hub access) and a dynamic batch axis.
bench/corpus.sh runs every file through every built compiler.

  export_corpus.py -o /tmp/corpus                    the whole corpus (CORPUS below)
  export_corpus.py -o /tmp/corpus regnetx_002 ...    some models (any timm name; family "other")
  export_corpus.py -o /tmp/corpus --exporters dynamo
  export_corpus.py --list                            the corpus, with timm's parameter counts

Per model and exporter (torchscript: torch.onnx.export(dynamo=False), opset 17; dynamo:
torch.onnx.export(dynamo=True), the torch.export-based exporter at its default opset, IR version
and optimization), it writes
  <model>.<exporter>.onnx          the model, weights inside the file (external_data=False)
  <model>.<exporter>.onnx.input.npy  a fixed input [1, 3, H, W] (timm's default size): the
                                   values ngraphbench's worker feeds run <model>.<exporter>_b1,
                                   i.e. its portable N(0, 1) generator (src/ngraphbench/core/
                                   random.h) seeded by FNV-1a of "<model>.<exporter>_b1/<input>",
                                   so a compiler's output on that run compares with the next file
  <model>.<exporter>.onnx.ort.npy  ONNX Runtime's output for that input on the original file,
                                   graph optimizations disabled (ORT_DISABLE_ALL): plain semantics
and <dir>/corpus.json: per model and exporter the family, timm's parameter count, opset,
ir_version, file size, export time, whether the batch axis stayed dynamic, how far ORT's output
is from PyTorch's own, and for a failed export its error (first line). Exports run one after the
other in this process; an entry already in corpus.json with its files present is kept (--force
exports again).
"""
import argparse
import datetime
import json
import math
import os
import sys
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from export_timm import import_timm  # noqa: E402  (torchvision's import workaround)

TORCHSCRIPT_OPSET = 17
EXPORTERS = ("torchscript", "dynamo")
INPUT_NAME = "input"
OUTPUT_NAME = "logits"
TRACE_BATCH = 2  # export at batch 2: a traced batch of 1 invites exporters to specialize it

# Outside Table IV (ResNet, EfficientNet, DeiT, Swin, ConvNeXt); the smallest variant timm 1.0.31
# has of each architecture. No small BEiT exists there (beit_base_patch16_224 is the smallest, 86M).
CORPUS = [
    ("regnetx_002", "convolutional"),
    ("repvgg_a0", "convolutional"),
    ("hgnetv2_b0", "convolutional"),
    ("mobilenetv3_small_050", "mobile"),
    ("ghostnet_100", "mobile"),
    ("mobilenetv4_conv_small_050", "mobile"),
    ("lcnet_050", "mobile"),
    ("vit_tiny_patch16_224", "transformer"),
    ("levit_128s", "transformer"),
    ("xcit_nano_12_p16_224", "transformer"),
    ("pvt_v2_b0", "transformer"),
    ("mixer_s16_224", "transformer"),  # MLP-Mixer: token-mixing MLPs instead of attention
    ("efficientformer_l1", "hybrid"),
    ("mobilevitv2_050", "hybrid"),
    ("maxvit_pico_rw_256", "hybrid"),
    ("poolformerv2_s12", "hybrid"),
    ("edgenext_xx_small", "hybrid"),
    ("tiny_vit_5m_224", "hybrid"),
]


def first_line(e):
    text = f"{type(e).__name__}: {e}".strip()
    return next((line.strip() for line in text.splitlines() if line.strip()), type(e).__name__)


# --- ngraphbench's portable generator (src/ngraphbench/core/random.h), in Python -------------

def fnv1a64(text):
    h = 0xCBF29CE484222325
    for byte in text.encode():
        h = ((h ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def portable_normal(shape, seed):
    """RandomNormal(shape, seed): SplitMix64, Box-Muller on two draws per value, as float32."""
    import numpy as np

    count = math.prod(shape)
    with np.errstate(over="ignore"):
        steps = np.arange(1, 2 * count + 1, dtype=np.uint64)
        z = np.uint64(seed) + steps * np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z = z ^ (z >> np.uint64(31))
    uniform = (z >> np.uint64(11)).astype(np.float64) * 2.0 ** -53
    u1, u2 = (1.0 - uniform[0::2]).tolist(), uniform[1::2].tolist()
    # libm's log and cos in double, as the C++ does (NumPy's vector kernels may differ by an ulp).
    values = [math.sqrt(-2.0 * math.log(a)) * math.cos(2.0 * math.pi * b) for a, b in zip(u1, u2)]
    return np.asarray(values, dtype=np.float64).astype(np.float32).reshape(shape)


def run_input(path, shape):
    """The input ngraphbench's worker feeds run <stem>_b1 of the file at `path`."""
    stem = os.path.basename(path)[: -len(".onnx")]
    seed_text = f"{stem}_b1/{INPUT_NAME}"
    return portable_normal(shape, fnv1a64(seed_text)), seed_text


# --- export -----------------------------------------------------------------------------------

def export_file(model, x, path, exporter):
    import torch

    if exporter == "torchscript":
        torch.onnx.export(model, (x,), path, dynamo=False, opset_version=TORCHSCRIPT_OPSET,
                          input_names=[INPUT_NAME], output_names=[OUTPUT_NAME],
                          dynamic_axes={INPUT_NAME: {0: "batch"}, OUTPUT_NAME: {0: "batch"}})
    else:
        batch = torch.export.Dim("batch", min=1, max=1024)
        program = torch.onnx.export(model, (x,), dynamo=True, input_names=[INPUT_NAME],
                                    output_names=[OUTPUT_NAME], dynamic_shapes=({0: batch},),
                                    verbose=False)
        # external_data=False: one self-contained file (every corpus model is far below 2 GiB).
        program.save(path, external_data=False)


def describe(path):
    import onnx

    m = onnx.load(path, load_external_data=False)
    opset = next((o.version for o in m.opset_import if o.domain in ("", "ai.onnx")), None)
    dim0 = m.graph.input[0].type.tensor_type.shape.dim[0]
    info = {
        "opset": opset,
        "other_opsets": {o.domain: o.version for o in m.opset_import
                         if o.domain not in ("", "ai.onnx")},
        "ir_version": m.ir_version,
        "size_bytes": os.path.getsize(path),
        "nodes": len(m.graph.node),
        "op_types": sorted({n.op_type for n in m.graph.node}),
        "batch_dim": dim0.dim_param or dim0.dim_value,
        "dynamic_batch": bool(dim0.dim_param),
    }
    try:
        onnx.checker.check_model(path, full_check=True)
        info["onnx_checker"] = "ok"
    except Exception as e:  # noqa: BLE001  (recorded, not fatal)
        info["onnx_checker"] = first_line(e)
    return info


def reference(path, x, torch_out):
    """ORT with graph optimizations disabled on the original file; saves input and output."""
    import numpy as np
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    start = time.monotonic()
    session = ort.InferenceSession(path, options, providers=["CPUExecutionProvider"])
    outputs = session.run(None, {session.get_inputs()[0].name: x})
    info = {"ort_s": round(time.monotonic() - start, 2), "outputs": len(outputs),
            "output_shape": list(outputs[0].shape)}
    np.save(path + ".input.npy", x)
    np.save(path + ".ort.npy", outputs[0])
    diff = float(np.abs(outputs[0].astype(np.float64) - torch_out).max())
    info["torch_vs_ort_max_rel_err"] = diff / max(1.0, float(np.abs(torch_out).max()))
    return info


def entry_done(entry, out_dir):
    path = os.path.join(out_dir, entry["file"])
    if entry.get("error"):
        return False  # a failed export is tried again
    return all(os.path.exists(path + suffix) for suffix in ("", ".input.npy", ".ort.npy"))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("models", nargs="*", help="timm model names (default: the corpus)")
    parser.add_argument("-o", "--output-dir")
    parser.add_argument("--exporters", default=",".join(EXPORTERS),
                        help="comma-separated: torchscript, dynamo (default both)")
    parser.add_argument("--force", action="store_true", help="export again what is done")
    parser.add_argument("--list", action="store_true", help="print the corpus and exit")
    args = parser.parse_args()
    exporters = [e for e in args.exporters.split(",") if e]
    for e in exporters:
        if e not in EXPORTERS:
            parser.error(f"unknown exporter '{e}' (known: {', '.join(EXPORTERS)})")
    families = dict(CORPUS)
    names = args.models or [name for name, _ in CORPUS]

    import numpy as np
    import torch

    timm = import_timm()
    if args.list:
        for name in names:
            model = timm.create_model(name, pretrained=False)
            params = sum(p.numel() for p in model.parameters())
            size = tuple(model.pretrained_cfg["input_size"])
            print(f"{name}\t{families.get(name, 'other')}\t{params / 1e6:.2f}M\t{size}")
        return 0
    if not args.output_dir:
        parser.error("-o/--output-dir is required")
    os.makedirs(args.output_dir, exist_ok=True)
    manifest_path = os.path.join(args.output_dir, "corpus.json")
    entries = {}
    if os.path.exists(manifest_path):
        with open(manifest_path) as f:
            entries = {(e["model"], e["exporter"]): e for e in json.load(f)["entries"]}

    def save_manifest():
        import onnx
        import onnxruntime

        try:
            import onnxscript
            onnxscript_version = onnxscript.__version__
        except ImportError:
            onnxscript_version = None
        manifest = {
            "written": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "timm": timm.__version__, "torch": torch.__version__, "onnx": onnx.__version__,
            "onnxscript": onnxscript_version, "onnxruntime": onnxruntime.__version__,
            "reference": "onnxruntime CPU, ORT_DISABLE_ALL, on the original file",
            "entries": sorted(entries.values(), key=lambda e: (e["model"], e["exporter"])),
        }
        tmp = manifest_path + ".tmp"
        with open(tmp, "w") as f:
            json.dump(manifest, f, indent=1)
            f.write("\n")
        os.replace(tmp, manifest_path)

    for name in names:
        todo = [e for e in exporters
                if args.force or (name, e) not in entries
                or not entry_done(entries[(name, e)], args.output_dir)]
        if not todo:
            print(f"{name}: done already", flush=True)
            continue
        try:
            torch.manual_seed(0)
            model = timm.create_model(name, pretrained=False).eval()
        except Exception as e:  # noqa: BLE001  (an unknown name, ...)
            print(f"{name}: cannot create: {first_line(e)}", file=sys.stderr, flush=True)
            for exporter in todo:
                entries[(name, exporter)] = {"model": name, "exporter": exporter,
                                             "family": families.get(name, "other"),
                                             "file": f"{name}.{exporter}.onnx",
                                             "error": "create_model: " + first_line(e)}
            save_manifest()
            continue
        params = sum(p.numel() for p in model.parameters())
        shape = [1] + list(model.pretrained_cfg["input_size"])
        for exporter in todo:
            file = f"{name}.{exporter}.onnx"
            path = os.path.join(args.output_dir, file)
            entry = {"model": name, "exporter": exporter, "family": families.get(name, "other"),
                     "file": file, "params": params, "input_shape": shape}
            if exporter == "dynamo":
                entry["dynamo_optimize"] = True  # the exporter's default, left on
            for suffix in ("", ".input.npy", ".ort.npy", ".data"):
                if os.path.exists(path + suffix):
                    os.remove(path + suffix)
            x_trace = torch.randn([TRACE_BATCH] + shape[1:], generator=torch.Generator().manual_seed(0))
            start = time.monotonic()
            try:
                with torch.no_grad():
                    export_file(model, x_trace, path, exporter)
                entry["export_s"] = round(time.monotonic() - start, 2)
            except Exception as e:  # noqa: BLE001  (recorded: the corpus reports it)
                entry["export_s"] = round(time.monotonic() - start, 2)
                entry["error"] = first_line(e)
                entry["traceback_tail"] = traceback.format_exc().strip().splitlines()[-3:]
                if os.path.exists(path):
                    os.remove(path)
                print(f"{file}: export FAILED after {entry['export_s']} s: {entry['error'][:200]}",
                      flush=True)
                entries[(name, exporter)] = entry
                save_manifest()
                continue
            entry.update(describe(path))
            x, seed_text = run_input(path, shape)
            entry["input_seed"] = f"FNV-1a64('{seed_text}')"
            try:
                with torch.no_grad():
                    torch_out = model(torch.from_numpy(x)).numpy().astype(np.float64)
                entry.update(reference(path, x, torch_out))
            except Exception as e:  # noqa: BLE001
                entry["ort_error"] = first_line(e)
            entries[(name, exporter)] = entry
            save_manifest()
            print(f"{file}: {entry['export_s']} s, opset {entry['opset']}, IR {entry['ir_version']}, "
                  f"{entry['size_bytes'] / 2**20:.1f} MiB, batch {entry['batch_dim']}, "
                  f"ORT vs torch {entry.get('torch_vs_ort_max_rel_err', entry.get('ort_error'))}",
                  flush=True)
        del model
    failed = [e for e in entries.values() if e.get("error")]
    print(f"{len(entries) - len(failed)} files exported, {len(failed)} exports failed; "
          f"manifest {manifest_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
