"""The ``marginboost`` command line: datasets, fit, predict, show, demo, bench, bench-fw, bench-ma,
bench-nzdd, bench-worst-case.

``fit --booster NAME`` fits any classifier of the package (:func:`boosters`) and ``--model``
writes it in the one model format of :mod:`marginboost.io.model_io`, which ``predict`` reads. The named
options (``--nu``, ``--eps``, ...) set the estimator parameter of the same name and are refused
by a booster without it; ``--param NAME=VALUE`` sets any other (e.g. ``learning_rate=0.05``).

User mistakes (an unknown data set, booster or parameter, an unreadable file, a label column
with fewer than two classes or with real values, a missing label, an unseen category, an output
that is the input, a missing optional package) end with a one-line
``marginboost: error: ...`` and exit status 2, never a traceback. Ctrl-C ends a command with
status 130, keeping what was already written. ``fit --model`` and ``predict --output`` check
that the file can be written before any work starts.

Warnings are one line each on stderr, ``marginboost: warning: ConvergenceWarning: ...``
(without Python's file, line and source line), each shown once per place that issues it as
Python's default filters do (``-W`` and ``PYTHONWARNINGS`` still apply); e.g. a fit stopped by
``--max-iter`` before its stopping rule held says why, per class with more than two. Statuses
print as words (``converged``, ``max_iter``), per class in a list: ``[converged, max_iter]``.

``show model.json [--top N]`` prints a model file as :func:`marginboost.inspection.describe` does:
the estimator and its parameters, the soft margin and its gap, the rounds and the status, and the
hypotheses as weighted rules, heaviest first (``--top``, default 20, per class model).

``predict`` reads a labelled file as ``fit`` does, or a CSV file of features only: one without
``--label-column`` whose number of columns is the model's number of features. Its labels are
read only for ``--score``.

CSV files (:func:`marginboost.io.datasets.read_csv`):

* ``--header`` / ``--no-header`` say whether the first row names the columns; without either,
  it is guessed (:func:`marginboost.io.datasets.guess_header`) and the decision, with its
  reason, is said on stderr.
* ``--label-column`` is a column name, or an index from ``-n`` to ``n - 1`` for ``n`` columns
  (default ``-1``, the last); any other index is an error naming that range.
* Labels keep their type: a column of integers gives integer classes, and predictions print
  them as integers. A label column of real values (scikit-learn's ``type_of_target`` says
  ``'continuous'``, as a classifier's ``fit`` does) is refused, naming the regressor to use.
* A row without a label is refused with its line number, unless ``--drop-missing-labels``
  leaves such rows out (their count and lines are said on stderr; ``predict --score`` then
  scores the other rows and still predicts every row). A missing feature is an error naming
  its column and line.
* A column of text is encoded as categories, learned by ``fit`` (each text column's distinct
  values in sorted order, code k for the k-th) and stored in the model file
  (``feature_categories``); ``predict`` encodes its file with the stored categories, so a file
  holding only some of them is encoded as the training file was. A value not seen at fit,
  or text in a column the model had numbers in, is an error naming the column, the line and
  the value: an unseen category has no code the model could use, and no row is guessed.

``fit --model`` and ``predict --output`` refuse the data file itself (also under another path,
through a link: :func:`os.path.samefile`), and ``predict --output`` the model file; both
outputs are written to a temporary file first and then renamed over the target, so an
interrupted command leaves the earlier file whole.

``bench --quick`` (and ``bench-fw``, ``bench-ma``, ``bench-nzdd``, ``bench-worst-case --quick``)
without ``--out`` writes to a new folder ``<command>-quick-<date>-<time>`` in the current
directory, never over the full results the repository keeps in ``benchmarks/results/``.

``bench --resume`` goes on with the run whose ``fits.jsonl`` is in ``--out``: fits recorded
there as finished are not run again (:mod:`marginboost.experiments.journal`), so a run of hours
can be done in several sittings, each ended by Ctrl-C or a kill.

``demo`` fits on ``wdbc``, scikit-learn's Wisconsin diagnostic breast cancer set
(``load_breast_cancer``, 569 x 30), which is not the bundled ``breast_cancer`` (KEEL's
``breast``, the paper's B.Cancer, 277 x 9).

A CSV or LIBSVM file may hold more than two classes: ``fit`` then fits one model per class
(one-vs-rest, :mod:`marginboost.estimators.multiclass`), and the model file keeps them all. The bundled data sets
are binary.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from sklearn.base import is_classifier
from sklearn.exceptions import ConvergenceWarning

from marginboost import registry
from marginboost._version import __version__
from marginboost.core.interrupts import on_interrupt
from marginboost.estimators.multiclass import is_one_vs_rest
from marginboost.estimators.soft_margin import CERLPBoostClassifier, ERLPBoostClassifier, LPBoostClassifier, MLPBoostClassifier
from marginboost.inspection import describe
from marginboost.io.datasets import (LabelTypeError, csv_columns, guess_header, list_datasets, load_csv,
                                     load_csv_features, load_dataset, load_libsvm, read_csv)
from marginboost.io.model_io import load_model
from marginboost.soft_margin.fw_rules import FW_RULES
from marginboost.soft_margin.secondary import SECONDARY_RULES
from marginboost.weak_learners import NAMED_WEAK_LEARNERS


def boosters() -> dict[str, type]:
    """Every classifier of the package by booster name (:func:`marginboost.registry.classifiers`):
    the command line reads labelled data only, so no regressor."""
    return registry.classifiers()

# fit's named options, each the estimator parameter of the same name (dashes for underscores).
NAMED_PARAMS = ("nu", "eps", "weak_learner", "max_depth", "max_iter", "max_time", "step", "secondary")


class UsageError(Exception):
    """A mistake in what the user asked for: reported in one line, exit status 2."""


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage mistake is one line (no usage dump), exit status 2."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message} (see --help)\n")


LIBSVM_SUFFIXES = {".svm", ".libsvm", ".txt"}
# The scikit-learn set `demo` fits on: named apart from the bundled (KEEL) breast_cancer.
DEMO_DATA = "wdbc"


def load_data(spec: str, label_column: str | None = None, *, header: bool | None = None,
              missing_labels: str = "error", booster: str | None = None):
    """A bundled data set by name, or a CSV / LIBSVM file by path (``.svm``/``.libsvm``/``.txt``),
    which may hold more than two classes. A missing optional package is a :class:`UsageError`
    naming what to install.

    CSV files: ``header`` None guesses the header row and says what it decided on stderr;
    ``missing_labels`` as :func:`marginboost.io.datasets.load_csv` (rows dropped are said on
    stderr). Labels of real values are a :class:`UsageError` naming the regressor of
    ``booster`` where it has one."""
    kind = _data_kind(spec)
    _check_header_option(spec, kind, header)
    try:
        if kind == "bundled":
            return load_dataset(spec)
        if kind == "libsvm":
            return load_libsvm(Path(spec), multiclass=True)
        data = load_csv(spec, label_column=_label_column(label_column), header=_decide_header(spec, header),
                        multiclass=True, missing_labels=missing_labels)
        if data.dropped_lines:
            print(f"marginboost: {spec}: {data.notes}", file=sys.stderr)
        return data
    except LabelTypeError as exc:
        raise UsageError(f"{exc.base}; {_regression_advice(booster)}") from None
    except ImportError as exc:  # the loaders' messages name the package or extra to install
        raise UsageError(_import_message(spec, exc)) from None


def _regression_advice(booster: str | None) -> str:
    """Where to go for regression: the booster's own regressor, or else every regressor of the package."""
    regressors = registry.regressors()
    if booster in regressors:
        return (f"for regression, fit marginboost.{regressors[booster].__name__} (--booster {booster}'s regressor) "
                "from Python: the command line fits classifiers")
    names = " or ".join(sorted(cls.__name__ for cls in regressors.values()))
    return f"for regression, fit marginboost.{names} from Python: the command line fits classifiers"


