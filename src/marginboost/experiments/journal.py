"""The fit journal of ``run_benchmark``: an append-only record of every finished fit, for ``--resume``.

A full run of paper 000's experiments takes hours on 2 cores, so it has to survive Ctrl-C, a
kill or a reboot and go on in a later sitting. :class:`FitJournal` keeps one JSON object per
line in ``fits.jsonl`` in the output folder:

* a ``header`` line (first): the parameters that decide what the fits compute (data sets,
  boosters, peers, canon, nu grid, eps, max_time, max_time_aborted, folds, seed, subsample, ...).
  A resumed run with other parameters is refused: its fits would not belong in the same tables. The
  ``budget`` is not among them: each sitting may have its own;
* a ``sitting`` line per sitting: date, command, git commit, machine load;
* a ``dataset`` line when a data set is started: its split's description, with the per-fit
  time limit it got, which every later fit of that set keeps (a row of Table 2 stays fair);
* a ``fit`` line per finished fit (timing run, peer, canon, refit or CV fold), keyed by
  ``[section, dataset, booster, nu, fold]``, with its record.

Each line is written with one ``write``, then flushed and fsynced before the run goes on, so a
fit is on disk as soon as it is finished; an interrupt or a kill loses only the fit in
progress. A kill in the middle of a write can leave a last line without its newline or cut
short: it is dropped (and cut from the file) when the journal is read again.
"""
from __future__ import annotations

import json
import math
import os
from pathlib import Path

from marginboost.experiments.result_files import jsonable

FILE_NAME = "fits.jsonl"
FORMAT = 1
# Parameters of run_benchmark that may differ between sittings of one run.
SITTING_PARAMETERS = ("budget",)


def _plain(obj):
    """JSON-ready copy of a record, non-finite floats kept: a record read back equals the one written."""
    return jsonable(obj, keep_nonfinite=True)


def fit_key(section: str, dataset: str, booster: str, nu=None, fold=None) -> str:
    """The journal key of one fit: ``section`` is 'booster', 'peer', 'canon', 'refit' or 'cv'."""
    nu = None if nu is None else float(nu)
    return json.dumps([section, dataset, booster, nu, fold])


class JournalMismatch(ValueError):
    """The journal in the output folder was written by a run with other parameters."""


class FitJournal:
    """``out_dir/fits.jsonl``: read on ``resume``, then appended to, one line per finished fit.

    ``resume=False`` starts a new journal (an old one is replaced); ``resume=True`` reads the
    one there (if any: with none it starts one) and checks its parameters against ``parameters``.
    """

    def __init__(self, out_dir, parameters: dict, sitting: dict, resume: bool):
        self.path = Path(out_dir) / FILE_NAME
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.fits: dict[str, dict] = {}
        self.datasets: dict[str, dict] = {}
        self.sittings: list[dict] = []
        self.resumed = False
        identity = _plain({k: v for k, v in parameters.items() if k not in SITTING_PARAMETERS})
        if resume and self.path.exists():
            header = self._read()
            if header is not None:
                if header.get("parameters") != identity:
                    raise JournalMismatch(_mismatch(self.path, header.get("parameters") or {}, identity))
                self.resumed = True
        if not self.resumed:
            self.path.write_text("")
            self._append({"type": "header", "format": FORMAT, "parameters": identity})
        self.sittings.append(_plain(sitting))
        self._append({"type": "sitting", **_plain(sitting)})

    # ------------------------------------------------------------------ reading
    def _read(self):
        """Load the entries; cut a torn last line from the file. Returns the header (None: empty)."""
        raw = self.path.read_bytes()
        header, good_end, pos = None, 0, 0
        while pos < len(raw):
            end = raw.find(b"\n", pos)
            if end < 0:  # a last line without its newline: torn by a kill
                break
            try:
                entry = json.loads(raw[pos:end])
            except ValueError:
                break
            pos = good_end = end + 1
            kind = entry.get("type")
            if kind == "header":
                header = entry
            elif kind == "sitting":
                self.sittings.append({k: v for k, v in entry.items() if k != "type"})
            elif kind == "dataset":
                self.datasets[entry["name"]] = entry["info"]
            elif kind == "fit":
                self.fits[entry["key"]] = entry["record"]
        if good_end < len(raw):
            with self.path.open("r+b") as f:
                f.truncate(good_end)
        return header

    # ------------------------------------------------------------------ writing
    def _append(self, entry: dict) -> None:
        line = json.dumps(entry, allow_nan=True) + "\n"
        with self.path.open("a") as f:
            f.write(line)
            f.flush()
            os.fsync(f.fileno())

    def dataset_info(self, name: str):
        """The description recorded when ``name`` was started (None: not started)."""
        return self.datasets.get(name)

    def start_dataset(self, name: str, info: dict) -> None:
        """Record that data set ``name`` was started, with its description and per-fit limit."""
        self.datasets[name] = _plain(info)
        self._append({"type": "dataset", "name": name, "info": self.datasets[name]})

    def get(self, key: str):
        """The finished fit's record (a copy), or None."""
        rec = self.fits.get(key)
        return None if rec is None else json.loads(json.dumps(rec))

    def record(self, key: str, rec: dict) -> None:
        """Write one finished fit, flushed and fsynced before this returns."""
        plain = _plain(rec)
        self._append({"type": "fit", "key": key, "record": plain})
        self.fits[key] = plain


def _mismatch(path: Path, old: dict, new: dict) -> str:
    diffs = [f"{k}: {old.get(k)!r} there, {new.get(k)!r} now" for k in sorted(set(old) | set(new))
             if not _same(old.get(k), new.get(k))]
    return (f"{path} was written by a run with other parameters ({'; '.join(diffs) or 'format'}): "
            "resume with the same options, or write to another --out")


def _same(a, b) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return a == b
