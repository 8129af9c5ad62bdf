#include "core/io/text_lines.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "pairwise/error.hpp"

namespace pairwise::io {

TextLines::TextLines(const std::filesystem::path& path) : path_(path) {
  file_ = std::fopen(path.c_str(), "r");
  if (!file_) throw Error("cannot open file: " + std::string(std::strerror(errno)), path.string());
  std::setvbuf(file_, nullptr, _IOFBF, 1 << 20);
}

TextLines::~TextLines() {
  std::free(buffer_);
  if (file_) std::fclose(file_);
}

bool TextLines::next(std::string_view& line) {
  const ssize_t n = ::getline(&buffer_, &capacity_, file_);
  if (n < 0) {
    if (std::ferror(file_)) throw Error("read error", where());
    return false;
  }
  ++line_;
  std::size_t len = std::size_t(n);
  while (len > 0 && (buffer_[len - 1] == '\n' || buffer_[len - 1] == '\r')) --len;
  line = std::string_view(buffer_, len);
  return true;
}

bool TextLines::at_end() {
  const int c = std::fgetc(file_);
  if (c == EOF) return true;
  std::ungetc(c, file_);
  return false;
}

}  // namespace pairwise::io
