"""``privcheck schema`` on every kind of output path keeps the contract: exit 0 or 2, one line
for 2 and nothing written, no special file replaced; a schema it writes is valid JSON that
accepts the fuzz's valid policy (the policy schema) — written where asked, or to the
documented default ``schemas/`` folder of the working folder."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import jsonschema
from hypothesis import given
from hypothesis import strategies as st

from tests.fuzz.harness import assert_contract, fuzz_settings
from tests.fuzz.inputs import PATH_KINDS, POLICY, special_path


@fuzz_settings(25)
@given(case=st.data())
def test_schema_keeps_the_contract(case):
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        verdict = case.draw(st.booleans(), label="--verdict")
        args: list[object] = ["schema", *(["--verdict"] if verdict else [])]
        kind = case.draw(
            st.sampled_from(
                [None, "-", *PATH_KINDS, "existing", "schemas is a file", "schemas is a fifo"]
            ),
            label="output",
        )
        name = case.draw(st.sampled_from(["s.json", "s.txt", "s", ".s.json"]), label="name")
        outputs, outside = [], []
        written: Path | None = None
        if kind is None or kind.startswith("schemas is"):  # the documented default folder
            if kind == "schemas is a file":
                (folder / "schemas").write_text("not a folder\n")
            elif kind == "schemas is a fifo":
                special_path(folder, "fifo", "schemas")
            else:
                outputs.append(folder / "schemas")
            default = "verdict.schema.json" if verdict else "policy.schema.json"
            written = folder / "schemas" / default
        elif kind == "-":
            args += ["-o", "-"]
        else:
            if kind == "existing":  # a file schema may replace (its own earlier output)
                path = folder / name
                path.write_text("{}\n")
            else:
                path = special_path(folder, kind, name)
            if path == Path("/dev/null"):
                outside.append(path)
            if kind in ("missing", "empty", "existing"):
                outputs.append(path)
            args += ["-o", path]
            written = path
        run = assert_contract(folder, args, outputs=outputs, outside=outside)
        assert run.code in (0, 2), run.describe()
        if run.code == 0:
            text = run.out if kind == "-" else written.read_text(encoding="utf-8")
            schema = json.loads(text)
            jsonschema.Draft202012Validator.check_schema(schema)
            if not verdict:
                jsonschema.validate(POLICY, schema)
