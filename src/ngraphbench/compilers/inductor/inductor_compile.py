#!/usr/bin/env python3
"""Compiles an ONNX model with TorchInductor ahead of time (AOTInductor) into a .pt2 package.

Called by src/ngraphbench/compilers/inductor/inductor_compiler.cc as a subprocess: torch.export
and Inductor exist only in Python. The timed execution happens in C++
(torch::inductor::AOTIModelPackageLoader in the worker), never here.

    inductor_compile.py --onnx M.onnx --out-dir DIR --threads 2 [--max-autotune] [--freezing]
                        [--kernel-profile] [--calibration B0.bin B1.bin ...]
    inductor_compile.py --program P.pt2 ...
    inductor_compile.py --torchscript M.ts --input-shape 1,3,224,224 ...

A model given as PyTorch code (ngraphbench's model family `torch`, python/export_torch.py) comes
as its own torch.export program (--program): step 3 only, on the module the user wrote. With the
route `torchscript` (the C++ module's option `route`), steps 1 and 2 are replaced: the C++ module
traces ngraphbench's own IR of the model to TorchScript (the ATen calls identity makes, with the
same weights), and PyTorch's TorchScript-to-ExportedProgram converter exports that (--torchscript);
every model identity runs has such a program, where onnx2torch lacks converters for some.

The path from ONNX to Inductor:

1. ONNX -> torch.nn.Module with onnx2torch.convert. The benchmark's models reach every compiler
   as the same ONNX file with ngraphbench's own weights; a converted module carries exactly those
   weights, so the worker's output check against onnxruntime compares the same model. (Building
   the module from its PyTorch source instead, e.g. timm, would bring other weights and fail the
   check, and would not exist for ngraphbench's synthetic models.)
2. torch.export.export(module, example_inputs) with static shapes: the batch size is fixed per
   run, as for every other compiler here, so no dynamic dimension is declared.
3. torch._inductor.aoti_compile_and_package(exported, package_path=DIR/model.pt2,
   inductor_configs=...): the Inductor settings asked for (max_autotune, freezing) plus
   cpp.threads, see below.

Precision int8 (--calibration FILE...): between steps 2 and 3, the program is quantized by
PyTorch's PT2E flow (quantize_pt2e): prepare_pt2e with the x86 Inductor quantizer in its default
static configuration (torchao's; weights int8, symmetric, one scale per output channel;
activations uint8, asymmetric, one scale and zero point per tensor, histogram observers),
the calibration batches the worker drew run through it, convert_pt2e, and torch.export again.
Before prepare_pt2e, each product of an activation by a constant 2-D weight (ONNX's MatMul and
Add of a linear layer on a 3-D input, a transformer's projections) becomes a linear layer
(constant_matmuls_to_linear), which the quantizers annotate and matmul is not.
With freezing (required), Inductor lowers the quantize/dequantize pairs around convolutions and
matrix products to oneDNN's integer kernels (qconv_pointwise, qlinear_pointwise), which
meta.json's int8_calls counts in the package's wrapper. Device cpu only.

--kernel-profile compiles the package that the worker's profile runs (Executable::Profile), never
the timed one: Inductor's cpp.enable_kernel_profile opens a RecordFunction, which LibTorch's
profiler sees, in each generated kernel and around each extern call.

Inductor's CPU kernels are OpenMP loops whose thread count is fixed at code generation
(`#pragma omp parallel num_threads(N)`, N = cpp.threads or torch.get_num_threads()), so --threads
is part of the compiled code and of the C++ side's cache key.

Writes DIR/model.pt2 and then DIR/meta.json (last, atomically: its presence marks a complete
cache entry). Inductor's own caches (FX graph cache, compiled kernels) go to a scratch folder that
is removed afterwards: every compile here is a cold compile, and its time is what compile_s
reports; reuse across runs is the C++ side's package cache. Two things that are the same for
every model are reused: the precompiled headers that Inductor keeps in its default temporary
folder, and its probes of the CPU's vector instruction sets (a small library compiled and loaded
for each, 6-8 s), which are made in Inductor's default cache folder too (/tmp/torchinductor_<user>,
or TORCHINDUCTOR_CACHE_DIR where it is set), before the model's compile starts: they depend on
the machine, the compiler and torch, not on the model or the results folder. meta.json's
vec_isa_s says what they took (about 1 s once the libraries are there: they are only loaded
again).

Before torch.export, constant-shape Reshape, (Un)Squeeze, Expand, Split and scalar Gather
nodes are made static (see specialize_shape_operands): onnx2torch's versions read their shape
or index tensor at run time, which torch.export or Inductor cannot handle.
"""

