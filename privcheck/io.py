"""Reading tables and writing outputs atomically.

CSV values are read as strings (ZIP codes keep their leading zeros; "NA" is a value, only an
empty field is missing); numeric needs (intervals, ordering) parse them later, in encoding.
A CSV file is read strictly: a header that repeats a column name, or a row with more or fewer
fields than the header, is an input error rather than a silently renamed or shifted column.
"""

from __future__ import annotations

import csv
import errno
import fnmatch
import glob
import os
import re
import stat
import tempfile
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import TYPE_CHECKING, Any

from privcheck.errors import DataError
from privcheck.interrupts import uninterrupted
from privcheck.limits import DOCUMENT_BYTES, TEXT_BYTES, Limit
from privcheck.text_encodings import (  # noqa: F401 (the readers' names, kept importable here)
    GUESS_BYTES,
    check_encoding,
    csv_encoding,
    current_encoding,
    decode_failed,
    encoding_error,
    encoding_for,
    first_undecodable,
    is_decode_error,
    is_utf8,
    likely_encoding,
    text_codec,
)

if TYPE_CHECKING:
    import pandas as pd

_DELIMITERS = ";,\t|"

#: extensions of the table files privcheck writes and reads back (a release must be re-checkable)
RELEASE_SUFFIXES = (".csv", ".tsv", ".txt", ".parquet", ".pq")

#: largest hierarchy or --intruder-records file read whole (``privcheck.limits.TEXT_BYTES``);
#: policies, transformations, tags and configs are bounded by ``DOCUMENT_BYTES``, far lower
MAX_TEXT_BYTES = TEXT_BYTES.default

_KINDS = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISLNK, "a symbolic link"),
)


def file_kind(mode: int) -> str:
    """What a non-regular file is, in words (for one-line errors)."""
    for test, name in _KINDS:
        if test(mode):
            return name
    return "not a regular file"


def require_regular_file(path: str | Path, what: str) -> Path:
    """``path`` if it is a regular file (symbolic links followed), else one-line DataError.

    A FIFO or a device would hang a reader or stream without end, a folder is not a table: they
    are refused before anything opens them. ``what`` names the input (``policy file``, ``data
    file``, ``hierarchy of 'age'``)."""
    path = Path(path)
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        raise DataError(f"{what} not found: {path}") from None
    except OSError as exc:
        raise DataError(f"cannot read {what} {path}: {exc.strerror}") from None
    if not stat.S_ISREG(mode):
        raise DataError(
            f"{what} {path} is {file_kind(mode)}, not a regular file; give the path of a file"
        )
    return path


