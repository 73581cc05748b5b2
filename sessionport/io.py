"""Opening inputs and writing outputs.

Inputs: a path, ``-`` or nothing (stdin); gzip, bz2, xz and zstd are
recognised by their magic bytes and decompressed on the fly, and UTF-16 or
UTF-32 text (a byte order mark, or JSON's first character beside a NUL
byte) is read as UTF-8.  The first
``HEAD_SIZE`` decompressed bytes are kept so that detection can look at them
without consuming the stream.

Outputs: stdout, or a path written through a temporary file beside it and
renamed into place only when the whole output was written, so an interrupted
run never leaves a partial file at the path.
"""

from __future__ import annotations

import contextlib
import errno
import io
import os
import stat
import zlib
import sys
from typing import BinaryIO, Iterator, Sequence

from sessionport.errors import DataError, OutputError, UsageError
from sessionport.pipeline import signals
from sessionport.plain import Record

HEAD_SIZE = 64 * 1024
READ_BUFFER = 1 << 20
WRITE_BUFFER = 1 << 20

MAGIC = (
    (b"\x1f\x8b", "gzip"),
    (b"BZh", "bz2"),
    (b"\xfd7zXZ\x00", "xz"),
    (b"\x28\xb5\x2f\xfd", "zstd"),
)


class _Prepended(io.RawIOBase):
    """A raw stream that serves ``head`` first, then the rest of ``stream``."""

    def __init__(self, head: bytes, stream: BinaryIO) -> None:
        self._head = memoryview(head)
        self._stream = stream

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        if self._head:
            n = min(len(buffer), len(self._head))
            buffer[:n] = self._head[:n]
            self._head = self._head[n:]
            return n
        return self._stream.readinto(buffer)


def _decompressor(kind: str, raw: BinaryIO) -> BinaryIO:
    # the decompression modules are imported for a compressed input only
    if kind == "gzip":
        import gzip

        return gzip.GzipFile(fileobj=raw, mode="rb")
    if kind == "bz2":
        import bz2

        return bz2.BZ2File(raw, mode="rb")
    if kind == "xz":
        import lzma

        return lzma.LZMAFile(raw, mode="rb")
    return _ZstdFrames(raw)


TRUNCATED = "the compressed data ends early (the file is truncated)"


class _ZstdFrames(io.RawIOBase):
    """zstd frames one after another, decompressed with bounded memory, and
    an ``EOFError`` when the input ends inside a frame (zstandard's own
    stream reader just stops there, which looks like a complete file).

    The input goes to the decompressor in small pieces: one piece of a
    highly compressed frame expands to at most about 32,000 times its size
    (4 KiB to 128 MiB),
    so even a zstd bomb costs a bounded amount per call."""

    PIECE = 4096

    def __init__(self, raw: BinaryIO) -> None:
        import zstandard

        self._zstd = zstandard
        self._dctx = zstandard.ZstdDecompressor()
        self._dobj = self._dctx.decompressobj()
        self._raw = raw
        self._input = memoryview(b"")
        self._output = memoryview(b"")
        self._in_frame = False

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        while not self._output:
            if not self._input:
                block = self._raw.read(READ_BUFFER)
                if not block:
                    if self._in_frame:
                        raise EOFError("Compressed file ended before the end-of-stream marker was reached")
                    return 0
                self._input = memoryview(block)
            piece, self._input = self._input[: self.PIECE], self._input[self.PIECE :]
            self._output = memoryview(self._dobj.decompress(piece))
            self._in_frame = True
            if self._dobj.eof:
                rest = self._dobj.unused_data
                self._dobj = self._dctx.decompressobj()
                self._in_frame = False
                if rest:
                    self._input = memoryview(bytes(rest) + bytes(self._input))
        n = min(len(buffer), len(self._output))
        buffer[:n] = self._output[:n]
        self._output = self._output[n:]
        return n


