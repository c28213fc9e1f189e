"""A tags file (`privcheck init --tags`) is validated strictly: a mapping of column names to a
tag or a list of tags; anything else is refused in one line naming the file and the column (by
position when the column's name is not a plain name) — never a value read from the file."""

from __future__ import annotations

import pytest

from privcheck.errors import PolicyError
from privcheck.profiling.tags import check_tags, read_tags

SECRET = "S3CRET-tag-value-77"


def test_tags_are_read_as_yaml_1_2_text(tmp_path):
    path = tmp_path / "tags.yaml"
    path.write_text("zip: [PII:Quasi-Identifier, 010]\nno: PII:Insensitive\nempty:\n")
    assert read_tags(path) == {
        "zip": ["PII:Quasi-Identifier", "010"],  # (YAML 1.1: the integer 8)
        "no": ["PII:Insensitive"],  # (YAML 1.1: the key False)
        "empty": [],
    }


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        (f"- {SECRET}\n", "must map each column to its list of tags"),
        (f"{SECRET}\n", "must map each column to its list of tags"),
        (f"1: [{SECRET}]\n", "column names must be strings; entry 1"),
        (f"email: [{SECRET}, 5]\n", "the tags of column 'email' (entry 1) must be a list"),
        (f"email: {{a: {SECRET}}}\n", "the tags of column 'email' (entry 1) must be a list"),
        (f"'root:${SECRET}:': [1]\n", "the tags of column (a key that is not a plain name"),
        (f"email: [{SECRET}\n", "is not valid YAML/JSON (line 2, column 1)"),
    ],
)
def test_a_tags_file_that_is_wrong_is_one_line_without_its_content(tmp_path, text, needle):
    path = tmp_path / "tags.yaml"
    path.write_text(text)
    with pytest.raises(PolicyError) as info:
        read_tags(path)
    message = str(info.value)
    assert message.startswith(f"tags file {path}") and needle in message, message
    assert SECRET not in message and "\n" not in message


def test_tags_given_as_a_mapping_are_checked_alike():
    assert check_tags({"a": "PII:Identifier", "b": None}) == {"a": ["PII:Identifier"], "b": []}
    with pytest.raises(PolicyError, match="got a dict") as info:
        check_tags({"a": {SECRET: 1}})
    assert SECRET not in str(info.value)


def test_tags_of_no_column_of_the_data_stop_some_absent_only_warn():
    """A few tags for columns left out of the extract are a warning; tags naming none of the
    data's columns are not this table's tags file: one line, exit 2 (issue 29 / issue 30)."""
    import pytest

    from privcheck.errors import PolicyError
    from privcheck.profiling.tags import absent_columns, require_some_present

    columns = ["age", "zip", "email"]
    require_some_present({"email": ["PII.Sensitive"], "phone": ["PII.Sensitive"]}, columns)
    assert absent_columns({"email": [], "phone": []}, columns) == ["phone"]
    with pytest.raises(PolicyError, match="none of the data's columns"):
        require_some_present({"API_KEY": ["x"], "TOKEN": ["y"]}, columns)
    require_some_present({}, columns)  # no tags at all: nothing to ignore