def read_bytes_bounded(path: str | Path, what: str, limit: Limit | int = TEXT_BYTES) -> bytes:
    """The bytes of a regular file within ``limit``: a `Limit` (the value in force, its refusal
    naming its override; default ``TEXT_BYTES``) or a number of bytes.

    The size is measured before a byte is read; the file is opened without blocking and checked
    again on the open descriptor, so a file swapped for a FIFO between the check and the open
    cannot hang the command."""
    path = require_regular_file(path, what)
    bound = limit.value() if isinstance(limit, Limit) else limit
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise DataError(f"cannot read {what} {path}: {exc.strerror}") from None
    with os.fdopen(fd, "rb") as fh:
        info = os.fstat(fh.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise DataError(f"{what} {path} is {file_kind(info.st_mode)}, not a regular file")
        if bound and info.st_size > bound:
            _too_big(path, what, limit, info.st_size)
        data = fh.read(bound + 1) if bound else fh.read()
    if bound and len(data) > bound:  # it grew since fstat
        _too_big(path, what, limit, len(data))
    return data


def _too_big(path: Path, what: str, limit: Limit | int, size: int) -> None:
    if isinstance(limit, Limit):
        limit.check(size, f"{what} {path} has")
    raise DataError(
        f"{what} {path} is {size:,} bytes, more than privcheck reads ({limit:,}); is it the "
        "right file?"
    )


def read_json_file(path: str | Path, what: str) -> Any:
    """A JSON file, bounded and strict (see ``privcheck.limits.load_json``; at most
    ``DOCUMENT_BYTES``): one line naming the file for anything that is not a JSON document
    privcheck accepts."""
    return read_json_text(path, what)[0]


def read_json_text(path: str | Path, what: str) -> tuple[Any, str]:
    """``read_json_file`` and the text it parsed (an error about a key that is not a name gives
    its line and column in it). A problem names the file and the position, never the content
    (``privcheck.messages``)."""
    from privcheck.errors import PolicyError
    from privcheck.limits import load_json
    from privcheck.messages import syntax_error

    try:
        text = read_text_file(path, what, DOCUMENT_BYTES)
    except DataError as exc:  # a configuration file: its problems are the policy's kind
        raise PolicyError(str(exc)) from None
    try:
        return load_json(text), text
    except PolicyError as exc:
        raise PolicyError(f"{what} {path}: {exc}") from None
    except ValueError as exc:
        raise PolicyError(syntax_error(exc, f"{what} {path}", "JSON")) from None


def read_text_file(path: str | Path, what: str, limit: Limit | int = TEXT_BYTES) -> str:
    """A UTF-8 text file (a BOM is allowed), refused in one line naming the file and the first
    byte that is not UTF-8 (a latin-1 policy, a UTF-16 export)."""
    data = read_bytes_bounded(path, what, limit)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise DataError(
            f"{what} {path} is not UTF-8 text (byte 0x{data[exc.start]:02x} on line {line}); "
            "save it as UTF-8"
        ) from None


def sniff_delimiter(path: Path, encoding: str | None = None) -> str:
    encoding = encoding or current_encoding()
    try:
        with path.open("r", encoding=text_codec(encoding), newline="") as fh:
            head = fh.readline()
    except UnicodeDecodeError as exc:
        raise decode_failed(path, encoding, exc) from None
    try:
        return csv.Sniffer().sniff(head, delimiters=_DELIMITERS).delimiter
    except csv.Error:
        return ","


def csv_header(path: Path, sep: str, encoding: str | None = None) -> list[str]:
    """The header row, refused when a name repeats (pandas would rename it to 'a.1')."""
    encoding = encoding or current_encoding()
    try:
        with path.open("r", encoding=text_codec(encoding), newline="") as fh:
            header = next(csv.reader(fh, delimiter=sep), None)
    except UnicodeDecodeError as exc:
        raise decode_failed(path, encoding, exc) from None
    if not header:
        raise DataError(f"cannot read {path}: the file is empty (no header row)")
    seen: set[str] = set()
    for name in header:
        if name in seen:
            raise DataError(
                f"column {name!r} appears twice in the header of {path}; rename one of them"
            )
        seen.add(name)
    return header


def read_csv(
    path: Path, arrow: bool = False, plain: Iterable[str] = (), encoding: str | None = None
) -> pd.DataFrame | Any:
    """A CSV/TSV file as string columns, strictly (see the module docstring).

    Parsed by Arrow's CSV reader (multi-threaded, and it refuses ragged rows, which pandas'
    reader pads with missing values or shifts into an index); UTF-8 with or without a BOM
    or, when the file is not UTF-8, in ``encoding`` (default: ``current_encoding()``; see
    ``encoding_for``), LF or CRLF line endings, quoted fields with embedded delimiters and
    newlines. A file that does not decode
    is refused in one line naming the byte, its offset and the likely encoding
    (``encoding_error``).

    ``arrow`` returns the ``pyarrow.Table`` itself, its columns dictionary-encoded by the reader
    (what a check encodes: no pandas import, no Python string per row) except the ``plain``
    ones: a column distinct in nearly every row (a key, an e-mail) gains nothing from a
    dictionary, which costs a hash of every value per block (``privcheck init`` reads such
    columns plain).
    """
    import pyarrow as pa
    import pyarrow.csv as pacsv

    encoding = encoding_for(path, encoding)
    sep = sniff_delimiter(path, encoding)
    header = csv_header(path, sep, encoding)
    string_type = pa.dictionary(pa.int32(), pa.string()) if arrow else pa.string()
    plain = set(plain)
    try:
        table = pacsv.read_csv(
            path,
            # (Arrow reads UTF-8 natively, a BOM skipped; any other encoding is transcoded)
            read_options=pacsv.ReadOptions(encoding="utf8" if is_utf8(encoding) else encoding),
            parse_options=pacsv.ParseOptions(delimiter=sep, newlines_in_values=True),
            convert_options=pacsv.ConvertOptions(
                column_types={
                    name: pa.string() if name in plain else string_type for name in header
                },
                strings_can_be_null=True,
                null_values=[""],
            ),
        )
    except (pa.ArrowInvalid, UnicodeDecodeError) as exc:
        if not is_decode_error(exc):
            raise
        raise decode_failed(path, encoding, exc) from None
    if table.num_columns == 1 and any(c in header[0] for c in ":;,\t| "):
        raise DataError(  # (the header line is not quoted: a file named by mistake stays unread)
            f"{path} has a single column, whose name holds ':' or spaces: its delimiter is not "
            "one of ; , tab | (which privcheck detects); write the file with one of them"
        )
    return table if arrow else table.to_pandas()


def read_parquet(
    path: Path,
    columns: Iterable[str] | None = None,
    dictionary: bool = False,
    arrow: bool = False,
    plain: Iterable[str] = (),
) -> pd.DataFrame | Any:
    """A Parquet file (or a folder of parts) as a DataFrame.

    ``columns`` reads only those columns when the file has them all (otherwise every column, so
    that the error about a missing one can list what the file holds). ``dictionary`` reads
    string columns as Arrow dictionaries, i.e. pandas categoricals: Parquet stores them
    dictionary-encoded, and a check reuses the codes instead of building a Python string per
    row and hashing it back into codes. ``arrow`` returns the ``pyarrow.Table`` (see
    ``read_csv``).
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    from privcheck.nested import ARROW_TYPES, nested_arrow_columns

    schema = pq.read_schema(path) if path.is_file() else pq.ParquetDataset(path).schema
    nested = nested_arrow_columns(schema)  # (a DataFrame keeps their Parquet types in attrs)
    if not columns and not dictionary and not arrow:
        import pandas as pd

        try:
            frame = pd.read_parquet(path)
        except NotImplementedError:  # pandas metadata the Arrow types contradict (see below)
            frame = _without_pandas_metadata(path)
        if nested:
            frame.attrs[ARROW_TYPES] = nested
        return frame
    names = list(schema.names)
    wanted = None
    if columns is not None:
        want = list(dict.fromkeys(columns))
        if all(c in names for c in want):
            wanted = [c for c in names if c in set(want)]  # in the file's order
    strings = [
        f.name
        for f in schema
        if (wanted is None or f.name in wanted)
        and (pa.types.is_string(f.type) or pa.types.is_large_string(f.type))
    ]
    keep_plain = set(plain)
    read_dictionary = [c for c in strings if c not in keep_plain] if dictionary else None
    if path.is_file():  # (read_table goes through pyarrow.dataset, which imports pandas)
        table = pq.ParquetFile(path, read_dictionary=read_dictionary).read(columns=wanted)
    else:
        table = pq.read_table(path, columns=wanted, read_dictionary=read_dictionary)
    if arrow:
        return table
    try:
        frame = table.to_pandas()
    except NotImplementedError:
        frame = table.to_pandas(ignore_metadata=True)
    if nested:
        frame.attrs[ARROW_TYPES] = {n: t for n, t in nested.items() if n in frame.columns}
    return frame


def _without_pandas_metadata(path: Path) -> pd.DataFrame:
    """The file read without the pandas metadata its writer left: a tool that rewrote a column
    (a string column made a list) and kept the metadata makes pandas cast the new type to the
    old one, which Arrow cannot do (ArrowNotImplementedError). The Arrow types are the truth;
    a nested column is then refused where the policy uses it, naming it."""
    import pyarrow.parquet as pq

    return pq.read_table(path).to_pandas(ignore_metadata=True)


def read_table(
    source: str | Path | pd.DataFrame,
    *,
    columns: Iterable[str] | None = None,
    dictionary: bool = False,
    arrow: bool = False,
    plain: Iterable[str] = (),
    encoding: str | None = None,
) -> pd.DataFrame | Any:
    """A DataFrame from a DataFrame, a CSV/TSV file (delimiter sniffed) or a Parquet file.

    ``columns`` and ``dictionary`` are hints for Parquet (see ``read_parquet``): a check reads
    only the policy's columns, string columns as categoricals. ``arrow`` returns a file as a
    ``pyarrow.Table`` (string columns dictionary-encoded, but those named in ``plain``)
    instead: pandas is not imported. ``encoding`` is a CSV/TSV file's text encoding when it is
    not UTF-8 (default: what ``csv_encoding`` set — a command's ``--encoding`` — else UTF-8 with
    or without a BOM; see ``encoding_for``)."""
    from privcheck import collector

    collector.resume()  # a command's data work begins: collect cycles as usual again
    if not isinstance(source, str | Path):
        return source
    if str(source) == "-":
        raise DataError(
            "reading a table from standard input ('-') is not supported; save it to a CSV or "
            "Parquet file and give its path"
        )
    path = Path(source)
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        raise DataError(f"data file not found: {path}") from None
    except OSError as exc:  # a folder on the way the user cannot enter
        raise DataError(
            f"cannot read data file {path}: {exc.strerror}; check the permissions of the file "
            "and of the folders above it"
        ) from None
    suffix = path.suffix.lower()
    if stat.S_ISDIR(mode):
        parts = parquet_parts(path)
        if not parts:
            raise DataError(
                f"{path} is a folder without Parquet files; give a CSV/TSV/Parquet file (a "
                "folder is read as the Parquet parts of one table)"
            )
        for part in parts:
            require_regular_file(part, "Parquet part")
    else:
        require_regular_file(path, "data file")
    try:
        if suffix in (".parquet", ".pq") or path.is_dir():
            return read_parquet(path, columns, dictionary or arrow, arrow, plain)
        if suffix in (".csv", ".tsv", ".txt"):
            return read_csv(path, arrow, plain, check_encoding(encoding) if encoding else None)
    except (ValueError, OSError, NotImplementedError) as exc:  # (ParserError: a ValueError;
        # Arrow's ArrowInvalid is one too, its ArrowNotImplementedError a NotImplementedError)
        raise DataError(f"cannot read {path}: {reader_problem(exc)}") from None
    raise DataError(f"unsupported data file type {suffix!r} ({path}); use .csv, .tsv or .parquet")


#: Arrow's CSV reader appends the offending row to its message: cut there
_ROW_ECHO = re.compile(r"(Expected \d+ columns?, got \d+)\s*:.*", re.DOTALL)


def reader_problem(exc: BaseException) -> str:
    """A table reader's message, first line, without the row it quotes (Arrow: ``Expected 3
    columns, got 2: <the row>``) or any quoted text that is not a name
    (``privcheck.messages.scrub``): the file may be one named by mistake."""
    from privcheck.messages import scrub

    text = str(exc).strip()
    first = text.splitlines()[0] if text else type(exc).__name__
    return scrub(_ROW_ECHO.sub(r"\1", first))


def parquet_parts(folder: Path) -> list[Path]:
    """Every ``*.parquet`` file under ``folder`` (as ``Path.rglob`` finds them), refusing a
    folder inside it that cannot be listed: ``rglob`` skips it silently, and the table would
    be checked without the rows of the parts it holds."""

    def unreadable(exc: OSError) -> None:
        raise DataError(
            f"cannot read the folder {exc.filename} of the Parquet parts in {folder}: "
            f"{exc.strerror}; check its permissions (a check must see every part)"
        )

    found = []
    for root, _, files in os.walk(folder, onerror=unreadable):
        found += [Path(root, name) for name in files if name.endswith(".parquet")]
    return sorted(found)


def _same_file(a: Path, b: Path) -> bool:
    """Whether two spellings name one file: same resolved path (``..``, symlinks), or the same
    inode when both exist (hard links, bind mounts)."""
    if a.resolve() == b.resolve():
        return True
    try:
        return os.path.samefile(a, b)  # (False when either is absent or cannot be reached)
    except OSError:
        return False


def _inside(path: Path, folder: Path) -> bool:
    """Whether ``path`` lies in ``folder`` or below it (both resolved: ``..``, symlinks)."""
    try:
        path.resolve().relative_to(folder.resolve())
    except (ValueError, OSError, RuntimeError):
        return False
    return True


def _refuse_nesting(opt: str, path: Path, src: Path, *, directory: bool) -> None:
    """An output must not land inside a folder privcheck reads — a folder of Parquet parts
    (every part under it is the table: a release written there mixes released rows into the
    raw ones), a folder a policy names — nor match a glob of inputs; and an output folder
    (``--engine spark``) must not hold an input, which replacing the folder would delete."""
    text = str(src)
    if glob.has_magic(text) and not os.path.lexists(src):  # a glob of inputs
        probes = [path, path / "part-0.parquet"] if directory else [path]
        for probe in probes:
            if fnmatch.fnmatch(str(probe), text) or fnmatch.fnmatch(
                str(probe.resolve()), str(Path(text).absolute())
            ):
                raise DataError(
                    f"{opt} {path} matches the input pattern {src}: the output would be read "
                    "as input next time; write it where the pattern does not reach"
                )
        matches = [Path(m) for m in glob.glob(text, recursive=True)]
    else:
        matches = [src]
    for match in matches:
        if os.path.isdir(match) and _inside(path, match):
            raise DataError(
                f"{opt} {path} is inside the input folder {match}: privcheck never writes into "
                "a folder it reads (the output would become part of the input); write it "
                f"outside {match}"
            )
        if directory and _inside(match, path):  # (a folder where a file goes: refused below)
            raise DataError(
                f"{opt} {path} holds the input {match}: replacing the folder would delete it; "
                "write the output to another folder"
            )


def _output_kind(path: Path) -> str | None:
    """What stands at an output path, if it is not a regular file (None: absent or regular).
    ``lstat``: a symbolic link is reported as one, never followed."""
    try:
        mode = os.lstat(path).st_mode
    except OSError:
        return None
    return None if stat.S_ISREG(mode) else file_kind(mode)


def _refuse_special(opt: str, path: Path, *, directory_ok: bool) -> None:
    kind = _output_kind(path)
    if kind is None or (directory_ok and kind == "a folder"):
        return
    if kind == "a folder":
        raise DataError(f"{opt} {path} is a directory; name a file, e.g. {path / 'out.csv'}")
    raise DataError(
        f"{opt} {path} is {kind}: privcheck writes a new file and renames it into place, which "
        "would replace it; name a regular file (or '-' for standard output where a command "
        "prints a report)"
    )


def probe_writable(folder: Path, opt: str) -> None:
    """Write (and remove) a small file in ``folder``: a read-only folder, a read-only file
    system or a full disk is found before the work starts, not after a long search."""
    with uninterrupted():  # (a signal here must not leave the probe file behind)
        try:
            fd, tmp = tempfile.mkstemp(prefix=".privcheck-probe.", dir=folder)
        except OSError as exc:
            raise DataError(
                f"{opt}: cannot write in the folder {folder} ({exc.strerror}); choose a folder "
                "you can write to"
            ) from None
        try:
            os.write(fd, b"\0" * 4096)
        except OSError as exc:
            raise DataError(
                f"{opt}: cannot write in the folder {folder} ({exc.strerror}); free some space "
                "or choose another folder"
            ) from None
        finally:
            os.close(fd)
            Path(tmp).unlink(missing_ok=True)


def guard_outputs(
    outputs: Mapping[str, str | Path | None],
    inputs: Iterable[str | Path | None],
    *,
    directories: Iterable[str] = (),
) -> None:
    """Refuse, before any work, outputs that would destroy something or cannot be written.

    ``outputs`` maps an option (``--output``) to its path; ``inputs`` are every file the command
    reads (data, policy, hierarchies, reports, model files …). Refused with one line
    (``DataError``): an output naming an input (by any spelling), two outputs naming one file,
    an existing path that is not a regular file — a directory where a file is expected
    (options not in ``directories``), a symbolic link, a FIFO, a device, a socket: the atomic
    rename would replace it (as root, ``-o /dev/null`` would turn the device into a file) — a
    folder that does not exist, and a folder privcheck cannot write to (read-only, full).
    privcheck never overwrites what it reads and never creates folders on its own: a mistyped
    folder would otherwise silently receive the release. ``-`` (standard output) is left to
    the command.
    """
    given = [(opt, Path(p)) for opt, p in outputs.items() if p is not None and str(p) != "-"]
    sources = [Path(p) for p in inputs if p is not None and str(p) != "-"]
    dirs = set(directories)
    probed: set[Path] = set()
    for i, (opt, path) in enumerate(given):
        for src in sources:
            if _same_file(path, src):
                raise DataError(
                    f"{opt} {path} is the input {src}: privcheck never overwrites what it reads; "
                    "write the output to another file"
                )
            _refuse_nesting(opt, path, src, directory=opt in dirs)
        for other_opt, other in given[:i]:
            if _same_file(path, other):
                raise DataError(
                    f"{other_opt} and {opt} both name {path}; give each output its own file"
                )
        _refuse_special(opt, path, directory_ok=opt in dirs)
        parent = path.parent
        try:
            parent_is_dir = stat.S_ISDIR(os.stat(parent).st_mode)
        except FileNotFoundError:
            parent_is_dir = False
        except OSError as exc:  # a folder on the way the user cannot enter
            raise DataError(
                f"{opt} {path}: cannot reach the folder {parent} ({exc.strerror}); choose a "
                "folder you can write to"
            ) from None
        if not parent_is_dir:
            raise DataError(
                f"{opt} {path}: the folder {parent} does not exist; create it first "
                "(privcheck does not create folders)"
            )
        if parent.resolve() not in probed:
            probe_writable(parent, opt)
            probed.add(parent.resolve())


def _normal_mode(path: str | Path) -> None:
    """mkstemp/mkdtemp make owner-only entries; give the output a normal file's mode."""
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(path, (0o777 if Path(path).is_dir() else 0o666) & ~umask)


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        import shutil

        shutil.rmtree(path, ignore_errors=True)
    else:
        path.unlink(missing_ok=True)


