"""The pre-release hook: check staged data files against the policies a config file assigns.

``privcheck hook FILES…`` (what the ``privcheck-check`` pre-commit hook runs) reads
``privcheck.toml`` — or ``[tool.privcheck]`` in ``pyproject.toml`` — which maps file globs to
policies::

    [[check]]
    files = ["releases/**/*.csv", "exports/*.parquet"]
    policy = "policies/release.yaml"

Each file is checked against every policy whose globs match it (files no rule matches are
skipped), one readable line per file and policy, and the exit code is 0 when every check passes,
1 when some model is violated, 2 on bad input (an unreadable file, a broken policy or config).
Globs are matched against paths relative to the config file's folder: ``*`` and ``?`` stay
within one folder, ``**/`` spans any number of folders, ``[…]`` is a character class. They are
matched by a bit-parallel automaton (`Glob`), in time linear in the path whatever the glob:
the regular expressions they were once translated to backtracked without end on ``*a*a…b``.
"""

from __future__ import annotations

import os
import sys
import tomllib
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from privcheck.errors import DataError, PolicyError, PrivcheckError
from privcheck.github_report import escape_data, escape_property, github_annotations
from privcheck.io import read_text_file
from privcheck.limits import DOCUMENT_BYTES, GLOB_CHARACTERS
from privcheck.report import SIGNS, Report, _fmt, _params, draft_note, requirement

CONFIG_NAMES = ("privcheck.toml", "pyproject.toml")


@dataclass(frozen=True)
class Rule:
    """Files matching any of ``globs`` must satisfy ``policy``."""

    globs: tuple[str, ...]
    policy: Path

    def matches(self, relative: str) -> bool:
        return any(compile_glob(g).fullmatch(relative) for g in self.globs)


@dataclass(frozen=True)
class HookConfig:
    root: Path
    rules: tuple[Rule, ...]
    source: Path


class BadGlob(ValueError):
    """A glob that cannot mean what it says (a reversed range); the message says where."""


@dataclass(frozen=True)
class Glob:
    """A path glob compiled to a bit-parallel automaton: ``fullmatch`` runs in time
    proportional to the path's length times the glob's / 64, whatever the glob — no
    backtracking, so ``*a*a*a…b`` or ``**/**/**/…`` cost what they are long.

    Tokens (one automaton state each): a literal character, ``?`` (one character but ``/``), a
    class ``[…]`` (never ``/``), ``*`` (characters but ``/``), ``**`` (any characters), ``**/``
    (any number of whole folders). Runs of tokens that match the same strings (``**/**/``,
    ``***``) are merged, so closing over the empty moves takes a pass or two."""

    size: int  # tokens; state ``size`` accepts
    literal: dict[str, int]  # character → states of literal tokens of that character
    classes: tuple[tuple[int, bool, tuple[tuple[str, str], ...]], ...]  # state, negated, ranges
    any_char: int  # ``?`` states
    star: int  # ``*`` states
    dstar: int  # ``**`` states
    folders: int  # ``**/`` states

    def _advance(self, ch: str) -> int:
        """States whose token consumes ``ch`` and moves on."""
        mask = self.literal.get(ch, 0)
        if ch != "/":
            mask |= self.any_char
            for state, negated, ranges in self.classes:
                if any(lo <= ch <= hi for lo, hi in ranges) != negated:
                    mask |= 1 << state
        return mask

    def _close(self, states: int) -> int:
        """Add the states reached by skipping tokens that may match nothing."""
        skippable = self.star | self.dstar | self.folders
        while True:
            more = states | ((states & skippable) << 1)
            if more == states:
                return states
            states = more

    def _run(self, path: str) -> tuple[int, int]:
        """The states after reading ``path``: (states, states within a ``**/`` folder name)."""
        states, inside = self._close(1), 0
        advance: dict[str, int] = {}
        for ch in path:
            step = advance.get(ch)
            if step is None:
                step = advance[ch] = self._advance(ch)
            moved = (states & step) << 1
            if ch == "/":
                states, inside = moved | (states & (self.dstar | self.folders)) | inside, 0
            else:
                inside = (states & self.folders) | inside
                states = moved | (states & (self.star | self.dstar))
            states = self._close(states)
            if not states and not inside:
                break
        return states, inside

    def fullmatch(self, path: str) -> bool:
        """Whether the whole of ``path`` (relative, ``/``-separated) matches."""
        return bool(self._run(path)[0] >> self.size & 1)

    def may_match_below(self, folder: str) -> bool:
        """Whether a path inside ``folder`` (``a/b``; ``""``: the root) can match: a walk of the
        tree skips folders no glob can reach."""
        states, inside = self._run(f"{folder}/" if folder else "")
        return bool(states or inside)


