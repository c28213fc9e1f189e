"""Load a released model from a file without running code the file carries.

A pickle (and joblib, which is pickle with numpy arrays alongside) is a program: unpickling calls
whatever ``__reduce__`` the file names, so a "model" handed to a pre-release gate could run its
code on the gate's machine before any check looks at it. So a model file is read with skops's
secure format by default (``skops.io.dump`` / ``.skops``): the file is a zip of a JSON schema
and arrays, and ``skops.io.load`` builds only types it trusts (scikit-learn estimators, numpy,
…). A skops file naming other types is refused with their names, and a pickle or joblib file is
refused *before a byte of it is unpickled* — recognised by its content (the pickle protocol
header, or a compressed stream whose first bytes are one, as joblib writes), not by its name.

``trust=True`` (``privcheck risk --trust-model-file``) is the explicit opt-in for a file whose
origin the user vouches for: a pickle/joblib file is then loaded with ``joblib.load`` (which
runs its code — that is what trusting it means) and a skops file with every type it names.
"""

from __future__ import annotations

import bz2
import lzma
import pickletools
import re
import zipfile
import zlib
from pathlib import Path
from typing import Any

from privcheck.errors import DataError, PolicyError
from privcheck.limits import COMPRESSION_RATIO, MODEL_FILE_BYTES

#: the option (and API keyword) that opts in to loading a pickle: quoted in every refusal
OPT_IN = "--trust-model-file (Python: trust_model_file=True)"

#: how to write a model privcheck loads without trusting it
SAVE_WITH_SKOPS = "save the model with skops (skops.io.dump(model, 'model.skops'))"

#: bytes read to recognise a pickle inside a compressed stream (joblib's compressors)
_HEAD = 64
#: bytes of a file scanned for a headerless (protocol 0/1) pickle
_SCAN = 1 << 20
#: members of a skops zip up to this size are not held to ``COMPRESSION_RATIO`` (a schema of
#: repeated keys compresses well, and a small member cannot inflate to much)
_RATIO_FREE = 1 << 20


def _pickle_header(head: bytes) -> bool:
    """Whether ``head`` starts a pickle: the PROTO opcode of protocols 2–5 (what pickle and
    joblib write by default), or — protocols 0 and 1 have no header — opcodes that
    ``pickletools.genops`` (which only decodes, never executes) reads up to a STOP.

    Only the wording of a refusal rests on this: without the opt-in, nothing but a skops file
    is ever loaded, so a pickle this misses is refused all the same."""
    if len(head) >= 2 and head[0] == 0x80 and 2 <= head[1] <= 5:
        return True
    try:
        return any(op.name == "STOP" for op, _arg, _pos in pickletools.genops(head))
    except Exception:  # not a pickle (or one longer than the bytes read)
        return False


def _decompressed_head(data: bytes) -> tuple[str, bytes] | None:
    """The first bytes of a compressed stream, by the magic numbers of joblib's compressors."""
    try:
        if data[:2] == b"\x1f\x8b":
            return "gzip", zlib.decompressobj(wbits=31).decompress(data, _HEAD)
        if data[:2] == b"ZF":  # joblib < 0.10's container: "ZF", a 19-byte length, zlib
            return "zlib", zlib.decompressobj().decompress(data[21:], _HEAD)
        if data[:1] == b"\x78" and data[1:2] in (b"\x01", b"\x5e", b"\x9c", b"\xda"):
            return "zlib", zlib.decompressobj().decompress(data, _HEAD)
        if data[:3] == b"BZh":
            return "bz2", bz2.BZ2Decompressor().decompress(data, _HEAD)
        if data[:6] == b"\xfd7zXZ\x00":
            return "xz", lzma.LZMADecompressor().decompress(data, _HEAD)
        if data[:3] == b"\x5d\x00\x00":
            return "lzma", lzma.LZMADecompressor(lzma.FORMAT_ALONE).decompress(data, _HEAD)
        if data[:4] == b"\x04\x22\x4d\x18":
            import lz4.frame  # optional in joblib; only a file that is lz4 gets here

            return "lz4", lz4.frame.LZ4FrameDecompressor().decompress(data, _HEAD)
    except Exception:  # not a valid stream of that kind: not a pickle either
        return None
    return None


def pickle_kind(path: Path) -> str | None:
    """The file as a refusal names it ("a pickle/joblib file", "a pickle/joblib file
    (gzip-compressed)", …) when its content is a pickle, else None."""
    with path.open("rb") as fh:
        data = fh.read(_SCAN)
    if _pickle_header(data):
        return "a pickle/joblib file"
    inner = _decompressed_head(data)
    if inner is not None and _pickle_header(inner[1]):
        return f"a pickle/joblib file ({inner[0]}-compressed)"
    return None


