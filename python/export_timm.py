#!/usr/bin/env python3
"""Exports timm's own model definitions to ONNX (opset 17), and checks ngraphbench's zoo against them.

ngraphbench builds the Table IV architectures itself (src/ngraphbench/models/architectures/); this
script is for users who want timm's definitions instead, e.g. to run them through the `onnx` model
family. Install its dependencies with `./setup.sh --compilers timm` (pins timm, torchvision, onnx).

  export_timm.py export resnet50 swin_tiny_patch4_window7_224 -o models/ --batch-size 8
      writes models/resnet50_b8.onnx, ... with random weights (pretrained=False needs no hub access)
      and a static batch size: timm's reshapes bake it in, so export once per batch size.
  export_timm.py compare resnet50 ours.onnx [MODEL ONNX ...]
      ours.onnx is ngraphbench's resnet50 (`ngraphbench export`); copies its weights into timm's
      model and prints the largest logit difference, ~1e-6 relative when the structures agree.
      Exits 1 on a mismatch.
"""
import argparse
import os
import sys

TIMM_VERSION = "1.0.31"
OPSET = 17


def import_timm():
    """Imports timm, which imports torchvision.

    PyPI's torchvision 0.28.0 (the release paired with torch 2.13.0) is built against CUDA torch, so
    with the CPU torch wheel its C++ ops do not load and torchvision's import fails while registering
    fake kernels for torchvision::nms/qnms. timm needs none of those ops (it imports torchvision for
    FrozenBatchNorm2d and feature extraction), so declare the two operator schemas, without any
    kernel, to let the pure-Python part of torchvision import.
    """
    import glob
    import importlib.util

    import torch

    spec = importlib.util.find_spec("torchvision")
    if spec is None:
        sys.exit("export_timm: torchvision is not installed; run ./setup.sh --compilers timm")
    extension = glob.glob(os.path.join(os.path.dirname(spec.origin), "_C*.so"))
    try:
        torch.ops.load_library(extension[0])
    except (IndexError, OSError):
        lib = torch.library.Library("torchvision", "DEF")
        lib.define("nms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor")
        lib.define("qnms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor")
        import_timm.schemas = lib  # a Library deregisters its definitions when collected
    import timm

    if timm.__version__ != TIMM_VERSION:
        print(f"export_timm: warning: timm {timm.__version__}, tested with {TIMM_VERSION}",
              file=sys.stderr)
    return timm


def create(timm, name):
    try:
        return timm.create_model(name, pretrained=False).eval()
    except RuntimeError as e:  # timm's "Unknown model" error
        sys.exit(f"export_timm: {e}")


def fold_constants(path):
    """Folds the shape arithmetic the TorchScript exporter leaves in (Shape, ConstantOfShape, ...).

    ngraphbench's ONNX importer wants every value to have a static shape; onnxruntime's basic
    optimization level (standard ONNX ops only) folds these subgraphs into constants.
    """
    try:
        import onnxruntime as ort
    except ImportError:
        print("export_timm: onnxruntime is not installed; shape subgraphs left unfolded",
              file=sys.stderr)
        return
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_BASIC
    folded = path + ".folded"
    options.optimized_model_filepath = folded
    ort.InferenceSession(path, options, providers=["CPUExecutionProvider"])
    os.replace(folded, path)


def export(args):
    import onnx
    import torch

    timm = import_timm()
    os.makedirs(args.output_dir, exist_ok=True)
    for name in args.models:
        model = create(timm, name)
        x = torch.randn(args.batch_size, 3, args.image_size, args.image_size)
        path = os.path.join(args.output_dir, f"{name}_b{args.batch_size}.onnx")
        # The TorchScript-based exporter: it honours opset 17 directly, where the torch.export one
        # emits opset 18 and needs onnxscript to convert down.
        torch.onnx.export(model, (x,), path, opset_version=OPSET, dynamo=False,
                          input_names=["input"], output_names=["logits"])
        if not args.no_fold:
            fold_constants(path)
        onnx.checker.check_model(path, full_check=True)
        params = sum(p.numel() for p in model.parameters())
        print(f"{path}\t{name}\tparams={params}\tbatch={args.batch_size}")