import argparse
import importlib.metadata
import json
import os
import shutil
import sys
import tempfile
import time


def log(message):
    print(f"inductor_compile: {message}", file=sys.stderr, flush=True)


def first_line(text):
    """One line of an error for the row's error column. torch.export's and Inductor's messages
    state the cause first and append generic advice, so the first line is the informative one."""
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return (lines[0].strip() if lines else "").replace(";", ",")[:300]


def write_json_atomic(path, data):
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(data, f, indent=1, sort_keys=True)
    os.replace(tmp, path)


def import_onnx2torch(torch):
    """Imports onnx2torch, which imports torchvision (for its NMS and RoiAlign converters).

    PyPI's torchvision 0.28.0 (the release paired with torch 2.13.0) is built against CUDA torch,
    so with the CPU torch wheel its C++ ops do not load and torchvision's import fails while
    registering fake kernels for torchvision::nms/qnms. The models here use neither op; declaring
    the two operator schemas, without any kernel, lets the pure-Python part of torchvision import
    (python/export_timm.py does the same for timm). A model that did use NMS would then fail in
    torch.export, naming the operator.
    """
    import glob  # pylint: disable=import-outside-toplevel
    import importlib.util  # pylint: disable=import-outside-toplevel

    spec = importlib.util.find_spec("torchvision")
    if spec is not None:
        extension = glob.glob(os.path.join(os.path.dirname(spec.origin), "_C*.so"))
        try:
            torch.ops.load_library(extension[0])
        except (IndexError, OSError):
            lib = torch.library.Library("torchvision", "DEF")
            lib.define("nms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor")
            lib.define("qnms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor")
            import_onnx2torch.schemas = lib  # a Library deregisters its definitions when collected
    import onnx2torch  # pylint: disable=import-outside-toplevel

    return onnx2torch


