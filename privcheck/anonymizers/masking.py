"""The masking methods of `privcheck.masking` as anonymizer plugins (``anonymize -a mdav``).

A masking anonymizer masks the policy's quasi-identifiers, which must all be numeric columns;
identifiers (and columns the policy does not list) are removed, the other columns pass through, and
rows are shuffled unless ``keep_order``. The release is then re-checked by the ordinary checkers.

What each method guarantees differs, and the report says which (``guarantee``):

* ``mdav`` / ``mdav-partitioned`` make the release k-anonymous on the quasi-identifiers, with k
  taken from the policy's k-anonymity model (a ``k`` parameter may only repeat it). With attribute
  ``groups`` each group is k-anonymous on its own attributes only: the guarantee is checked per
  group, and the policy's k-anonymity over all quasi-identifiers is reported as it stands.
* ``optimal-univariate`` makes each quasi-identifier k-anonymous on its own, not their combination.
* ``fuzzy-microaggregation``, the rank swaps and ``noise`` guarantee no k-anonymity at all.

Integer columns are released as exact integers (`privcheck.masking.exact`): a swap permutes the
int64 values, a microaggregated mean is the exact group mean rounded half to even, noise is
rounded to an integer; a column no method could handle exactly (integers beyond 64 bits) is
refused naming it.

Models a method does not enforce are still checked: their verdict is reported (and the command
exits 1 when the release fails the policy) instead of raising — the release exists and an
sdcMicro user judges it by its risk measures, not by a k-anonymity it never claimed.

Under the transparency principle the report publishes the method and every parameter (k, p, the
attribute groups, m1/m2, a, the proposal law …) but never the seed: the seed would let anyone
replay the randomness and undo the masking. Because the method is public, the report also says
how exposed the release is to the transparency attack that fits the method (``exposure``, see
`privcheck.anonymizers.exposure`): each method names its attack in ``exposure_attack``.
"""

from __future__ import annotations

import time
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from privcheck.anonymizers.base import Anonymizer
from privcheck.anonymizers.exposure import ExposureAttack, measure_exposure
from privcheck.anonymizers.problem import Progress
from privcheck.anonymizers.release import release_policy, removed_columns
from privcheck.anonymizers.risk_profile import attach_risk, raw_classes
from privcheck.checker import check_table
from privcheck.classes import count
from privcheck.encoding import encode
from privcheck.errors import DataError, PolicyError
from privcheck.hookspecs import hookimpl
from privcheck.masking import (
    add_noise,
    fuzzy_microaggregation,
    mdav,
    mdav_partitioned,
    optimal_univariate,
    rank_swap,
)
from privcheck.masking.exact import even_offset, shifted_floats
from privcheck.masking.result import MaskingResult
from privcheck.messages import shown_columns
from privcheck.metrics.information_loss import information_loss
from privcheck.policy import Policy, TableHierarchy
from privcheck.report import AnonymizationReport, Report


