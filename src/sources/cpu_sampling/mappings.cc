#include "sources/cpu_sampling/mappings.h"

#include <elf.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string_view>

#include "aiprof/plugin.h"
#include "format/records_cpu.h"
#include "sources/plugin_fd.h"

namespace aiprof::cpu_sampling {

namespace {

// Scans one note section or segment for NT_GNU_BUILD_ID.
size_t FindBuildIdNote(const uint8_t* data, size_t size, uint8_t* out, size_t capacity) {
  size_t at = 0;
  while (at + sizeof(Elf64_Nhdr) <= size) {
    const auto* note = reinterpret_cast<const Elf64_Nhdr*>(data + at);
    size_t name_at = at + sizeof(Elf64_Nhdr);
    size_t desc_at = name_at + ((note->n_namesz + 3) & ~3u);
    size_t next = desc_at + ((note->n_descsz + 3) & ~3u);
    if (next > size) return 0;
    if (note->n_type == NT_GNU_BUILD_ID && note->n_namesz == 4 &&
        std::memcmp(data + name_at, "GNU", 4) == 0) {
      size_t n = note->n_descsz < capacity ? note->n_descsz : capacity;
      std::memcpy(out, data + desc_at, n);
      return n;
    }
    at = next;
  }
  return 0;
}

}  // namespace

// The file is opened, mapped and closed through the plugin API (plugin_fd.h): a job closing
// descriptors meanwhile never gets its own file read or closed.
size_t ReadBuildId(const std::string& path, uint8_t* out, size_t capacity) {
  const int fd = aiprof_fd_open(path.c_str(), O_RDONLY);
  if (fd < 0) return 0;
  void* map = MAP_FAILED;
  size_t size = 0;
  sources::UsePluginFd(fd, [&](int file) {
    struct stat st {};
    if (fstat(file, &st) != 0 || st.st_size < static_cast<off_t>(sizeof(Elf64_Ehdr))) return;
    size = static_cast<size_t>(st.st_size);
    map = mmap(nullptr, size, PROT_READ, MAP_PRIVATE, file, 0);
  });
  aiprof_fd_close(fd);
  if (map == MAP_FAILED) return 0;
  size_t found = 0;
  const auto* base = static_cast<const uint8_t*>(map);
  const auto* ehdr = reinterpret_cast<const Elf64_Ehdr*>(base);
  bool elf64 =
      std::memcmp(ehdr->e_ident, ELFMAG, SELFMAG) == 0 && ehdr->e_ident[EI_CLASS] == ELFCLASS64;
  if (elf64 && ehdr->e_phoff + ehdr->e_phnum * sizeof(Elf64_Phdr) <= size) {
    const auto* phdrs = reinterpret_cast<const Elf64_Phdr*>(base + ehdr->e_phoff);
    for (int i = 0; i < ehdr->e_phnum && found == 0; ++i) {
      if (phdrs[i].p_type != PT_NOTE || phdrs[i].p_offset + phdrs[i].p_filesz > size) continue;
      found = FindBuildIdNote(base + phdrs[i].p_offset, phdrs[i].p_filesz, out, capacity);
    }
  }
  munmap(map, size);
  return found;
}

void MappingRecorder::EmitCurrentMappings(uint64_t now_ns) {
  std::optional<std::string> maps = sources::ReadPluginFile("/proc/self/maps");
  if (!maps) return;
  uint32_t pid = static_cast<uint32_t>(getpid());
  std::string_view rest = *maps;
  char line[4096];
  while (!rest.empty()) {
    const size_t newline = rest.find('\n');
    const std::string_view text = rest.substr(0, newline);
    rest = newline == std::string_view::npos ? std::string_view() : rest.substr(newline + 1);
    const size_t length = std::min(text.size(), sizeof(line) - 1);
    std::memcpy(line, text.data(), length);
    line[length] = '\0';
    uint64_t start = 0, end = 0, offset = 0;
    char perms[8] = {};
    int path_at = 0;
    if (std::sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %*s %*s %n", &start, &end, perms,
                    &offset, &path_at) < 4) {
      continue;
    }
    if (perms[2] != 'x' || path_at <= 0) continue;
    std::string path = line + path_at;
    while (!path.empty() && (path.back() == '\n' || path.back() == ' ')) path.pop_back();
    if (path.empty()) continue;
    Emit(now_ns, pid, start, end, offset, path);
  }
}

void MappingRecorder::Emit(uint64_t ts_ns, uint32_t pid, uint64_t start, uint64_t end,
                           uint64_t file_offset, const std::string& path) {
  auto found = build_ids_.find(path);
  if (found == build_ids_.end()) {
    BuildId id{};
    id.size =
        path[0] == '/' ? static_cast<uint8_t>(ReadBuildId(path, id.bytes, sizeof(id.bytes))) : 0;
    found = build_ids_.emplace(path, id).first;
  }
  struct {
    format::RecordHeader header;
    format::CpuMappingRange range;
    format::CpuMappingFile file;
    uint8_t build_id[32];
  } record{};
  record.header.ts = ts_ns;
  record.header.kind = static_cast<uint8_t>(format::CpuRecordKind::kCpuMapping);
  record.header.ext_words = 4;
  record.header.aux = format::kCpuTimeMonotonicRaw;
  record.header.arg = aiprof_intern(path.data(), path.size());
  record.range = {start, end};
  record.file.file_offset = file_offset;
  record.file.pid = pid;
  record.file.build_id_size = found->second.size;
  std::memcpy(record.build_id, found->second.bytes, sizeof(record.build_id));
  static_assert(sizeof(record) == 5 * 16);
  aiprof_emit(&record, 5);
}

}  // namespace aiprof::cpu_sampling
