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
within one folder, ``**/`` spans any number of folders.
"""

from __future__ import annotations

import re
import sys
import tomllib
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from privcheck.errors import PolicyError, PrivcheckError
from privcheck.io import read_text_file
from privcheck.report import Report, _fmt, _params, requirement

CONFIG_NAMES = ("privcheck.toml", "pyproject.toml")
_OPS = {">=": "≥", "<=": "≤", "<": "<"}


@dataclass(frozen=True)
class Rule:
    """Files matching any of ``globs`` must satisfy ``policy``."""

    globs: tuple[str, ...]
    policy: Path

    def matches(self, relative: str) -> bool:
        return any(glob_regex(g).fullmatch(relative) for g in self.globs)


@dataclass(frozen=True)
class HookConfig:
    root: Path
    rules: tuple[Rule, ...]
    source: Path


@cache
def glob_regex(glob: str) -> re.Pattern[str]:
    """A path glob as a regex: ``**/`` any folders, ``*`` / ``?`` within one folder, ``[..]``."""
    out, i = [], 0
    while i < len(glob):
        c = glob[i]
        if glob.startswith("**/", i):
            out.append("(?:[^/]*/)*")
            i += 3
        elif glob.startswith("**", i):
            out.append(".*")
            i += 2
        elif c == "*":
            out.append("[^/]*")
            i += 1
        elif c == "?":
            out.append("[^/]")
            i += 1
        elif c == "[":
            end = glob.find("]", i + 1)
            if end < 0:
                out.append(re.escape(c))
                i += 1
            else:
                body = glob[i + 1 : end].replace("\\", "\\\\")
                if body.startswith("!"):
                    body = "^" + body[1:]
                out.append(f"[{body}]")
                i = end + 1
        else:
            out.append(re.escape(c))
            i += 1
    return re.compile("".join(out))


def find_config(start: Path | None = None) -> Path:
    """``privcheck.toml`` (or a ``pyproject.toml`` with ``[tool.privcheck]``) in ``start``."""
    folder = (start or Path.cwd()).resolve()
    for name in CONFIG_NAMES:
        path = folder / name
        if path.is_file() and (
            name != "pyproject.toml" or "tool.privcheck" in read_text_file(path, "config file")
        ):
            return path
    raise PolicyError(
        f"no privcheck.toml in {folder}; create one mapping file globs to policies, e.g. "
        '[[check]] files = ["releases/*.csv"] policy = "policy.yaml"'
    )


def load_config(path: Path) -> HookConfig:
    """Read and validate the hook's config file."""
    text = read_text_file(path, "config file")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise PolicyError(f"config file {path} is not valid TOML: {exc}") from None
    except RecursionError:  # tomllib recurses per nesting level
        raise PolicyError(
            f"config file {path} is nested too deeply for a config file; flatten it"
        ) from None
    if path.name == "pyproject.toml":
        data = data.get("tool", {}).get("privcheck", {})
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
            raise PolicyError(f"{path}: check[{i}] has unknown key {unknown[0]!r}")
        files, policy = entry.get("files"), entry.get("policy")
        if isinstance(files, str):
            files = [files]
        if not files or not all(isinstance(f, str) and f for f in files):
            raise PolicyError(f"{path}: check[{i}].files must be a glob or a list of globs")
        if not isinstance(policy, str) or not policy:
            raise PolicyError(f"{path}: check[{i}].policy must be the path of a policy file")
        policy_path = (root / policy).resolve()
        if not policy_path.is_file():
            raise PolicyError(f"{path}: check[{i}].policy file not found: {policy}")
        rules.append(Rule(tuple(f.removeprefix("./") for f in files), policy_path))
    return HookConfig(root, tuple(rules), path)


def _relative(path: Path, root: Path) -> str | None:
    try:
        return path.resolve().relative_to(root).as_posix()
    except ValueError:
        return None


def assign(files: list[Path], config: HookConfig) -> list[tuple[Path, list[Rule]]]:
    """Each file with the rules that apply to it (files outside the config's folder match none)."""
    out = []
    for f in files:
        rel = _relative(f, config.root)
        rules = [r for r in config.rules if rel is not None and r.matches(rel)]
        out.append((f, rules))
    return out


def all_files(config: HookConfig) -> list[Path]:
    """Every existing file some rule matches (``privcheck hook`` without file arguments)."""
    found: set[Path] = set()
    for rule in config.rules:
        for glob in rule.globs:
            found.update(p for p in config.root.glob(glob) if p.is_file())
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
        bound = f" (required {_OPS[req[1]]} {_fmt(req[0])})" if req else ""
        if m.passed:
            parts.append(f"{m.model} ok: {m.statistic} {_fmt(m.value)}{bound}")
        else:
            parts.append(
                f"{m.model} ({_params(m.params)}) VIOLATED: {m.statistic} {_fmt(m.value)}{bound}, "
                f"{m.violating_classes} classes / {m.violating_records} records violate"
            )
    parts = [*(f.upper()[:1] + f[1:] for f in report.findings()), *parts]
    return "; ".join(parts) if parts else "no models"


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def github_annotations(report: Report, file: str | None) -> str:
    """GitHub Actions workflow commands: one ``::error`` per violated model, else a notice."""
    where = f"file={_escape_property(file)}," if file else ""
    lines = []
    for m in report.models:
        req = requirement(m.model, m.params)
        bound = f" (required {_OPS[req[1]]} {_fmt(req[0])})" if req else ""
        msg = f"{m.model} ({_params(m.params)}): {m.statistic} {_fmt(m.value)}{bound}"
        if m.passed:
            continue
        msg += f"; {m.violating_classes} classes / {m.violating_records} records violate it"
        title = _escape_property(f"privcheck: {m.model} violated")
        lines.append(f"::error {where}title={title}::{_escape_data(msg)}")
    for finding in report.findings():
        title = _escape_property("privcheck: release integrity")
        lines.append(f"::error {where}title={title}::{_escape_data(finding)}")
    if not lines:
        title = _escape_property("privcheck: policy holds")
        lines.append(
            f"::notice {where}title={title}::"
            + _escape_data(f"{len(report.models)} models hold on {report.n_records} records")
        )
    return "\n".join(lines) + "\n"


def run_hook(
    files: list[Path],
    config_path: Path | None = None,
    *,
    github: bool = False,
    echo=print,
    echo_error=None,
) -> int:
    """Check ``files`` (all matched files when empty); print one line each; return the exit code.

    Verdicts go to ``echo`` (stdout), bad input to ``echo_error`` (stderr): a file that cannot be
    checked, a broken policy or config. With ``github`` a bad file is also annotated on stdout,
    where Actions reads workflow commands."""
    from privcheck.checker import check

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
    for path, rules in targets:
        shown = _relative(path, config.root) or str(path)
        for rule in rules:
            checked += 1
            policy = _relative(rule.policy, config.root) or str(rule.policy)
            try:
                report = check(path, rule.policy, details=False)
            except PrivcheckError as exc:
                if github:
                    echo(
                        f"::error file={_escape_property(shown)},title=privcheck: bad input::"
                        f"{_escape_data(str(exc))}"
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
    if checked == 0 and not github:
        echo(f"privcheck: no file matched the rules of {config.source.name}; nothing checked")
    return worst
