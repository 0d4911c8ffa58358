#include "ngraphbench/measure/machine.h"

#include <sched.h>
#include <sys/utsname.h>
#if defined(__aarch64__) && defined(__linux__)
#include <asm/hwcap.h>
#include <sys/auxv.h>
#endif
#if defined(__GLIBC__)
#include <gnu/libc-version.h>
#endif

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <map>
#include <fmt/core.h>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string_view>

#include "ngraphbench/core/error.h"
#include "ngraphbench/core/file.h"
#include "ngraphbench/core/host.h"
#include "ngraphbench/core/random.h"
#include "ngraphbench/measure/cpuinfo.h"

namespace ngraphbench {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr int kMaxCpuId = 65535;

// A file of /proc or /sys (or a fixture's copy), read as every file is (core/file.h): nullopt when
// it is missing or cannot be read.
std::optional<std::string> ReadSystemFile(const fs::path& path) {
  try {
    return ReadFileIfExists(path.string(), kMaxConfigBytes, "system file");
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

std::string Trim(const std::string& text) {
  const size_t begin = text.find_first_not_of(" \t\r\n");
  if (begin == std::string::npos) return "";
  return text.substr(begin, text.find_last_not_of(" \t\r\n") - begin + 1);
}

// A non-empty run of decimal digits.
bool IsDigits(std::string_view text) {
  return !text.empty() &&
         std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::optional<int64_t> ParseInt(const std::string& text) {
  const std::string t = Trim(text);
  if (t.empty()) return std::nullopt;
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(t.c_str(), &end, 10);
  if (errno != 0 || *end != '\0') return std::nullopt;
  return v;
}

std::optional<int64_t> ReadInt(const fs::path& path) {
  const std::optional<std::string> text = ReadSystemFile(path);
  return text ? ParseInt(*text) : std::nullopt;
}

std::string ReadTrimmed(const fs::path& path) { return Trim(ReadSystemFile(path).value_or("")); }

// The entries of a directory, sorted by name; none when it cannot be read.
std::vector<fs::path> List(const fs::path& dir) {
  std::vector<fs::path> entries;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    entries.push_back(it->path());
  }
  std::sort(entries.begin(), entries.end());
  return entries;
}

// "key : value" lines (cpuinfo, meminfo, task status, the NVIDIA information file): the first
// value of each key (cpuinfo repeats its keys once per processor).
std::map<std::string, std::string> KeyValues(const std::string& text) {
  std::map<std::string, std::string> values;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    const size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    const std::string key = Trim(line.substr(0, colon));
    values.emplace(key, Trim(line.substr(colon + 1)));
  }
  return values;
}

// MIDR_EL1's implementer and part fields as cpuinfo prints them ("0x41", "0xd0c").
std::string MidrName(uint64_t midr) {
  return ArmCoreName(fmt::format("0x{:02x}", (midr >> 24) & 0xff),
                     fmt::format("0x{:03x}", (midr >> 4) & 0xfff));
}

// machine.json's cpu_model: the CPU's name, and on aarch64 its vector extensions (the name of a
// core says less there: the same core ships with and without SVE, and kernels may hide it).
std::string CpuModel(const std::string& cpuinfo) {
  std::string name = CpuName(cpuinfo);
  if (CpuinfoArch(cpuinfo) != "aarch64") return name;
  if (name.empty()) {
    if (auto midr = ReadMidr()) name = MidrName(*midr);
  }
  const std::string isa = VectorIsa(cpuinfo);
  return isa.empty() ? name : name + " (" + isa + ")";
}

// Sockets, cores and logical CPUs from sysfs topology: one cpuN directory per online CPU.
void TopologyFromSysfs(const fs::path& cpu_dir, MachineInfo& m) {
  std::set<int64_t> packages;
  std::set<std::pair<int64_t, int64_t>> cores;
  int threads = 0;
  for (const fs::path& entry : List(cpu_dir)) {
    const std::string name = entry.filename().string();
    if (name.rfind("cpu", 0) != 0 || !IsDigits(std::string_view(name).substr(3))) continue;
    const auto package = ReadInt(entry / "topology" / "physical_package_id");
    const auto core = ReadInt(entry / "topology" / "core_id");
    if (!package || !core) continue;  // offline CPUs have no topology
    ++threads;
    packages.insert(*package);
    cores.insert({*package, *core});
  }
  if (threads == 0) return;
  m.threads = threads;
  m.sockets = static_cast<int>(packages.size());
  m.cores = static_cast<int>(cores.size());
}

// The same from /proc/cpuinfo, for systems without sysfs topology.
void TopologyFromCpuinfo(const std::string& cpuinfo, MachineInfo& m) {
  std::set<std::string> packages;
  std::set<std::pair<std::string, std::string>> cores;
  int processors = 0;
  std::string package;
  std::istringstream in(cpuinfo);
  std::string line;
  while (std::getline(in, line)) {
    const size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    const std::string key = Trim(line.substr(0, colon));
    const std::string value = Trim(line.substr(colon + 1));
    if (key == "processor") ++processors;
    if (key == "physical id") packages.insert(package = value);
    if (key == "core id") cores.insert({package, value});
  }
  if (processors == 0) return;
  m.threads = processors;
  if (!packages.empty()) m.sockets = static_cast<int>(packages.size());
  if (!cores.empty()) m.cores = static_cast<int>(cores.size());
}

// "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.104.05  Sat Aug 19 ..." (or "... Open
// Kernel Module for x86_64  550.54.14 ...") -> the version.
std::string NvidiaDriver(const std::string& version_file) {
  const std::string first_line = version_file.substr(0, version_file.find('\n'));
  const size_t module = first_line.find("Kernel Module");
  if (module == std::string::npos) return "";
  // The first word of digits and dots with at least one dot, neither first nor last, nor two
  // together.
  std::istringstream words(first_line.substr(module));
  std::string word;
  while (words >> word) {
    std::string_view rest(word);
    bool version = true;
    int parts = 0;
    for (size_t dot; version && (dot = rest.find('.')) != std::string_view::npos; ++parts) {
      version = IsDigits(rest.substr(0, dot));
      rest.remove_prefix(dot + 1);
    }
    if (version && parts > 0 && IsDigits(rest)) return word;
  }
  return "";
}

std::string CompilerOfThisBuild() {
#if defined(__GNUC__) && !defined(__clang__)
  return std::string("gcc ") + __VERSION__;
#else
  return __VERSION__;
#endif
}

template <typename T>
json OrNull(const std::optional<T>& v) {
  return v ? json(*v) : json(nullptr);
}

// The fields that identify the machine; machine_id hashes exactly this.
json IdentityJson(const MachineInfo& m) {
  return json{{"cpu_model", m.cpu_model},
              {"arch", m.arch},
              {"sockets", OrNull(m.sockets)},
              {"cores", OrNull(m.cores)},
              {"threads", OrNull(m.threads)},
              {"smt_active", OrNull(m.smt_active)},
              {"governor", m.governor},
              {"turbo", OrNull(m.turbo)},
              {"mem_total_kb", OrNull(m.mem_total_kb)},
              {"kernel", m.kernel},
              {"libc", m.libc},
              {"compiler", m.compiler},
              {"gpus", m.gpus},
              {"gpu_driver", m.gpu_driver}};
}

json ToJson(const MachineInfo& m) {
  json j = IdentityJson(m);
  j["machine_id"] = m.machine_id;
  j["load_avg"] = m.load_avg;
  j["cpus_available"] = m.cpus_available;
  return j;
}

}  // namespace

MachineInfo DescribeMachine(const std::string& root) {
  const fs::path base(root);
  const fs::path cpu_dir = base / "sys/devices/system/cpu";
  MachineInfo m;

  const std::string cpuinfo = ReadSystemFile(base / "proc/cpuinfo").value_or("");
  m.cpu_model = CpuModel(cpuinfo);
  TopologyFromSysfs(cpu_dir, m);
  if (!m.threads) TopologyFromCpuinfo(cpuinfo, m);
  if (auto smt = ReadInt(cpu_dir / "smt/active")) m.smt_active = *smt != 0;
  m.governor = ReadTrimmed(cpu_dir / "cpu0/cpufreq/scaling_governor");
  if (auto no_turbo = ReadInt(cpu_dir / "intel_pstate/no_turbo")) {
    m.turbo = *no_turbo == 0;
  } else if (auto boost = ReadInt(cpu_dir / "cpufreq/boost")) {
    m.turbo = *boost != 0;
  }
  const auto meminfo = KeyValues(ReadSystemFile(base / "proc/meminfo").value_or(""));
  if (auto it = meminfo.find("MemTotal"); it != meminfo.end()) {
    std::istringstream in(it->second);  // "16384256 kB"
    int64_t kb = 0;
    std::string unit;
    if (in >> kb >> unit && unit == "kB") m.mem_total_kb = kb;
  }

  utsname u{};
  if (::uname(&u) == 0) m.kernel = std::string(u.sysname) + " " + u.release;
  m.arch = HostArch();
  // Under an emulator: the CPU it presents (its MIDR on aarch64), and the host's where cpuinfo
  // is the host's, passed through (qemu-user does so unless given the emulated CPU's).
  if (const std::string emulator = Emulator(root); !emulator.empty()) {
    const std::optional<uint64_t> midr = ReadMidr();
    const bool hosts = CpuinfoArch(cpuinfo) != m.arch;
    std::string emulated = midr ? MidrName(*midr) : m.arch;
    if (!hosts && !m.cpu_model.empty()) emulated = m.cpu_model;
    m.cpu_model = emulated + " emulated by " + emulator +
                  (hosts && !m.cpu_model.empty() ? " on " + m.cpu_model : "");
  }
#if defined(__GLIBC__)
  m.libc = std::string("glibc ") + ::gnu_get_libc_version();
#endif
  m.compiler = CompilerOfThisBuild();

  if (auto version = ReadSystemFile(base / "proc/driver/nvidia/version")) {
    m.gpu_driver = NvidiaDriver(*version);
  }
  for (const fs::path& gpu : List(base / "proc/driver/nvidia/gpus")) {
    const auto info = KeyValues(ReadSystemFile(gpu / "information").value_or(""));
    if (auto it = info.find("Model"); it != info.end() && !it->second.empty()) {
      m.gpus.push_back(it->second);
    }
  }

  {
    std::istringstream in(ReadSystemFile(base / "proc/loadavg").value_or(""));
    double one = 0, five = 0, fifteen = 0;
    if (in >> one >> five >> fifteen) m.load_avg = {one, five, fifteen};
  }
  m.cpus_available = FormatCpuList(ProcessCpus());

  m.machine_id = Fnv1a64Hex(IdentityJson(m).dump());
  return m;
}

std::string MachineJson(const MachineInfo& m) { return ToJson(m).dump(2); }

std::string MergeMachineFile(const std::optional<std::string>& existing, const std::string& source,
                             const MachineInfo& m) {
  const std::string what =
      "; it should be a JSON object mapping each machine_id to that machine's description "
      "(fix it, or move it away to start a new one)";
  json all = json::object();
  if (existing) {
    // The object of machines (depth 0), a machine (1), a list in it (2: gpus, load_avg): a
    // container any deeper is refused as the parser meets it, before it is built.
    constexpr int kDeepest = 2;
    struct TooDeep {};
    const json::parser_callback_t limit = [](int depth, json::parse_event_t event, json&) {
      if ((event == json::parse_event_t::object_start ||
           event == json::parse_event_t::array_start) &&
          depth > kDeepest) {
        throw TooDeep{};
      }
      return true;
    };
    try {
      all = json::parse(*existing, limit, /*allow_exceptions=*/false);
    } catch (const TooDeep&) {
      throw InputError(source + ": nested deeper than a machine's entry (a list of values in an "
                       "object of values in the object of machines)" + what);
    }
    if (all.is_discarded()) throw InputError(source + ": not valid JSON" + what);
    if (!all.is_object()) throw InputError(source + ": not a JSON object" + what);
    for (auto it = all.begin(); it != all.end(); ++it) {
      if (!it.value().is_object()) {
        throw InputError(source + ": the entry '" + QuoteShort(it.key()) +
                         "' is not a JSON object" + what);
      }
      for (auto field = it.value().begin(); field != it.value().end(); ++field) {
        if (field.value().is_object()) {
          throw InputError(source + ": the entry '" + QuoteShort(it.key()) + "' has '" +
                           QuoteShort(field.key()) + "', an object; a machine's values are " +
                           "numbers, strings, booleans, null or lists of those" + what);
        }
      }
    }
  }
  all[m.machine_id] = ToJson(m);
  // This machine's strings come from /proc and /sys: a byte that is not UTF-8 becomes U+FFFD
  // rather than stopping the run (what was read from the file is UTF-8, the parser checked).
  std::string text = all.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
  if (text.size() > kMaxMachineJsonBytes) {
    throw InputError(fmt::format(
        "{}: with this machine's entry it would hold {} bytes, more than the {} machine.json may "
        "hold{}",
        source, text.size(), kMaxMachineJsonBytes, what));
  }
  return text;
}

std::optional<std::vector<int>> ParseCpuList(const std::string& text) {
  std::set<int> cpus;
  std::string item;
  std::istringstream in(text);
  bool any = false;
  while (std::getline(in, item, ',')) {
    // "N" or "N-M", each of 1 to 5 digits, blanks around either.
    const size_t dash = item.find('-');
    const std::string from = Trim(item.substr(0, dash));
    const std::string to = dash == std::string::npos ? from : Trim(item.substr(dash + 1));
    if (!IsDigits(from) || !IsDigits(to) || from.size() > 5 || to.size() > 5) return std::nullopt;
    const int first = std::stoi(from);
    const int last = std::stoi(to);
    if (last < first || last > kMaxCpuId) return std::nullopt;
    for (int cpu = first; cpu <= last; ++cpu) cpus.insert(cpu);
    any = true;
  }
  // getline drops a trailing separator: "0,1," would otherwise pass.
  if (!any || (!text.empty() && Trim(text).back() == ',')) return std::nullopt;
  return std::vector<int>(cpus.begin(), cpus.end());
}

std::string FormatCpuList(const std::vector<int>& cpus) {
  std::string out;
  for (size_t i = 0; i < cpus.size();) {
    size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    out += (out.empty() ? "" : ",") + std::to_string(cpus[i]);
    if (j > i) out += "-" + std::to_string(cpus[j]);
    i = j + 1;
  }
  return out;
}

std::vector<int> ProcessCpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> cpus;
  if (::sched_getaffinity(0, sizeof(set), &set) != 0) return cpus;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (CPU_ISSET(cpu, &set)) cpus.push_back(cpu);
  }
  return cpus;
}

