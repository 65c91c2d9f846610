"""The training data of a fit on a cluster, checked and binned where it lies.

:func:`training_data` takes X (a ``dask.array`` of shape (m, p), or a ``dask.dataframe`` of
numeric columns), y (a dask array or series partitioned as X) and optional sample weights (the
same), and returns a :class:`TrainingData`: the binned codes on the workers (the bins are those of
:func:`marginboost.weak_learners.binning.bin_features` on all of X), the labels in {-1, +1} (or,
for a regressor, ``regression=True``, the targets as float64) and the weights of mean 1 as
:class:`~marginboost.dask.rows.RowVector` blocks cut as X's rows, and the classes (None for a
regressor; with more than two, the labels as given, which each class's fit recodes:
:meth:`TrainingData.for_class`). The fit's blocks are X's partitions joined, consecutive ones, into
one block a worker thread (:func:`block_groups`): every pass of a round is one task a block, and a
task costs the scheduler and the worker about a millisecond whatever its size, so eight partitions
on two threads made a round's passes four times the tasks they need (LightGBM's Dask fit joins a
worker's partitions likewise). The client receives O(p x bins + number of partitions) values: the classes, the bins,
the block sizes, the flags of the checks; never a row.

Checks, each with an error naming the argument: X and y (and sample_weight) of different lengths
or partitioned differently (y must come with X's row chunks: ``y.rechunk({0: X.chunks[0]})``);
fewer than two classes, or NaN among the labels (a regressor: NaN or infinite targets, or
targets that are not numbers); infinite values in X; negative,
infinite or NaN sample weights, or none positive. NaN in X is a missing value (its own bin, as
in memory). Rows of sample weight 0 are left out of the fit, as in memory.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import dask
import dask.array as da
import distributed
import numpy as np
from distributed import futures_of

from marginboost.dask.rows import RowLayout, RowVector
from marginboost.dask.sample import WorkerSample
from marginboost.estimators.input_data import is_dask_collection
from marginboost.weak_learners.binning import Bins, check_max_bins
from marginboost.weak_learners.dask_histogram import distributed_sample

__all__ = ["TrainingData", "as_dask_matrix", "block_groups", "data_token", "pm_labels", "rows_like", "training_data"]


@dataclass
class TrainingData:
    """What a loop on a cluster needs of its data (module docstring)."""

    layout: RowLayout
    sample: WorkerSample
    bins: Bins
    y: RowVector | None  # labels in {-1, +1} (two classes; None for more), or a regressor's targets
    weights: RowVector | None  # example weights of mean 1 over the rows kept, or None
    classes: np.ndarray | None  # None for a regressor
    n_features: int
    feature_names: np.ndarray | None
    token: str  # the data's dask names: the same collections, the same token (warm start)
    labels: RowVector | None = None  # the labels as given, with more than two classes

    def for_class(self, label) -> "TrainingData":
        """One-vs-rest: the same binned rows, ``y = +1`` where the label is ``label``, classes [0, 1]."""
        return dataclasses.replace(self, y=self.labels.map(pm_labels, label), classes=np.array([0, 1]), labels=None)

    @property
    def shape(self) -> tuple[int, int]:
        """``(m, p)``: rows kept for the fit and features."""
        return self.layout.m, self.n_features

    @property
    def m(self) -> int:
        """The number of rows kept for the fit."""
        return self.layout.m


def as_dask_matrix(X, name: str = "X") -> tuple[da.Array, np.ndarray | None]:
    """``X`` as a 2-d dask array of known row chunks and one column chunk, with the column names
    of a dask dataframe (else None). TypeError for what is no dask collection; ValueError for
    columns that are not numbers (categories are not taken on a cluster yet)."""
    if not is_dask_collection(X):
        raise TypeError(f"{name} must be a dask array or dask dataframe (a fit on a cluster keeps the rows on the "
                        f"workers), got {type(X).__name__}; for data in memory use the estimator of marginboost "
                        "without the Dask prefix")
    names = None
    if hasattr(X, "columns") and hasattr(X, "dtypes"):
        names = np.asarray([str(c) for c in X.columns], dtype=object)
        bad = [str(c) for c, t in X.dtypes.items() if not (np.issubdtype(t, np.number) or np.issubdtype(t, np.bool_))]
        if bad:
            raise ValueError(f"{name}: columns {bad[:10]} are not numeric; a fit on a cluster takes numeric columns "
                             "only (NaN for missing values); encode categorical columns first")
        X = X.to_dask_array(lengths=True)
    if not isinstance(X, da.Array):
        raise TypeError(f"{name} must be a dask array or dask dataframe, got {type(X).__name__}")
    if X.ndim != 2:
        raise ValueError(f"{name} must be 2-dimensional (rows x features), got shape {X.shape}")
    if any(np.isnan(c) for c in X.chunks[0]):
        X = X.compute_chunk_sizes()
    if X.numblocks[1] > 1:
        X = X.rechunk({1: -1})
    if X.dtype == np.bool_:
        X = X.astype(np.uint8)
    elif not (X.dtype.kind in "iu" or X.dtype in (np.float32, np.float64)):
        X = X.astype(np.float64)
    return X, names


def rows_like(v, X: da.Array, name: str) -> da.Array:
    """A 1-d dask array partitioned as X's rows; ValueError naming ``name`` otherwise."""
    if not is_dask_collection(v):
        raise TypeError(f"{name} must be a dask array or series partitioned as X, got {type(v).__name__}")
    if hasattr(v, "to_dask_array"):
        v = v.to_dask_array(lengths=True)
    if v.ndim == 2 and v.shape[1] == 1:
        v = v[:, 0]
    if v.ndim != 1:
        raise ValueError(f"{name} must be 1-dimensional, got shape {v.shape}")
    if any(np.isnan(c) for c in v.chunks[0]):
        v = v.compute_chunk_sizes()
    if v.shape[0] != X.shape[0]:
        raise ValueError(f"X has {X.shape[0]} rows but {name} has {v.shape[0]} entries")
    if v.chunks[0] != X.chunks[0]:
        raise ValueError(f"X and {name} must be partitioned alike: X's row chunks are {X.chunks[0][:8]}"
                         f"{'...' if len(X.chunks[0]) > 8 else ''}, {name}'s {v.chunks[0][:8]}"
                         f"{'...' if len(v.chunks[0]) > 8 else ''}; rechunk it with "
                         f"{name}.rechunk({{0: X.chunks[0]}}) (or build both from one dataframe)")
    return v


