#pragma once
// A JSON array too long to hold as a tree (a run's layers: 100k layers are gigabytes of
// nlohmann nodes). Its elements are dumped one at a time into an unnamed temporary file in the
// target's directory (gone when the spool is, however the process ends), and write_document puts
// them into the document in place of a placeholder member. The result is byte for byte
// `document.dump(2)` of the whole tree; memory holds one element at a time.
#include <cstdint>
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

namespace cstsim::io {

class JsonArraySpool {
 public:
  // `dir`: where the temporary file lives (the document's directory: same disk). Throws OutputError.
  explicit JsonArraySpool(const std::filesystem::path& dir);
  ~JsonArraySpool();
  JsonArraySpool(const JsonArraySpool&) = delete;
  JsonArraySpool& operator=(const JsonArraySpool&) = delete;

  void push(const nlohmann::ordered_json& element);
  int64_t size() const { return count_; }

  // What the document holds where the array goes (a string no cstsim value takes).
  static nlohmann::ordered_json placeholder() { return "@cstsim:spooled-array@"; }
  // Writes document.dump(2) + "\n" to `target` (an OutFile), its one placeholder member being
  // the spooled array. Throws OutputError, or std::logic_error without exactly one placeholder.
  void write_document(const std::filesystem::path& target, const nlohmann::ordered_json& document);

 private:
  void flush();

  std::filesystem::path dir_;
  int fd_ = -1;
  std::string buf_;
  int64_t count_ = 0;
};

}  // namespace cstsim::io
