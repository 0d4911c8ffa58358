// The one way ngraphbench parses YAML (experiments.yaml, a compiler's config and description):
// with limits checked on the text before yaml-cpp builds a node, so that no file within the
// size ceiling (core/file.h) can take gigabytes of nodes, and with every name in it valid UTF-8
// (the results tree's JSON and CSV files hold it). And the one way it reads the parsed values:
// each through a Where, so that every message names the file, the key and what would be right.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace ngraphbench {

// At most this many values in one YAML text, counted before parsing as the characters that can
// begin a value: ',', '-', ':', '?', '[', '{' and line breaks (an upper bound, within a factor of
// two, of the nodes yaml-cpp makes, about half a kilobyte each). A config is a few hundred lines.
constexpr size_t kMaxYamlValues = 100'000;

// `text` parsed. Throws InputError naming `source` when it is not valid UTF-8 (the line of the
// first bad byte), holds more than kMaxYamlValues values, or is not valid YAML (yaml-cpp's
// message, which names the line; yaml-cpp also refuses nesting deeper than 2000).
YAML::Node LoadYaml(const std::string& text, const std::string& source);

// Where a value sits: the file (or the flag, "--set") and the key path. Every reader below fails
// through it, with "<file>: '<path>' <what>" ("<file>: the top level <what>" at the root).
struct Where {
  std::string file;
  std::string path;  // keys joined by '.', list items as [i]: experiments.a.widths[1]

  Where operator/(const std::string& key) const;  // the value of `key` in the mapping here
  Where operator[](size_t index) const;           // item `index` of the list here
  [[noreturn]] void Fail(const std::string& what) const;  // throws InputError
};

// "a, b, c": how messages list names (the allowed keys, the allowed values).
std::string JoinNames(const std::vector<std::string>& names);

// A value as a message quotes it: its YAML, cut short (QuoteShort).
std::string Shown(const YAML::Node& node);

// The keys of a mapping, in file order. Refuses a node that is not a mapping, a key that is not a
// plain scalar (a list, a mapping, nothing), and a key given twice: yaml-cpp keeps every entry of
// a repeated key and a lookup finds the first, so a repeat would drop a setting silently.
std::vector<std::string> MapKeys(const YAML::Node& map, const Where& where);
// MapKeys, and refuses a key `allowed` does not list, naming it and listing `allowed`.
void CheckKeys(const YAML::Node& map, const Where& where, const std::vector<std::string>& allowed);
// map[key], which must be there ("needs '<key>'").
YAML::Node Required(const YAML::Node& map, const std::string& key, const Where& where);

// Typed values. Each refuses a value of another type, quoting it ("must be an integer, got
// 'ten'"), and one outside its bounds, naming the bound and the value.

// An integer in [min_value, max_value]; `note` follows the upper bound in its message.
int64_t ReadInt(const YAML::Node& node, const Where& where,
                int64_t min_value = std::numeric_limits<int64_t>::min(),
                int64_t max_value = std::numeric_limits<int64_t>::max(),
                const std::string& note = "");
// A finite number > 0, or >= 0 (.inf and .nan are refused: no setting means them).
double ReadPositive(const YAML::Node& node, const Where& where);
double ReadNonNegative(const YAML::Node& node, const Where& where);
// true or false (YAML's other spellings of them too: yes, no, on, off).
bool ReadBool(const YAML::Node& node, const Where& where);
// A scalar's text; not empty unless `may_be_empty`. Null (a bare ~ or nothing, YAML's empty
// value) is refused with the hint to quote the text.
std::string ReadString(const YAML::Node& node, const Where& where, bool may_be_empty = false);
// A scalar's text that `allowed` lists ("is 'x'; allowed values: a, b"; null is refused with
// the same list).
std::string ReadOneOf(const YAML::Node& node, const Where& where,
                      const std::vector<std::string>& allowed);
// A list of non-empty names, each given once; an empty list only when `may_be_empty`.
std::vector<std::string> ReadNameList(const YAML::Node& node, const Where& where,
                                      bool may_be_empty = false);
// A non-empty list of integers in [1, max_value]; with `unique`, each given once (a grid's
// values, each naming runs, unlike a shape's dimensions).
std::vector<int64_t> ReadPositiveIntList(const YAML::Node& node, const Where& where,
                                         int64_t max_value, bool unique = true);

}  // namespace ngraphbench