def _block_futures(client, arr: da.Array) -> list:
    """One future per block of the 1-d ``arr``, computed on the workers (nothing comes back here)."""
    return client.compute(list(arr.to_delayed().ravel()))


def _check_weights(sw: da.Array) -> tuple[da.Array, int, float]:
    bad, n_positive, total = dask.compute(((sw < 0) | ~da.isfinite(sw)).any(), (sw > 0).sum(), sw.sum())
    if bad:
        raise ValueError("sample_weight must be finite and >= 0")
    if n_positive == 0:
        raise ValueError("sample_weight must have a positive entry")
    return sw > 0, int(n_positive), float(total)


def pm_labels(block, positive):
    """A block of labels as the loop's {-1, +1}: +1 for the class ``positive``."""
    return np.where(block == positive, 1.0, -1.0)


def data_token(X, y, sample_weight, max_bins) -> str:
    """What names the training data: the dask collections' names (their graphs' tokens) and the
    bins asked for; the same collections, the same token (a warm start checks it)."""
    names = [getattr(v, "name", None) if is_dask_collection(v) else id(v) for v in (X, y, sample_weight)]
    return dask.base.tokenize(*names, max_bins)


def _check_targets(y: da.Array, X: da.Array, regression: bool):
    """The classes of the labels ``y`` (None for a regressor's targets, checked finite) and whether X
    has an infinite value, in one computation."""
    x_inf = da.isinf(X).any() if X.dtype.kind == "f" else False
    if regression:
        if not (np.issubdtype(y.dtype, np.number) or np.issubdtype(y.dtype, np.bool_)):
            raise ValueError(f"y must hold numbers for a regressor, got dtype {y.dtype}")
        y_bad, has_inf = dask.compute((~da.isfinite(y.astype(np.float64))).any(), x_inf)
        if y_bad:
            raise ValueError("y contains NaN or infinity: a regressor needs a finite target for every example")
        return None, has_inf
    classes, has_inf = dask.compute(da.unique(y), x_inf)
    classes = np.asarray(classes)
    if classes.dtype.kind == "f" and np.isnan(classes).any():
        raise ValueError("y contains NaN: every example needs a label")
    if classes.shape[0] < 2:
        raise ValueError(f"y must hold at least two classes, found {classes.tolist()}")
    return classes, has_inf


