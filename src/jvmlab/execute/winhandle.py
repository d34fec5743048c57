"""Exact final counters of an exited Windows child, read from its process handle (ctypes).

``subprocess.Popen`` keeps the child's handle open until the object is dropped, so after the
child exited, ``GetProcessMemoryInfo`` still gives its peak working set and page-fault count
and ``GetProcessTimes`` its user and kernel time: no sampling gap. Returned in psutil's field
names so :func:`jvmlab.execute.windows.measures_from_psutil` maps them like a psutil sample.
Only imported on Windows; its struct layout is checked on Linux by the tests
(``counters_from_structs``), the calls themselves have not run on a real Windows machine.
"""

from __future__ import annotations

import ctypes
from ctypes import wintypes
from typing import Any

_100NS_PER_S = 10_000_000


class PROCESS_MEMORY_COUNTERS(ctypes.Structure):  # the Win32 name
    _fields_ = [("cb", wintypes.DWORD), ("PageFaultCount", wintypes.DWORD),
                ("PeakWorkingSetSize", ctypes.c_size_t), ("WorkingSetSize", ctypes.c_size_t),
                ("QuotaPeakPagedPoolUsage", ctypes.c_size_t), ("QuotaPagedPoolUsage", ctypes.c_size_t),
                ("QuotaPeakNonPagedPoolUsage", ctypes.c_size_t), ("QuotaNonPagedPoolUsage", ctypes.c_size_t),
                ("PagefileUsage", ctypes.c_size_t), ("PeakPagefileUsage", ctypes.c_size_t)]


class FILETIME(ctypes.Structure):
    _fields_ = [("dwLowDateTime", wintypes.DWORD), ("dwHighDateTime", wintypes.DWORD)]


def _seconds(ft: FILETIME) -> float:
    return float(((ft.dwHighDateTime << 32) | ft.dwLowDateTime) / _100NS_PER_S)


def counters_from_structs(mem: PROCESS_MEMORY_COUNTERS, kernel: FILETIME,
                          user: FILETIME) -> tuple[dict[str, float], dict[str, float]]:
    """(memory, times) dicts in psutil's field names from the Win32 structures."""
    memory = {"rss": mem.WorkingSetSize, "peak_wset": mem.PeakWorkingSetSize, "wset": mem.WorkingSetSize,
              "num_page_faults": mem.PageFaultCount, "pagefile": mem.PagefileUsage,
              "peak_pagefile": mem.PeakPagefileUsage}
    return memory, {"user": _seconds(user), "system": _seconds(kernel)}


def final_counters(proc: Any) -> tuple[dict[str, float], dict[str, float]] | None:
    """Counters of ``proc`` (a Popen whose child exited); None if Windows refuses."""
    handle = getattr(proc, "_handle", None)
    if handle is None:
        return None
    mem = PROCESS_MEMORY_COUNTERS()
    mem.cb = ctypes.sizeof(mem)
    creation, exited, kernel, user = FILETIME(), FILETIME(), FILETIME(), FILETIME()
    # typeshed declares ctypes.WinDLL on win32 only, and mypy checks for this (Linux) platform
    psapi = ctypes.WinDLL("psapi")  # type: ignore[attr-defined]
    kernel32 = ctypes.WinDLL("kernel32")  # type: ignore[attr-defined]
    if not psapi.GetProcessMemoryInfo(int(handle), ctypes.byref(mem), mem.cb):
        return None
    if not kernel32.GetProcessTimes(int(handle), ctypes.byref(creation), ctypes.byref(exited),
                                    ctypes.byref(kernel), ctypes.byref(user)):
        return None
    return counters_from_structs(mem, kernel, user)
