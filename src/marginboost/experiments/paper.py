"""The numbers of paper 000 (Mitsuboshi, Hatano, Takimoto, "Boosting as Frank-Wolfe"), as data.

Copied by hand from the paper's text (section 5): Table 2 (computation time in seconds, each
cell the average over ``nu in {0.1m, ..., 0.5m}``, eps = 0.01, depth-2 trees, Gurobi 9.0.1 for
the sub-problems, Intel Xeon Gold 6124, runs aborted after "some appropriate time") and Table 3
(test error after choosing ``nu`` by 5-fold cross-validation on the training part).

A bound such as ``>10^4`` (a run the authors aborted) is kept as the string ``">1e4"``; every
other cell is a float. Keys are our data set names (:func:`marginboost.io.datasets.load_dataset`).
The paper's shape counts the label as a column and is that of Raetsch's version of the data
(its unique rows: e.g. titanic has 24 distinct rows there, 2201 rows in KEEL).
:data:`DATA_NOTES` says where our copy of a set is not the paper's task (F.Solar, Image,
Thyroid: built from KEEL's files, see :mod:`marginboost.io.datasets`), which the tables print
under the rows.
"""
from __future__ import annotations

# Table 2 columns in the paper's order; "FW" in the text is the "SS only" column (C-ERLPBoost).
TABLE2_COLUMNS = ("lpboost", "erlpboost", "cerlpboost", "pfw", "mlpboost_ss", "mlpboost_pfw")
TABLE2_HEADERS = {
    "lpboost": "LPB.", "erlpboost": "ERLPB.", "cerlpboost": "MLPB. (SS only)",
    "pfw": "MLPB. (PFW only)", "mlpboost_ss": "MLPB. (SS)", "mlpboost_pfw": "MLPB. (PFW)",
}

# name -> (paper's row label, paper's shape (m, p incl. label), six times in TABLE2_COLUMNS order)
TABLE2 = {
    "banana": ("Banana", (5300, 3), (168.26, 3434.75, ">1e4", ">1e4", 1418.41, 1398.68)),
    "breast_cancer": ("B.Cancer", (263, 10), (3.61, 73.45, 180.16, 270.50, 23.43, 19.81)),
    "diabetes": ("Diabetes", (768, 9), (47.53, 1478.77, ">1e4", 3471.77, 201.46, 270.51)),
    "flare_solar": ("F.Solar", (144, 10), (2.30, 2.46, 13.34, 80.73, 31.64, 46.45)),
    "german": ("German", (1000, 21), (77.56, 1391.91, ">1e4", 5692.32, 181.43, 201.88)),
    "heart": ("Heart", (270, 14), (10.03, 193.58, ">1e3", 183.09, 44.11, 24.26)),
    "image": ("Image", (2086, 19), (8.25, 107.52, ">1e3", 502.83, 32.01, 10.51)),
    "ringnorm": ("R.norm", (7400, 21), (22.09, 1148.16, ">1e4", 3350.87, 26.76, 36.73)),
    "splice": ("Splice", (2991, 61), (19.35, 490.92, ">1e4", 943.98, 122.08, 37.88)),
    "thyroid": ("Thyroid", (215, 6), (0.70, 0.66, 367.51, 0.35, 2.71, 0.61)),
    "titanic": ("Titanic", (24, 4), (0.25, 0.13, 0.58, 0.10, 1.96, 0.12)),
    "twonorm": ("Twonorm", (7400, 21), (105.40, 13031.38, ">1e4", 989.54, 478.22, 397.91)),
    "waveform": ("Waveform", (5000, 22), (437.29, 9018.54, ">1e4", ">1e4", 2243.07, 1619.56)),
}

# Table 3: test error of LPB., ERLPB., MLPB. (SS); the paper has no waveform row here.
TABLE3_COLUMNS = ("lpboost", "erlpboost", "mlpboost_ss")
TABLE3 = {
    "banana": (0.28, 0.37, 0.10),
    "breast_cancer": (0.40, 0.49, 0.28),
    "diabetes": (0.26, 0.26, 0.24),
    "flare_solar": (0.38, 0.52, 0.69),
    "german": (0.28, 0.35, 0.27),
    "heart": (0.24, 0.29, 0.17),
    "image": (0.10, 0.20, 0.02),
    "ringnorm": (0.18, 0.18, 0.03),
    "splice": (0.11, 0.10, 0.05),
    "thyroid": (0.09, 0.05, 0.05),
    "titanic": (0.60, 0.60, 0.60),
    "twonorm": (0.03, 0.04, 0.03),
}

# Our copies that are not the paper's task: printed under Tables 2 and 3.
DATA_NOTES = {
    "flare_solar": "KEEL's flare-F (Zurich class F against the rest, 11 features, 306 unique rows), not "
                   "Raetsch's flare-solar (9 features, 144 unique rows, label derived in a way we could not "
                   "find): another task on the same regions, so the paper's cells are not comparable",
    "image": "the paper's 2086 x 18 rows (KEEL's segment, unique rows, constant column dropped); +1 = brickface "
             "against the other six classes, Raetsch's split of the classes being unknown",
    "thyroid": "the paper's 215 x 5 rows (KEEL's new-thyroid1); +1 = hyperthyroid against normal or "
               "hypothyroid, where Raetsch's version is described as normal against the rest",
}

# "SS only" is C-ERLPBoost; let both of our names find the paper's column.
_ALIASES = {"ss_only": "cerlpboost"}


def in_table2(booster: str) -> bool:
    """Whether the paper's Table 2 has a column for this booster."""
    return _ALIASES.get(booster, booster) in TABLE2_COLUMNS


def paper_time(dataset: str, booster: str):
    """The paper's Table 2 cell (seconds, or a bound string like '>1e4'), or None."""
    booster = _ALIASES.get(booster, booster)
    if dataset not in TABLE2 or booster not in TABLE2_COLUMNS:
        return None
    return TABLE2[dataset][2][TABLE2_COLUMNS.index(booster)]


def paper_aborted(dataset: str, booster: str) -> bool:
    """Whether the paper aborted this Table 2 cell: its value is a bound such as '>1e4', not a time."""
    return isinstance(paper_time(dataset, booster), str)


def paper_seconds_bound(dataset: str, booster: str):
    """The paper's cell as ``(seconds, is_lower_bound)`` ('>1e4' -> ``(1e4, True)``), or None."""
    value = paper_time(dataset, booster)
    if value is None:
        return None
    if isinstance(value, str):
        return float(value.lstrip(">")), True
    return float(value), False


def paper_test_error(dataset: str, booster: str):
    """The paper's Table 3 cell (a test error), or None."""
    booster = _ALIASES.get(booster, booster)
    if dataset not in TABLE3 or booster not in TABLE3_COLUMNS:
        return None
    return TABLE3[dataset][TABLE3_COLUMNS.index(booster)]


def paper_shape(dataset: str):
    """The paper's (m, p incl. label) for a data set, or None."""
    return TABLE2[dataset][1] if dataset in TABLE2 else None