class _StopAtDamage(io.RawIOBase):
    """Decompressed bytes up to the point where the compressed file is cut
    off or damaged; there the stream ends, and ``damage`` says why, for the
    reader to report (a cut file is a torn tail: everything before it is
    read, then a warning, or an error with ``--strict``)."""

    def __init__(self, stream: BinaryIO, name: str) -> None:
        self._stream = stream
        self._name = name
        # _ZstdFrames raises only when it has nothing left to return.
        self._whole_steps = isinstance(stream, _ZstdFrames)
        self.damage: str | None = None
        self.corrupt = False
        self.delivered = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        if self.damage is not None:
            return 0
        import lzma  # (loaded: this stream exists for a compressed input only)

        try:
            # One decompression step at a time (read1): a step that hits the
            # cut raises only when it has nothing left to return, so no
            # decompressed byte before the cut is lost.
            if self._whole_steps:
                n = self._stream.readinto(buffer)
            else:
                data = self._stream.read1(len(buffer))
                n = len(data)
                buffer[:n] = data
        except EOFError:
            self.damage = TRUNCATED
            return 0
        except (OSError, lzma.LZMAError, zlib.error) as exc:
            self._damaged(exc)
            return 0
        except Exception as exc:  # zstandard raises its own ZstdError
            if type(exc).__name__ != "ZstdError":
                raise
            self._damaged(exc)
            return 0
        self.delivered += n or 0
        return n

    def _damaged(self, exc: Exception) -> None:
        self.corrupt = True
        self.damage = f"the compressed data is damaged after {self.delivered:,} decompressed bytes ({exc})"

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self._stream.close()
        super().close()


# Text that is not UTF-8: what a Windows shell redirect (PowerShell's ``>``,
# Notepad's "Unicode") writes.  Read as UTF-8 after transcoding, so every
# reader, line number and error sees the same text.  UTF-32 first: its
# little-endian mark starts with UTF-16's.
_TEXT_MARKS = (
    (b"\xff\xfe\x00\x00", "utf-32"),
    (b"\x00\x00\xfe\xff", "utf-32"),
    (b"\xff\xfe", "utf-16"),
    (b"\xfe\xff", "utf-16"),
    # no mark, but JSON's first character with a NUL byte beside it
    (b"{\x00", "utf-16-le"),
    (b"[\x00", "utf-16-le"),
    (b"\x00{", "utf-16-be"),
    (b"\x00[", "utf-16-be"),
)


def text_encoding(head: bytes) -> str | None:
    """The encoding of a UTF-16 or UTF-32 text, told from its first bytes;
    None for anything else (UTF-8 and binary data)."""
    return next((encoding for mark, encoding in _TEXT_MARKS if head.startswith(mark)), None)


class _Transcoded(io.RawIOBase):
    """The text of a UTF-16 or UTF-32 stream as UTF-8 (its byte order mark dropped)."""

    def __init__(self, stream: BinaryIO, encoding: str, name: str) -> None:
        import codecs

        self._stream = stream
        self._encoding = encoding
        self._decoder = codecs.getincrementaldecoder(encoding)("strict")
        self._name = name
        self._offset = 0
        self._pending = memoryview(b"")
        self._ended = False

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        while not self._pending and not self._ended:
            chunk = self._stream.read(READ_BUFFER)
            try:
                text = self._decoder.decode(chunk, final=not chunk)
            except UnicodeDecodeError as exc:
                label = self._encoding.upper().replace("-LE", " (little-endian)").replace("-BE", " (big-endian)")
                raise DataError(
                    self._name,
                    f"read as {label} text, and the bytes at offset {self._offset + max(exc.start, 0)} are not {label}",
                    hint=f"convert the file to UTF-8 (iconv -f {self._encoding.upper().replace('-', '')} -t UTF-8) or check that it is a transcript",
                ) from None
            self._offset += len(chunk)
            self._ended = not chunk
            self._pending = memoryview(text.encode("utf-8", "surrogatepass"))
        n = min(len(buffer), len(self._pending))
        buffer[:n] = self._pending[:n]
        self._pending = self._pending[n:]
        return n


