"""Builds marginboost's compiled kernels: every ``*.pyx`` under ``src/marginboost`` becomes an
extension module (Cython to C, then the system C compiler), at ``pip install .`` time.

Flags, and why:

* ``-O3``, and ``-march=native`` unless ``MARGINBOOST_PORTABLE=1``: the kernels were tuned under
  numba, which compiles for the host processor; its SIMD width (AVX2/AVX-512 here) is what the
  committed speed results assume. A build meant for other machines (a wheel, an image) sets
  ``MARGINBOOST_PORTABLE=1`` and gets the compiler's baseline instruction set.
* ``-g0``: no debug information (Python's own flags ask for it; it was 80% of the modules' size).
* ``-ffp-contract=off``: no fused multiply-adds, no reassociation (no ``-ffast-math``), so a
  kernel rounds every operation as numba did (it contracts nothing without ``fastmath``) and the
  same input gives the same bits on every machine.
* ``-fno-trapping-math -fno-math-errno``: no floating-point traps or ``errno`` to preserve (LLVM's,
  so numba's, default), which lets ``floor`` and ``sqrt`` vectorise; values are unchanged.
* numpy's headers on the include path: :mod:`marginboost.dask._block_memory` is a numpy allocator
  (NEP 49); the other kernels take typed memoryviews and need none.
* OpenMP (``-fopenmp``) for the ``prange`` kernels (histogram groups, binning), when the compiler
  has it; without it those loops run serially and the build says so.
"""
from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

import numpy
from Cython.Build import cythonize
from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).parent
SOURCES = sorted((ROOT / "src").rglob("*.pyx"))
DIRECTIVES = {
    "language_level": 3,
    "boundscheck": False,
    "wraparound": False,
    "initializedcheck": False,
    "cdivision": True,
    "embedsignature": True,
}
OPENMP_TEST = "#include <omp.h>\nint main(void) { return omp_get_max_threads() > 0 ? 0 : 1; }\n"


def _portable() -> bool:
    return os.environ.get("MARGINBOOST_PORTABLE", "") not in ("", "0")


class BuildKernels(build_ext):
    """``build_ext`` that adds the optimisation flags and OpenMP where the compiler accepts them."""

    def build_extensions(self):
        unix = self.compiler.compiler_type == "unix"
        if unix and shutil.which(self.compiler.compiler_so[0]) is None:
            raise SystemExit(f"marginboost: building its compiled kernels needs a C compiler; "
                             f"{self.compiler.compiler_so[0]!r} was not found (install gcc or clang, or set CC)")
        flags = ["-O3", "-g0", "-ffp-contract=off", "-fno-trapping-math", "-fno-math-errno"] if unix else ["/O2", "/fp:precise"]
        if unix and not _portable() and self._accepts(["-march=native"]):
            flags.append("-march=native")
        openmp = ["-fopenmp"] if unix else ["/openmp"]
        has_openmp = self._accepts(openmp, link=openmp, source=OPENMP_TEST)
        if not has_openmp:
            print("marginboost: the C compiler has no OpenMP; the n_jobs kernels will run serially",
                  file=sys.stderr)
        for ext in self.extensions:
            ext.extra_compile_args = flags + (openmp if has_openmp else [])
            ext.extra_link_args = openmp if has_openmp and unix else []
        super().build_extensions()

    def _accepts(self, flags, link=(), source="int main(void) { return 0; }\n") -> bool:
        with tempfile.TemporaryDirectory() as tmp:
            src = Path(tmp) / "probe.c"
            src.write_text(source)
            try:
                objects = self.compiler.compile([str(src)], output_dir=tmp, extra_postargs=list(flags))
                if link:
                    self.compiler.link_executable(objects, str(Path(tmp) / "probe"), extra_postargs=list(link))
            except Exception:  # the compiler's refusal of the flag: leave the flag out
                return False
        return True


def _extension(path: Path) -> Extension:
    module = ".".join(path.relative_to(ROOT / "src").with_suffix("").parts)
    return Extension(module, [str(path.relative_to(ROOT))], include_dirs=[numpy.get_include()])


setup(
    ext_modules=cythonize([_extension(p) for p in SOURCES], compiler_directives=DIRECTIVES,
                          nthreads=os.cpu_count() or 1),
    cmdclass={"build_ext": BuildKernels},
    exclude_package_data={"": ["*.c"]},  # the generated C: built into the modules, not installed
)
