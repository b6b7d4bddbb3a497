"""Messages between the isolated solver's child and its parent: ``8-byte big-endian length + pickle``."""

from __future__ import annotations

import os
import pickle
import struct

__all__ = ["read_frames", "write_frame"]

_HEADER = struct.Struct(">Q")


def write_frame(fd: int, obj) -> None:
    """Write one message to ``fd`` (all of it, or raise ``OSError``)."""
    data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    view = memoryview(_HEADER.pack(len(data)) + data)
    while view:
        n = os.write(fd, view)
        view = view[n:]


def read_frames(stream):
    """The messages on a binary stream, in order, until end of file (a torn last frame is dropped)."""
    while True:
        head = stream.read(_HEADER.size)
        if len(head) < _HEADER.size:
            return
        (size,) = _HEADER.unpack(head)
        body = stream.read(size)
        if len(body) < size:
            return
        yield pickle.loads(body)
