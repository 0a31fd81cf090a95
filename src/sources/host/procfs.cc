#include "sources/host/procfs.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>

namespace aiprof::host {
namespace {

std::string_view NextLine(std::string_view* text) {
  size_t end = text->find('\n');
  std::string_view line = text->substr(0, end);
  text->remove_prefix(end == std::string_view::npos ? text->size() : end + 1);
  return line;
}

std::string_view NextField(std::string_view* text) {
  size_t begin = text->find_first_not_of(" \t\n");
  if (begin == std::string_view::npos) {
    text->remove_prefix(text->size());
    return {};
  }
  text->remove_prefix(begin);
  size_t end = text->find_first_of(" \t\n");
  std::string_view field = text->substr(0, end);
  text->remove_prefix(end == std::string_view::npos ? text->size() : end);
  return field;
}

bool ToU64(std::string_view text, uint64_t* value) {
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), *value);
  return ec == std::errc() && ptr == text.data() + text.size();
}

bool ToInt(std::string_view text, int* value) {
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), *value);
  return ec == std::errc() && ptr == text.data() + text.size();
}

bool StartsWith(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

bool ParseCpuLine(std::string_view rest, CpuTimes* times) {
  uint64_t* fields[] = {&times->user,   &times->nice, &times->system,  &times->idle,
                        &times->iowait, &times->irq,  &times->softirq, &times->steal};
  int parsed = 0;
  for (uint64_t* field : fields) {
    std::string_view token = NextField(&rest);
    if (token.empty()) break;  // old kernels stop after fewer columns
    if (!ToU64(token, field)) return false;
    ++parsed;
  }
  return parsed >= 4;
}

}  // namespace

std::optional<std::string> ReadProcFile(const std::string& path) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  std::string text;
  char buffer[4096];
  while (true) {
    ssize_t n = read(fd, buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      close(fd);
      return std::nullopt;
    }
    if (n == 0) break;
    text.append(buffer, static_cast<size_t>(n));
  }
  close(fd);
  return text;
}

std::optional<ProcStat> ParseProcStat(std::string_view text) {
  ProcStat stat;
  bool have_total = false;
  while (!text.empty()) {
    std::string_view line = NextLine(&text);
    std::string_view rest = line;
    std::string_view key = NextField(&rest);
    if (key == "cpu") {
      if (!ParseCpuLine(rest, &stat.total)) return std::nullopt;
      have_total = true;
    } else if (StartsWith(key, "cpu")) {
      int index = 0;
      if (!ToInt(key.substr(3), &index) || index < 0 || index > 65535) return std::nullopt;
      size_t slot = static_cast<size_t>(index);
      if (stat.per_cpu.size() <= slot) {
        stat.per_cpu.resize(slot + 1);
        stat.cpu_present.resize(slot + 1, false);
      }
      if (!ParseCpuLine(rest, &stat.per_cpu[slot])) return std::nullopt;
      stat.cpu_present[slot] = true;
    } else if (key == "ctxt") {
      ToU64(NextField(&rest), &stat.context_switches);
    } else if (key == "procs_running") {
      ToU64(NextField(&rest), &stat.procs_running);
    } else if (key == "procs_blocked") {
      ToU64(NextField(&rest), &stat.procs_blocked);
    }
  }
  if (!have_total) return std::nullopt;
  return stat;
}

std::map<std::string, uint64_t> ParseMeminfo(std::string_view text) {
  std::map<std::string, uint64_t> values;
  while (!text.empty()) {
    std::string_view line = NextLine(&text);
    size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    std::string_view rest = line.substr(colon + 1);
    uint64_t value = 0;
    if (ToU64(NextField(&rest), &value)) values.emplace(std::string(line.substr(0, colon)), value);
  }
  return values;
}

std::optional<PidStat> ParsePidStat(std::string_view text) {
  // comm may hold spaces and parentheses: it ends at the last ')'.
  size_t open_paren = text.find('(');
  size_t close_paren = text.rfind(')');
  if (open_paren == std::string_view::npos || close_paren == std::string_view::npos ||
      close_paren < open_paren) {
    return std::nullopt;
  }
  PidStat stat;
  std::string_view head = text.substr(0, open_paren);
  if (!ToInt(NextField(&head), &stat.pid)) return std::nullopt;
  stat.comm = std::string(text.substr(open_paren + 1, close_paren - open_paren - 1));
  std::string_view rest = text.substr(close_paren + 1);
  // Fields numbered as in proc(5); field 3 (state) is the first after comm.
  std::vector<std::string_view> fields;
  fields.reserve(24);
  for (std::string_view field = NextField(&rest); !field.empty() && fields.size() < 22;
       field = NextField(&rest)) {
    fields.push_back(field);
  }
  if (fields.size() < 22) return std::nullopt;
  auto field = [&](int number) { return fields[static_cast<size_t>(number - 3)]; };
  stat.state = field(3).empty() ? '?' : field(3)[0];
  bool ok = ToInt(field(4), &stat.ppid) && ToU64(field(10), &stat.minor_faults) &&
            ToU64(field(12), &stat.major_faults) && ToU64(field(14), &stat.utime) &&
            ToU64(field(15), &stat.stime) && ToU64(field(20), &stat.threads) &&
            ToU64(field(22), &stat.start_time) && ToU64(field(24), &stat.rss_pages);
  if (!ok) return std::nullopt;
  return stat;
}

std::optional<PidIo> ParsePidIo(std::string_view text) {
  PidIo io;
  bool have_read = false, have_write = false;
  while (!text.empty()) {
    std::string_view rest = NextLine(&text);
    std::string_view key = NextField(&rest);
    if (key == "read_bytes:") have_read = ToU64(NextField(&rest), &io.read_bytes);
    if (key == "write_bytes:") have_write = ToU64(NextField(&rest), &io.write_bytes);
  }
  if (!have_read || !have_write) return std::nullopt;
  return io;
}

std::optional<NetDevTotals> ParseNetDev(std::string_view text) {
  NetDevTotals totals;
  bool any = false;
  while (!text.empty()) {
    std::string_view line = NextLine(&text);
    size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;  // the two header lines
    std::string_view name = line.substr(0, colon);
    name.remove_prefix(std::min(name.find_first_not_of(' '), name.size()));
    if (name == "lo") continue;
    std::string_view rest = line.substr(colon + 1);
    uint64_t columns[16] = {};
    int count = 0;
    for (; count < 16; ++count) {
      std::string_view token = NextField(&rest);
      if (token.empty() || !ToU64(token, &columns[count])) break;
    }
    if (count < 16) return std::nullopt;
    totals.rx_bytes += columns[0];
    totals.rx_packets += columns[1];
    totals.rx_errors += columns[2];
    totals.rx_dropped += columns[3];
    totals.tx_bytes += columns[8];
    totals.tx_packets += columns[9];
    totals.tx_errors += columns[10];
    totals.tx_dropped += columns[11];
    any = true;
  }
  if (!any) return std::nullopt;
  return totals;
}

std::vector<int> ParsePidList(std::string_view text) {
  std::vector<int> pids;
  for (std::string_view token = NextField(&text); !token.empty(); token = NextField(&text)) {
    int pid = 0;
    if (ToInt(token, &pid) && pid > 0) pids.push_back(pid);
  }
  return pids;
}

}  // namespace aiprof::host
