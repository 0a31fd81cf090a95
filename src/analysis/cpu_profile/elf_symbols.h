// Function symbols of one ELF file (.symtab, else .dynsym; a separate debuginfo file found
// by build-id under /usr/lib/debug/.build-id when the binary is stripped), for offline
// symbolisation of sampled addresses.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace aiprof::analysis {

class ElfSymbols {
 public:
  // Loads `path`. False (and *error) when the file cannot be read or is not ELF64.
  bool Load(const std::string& path, std::string* error);
  const std::string& build_id() const { return build_id_; }  // lowercase hex
  // The link-time address of file offset `offset` (through the PT_LOAD that holds it).
  bool FileOffsetToAddress(uint64_t offset, uint64_t* address) const;
  // Name of the function containing link-time address `address`, nullptr if none.
  const std::string* Find(uint64_t address) const;
  size_t size() const { return starts_.size(); }

 private:
  struct Segment {
    uint64_t offset, filesz, vaddr;
  };
  bool ReadFile(const std::string& path, bool symbols_only, std::string* error);
  std::vector<Segment> segments_;
  std::vector<uint64_t> starts_;  // sorted
  std::vector<uint64_t> ends_;
  std::vector<std::string> names_;
  std::string build_id_;
};

// The C++ (Itanium ABI) demangled form of `name`, or `name` itself.
std::string Demangle(const std::string& name);

}  // namespace aiprof::analysis
