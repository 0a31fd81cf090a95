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

// A column as Python gets it: a list, of bools for a flag column.
template <typename T>
py::object ColumnList(const std::vector<T>& column) {
  return py::cast(column);
}
py::object ColumnList(const std::vector<uint8_t>& flags) {
  return py::cast(std::vector<bool>(flags.begin(), flags.end()));
}

// Columns as a dict of lists, keyed by the names of recorded_model.h's column lists: Python
// builds its event objects from them in one pass.
#define AIPROF_PUT_COLUMN(type, name) columns[#name] = ColumnList(from.name);

py::dict ToPython(const OperatorColumns& from) {
  py::dict columns;
  AIPROF_OPERATOR_COLUMNS(AIPROF_PUT_COLUMN)
  return columns;
}

py::dict ToPython(const StepColumns& from) {
  py::dict columns;
  AIPROF_STEP_COLUMNS(AIPROF_PUT_COLUMN)
  columns["source"] = from.source;
  return columns;
}

py::dict ToPython(const MemoryColumns& from) {
  py::dict columns;
  AIPROF_MEMORY_COLUMNS(AIPROF_PUT_COLUMN)
  return columns;
}

#undef AIPROF_PUT_COLUMN

// A described cell (analysis/result_columns.h) as Python holds it: None when not known, a
// str, a float, a bool for a flag, an int (ns, bytes, counts) otherwise.
py::object CellObject(aiprof::analysis::ColumnUnit unit, const aiprof::analysis::CellValue& cell) {
  switch (cell.kind) {
    case aiprof::analysis::CellValue::kNull:
      return py::none();
    case aiprof::analysis::CellValue::kText:
      return py::str(cell.text);
    case aiprof::analysis::CellValue::kReal:
      return py::float_(cell.real);
    case aiprof::analysis::CellValue::kInteger:
      if (unit == aiprof::analysis::ColumnUnit::kFlag) return py::bool_(cell.integer != 0);
      return py::int_(cell.integer);
  }
  return py::none();
}

// A row of a described result as a dict keyed by its columns' keys (every column, whichever
// writers show it), after the row's own keys already in `row`.
template <typename Row>
py::dict DescribedDict(aiprof::analysis::Columns<Row> columns, const Row& from, py::dict row) {
  for (const aiprof::analysis::Column<Row>& column : columns) {
    row[py::str(std::string(column.key))] = CellObject(column.unit, column.Read(from));
  }
  return row;
}

// The memory analysis' pools (analysis::kMemoryPoolColumns) with the pool's device.
py::list MemoryPools(const RecordedModel& model) {
  const aiprof::analysis::AnalysisSet* set = nullptr;
  {
    py::gil_scoped_release release;
    set = &model.Analyses();
  }
  py::list pools;
  for (const aiprof::analysis::MemoryPool& pool : set->memory.pools) {
    py::dict row;
    row["device_index"] = pool.device_index;
    pools.append(DescribedDict<aiprof::analysis::MemoryPool>(aiprof::analysis::kMemoryPoolColumns,
                                                             pool, std::move(row)));
  }
  return pools;
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
      .def("memory_pools", &MemoryPools,
           "The memory analysis' pools: device_index and the described columns "
           "(analysis::kMemoryPoolColumns: name, source, samples, peak_allocated, "
           "peak_allocated_ts, peak_reserved (None: not reported), capacity; bytes, ns).")
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
