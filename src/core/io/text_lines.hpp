// Line-by-line reading of large text files (trajectories) through one big stdio buffer, keeping
// the line number for messages.
#pragma once

#include <cstdio>
#include <filesystem>
#include <string>
#include <string_view>

namespace pairwise::io {

class TextLines {
 public:
  explicit TextLines(const std::filesystem::path& path);  // throws pairwise::Error
  ~TextLines();
  TextLines(const TextLines&) = delete;
  TextLines& operator=(const TextLines&) = delete;
  // The next line without its '\n' (and '\r'); false at the end of the file.
  bool next(std::string_view& line);
  long line_number() const { return line_; }
  std::string where() const { return path_.string() + ":" + std::to_string(line_); }
  bool at_end();  // whether nothing but the end of the file follows

 private:
  std::filesystem::path path_;
  std::FILE* file_ = nullptr;
  char* buffer_ = nullptr;
  std::size_t capacity_ = 0;
  long line_ = 0;
};

}  // namespace pairwise::io
