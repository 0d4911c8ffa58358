# `tensorrt`: TensorRT through ONNX Runtime's TensorRT execution provider. The module is built
# from the same ONNX Runtime library and headers as `onnxruntime` (scripts/setup/onnxruntime.sh,
# sourced before this file); with ./setup.sh --gpu that library is onnxruntime-gpu's and
# TensorRT's libraries come from tensorrt-cu13-libs. Without them the module still builds and its
# runs end as `skipped`, naming what is missing.
setup_tensorrt() {
  setup_onnxruntime
}
