"""Where the model runs: CUDA with fp16 when present, else every CPU core, fp32 or int8."""
from __future__ import annotations

import warnings

import torch

from pipelines.settings import cores


def pick_device(device: str | None = None, threads: int = 0) -> torch.device:
    """The requested device, or CUDA when available, else CPU with `threads` torch threads
    (0: one per core)."""
    chosen = torch.device(device or ("cuda" if torch.cuda.is_available() else "cpu"))
    if chosen.type == "cpu":
        torch.set_num_threads(threads or cores())
    return chosen


def compute_dtype(device: torch.device) -> torch.dtype:
    """fp16 on a GPU (the backbone's activations are well within range); fp32 on CPU."""
    return torch.float16 if device.type == "cuda" else torch.float32


def quantize_int8(encoder: torch.nn.Module) -> torch.nn.Module:
    """The encoder with int8 weights and dynamically quantized activations in its linear layers.

    On a CPU the backbone is ~all of the model's time and its linear layers ~all of the
    backbone's; int8 runs it ~2.2x faster here, at an accuracy cost measured in MODEL_CARD.md.
    torch marks this API deprecated in favour of torchao, which is not a dependency; the
    warning is silenced so that every worker start does not repeat it.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return torch.ao.quantization.quantize_dynamic(encoder, {torch.nn.Linear}, dtype=torch.qint8)
