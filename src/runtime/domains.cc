#include "runtime/domains.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <mutex>

#include "runtime/runtime.h"

namespace aiprof::runtime {

Domain g_domains[kMaxDomains];

namespace {

std::atomic<uint32_t> g_domain_count{0};
std::mutex g_domain_mutex;
std::vector<std::string>* g_include = nullptr;
std::vector<std::string>* g_exclude = nullptr;

bool Listed(const std::vector<std::string>* names, const char* name) {
  return names != nullptr && std::find(names->begin(), names->end(), name) != names->end();
}

// Caller holds g_domain_mutex.
int EnabledByFilters(const char* name) {
  if (g_include != nullptr && !g_include->empty() && !Listed(g_include, name)) return 0;
  return Listed(g_exclude, name) ? 0 : 1;
}

Domain* FindOrAddLocked(const char* name) {
  uint32_t count = g_domain_count.load(std::memory_order_relaxed);
  for (uint32_t id = 0; id < count; ++id) {
    if (std::strncmp(g_domains[id].name, name, sizeof g_domains[id].name - 1) == 0) {
      return &g_domains[id];
    }
  }
  if (count >= kMaxDomains) return nullptr;
  Domain& domain = g_domains[count];
  domain.id = static_cast<uint16_t>(count);
  std::strncpy(domain.name, name, sizeof domain.name - 1);
  domain.name[sizeof domain.name - 1] = '\0';
  domain.name_id = 0;
  Runtime& runtime = GetRuntime();
  if (InitStrings()) {
    bool full = false;
    domain.name_id = runtime.strings.Intern(domain.name, std::strlen(domain.name), &full);
  }
  __atomic_store_n(&domain.enabled, EnabledByFilters(domain.name), __ATOMIC_RELAXED);
  g_domain_count.store(count + 1, std::memory_order_release);
  return &domain;
}

}  // namespace

Domain* CreateDomain(const char* name) {
  if (name == nullptr || name[0] == '\0') return DefaultDomain();
  std::lock_guard<std::mutex> lock(g_domain_mutex);
  if (g_domain_count.load(std::memory_order_relaxed) == 0) FindOrAddLocked("default");
  return FindOrAddLocked(name);
}

Domain* DefaultDomain() {
  if (g_domain_count.load(std::memory_order_acquire) == 0) {
    std::lock_guard<std::mutex> lock(g_domain_mutex);
    if (g_domain_count.load(std::memory_order_relaxed) == 0) FindOrAddLocked("default");
  }
  return &g_domains[kDefaultDomainId];
}

std::vector<DomainName> DomainNamesFrom(uint32_t first_id) {
  std::lock_guard<std::mutex> lock(g_domain_mutex);
  std::vector<DomainName> names;
  uint32_t count = g_domain_count.load(std::memory_order_relaxed);
  for (uint32_t id = first_id; id < count; ++id) {
    names.push_back({g_domains[id].id, g_domains[id].name_id});
  }
  return names;
}

void ApplyDomainFilters(const std::vector<std::string>& include,
                        const std::vector<std::string>& exclude) {
  DefaultDomain();
  std::lock_guard<std::mutex> lock(g_domain_mutex);
  delete g_include;
  delete g_exclude;
  g_include = new std::vector<std::string>(include);
  g_exclude = new std::vector<std::string>(exclude);
  Runtime& runtime = GetRuntime();
  uint32_t count = g_domain_count.load(std::memory_order_relaxed);
  for (uint32_t id = 0; id < count; ++id) {
    Domain& domain = g_domains[id];
    if (domain.name_id == 0 && InitStrings()) {
      bool full = false;
      domain.name_id = runtime.strings.Intern(domain.name, std::strlen(domain.name), &full);
    }
    __atomic_store_n(&domain.enabled, EnabledByFilters(domain.name), __ATOMIC_RELAXED);
  }
}

}  // namespace aiprof::runtime
