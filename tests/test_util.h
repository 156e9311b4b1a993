#pragma once
// Helpers shared by the input-parsing tests: a fresh temp directory per test and
// checks of InputError's file, line and key.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

#include "core/input_error.h"

namespace cstsim::testing_util {

namespace fs = std::filesystem;

// A fresh directory per test, removed afterwards.
struct TempDir {
  fs::path path;
  TempDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string name = std::string(info->test_suite_name()) + "_" + info->name();
    std::replace(name.begin(), name.end(), '/', '_');  // a parameterized test: one directory
    path = fs::temp_directory_path() / ("cstsim_" + name + "_" + std::to_string(getpid()));
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  std::string write(const std::string& name, const std::string& content) const {
    std::string file = (path / name).string();
    std::ofstream(file, std::ios::binary) << content;
    return file;
  }
};

inline InputError error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e;
  }
  return InputError("<no InputError thrown>", -1, "", "");
}

// `words`: a part the message must contain (any, when empty).
inline ::testing::AssertionResult is_error(const InputError& e, const std::string& file, int line,
                                    const std::string& key, const std::string& words = "") {
  std::string what = e.what();
  if (e.file() == file && e.line() == line && e.key() == key && what.find('\n') == std::string::npos &&
      what.find(words) != std::string::npos)
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "got file=" << e.file() << " line=" << e.line()
                                       << " key=" << e.key() << " what=[" << what << "]";
}

inline bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace cstsim::testing_util
