/* dynamic_profile: collection driven by a config file while a training loop runs (the
 * counterpart of torch_npu.profiler.dynamic_profile). Implemented by libaiprof.so.
 *
 *   aiprofDynamicInit("/shared/prof_cfg");   // writes profiler_config.json there, watches it
 *   for (...) { train_one_step(); aiprofDynamicStep(); }
 *
 * Editing profiler_config.json arms one collection of `active` steps starting at the next
 * step boundary (or at `start_step`); invalid edits are logged under <dir>/log and ignored.
 * Setting AIPROF_CONFIG_PATH (or PROF_CONFIG_PATH) to a directory does the Init at load. */
#ifndef AIPROF_DYNAMIC_PROFILE_H_
#define AIPROF_DYNAMIC_PROFILE_H_

#include "aiprof/aiprof.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Creates config_dir (and config_dir/log), writes the template profiler_config.json unless
 * one exists, and starts watching it. A second call is ignored (returns AIPROF_SUCCESS). */
aiprofError aiprofDynamicInit(const char* config_dir);

/* Marks a step boundary: the end of one training step and the start of the next. */
void aiprofDynamicStep(void);

/* Starts collecting now, for `active` steps, with the settings of config_file (falling back
 * to the watched profiler_config.json when config_file is unusable). Ignored while a
 * collection runs. Requires aiprofDynamicInit. */
aiprofError aiprofDynamicStart(const char* config_file);

#ifdef __cplusplus
}
#endif

#endif /* AIPROF_DYNAMIC_PROFILE_H_ */
