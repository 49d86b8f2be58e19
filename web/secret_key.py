"""The key that signs session cookies: configured, or generated once per data folder.

A key in the repository or on the command line would leak; a key generated per process
would log everyone out at each restart and differ between two `clausemill serve`s on one
data folder.  So: CLAUSEMILL_SECRET_KEY, else the file CLAUSEMILL_SECRET_KEY_FILE names, else
data_dir/secret_key, created on first use with mode 0600.
"""
from __future__ import annotations

import os
import secrets
from pathlib import Path

from pipelines.settings import Settings

KEY_BYTES = 32


def session_secret(settings: Settings) -> str:
    """The configured key, or the data folder's own (generated now if it has none)."""
    configured = settings.secret_key.get_secret_value()
    if configured:
        return configured
    if settings.secret_key_file is not None:
        key = settings.secret_key_file.read_text().strip()
        if not key:
            raise ValueError(f"CLAUSEMILL_SECRET_KEY_FILE {settings.secret_key_file} is empty")
        return key
    return _generated_key(settings.data_dir / "secret_key")


def _generated_key(path: Path) -> str:
    """Read `path`, or write a new key there first.  The key is written to a private temporary
    file and linked into place, so two processes starting at once agree on one whole key."""
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        staging = path.with_name(f".{path.name}.{os.getpid()}")
        descriptor = os.open(staging, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "w") as out:
            out.write(secrets.token_urlsafe(KEY_BYTES) + "\n")
        try:
            os.link(staging, path)
        except FileExistsError:
            pass  # another process won the race: use its key
        finally:
            staging.unlink()
    return path.read_text().strip()
