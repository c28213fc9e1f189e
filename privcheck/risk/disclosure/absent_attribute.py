"""Model-based attribute disclosure for absent attributes (Torra's ``ddmbar``, algorithm 11).

The sibling of ``model_disclosure`` (algorithm 10). A release may drop the sensitive attribute
A altogether, or publish it masked; an intruder who holds A for the released individuals from
another source (or reads the masked A) can still learn the *relation* between the released
attributes and A. The question is whether that relation is the original one: a model of A built
from the original file (original features → original A) and a model built from the release
(released features → A as the release, or the intruder, has it) are applied to the same records,
and the measure is the share of records where the two models predict the same value. High
agreement means the release lets anyone rebuild the original's model of A, so whatever that model
discloses about an individual the release discloses too.

Both models predict from the original records' feature values (the intruder's knowledge of its
targets), in-sample: the question is what the two fitted models say, not how well they
generalise. When the release lacks A, the release model's labels are the original A of the
aligned rows (the intruder's side information), so the two models differ only through the
masking of the features.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from privcheck.errors import DataError, PolicyError

#: the learners ``model=…`` may name (a scikit-learn estimator object is also accepted)
MODELS = ("tree", "forest")


def _learner(name: Any, seed: int) -> Any:
    try:
        from sklearn.ensemble import RandomForestClassifier
        from sklearn.tree import DecisionTreeClassifier
    except ImportError:
        raise PolicyError(
            "ddmbar needs scikit-learn, which is not installed: "
            "pip install 'privcheck[risk]' (or pip install scikit-learn)"
        ) from None
    if not isinstance(name, str):
        if not hasattr(name, "get_params") or not hasattr(name, "fit"):  # (a number, a list)
            raise PolicyError(
                f"ddmbar model must be one of {', '.join(MODELS)} or a scikit-learn "
                f"classifier; got {name!r}"
            )
        from sklearn.base import clone

        return clone(name)
    if name == "tree":
        return DecisionTreeClassifier(random_state=seed)
    if name == "forest":
        return RandomForestClassifier(n_estimators=100, random_state=seed, n_jobs=1)
    raise PolicyError(f"ddmbar model must be one of {', '.join(MODELS)}; got {name!r}")


def ddmbar(
    original: pd.DataFrame,
    release: pd.DataFrame,
    target: str,
    features: Sequence[str] | None = None,
    *,
    model: Any = "tree",
    random_state: int = 0,
) -> dict[str, Any]:
    """Share of records on which the original's and the release's models of ``target`` agree.

    ``release`` is aligned with ``original`` by position; it may lack ``target`` (then the
    original ``target`` labels its rows) or carry it masked. Returns ``agreement`` (the share),
    ``agree`` (per record), both models' predictions and ``target_in_release``.
    """
    if not isinstance(original, pd.DataFrame) or not isinstance(release, pd.DataFrame):
        raise DataError("ddmbar needs the original and the release as tables")
    if len(original) != len(release):
        raise DataError(
            f"the original file has {len(original)} records and the release {len(release)}; "
            "ddmbar compares them record by record, so they must be aligned by position"
        )
    if target not in original.columns:
        raise DataError(
            f"the original file has no target column {target!r}; --param target=COLUMN names it"
        )
    feats = [str(c) for c in (features if features is not None else release.columns) if c != target]
    if not feats:
        raise PolicyError("ddmbar needs at least one feature attribute besides the target")
    missing = [c for c in feats if c not in original.columns or c not in release.columns]
    if missing:
        raise DataError(f"feature {missing[0]!r} is missing from the original or the release")
    y_orig = original[target].astype(str).to_numpy()
    present = target in release.columns
    y_rel = release[target].astype(str).to_numpy() if present else y_orig
    both = pd.concat([original[feats], release[feats]], ignore_index=True).astype(str)
    enc = pd.get_dummies(both, dtype=np.float64).to_numpy()
    x_o, x_r = enc[: len(original)], enc[len(original) :]
    m_orig = _learner(model, random_state).fit(x_o, y_orig)
    m_rel = _learner(model, random_state).fit(x_r, y_rel)
    p_orig = np.asarray(m_orig.predict(x_o)).astype(str)
    p_rel = np.asarray(m_rel.predict(x_o)).astype(str)
    agree = p_orig == p_rel
    return {
        "agreement": float(agree.mean()) if len(agree) else 0.0,
        "target_in_release": present,
        "features": feats,
        "agree": agree,
        "original_predictions": p_orig,
        "release_predictions": p_rel,
    }
