"""Errors name, never quote: a file named in the wrong place — a secrets file or an /etc/shadow
look-alike given as the policy, the transformation, the tags, the hook's config, the previous
report or the data — is refused in one line naming the file and the key or its line and column,
and the fake secret it holds appears nowhere in stdout or stderr (GitHub annotations included)."""

from __future__ import annotations

import hashlib
import json
import subprocess
from pathlib import Path

import pytest
from pydantic import BaseModel, ConfigDict, ValidationError

from privcheck.errors import PolicyError
from privcheck.messages import describe_path, first_error, is_name, locate, scrub, shown_key
from privcheck.policy import load_policy

ROOT = Path(__file__).resolve().parent.parent
ADULT = ROOT / "privcheck" / "data" / "adult"
SECRET = "S3CRET-sk_live_9f8e7d6c5b4a"
#: an /etc/shadow look-alike: each line ends in ':::' so YAML reads it as a key
SHADOW = f"root:$6${SECRET}:19700:0:99999:7:::\ndaemon:*:19700:0:99999:7:::\n"


def test_names_are_shown_and_credentials_are_not():
    for name in ("age", "native-country", "Zip code", "models", "e-mail (work)", 5, 0.5, True):
        assert is_name(name)
    for text in (f"root:$6${SECRET}:1::", "API_KEY=x", "a: b", '"quoted"', " padded", "x" * 65):
        assert not is_name(text)
    assert shown_key("age") == "'age'"
    assert SECRET not in shown_key(f"root:$6${SECRET}:1::")


def test_scrub_keeps_names_and_single_characters():
    assert scrub("found character '\\t' that cannot start any token") == (
        "found character '\\t' that cannot start any token"
    )
    assert scrub("the key 'age' appears twice") == "the key 'age' appears twice"
    scrubbed = scrub(f"could not determine a constructor for the tag '!{SECRET}:$'")
    assert SECRET not in scrubbed and "(text not shown)" in scrubbed


def test_locate_follows_keys_and_list_positions():
    text = "a:\n  b: [1, 2]\n  'c:$d': {e: 1}\n"
    assert locate(text, ["a", "b", 1]) == (2, 10)
    assert locate(text, ["a", "c:$d"]) == (3, 3)
    assert locate(text, ["a", "zz"]) is None
    assert locate("{not: [valid", ["not"]) is None  # a text that does not parse: no position
    assert locate('{"x": {"y:$": 1}}', ["x", "y:$"]) == (1, 8)  # JSON read as YAML


def test_describe_path_gives_a_key_that_is_no_name_by_its_position():
    text = f"{SHADOW}"
    key = f"root:$6${SECRET}:19700:0:99999:7::"
    assert describe_path(["models", 0, "k"]) == "models[0].k"
    assert describe_path([key], text) == "<key on line 1, column 1>"
    assert describe_path([key]) == "<key>"