def _read_head(stream: BinaryIO, size: int) -> bytes:
    chunks = []
    remaining = size
    while remaining > 0:
        chunk = stream.read(remaining)
        if not chunk:
            break
        chunks.append(chunk)
        remaining -= len(chunk)
    return b"".join(chunks)


class Input(Record):
    """An opened input.

    ``stream`` yields the decompressed bytes from the start; ``head`` is
    their beginning; ``raw`` is the file as stored (for progress by bytes
    read); ``size`` is its size on disk when known.
    """

    _fields = ("name", "path", "stream", "head", "raw", "compression", "size", "_closers", "_guard", "encoding")

    name: str
    path: str | None
    stream: BinaryIO
    head: bytes
    raw: BinaryIO
    compression: str | None
    size: int | None
    _closers: list
    _guard: _StopAtDamage | None
    # UTF-16 or UTF-32 text read as UTF-8 (``stream`` is not the file's bytes)
    encoding: str | None

    def __init__(
        self,
        name: str,
        path: str | None,
        stream: BinaryIO,
        head: bytes,
        raw: BinaryIO,
        compression: str | None = None,
        size: int | None = None,
        _closers: list | None = None,
        _guard: _StopAtDamage | None = None,
        encoding: str | None = None,
    ) -> None:
        self.name = name
        self.path = path
        self.stream = stream
        self.head = head
        self.raw = raw
        self.compression = compression
        self.size = size
        self._closers = [] if _closers is None else _closers
        self._guard = _guard
        self.encoding = encoding

    @property
    def damage(self) -> str | None:
        """Why decompression stopped early (a cut or damaged compressed
        file), once the stream has been read to its end; else None."""
        return self._guard.damage if self._guard is not None else None

    @property
    def corrupt(self) -> bool:
        """Whether that damage is corruption rather than a cut-off end."""
        return self._guard is not None and self._guard.corrupt

    def close(self) -> None:
        for closer in reversed(self._closers):
            with contextlib.suppress(Exception):
                closer()

    def bytes_read(self) -> int:
        """How far into the stored file reading has got (for progress)."""
        try:
            return self.raw.tell()
        except (OSError, ValueError):
            return 0


def is_stdin(spec: str | None) -> bool:
    return spec is None or spec == "-"


def is_url(spec: str | None) -> bool:
    """``s3://``, ``gs://``, ``https://``, ``memory://`` ...: read through fsspec."""
    return bool(spec) and "://" in spec and not spec.startswith("file://") and spec.split("://", 1)[0].isidentifier()


def _open_url(spec: str) -> tuple[BinaryIO, int | None, object]:
    """A streaming binary file for a URL; nothing is downloaded whole."""
    try:
        import fsspec
    except ImportError:
        raise UsageError(f"{spec}: reading URLs needs fsspec: pip install 'sessionport[remote]'") from None
    try:
        opened = fsspec.open(spec, "rb", block_size=READ_BUFFER)
        handle = opened.open()
    except FileNotFoundError:
        raise UsageError(f"{spec}: no such file") from None
    except ImportError as exc:
        raise UsageError(f"{spec}: this kind of URL needs another package: {exc}") from None
    except Exception as exc:
        raise DataError(spec, f"cannot be opened: {exc}") from None
    size = getattr(handle, "size", None)
    if not hasattr(handle, "peek"):
        handle = io.BufferedReader(handle, buffer_size=READ_BUFFER)
    # ``opened`` owns the files of a chained URL (the archive of a
    # zip://member::archive.zip): it closes them when it is collected, so
    # it is kept until the input is closed.
    return handle, size if isinstance(size, int) else None, opened


