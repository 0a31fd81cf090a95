// _aiprof: the native half of the aiprof Python package. It drives the runtime through
// aiprof.h (loaded with dlopen), emits what the Python side records, and reads PROF_*
// directories back for the exports the package writes itself.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <stdexcept>

#include "prof_reader.h"
#include "python_events.h"
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

py::object InputsOrNone(const OpEvent& op, int what) {
  if (!op.has_inputs) return py::none();
  py::list list;
  for (const auto& input : op.inputs) {
    if (what == 0) {
      list.append(py::cast(input.dims));
    } else if (what == 1) {
      list.append(input.type);
    } else {
      list.append(input.concrete);
    }
  }
  return list;
}

py::dict ToPython(const ProfData& data) {
  py::list ops, memory, marks;
  for (const auto& op : data.ops) {
    ops.append(py::make_tuple(op.pid, op.tid, op.start_ns, op.end_ns, op.name, op.scope,
                              op.record_id, op.sequence_nr, op.forward_thread_id, op.thread_id,
                              InputsOrNone(op, 0), InputsOrNone(op, 1), InputsOrNone(op, 2),
                              op.closed, op.flops));
  }
  for (const auto& event : data.memory) {
    memory.append(py::make_tuple(event.pid, event.tid, event.ts_ns, event.address, event.bytes,
                                 event.total_allocated, event.total_reserved, event.device_type,
                                 event.device_index, event.out_of_memory));
  }
  for (const auto& mark : data.marks) {
    marks.append(py::make_tuple(mark.pid, mark.tid, mark.ts_ns, mark.message));
  }
  auto spans = [](const std::vector<SpanEvent>& events) {
    py::list list;
    for (const auto& e : events) {
      list.append(py::make_tuple(e.pid, e.tid, e.start_ns, e.end_ns, e.name, e.value));
    }
    return list;
  };
  py::dict result;
  result["ops"] = ops;
  result["memory"] = memory;
  result["marks"] = marks;
  result["python_calls"] = spans(data.python_calls);
  result["modules"] = spans(data.modules);
  result["steps"] = spans(data.steps);
  result["ranges"] = spans(data.ranges);
  result["gcs"] = spans(data.gcs);
  result["thread_names"] = data.thread_names;
  result["metadata_json"] = data.metadata_json;
  result["files"] = data.files;
  result["dropped"] = data.dropped;
  result["problems"] = data.problems;
  return result;
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
  m.def("emit_gc", &EmitGc);
  m.def("set_python_tracer", &SetPythonTracer);
  m.def("set_python_tracer_on_this_thread", &SetPythonTracerOnThisThread);

  m.def(
      "read_prof_dir",
      [](const std::string& prof_dir) {
        ProfData data;
        {
          py::gil_scoped_release release;
          data = ReadProfDir(prof_dir);
        }
        return ToPython(data);
      },
      "Reads the raw data of a PROF_* directory into event lists.");
}