std::vector<int> AffinityCpus(const std::string& setting, int threads,
                              const std::vector<int>& allowed) {
  const std::string allowed_text = "this process may use CPUs " + FormatCpuList(allowed) + " (" +
                                   std::to_string(allowed.size()) + ")";
  if (setting == "none") return {};
  if (setting == "compact") {
    if (threads < 1 || static_cast<size_t>(threads) > allowed.size()) {
      throw InputError("affinity 'compact' pins threads (" + std::to_string(threads) +
                       ") to as many CPUs, but " + allowed_text +
                       "; lower threads or list CPUs explicitly");
    }
    return std::vector<int>(allowed.begin(), allowed.begin() + threads);
  }
  const std::optional<std::vector<int>> cpus = ParseCpuList(setting);
  if (!cpus) {
    throw InputError("affinity '" + setting +
                     "' is none of: none, compact, or a CPU list such as 0-3 or 0,2,4; " +
                     allowed_text);
  }
  std::vector<int> outside;
  std::set_difference(cpus->begin(), cpus->end(), allowed.begin(), allowed.end(),
                      std::back_inserter(outside));
  if (!outside.empty()) {
    throw InputError("affinity '" + setting + "' names CPUs " + FormatCpuList(outside) +
                     " that are not available: " + allowed_text);
  }
  return *cpus;
}