def block_groups(sizes, n_blocks: int) -> list[range]:
    """Consecutive partitions (of ``sizes`` rows each) in at most ``n_blocks`` groups of about equal
    rows: group k ends at the partition whose end is nearest ``k m / n_blocks``."""
    if n_blocks < 1:
        raise ValueError(f"n_blocks must be >= 1, got {n_blocks}")
    ends = np.cumsum(sizes)
    cuts = {int(np.argmin(np.abs(ends - ends[-1] * k / n_blocks))) + 1 for k in range(1, n_blocks)}
    bounds = [0] + sorted(c for c in cuts if 0 < c < len(sizes)) + [len(sizes)]
    return [range(a, b) for a, b in zip(bounds[:-1], bounds[1:])]


def _join_rows(*blocks):
    """Blocks of consecutive rows as one: along the last axis (the codes are features x rows)."""
    return np.concatenate(blocks, axis=-1)


def _joined(client, futures: list, groups: list[range], where: list | None) -> list:
    """Each group's blocks joined in one task (a group of one: its future as it is), on the worker
    ``where[k]`` when given (the group's codes are there: the vectors of a block stay together)."""
    out = []
    for k, group in enumerate(groups):
        if len(group) == 1:
            out.append(futures[group[0]])
            continue
        place = {} if where is None else {"workers": list(where[k]), "allow_other_workers": True}
        out.append(client.submit(_join_rows, *[futures[i] for i in group], pure=False, **place))
    return out


def _thread_count(client) -> int:
    return max(1, sum(client.nthreads().values()))


def training_data(X, y, sample_weight=None, *, client, max_bins: int = 255, token: str | None = None,
                  regression: bool = False, n_blocks: int | None = None) -> TrainingData:
    """Check and bin the training data on the workers (module docstring); ``n_blocks``: the fit's
    blocks (None: one a worker thread of ``client``'s cluster, at most one a partition)."""
    token = data_token(X, y, sample_weight, max_bins) if token is None else token
    X, names = as_dask_matrix(X)
    y = rows_like(y, X, "y")
    classes, has_inf = _check_targets(y, X, regression)
    if has_inf:
        raise ValueError("X contains infinity; missing values are NaN, other values must be finite")
    weights = None
    if sample_weight is not None:
        sw = rows_like(sample_weight, X, "sample_weight")
        keep, n_positive, total = _check_weights(sw)
        if n_positive < X.shape[0]:  # rows of weight 0 are left out, as in memory
            X, y, sw = X[keep], y[keep], sw[keep]
            X, y, sw = X.compute_chunk_sizes(), y.compute_chunk_sizes(), sw.compute_chunk_sizes()
            kept = None if regression else np.asarray(dask.compute(da.unique(y))[0])
            if kept is not None and kept.shape[0] != classes.shape[0]:
                raise ValueError(f"every class needs an example of positive sample_weight; none has class(es) "
                                 f"{np.setdiff1d(classes, kept).tolist()[:10]}")
        weights_arr = sw.astype(np.float64) * (n_positive / total)  # mean 1 over the rows kept
    sample, bins = distributed_sample(X, check_max_bins(max_bins))
    sizes = np.diff(sample.bounds)
    groups = block_groups(sizes, _thread_count(client) if n_blocks is None else n_blocks)
    codes = _joined(client, [futures_of(c)[0] for c in sample.codes], groups, None)
    where = None
    if any(len(g) > 1 for g in groups):
        distributed.wait(codes)
        holders = client.who_has(codes)
        where = [holders[c.key] for c in codes]
    layout = RowLayout(client, np.concatenate([[0], np.cumsum([sizes[g].sum() for g in groups])]))
    rows = (tuple(int(n) for n in sizes),)

    def joined(arr: da.Array) -> RowVector:
        return RowVector(layout, _joined(client, _block_futures(client, arr.rechunk(rows)), groups, where))

    y_pm, labels = None, None
    if regression:
        y_pm = joined(y.astype(np.float64))
    elif classes.shape[0] == 2:
        y_pm = joined(y.map_blocks(pm_labels, classes[1], dtype=np.float64))
    else:  # one-vs-rest: each class's fit recodes them (TrainingData.for_class)
        labels = joined(y)
    if sample_weight is not None:
        weights = joined(weights_arr)
    return TrainingData(layout, WorkerSample(layout, codes), bins, y_pm, weights, classes, X.shape[1], names, token,
                        labels)
