"""Membership inference against a released model: the shadow-model attack, with a control set.

The question a released model raises that a table of records does not: *was Alice's record used
to train it?* Knowing that is itself a disclosure (a model trained on a clinic's patients).
Members are the model's training rows (the release); non-members a **control set** of records from
the same population it never saw. The entry point is `privcheck.risk.membership_inference` with
``model=`` (`privcheck.risk.synthetic.membership`: it checks the inputs, reads a model file and
draws the control set); this module holds the attack (Torra's algorithm ``mia``, after Shokri,
Stronati, Song & Shmatikov 2017):

1. the *target* model: the released scikit-learn estimator;
2. *shadow* models: clones of the target's learner, each trained on its own disjoint sample of
   control records, so the attacker knows which records were "in" each shadow model and which
   were held "out";
3. the *attack* classifier learns "in" vs "out" from the shadow models' outputs on their own in
   and out records: the sorted ``predict_proba`` vector (label-free confidence) plus the
   probability given to the record's true label (what distinguishes an overfitted model's
   members from its non-members when both get confident, pure-leaf probabilities);
4. it is evaluated on the target model's outputs for an equal number of members and non-members
   (control records never used by any shadow model).

Steps 2–4 repeat over ``n_repeats`` random splits; ``advantage`` is the mean over repeats of
TPR − FPR at the attack's 0.5 threshold, which on the balanced evaluation set equals
2·(accuracy − 0.5); ``advantage_ci`` is the Student-t 95 % interval of that mean. The cheap
baseline of Yeom et al. (2018) is reported beside it: a record is called a member when the
target model's log-loss on it is below the model's average training loss.

``attack_features`` (a model's confidence in each record) and ``t_interval`` also serve the
model-confidence attack on a synthetic table.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from privcheck.errors import DataError, PolicyError


def require_sklearn() -> None:
    """PolicyError naming the install when scikit-learn is missing."""
    try:
        import sklearn  # noqa: F401
    except ImportError:
        raise PolicyError(
            "membership inference needs scikit-learn, which is not installed: "
            "pip install 'privcheck[risk]' (or pip install scikit-learn)"
        ) from None


def check_proba(model: Any) -> None:
    """PolicyError unless ``model`` gives class probabilities (the attack reads them)."""
    if not hasattr(model, "predict_proba"):
        raise PolicyError(
            f"the model ({type(model).__name__}) has no predict_proba; membership inference "
            "needs a fitted classifier with predict_proba (class probabilities), e.g. "
            "SVC(probability=True) instead of SVC()"
        )


def attack_features(model: Any, x: Any, y: np.ndarray) -> np.ndarray:
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


def t_interval(values: list[float]) -> list[float]:
    """The Student-t 95 % interval of the mean of ``values`` (a point for fewer than two)."""
    from scipy import stats

    v = np.asarray(values, dtype=np.float64)
    if len(v) < 2:
        return [float(v.mean()), float(v.mean())]
    half = stats.t.ppf(0.975, len(v) - 1) * v.std(ddof=1) / np.sqrt(len(v))
    return [float(v.mean() - half), float(v.mean() + half)]


def shadow_attack(
    release: pd.DataFrame,
    pool: pd.DataFrame,
    target: str,
    model: Any,
    features: list[str] | None,
    n_shadow: int,
    n_repeats: int,
    max_eval: int,
    rng: np.random.Generator,
    random_state: int,
) -> dict[str, Any]:
    """Shokri et al.'s attack on a released model: members ``release``, non-members ``pool``."""
    from sklearn.base import clone
    from sklearn.ensemble import RandomForestClassifier

    for frame, label in ((pool, "control set"), (release, "release")):
        if target not in frame.columns:
            raise DataError(
                f"the {label} has no target column {target!r}; --param target=COLUMN "
                "names the label the model predicts"
            )
    feats = [str(c) for c in (features or [c for c in release.columns if c != target])]
    missing = [c for c in feats if c not in pool.columns or c not in release.columns]
    if missing:
        raise DataError(f"feature {missing[0]!r} is missing from the control set or the release")
    release = release[[*feats, target]].reset_index(drop=True)
    pool = pool[[*feats, target]].reset_index(drop=True)
    m = min(max_eval, len(release), len(pool) // 3)
    if m < 10:
        raise DataError(
            f"the control set has {len(pool)} records; membership inference on a model needs "
            "at least 3 × 10 for non-members and shadow models"
        )
    y_rel = release[target].astype(str).to_numpy()
    y_pool = pool[target].astype(str).to_numpy()
    x_rel, x_pool = release[feats], pool[feats]
    learner = model
    tmodel = model
    check_proba(tmodel)
    s = max(5, min(len(release), (len(pool) - m) // (2 * n_shadow)))
    adv, acc, auc = [], [], []
    l_adv, l_auc = [], []
    train_loss = -np.log(np.clip(attack_features(tmodel, x_rel, y_rel)[:, -1], 1e-12, 1))
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
                attack_features(shadow, _take(x_pool, s_in), y_pool[s_in]),
                attack_features(shadow, _take(x_pool, s_out), y_pool[s_out]),
            ]
            labels_a += [np.ones(len(s_in)), np.zeros(len(s_out))]
        attack = RandomForestClassifier(
            n_estimators=50, min_samples_leaf=5, random_state=random_state + r, n_jobs=1
        ).fit(np.vstack(feats_a), np.concatenate(labels_a))
        f_in = attack_features(tmodel, _take(x_rel, eval_in), y_rel[eval_in])
        f_out = attack_features(tmodel, _take(x_pool, eval_out), y_pool[eval_out])
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
        "advantage_ci": t_interval(adv),
        "auc": float(np.mean(auc)),
        "accuracy": float(np.mean(acc)),
        "loss_threshold": {
            "advantage": float(np.mean(l_adv)),
            "advantage_ci": t_interval(l_adv),
            "auc": float(np.mean(l_auc)),
            "threshold": threshold,
        },
        "target_model": type(tmodel).__name__,
        "n_members": len(release),
        "n_controls": len(pool),
        "n_eval_per_side": m,
        "n_shadow": n_shadow,
        "shadow_size": s,
        "n_repeats": n_repeats,
        "advantage_per_repeat": adv,
    }
