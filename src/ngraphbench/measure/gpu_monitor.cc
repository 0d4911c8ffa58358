#include "ngraphbench/measure/gpu_monitor.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <type_traits>
#include <vector>

namespace ngraphbench {

namespace {

namespace fs = std::filesystem;

// The part of NVML's C ABI used here, declared rather than taken from nvml.h so that nothing of
// the driver's is needed to build. Return codes are nvmlReturn_t values.
using NvmlReturn = int;
using NvmlDevice = void*;
constexpr NvmlReturn kNvmlSuccess = 0;
constexpr NvmlReturn kNvmlErrorNotSupported = 3;
// usedGpuMemory of a process whose figure NVML cannot give (NVML_VALUE_NOT_AVAILABLE).
constexpr unsigned long long kNvmlValueNotAvailable = ~0ULL;

struct NvmlUtilization {
  unsigned gpu, memory;  // percent of the last sample period (1/6 s to 1 s, by product)
};
struct NvmlMemory {
  unsigned long long total, free, used;  // bytes
};
struct NvmlProcessInfoV1 {  // the unversioned nvmlDeviceGetComputeRunningProcesses
  unsigned pid;
  unsigned long long usedGpuMemory;
};
struct NvmlProcessInfoV3 {  // nvmlProcessInfo_v2_t and _v3_t: one layout
  unsigned pid;
  unsigned long long usedGpuMemory;
  unsigned gpuInstanceId, computeInstanceId;
};

// The most processes one sample lists; with more (a shared GPU) the device's used memory is
// taken for that sample.
constexpr unsigned kMaxProcesses = 256;

constexpr double kMiB = 1024.0 * 1024.0;

// A small sysfs file's first line, with plain syscalls: cheap and allocation-free, as the
// sampler thread reads it every period.
bool ReadSmallFile(const char* path, char* buf, size_t size) {
  const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const ssize_t n = ::read(fd, buf, size - 1);
  ::close(fd);
  if (n <= 0) return false;
  buf[n] = '\0';
  return true;
}

// The Jetson GPU's load file holds per-mille (0-1000) of the last sampling interval.
std::optional<double> ReadLoadPct(const std::string& path) {
  char buf[32];
  if (!ReadSmallFile(path.c_str(), buf, sizeof(buf))) return std::nullopt;
  char* end = nullptr;
  const long v = std::strtol(buf, &end, 10);
  if (end == buf || v < 0 || v > 1000) return std::nullopt;
  return static_cast<double>(v) / 10.0;
}

std::string FirstLine(const fs::path& path) {
  char buf[128];
  if (!ReadSmallFile(path.c_str(), buf, sizeof(buf))) return "";
  std::string s(buf);
  // of_node/name ends in a NUL on device-tree systems, a newline elsewhere.
  s = s.substr(0, s.find_first_of(std::string("\n\0", 2)));
  return s;
}

void AppendNote(std::string* note, const std::string& part) {
  if (part.empty()) return;
  *note += (note->empty() ? "" : "; ") + part;
}

}  // namespace

struct GpuMonitor::Nvml {
  NvmlReturn (*init)();
  NvmlReturn (*shutdown)();
  const char* (*error_string)(NvmlReturn);
  NvmlReturn (*handle_by_index)(unsigned, NvmlDevice*);
  NvmlReturn (*handle_by_uuid)(const char*, NvmlDevice*);  // may be null
  NvmlReturn (*name)(NvmlDevice, char*, unsigned);
  NvmlReturn (*utilization)(NvmlDevice, NvmlUtilization*);
  NvmlReturn (*memory)(NvmlDevice, NvmlMemory*);
  // One of the two, by what the library exports.
  NvmlReturn (*processes_v3)(NvmlDevice, unsigned*, NvmlProcessInfoV3*);
  NvmlReturn (*processes_v1)(NvmlDevice, unsigned*, NvmlProcessInfoV1*);
  NvmlReturn (*power_mw)(NvmlDevice, unsigned*);
  NvmlReturn (*energy_mj)(NvmlDevice, unsigned long long*);
  NvmlDevice device = nullptr;
  unsigned pid = 0;
  // Filled by Sample() on the sampler thread only.
  std::vector<NvmlProcessInfoV3> processes_v3_buf;
  std::vector<NvmlProcessInfoV1> processes_v1_buf;