def transplant(model, tensors):
    """Loads `tensors` (ngraphbench's initializers, in creation order) into timm's `model`.

    Both sides create a layer's tensors in the same order, so each timm tensor takes the next
    unused one of its shape. ConvNeXt blocks are the exception: timm registers the layer-scale
    gamma before the block's layers, ngraphbench creates it last.
    """
    import torch

    state = model.state_dict()
    keys = [k for k, v in state.items() if v.dtype == torch.float32 and "attn_mask" not in k]

    def block_of(key):
        parts = key.split(".")
        return ".".join(parts[:4]) if ".blocks." in key else key

    last = {block_of(k): i for i, k in enumerate(keys)}
    position = {k: last[block_of(k)] + 0.5 if k.endswith(".gamma") else i
                for i, k in enumerate(keys)}
    keys.sort(key=position.get)
    used = [False] * len(tensors)
    loaded = {}
    for key in keys:
        shape = tuple(state[key].shape)
        match = next((i for i, t in enumerate(tensors) if not used[i] and t.shape == shape), None)
        if match is None:
            sys.exit(f"export_timm: no tensor of shape {shape} left for timm's {key}")
        used[match] = True
        loaded[key] = torch.from_numpy(tensors[match].copy())
    if not all(used):
        sys.exit(f"export_timm: {used.count(False)} of ngraphbench's tensors have no timm match")
    model.load_state_dict(loaded, strict=False)


def compare_one(timm, name, path, tolerance):
    import numpy as np
    import onnx
    import onnxruntime as ort
    import torch
    from onnx import numpy_helper

    model = create(timm, name)
    ours = onnx.load(path)
    tensors = []
    for init in ours.graph.initializer:
        # Scalars are constants of the exporter's lowering (attention scale, GELU), not layers.
        if (init.data_type != onnx.TensorProto.FLOAT or not init.dims
                or init.name.startswith("attn_mask")):
            continue
        t = numpy_helper.to_array(init)
        # The exporter stores Linear weights transposed for MatMul, as `<name>__t`.
        tensors.append(t.T if init.name.endswith("__t") else t)
    transplant(model, tensors)

    batch = ours.graph.input[0].type.tensor_type.shape.dim[0].dim_value
    x = np.random.default_rng(0).standard_normal((batch, 3, 224, 224)).astype(np.float32)
    with torch.no_grad():
        reference = model(torch.from_numpy(x)).numpy()
    session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    logits = session.run(None, {session.get_inputs()[0].name: x})[0]
    diff = float(np.abs(logits - reference).max())
    relative = diff / max(float(reference.std()), 1e-12)
    ok = relative < tolerance
    print(f"{name}\tmax_abs_diff={diff:.3g}\trelative_to_std={relative:.3g}\t"
          f"{'ok' if ok else 'MISMATCH'}", flush=True)
    return ok


def compare(args):
    if len(args.pairs) % 2:
        sys.exit("export_timm: compare takes pairs: MODEL ONNX [MODEL ONNX ...]")
    timm = import_timm()
    pairs = zip(args.pairs[::2], args.pairs[1::2])
    results = [compare_one(timm, name, path, args.tolerance) for name, path in pairs]
    return 0 if all(results) else 1


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    e = sub.add_parser("export", help="write timm models to ONNX")
    e.add_argument("models", nargs="+", help="timm model names, e.g. resnet50")
    e.add_argument("-o", "--output-dir", required=True)
    e.add_argument("--batch-size", type=int, default=1)
    e.add_argument("--image-size", type=int, default=224)
    e.add_argument("--no-fold", action="store_true",
                   help="keep the exporter's shape subgraphs (not importable by ngraphbench)")
    c = sub.add_parser("compare", help="check an ngraphbench architecture against timm's")
    c.add_argument("pairs", nargs="+", metavar="MODEL ONNX",
                   help="timm model name and ngraphbench's export of it; repeatable")
    c.add_argument("--tolerance", type=float, default=1e-4,
                   help="largest accepted difference, relative to the logits' std")
    args = parser.parse_args()
    if args.command == "export":
        export(args)
        return 0
    return compare(args)


if __name__ == "__main__":
    sys.exit(main())
