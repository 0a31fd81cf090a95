// _aiprof: the native half of the aiprof Python package. It drives the runtime through
// aiprof.h (loaded with dlopen), emits what the Python side records, and gives the
// package's exports the model of its PROF_* directories (src/model, src/export).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <stdexcept>

#include "python_events.h"
#include "recorded_model.h"
#include "runtime_api.h"

namespace py = pybind11;
using namespace aiprof::python;

namespace {

const RuntimeApi& RequireRuntime() {
  if (!RuntimeLoaded()) throw std::runtime_error("aiprof runtime not loaded (call load_runtime)");
  return Runtime();
}

void Check(aiprofError status, const char* what) {
  if (status == AIPROF_SUCCESS) return;
  const char* detail = Runtime().last_error();
  throw std::runtime_error(std::string(what) + " failed (aiprof error " +
                           std::to_string(static_cast<int>(status)) +
                           "): " + (detail ? detail : ""));
}

// One collection window: a config with every option set, started and stopped once.
class Window {
 public:
  explicit Window(uint64_t data_types) {
    config_ = RequireRuntime().create_config(nullptr, 0, data_types);
    if (config_ == nullptr) throw std::runtime_error("aiprofCreateConfig refused the data types");
  }
  ~Window() {
    if (config_ != nullptr) Runtime().destroy_config(config_);
  }
  void SetOption(const std::string& key, const std::string& json_value) {
    Check(Runtime().config_set_option(config_, key.c_str(), json_value.c_str()),
          ("aiprofConfigSetOption(" + key + ")").c_str());
  }
  void Start() { Check(Runtime().start(config_), "aiprofStart"); }
  void Stop() { Check(Runtime().stop(config_), "aiprofStop"); }

 private:
  aiprofConfig* config_ = nullptr;
};

// Columns as a dict of lists: Python builds its event objects from them in one pass.
py::dict ToPython(const OperatorColumns& ops) {
  py::dict columns;
  columns["pid"] = ops.pid;
  columns["tid"] = ops.tid;
  columns["start_ns"] = ops.start_ns;
  columns["end_ns"] = ops.end_ns;
  columns["self_ns"] = ops.self_ns;
  columns["name"] = ops.name;
  columns["user_annotation"] =
      std::vector<bool>(ops.user_annotation.begin(), ops.user_annotation.end());
  columns["closed"] = std::vector<bool>(ops.closed.begin(), ops.closed.end());
  columns["backward"] = std::vector<bool>(ops.backward.begin(), ops.backward.end());
  columns["record_id"] = ops.record_id;
  columns["sequence_nr"] = ops.sequence_nr;
  columns["fwd_thread"] = ops.fwd_thread;
  columns["flops"] = ops.flops;
  columns["input_dims"] = ops.input_dims;
  columns["input_types"] = ops.input_types;
  columns["concrete_inputs"] = ops.concrete_inputs;
  columns["call_stack"] = ops.call_stack;
  columns["module_hierarchy"] = ops.module_hierarchy;
  columns["parent"] = ops.parent;
  columns["self_cpu_memory"] = ops.self_cpu_memory;
  columns["cpu_memory"] = ops.cpu_memory;
  columns["self_device_memory"] = ops.self_device_memory;
  columns["device_memory"] = ops.device_memory;
  return columns;
}

py::dict ToPython(const StepColumns& steps) {
  py::dict columns;
  columns["id"] = steps.id;
  columns["step"] = steps.step;
  columns["loop"] = steps.loop;
  columns["label"] = steps.label;
  columns["pid"] = steps.pid;
  columns["tid"] = steps.tid;
  columns["start_ns"] = steps.start_ns;
  columns["end_ns"] = steps.end_ns;
  columns["has_range"] = std::vector<bool>(steps.has_range.begin(), steps.has_range.end());
  columns["source"] = steps.source;
  return columns;
}

py::dict ToPython(const MemoryColumns& memory) {
  py::dict columns;
  columns["pid"] = memory.pid;
  columns["tid"] = memory.tid;
  columns["ts_ns"] = memory.ts_ns;
  columns["address"] = memory.address;
  columns["bytes"] = memory.bytes;
  columns["total_allocated"] = memory.total_allocated;
  columns["total_reserved"] = memory.total_reserved;
  columns["device_type"] = memory.device_type;
  columns["device_index"] = memory.device_index;
  columns["out_of_memory"] =
      std::vector<bool>(memory.out_of_memory.begin(), memory.out_of_memory.end());
  columns["outside_operators"] =
      std::vector<bool>(memory.outside_operators.begin(), memory.outside_operators.end());
  columns["category"] = memory.category;
  return columns;
}

}  // namespace

