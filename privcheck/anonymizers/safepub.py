"""SafePub (Bild, Kuhn & Prasser, PoPETs 2018): (ε, δ)-differentially private generalization.

``privcheck anonymize DATA -p P --algorithm safepub`` with ``{model: differential-privacy,
epsilon: e, delta: d}`` in the policy. The mechanism, as ARX ships it:

1. **Budget split.** ε_search = ``search_fraction`` · ε goes to the search, ε_anon = ε − ε_search
   to the anonymization (ARX's default split: a tenth for the search).
2. **Sampling.** β = 1 − e^(−ε_anon) and the smallest k with d(k, β, ε_anon) ≤ δ
   (``privcheck.models.differential_privacy``); every record is drawn independently with
   probability β, from the operating system's entropy unless a seed is given (tests only; it is
   never written out).
3. **Search.** From the top of the generalization lattice, ``steps`` times: the predecessors of
   the current pivot join the candidate set, the pivot leaves it, and the exponential mechanism
   picks the next pivot from the candidates, scoring each candidate by the output it would give
   (``privcheck.metrics.scores``: the sample generalized to it, every class of fewer than k
   records suppressed; scores divided by their sensitivity). The steps share
   (1 − ``final_fraction``) · ε_search evenly.
4. **Choice.** The exponential mechanism picks the released node among the pivots, with
   ``final_fraction`` · ε_search (default: half).
5. **Anonymization.** The sample generalized to that node; every class of fewer than k records is
   suppressed. Generalization scheme chosen with ε_search (sequential composition of
   steps + 1 exponential mechanisms), then a (k, β)-SDGS (Li, Qardaji & Su 2012) with ε_anon:
   the release is (ε, δ)-differentially private.

Where this departs from ARX, and why:

- *The released node.* ARX releases the best-scoring pivot, compared on the exact scores. A
  maximum of exact scores is not covered by the composition argument (one record can swap two
  close pivots and so decide the node with certainty), so here the choice among the pivots is
  one more exponential-mechanism draw, paid for from ε_search. It gets half of it by default:
  on Adult that lowers the mean loss at ε = 2 from 0.76 (an even split over the steps + 1 draws)
  to 0.65; ARX's exact choice reaches 0.58 (``benchmarks/safepub.py``).
- *Which columns form the classes.* Differential privacy protects every released value, and the
  sampling theorem holds for classes of whole released tuples: SafePub treats every attribute as
  a quasi-identifier. Here sensitive and insensitive columns, which are released as they stand,
  are part of each class's key (identifiers and unlisted columns are not released). Grouping by
  the quasi-identifiers alone would release, say, a unique salary with probability β — not
  differentially private.
- *k.* The smallest k the theorem allows; ARX's loop returns one more (see the model module). A
  ``k-anonymity`` model in the policy with a larger k raises it (a larger k keeps the theorem).

Other models of the policy (l-diversity, t-closeness, risk thresholds, …) are enforced after the
differentially private step by suppressing the classes of its output that violate them — a
function of the output alone, i.e. post-processing, which cannot weaken the guarantee. The
suppression limit does not apply: the mechanism suppresses every class smaller than k whatever
it costs (refusing a node for suppressing too much would look at the data).
"""

from __future__ import annotations

import math
import time
from dataclasses import replace
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from privcheck.anonymizers.base import Anonymizer
from privcheck.anonymizers.problem import (
    NodeEvaluator,
    Progress,
    require_exhaustive,
    shape_text,
)
from privcheck.classes import ClassTable, count
from privcheck.encoding import CODE_DTYPE, EncodedColumn, EncodedTable
from privcheck.errors import PolicyError
from privcheck.hierarchy import identity_levels
from privcheck.hookspecs import hookimpl
from privcheck.lattice import Lattice, Node
from privcheck.limits import LATTICE_NODES
from privcheck.metrics.generalization import (
    average_class_size,
    discernibility,
    generalization_height,
    loss,
    precision,
)
from privcheck.metrics.scores import SCORES, Score
from privcheck.models.base import table_models
from privcheck.models.differential_privacy import (
    DifferentialPrivacyConfig,
    SDGSParameters,
    derive_parameters,
)
from privcheck.models.kanonymity import KAnonymityConfig
from privcheck.plan import NodeRecoding, Plan
from privcheck.policy import Policy, Role