def _import_message(spec: str, exc: ImportError) -> str:
    return str(exc).splitlines()[0] if str(exc) else f"cannot load {spec!r}: {exc!r}"


def _data_kind(spec: str) -> str:
    """'bundled', 'libsvm' or 'csv'; a :class:`UsageError` for a name that is neither a bundled
    set nor a file."""
    if spec in list_datasets():
        return "bundled"
    path = Path(spec)
    if not path.exists():
        raise UsageError(f"no bundled data set or file named {spec!r}; bundled: {', '.join(list_datasets())}")
    return "libsvm" if path.suffix.lower() in LIBSVM_SUFFIXES else "csv"


def _check_header_option(spec: str, kind: str, header: bool | None) -> None:
    if header is not None and kind != "csv":
        what = "a bundled data set" if kind == "bundled" else "a LIBSVM file"
        raise UsageError(f"--header and --no-header apply to CSV files; {spec} is {what}")


def _label_column(text: str | None) -> int | str:
    """``--label-column``: a column name, or else an index if it is an integer (the loader
    decides, knowing the names); default -1, the last column."""
    return -1 if text is None else text


def _decide_header(spec: str, header: bool | None) -> bool:
    """``--header`` / ``--no-header``, or else the guess, said on stderr with its reason."""
    if header is not None:
        return header
    try:
        guess = guess_header(spec)
    except ImportError as exc:
        raise UsageError(_import_message(spec, exc)) from None
    if guess.header:
        names = ", ".join(guess.first_row[:10]) + (", ..." if len(guess.first_row) > 10 else "")
        decision = f"took the first row as a header ({names}): {guess.reason}; say --no-header if it is data"
    else:
        decision = f"read the first row as data (no header): {guess.reason}; say --header if it names the columns"
    print(f"marginboost: {spec}: {decision}", file=sys.stderr)
    return guess.header