def _is_skops(path: Path) -> bool:
    if not zipfile.is_zipfile(path):
        return False
    try:
        with zipfile.ZipFile(path) as zf:
            return "schema.json" in zf.namelist()
    except (zipfile.BadZipFile, OSError):
        return False


def bound_zip(path: Path) -> None:
    """Refuse a skops file (a zip) that would inflate beyond ``MODEL_FILE_BYTES`` in all, or
    one of whose members bigger than 1 MiB is compressed more than ``COMPRESSION_RATIO`` times,
    from the sizes its central directory declares — before a byte is inflated. (Python's zip
    reader stops a member at its declared size, so the declaration is a bound: a member that
    lies about it fails its CRC instead of growing.) Members are named by position, not by the
    names the file gives them."""
    try:
        with zipfile.ZipFile(path) as zf:
            members = zf.infolist()
    except (zipfile.BadZipFile, OSError, ValueError) as exc:
        raise DataError(f"cannot read the skops model file {path}: {_first_line(exc)}") from None
    MODEL_FILE_BYTES.check(
        sum(m.file_size for m in members),
        f"skops model file {path} declares that it inflates to",
        "is it a model file? (a zip bomb declares gigabytes)",
    )
    for i, member in enumerate(members):
        if member.file_size > _RATIO_FREE:
            ratio = member.file_size // max(member.compress_size, 1)
            COMPRESSION_RATIO.check(
                ratio,
                f"member {i + 1} of skops model file {path} ({member.file_size:,} bytes from "
                f"{member.compress_size:,}) is compressed",
                "is it a model file? (a zip bomb compresses about 1,000 times)",
            )


def _skops():
    try:
        import skops.io as sio
    except ImportError:
        raise PolicyError(
            "loading a model file needs skops, which is not installed: "
            "pip install 'privcheck[risk]' (or pip install skops)"
        ) from None
    return sio


def _pickle_refusal(path: Path, kind: str) -> DataError:
    return DataError(
        f"model file {path} is {kind}: loading it would run any code it carries; "
        f"{SAVE_WITH_SKOPS}, or pass {OPT_IN} if the file is trusted"
    )


def load_model_file(path: str | Path, *, trust: bool = False) -> Any:
    """The estimator stored in ``path``: a skops file of trusted types, or — only with
    ``trust`` — any skops or pickle/joblib file. See the module docstring."""
    path = Path(path)
    if not path.is_file():
        raise DataError(f"model file {path} does not exist; {SAVE_WITH_SKOPS} and give its path")
    kind = pickle_kind(path)
    if kind is not None:
        if not trust:
            raise _pickle_refusal(path, kind)
        return _load_trusted_pickle(path)
    if not _is_skops(path):
        if trust:  # a pickle this sniffing does not know (an old joblib container …)
            return _load_trusted_pickle(path)
        raise DataError(
            f"model file {path} is not a skops file (a zip with schema.json) nor a pickle; "
            f"{SAVE_WITH_SKOPS}"
        )
    bound_zip(path)
    sio = _skops()
    try:
        untrusted = list(sio.get_untrusted_types(file=path))
    except Exception as exc:  # any reason the schema cannot be read
        raise DataError(f"cannot read the skops model file {path}: {_first_line(exc)}") from None
    if untrusted and not trust:
        raise DataError(
            f"skops model file {path} holds types skops does not trust by default: "
            f"{', '.join(map(_type_name, untrusted))}; pass {OPT_IN} if the file is trusted (or "
            "save a model built only of trusted types)"
        )
    try:
        return sio.load(path, trusted=untrusted or None)
    except Exception as exc:  # a corrupt or incompatible file
        raise DataError(f"cannot load the skops model file {path}: {_first_line(exc)}") from None


def _load_trusted_pickle(path: Path) -> Any:
    """joblib.load (which also reads a plain pickle): runs the file's code, by the opt-in."""
    import joblib

    try:
        return joblib.load(path)
    except Exception as exc:  # whatever the file's code raised
        raise DataError(f"cannot load a model from {path}: {_first_line(exc)}") from None


def _first_line(exc: BaseException) -> str:
    """The first line of a loader's message, without any quoted text that is not a name: a
    model file is not a policy, and its content is never echoed (``privcheck.messages``)."""
    from privcheck.messages import scrub

    text = str(exc).strip()
    return scrub(text.splitlines()[0]) if text else type(exc).__name__


#: a Python type's dotted name, as skops lists the types a file names
_DOTTED = re.compile(r"[A-Za-z_][\w]*(?:\.[A-Za-z_][\w]*)*")


def _type_name(name: str) -> str:
    """A type the file names, shown when it is a dotted Python name (what the user must judge
    before trusting it), else a placeholder: the file's text is not echoed."""
    return name if len(name) <= 200 and _DOTTED.fullmatch(name) else "(a name that is not a type)"
