// Sets an environment variable for a scope (the CUDA backend reads its PAIRWISE_CUDA_* switches at
// each plan or launch), restoring the previous value or its absence afterwards.
#pragma once

#include <cstdlib>
#include <optional>
#include <string>

namespace pairwise::test {

class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (old_)
      setenv(name_, old_->c_str(), 1);
    else
      unsetenv(name_);
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

}  // namespace pairwise::test
