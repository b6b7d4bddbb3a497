"""The files a command reads and writes.

Reading: :func:`read_text` turns every way a user's file can be wrong
(missing, a directory, unreadable, binary, not UTF-8) into one
:class:`~milp_anon.runtime.errors.InputError` naming the file, and strips a UTF-8
byte-order mark.

Writing: :class:`Outputs` checks every output path before any work — not
the same file as any input (after links, hard links included), not a
directory, distinct, in a directory where a file can be created — and then
writes all of them or none: each through a hidden temporary file in its own
directory, renamed into place together once all are complete (a signal
waits for the renames, :func:`~milp_anon.runtime.cleanup.committing`). Files are
created with the permissions the umask gives, as any other program's.
"""

from __future__ import annotations

import bz2
import contextlib
import gzip
import hashlib
import io
import lzma
import os
import sys
import tempfile
import zlib

from milp_anon.runtime.cleanup import committing, tracked_file
from milp_anon.runtime.errors import InputError

__all__ = ["STDIO", "Outputs", "as_path", "read_text", "read_text_and_digest", "write_stdout"]

_BOM = b"\xef\xbb\xbf"
_TMP_PREFIX = ".milp-anon-"
#: '-' as a path: standard input (reading) or standard output (writing)
STDIO = "-"
#: compressed files, recognized by their first bytes (not their names)
_COMPRESSED = ((b"\x1f\x8b", "gzip", gzip.decompress), (b"BZh", "bzip2", bz2.decompress),
               (b"\xfd7zXZ\x00", "xz", lzma.decompress))


def as_path(path, what: str) -> str:
    """``path`` as a string, or an :class:`InputError` naming ``what`` if it is not a file path."""
    if isinstance(path, bool) or not isinstance(path, (str, os.PathLike)):
        raise InputError(f"{what} must be a file path (str or os.PathLike), got {type(path).__name__}")
    p = os.fspath(path)
    if isinstance(p, bytes):
        p = os.fsdecode(p)
    if p == "":
        raise InputError(f"{what} is an empty path")
    if "\0" in p:
        raise InputError(f"{what} contains a NUL character")
    return p


def read_text(path, what: str = "input file") -> str:
    """The whole of a UTF-8 text file (a leading byte-order mark removed).

    ``"-"`` reads standard input; gzip, bzip2 and xz files are decompressed.
    """
    return read_text_and_digest(path, what)[0]


def read_text_and_digest(path, what: str = "input file") -> tuple[str, str]:
    """:func:`read_text` and the SHA-256 of the bytes as read (before decompression)."""
    p = as_path(path, what)
    try:
        if p == STDIO:
            p = "standard input"
            data = sys.stdin.buffer.read()
        else:
            with open(p, "rb") as fh:
                data = fh.read()
    except FileNotFoundError:
        raise InputError(f"{what} not found: {p}") from None
    except IsADirectoryError:
        raise InputError(f"{what} is a directory: {p}") from None
    except PermissionError:
        raise InputError(f"{what} not readable: {p}") from None
    except OSError as exc:
        raise InputError(f"{what} {p}: {exc.strerror or exc}") from None
    digest = hashlib.sha256(data).hexdigest()
    for magic, kind, decompress in _COMPRESSED:
        if data.startswith(magic):
            try:
                data = decompress(data)
            except (OSError, EOFError, ValueError, lzma.LZMAError, zlib.error) as exc:
                raise InputError(f"{what} {p}: damaged {kind} data ({exc})") from None
            break
    if b"\0" in data:
        line = data.count(b"\n", 0, data.index(b"\0")) + 1
        raise InputError(f"{what} {p} is binary, not text (a NUL byte on line {line})")
    if data.startswith(_BOM):
        data = data[len(_BOM):]
    try:
        return data.decode("utf-8"), digest
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise InputError(f"{what} {p}: not UTF-8 text (line {line}, byte {exc.start}: {exc.reason})") from None


def write_stdout(text: str) -> bool:
    """Write to standard output; ``False`` once the reader has gone (``| head``): not an error of ours.

    After the first broken pipe the descriptor points at ``/dev/null``, so
    later writes and the interpreter's flush at exit stay silent.
    """
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
        return True
    except BrokenPipeError:
        with contextlib.suppress(OSError, ValueError):
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            os.close(devnull)
        return False


def _same_file(a: str, b: str) -> bool:
    """``a`` and ``b`` name one file: by identity if both exist (links and hard links), else by resolved path."""
    with contextlib.suppress(OSError):
        if os.path.exists(a) and os.path.exists(b):
            return os.path.samefile(a, b)
    return os.path.realpath(a) == os.path.realpath(b)


def _umask() -> int:
    with contextlib.suppress(OSError, ValueError):
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


