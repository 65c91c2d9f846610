"""Refuse, with a pointer to the Dask path, a weak-learner preparation that cannot fit in memory.

A memory-mapped ``X`` can be larger than RAM; presorting it (16 bytes per entry: values and
order) or binning it (one byte per entry, plus the pass over X) would then thrash or be killed
by the operating system, long after the user could have been told. The check compares the
bytes the preparation allocates with the memory the operating system reports as available
(``MemAvailable`` of ``/proc/meminfo``); where that is unknown (not Linux) it checks nothing.
"""
from __future__ import annotations

from pathlib import Path

DASK_HINT = ("bin the data where it lives instead: pass a dask.array partitioned by rows to "
             "marginboost.weak_learners.dask_histogram.DaskHistogramStump / DaskHistogramTree "
             "(pip install 'marginboost[dask]')")


def available_memory() -> int | None:
    """Bytes of memory available to new allocations, or None where the system does not say."""
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def check_fits_in_memory(nbytes: int, what: str) -> None:
    """Raise MemoryError naming ``what`` when ``nbytes`` exceeds the available memory."""
    available = available_memory()
    if available is not None and nbytes > available:
        raise MemoryError(f"{what} needs {nbytes / 2**30:.1f} GiB but only {available / 2**30:.1f} GiB "
                          f"of memory is available; {DASK_HINT}")
