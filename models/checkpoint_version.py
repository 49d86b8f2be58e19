"""Which checkpoint an audit runs with, read without torch.

A nightly run compares the model's version with the one each contract was audited with before
it decides what to audit again; importing torch for that (models/checkpoint.py) cost an
unchanged night over two seconds of its six.  The version sits in the safetensors header's
metadata, which numpy's reader opens without loading a weight.
"""
from __future__ import annotations

from pathlib import Path

from safetensors import safe_open

DEFAULT_CHECKPOINT = Path(__file__).resolve().parent / "checkpoint" / "clause_experts.safetensors"


def checkpoint_version(path: Path = DEFAULT_CHECKPOINT) -> str:
    """The version stored in the checkpoint's metadata; OSError or KeyError when it has none."""
    with safe_open(str(path), framework="numpy") as checkpoint:
        return (checkpoint.metadata() or {})["version"]