def open_input(spec: str | None) -> Input:
    """Open ``spec`` (a path, ``-`` or None for stdin) for reading."""
    closers: list = []
    if is_stdin(spec):
        if sys.stdin is None:  # started with stdin closed (<&-)
            raise UsageError("stdin is closed (the command was started with <&-); give an input path, or - with something on stdin")
        raw: BinaryIO = sys.stdin.buffer
        name, path, size = "<stdin>", None, None
    elif is_url(spec):
        assert spec is not None
        raw, size, opened = _open_url(spec)
        closers.append(getattr(opened, "close", lambda: None))
        closers.append(raw.close)
        name, path = spec, None
    else:
        assert spec is not None
        if spec.startswith("file://"):
            spec = spec[len("file://") :]
        try:
            raw = open(spec, "rb", buffering=READ_BUFFER)
        except FileNotFoundError:
            raise UsageError(f"{spec}: no such file") from None
        except IsADirectoryError:
            raise UsageError(f"{spec}: is a directory, not a session file") from None
        except OSError as exc:
            raise DataError(spec, f"cannot be opened: {exc.strerror or exc}") from None
        closers.append(raw.close)
        name, path = spec, os.path.realpath(spec)
        try:
            size = os.fstat(raw.fileno()).st_size
        except OSError:
            size = None
    magic = raw.peek(8)[:8] if hasattr(raw, "peek") else b""
    compression = next((kind for sig, kind in MAGIC if magic.startswith(sig)), None)
    stream: BinaryIO = raw
    guard: _StopAtDamage | None = None
    if compression:
        import lzma

        try:
            guard = _StopAtDamage(_decompressor(compression, raw), name)
        except (OSError, EOFError, lzma.LZMAError) as exc:
            for closer in reversed(closers):
                closer()
            raise DataError(name, f"cannot be decompressed: {exc}", hint="the file may be truncated") from None
        stream = io.BufferedReader(guard, buffer_size=READ_BUFFER)
        closers.append(stream.close)
    head = _read_head(stream, HEAD_SIZE)
    if guard is not None and guard.damage is not None and not head.strip(b" \t\r\n"):
        for closer in reversed(closers):
            closer()
        raise DataError(name, f"cannot be decompressed: {guard.damage}, before any data", hint="the file may be truncated")
    encoding = text_encoding(head)
    if encoding is not None:
        stream = io.BufferedReader(_Transcoded(_Prepended(head, stream), encoding, name), buffer_size=READ_BUFFER)
        head = _read_head(stream, HEAD_SIZE)
    buffered = io.BufferedReader(_Prepended(head, stream), buffer_size=READ_BUFFER)
    return Input(name, path, buffered, head, raw, compression, size, closers, guard, encoding)


class SpoolError(OutputError):
    """A temporary file could not be written (the temporary folder is full)."""


def _spool_error(exc: OSError) -> SpoolError:
    import tempfile

    reason = "no space left on device" if exc.errno == errno.ENOSPC else (exc.strerror or str(exc))
    return SpoolError(
        f"cannot write a temporary file in {tempfile.gettempdir()}: {reason} "
        "(data held back while reading or writing is kept there; set TMPDIR to a folder with more room)"
    )


_SPOOL: type | None = None


def _spool_class() -> type:
    """:class:`_Spool`, defined on first use: it derives from tempfile's
    class, and importing tempfile (with shutil, random...) costs every run
    that spools nothing."""
    global _SPOOL
    if _SPOOL is None:
        import tempfile

        class _Spool(tempfile.SpooledTemporaryFile):
            """A temporary file whose write errors say that they are the temporary
            folder's, so they are never taken for the output's or the input's."""

            def write(self, data):
                try:
                    return super().write(data)
                except OSError as exc:
                    raise _spool_error(exc) from None

            def writelines(self, lines):
                for line in lines:
                    self.write(line)

            def seek(self, *args):
                try:
                    return super().seek(*args)
                except OSError as exc:  # the buffered tail is written out here
                    raise _spool_error(exc) from None

            def flush(self):
                try:
                    return super().flush()
                except OSError as exc:
                    raise _spool_error(exc) from None

            def close(self):
                # What is still buffered is thrown away with the file: failing to
                # write it out is no error.
                try:
                    super().close()
                except OSError:
                    with contextlib.suppress(OSError):
                        self._file.close()

        _SPOOL = _Spool
    return _SPOOL