void PinCpus(const std::vector<int>& cpus) {
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int cpu : cpus) {
    if (cpu >= 0 && cpu < CPU_SETSIZE) CPU_SET(cpu, &set);
  }
  if (::sched_setaffinity(0, sizeof(set), &set) != 0) {
    throw InputError("affinity: cannot pin to CPUs " + FormatCpuList(cpus) + ": " +
                     std::strerror(errno));
  }
}

std::vector<int> ThreadsCpus(const std::string& root) {
  std::set<int> cpus;
  bool read_any = false;
  for (const fs::path& task : List(fs::path(root) / "proc/self/task")) {
    const auto status = KeyValues(ReadSystemFile(task / "status").value_or(""));
    auto it = status.find("Cpus_allowed_list");
    if (it == status.end()) continue;  // the thread ended meanwhile
    if (auto list = ParseCpuList(it->second)) {
      cpus.insert(list->begin(), list->end());
      read_any = true;
    }
  }
  return read_any ? std::vector<int>(cpus.begin(), cpus.end()) : ProcessCpus();
}

// --- cpuinfo.h ---

namespace {

// MIDR implementer codes and the parts of each that have shipped in machines one benchmarks on
// (servers, SBCs, Jetsons, phones); from Arm's and the vendors' technical reference manuals.
struct ArmPart {
  int implementer;
  int part;
  const char* name;
};
constexpr ArmPart kArmParts[] = {
    {0x41, 0xd03, "Cortex-A53"},    {0x41, 0xd04, "Cortex-A35"},
    {0x41, 0xd05, "Cortex-A55"},    {0x41, 0xd07, "Cortex-A57"},
    {0x41, 0xd08, "Cortex-A72"},    {0x41, 0xd09, "Cortex-A73"},
    {0x41, 0xd0a, "Cortex-A75"},    {0x41, 0xd0b, "Cortex-A76"},
    {0x41, 0xd0c, "Neoverse-N1"},   {0x41, 0xd0d, "Cortex-A77"},
    {0x41, 0xd0e, "Cortex-A76AE"},  {0x41, 0xd40, "Neoverse-V1"},
    {0x41, 0xd41, "Cortex-A78"},    {0x41, 0xd42, "Cortex-A78AE"},
    {0x41, 0xd44, "Cortex-X1"},     {0x41, 0xd46, "Cortex-A510"},
    {0x41, 0xd47, "Cortex-A710"},   {0x41, 0xd48, "Cortex-X2"},
    {0x41, 0xd49, "Neoverse-N2"},   {0x41, 0xd4a, "Neoverse-E1"},
    {0x41, 0xd4b, "Cortex-A78C"},   {0x41, 0xd4d, "Cortex-A715"},
    {0x41, 0xd4e, "Cortex-X3"},     {0x41, 0xd4f, "Neoverse-V2"},
    {0x41, 0xd80, "Cortex-A520"},   {0x41, 0xd81, "Cortex-A720"},
    {0x41, 0xd82, "Cortex-X4"},     {0x41, 0xd84, "Neoverse-V3"},
    {0x41, 0xd85, "Cortex-X925"},   {0x41, 0xd87, "Cortex-A725"},
    {0x41, 0xd8e, "Neoverse-N3"},   {0x46, 0x001, "A64FX"},
    {0x48, 0xd01, "TaiShan-v110"},  {0x4e, 0x004, "Carmel"},
    {0x51, 0x800, "Kryo-2xx-Gold"}, {0x51, 0x801, "Kryo-2xx-Silver"},
    {0x61, 0x022, "M1-Icestorm"},   {0x61, 0x023, "M1-Firestorm"},
    {0xc0, 0xac3, "Ampere-1"},      {0xc0, 0xac4, "Ampere-1a"},
    {0x00, 0x051, "max"},  // qemu's "max" CPU, under implementer 0 (reserved for software)
};
constexpr std::pair<int, const char*> kArmImplementers[] = {
    {0x41, "ARM"},     {0x42, "Broadcom"}, {0x43, "Cavium"},   {0x46, "Fujitsu"},
    {0x48, "HiSilicon"}, {0x4e, "NVIDIA"}, {0x50, "APM"},      {0x51, "Qualcomm"},
    {0x61, "Apple"},   {0x6d, "Microsoft"}, {0xc0, "Ampere"},    {0x00, "QEMU"},
};

// "0x41" -> 0x41; nullopt for anything else.
std::optional<int> ParseHex(const std::string& text) {
  const std::string t = Trim(text);
  if (t.size() < 3 || t.size() > 6 || t.compare(0, 2, "0x") != 0) return std::nullopt;
  int value = 0;
  for (size_t i = 2; i < t.size(); ++i) {
    const char c = static_cast<char>(std::tolower(static_cast<unsigned char>(t[i])));
    if (c >= '0' && c <= '9') {
      value = value * 16 + (c - '0');
    } else if (c >= 'a' && c <= 'f') {
      value = value * 16 + (c - 'a' + 10);
    } else {
      return std::nullopt;
    }
  }
  return value;
}

// The whole-word entries of a flags or Features line that `wanted` lists, in wanted's order.
std::string PickWords(const std::string& line, std::initializer_list<const char*> wanted) {
  std::set<std::string> words;
  std::istringstream in(line);
  for (std::string word; in >> word;) words.insert(word);
  std::string picked;
  for (const char* w : wanted) {
    if (words.count(w) != 0) picked += (picked.empty() ? "" : " ") + std::string(w);
  }
  return picked;
}

}  // namespace