class MaskingAnonymizer(Anonymizer):
    """Shared machinery: numeric quasi-identifiers in, masked release + re-check + report out."""

    #: whether the method takes k (from the policy's k-anonymity model or ``--param k=``)
    uses_k: ClassVar[bool] = False
    #: whether the method needs k (refuses to run without it)
    needs_k: ClassVar[bool] = False
    #: whether every masked value is one of the column's original values (a permutation)
    keeps_values: ClassVar[bool] = False
    people_reason: ClassVar[str] = (
        "it masks each record on its own (perturbed or aggregated values, no classes of "
        "people), so a person's several records are neither counted nor protected together"
    )

    def mask(self, frame: pd.DataFrame, k: int | None, rng: np.random.Generator) -> MaskingResult:
        """Mask every column of ``frame`` (the quasi-identifiers)."""
        raise NotImplementedError

    def guarantee(self, result: MaskingResult, qis: list[str]) -> str:
        """What the method itself guarantees of the release (one sentence)."""
        raise NotImplementedError

    def verify(self, original: pd.DataFrame, result: MaskingResult) -> None:
        """Check the method's own guarantee on the masked columns; raise if it is broken."""

    def enforced_models(self, result: MaskingResult) -> set[str]:
        """Policy models the method guarantees (a failing one is a bug, not a verdict)."""
        return set()

    def not_enforcing(self, result: MaskingResult) -> str:
        """The start of a note on a model the method does not enforce."""
        return f"{self.name} does not enforce"

    def exposure_attack(self, result: MaskingResult) -> ExposureAttack | None:
        """The transparency attack that fits the method (None: the report has no exposure)."""
        return None

    # ------------------------------------------------------------------ the common flow
    def anonymize(
        self,
        data: pd.DataFrame,
        policy: Policy,
        *,
        seed: int | None = None,
        keep_order: bool = False,
        previous: dict[str, int] | None = None,
        progress: Progress | None = None,
    ) -> tuple[pd.DataFrame, AnonymizationReport]:
        started = time.perf_counter()
        self.refuse_unsupported(policy)
        if previous is not None:
            raise PolicyError(
                f"{self.name} masks values; --previous (a generalization node of an earlier "
                "release) applies to the generalization algorithms only"
            )
        self.refuse_table_hierarchies(policy)
        original = numeric_quasi_identifiers(data, policy, self.name)
        qis = list(original.columns)
        k, k_source = self.resolve_k(policy)
        mask_seed, order_seed, attack_seed = np.random.SeedSequence(seed).spawn(3)
        result = self.mask(original, k, np.random.default_rng(mask_seed))
        self.verify(original, result)
        released = released_values(original, result)
        # floats relative to each integer column's offset: values near 2^60 stay distinguishable
        original_f, released_f = float_frames(original, released)
        release = build_release(
            data,
            policy,
            original,
            result.masked,
            keep_order,
            np.random.default_rng(order_seed),
            result.integers,
        )
        check = check_release(release, policy)
        notes = self.notes(check, result)
        attack = self.exposure_attack(result)
        exposure = None
        if attack is not None:
            exposure = measure_exposure(
                attack,
                original_f,
                released_f,
                policy.exposure_threshold,
                np.random.default_rng(attack_seed),
            )
        parameters: dict[str, Any] = {
            **result.params,
            **({"k_source": k_source} if k_source else {}),
            "models": [{"model": m.model, **m.params()} for m in policy.models],
            "keep_order": keep_order,
            "seed_given": seed is not None,
        }
        n = len(data)
        report = AnonymizationReport(
            algorithm=self.name,
            parameters=parameters,
            quasi_identifiers=qis,
            n_records=n,
            n_kept=n,
            n_suppressed=0,
            n_released_rows=len(release),
            removed_columns=removed_columns(data, policy),
            check=check,
            information_loss=information_loss(original_f, released_f).model_dump()
            if result.integers
            else result.information_loss.model_dump(),
            guarantee=self.guarantee(result, qis),
            notes=notes,
            exposure=exposure,
        )
        before = raw_classes(data, release_policy(policy, keep_hierarchies=False))
        attach_risk(report, policy, before)
        report.elapsed_seconds = round(time.perf_counter() - started, 4)
        if progress is not None:
            progress(1, 1)
        return release, report

    def refuse_table_hierarchies(self, policy: Policy) -> None:
        """A release must pass ``check`` with the policy that made it, and a check accepts only
        the values a table hierarchy lists: a method that writes new values (means, noise)
        cannot release a quasi-identifier that has one."""
        if self.keeps_values:
            return
        for name in policy.quasi_identifiers:
            if isinstance(policy.attributes[name].hierarchy, TableHierarchy):
                raise PolicyError(
                    f"{self.name} writes new values for {name!r}, which its table hierarchy "
                    "does not list, so the release would fail a check with this policy; drop "
                    "the hierarchy (masking needs none) or use a generalization algorithm"
                )

    def resolve_k(self, policy: Policy) -> tuple[int | None, str | None]:
        """k from the policy's k-anonymity model; ``--param k=`` only where it agrees (or where
        the policy has no k-anonymity model)."""
        if not self.uses_k:
            return None, None
        ks = [int(m.k) for m in policy.models if m.model == "k-anonymity"]
        given = self.params.get("k")
        if ks:
            k = max(ks)
            if given is not None and given != k:
                raise PolicyError(
                    f"--param k={given} disagrees with the policy's k-anonymity model (k={k}); "
                    "for microaggregation k comes from the policy: drop --param k or change "
                    "the policy"
                )
            return k, "policy"
        if given is None:
            if self.needs_k:
                raise PolicyError(
                    f"{self.name} needs k: add a k-anonymity model to the policy "
                    "(models: [{model: k-anonymity, k: 3}]) or pass --param k=3"
                )
            return None, None
        return given, "param"

    def notes(self, check: Report, result: MaskingResult) -> list[str]:
        enforced = self.enforced_models(result)
        out = []
        for m in check.models:
            if m.model in enforced:
                if not m.passed:  # pragma: no cover - verify() already guards the guarantee
                    raise RuntimeError(
                        f"the {self.name} release fails {m.model}; this is a bug in the anonymizer"
                    )
                continue
            verdict = "the release satisfies it" if m.passed else "the release FAILS it"
            out.append(
                f"{self.not_enforcing(result)} the policy's {m.model} "
                f"({', '.join(f'{k}={v}' for k, v in m.params.items())}): {verdict}"
                + ("" if m.passed else f" (achieved {m.value:g})" if m.value is not None else "")
            )
        return out