#: tests only: seconds to wait after each temporary output is created, before it is written —
#: a deterministic window to send the process a signal in (``tests/test_interrupts.py``)
PAUSE_ENV = "PRIVCHECK_TEST_PAUSE_IN_WRITE"


def _pause_for_tests(tmp: Path) -> None:
    try:
        seconds = min(float(os.environ.get(PAUSE_ENV) or 0), 60.0)
    except ValueError:
        return
    if seconds > 0:
        import sys
        import time

        print(f"privcheck: test pause: {tmp.name} created", file=sys.stderr, flush=True)
        time.sleep(seconds)


def _write_failed(path: Path, exc: OSError) -> DataError:
    reason = exc.strerror or (str(exc).splitlines() or [type(exc).__name__])[0]
    hint = "free some space" if exc.errno in (errno.ENOSPC, errno.EDQUOT) else "check the folder"
    return DataError(f"cannot write {path}: {reason}; nothing was written ({hint} and run again)")


class OutputSet:
    """The outputs of one command, written all or nothing.

    ``stage`` writes each output to a temporary file (or folder) beside its target; ``commit``
    renames them all into place, and if one rename fails restores what the earlier ones
    replaced; ``discard`` removes the temporaries. A release whose report cannot be written
    (disk full) is therefore not left behind: half a result is none.
    """

    def __init__(self) -> None:
        self._staged: list[tuple[Path, Path]] = []  # (temporary, target)

    def stage(self, path: str | Path, write: Callable[[Path], None], *, directory: bool = False):
        path = Path(path)
        _refuse_special("output", path, directory_ok=directory)
        if not path.parent.is_dir():
            raise DataError(
                f"cannot write {path}: the folder {path.parent} does not exist; create it first"
            )
        # created and recorded in one step, so that whatever stops the command later (an
        # error, Ctrl-C, SIGTERM: ``privcheck.interrupts``) finds it in the list and removes it
        with uninterrupted():
            try:
                if directory:  # the writer creates it (Spark refuses an existing folder)
                    tmp = Path(
                        tempfile.mkdtemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
                    )
                    tmp.rmdir()
                else:
                    fd, name = tempfile.mkstemp(
                        prefix=f".{path.name}.", suffix=".tmp", dir=path.parent
                    )
                    os.close(fd)
                    tmp = Path(name)
            except OSError as exc:
                self.discard()
                raise _write_failed(path, exc) from None
            self._staged.append((tmp, path))
        try:
            _pause_for_tests(tmp)
            write(tmp)
            _normal_mode(tmp)
        except OSError as exc:
            self.discard()
            raise _write_failed(path, exc) from None
        except BaseException:
            self.discard()
            raise
        return path

    def discard(self) -> None:
        with uninterrupted():  # a second signal cannot cut the cleanup short
            for tmp, _ in self._staged:
                _remove(tmp)
            self._staged.clear()

    def commit(self) -> None:
        """Rename every staged output into place — all of them, or (on any failure) none,
        the files they replaced restored. Signals wait until it is done."""
        with uninterrupted():
            self._commit()

    def _commit(self) -> None:
        done: list[tuple[Path, Path | None]] = []  # (target, backup of what it replaced)
        try:
            for tmp, target in self._staged:
                backup = None
                if target.exists():
                    backup = target.parent / f".{target.name}.{os.getpid()}.{len(done)}.old"
                    if target.is_dir():
                        os.replace(target, backup)
                    else:  # a hard link keeps the old content while the rename stays atomic
                        try:
                            os.link(target, backup)
                        except OSError:
                            backup = None
                os.replace(tmp, target)
                done.append((target, backup))
        except BaseException as exc:
            for target, backup in reversed(done):
                _remove(target)
                if backup is not None:
                    os.replace(backup, target)
            failed = self._staged[len(done)][1] if len(done) < len(self._staged) else None
            self.discard()
            if isinstance(exc, OSError) and failed is not None:
                raise _write_failed(failed, exc) from None
            raise
        for _, backup in done:
            if backup is not None:
                _remove(backup)
        self._staged.clear()