def _same_file(a, b) -> bool:
    """Whether two paths name one file: the same file by another path, a link, a hard link."""
    try:
        return os.path.samefile(a, b)
    except OSError:  # one of them does not exist (yet)
        return os.path.realpath(a) == os.path.realpath(b)


def _check_writable(path: str, option: str, inputs: dict | None = None) -> None:
    """Refuse, before any work, an output file that could not be written: in a missing folder,
    a folder itself, or in a folder without write permission; or one of ``inputs`` (what ->
    path, e.g. ``{"the data file": ...}``), also by another path."""
    target = Path(path)
    for what, source in (inputs or {}).items():
        if source is None or (what == "the data file" and source in list_datasets()):
            continue
        if _same_file(target, source):
            raise UsageError(f"{option} {path} is {what} ({source}): writing it would overwrite it; choose "
                             "another file")
    if target.is_dir():
        example = target / ("model.json" if option == "--model" else "predictions.txt")
        raise UsageError(f"{option} {path} is a folder: give a file name, e.g. {example}")
    folder = target.parent
    if not folder.is_dir():
        raise UsageError(f"{option} {path}: no folder {str(folder)!r} to write it in (create it first)")
    if not os.access(folder, os.W_OK):
        raise UsageError(f"{option} {path}: the folder {str(folder)!r} is not writable")


def _write_atomically(path: str, text: str) -> None:
    """Write ``text`` to a temporary file beside ``path``, then rename it over ``path``: an
    interrupted write leaves the earlier file whole (as model files are written)."""
    target = Path(path)
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    try:
        tmp.write_text(text)
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)


def _nu(text: str):
    """A count (integer text) or a fraction (decimal text), as the estimators read ``nu``."""
    try:
        return int(text)
    except ValueError:
        return float(text)


def _param(text: str) -> tuple[str, object]:
    """``NAME=VALUE`` of ``--param``: VALUE an int, a float, true/false, none, or else a string."""
    name, sep, value = text.partition("=")
    if not sep or not name:
        raise argparse.ArgumentTypeError(f"expected NAME=VALUE, got {text!r}")
    lowered = value.lower()
    if lowered in ("true", "false"):
        return name, lowered == "true"
    if lowered == "none":
        return name, None
    for kind in (int, float):
        try:
            return name, kind(value)
        except ValueError:
            pass
    return name, value


def _summary(est, data, elapsed: float) -> str:
    """One line: rounds, and the status, margin, gap and hypotheses where the booster has them;
    with more than two classes, per class (one-vs-rest)."""
    if is_one_vs_rest(est):
        head = (f"{len(est.classes_)} classes one-vs-rest: rounds {est.n_iter_.tolist()}, "
                f"status {_status_words(est.status_)}, "
                f"{sum(_n_hypotheses(model) for model in est.estimators_)} hypotheses in all")
    else:
        head = _binary_summary(est)
    return (f"{type(est).__name__} on {data.name} (m={data.shape[0]}, p={data.shape[1]}): {head}, "
            f"training accuracy {est.score(data.X, data.labels):.4f}, {elapsed:.2f} s")


def _status_words(statuses) -> str:
    """Per-class statuses as words, ``[converged, max_iter]``: a list prints its items' reprs,
    ``<Status.CONVERGED: 'converged'>``, where ``str`` of a Status is its value."""
    return "[" + ", ".join(str(status) for status in statuses) + "]"


def _n_hypotheses(est) -> int:
    """Hypotheses that count: those of nonzero weight where the booster weighs them."""
    return int(np.count_nonzero(est.weights_)) if hasattr(est, "weights_") else len(est.hypotheses_)


def _binary_summary(est) -> str:
    parts = [f"{est.n_iter_} rounds"]
    if hasattr(est, "status_"):
        parts.append(f"status {est.status_}")
    if hasattr(est, "margin_"):
        parts.append(f"soft margin {est.margin_:.6f} (nu={est.nu_:g})" if hasattr(est, "nu_")
                     else f"margin {est.margin_:.6f}")
    if hasattr(est, "gap_"):
        parts.append(f"gap {est.gap_:.3g}")
    parts.append(f"{_n_hypotheses(est)} hypotheses" + (" of nonzero weight" if hasattr(est, "weights_") else ""))
    return ", ".join(parts)


def _booster_params(args) -> dict:
    """The parameters asked for on the command line, checked against the booster's own."""
    cls = boosters()[args.booster]
    accepted = cls().get_params()
    params = {}
    for name in NAMED_PARAMS:
        value = getattr(args, name)
        if value is None:
            continue
        if name not in accepted:
            takers = sorted(b for b, c in boosters().items() if name in c().get_params())
            raise UsageError(f"--{name.replace('_', '-')} does not apply to --booster {args.booster} "
                             f"(it applies to {', '.join(takers)})")
        params[name] = value
    for name, value in args.param or []:
        if name not in accepted:
            raise UsageError(f"--booster {args.booster} has no parameter {name!r}; its parameters: "
                             f"{', '.join(sorted(accepted))}")
        if name in params:
            raise UsageError(f"parameter {name!r} given twice")
        params[name] = value
    return params


