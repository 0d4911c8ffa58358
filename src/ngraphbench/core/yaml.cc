#include "ngraphbench/core/yaml.h"

#include <algorithm>

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

}  // namespace ngraphbench