def spool_file(max_memory: int = 0) -> BinaryIO:
    """A temporary file for data held back (in memory up to ``max_memory``
    bytes, then on disk in the temporary folder, removed when closed)."""
    return _spool_class()(max_size=max(1, max_memory))  # type: ignore[return-value]


def spool_to_file(stream: BinaryIO) -> BinaryIO:
    """Copy a stream into an anonymous temporary file, for formats that need
    to seek (zip members, documents whose header follows their body)."""
    spool = spool_file()
    while True:
        chunk = stream.read(READ_BUFFER)
        if not chunk:
            break
        spool.write(chunk)
    spool.seek(0)
    return spool


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def _refuse_stdout_onto_input(inputs: Sequence[str | None]) -> None:
    """``sessionport convert f >> f``: stdout is an input's file, so the run
    would read what it writes and never reach the end (a disk filled, as
    ``cat f >> f`` would, were cat not to refuse it)."""
    try:
        st = os.fstat(sys.stdout.fileno())
    except (AttributeError, ValueError, OSError, io.UnsupportedOperation):
        return
    if not stat.S_ISREG(st.st_mode):
        return
    for spec in inputs:
        if is_stdin(spec):
            same = stdin_file() == (st.st_dev, st.st_ino)
        else:
            try:
                other = os.stat(spec[len("file://") :] if spec.startswith("file://") else spec)
            except (OSError, ValueError):
                continue
            same = (other.st_dev, other.st_ino) == (st.st_dev, st.st_ino)
        if same:
            name = "stdin's file" if is_stdin(spec) else spec
            raise UsageError(f"stdout is {name}, an input of this run: it would read what it writes; write to another file (-o PATH)")


def stdin_file() -> tuple[int, int] | None:
    """(device, inode) of the file stdin reads when it is a plain file
    (``< session.jsonl``), else None: ``-o session.jsonl`` is then an input
    too, though no path names it."""
    try:
        fd = sys.stdin.fileno() if sys.stdin is not None else 0
        st = os.fstat(fd)
    except (AttributeError, ValueError, OSError, io.UnsupportedOperation):
        return None
    return (st.st_dev, st.st_ino) if stat.S_ISREG(st.st_mode) else None


def is_stdin_file(path: str) -> bool:
    """Whether ``path`` is the plain file stdin reads."""
    identity = stdin_file()
    if identity is None:
        return False
    try:
        st = os.stat(path)
    except OSError:
        return False
    return (st.st_dev, st.st_ino) == identity


def discard_stream(stream) -> None:
    """Point ``stream``'s descriptor at /dev/null: what is still written to
    it (a closed pipe's reader is gone) goes nowhere, without an error."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, stream.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError, io.UnsupportedOperation):
        pass


def hold_standard_streams() -> None:
    """Keep the descriptors 0, 1 and 2 taken when the process started with
    one of them closed (``<&-``, ``>&-``, ``2>&-``, as a daemon or cron may
    start it).  Python then has no stream for it (``sys.stderr`` is None),
    and the next file opened would get the free descriptor: an output file
    on descriptor 2 would take what is printed to stderr.  Each closed one
    is opened on /dev/null.  A closed stderr gets a stream there too, since
    ``print(file=None)`` writes to stdout, into the output; closed stdin and
    stdout stay None, so reading or writing them is a clear error."""
    for fd, name in ((0, "stdin"), (1, "stdout"), (2, "stderr")):
        try:
            os.fstat(fd)
            continue
        except OSError:
            pass
        try:
            held = os.open(os.devnull, os.O_RDONLY if fd == 0 else os.O_WRONLY)
        except OSError:
            continue
        if held != fd:
            os.dup2(held, fd)
            os.close(held)
        if name == "stderr" and sys.stderr is None:
            sys.stderr = open(fd, "w", closefd=False)


def open_regular(path: str, buffering: int = -1) -> BinaryIO:
    """``path`` opened for reading when it is a plain file (a link to one
    too); OSError when it is a named pipe, a device or a folder.

    For the files read beside an input (agent logs, manifests, an export's
    images): a folder of transcripts (a tar unpacked, a shared drive) can
    hold a named pipe under such a name, which a plain open would wait on
    for ever, or a link to ``/dev/zero``, which a read to the end would
    never finish.  Opened without waiting (O_NONBLOCK) and checked on the
    descriptor, so nothing swapped in between is read."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            what = "a named pipe" if stat.S_ISFIFO(mode) else "a folder" if stat.S_ISDIR(mode) else "a device or socket"
            raise OSError(errno.EINVAL, f"not a plain file ({what})", path)
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb", buffering=buffering)
    except BaseException:
        os.close(fd)
        raise