def cmd_datasets(args) -> int:
    """``marginboost datasets``: print the bundled data sets and their sources; returns 0."""
    for name, source in list_datasets().items():
        print(f"{name:<14} {source}")
    return 0


def cmd_fit(args) -> int:
    """``marginboost fit``: fit ``--booster`` on ``--data``, print the training summary, write ``--model``; returns 0."""
    params = _booster_params(args)
    if args.model:
        _check_writable(args.model, "--model", {"the data file": args.data})
    data = load_data(args.data, args.label_column, header=args.header,
                     missing_labels="drop" if args.drop_missing_labels else "error", booster=args.booster)
    est = boosters()[args.booster](**params)
    start = time.perf_counter()
    est.fit(data.X, data.labels)  # a ConvergenceWarning says why the status below is no convergence
    if any(c is not None for c in data.categories):  # text columns: predict encodes its file the same way
        est.feature_categories_ = data.categories
    print(_summary(est, data, time.perf_counter() - start))
    if args.model:
        est.save(args.model)
        print(f"model written to {args.model}")
    return 0


def cmd_predict(args) -> int:
    """``marginboost predict``: predict ``--data`` with the classifier of ``--model``, to stdout or ``--output``; returns 0.

    ``--data`` may be a CSV file of features only (as many columns as the model has features,
    and no ``--label-column``); ``--score`` needs labels."""
    if args.output:
        _check_writable(args.output, "--output", {"the data file": args.data, "the model file": args.model})
    est = load_model(args.model)
    if not is_classifier(est):
        raise UsageError(f"{args.model} holds a {type(est).__name__}: the command line predicts with "
                         "classifiers only (its data files hold class labels)")
    if getattr(est, "is_categorical_", None) is not None:
        # its categorical splits take the estimator's own encoding of DataFrame columns, which the
        # command line's CSV encoding of text columns (ordinal codes for thresholds) is not
        raise UsageError(f"{args.model} was fitted from Python on categorical features (categorical_features): "
                         "predict with it from Python (marginboost.load_model(path).predict(DataFrame))")
    n_features = est.n_features_in_
    stored = getattr(est, "feature_categories_", None)
    kind = _data_kind(args.data)
    _check_header_option(args.data, kind, args.header)
    if kind == "csv":
        X, scored_X, labels = _predict_csv(args, n_features, stored)
    else:
        data = load_data(args.data, args.label_column)
        if data.shape[1] != n_features:
            raise UsageError(f"the model expects {n_features} features, {args.data} has {data.shape[1]}")
        if stored is not None and (kind == "libsvm" or tuple(data.categories) != tuple(stored)):
            raise UsageError(f"the model encodes text columns with the categories it stores, and {args.data} "
                             f"{'holds numbers only' if kind == 'libsvm' else 'is encoded with other ones'}")
        X, scored_X, labels = data.X, data.X, data.labels
    pred = est.predict(X)
    lines = "\n".join(str(p) for p in pred.tolist())
    if args.output:
        _write_atomically(args.output, lines + "\n")
        print(f"{len(pred)} predictions written to {args.output}")
    else:
        print(lines)
    if args.score:
        scored = pred if scored_X is X else est.predict(scored_X)
        print(f"accuracy {_accuracy(scored, labels):.4f}", file=sys.stderr)
    return 0


def cmd_show(args) -> int:
    """``marginboost show``: print the model of ``model`` as weighted rules
    (:func:`marginboost.inspection.describe`), the ``--top`` heaviest per model; returns 0."""
    if args.top < 1:
        raise UsageError(f"--top must be at least 1, got {args.top}")
    print(describe(load_model(args.model), top=args.top))
    return 0


def _predict_csv(args, n_features: int, stored):
    """``(X, scored_X, labels)`` of a CSV file for ``predict``: every row's features, encoded
    with the model's categories (``stored``; None: numbers only), and for ``--score`` the
    labelled rows' features and labels (``scored_X`` is ``X`` when every row has a label)."""
    path = args.data
    try:
        columns = csv_columns(path)
    except ImportError as exc:
        raise UsageError(_import_message(path, exc)) from None
    features_only = args.label_column is None and columns == n_features
    if features_only and args.score:
        raise UsageError(f"--score needs labels, but {path} has features only ({n_features} columns, "
                         "as many as the model has features)")
    if not features_only and columns - 1 != n_features:
        raise UsageError(f"the model expects {n_features} features, {path} has {columns - 1} and a label column "
                         f"(a CSV file of features only has exactly {n_features} columns)")
    header = _decide_header(path, args.header)
    categories = stored if stored is not None else (None,) * n_features
    column = None if features_only else _label_column(args.label_column)
    if not args.score:
        return load_csv_features(path, header=header, categories=categories, label_column=column)[0], None, None
    table = read_csv(path, column, header=header, categories=categories,
                     missing_labels="drop" if args.drop_missing_labels else "error")
    if not table.dropped_lines:
        return table.X, table.X, table.labels
    print(f"marginboost: {path}: scored on the {len(table.labels)} rows with a label; "
          f"{len(table.dropped_lines)} without one ({_lines_text(table.dropped_lines)}) are predicted, not scored",
          file=sys.stderr)
    X = load_csv_features(path, header=header, categories=categories, label_column=column)[0]
    return X, table.X, table.labels


