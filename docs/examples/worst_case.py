"""
The worst case for LPBoost: rounds against m
============================================

Warmuth, Glocer and Raetsch (2007) built an instance on which LPBoost adds a new hypothesis
for every other example: about ``m / 2`` rounds for ``m`` examples. MLPBoost and ERLPBoost,
whose entropy spreads the distribution over the hard half of the sample at once, finish in
two (paper 000, section 5). Hard margin (``nu = 1``), ``eps = 0.01``, the instance's exact weak
learner (:func:`marginboost.weak_learners.make_lpboost_worst_case`,
:class:`marginboost.weak_learners.WorstCaseLearner`); ``marginboost bench-worst-case`` runs
the same at larger ``m``.
"""
import matplotlib.pyplot as plt

from marginboost import ERLPBoostClassifier, LPBoostClassifier, MLPBoostClassifier
from marginboost.experiments.worst_case import instance_step
from marginboost.weak_learners import WorstCaseLearner, make_lpboost_worst_case

sizes = [8, 16, 32, 64, 128, 256]
boosters = {"LPBoost": LPBoostClassifier, "MLPBoost": MLPBoostClassifier, "ERLPBoost": ERLPBoostClassifier}
added = {name: [] for name in boosters}  # hypotheses added: the paper's iterations
print(f"{'m':>4} " + " ".join(f"{name:>10}" for name in boosters))
for m in sizes:
    step = instance_step(m)  # the instance's own small constant, min(1e-4, 1/(2m))
    X, y = make_lpboost_worst_case(m, eps=step)
    for name, cls in boosters.items():
        clf = cls(nu=1, eps=0.01, weak_learner=WorstCaseLearner(eps=step), max_iter=2 * m + 10).fit(X, y)
        assert clf.status_ == "converged"
        added[name].append(len(clf.hypotheses_))
    print(f"{m:4d} " + " ".join(f"{added[name][-1]:10d}" for name in boosters))

# %%
# LPBoost's rounds grow with ``m``; the others' stay at two.

fig, ax = plt.subplots(figsize=(6.5, 4.2), layout="constrained")
for (name, counts), marker in zip(added.items(), "osx"):
    ax.plot(sizes, counts, marker=marker, label=name)
ax.plot(sizes, [m / 2 for m in sizes], color="black", linestyle="--", linewidth=1, label="m / 2")
ax.set_xscale("log", base=2)
ax.set_yscale("log", base=2)
ax.set_xlabel("m (examples)")
ax.set_ylabel("hypotheses added")
ax.legend()
plt.show()