def _class(glob: str, start: int) -> tuple[bool, tuple[tuple[str, str], ...], int] | None:
    """The class opening at ``glob[start] == '['``: (negated, ranges, end), or None when it is
    not closed (the ``[`` is then a literal character, as for fnmatch). A ``]`` first in the
    class is a member (``[]]``, ``[!]]``); a reversed range (``[z-a]``) is an error."""
    i = start + 1
    negated = i < len(glob) and glob[i] == "!"
    i += negated
    body_start = i
    if i < len(glob) and glob[i] == "]":
        i += 1
    end = glob.find("]", i)
    if end < 0:
        return None
    body, ranges, j = glob[body_start:end], [], 0
    while j < len(body):
        if j + 2 < len(body) and body[j + 1] == "-":
            lo, hi = body[j], body[j + 2]
            if lo > hi:
                raise BadGlob(
                    f"has a reversed character range at character {start + 1 + negated + j + 1} "
                    "(it matches nothing); write it low-high, e.g. [a-z]"
                )
            ranges.append((lo, hi))
            j += 3
        else:
            ranges.append((body[j], body[j]))
            j += 1
    return negated, tuple(ranges), end


def _merged(previous: str | None, kind: str) -> str | None:
    """The one token two adjacent wildcards match the strings of, or None: the same twice is
    itself, either with ``**`` is ``**``; ``**/*`` and ``*`` then ``**/`` stay two."""
    wild = ("star", "dstar", "folders")
    if previous not in wild or kind not in wild:
        return None
    if previous == kind:
        return kind
    return "dstar" if "dstar" in (previous, kind) else None


@cache
def compile_glob(glob: str) -> Glob:
    """A path glob: ``**/`` any folders, ``**`` anything, ``*`` / ``?`` within one folder,
    ``[..]`` / ``[!..]`` one character of a class (never ``/``). Raises `BadGlob`."""
    kinds: list[tuple[str, object]] = []
    i = 0
    while i < len(glob):
        c = glob[i]
        if glob.startswith("**/", i):
            kind, i = ("folders", None), i + 3
        elif glob.startswith("**", i):
            kind, i = ("dstar", None), i + 2
        elif c == "*":
            kind, i = ("star", None), i + 1
        elif c == "?":
            kind, i = ("any", None), i + 1
        elif c == "[" and (found := _class(glob, i)) is not None:
            negated, ranges, end = found
            kind, i = ("class", (negated, ranges)), end + 1
        else:
            kind, i = ("literal", c), i + 1
        merged = _merged(kinds[-1][0] if kinds else None, kind[0])
        if merged is not None:  # ``**/**/`` is ``**/``, ``***`` is ``**``
            kinds[-1] = (merged, None)
        else:
            kinds.append(kind)
    literal: dict[str, int] = {}
    classes = []
    masks = {"any": 0, "star": 0, "dstar": 0, "folders": 0}
    for state, (kind, value) in enumerate(kinds):
        if kind == "literal":
            literal[value] = literal.get(value, 0) | 1 << state  # type: ignore[index]
        elif kind == "class":
            negated, ranges = value  # type: ignore[misc]
            classes.append((state, negated, ranges))
        else:
            masks[kind] |= 1 << state
    return Glob(
        len(kinds),
        literal,
        tuple(classes),
        masks["any"],
        masks["star"],
        masks["dstar"],
        masks["folders"],
    )


def find_config(start: Path | None = None) -> Path:
    """``privcheck.toml`` (or a ``pyproject.toml`` with ``[tool.privcheck]``) in ``start``."""
    folder = (start or Path.cwd()).resolve()
    for name in CONFIG_NAMES:
        path = folder / name
        if path.is_file() and (
            name != "pyproject.toml"
            or "tool.privcheck" in read_text_file(path, "config file", DOCUMENT_BYTES)
        ):
            return path
    raise PolicyError(
        f"no privcheck.toml in {folder}; create one mapping file globs to policies, e.g. "
        '[[check]] files = ["releases/*.csv"] policy = "policy.yaml"'
    )


