// Marker domains (mstx / NVTX). Whether a domain is collected is resolved when the domain
// is created and again when a window starts (mstx_domain_include / _exclude), never per
// event.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace aiprof::runtime {

inline constexpr uint32_t kMaxDomains = 4096;
inline constexpr uint16_t kDefaultDomainId = 0;

struct Domain {
  uint16_t id;
  volatile int enabled;
  uint32_t name_id;
  char name[116];
};

// Slot 0 is the default domain, created before any window opens (ApplyDomainFilters), so
// the record path may use it without a check while markers are on.
extern Domain g_domains[kMaxDomains];

// Returns the domain of that name, creating it; nullptr when kMaxDomains are in use.
Domain* CreateDomain(const char* name);
// Creates the default domain if needed (not for the record path).
Domain* DefaultDomain();
inline Domain* DomainOrDefault(void* handle) {
  return handle != nullptr ? static_cast<Domain*>(handle) : &g_domains[kDefaultDomainId];
}
struct DomainName {
  uint16_t id;
  uint32_t name_id;
};
// Domains with id >= first_id, for the writer's kDomainName records.
std::vector<DomainName> DomainNamesFrom(uint32_t first_id);
// Re-evaluates every domain's enabled flag against the filters.
void ApplyDomainFilters(const std::vector<std::string>& include,
                        const std::vector<std::string>& exclude);

}  // namespace aiprof::runtime