# ---------------------------------------------------------------------- shared helpers
def numeric_quasi_identifiers(data: pd.DataFrame, policy: Policy, algorithm: str) -> pd.DataFrame:
    """The policy's quasi-identifiers as numeric columns (else one error naming the column).

    Files are read as text, so a text column is parsed as numbers: every present value must
    parse (integers stay integers); missing values are left for the masking's own check.
    """
    qis = policy.quasi_identifiers
    if not qis:
        raise PolicyError(
            f"the policy has no quasi-identifiers; {algorithm} masks the numeric "
            "quasi-identifiers, so give the columns to mask role quasi_identifier"
        )
    if len(data) == 0:
        raise DataError("the table has no records; there is nothing to anonymize")
    out = {}
    for name in qis:
        if name not in data.columns:
            raise DataError(
                f"quasi-identifier {name!r} is not a column of the data; columns: "
                f"{shown_columns(data.columns)}"
            )
        s = data[name]
        if pd.api.types.is_bool_dtype(s):
            bad = s.iloc[0]
        elif pd.api.types.is_numeric_dtype(s):
            out[name] = s.to_numpy()
            continue
        else:
            num = pd.to_numeric(s, errors="coerce")
            wrong = num.isna() & s.notna()
            if not wrong.any():
                out[name] = _exact_numbers(num, s, name, algorithm)
                continue
            bad = s[wrong].iloc[0]
        raise DataError(
            f"quasi-identifier {name!r} is not numeric (value {bad!r}); {algorithm} masks "
            "numeric quasi-identifiers only: convert it, change its role, or use a "
            "generalization algorithm (incognito)"
        )
    return pd.DataFrame(out, columns=qis)


def _exact_numbers(num: pd.Series, text: pd.Series, name: str, algorithm: str) -> np.ndarray:
    """Parsed numbers as int64 when every value is an integer (parsed exactly, not through
    float64, which holds integers only up to 2^53), else float64. ``text`` is the column as
    read: integers beyond 64 bits parse as floats, and are refused rather than rounded."""
    if pd.api.types.is_integer_dtype(num):
        if num.dtype.kind == "u" and len(num) and num.max() > np.iinfo(np.int64).max:
            raise DataError(
                f"quasi-identifier {name!r} has integers above 9223372036854775807, which "
                f"{algorithm} cannot compute with exactly; shift or rescale the column first"
            )
        return num.to_numpy(dtype=np.int64)
    if num.dtype == object:  # integers beyond 64 bits (floats would have parsed as float64)
        raise DataError(
            f"quasi-identifier {name!r} has integers beyond the 64-bit range, which {algorithm} "
            "cannot compute with exactly; shift or rescale the column first"
        )
    values = num.to_numpy(dtype=np.float64, na_value=np.nan)
    big = np.abs(values) >= 2.0**63
    if big.any() and text.astype(str).str.strip().str.fullmatch(r"[+-]?\d+")[big].any():
        raise DataError(
            f"quasi-identifier {name!r} has integers beyond the 64-bit range, which {algorithm} "
            "cannot compute with exactly; shift or rescale the column first"
        )
    whole = np.isfinite(values).all() and np.all(values == np.round(values))
    if whole and np.all(np.abs(values) < 2.0**53):  # "3.0": an integer written as a float
        return values.astype(np.int64)
    return values


