"""Fine-tuning the backbone: what training tunes, what the checkpoint stores, what inference loads.

Each test runs the real MiniLM (one or three layers) on CPU; the last one runs `clausemill
train` on six synthetic contracts (about 40 s), as a user would.
"""
from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest
from conftest import base_env, run_cli

from pipelines.samples import generate_contract

torch = pytest.importorskip("torch", reason="the model extra (torch, transformers) is not installed")

from models.backbone import Backbone  # noqa: E402
from models.batching import BatchLimits, pad_ids  # noqa: E402
from models.checkpoint import layers_file, load_checkpoint, round_layers_to_storage, save_checkpoint  # noqa: E402
from models.config import ModelConfig  # noqa: E402
from models.encoded import cached_encode  # noqa: E402
from models.finetuning import FineTuneSettings, cached_fine_tune, clip_ids, fine_tune, tuning_sample  # noqa: E402
from models.inference import ClauseModel  # noqa: E402
from models.network import ClauseNetwork  # noqa: E402
from models.selection import macro_average_precision  # noqa: E402

CPU = torch.device("cpu")
ASSIGNMENT = ["Neither party may assign this Agreement without the other party's prior written consent.",
              "The Licensee shall not assign or transfer any of its rights hereunder.",
              "This Agreement may not be assigned by Supplier except to a successor of its business.",
              "Any attempted assignment in violation of this section is void."]
GOVERNING_LAW = ["This Agreement is governed by the laws of the State of New York.",
                 "The laws of England and Wales govern this Agreement and any dispute under it.",
                 "This Agreement shall be construed in accordance with the laws of Ontario, Canada.",
                 "Delaware law governs, without regard to its conflict of laws principles."]


def nudged_layers(backbone: Backbone, seed: int = 0) -> dict[str, torch.Tensor]:
    """The backbone's layers moved a little, as fine-tuning moves them, rounded for storage."""
    generator = torch.Generator().manual_seed(seed)
    return round_layers_to_storage({
        name: tensor + 0.01 * torch.randn(tensor.shape, generator=generator)
        for name, tensor in backbone.encoder.state_dict().items() if name.startswith("encoder.layer.")})


def test_the_checkpoint_gives_back_the_tuned_layers_and_inference_computes_with_them(tmp_path: Path) -> None:
    backbone = Backbone(CPU, torch.float32, 64, layers=1)
    layers = nudged_layers(backbone)
    config = ModelConfig(categories=("Governing Law", "Anti-Assignment"), emitted=("Governing Law", "Anti-Assignment"),
                         rank=4, router_hidden=8, max_length=64, layers=1)
    network = ClauseNetwork(2, backbone.hidden, 4, 8, backbone.vocab_size, config.headings)
    plain, tuned = tmp_path / "plain.safetensors", tmp_path / "tuned.safetensors"
    plain_version = save_checkpoint(plain, network, config, backbone.hidden, backbone.vocab_size)
    tuned_version = save_checkpoint(tuned, network, config, backbone.hidden, backbone.vocab_size, layers)

    assert tuned_version != plain_version, "the version covers the backbone's weights too"
    assert load_checkpoint(plain).backbone_layers == {}
    loaded = load_checkpoint(tuned)
    assert loaded.backbone_layers.keys() == layers.keys()
    for name, tensor in layers.items():
        torch.testing.assert_close(loaded.backbone_layers[name], tensor, rtol=1e-6, atol=0)
    matrices = sum(t.numel() for t in layers.values() if t.dim() == 2)
    beside = layers_file(tuned)  # its own file: neither passes the repository's 20 MB limit
    assert beside.stat().st_size < 1.1 * matrices, "matrices are stored as int8, a byte each"
    assert abs(tuned.stat().st_size - plain.stat().st_size) < 1_000 and not layers_file(plain).exists()

    ids, mask = pad_ids(backbone.token_ids(GOVERNING_LAW), backbone.pad_id)
    as_trained = Backbone(CPU, torch.float32, 64, layers=1, tuned=layers).states(ids, mask)
    inferred = ClauseModel(loaded, CPU).backbone.states(ids, mask)
    torch.testing.assert_close(inferred, as_trained, rtol=1e-4, atol=1e-5)
    assert not torch.allclose(backbone.states(ids, mask), as_trained, atol=1e-3), "the tuned layers are used"


def test_a_backbone_refuses_tuned_weights_for_layers_it_does_not_run() -> None:
    three = Backbone(CPU, torch.float32, 64, layers=3)
    layers = nudged_layers(three)
    with pytest.raises(ValueError, match="fine-tuned weights for parameters this 1-layer backbone lacks: encoder.layer.1"):
        Backbone(CPU, torch.float32, 64, layers=1, tuned=layers)


