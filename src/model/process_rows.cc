#include "model/process_rows.h"

#include <string>

namespace aiprof::model {

uint32_t AppendProcess(ProcessTable& processes, const ProcessRow& row) {
  const uint32_t number = static_cast<uint32_t>(processes.size());
  processes.pid.push_back(row.pid);
  processes.host.push_back(row.host);
  processes.name.push_back(row.name);
  processes.label.push_back(row.label);
  processes.sort_index.push_back(row.sort_index);
  processes.device_id.push_back(row.device_id);
  processes.rank.push_back(row.rank);
  processes.metadata.emplace_back();
  return number;
}

uint32_t AppendHostProcess(Model& model, uint32_t pid, StringId host) {
  ProcessRow row;
  row.pid = pid;
  row.host = host;
  row.name = model.strings.Intern("process " + std::to_string(pid));
  row.label = model.strings.Intern("CPU");
  row.sort_index = pid;
  return AppendProcess(model.processes, row);
}

}  // namespace aiprof::model
