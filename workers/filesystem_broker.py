"""kombu's filesystem transport, with messages that appear whole.

The stock transport creates a message file under its final name and then writes it, so a
worker listing the folder at that instant takes an empty or half-written file and dies on a
JSONDecodeError (seen here in the embedded mode under load).  This transport writes to a
hidden temporary name and renames: on one file system a rename is atomic, and consumers only
ever see complete messages.
"""
from __future__ import annotations

import os
import uuid
from time import monotonic

from kombu.exceptions import ChannelError
from kombu.transport import TRANSPORT_ALIASES, filesystem
from kombu.utils.encoding import str_to_bytes
from kombu.utils.json import dumps

SCHEME = "clausemillfs"


class Channel(filesystem.Channel):
    def _put(self, queue: str, payload: dict, **kwargs: object) -> None:
        name = f"{int(round(monotonic() * 1000))}_{uuid.uuid4()}.{queue}.msg"
        final = os.path.join(self.data_folder_out, name)
        # A leading dot keeps the partial file out of the consumer's "<anything>.<queue>.msg" match.
        partial = os.path.join(self.data_folder_out, f".{name}.partial")
        try:
            with open(partial, "wb") as stream:
                stream.write(str_to_bytes(dumps(payload)))
            os.replace(partial, final)
        except OSError as exc:
            raise ChannelError(f"Cannot add message {final!r} to the queue folder") from exc


class Transport(filesystem.Transport):
    Channel = Channel
    global_state = filesystem.Transport.global_state


TRANSPORT_ALIASES[SCHEME] = f"{__name__}:Transport"