std::string ArmCoreName(const std::string& implementer, const std::string& part) {
  const std::optional<int> imp = ParseHex(implementer), num = ParseHex(part);
  const char* vendor = nullptr;
  for (const auto& [code, name] : kArmImplementers) {
    if (imp && code == *imp) vendor = name;
  }
  for (const ArmPart& p : kArmParts) {
    if (imp && num && p.implementer == *imp && p.part == *num) {
      return std::string(vendor) + " " + p.name;
    }
  }
  return "implementer " + Trim(implementer) + " part " + Trim(part);
}

std::string CpuName(const std::string& cpuinfo) {
  const auto values = KeyValues(cpuinfo);
  if (auto it = values.find("model name"); it != values.end() && !it->second.empty()) {
    return it->second;
  }
  // aarch64: each core type once, in order; a processor's implementer comes before its part.
  std::vector<std::string> cores;
  std::string implementer;
  std::istringstream in(cpuinfo);
  for (std::string line; std::getline(in, line);) {
    const size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    const std::string key = Trim(line.substr(0, colon));
    const std::string value = Trim(line.substr(colon + 1));
    if (key == "CPU implementer") implementer = value;
    if (key == "CPU part" && !implementer.empty()) {
      const std::string core = ArmCoreName(implementer, value);
      if (std::find(cores.begin(), cores.end(), core) == cores.end()) cores.push_back(core);
    }
  }
  std::string name;
  for (const std::string& core : cores) name += (name.empty() ? "" : " + ") + core;
  // The board, where the kernel names it (Raspberry Pi: "Model"; older kernels: "Hardware").
  for (const char* key : {"Model", "Hardware"}) {
    if (auto it = values.find(key); it != values.end() && !it->second.empty()) {
      return name.empty() ? it->second : name + " on " + it->second;
    }
  }
  if (!name.empty()) return name;
  for (const char* key : {"cpu model", "Processor"}) {
    if (auto it = values.find(key); it != values.end() && !it->second.empty()) return it->second;
  }
  return "";
}