def _lines_text(lines) -> str:
    lines = list(lines)
    more = f" and {len(lines) - 10} more" if len(lines) > 10 else ""
    return ("line " if len(lines) == 1 else "lines ") + ", ".join(map(str, lines[:10])) + more


def _accuracy(pred: np.ndarray, labels: np.ndarray) -> float:
    """The share of ``pred`` equal to ``labels``; compared as text where one holds strings and the
    other numbers (a model file of string classes, from before labels kept their type)."""
    if (pred.dtype.kind in "USO") != (labels.dtype.kind in "USO"):
        pred, labels = pred.astype(str), labels.astype(str)
    return float(np.mean(pred == labels))


def cmd_demo(args) -> int:
    """``marginboost demo``: every soft-margin booster on ``wdbc`` (scikit-learn's ``load_breast_cancer``, not the
    bundled ``breast_cancer``), one line each; returns 0."""
    from sklearn.datasets import load_breast_cancer
    from sklearn.model_selection import train_test_split

    X, y = load_breast_cancer(return_X_y=True)
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)
    boosters = {
        "LPBoost": LPBoostClassifier,
        "ERLPBoost": ERLPBoostClassifier,
        "C-ERLPBoost": CERLPBoostClassifier,
        "MLPBoost (SS)": MLPBoostClassifier,
        "MLPBoost (PFW)": lambda **kw: MLPBoostClassifier(step="pairwise", **kw),
    }
    print(f"{DEMO_DATA} (scikit-learn's Wisconsin breast cancer): {X_train.shape[0]} train / {X_test.shape[0]} "
          f"test, {X.shape[1]} features; nu = {args.nu} m, eps = {args.eps}, depth-2 trees")
    header = (f"{'booster':<16}{'rounds':>7}{'status':>11}{'soft margin':>13}{'gap':>10}{'nonzero w':>10}"
              f"{'test err':>10}{'time s':>9}")
    print(header)
    print("-" * len(header))
    for name, make in boosters.items():
        est = make(nu=args.nu, eps=args.eps, max_iter=args.max_iter)
        start = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)  # the table's status column says it
            est.fit(X_train, y_train)
        elapsed = time.perf_counter() - start
        print(f"{name:<16}{est.n_iter_:>7}{est.status_:>11}{est.margin_:>13.5f}{est.gap_:>10.2e}"
              f"{int((est.weights_ > 0).sum()):>10}{1 - est.score(X_test, y_test):>10.4f}{elapsed:>9.2f}")
    return 0


def cmd_bench(args) -> int:
    """``marginboost bench``: paper 000's Tables 2-3 and Figures 1-5 (:func:`.experiments.run_benchmark`); 130 if interrupted."""
    try:
        from marginboost.experiments import run_benchmark  # lazy: bench only (start-up time)
    except ImportError as exc:
        raise UsageError(f"the benchmark needs the 'bench' extra (pip install 'marginboost[bench]'): {exc}")

    unknown = [name for name in args.datasets or [] if name not in list_datasets()]
    if unknown:
        raise UsageError(f"unknown data set(s) {unknown}; bundled: {', '.join(list_datasets())}")
    if args.blas_threads is not None:
        if args.blas_threads < 1:
            raise UsageError(f"--blas-threads must be at least 1, got {args.blas_threads}")
        from threadpoolctl import threadpool_limits

        threadpool_limits(args.blas_threads)
    if args.resume and args.quick and args.out is None:
        raise UsageError("--resume --quick needs --out: a quick run without it writes to a new folder each time")
    out = _out_dir(args, "bench")
    result = run_benchmark(datasets=args.datasets, boosters=args.boosters, nus=args.nu, eps=args.eps,
                           max_time=args.max_time, folds=args.folds, seed=args.seed, out_dir=out,
                           quick=args.quick, progress=print, budget=args.budget,
                           canon=_none_is_empty(args.canon), peers=_none_is_empty(args.peers),
                           resume=args.resume, max_time_aborted=args.max_time_aborted)
    print(f"results written to {out} ({result['state']})")
    return 130 if result["state"] == "interrupted" else 0


# Each bench command's --out without --quick: where the repository keeps its full results.
FULL_RESULTS = {"bench": "benchmarks/results/paper", "bench-fw": "benchmarks/results/fwboost",
                "bench-ma": "benchmarks/results/maboost", "bench-nzdd": "benchmarks/results/nzdd",
                "bench-worst-case": "benchmarks/results/worst_case"}


