"""report.html: one self-contained page a lawyer can open, print or mail.

Inline CSS and an inline SVG chart, no script and no network, so it renders the same from a
file share, an e-mail attachment or an air-gapped machine.  Every piece of text that came
from a document or a playbook is escaped.  The summary view (business) stops at one line per
contract; the full view (legal) adds a card per document with key terms, issues with their
quotes and pages, every clause found with its evidence chain, and the review queue.
"""
from __future__ import annotations

from html import escape
from pathlib import Path

from pipelines.aggregate import Assessed, DocumentAssessment, KeyTerm, MergedFinding
from pipelines.datamodel import BatchResult, DocumentResult, DocumentStatus, Finding
from pipelines.categories import KEY_TERMS
from pipelines.playbook.checks import Issue
from pipelines.playbook.severity import RISK_LEVELS, rank
from pipelines.reports.chart import category_chart
from pipelines.reports.palette import LEVEL_COLORS, SEVERITY_COLORS
from pipelines.reports.tables import how_read, key_term_text, missing_clauses, quotes

_ISSUE_LABELS = {"missing": "Missing", "risky": "Risky clause", "value": "Check value"}
_QUOTE_CHARS = 600


def write_html(batch: BatchResult, assessed: list[Assessed], summary: dict, playbook_label: str,
               view: str, path: Path) -> Path:
    path.write_text(render_html(batch, assessed, summary, playbook_label, view), encoding="utf-8")
    return path


def render_html(batch: BatchResult, assessed: list[Assessed], summary: dict, playbook_label: str, view: str) -> str:
    title = f"Contract audit — batch {batch.id}"
    body = [
        f"<header><h1>{_e(title)}</h1>",
        f'<p class="meta">Created {_e(batch.created_at)} · finished {_e(batch.finished_at or "not yet")} · '
        f"batch status {_e(batch.status)} · playbook {_e(playbook_label)} · "
        f"{'business summary' if view == 'summary' else 'full legal view'}</p></header>",
        _summary_section(summary),
        _contracts_section(assessed, view),
    ]
    if view == "full":
        body.append('<section id="documents"><h2>Documents</h2>')
        body.extend(_document_card(doc, a) for doc, a in assessed)
        body.append("</section>")
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{_e(title)}</title><style>{_css()}</style></head><body>"
        + "".join(body)
        + "</body></html>\n"
    )


def _summary_section(summary: dict) -> str:
    status = summary["by_status"]
    tiles = [("Documents", summary["documents"]), ("Done", status.get(DocumentStatus.DONE, 0)),
             ("Failed", status.get(DocumentStatus.FAILED, 0)), ("Duplicates", status.get(DocumentStatus.DUPLICATE, 0)),
             ("Still running", status.get(DocumentStatus.PENDING, 0) + status.get(DocumentStatus.RUNNING, 0)),
             ("Items to review", summary["review_items"])]
    parts = ['<section id="summary"><h2>Batch summary</h2><div class="tiles">']
    parts += [f'<div class="tile"><span class="n">{n}</span><span class="label">{_e(label)}</span></div>'
              for label, n in tiles]
    parts.append("</div>")
    parts.append('<h3>Risk distribution</h3><div class="tiles">')
    parts += [f'<div class="tile level-{level}"><span class="n">{summary["by_risk_level"].get(level, 0)}</span>'
              f'<span class="label">{level} risk</span></div>' for level in RISK_LEVELS]
    parts.append("</div>")
    if summary["failed"]:
        parts.append("<h3>Failed documents</h3><table><thead><tr><th>File</th><th>Stage</th><th>Reason</th>"
                     "</tr></thead><tbody>")
        parts += [f"<tr><td>{_e(f['filename'])}</td><td>{_e(f['stage'] or '')}</td><td>{_e(f['reason'] or '')}"
                  "</td></tr>" for f in summary["failed"]]
        parts.append("</tbody></table>")
    parts.append("<h3>Clauses by category and severity</h3><p class=\"muted\">Documents per category, "
                 "coloured by the worst severity there: a playbook issue (missing, risky, value) if any, "
                 "else the clause's own severity.</p>")
    parts.append(category_chart(summary["categories"], max(sum(summary["by_risk_level"].values()), 1)))
    parts.append("</section>")
    return "".join(parts)


def _contracts_section(assessed: list[Assessed], view: str) -> str:
    """One line per contract: the business view in full, the legal view's index."""
    parts = ['<section id="contracts"><h2>Contracts</h2><table class="contracts"><thead><tr><th>File</th>'
             "<th>Risk</th><th>Missing</th><th>To renegotiate</th><th>Review</th></tr></thead><tbody>"]
    for doc, a in assessed:
        name = _e(doc.filename)
        if view == "full":
            name = f'<a href="#doc-{doc.id}">{name}</a>'
        if a is None:
            parts.append(f'<tr><td>{name}</td><td colspan="4">{_status_line(doc)}</td></tr>')
            continue
        asks = "".join(f"<li>{_badge(i.finding.severity)} <b>{_e(i.finding.category)}</b>: "
                       f"{_e(i.advice or i.finding.note or '')}</li>" for i in a.issues if i.kind != "missing")
        parts.append(
            f"<tr><td>{name}</td><td>{_level_badge(a)}</td><td>{_e(missing_clauses(a)) or '—'}</td>"
            f'<td>{f"<ul>{asks}</ul>" if asks else "—"}</td><td>{len(a.review) or "—"}</td></tr>')
    parts.append("</tbody></table></section>")
    return "".join(parts)


