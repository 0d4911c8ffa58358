#include "ngraphbench/core/yaml.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "ngraphbench/core/error.h"
#include "ngraphbench/core/file.h"

namespace ngraphbench {

YAML::Node LoadYaml(const std::string& text, const std::string& source) {
  if (!IsValidUtf8(text)) {
    // The first line that is not: what to fix.
    size_t start = 0, line = 1;
    for (size_t end; (end = text.find('\n', start)) != std::string::npos; start = end + 1, ++line) {
      if (!IsValidUtf8(text.substr(start, end - start))) break;
    }
    throw InputError(source + ": line " + std::to_string(line) +
                     " is not valid UTF-8; names and paths in ngraphbench's files are UTF-8 text "
                     "(save the file as UTF-8)");
  }
  const size_t values = static_cast<size_t>(std::count_if(text.begin(), text.end(), [](char c) {
    return c == ',' || c == '-' || c == ':' || c == '?' || c == '[' || c == '{' || c == '\n';
  }));
  if (values > kMaxYamlValues) {
    throw InputError(source + ": holds " + std::to_string(values) + " values (counted as the " +
                     "characters that can begin one: , - : ? [ { and line breaks), more than the " +
                     std::to_string(kMaxYamlValues) + " a YAML file may hold; a config is a few " +
                     "hundred lines: shorten its lists or split it");
  }
  try {
    return YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw InputError(source + ": not valid YAML: " + QuoteShort(e.what(), 300));
  }
}

Where Where::operator/(const std::string& key) const {
  return {file, path.empty() ? key : path + "." + key};
}

Where Where::operator[](size_t index) const {
  return {file, path + "[" + std::to_string(index) + "]"};
}

void Where::Fail(const std::string& what) const {
  throw InputError(file + ": " +
                   (path.empty() ? "the top level" : "'" + QuoteShort(path, 200) + "'") + " " +
                   what);
}

std::string JoinNames(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& name : names) out += (out.empty() ? "" : ", ") + name;
  return out;
}

std::string Shown(const YAML::Node& node) { return QuoteShort(YAML::Dump(node)); }

std::vector<std::string> MapKeys(const YAML::Node& map, const Where& where) {
  if (!map.IsMap()) where.Fail("must be a mapping of keys to values");
  std::vector<std::string> keys;
  for (const auto& kv : map) {
    if (!kv.first.IsScalar()) {
      where.Fail("has a key that is " +
                 std::string(kv.first.IsSequence() ? "a list"
                             : kv.first.IsMap()    ? "a mapping"
                                                   : "empty") +
                 "; keys must be plain names");
    }
    const std::string key = kv.first.Scalar();
    if (std::find(keys.begin(), keys.end(), key) != keys.end()) {
      (where / key).Fail("is given twice; each key may appear once in a mapping");
    }
    keys.push_back(key);
  }
  return keys;
}

void CheckKeys(const YAML::Node& map, const Where& where, const std::vector<std::string>& allowed) {
  for (const auto& key : MapKeys(map, where)) {
    if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
      (where / key).Fail("is not a known key here; allowed keys: " + JoinNames(allowed));
    }
  }
}

YAML::Node Required(const YAML::Node& map, const std::string& key, const Where& where) {
  const YAML::Node node = map[key];
  if (!node) where.Fail("needs '" + key + "'");
  return node;
}

int64_t ReadInt(const YAML::Node& node, const Where& where, int64_t min_value, int64_t max_value,
                const std::string& note) {
  int64_t v = 0;
  if (!node.IsScalar() || !YAML::convert<int64_t>::decode(node, v)) {
    where.Fail("must be an integer, got '" + Shown(node) + "'");
  }
  if (v < min_value) {
    where.Fail("must be >= " + std::to_string(min_value) + ", got " + std::to_string(v));
  }
  if (v > max_value) {
    where.Fail("must be <= " + std::to_string(max_value) + note + ", got " + std::to_string(v));
  }
  return v;
}

namespace {

// What a message says of a null where text was due.
constexpr const char* kEmptyValue = "is empty (a bare null, ~ or nothing is YAML's empty value)";

double ReadNumber(const YAML::Node& node, const Where& where) {
  double v = 0;
  if (!node.IsScalar() || !YAML::convert<double>::decode(node, v) || !std::isfinite(v)) {
    where.Fail("must be a number, got '" + Shown(node) + "'");
  }
  return v;
}

}  // namespace

double ReadPositive(const YAML::Node& node, const Where& where) {
  const double v = ReadNumber(node, where);
  if (!(v > 0)) where.Fail(fmt::format("must be > 0, got {:g}", v));
  return v;
}

double ReadNonNegative(const YAML::Node& node, const Where& where) {
  const double v = ReadNumber(node, where);
  if (!(v >= 0)) where.Fail(fmt::format("must be >= 0, got {:g}", v));
  return v;
}

bool ReadBool(const YAML::Node& node, const Where& where) {
  bool v = false;
  if (!node.IsScalar() || !YAML::convert<bool>::decode(node, v)) {
    where.Fail("must be true or false, got '" + Shown(node) + "'");
  }
  return v;
}

std::string ReadString(const YAML::Node& node, const Where& where, bool may_be_empty) {
  if (node.IsNull()) {
    where.Fail(std::string(kEmptyValue) + "; quote the text, e.g. \"null\"" +
               (may_be_empty ? " or \"\"" : ""));
  }
  if (!node.IsScalar()) where.Fail("must be a string, got '" + Shown(node) + "'");
  if (!may_be_empty && node.Scalar().empty()) where.Fail("must not be empty");
  return node.Scalar();
}

std::string ReadOneOf(const YAML::Node& node, const Where& where,
                      const std::vector<std::string>& allowed) {
  if (node.IsNull()) {
    where.Fail(std::string(kEmptyValue) + "; allowed values: " + JoinNames(allowed));
  }
  std::string v = ReadString(node, where, /*may_be_empty=*/true);
  if (std::find(allowed.begin(), allowed.end(), v) == allowed.end()) {
    where.Fail("is '" + QuoteShort(v) + "'; allowed values: " + JoinNames(allowed));
  }
  return v;
}

std::vector<std::string> ReadNameList(const YAML::Node& node, const Where& where,
                                      bool may_be_empty) {
  if (!node.IsSequence()) where.Fail("must be a list of names");
  if (!may_be_empty && node.size() == 0) where.Fail("must not be empty");
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (size_t i = 0; i < node.size(); ++i) {
    out.push_back(ReadString(node[i], where[i]));
    if (!seen.insert(out.back()).second) {
      where[i].Fail("repeats '" + QuoteShort(out.back()) + "'; list each once");
    }
  }
  return out;
}

std::vector<int64_t> ReadPositiveIntList(const YAML::Node& node, const Where& where,
                                         int64_t max_value, bool unique) {
  if (!node.IsSequence()) where.Fail("must be a list of positive integers");
  if (node.size() == 0) where.Fail("must not be empty");
  std::vector<int64_t> out;
  std::set<int64_t> seen;
  for (size_t i = 0; i < node.size(); ++i) {
    out.push_back(ReadInt(node[i], where[i], 1, max_value));
    // A value listed twice would name two runs alike: one row would overwrite the other.
    if (unique && !seen.insert(out.back()).second) {
      where[i].Fail("repeats " + std::to_string(out.back()) + "; list each value once");
    }
  }
  return out;
}

}  // namespace ngraphbench
