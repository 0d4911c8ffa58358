#include "ngraphbench/results/layout.h"

namespace ngraphbench {

namespace {

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

bool IsRowFile(const std::string& name) {
  return !name.empty() && name[0] != '.' && EndsWith(name, kRowSuffix) &&
         !EndsWith(name, kTraceSuffix) && !EndsWith(name, kProfileSuffix) &&
         !EndsWith(name, kServerStepsSuffix);
}

std::string RowPath(const std::string& dir, const std::string& run_id) {
  return dir + "/" + run_id + kRowSuffix;
}

std::string LatenciesPath(const std::string& dir, const std::string& run_id) {
  return dir + "/" + run_id + kTraceSuffix;
}

std::string ProfilePath(const std::string& dir, const std::string& run_id) {
  return dir + "/" + run_id + kProfileSuffix;
}

std::string ServerStepsPath(const std::string& dir, const std::string& run_id) {
  return dir + "/" + run_id + kServerStepsSuffix;
}

}  // namespace ngraphbench
