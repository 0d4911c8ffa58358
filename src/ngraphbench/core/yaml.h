// The one way ngraphbench parses YAML (experiments.yaml, a compiler's config and description):
// with limits checked on the text before yaml-cpp builds a node, so that no file within the
// size ceiling (core/file.h) can take gigabytes of nodes, and with every name in it valid UTF-8
// (the results tree's JSON and CSV files hold it).
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstddef>
#include <string>

namespace ngraphbench {

// At most this many values in one YAML text, counted before parsing as the characters that can
// begin a value: ',', '-', ':', '?', '[', '{' and line breaks (an upper bound, within a factor of
// two, of the nodes yaml-cpp makes, about half a kilobyte each). A config is a few hundred lines.
constexpr size_t kMaxYamlValues = 100'000;

// `text` parsed. Throws InputError naming `source` when it is not valid UTF-8 (the line of the
// first bad byte), holds more than kMaxYamlValues values, or is not valid YAML (yaml-cpp's
// message, which names the line; yaml-cpp also refuses nesting deeper than 2000).
YAML::Node LoadYaml(const std::string& text, const std::string& source);

}  // namespace ngraphbench