def build_release(
    data: pd.DataFrame,
    policy: Policy,
    original: pd.DataFrame,
    masked: pd.DataFrame,
    keep_order: bool,
    rng: np.random.Generator,
    integers: dict | None = None,
) -> pd.DataFrame:
    """Identifiers and unlisted columns removed, quasi-identifiers masked, rows shuffled.

    An integer column is released as integers: the method's exact integer output
    (``integers``: a swap's permutation, a mean rounded half to even, value + rounded noise), so
    a swap stays a permutation of the original values in the written file too.
    """
    integers = integers or {}
    drop = set(removed_columns(data, policy))
    columns = [c for c in data.columns if c not in drop]
    out = pd.DataFrame({c: data[c].to_numpy() for c in columns}, columns=columns)
    for c in original.columns:
        out[c] = integers[c] if c in integers else masked[c].to_numpy()
    if keep_order:
        return out
    return out.iloc[rng.permutation(len(out))].reset_index(drop=True)


def released_values(original: pd.DataFrame, result: MaskingResult) -> pd.DataFrame:
    """The masked quasi-identifiers as released: an integer column's exact integers (a mean
    rounded half to even) in place of the method's real-valued output."""
    qis = list(original.columns)
    masked = _as_frame(result.masked, qis)
    if not result.integers:
        return masked
    return pd.DataFrame(
        {c: result.integers[c] if c in result.integers else masked[c].to_numpy() for c in qis},
        columns=qis,
    )


