// The build of ngraphbench that runs: what a row records as ngraphbench_version and what
// `--version` prints.
#pragma once

namespace ngraphbench {

// "<project version>+<git describe --always --dirty>" of the source tree as it was built, or the
// project version alone outside a git checkout. Stamped at every build, not only when CMake
// configures, so an incremental build after a commit or an edit names its own source.
const char* BuildVersion();

}  // namespace ngraphbench