class _Strict(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid")
    k: int = 1
    top: bool = True


@pytest.mark.parametrize(
    "data, show_numbers, expected",
    [
        ({"k": "5"}, True, "k: Input should be a valid integer; got a string"),
        ({"k": 5.0}, True, "k: Input should be a valid integer; got 5.0"),
        ({"k": 5.0}, False, "k: Input should be a valid integer; got a number"),
        ({"k": True}, True, "k: Input should be a valid integer; got True"),
        ({"k": [1]}, True, "k: Input should be a valid integer; got a list"),
        ({"api_key": SECRET}, True, "api_key: unknown key"),
    ],
)
def test_first_error_never_quotes_text(data, show_numbers, expected):
    with pytest.raises(ValidationError) as info:
        _Strict.model_validate(data)
    message = first_error(info.value, "", show_numbers=show_numbers)
    assert message.startswith(expected), message
    assert SECRET not in message


# --------------------------------------------------------------------------- the CLI


#: files that are not what a command expects, each holding SECRET
WRONG_FILES = {
    "shadow": SHADOW,
    "shadow.json": SHADOW,
    "secrets.yaml": f"api_key: {SECRET}\npassword: {SECRET}\n",
    "secrets.json": json.dumps({"token": SECRET, "nested": {"k": SECRET}}),
    "dotenv": f"API_KEY={SECRET}\nDB_PASSWORD={SECRET}\n",
    "secrets.toml": f'token = "{SECRET}"\n[db]\npassword = "{SECRET}"\n',
    "broken.yaml": f"key: [{SECRET}\n",
    "broken.json": f'{{"token": "{SECRET}",}}',
    "tagged.yaml": f"!{SECRET} x\n",
    "shadow.csv": SHADOW,
    "ragged.csv": f"a,b\n1,2\n{SECRET},3,4\n",
    "header.csv": f"root:$6${SECRET}:1,b,c\n1,2,3\n",
}


def _run(*args: object, cwd: Path) -> subprocess.CompletedProcess:
    from tests.conftest import run_cli

    return run_cli(*map(str, args), cwd=cwd)


def _digests(folder: Path) -> dict[str, str]:
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


@pytest.mark.parametrize("name", sorted(WRONG_FILES))
def test_no_command_echoes_a_file_named_in_the_wrong_place(tmp_path, name):
    path = tmp_path / name
    path.write_text(WRONG_FILES[name])
    data = tmp_path / "d.csv"  # Adult's first 60 records: the demo policy fits them
    data.write_text("".join((ADULT / "adult.csv").read_text().splitlines(True)[:61]))
    policy = ADULT / "policy.yaml"
    commands = [
        ("check", data, "-p", path),
        ("check", data, "-p", path, "-f", "github"),
        ("apply", data, "-t", path, "-p", policy, "-o", tmp_path / "out.csv"),
        ("init", data, "--tags", path, "-o", tmp_path / "p.yaml"),
        ("anonymize", data, "-p", policy, "--previous", path, "-o", tmp_path / "out.csv"),
        ("hook", "-c", path, "-f", "github", data),
    ]
    if name.endswith(".csv"):  # the file as the data
        commands += [
            ("check", path, "-p", policy),
            ("compare", data, path, "-p", policy),
            ("anonymize", path, "-p", policy, "-o", tmp_path / "out.csv"),
            ("risk", "--original", path, "--masked", path, "-p", policy, "-a", "dbrl"),
            ("check", "--graph", path, "-p", policy),
        ]
    else:  # the hook's config naming the file as the policy: its annotation too
        config = tmp_path / "hook.toml"
        config.write_text(f'[[check]]\nfiles = ["d.csv"]\npolicy = "{name}"\n')
        commands.append(("hook", "-c", config, "-f", "github", data))
    before = _digests(tmp_path)
    for command in commands:
        res = _run(*command, cwd=tmp_path)
        shown = res.stdout + res.stderr
        assert SECRET not in shown, (command, shown)
        assert res.returncode == 2, (command, shown)
        assert "Traceback" not in shown, (command, shown)
        assert len(res.stderr.strip().splitlines()) == 1, (command, res.stderr)
    assert _digests(tmp_path) == before  # nothing written, every input unchanged


def test_a_policy_file_that_is_no_policy_is_located_not_quoted(tmp_path):
    shadow = tmp_path / "shadow"
    shadow.write_text(SHADOW)
    with pytest.raises(PolicyError) as info:
        load_policy(shadow)
    message = str(info.value)
    assert message.startswith(f"invalid policy file {shadow}: <key on line 1, column 1>: unknown")
    assert SECRET not in message
    secrets = tmp_path / "s.yaml"
    secrets.write_text(f"api_key: {SECRET}\n")
    with pytest.raises(PolicyError, match=r"s\.yaml: api_key: unknown key") as info:
        load_policy(secrets)
    assert SECRET not in str(info.value)