def test_fine_tuning_trains_the_layers_and_leaves_the_embeddings(tmp_path: Path) -> None:
    backbone = Backbone(CPU, torch.float32, 64, layers=1)
    wheel = {name: t.clone() for name, t in backbone.encoder.state_dict().items()}
    texts = ASSIGNMENT + GOVERNING_LAW
    labels = torch.tensor([[1, 0]] * len(ASSIGNMENT) + [[0, 1]] * len(GOVERNING_LAW), dtype=torch.bool)
    settings = FineTuneSettings(epochs=8, lr=1e-3, head_lr=1e-2, batch=4)
    lines: list[str] = []
    net = fine_tune(backbone, texts, labels, torch.ones(len(texts)), settings, seed=1, log=lines.append)

    tuned = net.encoder.state_dict()
    assert all(torch.equal(tuned[n], wheel[n]) for n in wheel if n.startswith("embeddings.")), "embeddings frozen"
    assert any(not torch.equal(tuned[n], wheel[n]) for n in wheel if n.startswith("encoder.layer."))
    ids, mask = pad_ids(backbone.token_ids(texts), backbone.pad_id)
    with torch.no_grad():
        logits = net(ids, mask)
    assert macro_average_precision(logits, labels, torch.ones(len(texts))) == pytest.approx(1.0)
    assert lines[-1].startswith("fine-tuning: step 16/16 (8 segments x 8 epochs)")

    # cached: the second call reads the first one's layers instead of training again
    once = FineTuneSettings(epochs=1, batch=8)
    first = cached_fine_tune(tmp_path, Backbone(CPU, torch.float32, 64, layers=1), texts, labels,
                             torch.ones(len(texts)), once, 1, lines.append)
    second = cached_fine_tune(tmp_path, Backbone(CPU, torch.float32, 64, layers=1), texts, labels,
                              torch.ones(len(texts)), once, 1, lines.append)
    assert lines[-1].startswith("fine-tuning: reading the tuned layers from")
    assert first.keys() == second.keys() and all(torch.equal(first[n], second[n]) for n in first)


def test_encodings_are_cached_apart_for_tuned_and_wheel_layers(tmp_path: Path) -> None:
    wheel = Backbone(CPU, torch.float32, 64, layers=1)
    tuned = Backbone(CPU, torch.float32, 64, layers=1, tuned=nudged_layers(wheel))
    limits, quiet = BatchLimits.for_device(CPU), lambda _: None
    plain_states = cached_encode(tmp_path, wheel, GOVERNING_LAW, limits, quiet).pooled
    tuned_states = cached_encode(tmp_path, tuned, GOVERNING_LAW, limits, quiet).pooled
    assert len(list(tmp_path.glob("encoded-*.pt"))) == 2
    assert not torch.allclose(plain_states, tuned_states, atol=1e-3)


def test_tuning_keeps_every_near_segment_and_half_the_far_negatives_at_twice_their_weight() -> None:
    rate = 0.12
    weights = torch.tensor([1.0] * 200 + [1 / rate] * 2000)
    candidates = np.arange(100, 2200)  # some rows belong to calibration contracts: not candidates
    rows, tuned_weights = tuning_sample(weights, candidates, 0.5, np.random.default_rng(0))
    near, far = rows < 200, rows >= 200
    assert set(rows[near].tolist()) == set(range(100, 200))
    assert 900 < far.sum() < 1100
    assert torch.all(tuned_weights[torch.from_numpy(near)] == 1.0)
    assert torch.allclose(tuned_weights[torch.from_numpy(far)], torch.tensor(2 / rate))


def test_clipped_rows_keep_their_closing_separator() -> None:
    backbone = Backbone(CPU, torch.float32, 64, layers=1)
    long, short = backbone.token_ids([" ".join(["indemnify"] * 80), "Term."])
    clipped = clip_ids([long, short], 16)
    assert clipped[0] == long[:15] + [long[-1]] and long[-1] == backbone.tokenizer.sep_token_id
    assert clipped[1] == short


def test_clausemill_train_fine_tunes_the_layers_into_the_checkpoint(tmp_path: Path) -> None:
    """The command a user runs, on a CUAD-shaped folder of synthetic contracts."""
    data = tmp_path / "cuad"
    (data / "txt").mkdir(parents=True)
    with open(data / "files.csv", "w", newline="", encoding="utf-8") as files, \
            open(data / "spans.jsonl", "w", encoding="utf-8") as spans:
        writer = csv.DictWriter(files, fieldnames=["master_clauses_filename", "pdf", "txt"])
        writer.writeheader()
        for seed in range(6):
            synthetic = generate_contract(seed, short=True)
            name = f"synthetic-{seed}"
            (data / "txt" / f"{name}.txt").write_text(synthetic.text, encoding="utf-8")
            writer.writerow({"master_clauses_filename": f"{name}.pdf", "pdf": f"pdf/{name}.pdf", "txt": f"txt/{name}.txt"})
            for category, (start, end) in synthetic.clause_spans.items():
                spans.write(json.dumps({"filename": f"{name}.pdf", "category": category, "start": start, "end": end}) + "\n")
    out = tmp_path / "model.safetensors"
    done = run_cli(["train", "--data", str(data), "--out", str(out), "--device", "cpu", "--finetune-epochs", "1"],
                   base_env(tmp_path / "state"))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "fine-tuning: the backbone's 3 layers on" in done.stderr  # messages go to stderr
    assert "Saved" in done.stderr and "fine-tuning" in done.stderr.split("Saved")[-1]  # where the time went
    loaded = load_checkpoint(out)
    assert loaded.backbone_layers and json.loads(loaded.config.training["backbone_finetune"])["epochs"] == 1
