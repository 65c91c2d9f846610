"""Secondary update rules B of the generic scheme (paper 000, Algorithm 1 line 12).

A secondary rule re-optimises the weights over all hypotheses found so far. The scheme keeps
its O(ln(m/nu)/eps^2) guarantee with *any* rule, exact or not, because each round keeps the
better of the FW candidate and the secondary one (000, Theorem 3). Rules:

* ``'lp'``       the LPBoost rule (Algorithm 2): ``argmax_{w in CH(E_{t+1})} rho(U w)``, the
                 restricted master LP, warm-started across rounds (:mod:`marginboost.soft_margin.restricted_lp`).
* ``'entropy'``  the ERLPBoost rule (eq. 14): ``argmax_{w in CH(E_{t+1})} rho~(U w)``
                 (:mod:`marginboost.soft_margin.entropic_master`). With it, Algorithm 1 *is* ERLPBoost.
* ``'newton'``   our extension beyond 000, the fast inexact rule: ONE warm-started
                 active-set Newton step on the ERLPBoost problem (eq. 14), with a truncated
                 Hessian and a loose line search (:class:`NewtonStepRule`). Theorem 3 of 000
                 needs no exactness from B, so the iteration bound stands; in practice it keeps
                 most of ERLPBoost's round savings at a fraction of its cost per round.
* ``'none'``     no secondary update: the scheme is plain Frank-Wolfe (C-ERLPBoost for the
                 short step).
* a callable ``fn(U, w) -> w_new``: any user rule; ``U`` is the (m, t) margin matrix as a
                 dense float array, ``w`` the FW candidate; ``w_new`` must be a probability
                 vector of length t.
* a :class:`~marginboost.soft_margin.secondary_base.SecondaryRule`: a rule object with state.

Every rule is a :class:`~marginboost.soft_margin.secondary_base.SecondaryRule`, whose hooks the
scheme calls (:mod:`marginboost.soft_margin.secondary_base` lists them with their defaults): the
rules here are started once per fit (``start``) and then called once a round with the margin
matrix and the FW candidate, returning a
:class:`~marginboost.soft_margin.secondary_base.Candidate`. They set ``takes_margin_matrix = True``,
so the margin matrix they get is the loop's matrix object itself, a
:class:`~marginboost.core.margin_matrix.MarginMatrix` or, for +-1 hypotheses, a
:class:`~marginboost.core.bit_matrix.BitMarginMatrix` (read with ``matvec``, ``rmatvec``,
``column``, ``block_t``, ``dense``), and so avoid a dense copy of U every round.
"""
from __future__ import annotations

import warnings

import numpy as np

from marginboost.core.margin_matrix import as_margin_matrix
from marginboost.soft_margin.dual_simplex import DualSimplexMaster
from marginboost.soft_margin.entropic_master import solve_entropic_master
from marginboost.soft_margin.restricted_lp import RestrictedMasterLP
from marginboost.soft_margin.secondary_base import Candidate, SecondaryRule, as_secondary_rule
# CallableRule lived here before the base had its module: old imports and pickles find it here still.
from marginboost.soft_margin.secondary_base import CallableRule  # noqa: F401


RESOLVABLE_GAP = 100.0  # EntropyRule's default tolerance is at least this many eta-ulps (docstring)


LP_SOLVERS = {"dual_simplex": DualSimplexMaster, "highs": RestrictedMasterLP}
DEFAULT_LP_SOLVER = "dual_simplex"  # what ``secondary='lp'`` and LPBoost use


class LPRule(SecondaryRule):
    """Algorithm 2 of 000 (the LPBoost rule): the restricted master LP, hot-started across rounds.

    ``solver``: ``'dual_simplex'`` (:data:`DEFAULT_LP_SOLVER`; :mod:`marginboost.soft_margin.dual_simplex`, our
    dense bounded dual simplex, 3-4x faster on LPBoost's sequences, certified optimal) or
    ``'highs'`` (:mod:`marginboost.soft_margin.restricted_lp`, HiGHS' dual simplex, the
    reference). Both solve the same LP to the same optimum; where it has several optimal
    vertices they may return different ones.
    """

    name = "lp"
    takes_margin_matrix = True

    def __init__(self, solver: str | None = None):
        solver = DEFAULT_LP_SOLVER if solver is None else solver
        if solver not in LP_SOLVERS:
            raise ValueError(f"solver must be one of {sorted(LP_SOLVERS)}, got {solver!r}")
        self.solver = solver

    def start(self, m: int, nu: float, objective, eps: float) -> None:
        """Begin a fit: a new restricted master LP over ``m`` examples with cap ``1/nu``, no columns yet."""
        self._problem = (m, nu, objective.weights)
        self._lp = LP_SOLVERS[self.solver](m, nu, objective.weights)
        self._n_cols = 0

    def forget(self, n_columns: int) -> None:
        """Keep only the first ``n_columns`` hypotheses: a round rolled back (Ctrl-C) after its
        column reached the LP. HiGHS cannot drop a row here, so the LP is rebuilt on the next call."""
        if self._n_cols > n_columns:
            self._lp = LP_SOLVERS[self.solver](*self._problem)
            self._n_cols = 0

    def __call__(self, matrix, w_fw: np.ndarray | None) -> Candidate:
        matrix = as_margin_matrix(matrix)
        while self._n_cols < matrix.n:  # append only the columns the LP has not seen
            self._lp.add_hypothesis(matrix.column(self._n_cols))
            self._n_cols += 1
        w, d, _ = self._lp.solve()
        return Candidate(w, matrix.matvec(w), d)


