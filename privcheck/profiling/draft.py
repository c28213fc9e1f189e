"""``draft_policy``: a table → a draft policy and the profile it was drafted from.

The steps, each in its own module: read every column once (``columns``), type it (``types``),
recognise its values on a sample (``recognizers``), decide its role (``rules``; a catalog's
tags win, ``tags``), build a hierarchy for every quasi-identifier (``hierarchies``); then read
the columns together: the person key (``individual``), a first-name and last-name pair
(``name_rules``), one age-like quasi-identifier (``age_like``), postal codes nested in a place
(``postcodes``); choose the models (k-anonymity; distinct l-diversity per sensitive attribute
with at least l values), and check the table against the draft as ``privcheck check`` will (the
closing summary: records unique on the quasi-identifiers, what the check will say).
``write_draft`` writes the policy (YAML, a comment on every line, ``writer``) and its table
hierarchies, all or nothing.

The draft is made to run: every hierarchy ends in ``*``, ``missing: own_class`` is set when a
quasi-identifier or sensitive column has missing values, an l-diversity model is only written
for an attribute with at least l distinct values, and k may not exceed the number of records —
so the fully generalized table satisfies the policy and ``anonymize`` always has a release.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import pyarrow as pa

from privcheck.errors import DataError, PolicyError, listing
from privcheck.policy import Policy, parse_policy
from privcheck.profiling import hierarchies, rules, writer
from privcheck.profiling.age_like import keep_one_age_like
from privcheck.profiling.columns import (
    SAMPLE_SIZE,
    arrow_table,
    column_data,
    plain_columns,
    sample_rows,
)
from privcheck.profiling.decision import Decision
from privcheck.profiling.individual import draft_individual
from privcheck.profiling.name_rules import pair_names
from privcheck.profiling.postcodes import nest_postcodes
from privcheck.profiling.preview import PREVIEW_ROWS, release_preview
from privcheck.profiling.profile import ColumnProfile, Profile
from privcheck.profiling.recognizers import detect_column
from privcheck.profiling.tags import (
    REVIEW,
    absent_columns,
    absent_note,
    check_tags,
    read_tags,
    require_some_present,
    tag_roles,
)
from privcheck.profiling.types import infer

#: suppression limit of a draft when none is given: one record in twenty may be suppressed
DEFAULT_SUPPRESSION = 0.05
ROLES = ("identifier", "quasi_identifier", "sensitive", "insensitive")


class Draft(NamedTuple):
    """A drafted policy (table hierarchies inline) and the profile it was drafted from."""

    policy: Policy
    profile: Profile


# --------------------------------------------------------------------------- drafting


#: k of a draft when none is given (lowered to the number of records of a smaller table)
DEFAULT_K = 5


def unprofiled_columns(table: pa.Table) -> dict[str, str]:
    """Column → what it holds, for the columns a draft leaves out: nested values (lists,
    structs, maps, unions: ``privcheck.nested``) and binary values (bytes, not text), which
    have no one value per cell to profile, group or spell in a hierarchy."""
    from privcheck.nested import is_nested_arrow

    out = {}
    for column in table.schema:
        kind = column.type.value_type if pa.types.is_dictionary(column.type) else column.type
        if is_nested_arrow(kind):
            out[column.name] = f"nested values, {column.type}"
        elif (
            pa.types.is_binary(kind)
            or pa.types.is_large_binary(kind)
            or pa.types.is_fixed_size_binary(kind)
            or (hasattr(pa.types, "is_binary_view") and pa.types.is_binary_view(kind))
        ):
            out[column.name] = f"binary values, {column.type}"
    return out


def _validate_parameters(k: int, l: int, suppression: float | None, n_rows: int) -> None:  # noqa: E741
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise PolicyError(f"k must be a whole number of at least 1; got {k!r}")
    if isinstance(l, bool) or not isinstance(l, int) or l < 1:
        raise PolicyError(f"l must be a whole number of at least 1; got {l!r}")
    if suppression is not None and not 0.0 <= suppression <= 1.0:
        raise PolicyError(f"the suppression limit must lie between 0 and 1; got {suppression}")
    if k > n_rows:
        raise PolicyError(
            f"k = {k} is more than the {n_rows:,} records of the table: no release of it can be "
            f"{k}-anonymous; choose k ≤ {n_rows}"
        )
    if l > n_rows:
        raise PolicyError(
            f"l = {l} is more than the {n_rows:,} records of the table: no class of it can hold "
            f"{l} distinct values; choose l ≤ {n_rows}"
        )


def _apply_tag(decision: Decision, tagged: str) -> Decision:
    """The catalog's role, with the profile's disagreement (if any) in the reason. A tag that
    marks personal data without its role (``review``) keeps the profile's role, to review."""
    if tagged == REVIEW:
        profile_says = decision.reason.removeprefix("review: ")
        return Decision(
            decision.role,
            "review: tagged personal data in the catalog, its role not said; the profile says "
            f"{decision.role}: {profile_says}",
            True,
            decision.concept,
            decision.pattern,
        )
    reason = f"tagged {tagged} in the catalog"
    undecided = decision.review and decision.role == "insensitive"
    if decision.role != tagged and not undecided:
        profile_says = decision.reason.removeprefix("review: ")
        return Decision(
            tagged,
            f"review: {reason}, but the profile says {decision.role}: {profile_says}",
            True,
            decision.concept,
            decision.pattern,
        )
    return Decision(tagged, reason, False, decision.concept, decision.pattern)


