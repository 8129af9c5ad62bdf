// Errors the user can act on: what went wrong and where (file:line:field, key, particle id).
#pragma once

#include <stdexcept>
#include <string>

namespace pairwise {

// Thrown for bad input or an unusable environment. The CLI prints "error: <what>, <where>" and
// exits 1.
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& what, std::string where = {})
      : std::runtime_error(where.empty() ? what : what + ", " + where),
        what_(what),
        where_(std::move(where)) {}
  const std::string& message() const { return what_; }
  const std::string& where() const { return where_; }

 private:
  std::string what_;
  std::string where_;
};

}  // namespace pairwise