def float_frames(
    original: pd.DataFrame, released: pd.DataFrame
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Both frames as float64, each integer column minus the same even offset (subtracted in
    int64, see `privcheck.masking.exact.even_offset`): the measures and attacks run on them are
    shift-invariant, and floats would otherwise merge integers near 2^60 that differ by < 256."""
    orig, rel = {}, {}
    for c in original.columns:
        if pd.api.types.is_integer_dtype(original[c]) and pd.api.types.is_integer_dtype(
            released[c]
        ):
            offset = even_offset(original[c].to_numpy(dtype=np.int64))
            orig[c] = shifted_floats(original[c].to_numpy(dtype=np.int64), offset)
            rel[c] = shifted_floats(released[c].to_numpy(dtype=np.int64), offset)
        else:
            orig[c] = original[c].to_numpy(dtype=np.float64)
            rel[c] = released[c].to_numpy(dtype=np.float64)
    return pd.DataFrame(orig, columns=original.columns), pd.DataFrame(rel, columns=original.columns)


def _as_frame(masked: pd.DataFrame | np.ndarray, columns: list[str]) -> pd.DataFrame:
    if isinstance(masked, pd.DataFrame):
        return masked[columns]
    return pd.DataFrame(np.asarray(masked), columns=columns)


#: what the intruder of every exposure attack holds
_HOLDS = "holds every original record on the quasi-identifiers"


def check_release(release: pd.DataFrame, policy: Policy) -> Report:
    """The release checked like any table, quasi-identifiers grouped by their masked values."""
    rpolicy = release_policy(policy, keep_hierarchies=False)
    encoded = encode(release, rpolicy, as_released=True)
    return check_table(count(encoded), rpolicy, source="release", details=False)


def smallest_class(frame: pd.DataFrame) -> int:
    """The size of the smallest group of identical rows (vectorised)."""
    return int(frame.value_counts(sort=False).min())


def _attr_groups(value: Any, qis: list[str]) -> list[list[str]] | None:
    """``groups`` must split the quasi-identifiers into disjoint lists that cover them all."""
    if value is None:
        return None
    if not isinstance(value, list) or not value or not all(isinstance(g, list) for g in value):
        raise PolicyError(
            f"groups must be a list of attribute lists, e.g. groups=[[AGI,FEDTAX],[PTOTVAL]]; "
            f"got {value!r}"
        )
    groups = [[str(c) for c in g] for g in value]
    flat = [c for g in groups for c in g]
    unknown = [c for c in flat if c not in qis]
    if unknown:
        raise PolicyError(
            f"groups names {unknown[0]!r}, which is not a quasi-identifier of the policy "
            f"({', '.join(qis)})"
        )
    if len(set(flat)) != len(flat) or any(not g for g in groups):
        raise PolicyError("groups must put every quasi-identifier in exactly one non-empty group")
    missing = [c for c in qis if c not in flat]
    if missing:
        raise PolicyError(
            f"groups leaves the quasi-identifier {missing[0]!r} out; every quasi-identifier "
            "must be in one group (a one-attribute group is fine)"
        )
    return groups


# ---------------------------------------------------------------------- microaggregation
class Mdav(MaskingAnonymizer):
    name = "mdav"
    summary = "MDAV multivariate microaggregation: k-anonymous on the numeric quasi-identifiers"
    uses_k = needs_k = True

    @classmethod
    def defaults(cls) -> dict[str, Any]:
        return {"k": None, "groups": None, "aggregate": "mean"}

    def _groups(self, frame: pd.DataFrame) -> list[list[str]] | None:
        return _attr_groups(self.params["groups"], [str(c) for c in frame.columns])

    def mask(self, frame: pd.DataFrame, k: int | None, rng: np.random.Generator) -> MaskingResult:
        return mdav(
            frame, k, attribute_groups=self._groups(frame), aggregate=self.params["aggregate"]
        )

    def _grouped(self, result: MaskingResult) -> bool:
        return len(result.params["attribute_groups"]) > 1

    def guarantee(self, result: MaskingResult, qis: list[str]) -> str:
        k = result.params["k"]
        if self._grouped(result):
            groups = "; ".join(", ".join(g) for g in result.params["attribute_groups"])
            return (
                f"k-anonymous with k={k} on each attribute group separately ({groups}), "
                "not on the groups' combination"
            )
        return f"k-anonymous with k={k} on the quasi-identifiers {', '.join(qis)}"

    def verify(self, original: pd.DataFrame, result: MaskingResult) -> None:
        k = result.params["k"]
        for group in result.params["attribute_groups"]:
            if smallest_class(result.masked[group]) < k:  # pragma: no cover - a bug guard
                raise RuntimeError(f"{self.name} left a group of fewer than {k} records")

    def enforced_models(self, result: MaskingResult) -> set[str]:
        return set() if self._grouped(result) else {"k-anonymity"}

    def exposure_attack(self, result: MaskingResult) -> ExposureAttack | None:
        p = result.params
        params: dict[str, Any] = {"k": p["k"], "knowledge": "original", "method": self.name}
        if self._grouped(result):
            params["groups"] = p["attribute_groups"]
        if "block_size" in p:
            params["block_size"] = p["block_size"]
        params["aggregate"] = p["aggregate"]
        labels = result.groups

        def replay_from_clusters(inputs):  # AttackInputs -> RiskOutcome
            # the replay would find exactly the clusters the method just made
            from privcheck.risk.outcome import from_linkage
            from privcheck.risk.transparency.multivariate import microaggregation_replay

            rest = {k: v for k, v in params.items() if k != "knowledge"}
            return from_linkage(
                microaggregation_replay(
                    inputs.original,
                    inputs.masked,
                    rows=inputs.rows,
                    random_state=inputs.seed,
                    labels=labels,
                    **rest,
                )
            )

        return ExposureAttack(
            "microaggregation-multivariate-transparency",
            params,
            f"{_HOLDS} and replays {self.name} with the published parameters (the method is "
            "deterministic), so it finds every record's cluster",
            quadratic=False,
            runner=replay_from_clusters,
        )

    def not_enforcing(self, result: MaskingResult) -> str:
        if self._grouped(result):
            return (
                f"{self.name} with attribute groups makes each group k-anonymous (checked) "
                "but does not enforce, over all quasi-identifiers together,"
            )
        return super().not_enforcing(result)


class MdavPartitioned(Mdav):
    name = "mdav-partitioned"
    summary = "MDAV per block of the principal-axis partition (millions of records)"

    @classmethod
    def defaults(cls) -> dict[str, Any]:
        return {**super().defaults(), "block_size": 20_000}

    def mask(self, frame: pd.DataFrame, k: int | None, rng: np.random.Generator) -> MaskingResult:
        return mdav_partitioned(
            frame,
            k,
            block_size=self.params["block_size"],
            attribute_groups=self._groups(frame),
            aggregate=self.params["aggregate"],
        )


class OptimalUnivariate(MaskingAnonymizer):
    name = "optimal-univariate"
    summary = "optimal univariate microaggregation (Hansen & Mukherjee), attribute by attribute"
    uses_k = needs_k = True

    @classmethod
    def defaults(cls) -> dict[str, Any]:
        return {"k": None, "aggregate": "mean"}

    def mask(self, frame: pd.DataFrame, k: int | None, rng: np.random.Generator) -> MaskingResult:
        return optimal_univariate(frame, k, aggregate=self.params["aggregate"])

    def guarantee(self, result: MaskingResult, qis: list[str]) -> str:
        return (
            f"each quasi-identifier on its own has every released value shared by ≥ "
            f"{result.params['k']} records; their combination is NOT k-anonymous"
        )

    def verify(self, original: pd.DataFrame, result: MaskingResult) -> None:
        k = result.params["k"]
        for c in result.masked.columns:
            if smallest_class(result.masked[[c]]) < k:  # pragma: no cover - a bug guard
                raise RuntimeError(f"{self.name} left a group of fewer than {k} records")

    def exposure_attack(self, result: MaskingResult) -> ExposureAttack | None:
        return ExposureAttack(
            "microaggregation-transparency",
            {"k": result.params["k"], "knowledge": "original"},
            f"{_HOLDS}; per attribute it aligns the sorted original and released values "
            "(groups are runs of consecutive values) and intersects the candidates",
        )


class FuzzyMicroaggregation(MaskingAnonymizer):
    name = "fuzzy-microaggregation"
    summary = "fuzzy (FCM) microaggregation (Torra 2015): transparency-resistant, no k guarantee"
    uses_k = True

    @classmethod
    def defaults(cls) -> dict[str, Any]:
        return {"k": None, "n_clusters": None, "m1": 2.0, "m2": 2.0, "max_iter": 300, "tol": 1e-5}

    def resolve_k(self, policy: Policy) -> tuple[int | None, str | None]:
        if self.params["n_clusters"] is not None:
            if self.params["k"] is not None:
                raise PolicyError("give either --param k or --param n_clusters, not both")
            return None, None
        k, source = super().resolve_k(policy)
        if k is None:
            raise PolicyError(
                f"{self.name} needs the number of centres: a k-anonymity model in the policy "
                "(c = ⌈n/k⌉), --param k=3, or --param n_clusters=…"
            )
        return k, source

    def mask(self, frame: pd.DataFrame, k: int | None, rng: np.random.Generator) -> MaskingResult:
        p = self.params
        return fuzzy_microaggregation(
            frame,
            k,
            n_clusters=p["n_clusters"],
            m1=p["m1"],
            m2=p["m2"],
            seed=rng,
            max_iter=p["max_iter"],
            tol=p["tol"],
        )

    def guarantee(self, result: MaskingResult, qis: list[str]) -> str:
        return (
            f"no k-anonymity: each record is replaced by one of {result.params['n_clusters']} "
            "centres drawn at random from its fuzzy memberships"
        )

    def exposure_attack(self, result: MaskingResult) -> ExposureAttack | None:
        return ExposureAttack(
            "microaggregation-multivariate-transparency",
            {"knowledge": "own"},
            f"{_HOLDS}; it reads the centres off the release and, as a record's centre is "
            "drawn from its memberships (largest for the nearest centre), links it to the "
            "records carrying its nearest centre",
        )


# ---------------------------------------------------------------------- rank swapping, noise
class RankSwapping(MaskingAnonymizer):
    name = "rank-swapping"
    summary = "rank swapping (Moore 1996): partner within the next p % of ranks"
    variant: ClassVar[str] = "plain"
    keeps_values = True

    @classmethod
    def defaults(cls) -> dict[str, Any]:
        return {"p": None}

    def mask(self, frame: pd.DataFrame, k: int | None, rng: np.random.Generator) -> MaskingResult:
        if self.params["p"] is None:
            raise PolicyError(
                f"{self.name} needs p, the swap range as a percentage of the records in "
                "(0, 100]: --param p=5"
            )
        return rank_swap(frame, self.params["p"], variant=self.variant, seed=rng)

    def guarantee(self, result: MaskingResult, qis: list[str]) -> str:
        return (
            "no k-anonymity; every quasi-identifier's marginal is kept exactly (each masked "
            "column is a permutation of the original)"
        )

    def exposure_attack(self, result: MaskingResult) -> ExposureAttack | None:
        plain = self.variant == "plain"
        coverage = 1.0 if plain else 0.999
        window = (
            f"the ±{result.params['window_ranks']} ranks every swap stays within"
            if plain
            else "the rank window that holds 99.9 % of the variant's published displacement "
            "law (the window certain to hold it is the whole file)"
        )
        return ExposureAttack(
            "rank-swap-transparency",
            {"p": result.params["p"], "variant": self.variant, "coverage": coverage},
            f"{_HOLDS}; per attribute it keeps the released records within {window}, "
            "intersects them and links by distance within the intersection",
        )

    def verify(self, original: pd.DataFrame, result: MaskingResult) -> None:
        for c in original.columns:
            same = np.array_equal(np.sort(original[c].to_numpy()), np.sort(result.masked[c]))
            if not same:  # pragma: no cover - a bug guard
                raise RuntimeError(f"{self.name} changed the marginal of {c!r}")


class RankSwappingBuckets(RankSwapping):
    name = "rank-swapping-buckets"
    summary = "p-buckets rank swapping (Nin, Herranz & Torra 2008): transparency-resistant"
    variant = "buckets"


class RankSwappingDistribution(RankSwapping):
    name = "rank-swapping-distribution"
    summary = "p-distribution rank swapping (Nin, Herranz & Torra 2008): partner offset ~ normal"
    variant = "distribution"


class Noise(MaskingAnonymizer):
    name = "noise"
    summary = "additive Gaussian noise, uncorrelated (a·Var) or correlated (a·Σ)"

    @classmethod
    def defaults(cls) -> dict[str, Any]:
        return {"a": None, "kind": "uncorrelated"}

    def mask(self, frame: pd.DataFrame, k: int | None, rng: np.random.Generator) -> MaskingResult:
        if self.params["a"] is None:
            raise PolicyError(
                "noise needs a, the noise variance as a fraction of each attribute's variance: "
                "--param a=0.1"
            )
        return add_noise(frame, self.params["a"], kind=self.params["kind"], seed=rng)

    def guarantee(self, result: MaskingResult, qis: list[str]) -> str:
        return "no k-anonymity: released values are the originals plus Gaussian noise"

    def exposure_attack(self, result: MaskingResult) -> ExposureAttack | None:
        if result.params["kind"] == "correlated":
            return ExposureAttack(
                "mahalanobis",
                {"covariance": "masked", "standardisation": "masked"},
                f"{_HOLDS} and knows the noise is N(0, a·Σ): the most likely release record "
                "is the nearest in the Mahalanobis distance of the release's covariance "
                "((1 + a)·Σ)",
            )
        return ExposureAttack(
            "dbrl",
            {"standardisation": "masked"},
            f"{_HOLDS} and knows the noise is N(0, a·Var) per attribute: the most likely "
            "release record is the nearest after scaling by the release's standard deviations",
        )


MASKING_ANONYMIZERS: tuple[type[MaskingAnonymizer], ...] = (
    Mdav,
    MdavPartitioned,
    OptimalUnivariate,
    FuzzyMicroaggregation,
    RankSwapping,
    RankSwappingBuckets,
    RankSwappingDistribution,
    Noise,
)


@hookimpl
def privcheck_anonymizers() -> list[type]:
    return list(MASKING_ANONYMIZERS)