def stdout_stream() -> BinaryIO:
    if sys.stdout is None:  # started with stdout closed (>&-)
        raise OutputError("<stdout>: cannot write output: stdout is closed (the command was started with >&-); give -o PATH")
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, ValueError, io.UnsupportedOperation):
        # stdout replaced by an in-memory stream (tests, notebooks)
        return sys.stdout.buffer
    return open(fd, "wb", buffering=WRITE_BUFFER, closefd=False)


def _os_error(target: str, exc: OSError) -> OutputError:
    reason = exc.strerror or str(exc)
    if exc.errno == errno.ENOSPC:
        reason = "no space left on device"
    return OutputError(f"{target}: cannot write output: {reason}")


@contextlib.contextmanager
def open_output(path: str | None, inputs: Sequence[str | None] = ()) -> Iterator[BinaryIO]:
    """Yield a binary stream for the output (see :func:`_open_output`).

    The image files Markdown's ``--images DIR`` writes beside the document
    share its fate: when the output fails or is interrupted they are removed
    with the partial file (a pipe closed early is no failure: they stay).
    """
    companions = sys.modules.get("sessionport.companions")  # loaded once a file was written beside an output
    position = companions.mark() if companions is not None else 0
    before = _identity(path)
    try:
        with _open_output(path, inputs) as out:
            yield out
    except BrokenPipeError:
        _keep_companions(position)
        raise
    except BaseException:
        # A signal can land just after the rename: the document is then in
        # place, and the images it links stay with it.
        now = _identity(path)
        if now is not None and now != before:
            _keep_companions(position)
            raise
        companions = sys.modules.get("sessionport.companions")
        if companions is not None:
            companions.discard_since(position)
        raise
    _keep_companions(position)


def _identity(path: str | None) -> tuple[int, int] | None:
    """Which file an output path names (device and inode, through a link), None for stdout or none."""
    if path in (None, "", "-"):
        return None
    try:
        st = os.stat(path)  # type: ignore[arg-type]
    except (OSError, ValueError):
        return None
    return (st.st_dev, st.st_ino)


def _keep_companions(position: int) -> None:
    companions = sys.modules.get("sessionport.companions")
    if companions is not None:
        companions.keep_since(position)


