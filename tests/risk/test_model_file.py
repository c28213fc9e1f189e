"""A model file is loaded without running code: skops by default, pickle/joblib only by opt-in.

The attack file is a real one: a pickle whose ``__reduce__`` makes the unpickler call
``open(marker, "w")``, i.e. run code of the file's choosing. Without ``--trust-model-file`` the
marker must never appear (the file is refused, in one line, before any byte is unpickled);
with it, it does — that is what trusting a file means. The oracle of the pickle sniffing is
Python's own ``pickle`` and ``joblib`` writing every protocol and compressor.
"""

from __future__ import annotations

import json
import pickle
import zipfile
from pathlib import Path

import joblib
import numpy as np
import pandas as pd
import pytest
import skops.io as sio
import yaml
from sklearn.compose import make_column_transformer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder
from sklearn.tree import DecisionTreeClassifier

from privcheck.errors import DataError, PolicyError
from privcheck.io import read_table
from privcheck.risk.model_file import load_model_file, pickle_kind
from privcheck.risk.synthetic.membership import membership_inference
from tests.test_cli import assert_one_line_error

ADULT = Path(__file__).resolve().parents[2] / "privcheck" / "data" / "adult" / "adult.csv"
TARGET = "salary-class"


class Planted:
    """What an attacker hands over as a "model": unpickling it opens (creates) ``marker``."""

    def __init__(self, marker: Path) -> None:
        self.marker = str(marker)

    def __reduce__(self):
        return (open, (self.marker, "w"))


def plant(path: Path, marker: Path, *, protocol: int = pickle.HIGHEST_PROTOCOL) -> Path:
    path.write_bytes(pickle.dumps(Planted(marker), protocol=protocol))
    return path


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """3,000 Adult rows, the first 1,000 the release (a model's training data), a policy."""
    folder = tmp_path_factory.mktemp("model")
    full = pd.read_csv(ADULT, sep=";").sample(3000, random_state=0).reset_index(drop=True)
    full.to_csv(folder / "orig.csv", index=False)
    full.iloc[:1000].to_csv(folder / "rel.csv", index=False)
    full.iloc[1000:].to_csv(folder / "ctl.csv", index=False)  # the control set: never trained on
    (folder / "p.yaml").write_text(
        yaml.safe_dump({"attributes": {"age": {"role": "quasi_identifier"}}})
    )
    return folder, full


def _fitted(full: pd.DataFrame, learner) -> object:
    release = full.iloc[:1000]
    feats = [c for c in full.columns if c != TARGET]
    return make_pipeline(
        make_column_transformer((OneHotEncoder(handle_unknown="ignore"), feats)), learner
    ).fit(release[feats], release[TARGET])


def _risk(cli, folder: Path, model: Path, *extra):
    return cli(
        "risk",
        "--original",
        folder / "orig.csv",
        "--masked",
        folder / "rel.csv",
        "--policy",
        folder / "p.yaml",
        "--control",
        folder / "ctl.csv",
        "--attack",
        "membership-inference",
        "--param",
        f"target={TARGET}",
        "--param",
        f"model={model}",
        "--param",
        "n_repeats=2",
        *extra,
    )


# --------------------------------------------------------------------------- the attack file


@pytest.mark.parametrize("name", ["model.joblib", "model.pkl", "model.skops", "model.csv"])
def test_planted_pickle_is_refused_before_it_runs(cli, tmp_path, files, name):
    """Whatever its name (even .skops), a pickle is refused by its content: exit 2, one line
    that says it is a pickle, that loading it runs its code, and the two ways out."""
    folder, _ = files
    marker = tmp_path / "ran"
    model = plant(tmp_path / name, marker)
    before = model.read_bytes()
    res = _risk(cli, folder, model)
    assert_one_line_error(
        res, "is a pickle/joblib file", "would run any code", "skops", "--trust-model-file"
    )
    assert res.stdout == ""
    assert not marker.exists()
    assert model.read_bytes() == before


def test_planted_pickle_runs_with_the_opt_in(cli, tmp_path, files):
    """--trust-model-file means "run this file": the marker appears (then the 'model', a file
    object, has no predict_proba)."""
    folder, _ = files
    marker = tmp_path / "ran"
    res = _risk(cli, folder, plant(tmp_path / "model.joblib", marker), "--trust-model-file")
    assert marker.exists()
    assert_one_line_error(res, "predict_proba")


@pytest.mark.parametrize("protocol", range(pickle.HIGHEST_PROTOCOL + 1))
def test_every_pickle_protocol_is_refused_without_unpickling(tmp_path, monkeypatch, protocol):
    """Protocols 0 and 1 have no header; all six are recognised, and nothing is unpickled: the
    unpicklers pickle and joblib offer are replaced by traps."""
    marker = tmp_path / "ran"
    model = plant(tmp_path / "m.bin", marker, protocol=protocol)

    def trap(*args, **kwargs):
        raise AssertionError("a byte of the file was unpickled")

    for name in ("load", "loads", "Unpickler"):
        monkeypatch.setattr(pickle, name, trap)
    monkeypatch.setattr(joblib, "load", trap)
    with pytest.raises(DataError, match="is a pickle/joblib file: loading it would run"):
        load_model_file(model)
    assert not marker.exists()


@pytest.mark.parametrize("compress", [None, "zlib", "gzip", "bz2", "xz", "lzma"])
def test_joblib_files_are_recognised_compressed_or_not(tmp_path, compress):
    """joblib.dump writes each compressor's stream; the sniffing names it and refuses it, and
    the planted object inside does not run."""
    marker = tmp_path / "ran"
    path = tmp_path / "m.joblib"
    joblib.dump(Planted(marker), path, compress=(compress, 3) if compress else 0)
    kind = pickle_kind(path)
    assert kind is not None and kind.startswith("a pickle/joblib file")
    if compress:
        assert f"({compress}-compressed)" in kind
    with pytest.raises(DataError, match="--trust-model-file"):
        load_model_file(path)
    assert not marker.exists()
    load_model_file(path, trust=True).close()  # the "model" is the file object it opened
    assert marker.exists()