def _out_dir(args, command: str) -> Path:
    """``--out``; by default :data:`FULL_RESULTS` for a full run, and for ``--quick`` a new folder
    ``<command>-quick-<YYYYmmdd-HHMMSS>`` in the current directory (``-2``, ``-3``... appended if
    it exists): a quick run never writes over the committed full results."""
    if args.out is not None:
        return Path(args.out)
    if not args.quick:
        return Path(FULL_RESULTS[command])
    base = f"{command}-quick-{time.strftime('%Y%m%d-%H%M%S')}"
    out, k = Path(base), 1
    while out.exists():
        k += 1
        out = Path(f"{base}-{k}")
    return out


def _none_is_empty(names):
    """``['none']`` (the command line's way to say none) as ``[]``; ``None`` (the default) unchanged."""
    return [] if names == ["none"] else names


def cmd_bench_fw(args) -> int:
    """``marginboost bench-fw``: paper 001's FWBoost experiments (:mod:`.experiments.fw_experiments`); returns 0."""
    from marginboost.experiments.fw_experiments import run_fw_experiments  # lazy: bench only (start-up time)

    if args.splits is not None and args.splits < 1:
        raise UsageError(f"--splits must be at least 1, got {args.splits}")
    if args.rounds is not None and args.rounds < 2:
        raise UsageError(f"--rounds must be at least 2, got {args.rounds}")
    out = _out_dir(args, "bench-fw")
    run_fw_experiments(out, quick=args.quick, seed=args.seed, splits=args.splits, rounds=args.rounds,
                       progress=print)
    print(f"results written to {out}")
    return 0


def cmd_bench_nzdd(args) -> int:
    """``marginboost bench-nzdd``: paper 003's Table 2 (:mod:`.experiments.nzdd_experiments`); returns 0."""
    from marginboost.experiments.nzdd_experiments import run_nzdd_experiments  # lazy: bench only (start-up time)

    unknown = [n for n in args.datasets or [] if n not in list_datasets()
               and not (n.startswith("twonorm_") and n[len("twonorm_"):].isdigit())]
    if unknown:
        raise UsageError(f"unknown data set(s) {unknown}; bundled: {', '.join(list_datasets())}, or twonorm_<rows>")
    if args.max_time is not None and args.max_time <= 0:
        raise UsageError(f"--max-time must be positive, got {args.max_time}")
    if args.blas_threads is not None:
        if args.blas_threads < 1:
            raise UsageError(f"--blas-threads must be at least 1, got {args.blas_threads}")
        from threadpoolctl import threadpool_limits

        threadpool_limits(args.blas_threads)
    out = _out_dir(args, "bench-nzdd")
    run_nzdd_experiments(out, quick=args.quick, datasets=args.datasets, max_time=args.max_time,
                         seed=args.seed, progress=print)
    print(f"results written to {out}")
    return 0


def cmd_bench_worst_case(args) -> int:
    """``marginboost bench-worst-case``: rounds of LPBoost against MLPBoost and ERLPBoost on the worst case
    (paper 000, section 5; :mod:`.experiments.worst_case`); returns 0."""
    from marginboost.experiments.worst_case import run_worst_case  # lazy: bench only (start-up time)

    out = _out_dir(args, "bench-worst-case")
    run_worst_case(out, sizes=args.m, eps=args.eps, quick=args.quick, progress=print)
    print(f"results written to {out}")
    return 0