def load_config(path: Path) -> HookConfig:
    """Read and validate the hook's config file, strictly: ``[[check]]`` tables of ``files``
    (a glob or a list of globs) and ``policy`` (a path), nothing else — a key privcheck does not
    read is refused, so a misspelt one cannot silently leave files unchecked. Errors name the
    file and the key or position, never a value read from it (``privcheck.messages``)."""
    from privcheck.messages import scrub, shown_key

    text = read_text_file(path, "config file", DOCUMENT_BYTES)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise PolicyError(f"config file {path} is not valid TOML: {scrub(str(exc))}") from None
    except RecursionError:  # tomllib recurses per nesting level
        raise PolicyError(
            f"config file {path} is nested too deeply for a config file; flatten it"
        ) from None
    where = "privcheck.toml"
    if path.name == "pyproject.toml":
        where = "[tool.privcheck]"
        tool = data.get("tool", {})
        data = tool.get("privcheck", {}) if isinstance(tool, dict) else None
        if not isinstance(data, dict):
            raise PolicyError(f"{path}: tool.privcheck must be a table with [[check]] entries")
    unknown = sorted(set(data) - {"check"})
    if unknown:
        raise PolicyError(
            f"{path}: {where} has the unknown key {shown_key(unknown[0])}; it holds only "
            "[[check]] tables of 'files' and 'policy'"
        )
    entries = data.get("check")
    if not isinstance(entries, list) or not entries:
        raise PolicyError(
            f"{path} has no [[check]] entries; add one with 'files' (globs) and 'policy'"
        )
    root = path.parent.resolve()
    rules = []
    for i, entry in enumerate(entries):
        if not isinstance(entry, dict):
            raise PolicyError(f"{path}: check[{i}] must be a table with 'files' and 'policy'")
        unknown = sorted(set(entry) - {"files", "policy"})
        if unknown:
            raise PolicyError(f"{path}: check[{i}] has unknown key {shown_key(unknown[0])}")
        files, policy = entry.get("files"), entry.get("policy")
        if isinstance(files, str):
            files = [files]
        if not isinstance(files, list) or not files:
            raise PolicyError(f"{path}: check[{i}].files must be a glob or a list of globs")
        if not all(isinstance(f, str) and f for f in files):
            raise PolicyError(f"{path}: check[{i}].files must be a glob or a list of globs")
        for j, glob in enumerate(files):
            where = f"{path}: check[{i}].files[{j}]"
            GLOB_CHARACTERS.check(len(glob), f"{where} has", "write a shorter glob")
            try:
                compile_glob(glob.removeprefix("./"))
            except BadGlob as exc:
                raise PolicyError(f"{where} {exc}") from None
        if not isinstance(policy, str) or not policy:
            raise PolicyError(f"{path}: check[{i}].policy must be the path of a policy file")
        policy_path = (root / policy).resolve()
        if not policy_path.is_file():
            raise PolicyError(
                f"{path}: check[{i}].policy file not found (paths are relative to {root})"
            )
        rules.append(Rule(tuple(f.removeprefix("./") for f in files), policy_path))
    return HookConfig(root, tuple(rules), path)


def _relative(path: Path, root: Path) -> str | None:
    try:
        return path.resolve().relative_to(root).as_posix()
    except ValueError:
        return None


def assign(files: list[Path], config: HookConfig) -> list[tuple[Path, list[Rule]]]:
    """Each file with the rules that apply to it (files outside the config's folder match none);
    a policy several rules assign to a file is checked once."""
    out = []
    for f in files:
        rel = _relative(f, config.root)
        rules: dict[Path, Rule] = {}
        for r in config.rules:
            if rel is not None and r.policy not in rules and r.matches(rel):
                rules[r.policy] = r
        out.append((f, list(rules.values())))
    return out


def all_files(config: HookConfig) -> list[Path]:
    """Every existing file some rule matches (``privcheck hook`` without file arguments): one
    walk of the config's folder (symbolic links to folders are not followed), skipping the
    folders no glob can reach."""
    globs = [compile_glob(g) for rule in config.rules for g in rule.globs]
    found: list[Path] = []

    def unreadable(exc: OSError) -> None:
        raise DataError(
            f"cannot read the folder {exc.filename} under {config.root}: {exc.strerror}; the "
            "hook must see every file its globs may match (fix the permissions, or name the "
            "files to check)"
        )

    for folder, subfolders, names in os.walk(config.root, onerror=unreadable):
        here = Path(folder).relative_to(config.root).as_posix()
        here = "" if here == "." else here
        subfolders[:] = sorted(
            d
            for d in subfolders
            if any(g.may_match_below(f"{here}/{d}" if here else d) for g in globs)
        )
        for name in names:
            relative = f"{here}/{name}" if here else name
            path = Path(folder) / name
            if any(g.fullmatch(relative) for g in globs) and path.is_file():
                found.append(path)
    return sorted(found)


def refuse_unreadable_folders(config: HookConfig) -> None:
    """PolicyError naming a folder a rule's glob reaches but the user cannot list: globbing
    skips it without a word, and the hook would then pass without checking the files in it.

    Each glob is followed from its fixed leading folders (``releases/`` of
    ``releases/**/*.csv``) as deep as it reaches: every level below for ``**``, else as many
    levels as it has parts."""
    import os

    for rule in config.rules:
        for glob in rule.globs:
            parts = glob.split("/")
            fixed = 0
            while fixed < len(parts) - 1 and not any(c in parts[fixed] for c in "*?["):
                fixed += 1
            top = config.root.joinpath(*parts[:fixed])
            depth = None if "**" in glob else len(parts) - fixed - 1
            if not top.is_dir() and not os.path.lexists(top):
                continue
            for folder, subfolders, _ in os.walk(top, onerror=_unreadable(glob, config.root)):
                level = len(Path(folder).relative_to(top).parts)
                if depth is not None and level >= depth:
                    subfolders.clear()