def specialize_shape_operands(module, inputs, torch):
    """Replaces onnx2torch's Reshape, Squeeze, Unsqueeze, Expand, Split and scalar Gather modules
    whose shape (axes, split sizes, index) operand is a constant by torch.reshape /
    torch.broadcast_to / torch.split / torch.select with Python ints.

    onnx2torch passes these operands as tensors (initializer buffers) and reads their values at
    run time (Reshape: `torch.any(shape == 0)`, since ONNX's 0 copies the input's dimension;
    Expand: `torch.Size(shape)`; Split, Squeeze, Unsqueeze: `.tolist()`). torch.export traces with fake tensors,
    so those reads are data-dependent and do not export (GuardOnDataDependentSymNode, a TypeError
    from torch.Size, or unbacked sizes). Shapes are static here: running the module once on the
    example inputs (ShapeProp) gives each node's result shape, which is all a constant-shape
    Reshape or Expand needs (ONNX Expand's bidirectional broadcast is torch.broadcast_to of the
    input to that result shape); Split's sizes are the constant's values; a Slice with constant
    starts, ends, axes and steps becomes its indexing. Other onnx2torch modules that read a
    tensor operand's values (Pad, Resize, ConstantOfShape, ...) are left as they are: a model
    using them fails in torch.export, naming the module.
    Returns how many nodes were replaced.
    """
    from torch.fx.passes.shape_prop import ShapeProp  # pylint: disable=import-outside-toplevel

    def result_shape(node):
        meta = node.meta.get("tensor_meta")
        return tuple(int(d) for d in meta.shape) if hasattr(meta, "shape") else None

    # class name -> (function, args) for the node; None when the node's form is not handled.
    def reshape(node, _submodule, data, _constant):
        shape = result_shape(node)
        return (torch.reshape, (data, shape)) if shape is not None else None

    def expand(node, _submodule, data, _constant):
        shape = result_shape(node)
        return (torch.broadcast_to, (data, shape)) if shape is not None else None

    def split(_node, submodule, data, constant):
        sizes = [int(v) for v in constant.tolist()]
        return torch.split, (data, sizes, submodule.axis)

    # A Gather of one constant index (a 0-d tensor: timm's class-token pick) indexes with that
    # tensor, which PyTorch turns into an integer with .item(); torch.export keeps that read,
    # and Inductor cannot lower it. torch.select with the index as an int is the same.
    def gather(_node, submodule, data, constant):
        if constant.dim() != 0:
            return None
        return torch.select, (data, submodule._axis, int(constant))  # pylint: disable=protected-access

    # Squeeze and Unsqueeze with constant axes only drop or insert dimensions of size 1: a
    # reshape to the result shape.
    builders = {"OnnxReshape": reshape, "OnnxSqueezeDynamicAxes": reshape,
                "OnnxUnsqueezeDynamicAxes": reshape, "OnnxExpand": expand, "OnnxSplit13": split,
                "OnnxGather": gather}
    ShapeProp(module).propagate(*inputs)

    def constant_of(arg):
        if getattr(arg, "op", None) != "get_attr":
            return None
        value = module
        for part in arg.target.split("."):
            value = getattr(value, part)
        return value

    # Slice's starts, ends, axes and steps are operands too (onnx2torch reads them with .numpy()
    # at run time): with all of them constant, its own index computation is done here once, and
    # the node becomes its indexing with Python ints and slices.
    from onnx2torch.node_converters import slice as onnx_slice  # pylint: disable=import-outside-toplevel

    def as_ints(value):
        return None if value is None else value.detach().cpu().numpy().astype("int64")

    def python_ints(items):
        return [slice(*(None if v is None else int(v) for v in (i.start, i.stop, i.step)))
                if isinstance(i, slice) else i for i in items]

    replaced = 0
    for node in list(module.graph.nodes):
        if (node.op == "call_module" and not node.kwargs and len(node.args) >= 3 and
                type(module.get_submodule(node.target)).__name__ == "OnnxSlice"):
            operands = [constant_of(arg) for arg in node.args[1:]]
            if any(value is None for value in operands):
                continue
            operands += [None] * (4 - len(operands))
            starts, ends, axes, steps = operands
            # As onnx2torch's forward passes them: starts and ends are iterated, axes and steps
            # converted from tensors.
            flip, pos, neg = onnx_slice._get_slices(  # pylint: disable=protected-access
                as_ints(starts), as_ints(ends), axes, steps)
            args = (node.args[0], [int(d) for d in flip], python_ints(pos), python_ints(neg))
            with module.graph.inserting_after(node):
                new = module.graph.call_function(
                    onnx_slice._do_slice, args)  # pylint: disable=protected-access
            new.meta = dict(node.meta)
            node.replace_all_uses_with(new)
            module.graph.erase_node(node)
            replaced += 1
            continue
        if node.op != "call_module" or len(node.args) != 2 or node.kwargs:
            continue
        submodule = module.get_submodule(node.target)
        builder = builders.get(type(submodule).__name__)
        data, operand = node.args
        if builder is None or getattr(operand, "op", None) != "get_attr":
            continue
        constant = module
        for part in operand.target.split("."):
            constant = getattr(constant, part)
        built = builder(node, submodule, data, constant)
        if built is None:
            continue
        with module.graph.inserting_after(node):
            new = module.graph.call_function(built[0], built[1])
        new.meta = dict(node.meta)
        node.replace_all_uses_with(new)
        module.graph.erase_node(node)
        replaced += 1
    module.graph.eliminate_dead_code()
    module.delete_all_unused_submodules()
    module.recompile()
    return replaced


