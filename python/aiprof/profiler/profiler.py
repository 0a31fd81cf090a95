"""Offline parsing, as ``torch_npu.profiler.profiler.analyse``:

    from aiprof.profiler.profiler import analyse
    analyse(profiler_path="./result", max_process_number=4)

exports every ``*_aiprof_pt`` result folder (the ones a window wrote with
``tensorboard_trace_handler(..., analyse_flag=False)``, or that were interrupted) found at
``profiler_path`` or directly under it: ``aiprof export`` writes each folder's
``aiprof_output/`` with torch_npu's fixed file names, up to ``max_process_number`` folders
at a time."""

import concurrent.futures
import glob
import os

from ._handler import _run_exporter

__all__ = ["analyse"]


def _result_folders(profiler_path):
    path = os.path.abspath(os.fspath(profiler_path))
    if path.endswith("_pt") and os.path.isdir(path):
        return [path]
    return sorted(p for p in glob.glob(os.path.join(path, "*_pt")) if os.path.isdir(p))


def analyse(profiler_path, max_process_number=None, export_type=None):
    """Exports the result folders under ``profiler_path``; returns their paths. Raises
    ValueError when there is none (what was looked for is in the message) and
    RuntimeError naming the folders whose export failed (details in their
    aiprof_output/EXPORT_FAILED.txt)."""
    folders = _result_folders(profiler_path)
    if not folders:
        raise ValueError(
            "analyse(profiler_path=%r): no *_aiprof_pt result folder there; pass the "
            "folder tensorboard_trace_handler wrote into, or one result folder" % profiler_path)
    workers = max_process_number or max(1, (os.cpu_count() or 2) // 2)
    if workers < 1:
        raise ValueError("analyse(max_process_number=%r): must be at least 1" % max_process_number)
    if export_type is None:
        export_types = ["text"]
    elif isinstance(export_type, str):
        export_types = [export_type]
    else:
        export_types = list(export_type)

    def export(folder):
        prof_dirs = sorted(glob.glob(os.path.join(folder, "PROF_*")))
        ok = bool(prof_dirs)
        for prof_dir in prof_dirs:
            ok = _run_exporter(prof_dir, os.path.join(folder, "aiprof_output"),
                               export_types) and ok
        return folder, ok

    # Each export is an `aiprof export` process: threads only wait for them.
    with concurrent.futures.ThreadPoolExecutor(max_workers=workers) as pool:
        results = list(pool.map(export, folders))
    failed = [folder for folder, ok in results if not ok]
    if failed:
        raise RuntimeError("analyse: export failed for %s (see aiprof_output/EXPORT_FAILED.txt "
                           "there)" % ", ".join(failed))
    return folders
