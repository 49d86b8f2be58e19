"""Which files of the paths a user names are contracts to audit.

Shared by `clausemill audit` and the drop-folder watcher, so both take the same files.
"""
from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

SUPPORTED_SUFFIXES = frozenset({".pdf", ".txt", ".docx"})


def collect_inputs(paths: Iterable[Path]) -> list[Path]:
    """Files named directly are always audited (a bad one ends `failed` with a reason);
    folders contribute their .pdf, .txt and .docx files, recursively, in a stable order.

    Raises FileNotFoundError for a path that does not exist: a typo must not pass as an
    empty batch.
    """
    found: list[Path] = []
    for path in paths:
        if path.is_dir():
            found += sorted(p for p in path.rglob("*") if p.is_file() and p.suffix.lower() in SUPPORTED_SUFFIXES)
        elif path.exists():
            found.append(path)
        else:
            raise FileNotFoundError(f"{path} does not exist")
    return list(dict.fromkeys(p.resolve() for p in found))