class EntropyRule(SecondaryRule):
    """The ERLPBoost rule (000 eq. 14), solved to a duality gap of ``tol``.

    ``tol`` defaults to ``1e-3 * eps``: the rule's inexactness then moves the objective by
    far less than the ``eps/2`` gap at which the scheme stops, and the scheme's own stopping
    test uses the exact gap of the weights it keeps. The default is floored at
    ``RESOLVABLE_GAP * eta * machine epsilon``: ``d = softmax(-eta q)`` carries a relative error
    of about ``eta`` ulps, so a smaller gap cannot be certified (at ``eps = 1e-6`` every round
    ran 500 iterations and warned). At ``eps = 0.01`` the floor is about 1e-11, far below
    ``1e-3 * eps``.

    ``far_hessian_sample`` (2048): while the master's duality gap is more than 3x ``tol``, its Newton
    model's Hessian is sampled from that many rows (for +-1 columns in bits the exact integer Gram
    of the rows drawn), where the exact sum over the free examples costs ``|F| t^2`` (83% of
    ERLPBoost's time on banana), and its line searches stop at relative accuracy 0.1; near ``tol``,
    and after a rough step that does not lower the gap, the exact model (``hessian_sample``, None:
    all free examples) and line search (``line_search_rtol``), so the solve still ends in Newton's
    fast convergence, and its result is certified by the same exact gap. ``None``: always the exact
    model. Measured (``benchmarks/time_to_eps.py``, ``time_to_eps.md``: ringnorm, twonorm, banana at
    nu in {0.1, 0.5}m, 5 stratified 90% subsamples, eps = 0.01, fit time and rounds summed; issue
    17): the sampled Hessian 34.6 s -> 19.1 s, rounds 4229 -> 4307 (at 0.1m banana 19.3 -> 8.5 s,
    twonorm 8.5 -> 6.2 s, ringnorm 3.9 -> 2.3 s); the loose line search with it 19.2 -> 15.8 s
    (rtol 0.01: 16.1 s). The choices, from runs of the same benchmark (33.2 s without): 2048 rows
    above 3x tol 19.4 s; 4096 rows 20.4 s; rough only above 10x tol (4096 rows) 22.7 s; the rough
    model given up after a step that does not halve the gap 23.4 s. Without the fallback after a
    failed rough step, ringnorm 0.5m took 3.3 s instead of 0.34 s (a rough step that stalled left
    the solve to Frank-Wolfe steps).
    """

    name = "entropy"
    takes_margin_matrix = True
    warn_inexact = True
    warm_from_fw = False  # warm start from the rule's own last optimum (zero on the new column)
    unit_step = False  # exact line searches (entropic_master.solve_entropic_master)
    single_precision_hessian = False  # a solve to tol needs Newton's quadratic convergence

    def __init__(self, tol: float | None = None, max_iter: int = 500, hessian_cutoff: float = 1e-14,
                 line_search_rtol: float = 1e-12, hessian_sample: int | None = None,
                 far_hessian_sample: int | None = 2048):
        for name, sample in (("hessian_sample", hessian_sample), ("far_hessian_sample", far_hessian_sample)):
            if sample is not None and not (isinstance(sample, (int, np.integer)) and sample >= 1):
                raise ValueError(f"{name} must be None or an integer >= 1 (rows drawn for the Hessian), "
                                 f"got {name}={sample!r}")
        self.tol = tol
        self.max_iter = max_iter
        self.hessian_cutoff = hessian_cutoff
        self.line_search_rtol = line_search_rtol
        self.hessian_sample = hessian_sample
        self.far_hessian_sample = far_hessian_sample

    def start(self, m: int, nu: float, objective, eps: float) -> None:
        """Begin a fit on the smoothed ``objective``; the solve tolerance is ``tol`` or the default above."""
        self._objective = objective
        resolvable = RESOLVABLE_GAP * objective.eta * np.finfo(np.float64).eps
        self._tol = self.tol if self.tol is not None else max(1e-3 * eps, resolvable)
        self._w_prev = None

    def __call__(self, matrix, w_fw: np.ndarray | None, fw_start: tuple | None = None) -> Candidate:
        """The rule's candidate; ``fw_start = (q, d)``: ``U w_fw`` and its distribution, which a rule
        that starts from the FW candidate (``warm_from_fw``) then need not compute again."""
        matrix = as_margin_matrix(matrix)
        t = matrix.n
        start = None
        if self._w_prev is None or (self.warm_from_fw and w_fw is not None):
            w0 = np.eye(t)[0] if w_fw is None else w_fw
            start = fw_start if w_fw is not None else None
        else:  # the previous optimum, zero on the new column: Newton then adds it if it helps
            w0 = np.zeros(t)
            w0[: self._w_prev.shape[0]] = self._w_prev
        # The last gap (an m x t product) serves only the inexact-solve warning below.
        res = solve_entropic_master(matrix, self._objective, w0, self._tol, self.max_iter, self.hessian_cutoff,
                                   self.line_search_rtol, self.hessian_sample, final_gap=self.warn_inexact,
                                   start=start, unit_step=self.unit_step,
                                   single_precision_hessian=self.single_precision_hessian,
                                   far_hessian_sample=self.far_hessian_sample)
        if not res.converged and self.warn_inexact:
            warnings.warn(
                f"entropy secondary rule (active-set Newton) stopped after {res.n_iter} iterations at "
                f"duality gap {res.gap:.3g} > tol {self._tol:.3g}; the round keeps the better of this "
                "inexact solution and the FW step, so the iteration bound still holds",
                RuntimeWarning,
                stacklevel=2,
            )
        self._w_prev = res.w
        return Candidate(res.w, res.q, None, evaluated=(self._objective, res.d, res.value))