PYBIND11_MODULE(_aiprof, m) {
  m.doc() = "Native part of the aiprof Python package";

  m.def(
      "load_runtime",
      [](const std::string& path) {
        std::string error;
        if (!LoadRuntime(path, &error)) throw std::runtime_error(error);
      },
      py::arg("path") = "", "Loads libaiprof.so (empty path: use the preloaded runtime).");
  m.def("runtime_loaded", &RuntimeLoaded);
  m.def("load_plugin", [](const std::string& path, const std::string& attach_symbol) {
    RequireRuntime();
    std::string error;
    if (!LoadPlugin(path, attach_symbol, &error)) throw std::runtime_error(error);
  });

  m.def("init", [](const std::string& output_dir) {
    Check(RequireRuntime().init(output_dir.c_str()), "aiprofInit");
  });
  m.def("finalize", [] { Check(RequireRuntime().finalize(), "aiprofFinalize"); });
  m.def("is_collecting", [] { return RuntimeLoaded() && Runtime().is_collecting() != 0; });
  m.def("current_dir", [] {
    const char* dir = RequireRuntime().current_dir();
    return std::string(dir ? dir : "");
  });
  m.def("now", [] { return RuntimeLoaded() ? Runtime().now() : 0; });
  m.def("step_begin", [](uint64_t step) { RequireRuntime().step_begin(step); });
  m.def("step_end", [](uint64_t step) { RequireRuntime().step_end(step); });
  m.def("add_metadata", [](const std::string& key, const std::string& json_value) {
    RequireRuntime().add_metadata(key.c_str(), json_value.c_str());
  });

  py::class_<Window>(m, "Window")
      .def(py::init<uint64_t>())
      .def("set_option", &Window::SetOption)
      .def("start", &Window::Start)
      .def("stop", &Window::Stop, py::call_guard<py::gil_scoped_release>());

  m.attr("TYPE_MSTX") = AIPROF_TYPE_MSTX;
  m.attr("TYPE_TASK_TIME") = AIPROF_TYPE_TASK_TIME;
  m.attr("TYPE_RUNTIME_API") = AIPROF_TYPE_RUNTIME_API;
  m.attr("TYPE_MEMORY") = AIPROF_TYPE_MEMORY;
  m.attr("TYPE_AIC_METRICS") = AIPROF_TYPE_AIC_METRICS;
  m.attr("TYPE_COMM") = AIPROF_TYPE_COMM;
  m.attr("TYPE_DEVICE_SYS") = AIPROF_TYPE_DEVICE_SYS;
  m.attr("TYPE_SHAPES") = AIPROF_TYPE_SHAPES;
  m.attr("TYPE_STACK") = AIPROF_TYPE_STACK;

  m.def("mark", &EmitMark, py::arg("message"), py::arg("domain") = "");
  m.def("range_start", &EmitRangeStart, py::arg("message"), py::arg("domain") = "",
        py::arg("stream") = 0);
  m.def("range_end", &EmitRangeEnd, py::arg("range_id"), py::arg("domain") = "");
  m.def("module_begin", &EmitModuleBegin);
  m.def("module_end", &EmitModuleEnd);
  m.def("process_group_begin", &EmitProcessGroupBegin);
  m.def("process_group_end", &EmitProcessGroupEnd);
  m.def("emit_gc", &EmitGc);
  m.def("set_python_tracer", &SetPythonTracer);
  m.def("set_python_tracer_on_this_thread", &SetPythonTracerOnThisThread);

  py::class_<RecordedModel>(m, "RecordedModel",
                            "The model (src/model) of one or more PROF_* directories.")
      .def(py::init([](const std::vector<std::string>& prof_dirs) {
             py::gil_scoped_release release;
             return std::make_unique<RecordedModel>(prof_dirs);
           }),
           py::arg("prof_dirs"))
      .def("write_chrome_trace", &RecordedModel::WriteChromeTrace, py::arg("path"),
           py::arg("trace_name"), py::call_guard<py::gil_scoped_release>(),
           "Writes the Kineto JSON trace with the writer of `aiprof export`.")
      .def("operators",
           [](const RecordedModel& model) {
             OperatorColumns columns;
             {
               py::gil_scoped_release release;
               columns = model.Operators();
             }
             return ToPython(columns);
           })
      .def("memory",
           [](const RecordedModel& model) {
             MemoryColumns columns;
             {
               py::gil_scoped_release release;
               columns = model.Memory();
             }
             return ToPython(columns);
           })
      .def(
          "memory_pools",
          [](const RecordedModel& model) {
            std::vector<MemoryPoolRow> rows;
            {
              py::gil_scoped_release release;
              rows = model.MemoryPools();
            }
            py::list pools;
            for (const MemoryPoolRow& row : rows) {
              py::dict pool;
              pool["name"] = row.name;
              pool["source"] = row.source;
              pool["device_index"] = row.device_index;
              pool["peak_allocated"] = row.peak_allocated;
              pool["peak_reserved"] = row.peak_reserved;
              pools.append(pool);
            }
            return pools;
          },
          "The memory analysis' pools with their peaks (bytes; reserved -1: not reported).")
      .def(
          "environment",
          [](const RecordedModel& model) {
            py::dict variables;
            for (const auto& [name, value] : model.Environment()) variables[py::str(name)] = value;
            return variables;
          },
          "The environment variables the runtime sampled, as recorded.")
      .def_property_readonly("start_ns", &RecordedModel::start_ns)
      .def("steps",
           [](const RecordedModel& model) {
             StepColumns columns;
             {
               py::gil_scoped_release release;
               columns = model.Steps();
             }
             return ToPython(columns);
           })
      .def_property_readonly("dropped", &RecordedModel::dropped)
      .def_property_readonly("problems", &RecordedModel::Problems)
      .def_property_readonly("files", &RecordedModel::files);
}
