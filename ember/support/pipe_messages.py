"""Length-prefixed pickled messages over a byte stream: how ember's worker processes
(MetaSchedule's measurement workers, ``contrib.popen_pool``) talk to their parent through
stdin/stdout pipes."""

from __future__ import annotations

import pickle
import struct


def send_message(stream, obj, dumps=pickle.dumps) -> None:
    """Write ``obj`` as an 8-byte little-endian length followed by its pickle, and flush."""
    data = dumps(obj)
    stream.write(struct.pack("<Q", len(data)) + data)
    stream.flush()


def receive_message(stream, peer: str = "the other process"):
    """Read one message written by :func:`send_message`; EOFError names ``peer`` when the
    pipe closes before a whole message arrived."""
    head = stream.read(8)
    if len(head) < 8:
        raise EOFError(f"{peer} closed its pipe")
    (size,) = struct.unpack("<Q", head)
    data = stream.read(size)
    if len(data) < size:
        raise EOFError(f"{peer} closed its pipe mid-message")
    return pickle.loads(data)
