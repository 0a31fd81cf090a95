// Two RecordFunction accessors read inline. libtorch defines name() and isAsync() out of
// line, so each is a call through the PLT into libtorch_cpu.so on every operator, for what
// is one load (isAsync) or a variant check and two loads (name). The plugin reads the
// members itself: they are private, so their member pointers are taken in an explicit
// template instantiation, where the language does not check access ([temp.spec.general]),
// and handed out through a friend function. The layout is the one of the header the plugin
// is compiled against, the same header that its inline accessors (seqNr, threadId, handle)
// already rely on.
//
// Included only by torch_plugin.cc, the one translation unit that includes libtorch headers.
// The members are those of libtorch 1.x (Debian's 1.13, which the benchmark measures); with
// another major version, or no version header, the accessors are libtorch's own calls.
#pragma once

#include <ATen/core/function_schema.h>
#include <ATen/record_function.h>

#include <string>

#if __has_include(<torch/csrc/api/include/torch/version.h>)
#include <torch/csrc/api/include/torch/version.h>
#endif

namespace aiprof::torch_source {

#if defined(TORCH_VERSION_MAJOR) && TORCH_VERSION_MAJOR == 1

namespace record_function_members {

template <typename Tag, typename Tag::Pointer kMember>
struct Expose {
  friend constexpr typename Tag::Pointer MemberPointer(Tag) { return kMember; }
};

struct IsAsync {
  using Pointer = bool at::RecordFunction::*;
  friend constexpr Pointer MemberPointer(IsAsync);
};
template struct Expose<IsAsync, &at::RecordFunction::is_async_>;

struct Function {
  using Pointer = c10::variant<std::string, at::RecordFunction::schema_ref_t> at::RecordFunction::*;
  friend constexpr Pointer MemberPointer(Function);
};
template struct Expose<Function, &at::RecordFunction::fn_>;

}  // namespace record_function_members

// fn.isAsync().
inline bool IsAsync(const at::RecordFunction& fn) {
  return fn.*MemberPointer(record_function_members::IsAsync{});
}

// fn.name(): the operator schema's name for dispatcher operators, else the name the
// RecordFunction was given.
inline const char* Name(const at::RecordFunction& fn) {
  const auto& function = fn.*MemberPointer(record_function_members::Function{});
  if (const auto* schema = c10::get_if<at::RecordFunction::schema_ref_t>(&function)) {
    return schema->get().name().c_str();
  }
  if (const auto* name = c10::get_if<std::string>(&function)) return name->c_str();
  return fn.name();  // valueless (never after before()): libtorch's own answer
}

#else

inline bool IsAsync(const at::RecordFunction& fn) {
  return fn.isAsync();
}
inline const char* Name(const at::RecordFunction& fn) {
  return fn.name();
}

#endif

}  // namespace aiprof::torch_source
