"""A batch's reports, written from the database, and its summary table on the terminal."""
from __future__ import annotations

from pathlib import Path

from rich.console import Console
from rich.table import Table

from pipelines.datamodel import DocumentStatus
from pipelines.settings import Settings


def print_summary(batch) -> None:  # type: ignore[no-untyped-def]
    table = Table(title=f"Batch {batch.id}: {batch.count(DocumentStatus.DONE)} done, "
                        f"{batch.count(DocumentStatus.FAILED)} failed")
    for column in ("Document", "Status", "Pages", "Risk", "Findings", "Note"):
        table.add_column(column, overflow="fold")
    style = {DocumentStatus.DONE: "green", DocumentStatus.FAILED: "red"}
    for d in batch.documents:
        note = (f"{d.stage}: {d.reason}" if d.reason else f"same file as {d.duplicate_of}" if d.duplicate_of
                else "; ".join(d.notes))
        table.add_row(d.filename, f"[{style.get(d.status, 'white')}]{d.status}[/]", str(d.page_count or ""),
                      d.risk_level or "", str(len(d.findings)) if d.status is DocumentStatus.DONE else "", note)
    Console().print(table)


def write_outputs(settings: Settings, batch_id: str, out: Path, view: str) -> list[Path]:
    from pipelines.aggregate import DocumentAssessment, aggregate_document
    from pipelines.reports import write_reports
    from pipelines.review.decisions import apply_decisions, standing
    from pipelines.steps import playbook_for
    from storage import repository
    from storage.database import session_scope

    with session_scope(settings.effective_database_url, write=False) as session:
        batch = repository.load_batch_result(session, batch_id, settings.analysers)
        options = repository.batch_options(session, batch_id)
        assessments = {i: DocumentAssessment.from_dict(a) for i, a in repository.load_assessments(session, batch_id).items()}
        trails = repository.decision_trails(session, batch_id)
        calibrations = {v: repository.load_calibration(session, v)
                        for v in {assessments[i].calibration for i in trails if i in assessments} - {None}}
    playbook = playbook_for(options)
    for doc in batch.documents:  # reviewed documents are assessed again from the decided findings,
        if doc.id in trails:     # through the calibration they were audited with
            doc.findings = apply_decisions(doc.findings, standing(trails[doc.id]))
            stored = assessments.pop(doc.id, None)
            if stored is not None and stored.calibration is not None:
                assessments[doc.id] = aggregate_document(doc.findings, playbook, doc.page_count,
                                                         calibration=calibrations.get(stored.calibration))
    written = write_reports(batch, out, view=view, playbook=playbook, assessments=assessments)
    print_summary(batch)
    return written
