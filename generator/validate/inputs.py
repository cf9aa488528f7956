"""How `validate` opens a file it is given: a regular file, or a named pipe read with limits (a
pipe has no size to bound what is read from it, and may have no writer)."""

from __future__ import annotations

import io
import os
import stat

from generator.kubeyaml import load
from generator.validate import discover

# A named pipe (`validate <(kustomize build)`, a FIFO) has no size to bound it as a file has: at most
# this much is read from it (the limit of a JSON stream, which is read whole), and it must give
# something every PIPE_IDLE_SECONDS (a FIFO no process writes to would be waited on for ever).
MAX_PIPE_BYTES = load._MAX_JSON_BYTES
PIPE_IDLE_SECONDS = 10.0


def open_input(name: str):
    """A binary stream of the file ``name``: a regular file, or a named pipe read as _Pipe reads
    it. Opened without waiting for a writer; anything else (a device, a socket, a folder) is an
    OSError that says what it is."""
    fd = os.open(name, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISREG(mode):
            os.set_blocking(fd, True)
            return os.fdopen(fd, "rb")
        if stat.S_ISFIFO(mode):
            return io.BufferedReader(_Pipe(fd), 1 << 20)
        raise OSError(f"not a regular file ({discover.file_type(mode)}): give - to read standard input")
    except BaseException:
        os.close(fd)
        raise


class _Pipe(io.RawIOBase):
    """A named pipe read with limits: an OSError when nothing comes for PIPE_IDLE_SECONDS, or
    when more than MAX_PIPE_BYTES come (as a file's size bounds what is read from a file)."""

    def __init__(self, fd: int):
        import select  # here: only a pipe needs it

        self.fd = fd
        self.total = 0
        self.poller = select.poll()
        self.poller.register(fd, select.POLLIN | select.POLLHUP | select.POLLERR)

    def readable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self.fd

    def readinto(self, buffer) -> int:
        if self.total > MAX_PIPE_BYTES:
            raise OSError(
                f"more than {MAX_PIPE_BYTES:,} bytes came through the pipe and it did not end; "
                "save what writes to it to a file and check the file"
            )
        while True:
            if not self.poller.poll(PIPE_IDLE_SECONDS * 1000):
                raise OSError(f"nothing came through the pipe in {PIPE_IDLE_SECONDS:g} s: does a process write to it?")
            try:
                data = os.read(self.fd, min(len(buffer), MAX_PIPE_BYTES + 1 - self.total))
            except BlockingIOError:
                continue
            buffer[: len(data)] = data
            self.total += len(data)
            return len(data)

    def close(self) -> None:
        if not self.closed:
            os.close(self.fd)
        super().close()
