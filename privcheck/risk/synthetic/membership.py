"""Membership inference against a released synthetic table or model, with a control set.

The question a released artefact raises that a table of records does not: *was Alice's record
used to build it?* Knowing that is itself a disclosure (a model trained on a clinic's patients).
Members are the records the artefact was built from; non-members a **control set** of records
from the same population it never saw (``control=``, or ``control_share=`` held out with
`privcheck.risk.split_control` before generating). Without one there is nothing to
compare the members with, and the attack refuses to run.

**A synthetic table** (``release`` = the synthetic table, members = ``original``, the
generator's training rows). The attacker holds the synthetic table and, through the control set,
the population's distribution:

- *distance to the closest synthetic record* (DCR, the headline): a record is called a member
  when its mixed distance (`privcheck.risk.synthetic.control`, on ``attributes``) to the nearest
  synthetic record is at most a threshold. A generator that copies or barely perturbs its
  training rows leaves members closer than controls;
- *model confidence* (with ``target``): a model fitted on the synthetic table, scored by the
  probability it gives each record's true label; members of an overfitted generator get more.

Both are evaluated by cross-fitting over ``n_repeats`` disjoint folds of a balanced sample (as
many members as controls: the larger side is subsampled to the smaller): on each fold the
threshold is the one maximising TPR − FPR on the other folds, and the fold's TPR − FPR at that
threshold is one estimate of the ``advantage`` (its AUC one of ``auc``). The folds' records are
disjoint, so for a release drawn independently of the members each fold's estimate has mean 0
and the Student-t interval ``advantage_ci`` over the folds contains 0 but for chance.

**A released model** (``model=``; members = ``release``, its training rows): the
shadow-model attack and the loss-threshold baseline of
`privcheck.risk.disclosure.model_membership`, against the same control set.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from privcheck.errors import DataError, PolicyError
from privcheck.risk.disclosure.model_membership import (
    attack_features,
    check_proba,
    require_sklearn,
    shadow_attack,
    t_interval,
)

#: the target models the attack trains on a synthetic table (``target_model=…``)
TARGET_MODELS = ("forest", "tree", "logistic")


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


def rank_auc(member: np.ndarray, control: np.ndarray) -> float:
    """P(a member scores above a control), ties counting one half (Mann–Whitney, via ranks)."""
    from scipy.stats import rankdata

    n_m, n_c = len(member), len(control)
    if n_m == 0 or n_c == 0:
        return 0.5
    ranks = rankdata(np.concatenate([member, control]))
    return float((ranks[:n_m].sum() - n_m * (n_m + 1) / 2) / (n_m * n_c))


def best_threshold(member: np.ndarray, control: np.ndarray) -> float:
    """A threshold t maximising TPR − FPR of the rule "member when score ≥ t" (+inf: nobody),
    placed halfway between the lowest score it calls a member and the next lower one."""
    cand = np.unique(np.concatenate([member, control]))
    sm, sc = np.sort(member), np.sort(control)
    tpr = 1.0 - np.searchsorted(sm, cand, side="left") / max(len(sm), 1)
    fpr = 1.0 - np.searchsorted(sc, cand, side="left") / max(len(sc), 1)
    gain = tpr - fpr
    best = int(np.argmax(gain)) if len(gain) else 0
    if not len(gain) or gain[best] <= 0:
        return float("inf")
    # halfway down to the next lower score: a new record between the two counts as a member
    return float(cand[best] if best == 0 else (cand[best] + cand[best - 1]) / 2)


def cross_fitted(
    member: np.ndarray, control: np.ndarray, n_folds: int, rng: np.random.Generator, cap=None
) -> dict[str, Any]:
    """Advantage and AUC of a score (higher = more member-like) by cross-fitting (module
    docstring): a balanced sample of ``min(members, controls, cap)`` of each, ``n_folds`` disjoint
    folds, each scored at the threshold learned on the others."""
    m = min(len(member), len(control), cap or len(member))
    if m < 2 * n_folds:
        raise DataError(
            f"membership inference needs at least {2 * n_folds} members and as many controls "
            f"({n_folds} folds × 2); got {len(member)} and {len(control)}"
        )
    sm = member[rng.choice(len(member), m, replace=False)]
    sc = control[rng.choice(len(control), m, replace=False)]
    fold_m = rng.permutation(m) % n_folds
    fold_c = rng.permutation(m) % n_folds
    adv, auc, var = [], [], []
    for f in range(n_folds):
        t = best_threshold(sm[fold_m != f], sc[fold_c != f])
        em, ec = sm[fold_m == f], sc[fold_c == f]
        tpr, fpr = float((em >= t).mean()), float((ec >= t).mean())
        adv.append(tpr - fpr)
        var.append(tpr * (1 - tpr) / len(em) + fpr * (1 - fpr) / len(ec))
        auc.append(rank_auc(em, ec))
    advantage = float(np.mean(adv))
    # the wider of the Student-t interval over the folds (few folds: its width varies a lot)
    # and the binomial one of the pooled rates (1.96 standard errors of the folds' mean)
    t_low, _t_high = t_interval(adv)
    half = max(advantage - t_low, 1.959963984540054 * float(np.sqrt(np.sum(var))) / n_folds)
    return {
        "advantage": advantage,
        "advantage_ci": [advantage - half, advantage + half],
        "auc": float(np.mean(auc)),
        "accuracy": 0.5 + advantage / 2,
        "n_eval_per_side": int(m),
        "advantage_per_repeat": adv,
    }


#: bars of the distance histograms in the report
HISTOGRAM_BINS = 20


def distance_histogram(member: np.ndarray, control: np.ndarray) -> dict[str, Any]:
    """Shares of members and of controls per distance bin (shared bins), for the report."""
    both = np.concatenate([member, control])
    top = float(np.quantile(both, 0.99)) if len(both) else 1.0
    edges = np.linspace(0.0, top if top > 0 else 1.0, HISTOGRAM_BINS + 1)
    clipped_m, clipped_c = np.minimum(member, edges[-1]), np.minimum(control, edges[-1])
    hm, _ = np.histogram(clipped_m, bins=edges)
    hc, _ = np.histogram(clipped_c, bins=edges)
    return {
        "edges": [float(x) for x in edges],
        "members": [float(x) for x in hm / max(len(member), 1)],
        "controls": [float(x) for x in hc / max(len(control), 1)],
    }


def _synthetic_attack(
    members: pd.DataFrame,
    synthetic: pd.DataFrame,
    control: pd.DataFrame,
    target: str | None,
    attributes: list[str],
    features: list[str] | None,
    target_model: str,
    n_repeats: int,
    max_eval: int | None,
    rng: np.random.Generator,
    random_state: int,
) -> dict[str, Any]:
    from privcheck.risk.synthetic.control import MixedEncoding, nearest

    enc = MixedEncoding.of(
        [synthetic[attributes], members[attributes], control[attributes]], attributes
    )
    cand = enc.take(0, np.arange(len(synthetic)))
    dcr_m = nearest(enc, enc.take(1, np.arange(len(members))), cand)[1][:, 0]
    dcr_c = nearest(enc, enc.take(2, np.arange(len(control))), cand)[1][:, 0]
    dist = cross_fitted(-dcr_m, -dcr_c, n_repeats, rng, max_eval)
    dist.update(
        {
            "median_member_distance": float(np.median(dcr_m)),
            "median_control_distance": float(np.median(dcr_c)),
            "share_members_at_distance_0": float(np.mean(dcr_m == 0)),
            "share_controls_at_distance_0": float(np.mean(dcr_c == 0)),
        }
    )
    confidence = None
    if target is not None:
        require_sklearn()
        from sklearn.base import clone

        for frame, label in ((members, "original"), (synthetic, "synthetic table")):
            if target not in frame.columns:
                raise DataError(f"the {label} has no target column {target!r}")
        feats = [str(c) for c in (features or [c for c in synthetic.columns if c != target])]
        x_syn, x_mem, x_ctl = _encode([synthetic, members, control], feats)
        tmodel = clone(_learner(target_model, random_state)).fit(
            x_syn, synthetic[target].astype(str).to_numpy()
        )
        p_m = attack_features(tmodel, x_mem, members[target].astype(str).to_numpy())[:, -1]
        p_c = attack_features(tmodel, x_ctl, control[target].astype(str).to_numpy())[:, -1]
        confidence = cross_fitted(p_m, p_c, n_repeats, rng, max_eval)
        confidence["target_model"] = target_model
        confidence.pop("advantage_per_repeat")
    out = {k: v for k, v in dist.items()}
    out.update(
        {
            "attack": "distance to closest synthetic record",
            "distance": {k: v for k, v in dist.items() if k != "advantage_per_repeat"},
            "model_confidence": confidence,
            "attributes": attributes,
            "n_members": len(members),
            "n_controls": len(control),
            "n_synthetic": len(synthetic),
            "n_repeats": n_repeats,
            "distance_histogram": distance_histogram(dcr_m, dcr_c),
        }
    )
    return out


def membership_inference(
    original: pd.DataFrame,
    release: pd.DataFrame | None,
    target: str | None = None,
    *,
    control: pd.DataFrame | None = None,
    control_share: float | None = None,
    model: Any | None = None,
    attributes: list[str] | None = None,
    features: list[str] | None = None,
    target_model: str = "forest",
    n_shadow: int = 4,
    n_repeats: int = 5,
    max_eval: int | None = None,
    random_state: int = 0,
    trust_model_file: bool = False,
) -> dict[str, Any]:
    """Membership inference against a synthetic table or a released model, with a control set.

    Without ``model``: ``release`` is a synthetic table made from ``original`` (the members);
    the DCR attack on ``attributes`` (default: every column) and, with ``target``, the
    model-confidence attack. With ``model`` (a fitted estimator or a path to one): ``release``
    is its training data (the members) and ``target`` the label it predicts; the shadow-model
    attack and the loss-threshold baseline. Non-members are ``control``, or with
    ``control_share`` the share of ``original`` that `privcheck.risk.split_control`
    holds out with seed ``random_state``. Returns ``advantage``, ``advantage_ci``, ``auc``,
    ``n_members``, ``n_controls``, … (see the module docstring).

    A model path is read with skops's secure format; a pickle/joblib file only with
    ``trust_model_file=True``, since loading one runs its code (`privcheck.risk.model_file`).
    """
    from privcheck.risk.synthetic.control import (
        control_set,
        known_columns,
        require_records,
        same_columns,
    )

    if n_shadow < 1 or n_repeats < 2 or (max_eval is not None and max_eval < 10):
        raise PolicyError("n_shadow must be ≥ 1, n_repeats ≥ 2 and max_eval ≥ 10")
    if release is None:
        raise DataError("membership inference needs the release (--masked)")
    require_records(original=original, **({"synthetic": release} if model is None else {}))
    if isinstance(model, str | Path):
        require_sklearn()
        from privcheck.risk.model_file import load_model_file

        model = load_model_file(model, trust=trust_model_file)
    rng = np.random.default_rng(random_state)
    if model is None:
        same_columns(original, release, "synthetic table")
        members, control = control_set(
            original, control, control_share=control_share, seed=random_state, seed_given=True
        )
        attrs = known_columns(list(attributes or original.columns), original)
        return _synthetic_attack(
            members,
            release,
            control,
            target,
            attrs,
            features,
            target_model,
            n_repeats,
            max_eval,
            rng,
            random_state,
        )
    require_sklearn()
    check_proba(model)
    if target is None:
        raise PolicyError("membership inference on a model needs the label it predicts: target=")
    members, control = control_set(
        release.reset_index(drop=True),
        control,
        control_share=control_share,
        seed=random_state,
        seed_given=True,
        split_from=original,
        what="a model",
    )
    return shadow_attack(
        members,
        control,
        target,
        model,
        features,
        n_shadow,
        n_repeats,
        max_eval or 1000,
        rng,
        random_state,
    )