def _profile_column(
    column: Any,
    name: str,
    positions: np.ndarray,
    tagged: str | None,
    k: int,
    l: int,  # noqa: E741
) -> ColumnProfile:
    """One column: read once, typed, recognised, given a role (the tag's, if any) and, as a
    quasi-identifier, a hierarchy."""
    col = column_data(column, name, positions)
    info = infer(col)
    decision = rules.decide(col, info, detect_column(col, info))
    if tagged is not None:
        decision = _apply_tag(decision, tagged)
    profile = ColumnProfile(
        name=name,
        type=info.type,
        distinct=col.distinct,
        missing_share=col.missing_share,
        unique_share=col.unique_share,
        pattern=decision.pattern,
        role=decision.role,
        reason=decision.reason,
        review=decision.review or decision.reason.startswith("review:"),
        n_missing=col.n_missing,
        concept=decision.concept,
        tagged=tagged is not None,
    )
    if decision.role == "quasi_identifier":
        built = hierarchies.build(col, info, decision.concept, k)
        profile.built, profile.hierarchy = built, built.spec
        if built.note:
            profile.reason += f"; hierarchy: {built.note}"
    elif decision.role == "sensitive" and l >= 2 and col.distinct < l:
        profile.reason += (
            f"; review: only {col.distinct} distinct value(s), fewer than l = {l}: no "
            "l-diversity model for it"
        )
        profile.review = True
    return profile