std::string VectorIsa(const std::string& cpuinfo) {
  const auto values = KeyValues(cpuinfo);
  if (auto it = values.find("Features"); it != values.end()) {
    return PickWords(it->second, {"asimd", "asimdhp", "asimddp", "asimdfhm", "i8mm", "bf16",
                                  "sve", "sve2", "svei8mm", "svebf16", "sme", "sme2"});
  }
  if (auto it = values.find("flags"); it != values.end()) {
    return PickWords(it->second,
                     {"avx", "avx2", "fma", "avx512f", "avx512bw", "avx512_vnni", "avx_vnni",
                      "avx512_bf16", "avx512_fp16", "amx_tile", "amx_bf16", "amx_int8"});
  }
  return "";
}

std::string CpuinfoArch(const std::string& cpuinfo) {
  const auto values = KeyValues(cpuinfo);
  if (values.count("CPU implementer") != 0 || values.count("Features") != 0) return "aarch64";
  if (values.count("vendor_id") != 0 || values.count("flags") != 0) return "x86_64";
  return "";
}

std::string ElfArch(const std::string& header) {
  // e_ident: magic, class (2: 64-bit), data (1: little-endian); e_machine at offset 18.
  if (header.size() < 20 || header.compare(0, 4, "\x7f" "ELF") != 0 || header[4] != 2 ||
      header[5] != 1) {
    return "";
  }
  const int machine = static_cast<unsigned char>(header[18]) |
                      (static_cast<unsigned char>(header[19]) << 8);
  if (machine == 62) return "x86_64";
  if (machine == 183) return "aarch64";
  return "";
}