_TRANSACTION: ContextVar[OutputSet | None] = ContextVar("privcheck_outputs", default=None)


@contextmanager
def all_or_nothing() -> Iterator[OutputSet]:
    """Within the block every ``write_atomic`` is staged; at its end all outputs are renamed
    into place together — or, when the block raises, none is."""
    outputs = OutputSet()
    token = _TRANSACTION.set(outputs)
    try:
        try:
            yield outputs
        finally:
            _TRANSACTION.reset(token)
        outputs.commit()
    except BaseException:  # (a signal between the block's end and the commit included)
        outputs.discard()
        raise


def write_atomic(path: str | Path, write: Callable[[Path], None], *, directory: bool = False):
    """Write through a temporary file in the same folder, then rename: all or nothing.

    Inside ``all_or_nothing()`` the rename waits for the block's end, with the command's other
    outputs. The folder must exist (``guard_outputs`` says so in one line before any work)."""
    path = Path(path)
    current = _TRANSACTION.get()
    if current is not None:
        return current.stage(path, write, directory=directory)
    outputs = OutputSet()
    try:
        outputs.stage(path, write, directory=directory)
        outputs.commit()
    except BaseException:  # (a signal between staging and committing included)
        outputs.discard()
        raise
    return path


def write_text_atomic(path: str | Path, text: str) -> Path:
    return write_atomic(path, lambda p: p.write_text(text, encoding="utf-8"))