def draft_policy(
    frame: Any,
    *,
    k: int | None = None,
    l: int = 2,  # noqa: E741
    suppression: float | None = None,
    tags: Any = None,
    sample_size: int = SAMPLE_SIZE,
    seed: int = 0,
    check: bool = True,
    preview_rows: int = PREVIEW_ROWS,
) -> Draft:
    """Profile ``frame`` and draft a policy for it: ``(policy, profile)``.

    ``frame`` is a pandas DataFrame, an Arrow table or a CSV/TSV/Parquet path (read as
    ``privcheck check`` reads it). ``k`` (k-anonymity; default 5, or the number of records of
    a smaller table) and ``l`` (distinct l-diversity of every
    sensitive attribute with at least l values; ``l=1``: none) are the models; ``suppression``
    the suppression limit (default 0.05). ``tags`` (column → list of catalog tags, or a JSON /
    YAML file of them) sets the roles of the columns it tags: the profile then only supplies
    hierarchies and flags a disagreement. Patterns are detected on ``sample_size`` rows per
    column (a fixed ``seed``: the same table drafts the same policy). ``check`` runs the
    table against the draft as ``privcheck check`` will (``profile.check``,
    ``profile.unique_records``); the table (bigger than 5,000 rows: ``preview_rows`` of them; 0:
    no preview) is anonymized as
    ``privcheck anonymize`` will (``auto``), and the release's loss per quasi-identifier is
    ``profile.preview`` (``privcheck.profiling.preview``).

    The policy's table hierarchies are inline (``rows``): it can be passed to ``check`` and
    ``anonymize`` as it is; ``write_draft`` writes them as files beside a policy file.
    """
    started = time.perf_counter()
    from privcheck.io import read_table

    source = str(frame) if isinstance(frame, str | Path) else None
    if source is not None:  # as a check reads it, keys read plain (no dictionary to build)
        frame = read_table(frame, dictionary=True, arrow=True, plain=plain_columns(frame))
    table = arrow_table(frame)
    names = list(table.column_names)
    seen: set[str] = set()
    repeated = [c for c in names if c in seen or seen.add(c)]
    if repeated:
        raise DataError(f"column {repeated[0]!r} appears more than once; rename the duplicates")
    if not names:
        raise DataError(f"{source or 'the table'} has no columns")
    from privcheck.limits import PROFILED_COLUMNS

    PROFILED_COLUMNS.check(
        len(names),
        f"{source or 'the table'} has",
        "draft the policy from the columns that matter (select them into a file first)",
    )
    n_rows = table.num_rows
    if n_rows == 0:
        raise DataError(
            f"{source or 'the table'} has no records (a header only?): there is nothing to "
            "profile; give the extract with its rows"
        )
    notes = []
    if k is None:
        k = min(DEFAULT_K, n_rows)
        if k < DEFAULT_K:
            notes.append(
                f"k lowered from {DEFAULT_K} to {k}: the table has {n_rows} record(s); a draft "
                "of so few records protects little"
            )
    _validate_parameters(k, l, suppression, n_rows)
    roles: dict[str, str] = {}
    warnings: list[str] = []
    if tags is not None:  # (a file is checked as it is read; a mapping given here, now)
        checked = check_tags(tags) if isinstance(tags, dict) else read_tags(tags)
        require_some_present(checked, names)
        roles = tag_roles(checked, names)
        absent = absent_columns(checked, names)
        if absent:  # a warning, not a stop: the catalog describes more than the extract
            warnings.append(absent_note(absent))

    for name, kind in unprofiled_columns(table).items():
        names.remove(name)
        notes.append(
            f"column {name!r} ({kind}) is left out of the draft: privcheck cannot group or "
            "generalize such values, and a release leaves out every column the policy does not "
            "name; to protect what it holds, flatten it into plain columns and run init again"
        )
    if not names:
        raise DataError(
            f"{source or 'the table'} has no column privcheck can profile: " + "; ".join(notes)
        )
    positions = sample_rows(n_rows, sample_size, seed)

    def one(name: str) -> ColumnProfile:
        return _profile_column(table.column(name), name, positions, roles.get(name), k, l)

    workers = max(1, min(4, os.cpu_count() or 1, len(names)))
    # the columns without a dictionary (keys read plain: a hash of every value) start first
    heavy = sorted(names, key=lambda n: pa.types.is_dictionary(table.column(n).type))
    with ThreadPoolExecutor(workers) as pool:  # Arrow's kernels release the GIL
        done = dict(zip(heavy, pool.map(one, heavy), strict=True))
    columns = [done[n] for n in names]
    individual = draft_individual(table, columns, positions, seed, notes)
    pair_names(columns)  # a first-name column beside a last-name column: one pair
    keep_one_age_like(columns)
    nest_postcodes(table, columns)

    missing = any(c.n_missing for c in columns if c.role in ("quasi_identifier", "sensitive"))
    limit = DEFAULT_SUPPRESSION if suppression is None else float(suppression)
    profile = Profile(
        source=source,
        rows=n_rows,
        columns=columns,
        sample_size=sample_size,
        k=k,
        l=l,
        suppression_limit=limit,
        missing="own_class" if missing else None,
        notes=[*notes, *warnings],
        warnings=warnings,
    )
    if individual is not None:
        profile.individual, profile.individual_reason = individual.name, individual.reason
    policy = parse_policy(policy_dict(profile))
    if check:
        preview(frame, policy, profile)
    if preview_rows > 0:
        profile.preview = release_preview(table, policy, preview_rows, seed)
    profile.seconds = time.perf_counter() - started
    return Draft(policy, profile)