def _document_card(doc: DocumentResult, a: DocumentAssessment | None) -> str:
    head = f'<article class="doc" id="doc-{doc.id}"><h3>{_e(doc.filename)} {_level_badge(a) if a else ""}</h3>'
    facts = [f"status {doc.status}"]
    if doc.page_count is not None:
        facts.append(f"{doc.page_count} pages" + (f", {doc.ocr_pages} OCRed" if doc.ocr_pages else ""))
    if doc.timings:
        facts.append("times: " + ", ".join(f"{stage} {seconds:.1f} s" for stage, seconds in doc.timings.items()))
    head += f'<p class="meta">{_e(" · ".join(facts))}</p>'
    if a is None:
        return head + f'<p class="status">{_status_line(doc)}</p></article>'
    sections = [_key_terms(a.key_terms), _issues(a.issues), _clauses(a.shown(), a.thresholds.present), _review(a)]
    return head + "".join(sections) + "</article>"


def _key_terms(terms: dict[str, KeyTerm]) -> str:
    rows = []
    for name in KEY_TERMS:
        term = terms.get(name)
        if term is None:
            rows.append(f'<tr><th>{_e(name)}</th><td class="muted">not found</td><td></td></tr>')
        elif term.conflict:
            values = "".join(f"<li>{_e(c.value or '')} <span class=\"page\">p. {c.page}</span></li>"
                             for c in term.candidates)
            rows.append(f'<tr class="conflict"><th>{_e(name)}</th><td><b>Conflict — needs review</b>'
                        f"<ul>{values}</ul></td><td></td></tr>")
        else:
            muted = "" if term.stated else ' class="muted"'
            evidence = "".join(f"<li>{_e(q['role'])}, p. {q['page']}: “{_e(_short(q['text']))}”</li>"
                               for q in quotes(term))
            confidence = f"confidence {term.finding.confidence:.2f} · " if term.finding else ""
            rows.append(f"<tr><th>{_e(name)}</th><td{muted}>{_e(_short(key_term_text(term)))}"
                        f'<details><summary>{_e(how_read(term))}</summary><ul class="evidence">{evidence}</ul>'
                        f'</details></td><td class="page">{_e(confidence)}{_e(_pages(term))}</td></tr>')
    return '<h4>Key terms</h4><table class="kv">' + "".join(rows) + "</table>"


def _pages(term: KeyTerm) -> str:
    pages = sorted({q["page"] for q in quotes(term) if q.get("page")})
    return ("p. " + ", ".join(str(p) for p in pages)) if pages else term.basis


def _issues(issues: list[Issue]) -> str:
    if not issues:
        return '<h4>Issues</h4><p class="muted">None against this playbook.</p>'
    items = []
    for issue in issues:
        f = issue.finding
        advice = f'<p class="advice">Suggested change: {_e(issue.advice)}</p>' if issue.advice else ""
        items.append(f'<li class="issue">{_badge(f.severity)} <b>{_e(_ISSUE_LABELS[issue.kind])}: '
                     f"{_e(f.category)}</b> <span class=\"conf\">confidence {f.confidence:.2f}</span>"
                     f"<p>{_e(f.note or '')}</p>{_quote(f)}{advice}</li>")
    return "<h4>Issues</h4><ul class=\"issues\">" + "".join(items) + "</ul>"


def _clauses(found: list[MergedFinding], present: float) -> str:
    """Every clause found, worst first; ones under the presence threshold are marked weak."""
    if not found:
        return '<h4>Clauses found</h4><p class="muted">No clause found.</p>'
    rows = []
    for m in sorted(found, key=lambda m: (-rank(m.finding.severity), m.finding.start)):
        f = m.finding
        chain = "".join(
            f"<li>{_e(e.source)} <code>{_e(e.version)}</code> confidence {e.confidence:.2f}, page {e.page}, "
            f"chars {e.start}–{e.end}{_box(e)}: “{_e(_short(e.text))}”</li>" for e in m.evidence)
        value = f'<div class="value"><b>Value:</b> {_e(f.value)}</div>' if f.value else ""
        weak = ' <span class="muted">weak</span>' if f.confidence < present else ""
        rows.append(
            f"<tr><td>{_e(f.category)}</td><td>{_badge(f.severity)}</td><td>{f.confidence:.2f}{weak}</td>"
            f"<td>{_e(f.source)}</td><td>{f.page}</td><td>{_quote(f, with_page=False)}{value}"
            f"<details><summary>Evidence ({len(m.evidence)})</summary><ul>{chain}</ul></details></td></tr>")
    return ('<h4>Clauses found</h4><table class="clauses"><thead><tr><th>Category</th><th>Severity</th>'
            "<th>Confidence</th><th>Source</th><th>Page</th><th>Quote</th></tr></thead><tbody>"
            + "".join(rows) + "</tbody></table>")


