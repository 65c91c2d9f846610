"""Estimators that fit on a Dask cluster, the data and every per-example vector on the workers.

Separate ``Dask*`` classes (as ``lightgbm.DaskLGBMClassifier`` and
``xgboost.dask.DaskXGBClassifier``), each a subclass of the in-memory estimator with the same
parameters plus ``client``, rather than the in-memory estimators accepting dask collections,
because: their ``predict`` family returns lazy dask arrays, not numpy arrays, which the
scikit-learn contract of the in-memory classes promises; only boosters whose rounds need sums
over examples have a cluster fit (LPBoost's LP has a row per example), so a separate class
says by its existence which do; and ``import marginboost`` must not need dask.
:meth:`to_local` gives the in-memory estimator with the same fitted model, and model files are
the in-memory class's (``save`` writes the file of :meth:`to_local`; load it with the in-memory
class, or ``from_local`` its estimator).

What runs where in a fit: :mod:`marginboost.dask.data` checks and bins X on the workers;
each round the weak learner's histograms (O(p x bins) per block) and the loop's scalars come
to the client, and every vector of one entry per example stays on the workers
(:mod:`marginboost.dask.rows`).
"""
from __future__ import annotations

from marginboost.dask.base import DaskFitMixin, dask_constraints, store_parameters
from marginboost.dask.margin_matrix import DistributedMarginMatrix
from marginboost.dask.new_column import DistributedShortStep, edge_and_column
from marginboost.dask.objectives import DistributedSmoothedSoftMargin
from marginboost.estimators.compat import StrOptions
from marginboost.estimators.parameters import resolve_nu
from marginboost.estimators.soft_margin import (CERLPBoostClassifier, ERLPBoostClassifier, MLPBoostClassifier,
                                                _SoftMarginBoostClassifier)
from marginboost.soft_margin.fw_rules import FW_RULES, ShortStep, resolve_fw_rule
from marginboost.soft_margin.objectives import entropy_eta
from marginboost.soft_margin.scheme import SoftMarginLoop
from marginboost.soft_margin.secondary import resolve_secondary

__all__ = ["DaskCERLPBoostClassifier", "DaskERLPBoostClassifier", "DaskMLPBoostClassifier"]

# The secondary rules a cluster fit runs: those whose work is sums over examples (the LP rule's
# LP has a row per example).
DASK_SECONDARY = ("newton", "entropy", "none")


class DistributedSoftMarginLoop(SoftMarginLoop):
    """:class:`~marginboost.soft_margin.scheme.SoftMarginLoop` whose margins and distribution are
    recomputed from the model every ``REFRESH`` rounds: ``q = U w`` from the columns, ``d`` its
    projection. Each vector on the workers is a task of the vectors it came from, and Dask keeps
    that lineage while the vector lives, to recompute it where a worker is lost: updated in place
    round after round (``q + lam delta``), the margins would carry every round's tasks back to the
    first. Recomputed, their lineage is the columns', which is X's (each column a tree's
    predictions on the codes), so the scheduler's graph stays O(t) and a lost partition is
    recomputed from X and the committed model: the fit goes on to the same model. (The recomputed
    margins equal the updated ones up to rounding; the model is the same to about 1e-15.)"""

    REFRESH = 16

    def _edge_and_column(self, u, d, q):
        return edge_and_column(self.matrix, u, d, q, self.fw_rule)

    def step(self, state, round_):
        out = super().step(state, round_)
        if out.state is not None and out.stop is None and round_ % self.REFRESH == 0:
            w, _, value, _, best_edge = out.state
            q = self.matrix.matvec(w)
            out.state = (w, q, value, self.objective.distribution(q), best_edge)
        return out