def models(profile: Profile) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = [{"model": "k-anonymity", "k": profile.k}]
    if profile.l >= 2:
        for c in profile.columns:
            if c.role == "sensitive" and c.distinct >= profile.l:
                out.append(
                    {
                        "model": "l-diversity",
                        "variant": "distinct",
                        "l": profile.l,
                        "attribute": c.name,
                    }
                )
    return out


_ROLE_WORDS = {
    "identifier": "identifier",
    "quasi_identifier": "quasi-identifier",
    "sensitive": "sensitive",
    "insensitive": "insensitive",
}


def review_text(c: ColumnProfile) -> str:
    """The open decision written on a column marked for review: what was seen (the reason,
    without its ``review:`` markers) and what to decide. Every gate refuses the policy until
    the entry is deleted (``Policy.require_decided``)."""
    seen = c.reason.removeprefix("review: ").replace("; review: ", "; ").strip()
    return (
        f"{seen} — drafted {_ROLE_WORDS[c.role]}: keep or change the role, then delete this "
        "review entry"
    )


def _entry(c: ColumnProfile, hierarchy: dict[str, Any] | None) -> dict[str, Any]:
    entry: dict[str, Any] = {"role": c.role}
    if c.role == "quasi_identifier" and hierarchy is not None:
        entry["hierarchy"] = hierarchy
    if c.review:
        entry["review"] = review_text(c)
    return entry


def policy_dict(profile: Profile, specs: dict[str, dict[str, Any]] | None = None) -> dict:
    """The draft as a policy mapping (``specs``: hierarchy specs as written, by column)."""
    specs = specs or {}
    data: dict[str, Any] = {}
    if profile.individual is not None:  # (a person key: counted, never an attribute)
        data["individual"] = profile.individual
    data |= {
        "attributes": {
            c.name: _entry(c, specs.get(c.name, c.hierarchy))
            for c in profile.columns
            if c.name != profile.individual
        },
        "models": models(profile),
        "suppression_limit": profile.suppression_limit,
    }
    if profile.missing:
        data["missing"] = profile.missing
    return data


# --------------------------------------------------------------------------- the check it implies