def drop_inert_allowzero(model):
    """Clears Reshape's allowzero=1 where the target shape is a constant without zeros.

    allowzero only changes what a 0 in the shape means (copy the input's dimension, or an empty
    dimension); without a 0 both readings are the same reshape. PyTorch's dynamo exporter writes
    allowzero=1 on every Reshape, and onnx2torch refuses the attribute outright. Returns how many
    were cleared.
    """
    from onnx import numpy_helper  # pylint: disable=import-outside-toplevel

    constants = {init.name: init for init in model.graph.initializer}
    for node in model.graph.node:
        if node.op_type == "Constant":
            for attr in node.attribute:
                if attr.name == "value":
                    constants[node.output[0]] = attr.t
    cleared = 0
    for node in model.graph.node:
        if node.op_type != "Reshape" or len(node.input) < 2 or node.input[1] not in constants:
            continue
        for attr in list(node.attribute):
            if attr.name == "allowzero" and attr.i == 1:
                if 0 not in numpy_helper.to_array(constants[node.input[1]]).tolist():
                    node.attribute.remove(attr)
                    cleared += 1
    return cleared


def example_inputs(model, torch):
    """Zero tensors of the graph inputs' static shapes (float32: fp32 only for now)."""
    from onnx import TensorProto  # pylint: disable=import-outside-toplevel

    initializers = {init.name for init in model.graph.initializer}
    inputs = []
    for value in model.graph.input:
        if value.name in initializers:
            continue
        tensor_type = value.type.tensor_type
        if tensor_type.elem_type != TensorProto.FLOAT:
            raise ValueError(f"input '{value.name}' is not float32 (fp32 only)")
        shape = []
        for dim in tensor_type.shape.dim:
            if not dim.HasField("dim_value"):
                raise ValueError(f"input '{value.name}' has a dynamic dimension")
            shape.append(dim.dim_value)
        inputs.append(torch.zeros(shape, dtype=torch.float32))
    return tuple(inputs)


def convert_onnx(path, onnx2torch, torch, meta):
    """ONNX -> onnx2torch module with its static-shape rewrites (step 1 above), and the example
    inputs: (module, inputs), on the CPU."""
    import onnx  # pylint: disable=import-outside-toplevel

    start = time.monotonic()
    # Weights stored as external data are read from the files beside the model.
    model = onnx.load(path, load_external_data=True)
    meta["allowzero_cleared"] = drop_inert_allowzero(model)
    inputs = example_inputs(model, torch)
    module = onnx2torch.convert(model).eval()
    with torch.no_grad():
        meta["shapes_specialized"] = specialize_shape_operands(module, inputs, torch)
    meta["convert_s"] = time.monotonic() - start
    return module, inputs


def export_onnx(path, onnx2torch, torch, meta, device):
    """ONNX -> onnx2torch module -> torch.export program (steps 1 and 2 above), on `device`."""
    module, inputs = convert_onnx(path, onnx2torch, torch, meta)
    if device != "cpu":
        module = module.to(device)
        inputs = tuple(t.to(device) for t in inputs)

    start = time.monotonic()
    with torch.no_grad():
        exported = torch.export.export(module, inputs, strict=False)
    meta["export_s"] = time.monotonic() - start
    return exported


def export_torchscript(path, shapes, torch, meta, device):
    """The model IR traced to TorchScript by the C++ module (the torchscript route) -> a
    torch.export program, by PyTorch's TorchScript-to-ExportedProgram converter.

    The converter's last step is torch.export of the module it built, with every dimension of every
    input dynamic (Dim.AUTO; only those of size 1 end up specialized), and it has no option for
    static shapes. A program dynamic in the image size is not what the other routes compile, nor
    always right: with freezing's weight prepacking, Inductor compiled xcit_nano_12_p16 at batch 1
    into a package 0.83 off (max relative error) and gcvit_xxtiny into one 2.5e-3 off, and
    visformer_tiny did not export ("The inequality, 14 - 14*(((x/2)//8)) < 0, cannot be solved");
    with static shapes all three are right (2.5e-7, 4.5e-7, 6.2e-6). So that step runs here with the
    static shapes of every route (step 2 above): the converter's call of torch.export._trace._export
    is given dynamic_shapes=None (torchscript_to_program). Should a later torch export it another
    way, that function's check fails the compile rather than compile a dynamic program.
    """
    start = time.monotonic()
    module = torch.jit.load(path, map_location="cpu")
    inputs = tuple(torch.zeros(shape, dtype=torch.float32) for shape in shapes)
    exported = torchscript_to_program(module, inputs, torch)
    if device != "cpu":
        from torch.export.passes import move_to_device_pass  # pylint: disable=import-outside-toplevel

        exported = move_to_device_pass(exported, device)
    meta["export_s"] = time.monotonic() - start
    return exported