def _review(a: DocumentAssessment) -> str:
    if not a.review:
        return ""
    items = "".join(f'<li><span class="conf">priority {r.priority:.2f}</span> {_e(r.reason)}{_quote(r.finding)}</li>'
                    for r in a.review)
    return f'<h4>For review</h4><ul class="review">{items}</ul>'


def _status_line(doc: DocumentResult) -> str:
    if doc.status is DocumentStatus.FAILED:
        stage = f" at {doc.stage}" if doc.stage else ""
        return f'<span class="failed">Failed{_e(stage)}</span>: {_e(doc.reason or "no reason recorded")}'
    if doc.status is DocumentStatus.DUPLICATE:
        return f"Duplicate of {_e(doc.duplicate_of or 'another document')}: not assessed again"
    return f"{_e(doc.status.capitalize())}: not assessed yet"


def _quote(f: Finding, with_page: bool = True) -> str:
    if not f.text.strip():
        return ""
    page = f' <span class="page">p. {f.page}</span>' if with_page and f.page else ""
    return f"<blockquote>{_e(_short(f.text))}{page}</blockquote>"


def _box(f: Finding) -> str:
    return f", box ({', '.join(f'{v:.0f}' for v in f.box)})" if f.box else ""


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _QUOTE_CHARS else text[: _QUOTE_CHARS - 1] + "…"


def _badge(severity: str) -> str:
    return f'<span class="badge sev-{_e(severity)}">{_e(severity)}</span>'


def _level_badge(a: DocumentAssessment) -> str:
    return f'<span class="badge level-{_e(a.risk_level)}">{_e(a.risk_level)} risk · {a.risk_score:.0f}</span>'


def _e(text: object) -> str:
    return escape(str(text), quote=True)


def _css() -> str:
    severity = "".join(f".sev-{s}{{background:{c}}}" for s, c in SEVERITY_COLORS.items())
    level = "".join(f".badge.level-{s},.tile.level-{s}{{background:{c};color:#fff}}" for s, c in LEVEL_COLORS.items())
    return (
        "body{font:15px/1.45 Georgia,'Times New Roman',serif;color:#111827;max-width:1100px;margin:2em auto;"
        "padding:0 1.5em}"
        "h1,h2,h3,h4{font-family:Helvetica,Arial,sans-serif;line-height:1.2}h1{font-size:1.6em}"
        "h2{border-bottom:2px solid #111827;padding-bottom:.2em;margin-top:2em}h4{margin:1.2em 0 .4em}"
        ".meta,.muted,.page,.conf{color:#6b7280;font-size:.9em}"
        ".tiles{display:flex;flex-wrap:wrap;gap:.6em;margin:.6em 0}"
        ".tile{border:1px solid #d1d5db;border-radius:6px;padding:.5em 1em;min-width:7em;"
        "font-family:Helvetica,Arial,sans-serif}"
        ".tile .n{display:block;font-size:1.6em;font-weight:bold}.tile .label{font-size:.85em}"
        "table{border-collapse:collapse;width:100%;margin:.4em 0;font-size:.95em}"
        "th,td{border-bottom:1px solid #e5e7eb;padding:.35em .5em;text-align:left;vertical-align:top}"
        "thead th{background:#f3f4f6;font-family:Helvetica,Arial,sans-serif;font-size:.85em}"
        "table.kv th{width:16em;font-weight:normal;color:#374151}"
        "tr.conflict td{background:#fef3c7}"
        "td ul,ul.issues,ul.review{margin:0;padding-left:1.1em}"
        ".badge{display:inline-block;white-space:nowrap;border-radius:4px;padding:0 .45em;color:#fff;"
        "font:bold .75em Helvetica,Arial,sans-serif;text-transform:uppercase;vertical-align:middle}"
        + severity + level +
        "blockquote{margin:.3em 0;padding:.3em .8em;border-left:3px solid #9ca3af;background:#f9fafb}"
        ".value{margin:.2em 0}.advice{margin:.2em 0;color:#065f46}.issue{margin-bottom:.8em}.issue p{margin:.2em 0}"
        ".failed{color:#b91c1c;font-weight:bold}"
        "article.doc{border:1px solid #d1d5db;border-radius:8px;padding:.2em 1.2em 1em;margin:1.5em 0;"
        "page-break-inside:avoid}"
        "details summary{cursor:pointer;color:#374151;font-size:.9em}code{font-size:.85em}"
        "svg.chart{max-width:100%;height:auto;font:12px Helvetica,Arial,sans-serif}svg .count{fill:#374151}"
        "@media print{body{margin:0;max-width:none}a{color:inherit;text-decoration:none}}"
    )