def preview(frame: Any, policy: Policy, profile: Profile) -> None:
    """Check the table against the draft as ``privcheck check`` will (same encoding, class
    table and models, on the table already read) and record what it says."""
    from privcheck.checker import check_table, finish_report, present_identifiers
    from privcheck.classes import count
    from privcheck.encoding import encode, sensitive_read

    names = frame.column_names if hasattr(frame, "column_names") else list(frame.columns)
    encoded = encode(frame, policy, as_released=True, sensitive=sensitive_read(policy))
    table = count(encoded)
    report = check_table(table, policy)
    identifiers = present_identifiers(names, policy)
    finish_report(report, policy, identifiers=identifiers, n_suppressed=0, n_rows=profile.rows)
    # records alone in their class (counting people: the records of a class of one person)
    alone = np.asarray(table.subjects) == 1
    profile.unique_records = int(np.asarray(table.sizes)[alone].sum())
    findings = []
    if identifiers:
        findings.append(
            f"{len(identifiers)} identifier column(s) present ({listing(identifiers, 6)}): a "
            "release drops them"
        )
    for m in report.models:
        if not m.passed:
            params = ", ".join(
                f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}"
                for k, v in m.params.items()
                if k != "variant"
            )
            findings.append(
                f"{m.model} ({params}) fails for {m.violating_records:,} records in "
                f"{m.violating_classes:,} classes"
            )
    profile.check = {
        "passed": report.passed,
        # a draft is refused until its review entries are deleted: exit 2, whatever it holds
        "exit_code": 2 if policy.is_draft else 0 if report.passed else 1,
        "draft": policy.is_draft,
        "n_classes": report.n_classes,
        "findings": findings,
    }


# --------------------------------------------------------------------------- files


def _file_stem(name: str) -> str:
    stem = re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("._") or "column"
    return stem[:100]


def hierarchy_paths(profile: Profile, folder: Path) -> dict[str, Path]:
    """The file of each table hierarchy to write: ``folder/<column>.csv`` (distinct names)."""
    out: dict[str, Path] = {}
    used: set[str] = set()
    for c in profile.columns:
        if c.built is None or c.built.spec["type"] != "table" or c.built.inline:
            continue
        stem = _file_stem(c.name)
        candidate, i = stem, 2
        while candidate.casefold() in used:
            candidate, i = f"{stem}_{i}", i + 1
        used.add(candidate.casefold())
        out[c.name] = folder / f"{candidate}.csv"
    return out


def _relative(path: Path, base: Path) -> str:
    try:
        return Path(os.path.relpath(path.resolve(), base.resolve())).as_posix()
    except ValueError:  # another drive (Windows)
        return str(path.resolve())


def _header(profile: Profile) -> list[str]:
    n_review = sum(c.review for c in profile.columns)
    what = profile.source or "a table"
    return [
        f"privcheck policy drafted by `privcheck init` from {what}: {profile.rows:,} rows, "
        f"{len(profile.columns)} columns.",
        *(f"Note: {note}." for note in profile.notes),
        "A draft: read every line before you rely on it"
        + (
            f", above all the {n_review} with a 'review:' entry — check, anonymize and every "
            "other gate refuse this policy until each is decided (set the role, delete the "
            "review entry)."
            if n_review
            else "."
        ),
        f"Value patterns were detected on a sample of up to {profile.sample_size:,} rows per "
        "column; each line's comment says why the column got its role.",
    ]


def _missing_comment(profile: Profile) -> str:
    cols = [
        c.name
        for c in profile.columns
        if c.n_missing and c.role in ("quasi_identifier", "sensitive")
    ]
    shown = listing(cols, 6)
    verb = "has" if len(cols) == 1 else "have"
    return f"{shown} {verb} missing values: a class of their own (<missing>)"


def policy_text(profile: Profile, specs: dict[str, dict[str, Any]], as_json: bool) -> str:
    """The policy file's text (YAML with a comment per line, or JSON)."""
    if as_json:
        return json.dumps(policy_dict(profile, specs), indent=2, ensure_ascii=False) + "\n"
    # (a column marked for review carries its reason in its review entry, not twice)
    lines = [
        writer.AttributeLine(
            c.name, _entry(c, specs.get(c.name, c.hierarchy)), "" if c.review else c.reason
        )
        for c in profile.columns
        if c.name != profile.individual
    ]
    model_lines = []
    for m in models(profile):
        if m["model"] == "k-anonymity" and profile.individual is not None:
            note = (
                f"each person shares their quasi-identifiers with at least {m['k'] - 1} other "
                "people"
            )
        elif m["model"] == "k-anonymity":
            note = f"each record shares its quasi-identifiers with at least {m['k'] - 1} others"
        elif profile.individual is not None:
            note = (
                f"each class holds at least {m['l']} distinct values of {m['attribute']} "
                "among its people"
            )
        else:
            note = f"each class holds at least {m['l']} distinct values of {m['attribute']}"
        model_lines.append(writer.ModelLine(m, note))
    return writer.policy_yaml(
        lines,
        model_lines,
        suppression_limit=profile.suppression_limit,
        missing=profile.missing,
        missing_comment=_missing_comment(profile) if profile.missing else "",
        header=_header(profile),
        individual=(
            None
            if profile.individual is None
            else writer.IndividualLine(profile.individual, profile.individual_reason or "")
        ),
    )


