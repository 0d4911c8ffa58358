// A results tree zipped as a user zips one for `analyze` or `compare`: every file under a folder
// as "results/<relative path>" (analysis_fixture.h, compare_test.cc).
#pragma once

#include <gtest/gtest.h>
#include <zip.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace ngraphbench::test_support {

inline std::string ReadText(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Zips every file under `dir` as "results/<relative path>", in reverse path order so that the
// archive's order differs from the directory walk; `stored`: uncompressed.
inline void ZipTree(const std::filesystem::path& dir, const std::filesystem::path& archive,
                    bool stored = false) {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
    if (entry.is_regular_file()) files.push_back(entry.path());
  }
  std::sort(files.rbegin(), files.rend());
  int error = 0;
  zip_t* zip = zip_open(archive.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &error);
  ASSERT_NE(zip, nullptr) << "zip_open error " << error;
  std::vector<std::string> contents;
  contents.reserve(files.size());  // zip_close reads the buffers: they must not move
  for (const std::filesystem::path& file : files) {
    contents.push_back(ReadText(file));
    zip_source_t* source =
        zip_source_buffer(zip, contents.back().data(), contents.back().size(), 0);
    ASSERT_NE(source, nullptr);
    const std::string name = "results/" + std::filesystem::relative(file, dir).generic_string();
    const zip_int64_t index = zip_file_add(zip, name.c_str(), source, ZIP_FL_ENC_UTF_8);
    ASSERT_GE(index, 0) << zip_strerror(zip);
    if (stored) ASSERT_EQ(zip_set_file_compression(zip, index, ZIP_CM_STORE, 0), 0);
  }
  ASSERT_EQ(zip_close(zip), 0);
}

}  // namespace ngraphbench::test_support