def _unreadable(glob: str, root: Path):
    def refuse(exc: OSError) -> None:
        where = _relative(Path(exc.filename), root) or exc.filename
        raise PolicyError(
            f"cannot list the folder {where} ({exc.strerror}), which the glob {glob!r} reaches: "
            "its files would go unchecked; fix its permissions or narrow the glob"
        )

    return refuse


def summary_line(report: Report) -> str:
    """The models in one phrase: what failed (achieved vs required, violators) or that all hold."""
    parts = []
    for m in report.models:
        req = requirement(m.model, m.params)
        bound = f" (required {SIGNS[req[1]]} {_fmt(req[0])})" if req else ""
        if m.passed:
            parts.append(f"{m.model} ok: {m.statistic} {_fmt(m.value)}{bound}")
        else:
            parts.append(
                f"{m.model} ({_params(m.params)}) VIOLATED: {m.statistic} {_fmt(m.value)}{bound}, "
                f"{m.violating_classes} classes / {m.violating_records} records violate"
            )
    parts = [*(f.upper()[:1] + f[1:] for f in report.findings()), *parts]
    if report.draft:
        parts.insert(0, draft_note(report.open_reviews))
    return "; ".join(parts) if parts else "no models"


def run_hook(
    files: list[Path],
    config_path: Path | None = None,
    *,
    github: bool = False,
    echo=print,
    echo_error=None,
    allow_draft: bool = False,
) -> int:
    """Check ``files`` (all matched files when empty); print one line each; return the exit code.

    Verdicts go to ``echo`` (stdout), bad input to ``echo_error`` (stderr): a file that cannot be
    checked, a broken policy or config. With ``github`` a bad file is also annotated on stdout,
    where Actions reads workflow commands.

    A draft policy (columns still marked ``review:``) is refused once, in one line naming its
    columns, and none of its files is checked (exit 2) — unless ``allow_draft``, when each
    file's line says the policy is a draft."""
    from privcheck.messages import draft_message
    from privcheck.pipeline.check import check
    from privcheck.policy import load_policy

    if echo_error is None:

        def echo_error(line: str) -> None:
            print(line, file=sys.stderr)

    try:
        config = load_config(config_path or find_config())
    except PrivcheckError as exc:
        echo_error(f"privcheck: error: {exc}")
        return 2
    if not files:
        try:
            refuse_unreadable_folders(config)
        except PrivcheckError as exc:
            echo_error(f"privcheck: error: {exc}")
            return 2
    targets = assign(files, config) if files else assign(all_files(config), config)
    worst, checked = 0, 0
    drafts: set[Path] = set()  # policies refused as drafts: said once, their files skipped
    for rule in dict.fromkeys(r for _, rules in targets for r in rules):
        try:
            policy = load_policy(rule.policy)
        except PrivcheckError:
            continue  # (said per file, below)
        if policy.is_draft and not allow_draft:
            drafts.add(rule.policy)
            where = _relative(rule.policy, config.root) or str(rule.policy)
            message = draft_message(policy.open_reviews, where)
            if github:
                title = escape_property("privcheck: draft policy")
                echo(f"::error title={title}::{escape_data(message)}")
            echo_error(f"privcheck: error: {message}")
            worst = 2
    for path, rules in targets:
        shown = _relative(path, config.root) or str(path)
        for rule in rules:
            if rule.policy in drafts:
                continue
            checked += 1
            policy = _relative(rule.policy, config.root) or str(rule.policy)
            try:
                report = check(path, rule.policy, details=False, allow_draft=allow_draft)
            except PrivcheckError as exc:
                if github:
                    echo(
                        f"::error file={escape_property(shown)},title=privcheck: bad input::"
                        f"{escape_data(str(exc))}"
                    )
                echo_error(f"{shown}: ERROR ({policy}): {exc}")
                worst = 2
                continue
            if github:
                echo(github_annotations(report, shown).rstrip("\n"))
            else:
                verdict = "passed" if report.passed else "FAILED"
                echo(f"{shown}: {verdict} ({policy}): {summary_line(report)}")
            if not report.passed:
                worst = max(worst, 1)
    if checked == 0 and not github and not drafts:
        echo(f"privcheck: no file matched the rules of {config.source.name}; nothing checked")
    return worst