@contextlib.contextmanager
def _open_output(path: str | None, inputs: Sequence[str | None] = ()) -> Iterator[BinaryIO]:
    """Yield a binary stream for the output.

    With a path, the data goes to a temporary file in the same directory,
    renamed over the path only after everything was written; on any error
    the temporary file is removed and an existing file at the path stays as
    it was.  Writing onto one of the inputs is refused before anything is
    opened.
    """
    if path == "":
        raise UsageError("the output path is empty (-o ''); give a file name, or - for stdout")
    if path is None or path == "-":
        _refuse_stdout_onto_input(inputs)
        out = stdout_stream()
        try:
            yield out
            out.flush()
        except BrokenPipeError:
            raise
        except OSError as exc:
            if exc.errno == errno.EPIPE:
                raise BrokenPipeError(exc.errno, exc.strerror) from None
            raise _os_error("<stdout>", exc) from None
        return

    for spec in inputs:
        if _same_file(path, spec) if not is_stdin(spec) else is_stdin_file(path):
            raise UsageError(
                f"{path}: refusing to write the output onto the input; choose another -o path"
            )
    if _written_in_place(path):
        # A device or a named pipe (/dev/null, a FIFO), or a descriptor of
        # this process (/dev/stdout): nothing to replace atomically, so
        # write to it directly.  A descriptor of this process is written
        # through a copy of it, at its offset: opening the path again would
        # truncate the file it is open on (what a shell's >> or an earlier
        # command put there would be lost).
        own = _own_descriptor(path)
        try:
            out = os.fdopen(os.dup(own), "wb", buffering=WRITE_BUFFER) if own is not None else open(path, "wb", buffering=WRITE_BUFFER)
        except OSError as exc:
            raise _os_error(path, exc) from None
        try:
            yield out
            out.flush()
        except OSError as exc:
            if own is not None and exc.errno == errno.EPIPE:
                # -o /dev/stdout into a pipe closed early ends as stdout does
                raise BrokenPipeError(exc.errno, exc.strerror) from None
            raise _os_error(path, exc) from None
        finally:
            with contextlib.suppress(OSError):
                out.close()
        return
    if os.path.islink(path):
        # The file a link names is written (atomically, beside it), and the
        # link stays: replacing it would put a plain file where it was.
        path = os.path.realpath(path)
    directory = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(directory):
        # As AgentScope does for .agentscope/: a missing folder of the
        # target is made, like mkdir -p.
        check_folder(os.path.dirname(path) or ".", path)
        try:
            os.makedirs(directory, exist_ok=True)
        except OSError as exc:
            raise _os_error(path, exc) from None
    if os.path.isdir(path):
        raise UsageError(f"{path}: is a directory; -o takes a file path")
    _refuse_long_name(path, directory)
    partial: list[str] = []  # the partial file, named before it exists
    out = None
    try:
        try:
            fd = _create_partial(directory, os.path.basename(path), partial)
        except OSError as exc:
            raise _os_error(path, exc) from None
        out = open(fd, "wb", buffering=WRITE_BUFFER)
        try:
            yield out
            out.flush()
            os.fsync(out.fileno())
        except OSError as exc:
            raise _os_error(path, exc) from None
        out.close()
        # a signal whose exception was lost on the way must not let the
        # output replace its target
        signals.check()
        os.chmod(partial[0], _mode_for(path))
        os.replace(partial[0], path)
    except BaseException:
        # The partial file goes first, in one call: closing can flush a
        # buffer, and a signal landing in that write would end the clean-up
        # before the file was removed.
        try:
            for tmp in partial:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(tmp)
        finally:
            if out is not None:
                with contextlib.suppress(Exception):
                    out.close()
        raise


def _refuse_long_name(path: str, directory: str) -> None:
    """A target whose name the file system cannot hold is refused before
    anything is written: the partial file (its name shortened to fit) would
    take the whole conversion, and only the rename at its end would fail,
    naming a hidden file nobody asked for."""
    try:
        limit = os.pathconf(directory, "PC_NAME_MAX")
    except (OSError, ValueError, AttributeError):
        limit = NAME_MAX
    size = len(os.fsencode(os.path.basename(path)))
    if limit and size > limit:
        raise UsageError(f"{path}: the file name is {size} bytes, more than the {limit} a file name can hold here; choose a shorter name (or rename the input)")


def file_in_the_way(directory: str) -> str | None:
    """The part of ``directory`` (as given) that exists and is not a folder,
    when one is in the way of making it; else None."""
    at = directory.rstrip("/" + os.sep) or directory
    while at and not os.path.exists(at):
        parent = os.path.dirname(at)
        if parent == at:
            return None
        at = parent
    return at if at and not os.path.isdir(at) else None