def torchscript_to_program(module, inputs, torch):
    """A TorchScript module -> a torch.export program with the static shapes of `inputs`, by
    PyTorch's TorchScript-to-ExportedProgram converter (see export_torchscript for why its
    torch.export call is given dynamic_shapes=None)."""
    from unittest import mock  # pylint: disable=import-outside-toplevel

    from torch._export.converter import TS2EPConverter  # pylint: disable=import-outside-toplevel

    export = torch.export._trace._export  # pylint: disable=protected-access

    def static_export(*args, **kwargs):
        kwargs["dynamic_shapes"] = None
        return export(*args, **kwargs)

    with torch.no_grad(), mock.patch.object(torch.export._trace, "_export", static_export):
        exported = TS2EPConverter(module, inputs).convert()
    for node in exported.graph.nodes:
        if node.op == "placeholder" and any(not isinstance(d, int)
                                            for d in getattr(node.meta.get("val"), "shape", ())):
            raise RuntimeError(f"the TorchScript converter's program has a dynamic input shape "
                               f"({node.name}: {tuple(node.meta['val'].shape)}); static expected")
    return exported


def constant_matmuls_to_linear(module, torch):
    """In a torch.export program's module (exported.module(): constants as get_attr nodes),
    replaces each aten.matmul of an activation by a constant 2-D weight [K, N] with aten.linear of
    the weight transposed ([N, K]), taking a following aten.add of a constant [N] bias into the
    linear's bias. The same product; but ONNX writes a linear layer on a 3-D input (a transformer's
    projections) as MatMul and Add, which onnx2torch and the IR turn into matmul, and the PT2E
    quantizers annotate linear (its weight per output channel), not matmul. Returns how many
    were replaced."""

    def constant(node):
        if getattr(node, "op", None) != "get_attr":
            return None
        value = module
        for part in node.target.split("."):
            value = getattr(value, part)
        return value if isinstance(value, torch.Tensor) else None

    replaced = 0
    for node in list(module.graph.nodes):
        if (node.op != "call_function" or node.target != torch.ops.aten.matmul.default or
                len(node.args) != 2 or node.kwargs):
            continue
        x, w = node.args
        weight = constant(w)
        if weight is None or weight.dim() != 2 or getattr(x, "op", None) == "get_attr":
            continue
        args = [x]
        weight_name = f"_ngb_linear_weight_{replaced}"
        # Parameters, as a linear layer's are: Inductor's freezing folds those into constants
        # (and so the quantized weight into oneDNN's packed int8 one), not buffers.
        module.register_parameter(weight_name, torch.nn.Parameter(
            weight.detach().t().contiguous(), requires_grad=False))
        bias_node = None
        users = list(node.users)
        if (len(users) == 1 and users[0].op == "call_function" and
                users[0].target == torch.ops.aten.add.Tensor and not users[0].kwargs and
                len(users[0].args) == 2):
            other = [a for a in users[0].args if a is not node]
            bias = constant(other[0]) if len(other) == 1 else None
            if bias is not None and bias.dim() == 1 and bias.shape[0] == weight.shape[1]:
                bias_node = users[0]
                bias_name = f"_ngb_linear_bias_{replaced}"
                module.register_parameter(bias_name, torch.nn.Parameter(
                    bias.detach().clone(), requires_grad=False))
        with module.graph.inserting_before(node):
            args.append(module.graph.get_attr(weight_name))
            if bias_node is not None:
                args.append(module.graph.get_attr(bias_name))
            new = module.graph.call_function(torch.ops.aten.linear.default, tuple(args))
        last = bias_node if bias_node is not None else node
        new.meta = dict(last.meta)
        # The quantizers find linear layers by the function a node came from.
        new.meta["source_fn_stack"] = [(new.name, torch.nn.functional.linear)]
        last.replace_all_uses_with(new)
        if bias_node is not None:
            module.graph.erase_node(bias_node)
        module.graph.erase_node(node)
        replaced += 1
    if replaced:
        module.graph.eliminate_dead_code()
        module.recompile()
    return replaced