class Outputs:
    """The outputs of one command, checked before any work, written all or none.

    ``Outputs(inputs)``, where ``inputs`` are the files the command reads;
    :meth:`add` each output as it is known (the check happens there);
    :meth:`staging` gives a temporary path for an output written by someone
    else's code (a model written by PuLP); :meth:`commit` writes the rest
    and renames everything into place. Used as a context manager, whatever
    was not committed is deleted on the way out. An output that cannot be
    written (a full disk) is an :class:`InputError` (exit 2): nothing is renamed, no temporary file stays.
    """

    def __init__(self, inputs=()):
        self._inputs = [as_path(p, "input") for p in inputs if p is not None and p != STDIO]
        self._paths: dict[str, str] = {}  # path -> what
        self._staged: dict[str, str] = {}  # path -> temporary file
        self._stack = contextlib.ExitStack()

    def __enter__(self) -> Outputs:
        return self

    def __exit__(self, *exc) -> None:
        self.discard()

    def add(self, path, what: str) -> str | None:
        """Check the output ``path`` (``None``: no such output) and remember it; the path as a string."""
        if path is None:
            return None
        p = as_path(path, what)
        if p == STDIO:
            if STDIO in self._paths:
                raise InputError(f"{what} and {self._paths[STDIO]} both go to standard output ('-'); give one a file")
            self._paths[p] = what
            return p
        for inp in self._inputs:
            if _same_file(p, inp):
                raise InputError(f"{what} {p} is the input file {inp}; choose another path (inputs are never modified)")
        for other, other_what in self._paths.items():
            if _same_file(p, other):
                raise InputError(f"{what} and {other_what} are the same file ({p}); give each its own path")
        if os.path.isdir(p):
            raise InputError(f"{what} {p} is a directory")
        d = os.path.dirname(os.path.abspath(p))
        if not os.path.isdir(d):
            raise InputError(f"{what} directory does not exist: {d}")
        try:  # the only sure test of "a file can be created here" (permissions, read-only mounts, ACLs)
            fd, probe = tempfile.mkstemp(prefix=_TMP_PREFIX, suffix=".probe", dir=d)
            os.close(fd)
            os.unlink(probe)
        except OSError as exc:
            raise InputError(f"{what} {p}: cannot write in {d} ({exc.strerror or exc})") from None
        self._paths[p] = what
        return p

    @property
    def to_stdout(self) -> bool:
        """An output goes to standard output (then messages go to standard error)."""
        return STDIO in self._paths

    def staging(self, path: str) -> str:
        """A temporary file next to ``path`` (an added output) for a writer that wants a path."""
        p = as_path(path, "output")
        if p not in self._paths:
            raise ValueError(f"{p} was not added as an output")
        tmp = self._new_tmp(p)
        self._staged[p] = tmp
        return tmp

    def drop(self, path: str) -> None:
        """Give up a staged output (its writer had nothing to write): nothing is written at ``path``."""
        tmp = self._staged.pop(as_path(path, "output"), None)
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)

    def _new_tmp(self, path: str) -> str:
        fd, tmp = tempfile.mkstemp(prefix=_TMP_PREFIX, suffix=".tmp", dir=os.path.dirname(os.path.abspath(path)))
        os.close(fd)
        self._stack.enter_context(tracked_file(tmp))
        os.chmod(tmp, 0o666 & ~_umask())
        return tmp

    def commit(self, writers=None) -> list[str]:
        """Write ``writers`` (``{path: write(text_file)}``), then rename them and every staged file into place.

        Returns the paths written. If a writer fails, nothing is renamed and
        the temporary files are deleted.
        """
        writers = dict(writers or {})
        for p in writers:
            if p not in self._paths:
                raise ValueError(f"{p} was not added as an output")
        to_stdout = writers.pop(STDIO, None)
        try:
            for p, write in writers.items():
                try:
                    tmp = self._new_tmp(p)
                    self._staged[p] = tmp  # before writing: a failed write's temporary file is deleted too
                    with open(tmp, "w", encoding="utf-8", newline="") as fh:
                        write(fh)
                except OSError as exc:  # a full disk, a quota: one line, nothing written, nothing left
                    d = os.path.dirname(os.path.abspath(p))
                    raise InputError(f"{self._paths[p]} {p}: cannot write in {d} ({exc.strerror or exc}); "
                                     "nothing written") from None
            done = []
            with committing():
                for p, tmp in self._staged.items():
                    os.replace(tmp, p)
                    done.append(p)
                self._staged.clear()
            if to_stdout is not None:  # after the files: a reader that went away loses only its own copy
                buf = io.StringIO()
                to_stdout(buf)
                write_stdout(buf.getvalue())
            return done
        finally:
            self.discard()

    def discard(self) -> None:
        """Delete every temporary file not renamed into place."""
        for tmp in self._staged.values():
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        self._staged.clear()
        self._stack.close()