def write_draft(
    profile: Profile,
    policy_path: str | Path,
    *,
    hierarchies_dir: str | Path | None = None,
    inputs: list[str | Path | None] = (),  # type: ignore[assignment]
    force: bool = False,
) -> list[Path]:
    """Write the policy and its table hierarchies (default folder: ``hierarchies/`` beside the
    policy), all or nothing; an existing file is refused unless ``force``. ``inputs`` (the data,
    the tags) can never be outputs. Returns the files written."""
    from privcheck.io import all_or_nothing, guard_outputs, write_text_atomic

    policy_path = Path(policy_path)
    folder = (
        Path(hierarchies_dir) if hierarchies_dir is not None else policy_path.parent / "hierarchies"
    )
    files = hierarchy_paths(profile, folder)
    if not force:
        for target in [policy_path, *files.values()]:
            if os.path.lexists(target):
                raise DataError(
                    f"{target} exists: privcheck init never overwrites a file; pass --force to "
                    "replace it, or choose another name"
                )
    created = False
    if files and not folder.is_dir():
        if os.path.lexists(folder):
            raise DataError(f"--hierarchies {folder} is not a folder; name a folder")
        if not folder.parent.is_dir():
            raise DataError(
                f"--hierarchies {folder}: the folder {folder.parent} does not exist; create it "
                "first"
            )
        try:
            folder.mkdir()
        except OSError as exc:
            raise DataError(f"cannot create the folder {folder}: {exc.strerror}") from None
        created = True
    try:
        outputs = {"--output": policy_path}
        outputs.update({f"hierarchy of {name!r}": path for name, path in files.items()})
        guard_outputs(outputs, list(inputs))
        specs: dict[str, dict[str, Any]] = {}
        for name, path in files.items():
            built = profile.column(name).built
            spec = {"type": "table", "path": _relative(path, policy_path.parent)}
            if built.sep != ";":
                spec["sep"] = built.sep
            specs[name] = spec
        as_json = policy_path.suffix.lower() == ".json"
        text = policy_text(profile, specs, as_json)
        _validate_text(text, as_json, policy_path)
        with all_or_nothing():
            for name, path in files.items():
                built = profile.column(name).built
                write_text_atomic(path, writer.hierarchy_csv(built.rows, built.sep))
            write_text_atomic(policy_path, text)
    except BaseException:
        if created:
            with contextlib.suppress(OSError):  # (not empty: not ours to remove)
                folder.rmdir()
        raise
    for name, spec in specs.items():
        profile.column(name).hierarchy = spec
    profile.policy_path = str(policy_path)
    profile.hierarchy_files = [str(p) for p in files.values()]
    return [*files.values(), policy_path]


def _validate_text(text: str, as_json: bool, policy_path: Path) -> None:
    """The text parses with privcheck's own loader into a valid policy (else a bug: say so)."""
    from privcheck.limits import load_json, load_yaml

    try:
        data = load_json(text) if as_json else load_yaml(text)
        parse_policy(data, base_dir=policy_path.parent.resolve())
    except Exception as exc:  # pragma: no cover - the writer's output must always load
        raise PolicyError(f"the drafted policy does not load ({exc}); please report this") from None
