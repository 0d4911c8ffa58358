#!/usr/bin/env python3
"""Exports a model given as PyTorch code, for one batch size, in the two forms ngraphbench runs.

Called by the worker (src/ngraphbench/models/torch_export.cc) for models of family `torch`;
the worker caches the result by content, so each (model, batch size) is exported once.

    export_torch.py --source timm:resnet18 --input-shape 3,224,224 --batch-size 8 --out-dir DIR
    export_torch.py --source path/to/file.py:make_model --input-shape 3,32,32 --batch-size 1 ...

The source is either a timm model name (`timm:<name>`, random weights: pretrained=False needs no
hub access) or a Python file and the name of a function in it that takes no argument and returns
a torch.nn.Module (`<file>.py:<function>`). The module is put in eval mode; the input is one
float32 tensor of shape [batch, *input-shape].

Writes into DIR:
  model.onnx     the TorchScript-based ONNX exporter (opset 17, static shapes), with its shape
                 arithmetic folded (as python/export_timm.py): what ngraphbench's IR and every
                 ONNX-based compiler take
  program.pt2    torch.export.export(module, (input,)) saved with torch.export.save: what the
                 `inductor` compiler packages, so that it compiles the module itself
  meta.json      last: the exact parameter count (sum of numel over module.parameters()), the
                 versions, and each exporter's error when it failed. A failed torch.export does
                 not stop the ONNX export (or the reverse): the compilers that can still run do.
Exit status 0 when meta.json was written (even with an exporter's error in it), 1 when the model
could not be built at all (the message on stderr's last line), 74 when the export could not be
written because the storage failed (a full disk: the machine's failure, not the model's, so
nothing of it is recorded in meta.json).
"""
import argparse
import importlib.util
import json
import os
import sys
import traceback
import warnings

import script_exit  # beside this file: how the scripts a worker runs end

HERE = os.path.dirname(os.path.abspath(__file__))
OPSET = 17


def fail(message):
    print(f"export_torch: {message}", file=sys.stderr, flush=True)
    sys.exit(1)


def first_line(text):
    """The exporter's message on one line, for the row's error column."""
    return script_exit.first_line(text, 400)


def build(source):
    if source.startswith("timm:"):
        sys.path.insert(0, HERE)
        import export_timm  # noqa: E402  (its torchvision workaround)

        timm = export_timm.import_timm()
        name = source[len("timm:"):]
        try:
            return timm.create_model(name, pretrained=False), "timm " + timm.__version__
        except RuntimeError as e:  # timm's "Unknown model (...)"
            fail(f"timm cannot create '{name}': {first_line(e)}")
    path, _, function = source.rpartition(":")
    spec = importlib.util.spec_from_file_location("ngraphbench_user_model", path)
    if spec is None or spec.loader is None:
        fail(f"cannot load {path} as a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))  # its own imports
    try:
        spec.loader.exec_module(module)
    except Exception as e:  # the user's code
        fail(f"importing {path} failed: {type(e).__name__}: {first_line(e)}")
    factory = getattr(module, function, None)
    if not callable(factory):
        fail(f"{path} has no function '{function}'")
    try:
        model = factory()
    except Exception as e:
        fail(f"{path}:{function}() failed: {type(e).__name__}: {first_line(e)}")
    return model, "factory " + os.path.basename(path)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--source", required=True)
    parser.add_argument("--input-shape", required=True, help="without the batch dimension: 3,224,224")
    parser.add_argument("--batch-size", type=int, required=True)
    parser.add_argument("--out-dir", required=True)
    args = parser.parse_args()

    import torch

    # The TorchScript-based exporter is deprecated in favour of the dynamo one; it is the one that
    # writes opset 17 directly (python/export_timm.py).
    warnings.filterwarnings("ignore", category=DeprecationWarning)

    torch.manual_seed(0)  # the weights a factory draws: the same on every export
    model, origin = build(args.source)
    if not isinstance(model, torch.nn.Module):
        fail(f"{args.source} returned a {type(model).__name__}, not a torch.nn.Module")
    model = model.eval()
    shape = [args.batch_size] + [int(d) for d in args.input_shape.split(",")]
    example = torch.randn(*shape)
    meta = {
        "source": args.source,
        "origin": origin,
        "input_shape": shape,
        "params": sum(p.numel() for p in model.parameters()),
        "torch": torch.__version__,
    }
    try:
        with torch.no_grad():
            outputs = model(example)
    except Exception as e:
        fail(f"the module fails on an input of shape {shape}: {type(e).__name__}: {first_line(e)}")
    flat = outputs if isinstance(outputs, (tuple, list)) else [outputs]
    if not flat or not all(isinstance(t, torch.Tensor) for t in flat):
        fail("the module must return a tensor or a tuple of tensors")
    meta["outputs"] = [list(t.shape) for t in flat]

    os.makedirs(args.out_dir, exist_ok=True)
    onnx_path = os.path.join(args.out_dir, "model.onnx")
    try:
        with torch.no_grad():
            torch.onnx.export(model, (example,), onnx_path, opset_version=OPSET, dynamo=False,
                              input_names=["input"],
                              output_names=[f"output{i}" for i in range(len(flat))])
        sys.path.insert(0, HERE)
        import export_timm  # noqa: E402

        export_timm.fold_constants(onnx_path)
    except Exception as e:
        # A full disk is the machine's failure: not recorded as the exporter's (script_exit).
        if script_exit.storage_failed(e, args.out_dir):
            raise
        traceback.print_exc()
        meta["onnx_error"] = f"torch.onnx.export failed: {type(e).__name__}: {first_line(e)}"
        if os.path.exists(onnx_path):
            os.remove(onnx_path)
    try:
        with torch.no_grad():
            program = torch.export.export(model, (example,))
        torch.export.save(program, os.path.join(args.out_dir, "program.pt2"))
    except Exception as e:
        if script_exit.storage_failed(e, args.out_dir):
            raise
        traceback.print_exc()
        meta["export_error"] = f"torch.export failed: {type(e).__name__}: {first_line(e)}"

    tmp = os.path.join(args.out_dir, "meta.json.tmp")
    with open(tmp, "w") as f:
        json.dump(meta, f, indent=1)
    os.replace(tmp, os.path.join(args.out_dir, "meta.json"))


if __name__ == "__main__":
    script_exit.run_main(main, "export_torch")