def test_files_that_are_not_pickles_are_not_called_pickles(tmp_path):
    """A CSV, random bytes, an empty file and a skops zip are not pickles."""
    rng = np.random.default_rng(0)
    cases = {
        "t.csv": b"city,age\nBoston,34\nCambridge,51\n",
        "r.bin": rng.integers(0, 256, 4096, dtype=np.uint8).tobytes(),
        "e.bin": b"",
    }
    for name, content in cases.items():
        (tmp_path / name).write_bytes(content)
        assert pickle_kind(tmp_path / name) is None, name
        with pytest.raises(DataError, match="is not a skops file"):
            load_model_file(tmp_path / name)
    skops_file = tmp_path / "m.skops"
    sio.dump(LogisticRegression().fit([[0.0], [1.0]], [0, 1]), skops_file)
    assert pickle_kind(skops_file) is None
    other_zip = tmp_path / "z.skops"
    with zipfile.ZipFile(other_zip, "w") as zf:
        zf.writestr("data.pkl", pickle.dumps(Planted(tmp_path / "ran")))
    with pytest.raises(DataError, match="is not a skops file"):
        load_model_file(other_zip)
    assert not (tmp_path / "ran").exists()


def test_missing_model_file(tmp_path):
    with pytest.raises(DataError, match="does not exist"):
        load_model_file(tmp_path / "nothing.skops")


# --------------------------------------------------------------------------- skops


def test_skops_model_gives_the_figures_of_the_same_model_as_a_trusted_pickle(cli, tmp_path, files):
    """A scikit-learn pipeline saved with skops runs with no opt-in, and its report's figures
    are those of the very same model loaded from joblib under --trust-model-file."""
    folder, full = files
    model = _fitted(full, LogisticRegression(C=0.1, max_iter=1000))
    secure, trusted = tmp_path / "model.skops", tmp_path / "model.joblib"
    sio.dump(model, secure)
    joblib.dump(model, trusted)
    assert sio.get_untrusted_types(file=secure) == []
    a = _risk(cli, folder, secure, "--seed", "5", "--format", "json")
    b = _risk(cli, folder, trusted, "--seed", "5", "--format", "json", "--trust-model-file")
    assert a.returncode == 0, a.stderr
    assert b.returncode == 0, b.stderr
    ra, rb = json.loads(a.stdout), json.loads(b.stdout)
    assert ra["figures"] == rb["figures"] and ra["detail"] == rb["detail"]
    assert ra["figures"]["target_model"] == "Pipeline" and ra["figures"]["n_members"] == 1000
    # and the library computes the same from the fitted object itself, on the files as read
    orig, rel = read_table(folder / "orig.csv"), read_table(folder / "rel.csv")
    ctl = read_table(folder / "ctl.csv")
    direct = membership_inference(
        orig, rel, TARGET, model=model, control=ctl, n_repeats=2, random_state=5
    )
    assert direct["advantage_per_repeat"] == ra["figures"]["advantage_per_repeat"]


def test_skops_file_with_untrusted_types_is_refused_naming_them(cli, tmp_path, files):
    """A decision tree's node storage is a type skops does not trust by default (unchecked node
    indices): refused in one line naming it and the fix; runs with the opt-in."""
    folder, full = files
    path = tmp_path / "tree.skops"
    model = _fitted(full, DecisionTreeClassifier(random_state=0))
    sio.dump(model, path)
    untrusted = sio.get_untrusted_types(file=path)
    assert untrusted
    res = _risk(cli, folder, path)
    assert_one_line_error(res, *untrusted, "--trust-model-file")
    assert res.stdout == ""
    ok = _risk(cli, folder, path, "--trust-model-file", "--seed", "1", "--format", "json")
    assert ok.returncode == 0, ok.stderr
    orig, rel = read_table(folder / "orig.csv"), read_table(folder / "rel.csv")
    ctl = read_table(folder / "ctl.csv")
    direct = membership_inference(
        orig, rel, TARGET, model=model, control=ctl, n_repeats=2, random_state=1
    )
    figures = json.loads(ok.stdout)["figures"]
    assert figures["advantage_per_repeat"] == direct["advantage_per_repeat"]
    assert figures["loss_threshold"] == direct["loss_threshold"]


def test_python_api_keyword(tmp_path, files):
    """membership_inference(model=PATH) loads skops; a pickle needs trust_model_file=True."""
    _, full = files
    marker = tmp_path / "ran"
    planted = plant(tmp_path / "m.pkl", marker)
    with pytest.raises(DataError, match="pickle/joblib"):
        membership_inference(full, full.iloc[:1000], TARGET, model=planted)
    assert not marker.exists()
    with pytest.raises(PolicyError, match="predict_proba"):
        membership_inference(full, full.iloc[:1000], TARGET, model=planted, trust_model_file=True)
    assert marker.exists()


def test_trust_is_a_flag_not_a_param(cli, tmp_path, files):
    """--param trust_model_file=true is refused: the opt-in is the one documented flag."""
    folder, _ = files
    path = tmp_path / "m.skops"
    sio.dump(LogisticRegression().fit([[0.0], [1.0]], [0, 1]), path)
    res = _risk(cli, folder, path, "--param", "trust_model_file=true")
    assert_one_line_error(res, "no parameter 'trust_model_file'")
