"""Membership inference against a released model or synthetic table (Shokri et al. 2017).

The question a released artefact raises that a table of records does not: *was Alice's record
used to build it?* Knowing that is itself a disclosure (a model trained on a clinic's patients).

The attack (Torra's algorithm ``mia``, after Shokri, Stronati, Song & Shmatikov 2017):

1. the *target* model: the released scikit-learn estimator, or — for a synthetic table — a model
   the attacker trains on that table (its training rows are the *members*);
2. *shadow* models: clones of the target's learner, each trained on its own disjoint sample of
   records from the same distribution (the original rows that are not members), so the attacker
   knows which records were "in" each shadow model and which were held "out";
3. the *attack* classifier learns "in" vs "out" from the shadow models' outputs on their own in
   and out records: the sorted ``predict_proba`` vector (label-free confidence) plus the
   probability given to the record's true label (what distinguishes an overfitted model's
   members from its non-members when both get confident, pure-leaf probabilities);
4. it is evaluated on the target model's outputs for an equal number of members and non-members
   (held-out original rows never used by any shadow model).

Steps 2–4 repeat over ``n_repeats`` random splits; ``advantage`` is the mean over repeats of
TPR − FPR at the attack's 0.5 threshold, which on the balanced evaluation set equals
2·(accuracy − 0.5); ``advantage_ci`` is the Student-t 95 % interval of that mean. The cheap
baseline of Yeom et al. (2018) is reported beside it: a record is called a member when the
target model's log-loss on it is below the model's average training loss.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from privcheck.errors import DataError, PolicyError

#: the target models the attack trains on a synthetic table (``target_model=…``)
TARGET_MODELS = ("forest", "tree", "logistic")


def _sklearn():
    try:
        import sklearn  # noqa: F401
    except ImportError:
        raise PolicyError(
            "membership inference needs scikit-learn, which is not installed: "
            "pip install 'privcheck[risk]' (or pip install scikit-learn)"
        ) from None


def _check_proba(model: Any) -> None:
    if not hasattr(model, "predict_proba"):
        raise PolicyError(
            f"the model ({type(model).__name__}) has no predict_proba; membership inference "
            "needs a fitted classifier with predict_proba (class probabilities), e.g. "
            "SVC(probability=True) instead of SVC()"
        )


def _learner(name: str, seed: int) -> Any:
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.tree import DecisionTreeClassifier

    if name == "forest":
        return RandomForestClassifier(n_estimators=50, random_state=seed, n_jobs=1)
    if name == "tree":
        return DecisionTreeClassifier(random_state=seed)
    if name == "logistic":
        return make_pipeline(StandardScaler(), LogisticRegression(C=0.1, max_iter=500))
    raise PolicyError(f"target_model must be one of {', '.join(TARGET_MODELS)}; got {name!r}")


@dataclass
class _Data:
    """Members and non-members as model inputs with their labels."""

    x_in: Any
    y_in: np.ndarray
    x_out: Any
    y_out: np.ndarray


def _rows_not_in(original: pd.DataFrame, release: pd.DataFrame) -> np.ndarray:
    """Positions of the original rows that do not occur in the release (an anti-join)."""
    cols = list(release.columns)
    key_o = pd.util.hash_pandas_object(original[cols].astype(str), index=False).to_numpy()
    key_r = pd.util.hash_pandas_object(release[cols].astype(str), index=False).to_numpy()
    return np.flatnonzero(~np.isin(key_o, key_r))


def _encode(frames: list[pd.DataFrame], features: list[str]) -> list[np.ndarray]:
    """One-hot encode the features of several frames together, so their columns agree."""
    both = pd.concat([f[features] for f in frames], ignore_index=True)
    enc = pd.get_dummies(both, dummy_na=True, dtype=np.float64)
    if enc.isna().any().any():
        bad = enc.columns[enc.isna().any()][0]
        raise DataError(f"feature {bad!r} has missing numeric values; impute them first")
    arr = enc.to_numpy(dtype=np.float64)
    out, start = [], 0
    for f in frames:
        out.append(arr[start : start + len(f)])
        start += len(f)
    return out


def _attack_features(model: Any, x: Any, y: np.ndarray) -> np.ndarray:
    """Sorted probability vector (highest first) and the probability of the true label."""
    proba = np.asarray(model.predict_proba(x), dtype=np.float64)
    classes = np.asarray(model.classes_).astype(str)
    order = np.argsort(classes)
    labels = y.astype(str)
    at = np.minimum(np.searchsorted(classes[order], labels), len(classes) - 1)
    known = classes[order][at] == labels  # a label the model never saw has probability 0
    p_true = np.where(known, proba[np.arange(len(y)), order[at]], 0.0)
    return np.column_stack([-np.sort(-proba, axis=1), p_true])


def _take(x: Any, rows: np.ndarray) -> Any:
    return x.iloc[rows] if isinstance(x, pd.DataFrame) else x[rows]


def _auc(scores: np.ndarray, truth: np.ndarray) -> float:
    from sklearn.metrics import roc_auc_score

    return float(roc_auc_score(truth, scores))


def _interval(values: list[float]) -> list[float]:
    from scipy import stats

    v = np.asarray(values, dtype=np.float64)
    if len(v) < 2:
        return [float(v.mean()), float(v.mean())]
    half = stats.t.ppf(0.975, len(v) - 1) * v.std(ddof=1) / np.sqrt(len(v))
    return [float(v.mean() - half), float(v.mean() + half)]


def membership_inference(
    original: pd.DataFrame,
    release: pd.DataFrame | None,
    target: str,
    *,
    model: Any | None = None,
    features: list[str] | None = None,
    target_model: str = "forest",
    n_shadow: int = 4,
    n_repeats: int = 5,
    max_eval: int = 1000,
    random_state: int = 0,
    trust_model_file: bool = False,
) -> dict[str, Any]:
    """Shadow-model membership inference and the loss-threshold baseline.

    ``release`` is a synthetic table (the attack fits ``target_model`` on it) or, with ``model``
    (a fitted estimator or a path to one), that model's training data; the members are the
    release's rows, the non-members the original rows absent from the release. Returns the
    figures (``advantage``, ``advantage_ci``, ``auc``, ``accuracy``, ``loss_threshold``, …).

    A model path is read with skops's secure format; a pickle/joblib file only with
    ``trust_model_file=True``, since loading one runs its code (`privcheck.risk.model_file`).
    """
    _sklearn()
    from sklearn.base import clone
    from sklearn.ensemble import RandomForestClassifier

    if isinstance(model, str | Path):
        from privcheck.risk.model_file import load_model_file

        model = load_model_file(model, trust=trust_model_file)
    if model is not None:
        _check_proba(model)
    if release is None:
        raise DataError("membership inference needs the model's training data (--masked)")
    for frame, label in ((original, "original"), (release, "release")):
        if target not in frame.columns:
            raise DataError(
                f"the {label} file has no target column {target!r}; --param target=COLUMN "
                "names the label the model predicts"
            )
    feats = [str(c) for c in (features or [c for c in release.columns if c != target])]
    missing = [c for c in feats if c not in original.columns or c not in release.columns]
    if missing:
        raise DataError(f"feature {missing[0]!r} is missing from the original or the release")
    if n_shadow < 1 or n_repeats < 1 or max_eval < 10:
        raise PolicyError("n_shadow and n_repeats must be ≥ 1 and max_eval ≥ 10")
    release = release[[*feats, target]].reset_index(drop=True)
    pool = original.iloc[_rows_not_in(original[[*feats, target]], release)].reset_index(drop=True)
    m = min(max_eval, len(release), len(pool) // 3)
    if m < 10:
        raise DataError(
            f"only {len(pool)} original rows are absent from the release; membership inference "
            "needs held-out records (at least 3 × 10) for non-members and shadow models"
        )
    y_rel = release[target].astype(str).to_numpy()
    y_pool = pool[target].astype(str).to_numpy()
    if model is None:
        x_rel, x_pool = _encode([release, pool], feats)
        learner = _learner(target_model, random_state)
        tmodel = clone(learner).fit(x_rel, y_rel)
    else:
        x_rel, x_pool = release[feats], pool[feats]
        learner = model
        tmodel = model
    _check_proba(tmodel)
    rng = np.random.default_rng(random_state)
    s = max(5, min(len(release), (len(pool) - m) // (2 * n_shadow)))
    adv, acc, auc = [], [], []
    l_adv, l_auc = [], []
    train_loss = -np.log(np.clip(_attack_features(tmodel, x_rel, y_rel)[:, -1], 1e-12, 1))
    threshold = float(train_loss.mean())
    for r in range(n_repeats):
        perm = rng.permutation(len(pool))
        eval_out, shadow_pool = perm[:m], perm[m:]
        eval_in = rng.choice(len(release), size=m, replace=False)
        feats_a, labels_a = [], []
        for k in range(n_shadow):
            chunk = shadow_pool[2 * s * k : 2 * s * (k + 1)]
            if len(chunk) < 4:
                break
            half = len(chunk) // 2
            s_in, s_out = chunk[:half], chunk[half : 2 * half]
            shadow = clone(learner)
            if hasattr(shadow, "random_state"):
                shadow.set_params(random_state=random_state + 1000 * r + k)
            shadow.fit(_take(x_pool, s_in), y_pool[s_in])
            feats_a += [
                _attack_features(shadow, _take(x_pool, s_in), y_pool[s_in]),
                _attack_features(shadow, _take(x_pool, s_out), y_pool[s_out]),
            ]
            labels_a += [np.ones(len(s_in)), np.zeros(len(s_out))]
        attack = RandomForestClassifier(
            n_estimators=50, min_samples_leaf=5, random_state=random_state + r, n_jobs=1
        ).fit(np.vstack(feats_a), np.concatenate(labels_a))
        f_in = _attack_features(tmodel, _take(x_rel, eval_in), y_rel[eval_in])
        f_out = _attack_features(tmodel, _take(x_pool, eval_out), y_pool[eval_out])
        truth = np.concatenate([np.ones(m), np.zeros(m)])
        score = attack.predict_proba(np.vstack([f_in, f_out]))[:, 1]
        guess = score > 0.5
        tpr, fpr = guess[:m].mean(), guess[m:].mean()
        adv.append(float(tpr - fpr))
        acc.append(float((guess == truth).mean()))
        auc.append(_auc(score, truth))
        loss = -np.log(np.clip(np.concatenate([f_in[:, -1], f_out[:, -1]]), 1e-12, 1))
        called = loss <= threshold
        l_adv.append(float(called[:m].mean() - called[m:].mean()))
        l_auc.append(_auc(-loss, truth))
    return {
        "advantage": float(np.mean(adv)),
        "advantage_ci": _interval(adv),
        "auc": float(np.mean(auc)),
        "accuracy": float(np.mean(acc)),
        "loss_threshold": {
            "advantage": float(np.mean(l_adv)),
            "advantage_ci": _interval(l_adv),
            "auc": float(np.mean(l_auc)),
            "threshold": threshold,
        },
        "target_model": type(tmodel).__name__ if model is not None else target_model,
        "n_members": len(release),
        "n_non_members": len(pool),
        "n_eval_per_side": m,
        "n_shadow": n_shadow,
        "shadow_size": s,
        "n_repeats": n_repeats,
        "advantage_per_repeat": adv,
    }
