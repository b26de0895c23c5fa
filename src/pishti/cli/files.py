"""Files the commands write (``play --record``, ``analyse --output``): checked
before the work starts, then written whole or not at all."""

from __future__ import annotations

import contextlib
import errno
import os
import tempfile
from collections.abc import Callable
from pathlib import Path

from pishti.cli.app import fail


def output_path(text: str, option: str) -> Path:
    """The file that ``option`` (``"--record"``) names, checked by :func:`check_writable`.

    Returns:
        The path as given (a symlink stays a symlink; :func:`replace_file` writes
        the file it points to).
    Raises:
        typer.Exit: after one line (status 2): ``text`` is empty or ends with a
            slash (a folder, where a file name is wanted), or the file could not
            be written.
    """
    if not text:
        raise fail(f"{option} '': give a file name", 2)
    if text.endswith(("/", os.sep)):
        raise fail(f"{option} {text!r}: give a file name, not a folder", 2)
    path = Path(text)
    check_writable(path, option)
    return path


def check_writable(path: Path, option: str) -> None:
    """Refuse, before the work starts, a file that could not be written: a
    symlink loop, its folder missing or not a folder (as written, and the
    folder of the file a symlink points to), a folder where no file can be made
    (tried with an empty temporary file, removed at once), something other
    than a regular file there, or a file there that may not be written.

    Raises:
        typer.Exit: after one line naming the file and ``option`` (status 2).
    """
    try:
        target = target_of(path)
    except OSError as exc:
        raise fail(f"{option} {path}: {exc.strerror}", 2) from None
    # The folder as written first: "nodir/../x" resolves to "x" without nodir.
    for folder in dict.fromkeys((path.parent, target.parent)):
        if folder.exists() and not folder.is_dir():
            raise fail(f"{option} {path}: {folder} is not a folder", 2)
        if not folder.is_dir():
            raise fail(f"{option} {path}: the folder {folder} does not exist", 2)
    if target.is_dir():
        raise fail(f"{option} {path}: a folder; give a file name", 2)
    if target.exists() and not target.is_file():
        raise fail(f"{option} {path}: not a regular file", 2)
    if target.exists() and not os.access(target, os.W_OK):
        raise fail(f"{option} {path}: the file there may not be written (read-only)", 2)
    try:
        with tempfile.NamedTemporaryFile(dir=target.parent, prefix=".pishti-"):
            pass
    except OSError as exc:
        raise fail(f"{option} {path}: cannot be written here ({exc.strerror})", 2) from None


def target_of(path: Path) -> Path:
    """The file that writing to ``path`` writes: ``path`` itself, or the end of
    the chain of symlinks that it is (which need not exist yet).

    Raises:
        OSError: ``path`` is a symlink loop (ELOOP).
    """
    if path.is_symlink():
        try:
            path.resolve(strict=True)
        except FileNotFoundError:
            pass  # a link to a file to be made
        except (OSError, RuntimeError) as exc:  # a loop: RuntimeError before Python 3.13
            raise OSError(errno.ELOOP, os.strerror(errno.ELOOP), str(path)) from exc
    return path.resolve()


def _file_mode(path: Path) -> int:
    """The permissions for a file written to ``path``: those of the file
    there, else what a new file gets (0o666 less the umask)."""
    try:
        return path.stat().st_mode & 0o777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def replace_file(path: Path, write: Callable[[str], None]) -> None:
    """Write a file at ``path`` by ``write(temporary_path)`` into a temporary
    file in the same folder, renamed over ``path`` once complete: a write that
    fails leaves a file already there as it was.  The file keeps the
    permissions of the one it replaces (a new one gets the umask's); when
    ``path`` is a symlink, the file it points to is written.

    Raises:
        OSError: the temporary file could not be written or renamed, or
            ``path`` is a symlink loop.
    """
    target = target_of(path)
    fd, temporary = tempfile.mkstemp(dir=target.parent, prefix=".pishti-")
    os.close(fd)
    try:
        write(temporary)
        os.chmod(temporary, _file_mode(target))  # after the write: the mode may be read-only
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
