"""Bounded reads of one regular file: how this tool opens a file that an input or a flag names
(a --params file, a render journal, a file `render --check` compares, a file's provenance
head), so that a named pipe cannot make it wait, a device or a huge file cannot make it read
for ever, and a symbolic link is followed only where the caller says so."""

from __future__ import annotations

import errno
import os
import stat


class NotRegularFile(Exception):
    """The path is not a regular file; ``what`` says what it is ("a folder", ...)."""

    def __init__(self, what: str) -> None:
        super().__init__(what)
        self.what = what


def kind_of(mode: int) -> str:
    """What a file of this st_mode is, as a message says it."""
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a named pipe"
    return "a device or socket" if not stat.S_ISREG(mode) else "a regular file"


def read_regular(path, size: int, follow_links: bool = False) -> bytes:
    """At most ``size`` bytes of the regular file ``path`` (ask for one more than a limit to tell
    a file over it). Opened without waiting for a writer and, unless ``follow_links``, without
    following a link. NotRegularFile for anything else; OSError (or ValueError for a name with
    a NUL byte) when it cannot be opened or read."""
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | (0 if follow_links else os.O_NOFOLLOW)
    try:
        fd = os.open(path, flags)
    except OSError as err:
        if err.errno == errno.ELOOP and not follow_links:
            raise NotRegularFile("a symbolic link") from None
        raise
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise NotRegularFile(kind_of(mode))
        with os.fdopen(fd, "rb") as stream:
            fd = -1  # the stream closes it
            return stream.read(size)
    finally:
        if fd >= 0:
            os.close(fd)
