#include "analysis/cpu_profile/elf_symbols.h"

#include <cxxabi.h>
#include <elf.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <numeric>

namespace aiprof::analysis {

namespace {

class MappedFile {
 public:
  ~MappedFile() {
    if (data_ != nullptr) munmap(const_cast<uint8_t*>(data_), size_);
  }
  bool Open(const std::string& path, std::string* error) {
    int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      *error = path + ": " + std::strerror(errno);
      return false;
    }
    struct stat st {};
    if (fstat(fd, &st) != 0 || st.st_size < static_cast<off_t>(sizeof(Elf64_Ehdr))) {
      close(fd);
      *error = path + ": too small to be an ELF file";
      return false;
    }
    size_ = static_cast<size_t>(st.st_size);
    void* map = mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (map == MAP_FAILED) {
      *error = path + ": mmap: " + std::strerror(errno);
      return false;
    }
    data_ = static_cast<const uint8_t*>(map);
    return true;
  }
  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }
  bool Holds(uint64_t offset, uint64_t length) const {
    return offset <= size_ && length <= size_ - offset;
  }

 private:
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
};

std::string Hex(const uint8_t* bytes, size_t n) {
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  for (size_t i = 0; i < n; ++i) {
    out += kHex[bytes[i] >> 4];
    out += kHex[bytes[i] & 15];
  }
  return out;
}

}  // namespace

std::string Demangle(const std::string& name) {
  if (name.size() < 2 || name[0] != '_' || name[1] != 'Z') return name;
  int status = 0;
  char* text = abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status);
  if (status != 0 || text == nullptr) return name;
  std::string out = text;
  std::free(text);
  return out;
}

bool ElfSymbols::Load(const std::string& path, std::string* error) {
  if (!ReadFile(path, false, error)) return false;
  if (starts_.empty() && build_id_.size() > 2) {
    // Stripped: the debuginfo package's file, by build-id.
    std::string debug =
        "/usr/lib/debug/.build-id/" + build_id_.substr(0, 2) + "/" + build_id_.substr(2) + ".debug";
    std::string ignored;
    if (access(debug.c_str(), R_OK) == 0) ReadFile(debug, true, &ignored);
  }
  std::vector<size_t> order(starts_.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(),
            [&](size_t a, size_t b) { return starts_[a] < starts_[b]; });
  std::vector<uint64_t> starts, ends;
  std::vector<std::string> names;
  for (size_t i : order) {
    starts.push_back(starts_[i]);
    ends.push_back(ends_[i]);
    names.push_back(std::move(names_[i]));
  }
  starts_ = std::move(starts);
  ends_ = std::move(ends);
  names_ = std::move(names);
  return true;
}

bool ElfSymbols::ReadFile(const std::string& path, bool symbols_only, std::string* error) {
  MappedFile file;
  if (!file.Open(path, error)) return false;
  const uint8_t* base = file.data();
  const auto* ehdr = reinterpret_cast<const Elf64_Ehdr*>(base);
  if (std::memcmp(ehdr->e_ident, ELFMAG, SELFMAG) != 0 || ehdr->e_ident[EI_CLASS] != ELFCLASS64) {
    *error = path + ": not an ELF64 file";
    return false;
  }
  if (!symbols_only && file.Holds(ehdr->e_phoff, uint64_t{ehdr->e_phnum} * sizeof(Elf64_Phdr))) {
    const auto* phdrs = reinterpret_cast<const Elf64_Phdr*>(base + ehdr->e_phoff);
    for (int i = 0; i < ehdr->e_phnum; ++i) {
      const Elf64_Phdr& ph = phdrs[i];
      if (ph.p_type == PT_LOAD) segments_.push_back({ph.p_offset, ph.p_filesz, ph.p_vaddr});
      if (ph.p_type == PT_NOTE && build_id_.empty() && file.Holds(ph.p_offset, ph.p_filesz)) {
        size_t at = 0;
        while (at + sizeof(Elf64_Nhdr) <= ph.p_filesz) {
          const auto* note = reinterpret_cast<const Elf64_Nhdr*>(base + ph.p_offset + at);
          size_t desc = at + sizeof(Elf64_Nhdr) + ((note->n_namesz + 3) & ~3u);
          size_t next = desc + ((note->n_descsz + 3) & ~3u);
          if (next > ph.p_filesz) break;
          if (note->n_type == NT_GNU_BUILD_ID) {
            build_id_ = Hex(base + ph.p_offset + desc, std::min<size_t>(note->n_descsz, 32));
            break;
          }
          at = next;
        }
      }
    }
  }
  if (!file.Holds(ehdr->e_shoff, uint64_t{ehdr->e_shnum} * sizeof(Elf64_Shdr))) return true;
  const auto* shdrs = reinterpret_cast<const Elf64_Shdr*>(base + ehdr->e_shoff);
  // .symtab has every function; .dynsym only the exported ones.
  for (uint32_t wanted : {uint32_t{SHT_SYMTAB}, uint32_t{SHT_DYNSYM}}) {
    size_t before = starts_.size();
    for (int i = 0; i < ehdr->e_shnum; ++i) {
      const Elf64_Shdr& sh = shdrs[i];
      if (sh.sh_type != wanted || sh.sh_link >= ehdr->e_shnum) continue;
      const Elf64_Shdr& strtab = shdrs[sh.sh_link];
      if (!file.Holds(sh.sh_offset, sh.sh_size) || !file.Holds(strtab.sh_offset, strtab.sh_size)) {
        continue;
      }
      const auto* syms = reinterpret_cast<const Elf64_Sym*>(base + sh.sh_offset);
      size_t count = sh.sh_size / sizeof(Elf64_Sym);
      const char* strings = reinterpret_cast<const char*>(base + strtab.sh_offset);
      for (size_t s = 0; s < count; ++s) {
        const Elf64_Sym& sym = syms[s];
        int type = ELF64_ST_TYPE(sym.st_info);
        if ((type != STT_FUNC && type != STT_GNU_IFUNC) || sym.st_value == 0 ||
            sym.st_name >= strtab.sh_size) {
          continue;
        }
        starts_.push_back(sym.st_value);
        ends_.push_back(sym.st_value + std::max<uint64_t>(sym.st_size, 1));
        names_.emplace_back(strings + sym.st_name);
      }
    }
    if (starts_.size() > before) break;
  }
  return true;
}

bool ElfSymbols::FileOffsetToAddress(uint64_t offset, uint64_t* address) const {
  for (const Segment& s : segments_) {
    if (offset >= s.offset && offset < s.offset + s.filesz) {
      *address = offset - s.offset + s.vaddr;
      return true;
    }
  }
  return false;
}

const std::string* ElfSymbols::Find(uint64_t address) const {
  auto after = std::upper_bound(starts_.begin(), starts_.end(), address);
  if (after == starts_.begin()) return nullptr;
  size_t i = static_cast<size_t>(after - starts_.begin()) - 1;
  // Symbols without a size (assembly) get the gap up to the next one.
  if (address < ends_[i] || ends_[i] == starts_[i] + 1) return &names_[i];
  return nullptr;
}

}  // namespace aiprof::analysis