def convolutions_as_conv(module, torch):
    """In a torch.export program's module, each aten.convolution (what PyTorch's
    TorchScript-to-ExportedProgram converter makes of a convolution: the torchscript routes)
    that is not transposed becomes aten.conv1d or aten.conv2d, the operators the quantizers look
    for, and each conv2d and linear without it gets the meta of the function it came from, by
    which the quantizers find such layers (the converter sets none); their weights and biases
    held as plain tensor attributes (the converter's lifted constants) become parameters, as a
    layer's are, so that prepare_pt2e can fold a following batch norm into them (it registers
    the folded weight as a parameter of that name). The same computation. Returns how many nodes
    were changed."""

    def as_parameter(node):
        if getattr(node, "op", None) != "get_attr":
            return
        *path, name = node.target.split(".")
        owner = module
        for part in path:
            owner = getattr(owner, part)
        value = getattr(owner, name, None)
        if (isinstance(value, torch.Tensor) and name not in owner._parameters and  # pylint: disable=protected-access
                name not in owner._buffers and value.is_floating_point()):  # pylint: disable=protected-access
            delattr(owner, name)
            owner.register_parameter(name, torch.nn.Parameter(value.detach(), requires_grad=False))

    functions = {torch.ops.aten.conv1d.default: torch.nn.functional.conv1d,
                 torch.ops.aten.conv2d.default: torch.nn.functional.conv2d,
                 torch.ops.aten.linear.default: torch.nn.functional.linear}
    changed = 0
    for node in list(module.graph.nodes):
        if node.op != "call_function":
            continue
        if node.target == torch.ops.aten.convolution.default and len(node.args) == 9:
            x, w, b, stride, padding, dilation, transposed, output_padding, groups = node.args
            rank = len(getattr(w.meta.get("val"), "shape", ())) if hasattr(w, "meta") else 0
            if transposed or any(output_padding) or rank not in (3, 4):
                continue
            target = torch.ops.aten.conv1d.default if rank == 3 else torch.ops.aten.conv2d.default
            with module.graph.inserting_before(node):
                new = module.graph.call_function(
                    target, (x, w, b, list(stride), list(padding), list(dilation), groups))
            new.meta = dict(node.meta)
            node.replace_all_uses_with(new)
            module.graph.erase_node(node)
            node = new
            changed += 1
        if node.target in functions:
            for arg in node.args[1:3]:
                as_parameter(arg)
            if not node.meta.get("source_fn_stack"):
                node.meta["source_fn_stack"] = [(node.name, functions[node.target])]
                changed += 1
    if changed:
        module.recompile()
    return changed


def quantize_pt2e(exported, calibration, quantizer, name, torch, meta):
    """Static post-training quantization of a torch.export program by PyTorch's PT2E flow:
    prepare_pt2e with `quantizer` (observers where it annotates), the calibration batches run
    through the prepared module, convert_pt2e (quantize/dequantize pairs around the annotated
    operators, weights quantized), and torch.export again, with the first batch as the example.

    `calibration`: tensor files (read_tensor_file), one batch each, every model input in order.
    A quantizer that annotates nothing leaves a float program: that is an error (the run must
    not be fp32 under the name int8), naming the quantizer.
    """
    from torchao.quantization.pt2e.quantize_pt2e import (  # pylint: disable=import-outside-toplevel
        convert_pt2e, prepare_pt2e)

    start = time.monotonic()
    shapes = [tuple(node.meta["val"].shape) for node in exported.graph.nodes
              if node.op == "placeholder" and node.name in exported.graph_signature.user_inputs]
    # python/tensor_file.py, on the PYTHONPATH the worker gives this script.
    from tensor_file import read_tensor_file  # pylint: disable=import-error,import-outside-toplevel

    batches = [[torch.from_numpy(array) for array in read_tensor_file(path)]
               for path in calibration]
    for path, batch in zip(calibration, batches):
        got = [tuple(t.shape) for t in batch]
        if got != shapes:
            raise ValueError(f"calibration batch {path}: tensors of shapes {got}, the program's "
                             f"inputs are {shapes}")
    module = exported.module()
    meta["matmuls_to_linear"] = constant_matmuls_to_linear(module, torch)
    meta["convolutions_renamed"] = convolutions_as_conv(module, torch)
    prepared = prepare_pt2e(module, quantizer)
    with torch.no_grad():
        for batch in batches:
            prepared(*batch)
    converted = convert_pt2e(prepared)
    quantize = dequantize = 0
    for node in converted.graph.nodes:
        target = str(node.target)
        if node.op == "call_function" and target.startswith("quantized_decomposed.quantize_"):
            quantize += 1
        elif node.op == "call_function" and target.startswith("quantized_decomposed.dequantize_"):
            dequantize += 1
    if quantize == 0:
        raise RuntimeError(f"the {name} quantizer annotated no operator of the model (it "
                           f"quantizes convolutions, linear layers and the operators around "
                           f"them): the program would run fp32")
    with torch.no_grad():
        program = torch.export.export(converted, tuple(batches[0]), strict=False)
    meta["calibration_batches"] = len(batches)
    meta["quantize_nodes"] = quantize
    meta["dequantize_nodes"] = dequantize
    meta["quantize_s"] = time.monotonic() - start
    meta["torchao_version"] = importlib.metadata.version("torchao")
    return program


