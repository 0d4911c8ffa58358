# `torchscript`: the same LibTorch as `identity` (its JIT: trace, freeze, optimize_for_inference).
if ! declare -F setup_libtorch >/dev/null; then
  source "$(dirname "${BASH_SOURCE[0]}")/identity.sh"
fi

setup_torchscript() {
  setup_libtorch
}