def arrow_release(frame: pd.DataFrame) -> Any:
    """``frame`` as the Arrow table a Parquet file stores, every value exact.

    pandas hands Arrow a column of Python integers (a quasi-identifier released at level 0
    keeps its ground values, which may exceed 2^63 − 1 in a uint64 column) to be typed as int64,
    and Arrow then fails on the first value beyond it. Such a column is written as uint64 when
    every value fits (0 … 2^64 − 1), else as the integers' exact decimal text; any other column
    Arrow cannot type (values of mixed kinds) as text too, never rounded through a float.
    """
    import pyarrow as pa

    try:
        return pa.Table.from_pandas(frame, preserve_index=False)
    except (OverflowError, pa.ArrowException):
        pass
    columns = {}
    for name in frame.columns:
        column = frame[name]
        try:
            columns[name] = pa.array(column, from_pandas=True)
        except (OverflowError, pa.ArrowException):
            columns[name] = _exact_column(column)
    names = [str(n) for n in frame.columns]
    return pa.table(list(columns.values()), names=names)


def _exact_column(column: pd.Series) -> Any:
    """A column of Python objects Arrow could not type: uint64 for integers in 0 … 2^64 − 1,
    else every value as its text (None stays missing)."""
    import pandas as pd
    import pyarrow as pa

    present = column[column.notna()].tolist()
    integers = all(isinstance(v, int) and not isinstance(v, bool) for v in present)
    if integers and present and min(present) >= 0 and max(present) < 2**64:
        return pa.array([None if pd.isna(v) else int(v) for v in column], type=pa.uint64())
    return pa.array([None if pd.isna(v) else str(v) for v in column], type=pa.string())


def write_table(frame: pd.DataFrame, path: str | Path) -> Path:
    """Write a table as CSV or Parquet (by suffix), atomically; values exact in both (see
    ``arrow_release``)."""
    suffix = Path(path).suffix.lower()
    if suffix in (".parquet", ".pq"):
        import pyarrow.parquet as pq

        table = arrow_release(frame)
        return write_atomic(path, lambda p: pq.write_table(table, p))
    sep = "\t" if suffix == ".tsv" else ","
    return write_atomic(path, lambda p: frame.to_csv(p, index=False, sep=sep))