class NewtonStepRule(EntropyRule):
    """The fast inexact secondary rule: ``n_steps`` warm-started Newton steps on eq. 14 of 000.

    Each round starts from this round's Frank-Wolfe candidate (or, without a FW rule, from its
    own last result, zero on the new column) and takes
    ``n_steps`` steps of :func:`~marginboost.soft_margin.entropic_master.solve_entropic_master`: the Newton step of the
    quadratic model of ``rho~(U w)`` on the face of the support plus the best column, with
    examples of weight ``<= hessian_cutoff * max(d)`` left out of the Hessian, the Hessian
    estimated from ``hessian_sample`` examples drawn in proportion to ``d`` when more are free
    (sub-sampled Newton; at m = 10^6 the exact one cost 60% of a round), and a step length
    (a Frank-Wolfe step where Newton does not ascend) chosen by ``line_search``.

    ``hessian_sample`` is 1024 (2^15 until issue 17's sixth sitting). Sampled, +-1 columns in bits
    take the exact integer Gram of the drawn rows, so the Hessian costs ``1024 k^2 / 64`` popcounts
    for ``k`` columns on the face, whatever m. Measured (5 stratified 90% subsamples of ringnorm,
    twonorm, banana at nu in {0.1, 0.5}m, eps = 0.01, fit time and rounds summed; EdgeTree(2) /
    HistogramTree(2)): 2^15 7.54 s / 4.18 s (4733 / 4719 rounds), 2048 7.64 / 3.85 s, 1024 7.24 /
    3.86 s (4871 / 4690 rounds), 512 7.58 / 4.01 s (5218 / 5017 rounds); 10^5 x 50 synthetic,
    nu = 0.1m, histogram trees, to eps = 0.01: 528 s (2021 rounds) -> 56 s (1596 rounds), the
    face having grown to ~1600 columns; per round on ringnorm (100 rounds) 0.80 -> 0.76 ms. The
    line search still evaluates the exact objective, so a rougher model costs rounds, not ascent.
    ``line_search``:

    * ``'exact'`` (default): :func:`~marginboost.core.line_search.newton_line_search` to relative
      accuracy ``line_search_rtol``: its first point is the Newton point along the step, its
      second (the step overshoots about 2x at eps = 0.01) the secant root, so 2-3 projections a
      round where Brent's method took 5-6;
    * ``'unit'``: the natural length 1 where the objective still ascends there, else the secant
      root of its slope (:func:`~marginboost.soft_margin.entropic_master._unit_step`), the exact
      search only where the secant overshoots: about 3 projections a round instead of 7.
      Measured (issue 17; depth-2 trees, eps = 0.01, fit s of two fits each, the benchmark run
      on the other core): ringnorm nu = 0.1m 0.49-0.57 -> 0.39-0.40 (145 -> 139 rounds),
      twonorm 0.1m 0.76-0.78 -> 0.73-0.74, 0.5m 0.27-0.29 -> 0.22 (118 -> 98 rounds); but banana
      0.1m 0.65-0.69 -> 0.79-0.81 (309 -> 341 rounds) and 0.5m 0.04 -> 0.05-0.06 (46 -> 64
      rounds), where the face Hessian of ~300 columns dominates a round. Those are against
      Brent's search; against ``newton_line_search`` the two are even (5 stratified 90%
      subsamples of each of the six settings, fit time summed: 'unit' 10.2 s, 'exact' 10.6 s).

    The start's margins and distribution are the FW candidate's, which the scheme has already
    computed (``fw_start``). No step lowers the objective, so the candidate is at least the warm
    start; the scheme keeps the better of it and the FW candidate, and Theorem 3 of 000 holds for
    any rule B. Not in the paper: measured in ``benchmarks/master_overhead.py``.

    ``amortise=True`` (off by default) skips the rule in rounds where the FW step alone gains at
    least what the rule added over it the last time it ran (at most ``max_skip`` rounds in a row;
    :meth:`skip_round`); the bound is unchanged. Measured on full data, eps = 0.01, depth-2 trees
    (issue 17): twonorm nu = 0.1m 1.13 s -> 0.92 s (323 -> 276 rounds), ringnorm and twonorm at
    0.5m unchanged, but banana 0.98 s -> 1.35 s at 0.1m and 0.11 s -> 0.17 s at 0.5m (more rounds):
    not a default yet.
    """

    name = "newton"
    warn_inexact = False  # inexact by design
    # A single step must start from the best point known: the FW candidate of this round,
    # built on the weights the scheme kept. The rule's own last result may have lost to FW.
    warm_from_fw = True
    # One step of a model already approximate (sampled, cut off): its Hessian in float32, in half
    # the time (entropic_master._face_hessian).
    single_precision_hessian = True

    def __init__(self, n_steps: int = 1, hessian_cutoff: float = 1e-2, line_search_rtol: float = 0.1,
                 hessian_sample: int | None = 1024, amortise: bool = False, max_skip: int = 8,
                 line_search: str = "exact"):
        super().__init__(tol=None, max_iter=n_steps, hessian_cutoff=hessian_cutoff,
                         line_search_rtol=line_search_rtol, hessian_sample=hessian_sample, far_hessian_sample=None)
        if line_search not in ("unit", "exact"):
            raise ValueError(f"line_search must be 'unit' or 'exact', got line_search={line_search!r}")
        self.line_search = line_search
        self.n_steps = n_steps
        self.amortise = amortise
        self.max_skip = max_skip

    @property
    def unit_step(self) -> bool:
        """Whether the steps take the natural length or the secant root (``line_search='unit'``)."""
        return self.line_search == "unit"

    def start(self, m: int, nu: float, objective, eps: float) -> None:
        """Begin a fit (and, when amortised, run in the first rounds until an advantage is known)."""
        super().start(m, nu, objective, eps)
        self._advantage = np.inf
        self._skipped = 0

    def skip_round(self, fw_gain: float) -> bool:
        """With ``amortise``: skip this round when the FW candidate alone gains at least what this
        rule's candidate added over the FW one the last time it ran, at most ``max_skip`` rounds in
        a row (the loop keeps the FW candidate then; Theorem 3 of 000 needs nothing of B)."""
        if self.amortise and self._skipped < self.max_skip and fw_gain >= self._advantage:
            self._skipped += 1
            return True
        self._skipped = 0
        return False

    def observe(self, advantage: float) -> None:
        """The objective this rule's candidate gained over the FW candidate in a round it ran (0 if it lost)."""
        self._advantage = max(advantage, 0.0)


SECONDARY_RULES = {"lp": LPRule, "entropy": EntropyRule, "newton": NewtonStepRule}


def resolve_secondary(spec) -> SecondaryRule | None:
    """The secondary rule of the parameter ``secondary``: ``'lp' | 'entropy' | 'newton'`` -> a new
    rule; ``'none' | None`` -> None; a :class:`~marginboost.soft_margin.secondary_base.SecondaryRule`
    -> itself; another callable -> an adapter
    (:func:`~marginboost.soft_margin.secondary_base.as_secondary_rule`: a rule object's hooks, or a
    plain function ``fn(U, w) -> w_new``)."""
    if spec is None or (isinstance(spec, str) and spec == "none"):
        return None
    if isinstance(spec, str) and spec in SECONDARY_RULES:
        return SECONDARY_RULES[spec]()
    if not isinstance(spec, str) and callable(spec):
        return as_secondary_rule(spec)
    raise ValueError(f"secondary must be one of {sorted(SECONDARY_RULES) + ['none']} or a callable, got {spec!r}")