DEFAULT_STEPS = 100
DEFAULT_SEARCH_FRACTION = 0.1
DEFAULT_FINAL_FRACTION = 0.5


# ---------------------------------------------------------------------- the exponential mechanism
def exponential_mechanism(
    scores: np.ndarray, epsilon: float, rng: np.random.Generator, sensitivity: float = 1.0
) -> int:
    """Draw index i with probability ∝ exp(ε · scores[i] / (2 · sensitivity)).

    The Gumbel-max trick: the argmax of ε·s/(2Δ) plus independent standard Gumbel noise is
    distributed exactly as that softmax, with no exponential to overflow or underflow (scores of
    thousands, ε of 1e-4 or 100 alike) and no normalising sum.
    """
    s = np.asarray(scores, dtype=np.float64)
    if s.ndim != 1 or len(s) == 0:
        raise ValueError("the exponential mechanism needs a non-empty vector of scores")
    if not np.isfinite(s).all():
        raise ValueError("the exponential mechanism needs finite scores")
    if not (math.isfinite(epsilon) and epsilon > 0 and sensitivity > 0):
        raise ValueError(f"the exponential mechanism needs ε > 0 and Δ > 0; got {epsilon}")
    logits = (epsilon / (2.0 * sensitivity)) * s
    return int(np.argmax(logits + rng.gumbel(size=len(s))))


def selection_probabilities(
    scores: np.ndarray, epsilon: float, sensitivity: float = 1.0
) -> np.ndarray:
    """The exponential mechanism's distribution (a stable softmax), for reports and tests."""
    from scipy.special import softmax

    return softmax((epsilon / (2.0 * sensitivity)) * np.asarray(scores, dtype=np.float64))