def x86_inductor_quantizer():
    """The x86 Inductor quantizer with its default static configuration."""
    from torchao.quantization.pt2e.quantizer import (  # pylint: disable=import-outside-toplevel
        x86_inductor_quantizer as x86)

    quantizer = x86.X86InductorQuantizer()
    quantizer.set_global(x86.get_default_x86_inductor_quantization_config(is_dynamic=False))
    return quantizer


# What quantize_pt2e does with x86_inductor_quantizer (docs/compilers.md, Quantization).
X86_SCHEME = ("pt2e:x86_inductor:w=int8/per_channel/symmetric,a=uint8/per_tensor/asymmetric,"
              "histogram")


def int8_calls(package):
    """The oneDNN integer kernels the package's wrapper calls (qconv, qlinear), by name: what
    Inductor lowered the quantized operators to. An int8 program whose count is 0 runs its
    convolutions and matrix products in float (dequantized weights)."""
    import re  # pylint: disable=import-outside-toplevel
    import zipfile  # pylint: disable=import-outside-toplevel

    calls = {}
    with zipfile.ZipFile(package) as archive:
        for name in archive.namelist():
            if name.endswith(".wrapper.cpp"):
                text = archive.read(name).decode("utf-8", "replace")
                for match in re.finditer(r"aoti_torch_cpu__(q(?:conv|linear)\w*)\(", text):
                    calls[match.group(1)] = calls.get(match.group(1), 0) + 1
    return calls


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--onnx", help="the model (ONNX ModelProto file)")
    source.add_argument("--program", help="a model given as PyTorch code: its torch.export "
                        "program (torch.export.save), compiled as it is")
    source.add_argument("--torchscript", help="the model IR traced to TorchScript (torch.jit "
                        "save format), exported by the TorchScript converter")
    parser.add_argument("--input-shape", action="append", default=[],
                        help="with --torchscript: an input's shape, e.g. 1,3,224,224, in order")
    parser.add_argument("--out-dir", required=True, help="cache entry: model.pt2 and meta.json")
    parser.add_argument("--threads", type=int, required=True, help="OpenMP threads of the kernels")
    parser.add_argument("--device", default="cpu", choices=["cpu", "cuda"],
                        help="where the package runs: cpu (C++/OpenMP kernels) or cuda (Triton)")
    parser.add_argument("--max-autotune", action="store_true",
                        help="Inductor max_autotune: benchmark GEMM/conv templates while compiling")
    parser.add_argument("--freezing", action="store_true",
                        help="Inductor freezing: weights become constants (folding, prepacking)")
    parser.add_argument("--calibration", nargs="+", default=[],
                        help="precision int8: tensor files, one calibration batch each; the "
                        "program is quantized with the x86 Inductor quantizer (PT2E) first")
    parser.add_argument("--kernel-profile", action="store_true",
                        help="Inductor cpp.enable_kernel_profile: each kernel and extern call in "
                        "a RecordFunction, for the profile (never for timed runs)")
    args = parser.parse_args()

    os.makedirs(args.out_dir, exist_ok=True)
    scratch = tempfile.mkdtemp(prefix="inductor-", dir=args.out_dir)
    # Before torch is imported: Inductor reads it when its config module loads. Inductor's cache
    # folder is first its default, for the vector-ISA probes (kept), then the model's (scratch,
    # see the top).
    os.environ["OMP_NUM_THREADS"] = str(args.threads)
    try:
        import torch  # pylint: disable=import-outside-toplevel
        import torch._inductor  # pylint: disable=import-outside-toplevel
        from torch._inductor import cpu_vec_isa  # pylint: disable=import-outside-toplevel

        start = time.monotonic()
        if args.device == "cpu":
            cpu_vec_isa.valid_vec_isa_list()  # probes each ISA once; kept for this process
        vec_isa_s = time.monotonic() - start
        os.environ["TORCHINDUCTOR_CACHE_DIR"] = os.path.join(scratch, "inductor-cache")

        torch.set_num_threads(args.threads)
        meta = {
            "torch_version": torch.__version__,
            "threads": args.threads,
            "max_autotune": args.max_autotune,
            "freezing": args.freezing,
            "kernel_profile": args.kernel_profile,
            "vec_isa_s": vec_isa_s,
        }
        meta["device"] = args.device
        if args.device == "cuda":
            if not torch.cuda.is_available():
                raise RuntimeError(f"device cuda: torch {torch.__version__} sees no CUDA GPU")
            meta["gpu"] = torch.cuda.get_device_name(0)
        if args.program:
            start = time.monotonic()
            exported = torch.export.load(args.program)
            if args.device != "cpu":
                # Saved on the CPU by python/export_torch.py: weights and constants moved.
                from torch.export.passes import move_to_device_pass  # pylint: disable=import-outside-toplevel

                exported = move_to_device_pass(exported, args.device)
            meta["export_s"] = time.monotonic() - start
        elif args.torchscript:
            shapes = [[int(d) for d in s.split(",")] for s in args.input_shape]
            exported = export_torchscript(args.torchscript, shapes, torch, meta, args.device)
        else:
            meta["onnx2torch_version"] = importlib.metadata.version("onnx2torch")
            exported = export_onnx(args.onnx, import_onnx2torch(torch), torch, meta, args.device)

        if args.calibration:
            if args.device != "cpu":
                raise RuntimeError("precision int8 runs on device cpu only")
            if not args.freezing:
                raise RuntimeError("precision int8 needs freezing (Inductor lowers the quantized "
                                   "operators to oneDNN's integer kernels only when freezing)")
            exported = quantize_pt2e(exported, args.calibration, x86_inductor_quantizer(),
                                     "x86 Inductor", torch, meta)
            meta["quantization"] = X86_SCHEME

        inductor_configs = {
            "max_autotune": args.max_autotune,
            "freezing": args.freezing,
            "cpp.threads": args.threads,
        }
        if args.kernel_profile:
            inductor_configs["cpp.enable_kernel_profile"] = True
        meta["inductor_configs"] = dict(inductor_configs)  # Inductor adds its own keys to it
        # Written under a scratch name and renamed: a concurrent worker compiling the same entry
        # never sees a partial package.
        package = os.path.join(args.out_dir, "model.pt2")
        partial = os.path.join(scratch, "model.pt2")
        start = time.monotonic()
        with torch.no_grad():
            torch._inductor.aoti_compile_and_package(  # pylint: disable=protected-access
                exported, package_path=partial, inductor_configs=inductor_configs)
        meta["inductor_s"] = time.monotonic() - start
        if args.calibration:
            meta["int8_calls"] = int8_calls(partial)
        os.replace(partial, package)
        meta["package_bytes"] = os.path.getsize(package)
        write_json_atomic(os.path.join(args.out_dir, "meta.json"), meta)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    # python/script_exit.py, on the PYTHONPATH the worker gives this script: exit 1 on an error,
    # 74 when the storage failed (a full disk is not the compiler's failure).
    import script_exit  # pylint: disable=import-error

    script_exit.run_main(main, "inductor_compile", first_line)
