"""Text encodings of data files: which one a file is read in, and one line when it does not decode.

CSV/TSV data are UTF-8 unless a command was given ``--encoding`` (``csv_encoding`` sets it for
every file the command reads); a file that is valid UTF-8 is read as UTF-8 whatever it says. A
file that does not decode is refused with the byte, its line and the likely encoding
(``encoding_error``). Used by the readers in ``privcheck.io``.
"""

from __future__ import annotations

import codecs
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path

from privcheck.errors import DataError

#: the encoding CSV/TSV data files are read in: UTF-8 (a BOM accepted) unless a command was
#: given ``--encoding`` (``csv_encoding``) or ``read_table`` an ``encoding``
_ENCODING: ContextVar[str] = ContextVar("privcheck_csv_encoding", default="utf-8")

#: bytes of a file's start read to guess its encoding when it is not UTF-8
GUESS_BYTES = 16 * 1024 * 1024


def check_encoding(name: str) -> str:
    """``name`` if Python knows it as a text encoding, else one line saying so (``rot13``,
    ``base64`` or ``zlib`` are codecs Python knows, but not of text: opening a file with one
    raises LookupError)."""
    try:
        codecs.lookup(name)
        "".encode(name)  # (a codec that is not a text encoding is refused here)
    except (LookupError, TypeError, ValueError):
        raise DataError(
            f"--encoding {name!r} is not an encoding Python knows for text; give e.g. utf-8, "
            "cp1252, latin-1 or utf-16"
        ) from None
    return name


def current_encoding() -> str:
    """The encoding data files are read in now (see ``csv_encoding``)."""
    return _ENCODING.get()


@contextmanager
def csv_encoding(name: str | None) -> Iterator[str]:
    """Within the block CSV/TSV data files are read in ``name`` (None: UTF-8): what a command's
    ``--encoding`` sets for every file it reads (the data, a population table, earlier
    releases)."""
    token = _ENCODING.set(check_encoding(name or "utf-8"))
    try:
        yield _ENCODING.get()
    finally:
        _ENCODING.reset(token)


def is_utf8(encoding: str) -> bool:
    return codecs.lookup(encoding).name in ("utf-8", "utf-8-sig")


def encoding_for(path: Path, encoding: str | None = None) -> str:
    """The encoding ``path`` is read in under ``encoding`` (default: ``current_encoding()``).

    ``--encoding`` names the encoding of the files that are not UTF-8: a file that is valid
    UTF-8 is read as UTF-8 whatever it says — privcheck's own outputs are UTF-8, so a release
    read beside a Windows-1252 original (compare, risk) needs nothing. UTF-16 and UTF-32 are
    the exception (their NUL bytes are valid UTF-8): they apply to every file."""
    encoding = encoding or current_encoding()
    if is_utf8(encoding) or codecs.lookup(encoding).name.startswith(("utf-16", "utf-32")):
        return encoding
    return "utf-8" if first_undecodable(path, "utf-8") is None else encoding


def text_codec(encoding: str) -> str:
    """The codec Python opens a data file with: UTF-8 skips a BOM."""
    return "utf-8-sig" if is_utf8(encoding) else encoding


def first_undecodable(path: Path, encoding: str) -> tuple[int, int] | None:
    """(byte offset, byte value) of the first byte of ``path`` that does not decode in
    ``encoding``, or None when the whole file decodes. Read in blocks: bounded memory."""
    decoder = codecs.getincrementaldecoder(text_codec(encoding))()
    offset = 0
    with path.open("rb") as fh:
        while True:
            block = fh.read(1 << 20)
            try:
                decoder.decode(block, final=not block)
            except UnicodeDecodeError as exc:
                held = len(exc.object) - len(block)  # bytes the decoder kept from the last block
                return offset - held + exc.start, exc.object[exc.start]
            if not block:
                return None
            offset += len(block)


def likely_encoding(head: bytes) -> str | None:
    """The encoding a file that is not UTF-8 most likely has, judged on its first bytes, when
    the bytes say so reliably: UTF-16 (a byte-order mark, or NUL bytes in every other place) or
    Windows-1252 (Western European text: it decodes, and its non-ASCII bytes stand alone
    between ASCII letters — é, ü, € — rather than in the runs a multi-byte or Cyrillic
    encoding makes). None otherwise: better no guess than a wrong one."""
    if head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return "utf-16"
    if head:
        nul_odd = head[1::2].count(0) / max(len(head) // 2, 1)
        nul_even = head[0::2].count(0) / max((len(head) + 1) // 2, 1)
        if nul_odd > 0.3 and nul_even < 0.05:
            return "utf-16-le"
        if nul_even > 0.3 and nul_odd < 0.05:
            return "utf-16-be"
    try:
        head.decode("cp1252")
    except UnicodeDecodeError:
        return None
    high = [i for i, b in enumerate(head) if b >= 0x80]
    if not high:
        return None
    marks = set(high)
    paired = sum(1 for i in high if i - 1 in marks or i + 1 in marks)
    return "cp1252" if paired <= 0.5 * len(high) else None


def encoding_error(path: Path, encoding: str) -> DataError | None:
    """The one line for a data file that does not decode in ``encoding``: the file, the byte
    offset and line of the first byte that does not, the likely encoding when the bytes say it
    (``likely_encoding``), and the option that reads it. None when the file decodes."""
    found = first_undecodable(path, encoding)
    if found is None:
        return None
    offset, byte = found
    with path.open("rb") as fh:
        head = fh.read(max(GUESS_BYTES, offset))
    line = head[:offset].count(b"\n") + 1
    where = f"byte 0x{byte:02x} at offset {offset:,} (line {line:,})"
    if not is_utf8(encoding):
        return DataError(
            f"data file {path} is not {encoding} text: {where} does not decode as {encoding}; "
            "pass its encoding with --encoding"
        )
    guess = likely_encoding(head[:GUESS_BYTES])
    if guess is None:
        return DataError(
            f"data file {path} is not UTF-8: {where} does not decode; pass the file's "
            "encoding with --encoding (e.g. --encoding cp1252 for Windows Western European "
            "text), or save it as UTF-8"
        )
    label = "UTF-16 text" if guess.startswith("utf-16") else "Windows-1252 (Western European) text"
    return DataError(
        f"data file {path} is not UTF-8: {where} does not decode; it reads as {label}: "
        f"pass --encoding {guess}"
    )


def decode_failed(path: Path, encoding: str, exc: Exception) -> DataError:
    """``encoding_error``, or the reader's own first line if the whole file decodes."""
    found = encoding_error(path, encoding)
    if found is not None:
        return found
    first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return DataError(f"cannot read {path}: {first}")


def is_decode_error(exc: Exception) -> bool:
    """Arrow's CSV reader says 'invalid UTF8 data' (or passes a codec's error on)."""
    text = str(exc)
    return isinstance(exc, UnicodeDecodeError) or "UTF8" in text or "codec can't decode" in text