# ---------------------------------------------------------------------- the anonymizer
class SafePub(Anonymizer):
    name = "safepub"
    summary = (
        "(ε, δ)-differential privacy: random sampling, a private lattice search, k-suppression"
    )
    #: the mechanism models this anonymizer enforces
    mechanisms: ClassVar[frozenset[str]] = frozenset({"differential-privacy"})
    people_reason: ClassVar[str] = (
        "its (ε, δ) guarantee is per record, and a person with several records would need "
        "group privacy (ε and δ scaled by the records per person), which it does not provide"
    )

    @classmethod
    def defaults(cls) -> dict[str, Any]:
        return {
            "steps": DEFAULT_STEPS,
            "search_fraction": DEFAULT_SEARCH_FRACTION,
            "final_fraction": DEFAULT_FINAL_FRACTION,
            "score": None,
        }

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        steps = self.params["steps"]
        if isinstance(steps, bool) or not isinstance(steps, int) or not 0 <= steps <= 100_000:
            raise PolicyError(
                f"safepub steps must be a whole number from 0 to 100000; got {steps!r}; "
                f"use e.g. --param steps={DEFAULT_STEPS}"
            )
        frac = self.params["search_fraction"]
        if isinstance(frac, bool) or not isinstance(frac, int | float) or not 0 < frac < 1:
            raise PolicyError(
                f"safepub search_fraction (the share of epsilon spent on the search) must lie "
                f"strictly between 0 and 1; got {frac!r}; use e.g. --param search_fraction=0.1"
            )
        final = self.params["final_fraction"]
        if isinstance(final, bool) or not isinstance(final, int | float) or not 0 < final < 1:
            raise PolicyError(
                f"safepub final_fraction (the share of the search budget spent on choosing the "
                f"released node among the pivots) must lie strictly between 0 and 1; got "
                f"{final!r}; use e.g. "
                "--param final_fraction=0.5"
            )
        score = self.params["score"]
        if score is not None and (not isinstance(score, str) or score not in SCORES):
            raise PolicyError(
                f"safepub has no score {score!r}; use one of {', '.join(SCORES)} "
                "(--param score=loss)"
            )

    # ------------------------------------------------------------------ inputs
    def dp_config(self, policy: Policy) -> DifferentialPrivacyConfig:
        entries = policy.model_entries("differential-privacy")
        if not entries:
            raise PolicyError(
                "safepub enforces (ε, δ)-differential privacy: add "
                "{model: differential-privacy, epsilon: 1, delta: 1e-6} to the policy's models"
            )
        if len(entries) > 1:
            raise PolicyError(
                "the policy has more than one differential-privacy model; keep one (its budget "
                "is the whole release's)"
            )
        return entries[0]  # type: ignore[return-value]

    def score_function(self, policy: Policy) -> Score:
        name = self.params["score"] or policy.metric
        if name not in SCORES:
            raise PolicyError(
                f"safepub selects nodes by a utility score of bounded sensitivity; the policy's "
                f"metric {name!r} does not depend on the data; choose one with "
                f"--param score={'|'.join(SCORES)}"
            )
        return SCORES[name]

    # ------------------------------------------------------------------ the mechanism
    def plan(
        self,
        encoded: EncodedTable | None,
        policy: Policy,
        *,
        rows: pd.DataFrame | None = None,
        seed: int | None = None,
        previous: dict[str, int] | None = None,
        progress: Progress | None = None,
        lower: Any = None,
    ) -> Plan:
        """The mechanism (see the module docstring): a ``NodeRecoding`` of the sample, its
        suppressed records written ``*`` in every released column."""
        started = time.perf_counter()
        self.refuse_individual(policy)
        if previous is not None:
            raise PolicyError(
                "safepub draws a fresh random sample: --previous (the node of an earlier "
                "release) does not apply; each differentially private release spends its own "
                "budget"
            )
        config = self.dp_config(policy)
        score = self.score_function(policy)
        epsilon, delta = config.epsilon, config.delta
        eps_search = self.params["search_fraction"] * epsilon
        eps_anon = epsilon - eps_search
        sdgs = derive_parameters(eps_anon, delta)
        policy_k = max((m.k for m in policy.model_entries("k-anonymity")), default=1)
        k = max(sdgs.k, int(policy_k))

        n = encoded.n_records
        if n == 0:
            raise PolicyError("the table has no records; there is nothing to anonymize")
        if k > n:
            raise PolicyError(
                f"safepub needs classes of at least k={k} records (from epsilon={epsilon:g}, "
                f"delta={delta:g}), but the table has only {n}; the release would be empty — "
                "use more records or a larger delta"
            )
        sample_rng, search_rng, order_rng = np.random.default_rng(seed).spawn(3)
        sampled = sample_records(n, sdgs.beta, sample_rng)
        tuple_table = released_tuple(encoded, rows, policy)
        sample = tuple_table.subset(sampled)

        steps = int(self.params["steps"])
        final = float(self.params["final_fraction"]) if steps else 1.0
        eps_final = final * eps_search
        eps_step = (eps_search - eps_final) / steps if steps else 0.0
        search = PrivateSearch(
            sample, encoded.heights, k, n, score, eps_step, eps_final, search_rng
        )
        node = search.run(steps, progress)

        # the (k, β)-SDGS output: the sample at the node, classes of fewer than k suppressed
        full = tuple(node) + (0,) * (len(tuple_table.quasi_identifiers) - len(node))
        table = count(sample, full, track_records=True)
        kept_sample = (table.sizes >= k)[table.record_class]
        kept_sample, post = post_process(encoded, sampled, kept_sample, node, policy)

        n_kept = int(kept_sample.sum())
        kept_table = count(encoded.subset(sampled).subset(kept_sample), node, track_records=False)
        report = self.make_report(
            encoded=encoded,
            policy=policy,
            config=config,
            sdgs=sdgs,
            k=k,
            eps_search=eps_search,
            eps_step=eps_step,
            eps_final=eps_final,
            steps=steps,
            score=score,
            search=search,
            node=node,
            kept_records=n_kept,
            kept_table=kept_table,
            post=post,
            extra_columns=[c.name for c in tuple_table.quasi_identifiers[len(node) :]],
        )
        models = [m for m in table_models(policy.models) if m.model != "differential-privacy"]
        models.append(KAnonymityConfig(k=k))
        extra = [
            n for n, a in policy.attributes.items() if a.role in (Role.sensitive, Role.insensitive)
        ]
        recoding = NodeRecoding(
            tuple(node),
            kept_table,
            np.ones(kept_table.n_classes, dtype=bool),
            sample=sampled,
            kept_records=kept_sample,
            star_columns=tuple(extra),
            check_models=models,
        )
        return Plan(
            algorithm=self.name,
            recoding=recoding,
            report=report,
            metrics=report["metrics"],
            n_classes=kept_table.n_classes,
            n_suppressed=n - n_kept,
            suppressed_cells=(n - n_kept) * len(encoded.quasi_identifiers),
            class_sizes=None,  # (the mechanism's sample: its classes are no candidate's risk)
            seconds=time.perf_counter() - started,
            shuffle_seed=int(order_rng.integers(0, 2**63 - 1)),
        )

    # ------------------------------------------------------------------ report
    def make_report(
        self,
        *,
        encoded: EncodedTable,
        policy: Policy,
        config: DifferentialPrivacyConfig,
        sdgs: SDGSParameters,
        k: int,
        eps_search: float,
        eps_step: float,
        eps_final: float,
        steps: int,
        score: Score,
        search: PrivateSearch,
        node: Node,
        kept_records: int,
        kept_table: ClassTable,
        post: list[str],
        extra_columns: list[str],
    ) -> dict[str, Any]:
        """The fields of the anonymization report the mechanism knows."""
        names = encoded.qi_names
        node_levels = {q: int(v) for q, v in zip(names, node, strict=True)}
        n = encoded.n_records
        parameters: dict[str, Any] = {
            "epsilon": config.epsilon,
            "delta": config.delta,
            "beta": sdgs.beta,
            "k": k,
            "node": node_levels,
            "epsilon_anonymization": sdgs.epsilon,
            "epsilon_search": eps_search,
            "search_fraction": self.params["search_fraction"],
            "steps": steps,
            "final_fraction": eps_final / eps_search,
            "epsilon_per_step": eps_step,
            "epsilon_final": eps_final,
            "k_derived": sdgs.k,
            "delta_achieved": sdgs.delta_achieved,
            "score": score.name,
            "class_columns": names + extra_columns,
            "models": [{"model": m.model, **m.params()} for m in policy.models],
            "suppressed_records": policy.suppressed_records,
            "suppression_limit": "not applied (the mechanism suppresses every class below k)",
            "keep_order": None,
            "seed_given": None,
        }
        metrics = release_metrics(kept_table, n)
        metrics["score"] = float(search.scores[search.lattice.index(node)])
        guarantee = (
            f"({config.epsilon:g}, {config.delta:g})-differential privacy of the mechanism: "
            f"records sampled with β={sdgs.beta:.6g}, generalization chosen by "
            f"{steps + 1} exponential-mechanism draws (ε_search={eps_search:.6g}), every class "
            f"of fewer than k={k} records suppressed (ε_anon={sdgs.epsilon:.6g}, "
            f"δ={sdgs.delta_achieved:.3g} ≤ {config.delta:g}); SafePub, Bild et al. 2018"
        )
        notes = [
            "differential privacy is a property of the mechanism: the re-check of the release "
            "cannot verify it and checks the policy's other models instead, with k-anonymity at "
            f"k={k}, which holds by construction (every released class has ≥ {k} records)",
            "classes are formed over every released column ("
            + ", ".join(names + extra_columns)
            + "): SafePub treats every attribute as a quasi-identifier",
            *post,
        ]
        if policy.suppressed_records == "star":
            notes.append(
                "suppressed_records: star also publishes how many sampled records were "
                "suppressed (rows of '*'), which the guarantee does not cover; 'remove' releases "
                "only the kept rows"
            )
        return {
            "algorithm": self.name,
            "parameters": parameters,
            "quasi_identifiers": names,
            "node": node_levels,
            "n_records": n,
            "n_kept": kept_records,
            "n_suppressed": n - kept_records,
            "metric": score.name,
            "metrics": metrics,
            "nodes_evaluated": search.evaluations,
            "lattice_size": search.lattice.size,
            "path": [node_levels_of(names, p) for p in search.pivots],
            "guarantee": guarantee,
            "notes": notes,
            "search_seconds": round(search.seconds, 4),
        }


