"""What an estimator declares to have model files: :class:`ModelFileMixin`.

The mixin gives ``save`` and ``load`` (:mod:`marginboost.io.model_io`) and registers the
package's estimators by name (:mod:`marginboost.registry`), so that a file can name its class.
"""
from __future__ import annotations

from marginboost.io.model_codecs import MAX_MODEL_BYTES
from marginboost.io.model_io import load_model, save_model
from marginboost.registry import register

__all__ = ["ModelFileMixin"]


class ModelFileMixin:
    """``save(path)`` and ``load(path)`` in the format of :mod:`marginboost.io.model_io`.

    A class declares, besides its hypotheses, labels and parameters (which every file holds):

    ``_model_state``: ``{attribute: field}``, the fitted attributes its file stores
        (fields of :mod:`marginboost.io.model_codecs`); in the file's ``state`` object each is
        named without its trailing underscore.
    ``_model_unsaved``: fitted attributes a file does not store (per-round or per-example
        data); they are None on a loaded model.
    ``_model_prune``: the name of a weight vector whose zeros ``decision_function`` skips:
        those hypotheses (and their zero weights) are left out of the file.

    and a method ``_stored_vote()``: the model as the weighted vote its decision function sums,
    with its family's invariants (a :class:`~marginboost.io.model_checks.StoredVote`), or None
    for a model that is no weighted vote; loading checks them. (A method of each family, not a
    default here: the weighted-vote classifiers take theirs from a mixin after this one.) A
    classifier has ``_summarise_classes()``, which sets the per-class attributes of a loaded
    one-vs-rest model from its binary models
    (:class:`~marginboost.estimators.binary.BinaryClassifierMixin`).
    """

    _model_state: dict = {}
    _model_unsaved: tuple = ()
    _model_prune: str | None = None

    def __init_subclass__(cls, booster: str | None = None, **kwargs):
        """``class C(..., booster="name")`` registers ``C`` as an estimator of the package
        (:func:`marginboost.registry.register`). Without the keyword a class is not registered:
        a private base, or a user's subclass, whose file could not promise to load as the same
        class."""
        super().__init_subclass__(**kwargs)
        if booster is not None:
            register(cls, booster)

    def _derive_from_stored(self) -> None:
        """Compute what predict needs from the stored attributes (nothing by default); called
        on a loaded model."""

    def save(self, path) -> None:
        """Write the fitted model to ``path`` as versioned JSON (:mod:`marginboost.io.model_io`)."""
        save_model(self, path)

    @classmethod
    def load(cls, path, max_bytes: int | None = MAX_MODEL_BYTES):
        """Read a model file written by :meth:`save`; returns the fitted estimator, which must
        be an instance of this class (or a subclass). ``max_bytes``: refuse a larger file, as
        :func:`~marginboost.io.model_io.load_model` does (None: no limit)."""
        return load_model(path, expected=cls, max_bytes=max_bytes)