  std::string Error(NvmlReturn r) const {
    const char* s = error_string ? error_string(r) : nullptr;
    return (s ? std::string(s) : std::string("error")) + " (" + std::to_string(r) + ")";
  }
};

GpuMonitorSettings GpuMonitorSettingsFromEnvironment() {
  GpuMonitorSettings s;
  if (const char* v = std::getenv(kNvmlLibraryEnv); v && *v) s.nvml_library = v;
  if (const char* v = std::getenv(kSysfsRootEnv); v && *v) s.sysfs_root = v;
  if (const char* v = std::getenv("CUDA_VISIBLE_DEVICES")) s.visible_devices = v;
  return s;
}

VisibleDevice ParseVisibleDevices(const std::optional<std::string>& value) {
  VisibleDevice d;
  if (!value) {
    d.index = 0;
    return d;
  }
  std::string first = value->substr(0, value->find(','));
  first.erase(0, first.find_first_not_of(' '));
  first.erase(first.find_last_not_of(' ') + 1);
  if (!first.empty() && first.find_first_not_of("0123456789") == std::string::npos &&
      first.size() <= 9) {
    d.index = static_cast<unsigned>(std::stoul(first));
  } else if (first.rfind("GPU-", 0) == 0 || first.rfind("MIG-", 0) == 0) {
    d.uuid = first;
  }
  return d;
}

GpuMonitor::GpuMonitor(GpuMonitorSettings settings) : settings_(std::move(settings)) { Open(); }

GpuMonitor::~GpuMonitor() {
  // nvmlShutdown balances nvmlInit (NVML counts them). The library stays loaded: the driver's
  // library may have threads or exit handlers of its own, and a second monitor in this process
  // gets the same handle back from dlopen.
  if (nvml_) nvml_->shutdown();
}

bool GpuMonitor::OpenNvml(std::string* why) {
  void* lib = ::dlopen(settings_.nvml_library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char* err = ::dlerror();
    *why = settings_.nvml_library + " not loadable" + (err ? std::string(" (") + err + ")" : "");
    return false;
  }
  auto nvml = std::make_unique<Nvml>();
  std::string missing;
  auto sym = [&](auto& fn, const char* name, bool required = true) {
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(::dlsym(lib, name));
    if (!fn && required) missing += (missing.empty() ? "" : ", ") + std::string(name);
  };
  sym(nvml->init, "nvmlInit_v2");
  sym(nvml->shutdown, "nvmlShutdown");
  sym(nvml->error_string, "nvmlErrorString", false);
  sym(nvml->handle_by_index, "nvmlDeviceGetHandleByIndex_v2");
  sym(nvml->handle_by_uuid, "nvmlDeviceGetHandleByUUID", false);
  sym(nvml->name, "nvmlDeviceGetName");
  sym(nvml->utilization, "nvmlDeviceGetUtilizationRates");
  sym(nvml->memory, "nvmlDeviceGetMemoryInfo");
  sym(nvml->power_mw, "nvmlDeviceGetPowerUsage");
  sym(nvml->energy_mj, "nvmlDeviceGetTotalEnergyConsumption", false);
  // nvml.h maps the name to the newest version, whose struct is larger than the unversioned
  // (v1) function's: each is called with its own layout. v2 and v3 share theirs.
  sym(nvml->processes_v3, "nvmlDeviceGetComputeRunningProcesses_v3", false);
  if (!nvml->processes_v3)
    sym(nvml->processes_v3, "nvmlDeviceGetComputeRunningProcesses_v2", false);
  if (!nvml->processes_v3) sym(nvml->processes_v1, "nvmlDeviceGetComputeRunningProcesses", false);
  if (!missing.empty()) {
    *why = settings_.nvml_library + " lacks " + missing;
    return false;
  }
  if (const NvmlReturn r = nvml->init(); r != kNvmlSuccess) {
    *why = "nvmlInit_v2 failed: " + nvml->Error(r);
    return false;
  }
  const VisibleDevice visible = ParseVisibleDevices(settings_.visible_devices);
  NvmlReturn r = kNvmlSuccess;
  if (visible.index) {
    r = nvml->handle_by_index(*visible.index, &nvml->device);
  } else if (!visible.uuid.empty() && nvml->handle_by_uuid) {
    r = nvml->handle_by_uuid(visible.uuid.c_str(), &nvml->device);
  } else {
    nvml->shutdown();
    *why = "CUDA_VISIBLE_DEVICES=" + settings_.visible_devices.value_or("") +
           " names no GPU that NVML can look up";
    return false;
  }
  if (r != kNvmlSuccess) {
    *why = "no GPU " +
           (visible.index ? "with index " + std::to_string(*visible.index) : visible.uuid) + ": " +
           nvml->Error(r);
    nvml->shutdown();
    return false;
  }
  char name[96] = {};  // NVML_DEVICE_NAME_V2_BUFFER_SIZE
  device_ = nvml->name(nvml->device, name, sizeof(name)) == kNvmlSuccess ? name : "NVIDIA GPU";
  nvml->pid = static_cast<unsigned>(::getpid());
  if (nvml->processes_v3) {
    nvml->processes_v3_buf.resize(kMaxProcesses);
  } else if (nvml->processes_v1) {
    nvml->processes_v1_buf.resize(kMaxProcesses);
  }
  nvml_ = std::move(nvml);
  return true;
}

bool GpuMonitor::OpenJetson(std::string* why) {
  const fs::path root = settings_.sysfs_root;
  auto rel = [&](const std::string& p) { return (root / p).string(); };
  // As jetson-stats finds it: the devfreq device whose device-tree node is the GPU (gp10b on
  // TX2, gv11b on Xavier, ga10b on Orin); then the fixed paths of older L4T releases.
  std::vector<std::pair<std::string, std::string>> candidates;  // (load file, GPU name)
  std::error_code ec;
  std::vector<fs::path> entries;
  for (fs::directory_iterator it(root / "sys/class/devfreq", ec), end; !ec && it != end;
       it.increment(ec)) {
    entries.push_back(it->path());
  }
  std::sort(entries.begin(), entries.end());
  for (const fs::path& entry : entries) {
    std::string node = FirstLine(entry / "device/of_node/name");
    const std::string dir = entry.filename().string();
    const bool gpu_node = node == "gpu" || node == "gp10b" || node == "gv11b" || node == "ga10b";
    const bool gpu_dir =
        dir.find("gpu") != std::string::npos || dir.find("gp10b") != std::string::npos ||
        dir.find("gv11b") != std::string::npos || dir.find("ga10b") != std::string::npos;
    if (gpu_node || gpu_dir) {
      candidates.emplace_back((entry / "device/load").string(), gpu_node ? node : dir);
    }
  }
  for (const char* p :
       {"sys/devices/platform/gpu.0/load", "sys/devices/gpu.0/load",
        "sys/devices/platform/17000000.ga10b/load", "sys/devices/17000000.ga10b/load",
        "sys/devices/platform/17000000.gv11b/load", "sys/devices/17000000.gv11b/load"}) {
    candidates.emplace_back(rel(p), "gpu");
  }
  for (const auto& [load, name] : candidates) {
    if (ReadLoadPct(load)) {
      jetson_load_ = load;
      device_ = "Jetson integrated GPU (" + name + ")";
      return true;
    }
  }
  *why = "no GPU load file under " + rel("sys/class/devfreq") + " or " + rel("sys/devices");
  return false;
}

void GpuMonitor::Open() {
  std::string nvml_why, jetson_why;
  if (OpenNvml(&nvml_why)) return;
  if (OpenJetson(&jetson_why)) {
    open_note_ =
        "gpu_mem_mb: a Jetson's GPU shares the CPU's memory (rss_peak_mb counts it); "
        "gpu_power_w, gpu_energy_j: no GPU-only power rail is read on a Jetson";
    return;
  }
  open_note_ = "gpu: no NVIDIA GPU measured: NVML: " + nvml_why + "; Jetson: " + jetson_why;
}

std::optional<uint64_t> GpuMonitor::ReadEnergyMj() {
  if (!nvml_ || !nvml_->energy_mj) {
    if (nvml_) energy_note_ = "gpu_energy_j: NVML has no energy counter (driver too old)";
    return std::nullopt;
  }
  unsigned long long mj = 0;
  const NvmlReturn r = nvml_->energy_mj(nvml_->device, &mj);
  if (r == kNvmlErrorNotSupported) {
    energy_note_ = "gpu_energy_j: NVML: energy counter not supported on " + device_;
    return std::nullopt;
  }
  if (r != kNvmlSuccess) {
    energy_note_ = "gpu_energy_j: NVML: energy counter not readable: " + nvml_->Error(r);
    return std::nullopt;
  }
  return mj;
}

void GpuMonitor::Start() {
  energy_note_.clear();
  energy_start_mj_ = ReadEnergyMj();
  std::lock_guard<std::mutex> lock(mutex_);
  samples_ = util_samples_ = power_samples_ = 0;
  util_sum_ = power_sum_w_ = 0;
  process_mem_peak_mb_.reset();
  device_mem_peak_mb_.reset();
  util_error_ = memory_error_ = power_error_ = kNvmlSuccess;
  open_window_ = true;
}

void GpuMonitor::Sample() {
  std::optional<double> util, power_w, process_mb, device_mb;
  NvmlReturn util_error = kNvmlSuccess, power_error = kNvmlSuccess, memory_error = kNvmlSuccess;
  if (nvml_) {
    Nvml& n = *nvml_;
    NvmlUtilization u{};
    NvmlReturn r = n.utilization(n.device, &u);
    if (r == kNvmlSuccess) {
      util = u.gpu;
    } else {
      util_error = r;
    }
    unsigned mw = 0;
    r = n.power_mw(n.device, &mw);
    if (r == kNvmlSuccess) {
      power_w = mw / 1000.0;
    } else {
      power_error = r;
    }
    // This process's own memory, found by pid in the list of compute processes.
    unsigned count = kMaxProcesses;
    if (n.processes_v3) {
      r = n.processes_v3(n.device, &count, n.processes_v3_buf.data());
      for (unsigned i = 0; r == kNvmlSuccess && i < count && i < kMaxProcesses; ++i) {
        const auto& p = n.processes_v3_buf[i];
        if (p.pid == n.pid && p.usedGpuMemory != kNvmlValueNotAvailable) {
          process_mb = static_cast<double>(p.usedGpuMemory) / kMiB;
        }
      }
    } else if (n.processes_v1) {
      r = n.processes_v1(n.device, &count, n.processes_v1_buf.data());
      for (unsigned i = 0; r == kNvmlSuccess && i < count && i < kMaxProcesses; ++i) {
        const auto& p = n.processes_v1_buf[i];
        if (p.pid == n.pid && p.usedGpuMemory != kNvmlValueNotAvailable) {
          process_mb = static_cast<double>(p.usedGpuMemory) / kMiB;
        }
      }
    }
    if (!process_mb) {
      NvmlMemory m{};
      r = n.memory(n.device, &m);
      if (r == kNvmlSuccess) {
        device_mb = static_cast<double>(m.used) / kMiB;
      } else {
        memory_error = r;
      }
    }
  } else if (!jetson_load_.empty()) {
    util = ReadLoadPct(jetson_load_);
  } else {
    return;
  }
  std::lock_guard<std::mutex> lock(mutex_);
  if (!open_window_) return;  // the window closed while this sample was read
  ++samples_;
  // The first failure of each figure, for the note.
  if (util_error_ == kNvmlSuccess) util_error_ = util_error;
  if (power_error_ == kNvmlSuccess) power_error_ = power_error;
  if (memory_error_ == kNvmlSuccess) memory_error_ = memory_error;
  if (util) {
    util_sum_ += *util;
    ++util_samples_;
  }
  if (power_w) {
    power_sum_w_ += *power_w;
    ++power_samples_;
  }
  if (process_mb) process_mem_peak_mb_ = std::max(process_mem_peak_mb_.value_or(0), *process_mb);
  if (device_mb) device_mem_peak_mb_ = std::max(device_mem_peak_mb_.value_or(0), *device_mb);
}

GpuStats GpuMonitor::Stop() {
  GpuStats s;
  // The counter first: the window closes here.
  const std::optional<uint64_t> energy_end_mj =
      energy_start_mj_ ? ReadEnergyMj() : std::optional<uint64_t>();
  std::lock_guard<std::mutex> lock(mutex_);
  open_window_ = false;
  s.device = device_;
  s.samples = samples_;
  if (!nvml_ && jetson_load_.empty()) {
    s.note = open_note_;
    return s;
  }
  if (energy_start_mj_ && energy_end_mj && *energy_end_mj >= *energy_start_mj_) {
    s.gpu_energy_j_total = static_cast<double>(*energy_end_mj - *energy_start_mj_) / 1e3;
  }
  if (samples_ == 0) {
    AppendNote(&s.note,
               "gpu: no sample in the timed window (shorter than one sampler period, "
               "or the sampler off)");
  }
  if (util_samples_ > 0) s.gpu_util_pct = util_sum_ / static_cast<double>(util_samples_);
  if (power_samples_ > 0) s.gpu_power_w = power_sum_w_ / static_cast<double>(power_samples_);
  if (process_mem_peak_mb_) {
    s.gpu_mem_mb = process_mem_peak_mb_;
  } else if (device_mem_peak_mb_) {
    s.gpu_mem_mb = device_mem_peak_mb_;
    AppendNote(&s.note,
               "gpu_mem_mb: the whole GPU's used memory (this process is not in NVML's "
               "process list, e.g. in a container's PID namespace)");
  }
  if (nvml_) {
    if (samples_ > 0 && !s.gpu_util_pct && util_error_ != kNvmlSuccess) {
      AppendNote(&s.note, "gpu_util_pct: NVML on " + device_ + ": " + nvml_->Error(util_error_));
    }
    if (samples_ > 0 && !s.gpu_power_w && power_error_ != kNvmlSuccess) {
      AppendNote(&s.note, "gpu_power_w: NVML on " + device_ + ": " + nvml_->Error(power_error_));
    }
    if (samples_ > 0 && !s.gpu_mem_mb && memory_error_ != kNvmlSuccess) {
      AppendNote(&s.note, "gpu_mem_mb: NVML on " + device_ + ": " + nvml_->Error(memory_error_));
    }
    if (!s.gpu_energy_j_total) {
      AppendNote(&s.note, energy_note_.empty()
                              ? "gpu_energy_j: NVML: the energy counter went backwards"
                              : energy_note_);
    }
  } else {
    if (samples_ > 0 && !s.gpu_util_pct) {
      AppendNote(&s.note, "gpu_util_pct: " + jetson_load_ + " became unreadable");
    }
    AppendNote(&s.note, open_note_);
  }
  return s;
}

}  // namespace ngraphbench