def node_levels_of(names: list[str], node: Node) -> dict[str, int]:
    return {q: int(v) for q, v in zip(names, node, strict=False)}


# ---------------------------------------------------------------------- the steps
def sample_records(n: int, beta: float, rng: np.random.Generator) -> np.ndarray:
    """Bernoulli(β) sampling of every record: the boolean mask of the sample."""
    return rng.random(n) < beta


def released_tuple(encoded: EncodedTable, data: pd.DataFrame, policy: Policy) -> EncodedTable:
    """The encoded table whose classes are whole released tuples: the quasi-identifiers (with
    their hierarchies) followed by every other released column (sensitive, insensitive) as a
    column of height 0 — grouped by its value, never generalized."""
    extra = []
    for name, attr in policy.attributes.items():
        if attr.role in (Role.sensitive, Role.insensitive):
            if name in encoded.sensitive:
                col = encoded.sensitive[name]
                extra.append(
                    EncodedColumn(name, col.codes, identity_levels(col.levels.ground), False)
                )
            else:
                codes, uniques = pd.factorize(data[name], use_na_sentinel=False)
                labels = np.asarray([str(u) for u in uniques], dtype=object)
                extra.append(
                    EncodedColumn(name, codes.astype(CODE_DTYPE), identity_levels(labels), False)
                )
    return replace(
        encoded,
        quasi_identifiers=[*encoded.quasi_identifiers, *extra],
        sensitive={},
        sensitive_rank={},
    )


