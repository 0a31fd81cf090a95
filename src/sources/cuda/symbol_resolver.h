// Looks functions up in a dlopen'ed NVIDIA library. The first missing symbol becomes the
// error, named with its library and a hint of why it may be missing (usually a version).
#pragma once

#include <dlfcn.h>

#include <string>

namespace aiprof::cuda {

class SymbolResolver {
 public:
  SymbolResolver(void* handle, const char* library, const char* hint, std::string* error)
      : handle_(handle), library_(library), hint_(hint), error_(error) {}

  template <typename Function>
  bool operator()(const char* symbol, Function* out) const {
    void* address = dlsym(handle_, symbol);
    if (address == nullptr) {
      *error_ = std::string(library_) + " has no " + symbol + " (" + hint_ + ")";
      return false;
    }
    *out = reinterpret_cast<Function>(address);
    return true;
  }

 private:
  void* handle_;
  const char* library_;
  const char* hint_;
  std::string* error_;
};

}  // namespace aiprof::cuda