def check_folder(directory: str, what: str, option: str = "-o") -> None:
    """Refuse a folder of an output that cannot be made because a file is
    where it or one of its parents should be (``what`` names the output,
    ``option`` the option that gave it)."""
    blocked = file_in_the_way(directory)
    if blocked is not None:
        raise UsageError(f"{what}: cannot be written: {blocked} is a file, not a folder; choose another {option} path")


def _own_descriptor(path: str) -> int | None:
    """The descriptor of this process that ``path`` names through /proc
    (``/dev/stdout``, ``/dev/fd/N``, ``/proc/self/fd/N``), or None."""
    at = os.path.abspath(path)
    own = f"/proc/{os.getpid()}/fd"
    for _ in range(40):
        folder = os.path.realpath(os.path.dirname(at))
        if folder.startswith("/proc/"):
            name = os.path.basename(at)
            return int(name) if folder == own and name.isdigit() else None
        if not os.path.islink(at):
            return None
        at = os.path.join(os.path.dirname(at), os.readlink(at))
    return None


def _written_in_place(path: str) -> bool:
    """Whether ``path`` is written to directly rather than replaced: a
    device, a named pipe or a socket, or a path that leads through
    ``/proc`` (``/dev/stdout``, ``/dev/fd/N``, ``/proc/self/fd/N``: the
    descriptors of this process, whatever they are open on)."""
    at = os.path.abspath(path)
    for _ in range(40):  # the links followed before giving up, as the kernel does
        if os.path.realpath(os.path.dirname(at)).startswith("/proc/"):
            return os.path.lexists(at)
        if not os.path.islink(at):
            break
        at = os.path.join(os.path.dirname(at), os.readlink(at))
    return os.path.exists(path) and not os.path.isfile(path) and not os.path.isdir(path)


def _mode_for(path: str) -> int:
    """The permissions of the file written at ``path``: those of the file it
    replaces (a transcript its owner made private stays private, as with
    ``>`` or ``cp``), else what a new file gets (0666 less the umask)."""
    try:
        st = os.stat(path)
    except OSError:
        st = None
    if st is not None and stat.S_ISREG(st.st_mode):
        return stat.S_IMODE(st.st_mode) & 0o777
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


# What the partial file's name adds to the target's: "." and ".<12 hex>.part".
_PARTIAL_EXTRA = 19
NAME_MAX = 255


def _partial_name(name: str) -> str:
    """``name`` cut (at a character) so that its partial file's name fits
    in NAME_MAX bytes: a target near the limit is still written."""
    raw = os.fsencode(name)
    if len(raw) + _PARTIAL_EXTRA <= NAME_MAX:
        return name
    raw = raw[: NAME_MAX - _PARTIAL_EXTRA]
    while raw and (raw[-1] & 0xC0) == 0x80:  # a UTF-8 continuation byte: cut before its character
        raw = raw[:-1]
    if raw and raw[-1] >= 0xC0:
        raw = raw[:-1]
    return os.fsdecode(raw)


# read and write: a document whose front is written last may read back
# what it wrote (see sessionport.render.markdown)
_PARTIAL_FLAGS = os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)


def _create_partial(directory: str, name: str, partial: list[str]) -> int:
    """Create ``.NAME.<random>.part`` in ``directory`` (mode 0600, as
    mkstemp makes it) and return its descriptor.  Its path is put in
    ``partial`` before the file is created, so an interrupt at any moment
    (Ctrl-C as the file appears) leaves no file the clean-up does not know
    of: with mkstemp the path is known only once it returns."""
    for _ in range(100):
        partial.append(os.path.join(directory, f".{_partial_name(name)}.{os.urandom(6).hex()}.part"))
        try:
            return os.open(partial[0], _PARTIAL_FLAGS, 0o600)
        except FileExistsError:
            partial.clear()
    raise FileExistsError(errno.EEXIST, "no unused name for a partial file", directory)