class PrivateSearch:
    """SafePub's search: a walk down the lattice whose every step is an exponential-mechanism
    draw among the candidates, then one more draw among the pivots (see the module docstring).

    Only the draws look at the data; which nodes become candidates depends on the pivots drawn.
    """

    def __init__(
        self,
        sample: EncodedTable,
        heights: tuple[int, ...],
        k: int,
        n_input: int,
        score: Score,
        epsilon_step: float,
        epsilon_final: float,
        rng: np.random.Generator,
    ) -> None:
        self.width = len(heights)
        self.extra = len(sample.quasi_identifiers) - self.width
        self.lattice = Lattice(heights, names=sample.qi_names[: self.width])
        shape = shape_text(self.lattice.shape)
        LATTICE_NODES.check(
            self.lattice.size,
            f"the generalization lattice (levels {shape}) has",
            "use fewer quasi-identifiers or hierarchy levels",
        )
        self.evaluator = NodeEvaluator(sample, [], 0)
        self.k, self.n_input, self.score, self.rng = k, n_input, score, rng
        self.epsilon_step, self.epsilon_final = epsilon_step, epsilon_final
        self.scores = np.full(self.lattice.size, np.nan)
        self.pivots: list[Node] = []
        self.evaluations = 0
        self.seconds = 0.0

    def score_of(self, i: int) -> float:
        if np.isnan(self.scores[i]):
            node = self.lattice.node(i) + (0,) * self.extra
            self.scores[i] = self.score.score(self.evaluator.table(node), self.k, self.n_input)
            self.evaluations += 1
        return float(self.scores[i])

    def draw(self, candidates: list[int], epsilon: float) -> int:
        values = np.array([self.score_of(i) for i in candidates])
        return candidates[exponential_mechanism(values, epsilon, self.rng)]

    def run(self, steps: int, progress: Progress | None = None) -> Node:
        started = time.perf_counter()
        lat = self.lattice
        # each step draws among the predecessors of its node, scoring those not yet scored:
        # the steps and the nodes scored (at most the lattice) are bounded before the first
        require_exhaustive(
            max(steps, min(lat.size, (steps + 1) * (self.width + 1))),
            f"safepub takes {steps:,} steps, each scoring up to the {self.width} predecessors "
            f"of its node in a lattice of levels {shape_text(lat.shape)}: that is up to",
            f"use fewer steps (default {DEFAULT_STEPS}), quasi-identifiers or hierarchy levels",
        )
        pivot = lat.index(lat.heights)
        pivots = [pivot]
        candidates: dict[int, None] = {pivot: None}  # insertion-ordered set
        for step in range(steps):
            for pred in lat.predecessors(lat.node(pivot)):
                candidates.setdefault(lat.index(pred), None)
            candidates.pop(pivot, None)
            if not candidates:  # the whole lattice has been a pivot
                break
            pivot = self.draw(list(candidates), self.epsilon_step)
            pivots.append(pivot)
            if progress is not None:
                progress(step + 1, steps + 1)
        distinct = list(dict.fromkeys(pivots))
        chosen = self.draw(distinct, self.epsilon_final)
        if progress is not None:
            progress(steps + 1, steps + 1)
        self.pivots = [lat.node(i) for i in pivots]
        self.seconds = time.perf_counter() - started
        return lat.node(chosen)