std::string Emulator(const std::string& root) {
  const fs::path proc = fs::path(root) / "proc";
  std::error_code ec;
  const std::string runner = fs::read_symlink(proc / "thread-self" / "exe", ec).filename().string();
  if (!ec && (runner.rfind("qemu-", 0) == 0 || runner.find("-binfmt") != std::string::npos)) {
    return "qemu-user";
  }
  std::string header(20, '\0');
  std::ifstream exe(proc / "self" / "exe", std::ios::binary);
  if (!exe.read(header.data(), static_cast<std::streamsize>(header.size()))) return "";
  const std::string program = ElfArch(header);
  const std::string cpu = CpuinfoArch(ReadSystemFile(proc / "cpuinfo").value_or(""));
  if (program.empty() || cpu.empty() || program == cpu) return "";
  return program + " on " + cpu;
}

std::string EmulatedReason(const std::string& emulator) {
  return "emulated CPU (" + emulator + "): timings mean nothing";
}

std::optional<uint64_t> ReadMidr() {
#if defined(__aarch64__) && defined(__linux__)
  if ((::getauxval(AT_HWCAP) & HWCAP_CPUID) == 0) return std::nullopt;
  uint64_t midr = 0;
  asm volatile("mrs %0, MIDR_EL1" : "=r"(midr));
  return midr;
#else
  return std::nullopt;
#endif
}

}  // namespace ngraphbench
