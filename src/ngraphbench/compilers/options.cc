#include "ngraphbench/compilers/options.h"

#include <stdexcept>

namespace ngraphbench {

namespace {

const std::string& Lookup(const std::map<std::string, std::string>& values,
                          const std::string& key) {
  auto it = values.find(key);
  if (it == values.end()) throw std::logic_error("option '" + key + "' is not in the schema");
  return it->second;
}

}  // namespace

int64_t Options::Int(const std::string& key) const { return std::stoll(Lookup(values_, key)); }

bool Options::Bool(const std::string& key) const { return Lookup(values_, key) == "true"; }

const std::string& Options::String(const std::string& key) const {
  return Lookup(values_, key);
}

}  // namespace ngraphbench