def post_process(
    encoded: EncodedTable,
    sampled: np.ndarray,
    kept_sample: np.ndarray,
    node: Node,
    policy: Policy,
) -> tuple[np.ndarray, list[str]]:
    """Suppress the classes of the differentially private output that violate the policy's other
    table models, judged on that output alone (post-processing). Returns the new kept mask over
    the sampled records and notes saying what was suppressed."""
    others = [c for c in table_models(policy.models) if c.model != "differential-privacy"]
    others = [c for c in others if c.model != "k-anonymity"]  # k ≥ the policy's k already
    if not others or not kept_sample.any():
        return kept_sample, []
    released = encoded.subset(sampled).subset(kept_sample)
    table = count(released, node, track_records=True)
    evaluator = NodeEvaluator(released, others, released.n_records, lower=node, root=table)
    _, ok = evaluator.verdict(table)
    if ok.all():
        return kept_sample, []
    dropped = int(table.sizes[~ok].sum())
    if not ok.any():
        raise PolicyError(
            "after the differentially private step every class of the release violates "
            + ", ".join(c.model for c in others)
            + "; relax those models, or raise epsilon (a larger sample keeps larger classes)"
        )
    out = kept_sample.copy()
    out[np.flatnonzero(kept_sample)[~ok[table.record_class]]] = False
    return out, [
        f"{dropped} released records in {int((~ok).sum())} classes suppressed after the "
        "differentially private step because their classes violate "
        + ", ".join(c.model for c in others)
        + " (post-processing of the output: the guarantee is unchanged)"
    ]


def release_metrics(kept: ClassTable, n_input: int) -> dict[str, float]:
    """The usual information-loss metrics of the release (the class table of its kept records)
    against the whole input: records not sampled or suppressed count as suppressed."""
    n_kept = kept.n_records
    suppressed = n_input - n_kept
    q = len(kept.encoded.quasi_identifiers)
    kept_loss = loss(kept) * n_kept * q  # loss() averages over the kept records
    return {
        "prec": precision(kept.node, kept.encoded.heights, n_input, suppressed),
        "discernibility": discernibility(kept.sizes, n_input, suppressed),
        "aecs": average_class_size(kept.sizes, n_input, suppressed),
        "height": float(generalization_height(kept.node)),
        "loss": (kept_loss + suppressed * q) / (n_input * q) if q and n_input else 0.0,
    }


@hookimpl
def privcheck_anonymizers() -> list[type]:
    return [SafePub]
