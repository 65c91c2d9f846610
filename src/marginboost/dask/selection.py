"""The capped-simplex KL projection and the soft margin over margins kept on the Dask workers.

Both are selections: the examples of smallest margin are capped (the projection) or counted
(the soft margin), and the question is how many. In memory, :mod:`marginboost.core.projections`
answers it by quickselect over all m margins; here m stays on the workers and the client finds
the threshold by a few reductions, as a distributed multi-pivot selection.

The projection (paper 000, Algorithm 1 line 5; Shalev-Shwartz and Singer 2010):
``d_i = min(s_i / nu, Z s_i exp(-eta q_i))`` with ``sum d = 1`` (``s``: example weights of mean 1,
or none). For a threshold ``tau`` (a margin value), cap the examples with ``q_i < tau``; the free
mass is ``1 - M(tau) / nu`` with ``M(tau) = sum_{q_i < tau} s_i``, and the largest free entry is
at the cap or below iff

    nu - M(tau) <= S(tau) = sum_{q_i >= tau} s_i exp(-eta (q_i - tau))      (tau a margin value).

That test is false below the solution's threshold and true from it on; the solution is the
smallest margin value where it holds (:class:`_Search`). With it,
``d_i = s_i / nu`` below ``tau`` and ``d_i = s_i (1 - M/nu) exp(-eta (q_i - tau)) / S`` from it on,
and the smoothed soft margin has the closed form of :mod:`marginboost.core.projections` (the
``q_i`` of the free examples cancel)::

    rho~ = sum_{q_i < tau} s_i q_i / nu + ((1 - F) ln(m/nu) + F (ln F + ln m - ln S + eta tau)) / eta,
    F = 1 - M / nu.

The soft margin ``rho(q)`` (the mean of the ``nu`` smallest margins, example i counting ``s_i``
times) is the same search with the test ``M(tau) >= nu``: below the first value where it holds
lies the margin of rank ``nu``.

The search (:class:`_Search`), one reduction a step: the client keeps an interval ``[lo, hi)`` of
margin values that holds the threshold, with ``M``, ``sum s q`` below ``lo`` and ``S`` from ``hi``
on. Each block returns, for up to :data:`N_PIVOTS` pivots in the interval (margin values, chosen as
quantiles of the last step's samples), the counts, masses, ``sum s q`` and ``sum s exp(-eta (q -
pivot))`` of the margins between consecutive pivots, and a random sample of its margins in the
interval (at most :data:`SAMPLE`). The client evaluates the test at every pivot (``S`` by a suffix
sum whose factors ``exp(-eta (pivot' - pivot))`` are at most 1: no overflow) and narrows the
interval to the two pivots around the first that passes, the lower one left out: the test fails
there, so the margins equal to it (each block also sums the ties at each pivot) join those below.
Margins are sums of a few weights while the ensemble is small, most of them on a few values; a tie
kept in the interval would fill it step after step. About 256x fewer margins a step. Once every
block has at most :data:`SAMPLE` margins in the interval, they come back whole and the client finds
the threshold among them exactly. At m = 10^7 in 8 blocks: a first look (minima and samples), or
the last search's pivots, and 1-2 steps. The pivots only steer the search: the threshold found is
the exact one for any pivots; the samples are drawn with fixed seeds, so a run repeats bit for bit.

A projection's next search starts from its pivots (:class:`SearchHint`), in a window around its
thresholds: the margins outside the window count by their sums alone. The loop reports the soft
margin of the margins it projects, so the projection searches for it too, with the same passes
(:func:`_run`: the searches' steps in one round trip, a pass they share made once).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from marginboost.dask._selection import distinct_sums, interval_sums, kl_block, kl_d_few
from marginboost.dask.rows import PerBlock, RowVector

__all__ = ["SearchHint", "distributed_kl_projection", "distributed_soft_margin"]

N_PIVOTS = 256  # pivots a step: the interval shrinks about this many times
WINDOW = 8  # hint pivots either side of the last thresholds in a first step's window (about 3% of margins each side)
SAMPLE = 8192  # margins a block samples a step; a block with at most this many sends them all


def _ones_or(s, n):
    return np.ones(n) if s is None else s


def _first_look(q, s, block: int, seed: int):
    """A block's first answer: ``('all', q, s)`` when it has at most :data:`SAMPLE` margins, else
    ``('look', its smallest margin, its size, a sample of its margins)``."""
    if q.shape[0] <= SAMPLE:
        return "all", q, _ones_or(s, q.shape[0])
    return "look", float(np.min(q)), q.shape[0], _sample(q, block, seed, 0)


def _sample(values, block: int, seed: int, step: int):
    if values.shape[0] <= SAMPLE:
        return values.copy()
    rng = np.random.default_rng([seed, step, block])
    return values[rng.integers(0, values.shape[0], SAMPLE)]  # (with replacement: no O(n) permutation)


def _interval_stats(q, s, block: int, lo: float, hi: float, pivots: np.ndarray, eta: float | None, seed: int,
                    step: int, distinct: bool, window: bool = False, few: bool = False, delta=None, lam=None):
    """A block's answer to one step: ``('all', values, masses)`` of its margins in ``[lo, hi)``
    when it has at most :data:`SAMPLE` of them (or, with ``distinct``, at most 8x that many
    distinct values, each with its summed weight); else ``('stats', sums, n, sample)``, ``sums``
    :func:`._selection.interval_sums`'s per interval ``[pivots[b], pivots[b+1])`` (``pivots[0] <=
    lo``, the last up to ``hi``): count, mass, ``sum s q``, ``sum s exp(-eta (q - pivot))``, and the
    count, mass and ``sum s q`` of the ties at the pivot; the sample drawn
    from its margins, or with ``distinct`` from its distinct margins (many ties: a sample of examples
    may show one value only, and the pivots would not split the interval). With ``distinct`` the
    distinct values are counted first, in a pass of their own (a heavy tie inside the interval, as
    margins of a small ensemble have, made the pass of the sums and its copy of the interval cost
    5x that). With ``window`` (a search's first step, in a window around the last thresholds), always
    ``('stats', sums, n, sample, beyond)``, ``beyond`` the sums of the margins outside ``[lo, hi)``
    (:func:`._selection.interval_sums`). With ``few`` (margins expected to take few values), the
    distinct values first too, at most :data:`SAMPLE` of them (a pass that stops at the first one
    beyond), the sample drawn from the margins where there are more. With ``delta`` (a line search's
    direction), the distinct values' answer is ``('all', values, masses, sum s delta, sum s delta^2)``;
    with ``lam`` too, the margins are ``q + lam delta`` (made here, as numpy makes them)."""
    if (distinct or few) and not window:
        found = distinct_sums(q, s, 8 * SAMPLE if distinct else SAMPLE, lo, hi, delta, lam)
        if found is not None:
            return ("all",) + tuple(found)
    if lam is not None:
        q = q + lam * delta
    qa, sa, *sums, beyond = interval_sums(q, s, lo, hi, pivots, 0.0 if eta is None else eta, eta is not None, window)
    if qa.shape[0] <= SAMPLE and not window:
        return "all", qa, _ones_or(sa, qa.shape[0])
    pool = np.unique(qa) if distinct else qa
    return "stats", sums, pool.shape[0], _sample(pool, block, seed, step), beyond


class SearchHint:
    """Pivots that a projection starts from (the quantiles of its first step, kept for the next
    projection: the margins of consecutive rounds and line-search points are close, so they still
    cut them finely); None until a search has run. They need not be margins of the new ``q``: the
    projection's test passes at any real ``tau`` above a margin where it passes, and a threshold
    between two margins caps the same examples as the margin above it, so the answer is a capped
    set, found the same with any pivots.

    ``near``: the thresholds the last projection found (and its soft margin's rank-``nu`` margin):
    the next search's first step looks at the margins in a window of :data:`WINDOW` hint pivots
    either side of them, and takes those outside by their sums alone (below: mass and ``sum s q``;
    above: ``S`` at the window's end), a pass that costs half the full one, most margins bypassing
    the pivots' lookup. Where a threshold lies outside the window (its test passes at the window's
    start, or fails at its end) that search takes the full first step after it."""

    def __init__(self):
        self.pivots = None
        self.near = None


@dataclass
class Threshold:
    """The search's answer: the threshold ``tau`` (a margin value; ``inf``: every example below
    it), and below it ``mass = M(tau)`` and ``sq = sum s q``; from it on ``S(tau)`` (0 when
    ``tau`` is ``inf``, or the search is not the projection's)."""

    tau: float
    mass: float
    sq: float
    S: float


@dataclass
class _Pass:
    """A pass over the blocks: ``fn`` run per block on ``args`` (:meth:`RowLayout.submit`); passes
    of equal ``key`` over the same margins are one pass."""

    fn: object
    args: tuple
    key: tuple


class _Search:
    """The distributed selection of the module docstring, for the projection's test (``eta``
    given) or the soft margin's (``eta=None``), as steps: :meth:`request` names the pass over the
    blocks that the next step needs (None once :attr:`result` is found), :meth:`advance` takes the
    blocks' answers to it. :func:`_run` drives searches over the same margins together: one round
    trip a step for all of them, and a pass that two of them need (the hinted first step) once."""

    def __init__(self, q: RowVector, s: RowVector | None, nu: float, eta: float | None, seed: int = 0,
                 hint: "SearchHint | None" = None, pass_eta: float | None = None, delta: RowVector | None = None,
                 shift: tuple | None = None):
        self.q, self.s, self.nu, self.eta, self.seed, self.hint = q, s, float(nu), eta, seed, hint
        # a line search's direction: where a pass counts the distinct margins of all examples, it sums
        # s delta and s delta^2 per value too (:attr:`along`); with ``shift = (q0, lam)`` (``q`` is
        # ``q0 + lam delta``, made where it is asked for) that first pass makes the margins itself
        self.delta, self.shift = delta, shift
        self.along = None
        # the eta of the passes' exponentials: the test's, or a projection's whose passes the soft
        # margin's share (its test reads no exponential)
        self.pass_eta = eta if eta is not None else pass_eta
        self.layout = q.layout
        self.result: Threshold | None = None
        self.below = np.zeros(2)  # M and sum s q of the margins < lo
        self.S_hi = 0.0  # S(hi), relative to hi
        self.lo, self.hi = -np.inf, np.inf
        self.sizes = self.samples = self.pivots = None
        self.n_inside, self.distinct, self.step = self.layout.m, False, 0
        self.hinted = hint is not None and hint.pivots is not None  # the last search's pivots: no first look
        self.looking = not self.hinted
        self.windowed = self.window_missed = False

    def _passes(self, mass_below: np.ndarray, S: np.ndarray) -> np.ndarray:
        if self.eta is None:
            return mass_below >= self.nu
        return self.nu - mass_below <= S

    def request(self) -> _Pass | None:
        """The pass of the next step, or None when the search is decided."""
        if self.result is not None:
            return None
        blocks = PerBlock(range(self.layout.n_parts))
        if self.looking:
            return _Pass(_first_look, (self.q, self.s, blocks, self.seed), ("look",))
        if self.step == 200:
            raise RuntimeError("distributed selection did not converge in 200 steps (NaN margins?)")
        self.step += 1
        self.windowed = False
        few = False
        if self.hinted and self.step == 1:
            self.pivots = np.concatenate([[-np.inf], self.hint.pivots])
            # Few pivots: the last margins took few values (a small ensemble's sums of a few weights),
            # and these likely do too; all their values and masses then come back in one pass.
            few = self.hint.pivots.shape[0] < N_PIVOTS // 2
            self.windowed = not few and self._open_window()
        else:
            self.pivots = _pivots(self.lo, self.hi, self.samples, self.sizes)
        self.distinct = self.distinct or self.pivots.shape[0] < 2
        margins, lam = (self.shift if few and self.shift is not None and self.delta is not None
                        else (self.q, None))
        return _Pass(_interval_stats, (margins, self.s, blocks, self.lo, self.hi, self.pivots, self.pass_eta,
                                       self.seed, self.step, self.distinct, self.windowed, few, self.delta, lam),
                     ("stats", self.lo, self.hi, self.pivots.tobytes(), self.pass_eta, self.step, self.distinct,
                      self.windowed, few, id(self.delta), lam))

    def _open_window(self) -> bool:
        """Narrows the first step's pivots and ``[lo, hi)`` to the window of :class:`SearchHint`
        around the last thresholds, where there is one (and the blocks are larger than a sample:
        smaller ones send all their margins in the full first step)."""
        near = self.hint.near
        if self.window_missed or not near or int(np.max(np.diff(self.layout.bounds))) <= SAMPLE:
            return False
        hint = self.hint.pivots
        first = int(np.searchsorted(hint, min(near), side="right")) - 1 - WINDOW
        last = int(np.searchsorted(hint, max(near), side="right")) + WINDOW
        self.lo = float(hint[first]) if first >= 0 else -np.inf
        self.hi = float(hint[last]) if last < hint.shape[0] else np.inf
        self.pivots = np.concatenate([[self.lo], hint[(hint > self.lo) & (hint < self.hi)]])
        return True

    def advance(self, answers: list) -> None:
        """Takes the blocks' answers (in block order) to the pass of :meth:`request`."""
        if self.looking:
            self.looking = False
            if all(look[0] == "all" for look in answers):  # few margins: all of them are here
                self.result = self._exact(answers, self.below, np.inf, self.S_hi)
                return
            self.lo = min(look[1] if look[0] == "look" else np.min(look[1], initial=np.inf) for look in answers)
            self.sizes = [look[2] if look[0] == "look" else look[1].shape[0] for look in answers]
            self.samples = [look[3] if look[0] == "look" else look[1] for look in answers]
            return
        if all(a[0] == "all" for a in answers):
            self.result = self._exact(answers, self.below, self.hi, self.S_hi)
            return
        pivots, width, below, hi, S_hi = self.pivots, self.pivots.shape[0], self.below, self.hi, self.S_hi
        sums = [np.zeros(width, dtype=np.int64), np.zeros(width), np.zeros(width), np.zeros(width),
                np.zeros(width, dtype=np.int64), np.zeros(width), np.zeros(width)]
        sizes, samples = [], []
        if self.windowed:  # the margins outside the window: below it, and S at its end
            self.below = below = np.array([sum(a[4][1] for a in answers), sum(a[4][2] for a in answers)])
            self.S_hi = S_hi = float(sum(a[4][3] for a in answers))
        for a in answers:  # in block order: the same sums every run
            if a[0] == "all":
                # (the block's margins are all here: its sums by the kernel the blocks run)
                part = interval_sums(a[1], a[2], self.lo, hi, pivots, 0.0 if self.pass_eta is None else self.pass_eta,
                                     self.pass_eta is not None)[2:9]
                sizes.append(a[1].shape[0])
                samples.append(a[1])
            else:
                part = a[1]
                sizes.append(a[2])
                samples.append(a[3])
            sums = [total + x for total, x in zip(sums, part)]
        self.sizes, self.samples = sizes, samples
        count, mass, sq, e, tie_count, tie_mass, tie_sq = sums
        if self.step == 1 and self.hint is not None and self.eta is not None:
            self._renew_hint(samples, sizes)
        mass_below = below[0] + np.concatenate([[0.0], np.cumsum(mass)[:-1]])
        S = self._suffix(pivots, e, hi, S_hi)
        passes = self._passes(mass_below, S)
        first = int(np.argmax(passes)) if passes.any() else width
        if self.windowed and (first == 0 or (first == width and not self._passes(
                np.array([below[0] + mass.sum()]), np.array([S_hi]))[0])):
            # The threshold is not in the window (the test passes at its start or fails at its end):
            # the full first step.
            self.below, self.S_hi, self.lo, self.hi = np.zeros(2), 0.0, -np.inf, np.inf
            self.step, self.window_missed = 0, True
            return
        if first == 0:  # in the first step only (lo fails the test after it): tau = the smallest margin
            self.result = Threshold(float(self.lo), float(below[0]), float(below[1]), float(S[0]))
            return
        j = first - 1
        # Decided where [pivots[j], next) holds one margin value, pivots[j] (ties), or, for the soft
        # margin, where the ties at pivots[j] reach the rank nu (the rank-nu margin is pivots[j]).
        if count[j] == tie_count[j] or (self.eta is None and mass_below[j] + tie_mass[j] >= self.nu):
            self.result = self._decided(pivots, first, mass, sq, S, below, hi, S_hi)
            return
        # The threshold lies in (pivots[j], pivots[first]) (or up to hi), or is pivots[first]:
        # the test fails at pivots[j], so its ties join the margins below the next interval,
        # which starts at the next double (a heavy tie would otherwise fill it step after step).
        self.below = below + np.array([mass[:j].sum() + tie_mass[j], sq[:j].sum() + tie_sq[j]])
        if first < width:
            self.hi, self.S_hi = float(pivots[first]), float(S[first])
        self.lo = math.nextafter(float(pivots[j]), math.inf)
        inside = int(count[j] - tie_count[j])
        # Ties: an interval that did not shrink by half is asked for its distinct values next.
        self.distinct = self.distinct or inside * 2 > self.n_inside
        self.n_inside = inside

    def _renew_hint(self, samples: list, sizes: list) -> None:
        """The next search's pivots from this first step's samples: quantiles of all margins after
        a full step; after a window's, the quantiles of the window's margins in place of the hint's
        pivots inside it (as many as fit in :data:`N_PIVOTS`), the others kept."""
        if not self.windowed:
            fresh = _pivots(-np.inf, np.inf, samples, sizes)[1:]
            self.hint.pivots = fresh if fresh.shape[0] else None
            return
        old = self.hint.pivots
        kept = old[(old <= self.lo) | (old >= self.hi)]
        fresh = _pivots(self.lo, self.hi, samples, sizes)[1:]
        room = min(fresh.shape[0], N_PIVOTS - 1 - kept.shape[0])
        if room > 0:
            fresh = fresh[np.round(np.linspace(0, fresh.shape[0] - 1, room)).astype(np.int64)]
            self.hint.pivots = np.unique(np.concatenate([kept, fresh]))

    def run(self) -> Threshold:
        """The search run alone (:func:`_run`)."""
        _run(self)
        return self.result

    def _decided(self, pivots, first, mass, sq, S, below, hi, S_hi) -> Threshold:
        """The answer when the interval before the first pivot that passes the test holds the
        margin value ``pivots[first - 1]`` alone (or, for the soft margin, that value's ties reach
        the rank nu): the soft margin's rank-nu value is that one; the projection's threshold is the
        next value, ``pivots[first]`` (or ``hi``)."""
        mass_below = below[0] + np.concatenate([[0.0], np.cumsum(mass)])
        sq_below = below[1] + np.concatenate([[0.0], np.cumsum(sq)])
        j = first - 1
        if self.eta is None:
            return Threshold(float(pivots[j]), float(mass_below[j]), float(sq_below[j]), 0.0)
        if first < pivots.shape[0]:
            return Threshold(float(pivots[first]), float(mass_below[first]), float(sq_below[first]), float(S[first]))
        if np.isinf(hi):  # every example capped (nu = m)
            return Threshold(np.inf, float(mass_below[-1]), float(sq_below[-1]), 0.0)
        return Threshold(float(hi), float(mass_below[-1]), float(sq_below[-1]), float(S_hi))

    def _suffix(self, points: np.ndarray, e: np.ndarray, hi: float, S_hi: float) -> np.ndarray:
        """``S`` at each point: its own and every later interval's sums, moved to the point."""
        S = np.zeros(points.shape[0])
        if self.eta is None:
            return S
        nxt_point, acc = hi, S_hi
        for b in range(points.shape[0] - 1, -1, -1):
            acc = e[b] + (acc * math.exp(-self.eta * (nxt_point - points[b])) if acc else 0.0)
            S[b] = acc
            nxt_point = points[b]
        return S

    def _exact(self, answers, below, hi, S_hi) -> Threshold:
        """The threshold among the margins of the interval, all here with their weights."""
        values = np.concatenate([a[1] for a in answers])
        masses = np.concatenate([a[2] for a in answers])
        order = np.argsort(values, kind="stable")
        values, masses = values[order], masses[order]
        distinct, start = np.unique(values, return_index=True)
        mass = np.add.reduceat(masses, start) if values.shape[0] else np.zeros(0)
        if self.delta is not None and values.shape[0] and below[0] == 0.0 and np.isneginf(self.lo) and np.isinf(hi) \
                and all(len(a) == 5 for a in answers):  # every example's value is here, with its sums along delta
            self.along = (distinct, mass) + tuple(np.add.reduceat(np.concatenate([a[i] for a in answers])[order], start)
                                                  for i in (3, 4))
        sq = np.add.reduceat(masses * values, start) if values.shape[0] else np.zeros(0)
        mass_below = below[0] + np.concatenate([[0.0], np.cumsum(mass)[:-1]])
        sq_below = below[1] + np.concatenate([[0.0], np.cumsum(sq)[:-1]])
        S = self._suffix(distinct, mass, hi, S_hi)  # each distinct value its own point: exp(0) = 1
        passes = self._passes(mass_below, S)
        if self.eta is None:  # the margin of rank nu: the last value whose mass below is < nu
            j = (int(np.argmax(passes)) if passes.any() else distinct.shape[0]) - 1
            if j < 0:
                raise RuntimeError("soft margin selection lost its interval")
            return Threshold(float(distinct[j]), float(mass_below[j]), float(sq_below[j]), 0.0)
        if passes.any():
            j = int(np.argmax(passes))
            return Threshold(float(distinct[j]), float(mass_below[j]), float(sq_below[j]), float(S[j]))
        total_mass, total_sq = below[0] + mass.sum(), below[1] + sq.sum()
        if np.isinf(hi):  # every example capped (nu = m)
            return Threshold(np.inf, float(total_mass), float(total_sq), 0.0)
        return Threshold(float(hi), float(total_mass), float(total_sq), float(S_hi))


def _run(*searches: _Search) -> None:
    """Runs searches over the same margins to their results: each step's passes (the undecided
    searches', one per distinct key) in one round trip."""
    layout = searches[0].layout
    while True:
        groups = {}
        for search in searches:
            request = search.request()
            if request is not None:
                groups.setdefault(request.key, (request, []))[1].append(search)
        if not groups:
            return
        answers = layout.client.gather([layout.submit(request.fn, *request.args) for request, _ in groups.values()])
        for (_, members), block_answers in zip(groups.values(), answers):
            for search in members:
                search.advance(block_answers)


def _pivots(lo: float, hi: float, samples: list, sizes: list) -> np.ndarray:
    """Up to :data:`N_PIVOTS` margin values in ``[lo, hi)``, ``lo`` first: quantiles of the
    samples, each block's sample counted by the margins it stands for."""
    values, weights = [], []
    for sample, size in zip(samples, sizes):
        inside = sample[(sample >= lo) & (sample < hi)]
        if inside.shape[0]:
            values.append(inside)
            weights.append(np.full(inside.shape[0], size / max(sample.shape[0], 1)))
    if not values:
        return np.array([lo])
    v, w = np.concatenate(values), np.concatenate(weights)
    order = np.argsort(v, kind="stable")
    v, cw = v[order], np.cumsum(w[order])
    picks = np.searchsorted(cw, cw[-1] * np.arange(1, N_PIVOTS) / N_PIVOTS)
    return np.unique(np.concatenate([[lo], v[np.minimum(picks, v.shape[0] - 1)]]))


def _first(pair):
    return pair[0]


def _second(pair):
    return pair[1]


def distributed_kl_projection(q: RowVector, nu: float, eta: float, weights: RowVector | None = None,
                              delta: RowVector | None = None, hint: SearchHint | None = None,
                              soft_margin: bool = False, shift: tuple | None = None):
    """``(d, value, sums)`` as :func:`marginboost.core.projections.kl_projection_and_value`, for
    margins on the workers: ``d`` a :class:`RowVector`, ``value`` the smoothed soft margin,
    ``sums = (slope, sq, lin, mass)`` along ``delta`` (None without it), each summed per block
    in example order and over blocks in order. ``hint``: a :class:`SearchHint` kept from one
    projection to the next (saves the search's first round trip). With ``soft_margin``, a fourth
    item: the soft margin of ``q`` (:func:`distributed_soft_margin`, same ``nu`` and weights), searched
    with the projection, in the same round trips (its first pass, hinted, is the projection's).
    ``shift = (q0, lam)``: ``q`` is ``q0 + lam delta``, a :class:`~marginboost.dask.rows.LazyRowVector` (a line search's
    point): a first pass that counts the distinct margins makes them itself, and ``q``'s blocks are
    made only where another pass, ``d`` or the caller asks for them (a point not taken: never)."""
    m, layout = q.layout.m, q.layout
    along = delta if weights is None else None  # (the sums of a weighted d are summed where it is made)
    search = _Search(q, weights, nu, eta, hint=hint, delta=along, shift=shift)
    soft = _Search(q, weights, nu, None, hint=hint, pass_eta=eta, delta=along, shift=shift) if soft_margin else None
    _run(search, *([soft] if soft_margin else []))
    found = search.result
    if hint is not None:  # where the next projection's window goes
        hint.near = [t.tau for t in (found, soft.result if soft_margin else None)
                     if t is not None and np.isfinite(t.tau)]
    # No free example (nu = m, every one capped): F is 0 but for the rounding of M.
    F = 1.0 - found.mass / nu if found.S > 0.0 else 0.0
    scale = F / found.S if found.S > 0.0 else 0.0
    if delta is not None and search.along is None:  # the sums along delta from d's own pass
        pairs = layout.submit(kl_block, q, weights, found.tau, scale, nu, eta, delta)
        d = RowVector(layout, [layout.client.submit(_first, p, pure=False) for p in pairs])
        parts = layout.client.gather([layout.client.submit(_second, p, pure=False) for p in pairs])
        sums = tuple(float(sum(part[i] for part in parts)) for i in range(4))
    else:
        # Along delta, the sums from the values' sums of the search's pass. d made where it is used
        # (a line search's point not taken never needs it).
        sums = None if delta is None else _sums_along(search.along, found.tau, scale, nu, eta)
        d = layout.lazy(_kl_d, q, weights, found.tau, scale, nu, eta)
    if F <= 0.0:
        value = found.sq / nu + math.log(m / nu) / eta
    else:
        value = found.sq / nu + ((1.0 - F) * math.log(m / nu) + F * (math.log(F) + math.log(m) - math.log(found.S)
                                                                     + eta * found.tau)) / eta
    if soft_margin:
        return d, value, sums, _soft_margin_value(soft.result, nu)
    return d, value, sums


def _kl_d(q, s, tau: float, scale: float, nu: float, eta: float):
    """A block of the projection's ``d`` (:func:`._selection.kl_block` without sums): by a lookup of
    each margin value's ``d`` where the margins take at most :data:`SAMPLE` values
    (:func:`._selection.kl_d_few`, the same bits), else by the exponential of every margin."""
    d = kl_d_few(q, s, tau, scale, nu, eta, SAMPLE)
    return kl_block(q, s, tau, scale, nu, eta, None)[0] if d is None else d


def _sums_along(along: tuple, tau: float, scale: float, nu: float, eta: float) -> tuple[float, float, float, float]:
    """The line search's sums ``(slope, sq, lin, mass)`` of :func:`._selection.kl_block` from the
    distinct margins (unweighted) with their counts and sums of ``delta`` and ``delta^2``: every
    example of value ``v`` has the same ``d`` (the cap ``1/nu`` below ``tau``, ``scale exp(-eta (v -
    tau))`` from it on) and is free or not alike. Each sum is exactly rounded (``math.fsum``) over
    the values; the blocks' pass sums it over the examples, so the two agree to rounding."""
    values, counts, sd, sd2 = along
    cap = 1.0 / nu
    d = np.full(values.shape[0], cap)
    at_or_above = values >= tau
    d[at_or_above] = scale * np.exp(-eta * (values[at_or_above] - tau))
    free = d < cap * (1.0 - 1e-12)
    return (math.fsum(d * sd), math.fsum(d[free] * sd2[free]), math.fsum(d[free] * sd[free]),
            math.fsum(d[free] * counts[free]))


def _soft_margin_value(found: Threshold, nu: float) -> float:
    """The mean of the ``nu`` smallest margins from the rank-nu margin ``tau`` and the mass and
    ``sum s q`` below it."""
    return float((found.sq + (nu - found.mass) * found.tau) / nu)


def distributed_soft_margin(q: RowVector, nu: float, weights: RowVector | None = None) -> float:
    """The mean of the ``nu`` smallest margins, example i counting ``weights[i]`` times, as
    :func:`marginboost.soft_margin.objectives.soft_margin`. (No hint: a search for margins of no
    projection; :func:`distributed_kl_projection` finds it with the projection's hint.)"""
    return _soft_margin_value(_Search(q, weights, nu, None).run(), nu)
