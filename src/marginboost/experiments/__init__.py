"""The experiments of paper 000 (Mitsuboshi, Hatano, Takimoto, "Boosting as Frank-Wolfe"),
section 5 and appendix B: Table 2 (time), Table 3 (test error with CV over nu), Figs. 1-5,
and peers (scikit-learn boosting, XGBoost/LightGBM if installed, a naive linprog LPBoost).

One entry point, :func:`run_benchmark`; the parts: :mod:`.runner` (one fit, one record),
:mod:`.peers`, :mod:`.tables`, :mod:`.figures`, :mod:`.paper` (the paper's numbers),
:mod:`.metadata` (provenance), :mod:`.journal` (the record of finished fits that ``resume`` reads).
:mod:`.worst_case` is section 5's worst case for LPBoost (``marginboost bench-worst-case``).
"""
from marginboost.experiments.benchmark import ALL_DATASETS, PAPER_NUS, QUICK, run_benchmark
from marginboost.experiments.figures import make_figures
from marginboost.experiments.peers import NaiveLPBoost, available_peers
from marginboost.experiments.runner import BOOSTERS, DEFAULT_BOOSTERS, TABLE3_BOOSTERS
from marginboost.experiments.tables import table2_rows, table3_rows, write_tables

__all__ = [
    "ALL_DATASETS",
    "BOOSTERS",
    "DEFAULT_BOOSTERS",
    "NaiveLPBoost",
    "PAPER_NUS",
    "QUICK",
    "TABLE3_BOOSTERS",
    "available_peers",
    "make_figures",
    "run_benchmark",
    "table2_rows",
    "table3_rows",
    "write_tables",
]