def cmd_bench_ma(args) -> int:
    """``marginboost bench-ma``: paper 002's MABoost experiments (:mod:`.experiments.ma_experiments`); returns 0."""
    try:
        from marginboost.experiments.ma_experiments import run_ma_experiments  # lazy: bench only (start-up time)
    except ImportError as exc:
        raise UsageError(f"the MABoost experiments need the 'bench' extra (pip install 'marginboost[bench]'): {exc}")
    out = _out_dir(args, "bench-ma")
    run_ma_experiments(out, quick=args.quick, seed=args.seed, progress=print)
    print(f"results written to {out}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``marginboost`` command, one subcommand per ``cmd_*`` function."""
    parser = _Parser(prog="marginboost", description="Soft-margin boosting as Frank-Wolfe.")
    parser.add_argument("--version", action="version", version=f"marginboost {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    sub.add_parser("datasets", help="list the bundled data sets").set_defaults(func=cmd_datasets)

    data_args = _Parser(add_help=False)
    data_args.add_argument("--data", required=True, help="a bundled data set name, or a CSV / LIBSVM file")
    data_args.add_argument("--label-column", default=None,
                           help="CSV label column: a name, or an index in [-n, n - 1] for n columns (default -1: "
                                "the last)")
    header = data_args.add_mutually_exclusive_group()
    header.add_argument("--header", dest="header", action="store_const", const=True, default=None,
                        help="CSV: the first row names the columns")
    header.add_argument("--no-header", dest="header", action="store_const", const=False,
                        help="CSV: the first row is data (without either option it is guessed, and the guess said "
                             "on stderr)")
    data_args.add_argument("--drop-missing-labels", action="store_true",
                           help="CSV: leave out rows without a label, saying how many (default: refuse them, "
                                "naming their lines); predict --score scores the other rows")

    fit = sub.add_parser("fit", parents=[data_args], help="fit a booster and print the training summary",
                         description="Fit a booster; an option left out takes the booster's own default, and an "
                                     "option the booster has no parameter for is refused.")
    fit.add_argument("--booster", choices=sorted(boosters()), default="mlpboost")
    fit.add_argument("--nu", type=_nu, help="capping parameter: a count (int) or a fraction (float)")
    fit.add_argument("--eps", type=float, help="target accuracy (> 0)")
    fit.add_argument("--weak-learner", choices=list(NAMED_WEAK_LEARNERS))
    fit.add_argument("--max-depth", type=int, help="depth of the tree weak learner")
    fit.add_argument("--max-iter", type=int, help="most boosting rounds")
    fit.add_argument("--max-time", type=float, help="seconds")
    fit.add_argument("--step", help="the step rule (MLPBoost: " + ", ".join(sorted(FW_RULES)) + "; FWBoost, "
                     "AverageMarginBoost, MadaBoost: their own)")
    fit.add_argument("--secondary", choices=sorted(SECONDARY_RULES) + ["none"],
                     help="MLPBoost's secondary rule")
    fit.add_argument("--param", type=_param, action="append", metavar="NAME=VALUE",
                     help="any other parameter of the booster, e.g. learning_rate=0.05 (repeatable)")
    fit.add_argument("--model", help="write the fitted model (JSON) to this file")
    fit.set_defaults(func=cmd_fit)

    predict = sub.add_parser("predict", parents=[data_args],
                             help="predict with a saved model (--data may be a CSV file of features only)")
    predict.add_argument("--model", required=True, help="a model file written by 'marginboost fit --model'")
    predict.add_argument("--output", help="write predictions here, one per line (default: stdout)")
    predict.add_argument("--score", action="store_true", help="also print the accuracy (to stderr)")
    predict.set_defaults(func=cmd_predict)

    show = sub.add_parser("show", help="print a model file as weighted rules, with its margin, gap and status",
                          description="Print a model file: the estimator and its parameters, the soft margin and "
                                      "its gap, the rounds and the status, and the hypotheses as weighted rules "
                                      "sorted by weight (marginboost.describe).")
    show.add_argument("model", help="a model file written by 'marginboost fit --model' or est.save(path)")
    show.add_argument("--top", type=int, default=20, help="the most rules shown per model (default 20)")
    show.set_defaults(func=cmd_show)

    demo = sub.add_parser("demo", help=f"fit every soft-margin booster on {DEMO_DATA}, scikit-learn's Wisconsin "
                                       "breast cancer set (not the bundled breast_cancer)")
    demo.add_argument("--nu", type=float, default=0.1)
    demo.add_argument("--eps", type=float, default=0.01)
    demo.add_argument("--max-iter", type=int, default=2000)
    demo.set_defaults(func=cmd_demo)

    bench = sub.add_parser("bench", help="reproduce the paper's tables and figures (data sets x boosters x nu)")
    bench.add_argument("--datasets", nargs="+", default=None, help="default: the paper's 13 sets (quick: two)")
    bench.add_argument("--boosters", nargs="+", default=None, help="default: the paper's boosters and peers")
    bench.add_argument("--peers", nargs="+", default=None,
                       help="naive_lpboost adaboost gradient_boosting xgboost lightgbm (default: every one "
                            "installed; 'none' for none)")
    bench.add_argument("--canon", nargs="+", default=None,
                       help="classic boosters run beside them (totalboost softboost adaboostv smoothboost "
                            "graphsepboost gbm; default all; 'none' for none)")
    bench.add_argument("--nu", nargs="+", type=float, default=None, help="fractions of m (default 0.1 .. 0.5)")
    bench.add_argument("--eps", type=float, default=0.01)
    bench.add_argument("--max-time", type=float, default=None, help="seconds per fit at most before TIMEOUT")
    bench.add_argument("--max-time-aborted", type=float, default=None, metavar="SECONDS",
                       help="seconds per fit at most in the cells the paper aborted ('>1e3', '>1e4' in its "
                            "Table 2; default 60, 'inf' for no cap): there is no time of the paper's to reproduce")
    bench.add_argument("--budget", type=float, default=None,
                       help="wall-clock seconds for the whole run, shared out per data set (default 6600; quick 90)")
    bench.add_argument("--blas-threads", type=int, default=None,
                       help="limit BLAS/OpenMP threads (steadier timings; default: as configured)")
    bench.add_argument("--folds", type=int, default=None, help="CV folds for Table 3 (default 5; quick 3)")
    bench.add_argument("--seed", type=int, default=0)
    bench.add_argument("--out", default=None, help=f"output folder (default {FULL_RESULTS['bench']}; with --quick "
                                                    "a new folder bench-quick-<date>-<time> here)")
    bench.add_argument("--quick", action="store_true", help="a small subset, under 2 minutes")
    bench.add_argument("--resume", action="store_true",
                       help="go on with the run recorded in --out's fits.jsonl (same options; --budget may "
                            "differ): finished fits are not run again")
    bench.set_defaults(func=cmd_bench)

    bench_wc = sub.add_parser("bench-worst-case", help="paper 000's worst case for LPBoost: its rounds (about m/2) "
                                                       "against MLPBoost's and ERLPBoost's (about 2) as m grows")
    bench_wc.add_argument("--m", nargs="+", type=int, default=None,
                          help="sample sizes, even (default 16 32 ... 2048; quick 8 16 32 64)")
    bench_wc.add_argument("--eps", type=float, default=None, help="the boosters' tolerance (default 0.01, the paper's)")
    bench_wc.add_argument("--out", default=None,
                          help=f"output folder (default {FULL_RESULTS['bench-worst-case']}; with --quick a new "
                               "folder bench-worst-case-quick-<date>-<time> here)")
    bench_wc.add_argument("--quick", action="store_true", help="m up to 64: a second or two")
    bench_wc.set_defaults(func=cmd_bench_worst_case)

    bench_ma = sub.add_parser("bench-ma", help="paper 002's MABoost experiments: training error, sparsity, "
                              "label noise, trusted subset")
    bench_ma.add_argument("--seed", type=int, default=0)
    bench_ma.add_argument("--out", default=None, help=f"output folder (default {FULL_RESULTS['bench-ma']}; with "
                                                       "--quick a new folder bench-ma-quick-<date>-<time> here)")
    bench_ma.add_argument("--quick", action="store_true", help="small sets, few rounds, one split (seconds)")
    bench_ma.set_defaults(func=cmd_bench_ma)

    bench_fw = sub.add_parser("bench-fw", help="FWBoost's experiments (paper 001): regression and AdaBoost.FW "
                                               "curves, overfitting and time-per-round tables")
    bench_fw.add_argument("--out", default=None, help=f"output folder (default {FULL_RESULTS['bench-fw']}; with "
                                                       "--quick a new folder bench-fw-quick-<date>-<time> here)")
    bench_fw.add_argument("--quick", action="store_true", help="two regression sets and heart, one split: seconds")
    bench_fw.add_argument("--seed", type=int, default=0, help="seed of the first split (split k uses seed + k)")
    bench_fw.add_argument("--splits", type=int, default=None, help="random 50/50 splits (default 5; quick 1)")
    bench_fw.add_argument("--rounds", type=int, default=None, help="boosting rounds (default 300; quick 30)")
    bench_fw.set_defaults(func=cmd_bench_fw)

    bench_nzdd = sub.add_parser("bench-nzdd", help="paper 003's Table 2: time of LPBoost, ERLPBoost, C-ERLPBoost and "
                                                   "the average-margin booster over an NZDD (eps 0.01, nu 0.8m, stumps)")
    bench_nzdd.add_argument("--out", default=None,
                            help=f"output folder (default {FULL_RESULTS['bench-nzdd']}; with --quick a new folder "
                                 "bench-nzdd-quick-<date>-<time> here)")
    bench_nzdd.add_argument("--quick", action="store_true", help="400 rows of ringnorm and twonorm, eps 0.05: seconds")
    bench_nzdd.add_argument("--datasets", nargs="+", default=None,
                            help="bundled names or twonorm_<rows> (generated); default: spambase ringnorm twonorm "
                                 "magic twonorm_100000")
    bench_nzdd.add_argument("--max-time", type=float, default=None, help="seconds per fit before TIMEOUT (default 300)")
    bench_nzdd.add_argument("--seed", type=int, default=0, help="seed of the generated data")
    bench_nzdd.add_argument("--blas-threads", type=int, default=None,
                            help="limit BLAS/OpenMP threads (steadier timings; default: as configured)")
    bench_nzdd.set_defaults(func=cmd_bench_nzdd)
    return parser


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    """A warning as one line on stderr, ``marginboost: warning: Category: message``: no file,
    line number or source line, which tell a user of the command nothing. Which warnings are
    shown (each once per place that issues it, by default) is left to the warning filters."""
    text = " ".join(str(message).split())  # a message of several lines on one
    print(f"marginboost: warning: {category.__name__}: {text}", file=sys.stderr)


def main(argv=None) -> int:
    """Run the ``marginboost`` command with ``argv`` (default: ``sys.argv[1:]``); return its exit status.

    0 on success; 2 with a one-line ``marginboost: error: ...`` on a user mistake; 130 on Ctrl-C,
    which ends the whole command (fits run inside ``on_interrupt("raise")``), keeping the files
    already written.
    """
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        with on_interrupt("raise"), warnings.catch_warnings():  # Ctrl-C ends the command, also inside a fit
            warnings.showwarning = _show_warning  # restored on leaving: only the command's warnings
            return args.func(args)
    except KeyboardInterrupt:
        print("marginboost: interrupted; results written so far are kept", file=sys.stderr)
        return 130
    except (UsageError, ValueError, TypeError, FileNotFoundError, IsADirectoryError, PermissionError) as exc:
        message = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        print(f"marginboost: error: {message}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