class _DaskSoftMarginMixin(DaskFitMixin):
    """The cluster fit of a soft-margin booster (paper 000): the in-memory loop over the objective,
    the margin matrix and the selections on the workers."""

    def _make_loop(self, data, y_pm, weights):
        m = data.m
        self.nu_ = resolve_nu(self.nu, m, self._training_rows(m))
        self.eta_ = entropy_eta(m, self.nu_, self.eps)
        oracle = self._oracle(data)
        objective = DistributedSmoothedSoftMargin(self.nu_, self.eta_, weights, data.layout)
        assembly = self._assembly()
        secondary = resolve_secondary(assembly.secondary)
        if secondary is not None:
            secondary.start(m, self.nu_, objective, self.eps)
        fw_rule = resolve_fw_rule(assembly.step) if assembly.step is not None else None
        if type(fw_rule) is ShortStep:  # its sums in the pass over the new column
            fw_rule = DistributedShortStep()
        return DistributedSoftMarginLoop(oracle, data.y, objective, self.eps, fw_rule, secondary, objective,
                                         matrix=DistributedMarginMatrix(data.layout))

    def _store_dask_fit(self, result) -> None:
        self._store_fit(result)


class DaskMLPBoostClassifier(_DaskSoftMarginMixin, MLPBoostClassifier):
    """:class:`~marginboost.MLPBoostClassifier` fitted on a Dask cluster (module docstring).

    Parameters as :class:`~marginboost.MLPBoostClassifier`, but: ``weak_learner`` 'hist_tree'
    (default) or 'hist_stump', with ``max_bins`` bins a feature; ``secondary`` 'newton' (the
    default here), 'entropy' or 'none' (not 'lp': its LP has a row per example); ``step`` any of
    'short_step', 'classic', 'line_search', 'pairwise'; ``client``: the Dask client (default:
    the current one).
    """

    _local_class = MLPBoostClassifier
    _parameter_constraints = {**dask_constraints(MLPBoostClassifier),
                              "step": [StrOptions(set(FW_RULES))],
                              "secondary": [StrOptions(set(DASK_SECONDARY))]}

    def __init__(self, nu=0.1, eps=0.01, weak_learner="hist_tree", max_depth=2, max_iter=1000, max_time=None,
                 verbose=0, callbacks=None, early_stopping=False, validation_fraction=0.1, n_iter_no_change=10,
                 warm_start=False, step="short_step", secondary="newton", categorical_features=None, max_bins=255,
                 client=None):
        store_parameters(self, DaskMLPBoostClassifier, locals())


def _init_fixed_assembly(self, nu=0.1, eps=0.01, weak_learner="hist_tree", max_depth=2, max_iter=1000, max_time=None,
                         verbose=0, callbacks=None, early_stopping=False, validation_fraction=0.1, n_iter_no_change=10,
                         warm_start=False, categorical_features=None, max_bins=255, client=None):
    """``__init__`` of the Dask boosters whose assembly has no parameter (ERLPBoost, C-ERLPBoost):
    the in-memory booster's parameters, ``max_bins`` and ``client``."""
    _SoftMarginBoostClassifier.__init__(
        self, nu=nu, eps=eps, weak_learner=weak_learner, max_depth=max_depth, max_iter=max_iter, max_time=max_time,
        verbose=verbose, callbacks=callbacks, early_stopping=early_stopping, validation_fraction=validation_fraction,
        n_iter_no_change=n_iter_no_change, warm_start=warm_start, categorical_features=categorical_features)
    self.max_bins = max_bins
    self.client = client


class DaskCERLPBoostClassifier(_DaskSoftMarginMixin, CERLPBoostClassifier):
    """:class:`~marginboost.CERLPBoostClassifier` (Frank-Wolfe with the short step) fitted on a
    Dask cluster (module docstring); parameters as there, plus ``max_bins`` and ``client``."""

    _local_class = CERLPBoostClassifier
    _parameter_constraints = dask_constraints(CERLPBoostClassifier)

    __init__ = _init_fixed_assembly


class DaskERLPBoostClassifier(_DaskSoftMarginMixin, ERLPBoostClassifier):
    """:class:`~marginboost.ERLPBoostClassifier` (the entropy-regularised master each round) fitted
    on a Dask cluster (module docstring); parameters as there, plus ``max_bins`` and ``client``."""

    _local_class = ERLPBoostClassifier
    _parameter_constraints = dask_constraints(ERLPBoostClassifier)

    __init__ = _init_fixed_assembly
