"""report.html: a front page a general counsel triages from, and one page per contract.

Rendered from the jinja2 templates in pipelines/reports/templates: base.html (the layout and
its stylesheet), report.html (the front page, which extends it) and contract.html (one
contract's page, a partial the reviewers' web app renders on its own).  Autoescaping is on
and undefined variables raise, so every piece of text from a document or a playbook is
escaped and a misspelt field fails loudly instead of printing nothing.

The file stays self-contained (inline CSS, an inline SVG chart, a small inline script, no
network) so it opens the same from a file share or a mail attachment.  The triage table is
sorted by risk on the server; the script only adds sorting and filtering, so the page reads
the same without it.  The summary view (business) is the front page; the full view (legal)
adds a page per contract with its key terms, issues and what to ask for.
"""
from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date
from functools import cache
from pathlib import Path

import jinja2
from markupsafe import Markup, escape

from pipelines.assessment import Assessed, DocumentAssessment, Issue, Sides
from pipelines.categories import KEY_TERMS
from pipelines.datamodel import BatchResult, DocumentResult, DocumentStatus, MergedFinding
from pipelines.deadlines import (
    EXPIRATION, KIND_TITLES, NOTICE, RENEWAL, Deadline, deadlines_of, next_deadline, term_in_force,
)
from pipelines.playbook.severity import RISK_LEVELS, rank
from pipelines.reports.chart import category_chart
from pipelines.reports.palette import LEVEL_COLORS, SEVERITY_COLORS
from pipelines.reports.tables import TOP_ISSUES
from pipelines.terms import CONTRACT_TYPE
from pipelines.terms.display import display_value, how_read, key_term_text, quotes

TEMPLATES = Path(__file__).resolve().parent / "templates"
NEEDS_ATTENTION: tuple[str, ...] = ("critical", "high")
"""Risk levels a contract must be looked at for before anything else."""

_ISSUE_LABELS = {"missing": "Missing clause", "risky": "Risky clause", "value": "Check value"}
_WAITING: tuple[DocumentStatus, ...] = (DocumentStatus.FAILED, DocumentStatus.DUPLICATE, DocumentStatus.RUNNING,
                                        DocumentStatus.PENDING, DocumentStatus.DONE)
"""How documents without an assessment follow the assessed ones in the triage table."""
_OWN_ACTIONS = frozenset({"check", "confirm", "diarise", "diarize", "review"})
"""Advice starting with one of these is for our lawyers to do, not something to ask for."""
_DATED = frozenset({EXPIRATION, RENEWAL, NOTICE})
"""Categories whose request is worth the contract's next deadline."""
BIDI_CONTROLS = re.compile("[\u202a-\u202e\u2066-\u2069]")
"""Unicode's explicit embeddings, overrides and isolates: invisible, and they reorder what follows."""


@dataclass(frozen=True)
class IssueView:
    """A playbook issue as a contract's page shows it: what the contract says beside what our
    playbook wants, and the request to make of this counterparty."""

    issue: Issue
    label: str
    says: str  # the clause as quoted; "" when nothing was found
    playbook: str
    ask: str

    @property
    def category(self) -> str:
        return self.issue.finding.category

    @property
    def severity(self) -> str:
        return self.issue.finding.severity

    @property
    def page(self) -> int | None:
        return self.issue.finding.page if self.says else None


@dataclass(frozen=True)
class ContractView:
    """One contract as the triage table and its own page show it, facts read once for both."""

    doc: DocumentResult
    assessment: DocumentAssessment | None
    counterparty: str
    contract_type: str
    our_role: str
    term: str  # the term in force, in a few words (pipelines.deadlines.TermInForce.shown)
    term_sort: str  # its end as an ISO date, "" when the contract gives none
    deadline: Deadline | None
    top_issues: tuple[str, ...]
    issues: tuple[IssueView, ...]
    clauses: tuple[MergedFinding, ...]  # every clause shown, worst first
    deadlines: tuple[Deadline, ...] = ()  # every dated event of the term in force, soonest first

    @property
    def anchor(self) -> str:
        return f"doc-{self.doc.id}"

    @property
    def level(self) -> str:
        """The risk level, or "none" for a document that was not assessed (the level filter's value)."""
        return self.assessment.risk_level if self.assessment else "none"

    @property
    def level_sort(self) -> str:
        """A number that orders by level, then score: "" when not assessed, so it sorts last."""
        a = self.assessment
        return f"{RISK_LEVELS.index(a.risk_level) * 1000 + a.risk_score:.1f}" if a else ""


@dataclass(frozen=True)
class Overview:
    """The executive summary's facts, counted once so its sentences and tiles agree."""

    documents: int
    assessed: int
    by_level: dict[str, int]
    attention: tuple[ContractView, ...]
    top_categories: list[dict]
    deadlines: tuple[ContractView, ...]  # soonest first
    failed: list[dict]
    duplicates: int
    waiting: int
    side_unnamed: bool  # some contract was assessed without our side being named
    side_not_found: tuple[ContractView, ...]  # our side was named but is not among its parties

    @property
    def attention_levels(self) -> list[str]:
        """ "1 at critical", "2 at high": the levels that need attention, those with contracts."""
        return [f"{self.by_level[level]} at {level}" for level in NEEDS_ATTENTION if self.by_level.get(level)]


def write_html(batch: BatchResult, assessed: list[Assessed], summary: dict, playbook_label: str,
               view: str, path: Path, as_of: date | None = None) -> Path:
    """report.html at `path`, deadlines counted from `as_of` (default today)."""
    path.write_text(render_html(batch, assessed, summary, playbook_label, view, as_of), encoding="utf-8")
    return path


def render_html(batch: BatchResult, assessed: list[Assessed], summary: dict, playbook_label: str, view: str,
                as_of: date | None = None) -> str:
    """The whole page; `as_of` (default today) is the day deadlines are counted from."""
    as_of = as_of or date.today()
    contracts = sorted((contract_view(doc, a, as_of) for doc, a in assessed), key=_risk_order)
    chart = category_chart(summary["categories"], max(sum(summary["by_risk_level"].values()), 1))
    return environment().get_template("report.html").render(
        title=f"Contract audit — batch {batch.id}", batch=batch, playbook_label=playbook_label, view=view,
        as_of=as_of, contracts=contracts, overview=_overview(contracts, summary),
        chart=Markup(chart),  # chart.py escapes every category name it draws
    )


@cache
def environment() -> jinja2.Environment:
    """The templates' environment, with the palette and the key-term helpers they use; the
    reviewers' web app renders contract.html from it with `c=contract_view(...)`."""
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES), autoescape=True,
                             undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    env.globals.update(level_colors=LEVEL_COLORS, severity_colors=SEVERITY_COLORS, risk_levels=RISK_LEVELS,
                       needs_attention=NEEDS_ATTENTION, key_terms=KEY_TERMS, kind_titles=KIND_TITLES,
                       key_term_text=key_term_text, how_read=how_read, quotes=quotes, nonce=nonce)
    env.filters.update(short=short, plural=plural, words=words, name=name)
    return env


def name(text: str) -> Markup:
    """A file, party or user name shown inside a line, as `{{ x | name }}`: isolated in <bdi>,
    so a right-to-left name cannot reorder the text around it, and with its bidirectional
    controls written out ("[U+202E]"), since <bdi> stops them at the name's edge but not
    inside it: "invoice" U+202E "fdp.txt" would still read "invoicetxt.pdf".  A genuine name
    rarely holds one (Hebrew or Arabic letters carry their own direction), so a marker points
    at a name worth a second look.  Escaped like any other text."""
    shown = BIDI_CONTROLS.sub(lambda control: f"[U+{ord(control.group()):04X}]", str(text))
    return Markup("<bdi>{}</bdi>").format(shown)


@jinja2.pass_context
def nonce(context: jinja2.runtime.Context) -> Markup:
    """` nonce="…"` for an inline <script> or <style>, as `<script{{ nonce() }}>`: the web app
    passes each response's nonce as `csp_nonce` (web/security_headers.py), the only inline code
    its Content-Security-Policy runs; report.html, a file with no policy, has none."""
    value = context.get("csp_nonce")
    return Markup(' nonce="{}"').format(value) if value else Markup("")


def contract_view(doc: DocumentResult, a: DocumentAssessment | None, as_of: date) -> ContractView:
    """What both the triage row and the contract's page show of `doc`."""
    if a is None:
        return ContractView(doc, None, counterparty="", contract_type="", our_role="", term="", term_sort="",
                            deadline=None, top_issues=(), issues=(), clauses=())
    terms = a.key_terms
    deadlines = tuple(deadlines_of(doc, terms, as_of))
    deadline = next_deadline(deadlines)
    term = term_in_force(terms, as_of)
    return ContractView(
        doc=doc, assessment=a,
        counterparty="; ".join(p.name for p in a.sides.counterparties) or "—",
        contract_type=key_term_text(terms.get(CONTRACT_TYPE)),
        our_role=a.sides.our_role or "—",
        term=term.shown(), term_sort=term.end.isoformat() if term.end else "",
        deadline=deadline,
        top_issues=tuple(_phrase(i) for i in a.issues[:TOP_ISSUES]),
        issues=tuple(_issue_view(i, a, deadline) for i in a.issues),
        clauses=tuple(sorted(a.shown(), key=lambda m: (-rank(m.finding.severity), m.finding.start))),
        deadlines=deadlines,
    )


def short(text: str, limit: int = 600) -> str:
    """`text` on one line, cut at `limit` characters: quotes stay readable and pages printable."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def plural(n: int, noun: str) -> str:
    """ "1 contract", "3 contracts": the summary's sentences count in words."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def words(items: Iterable[str], last: str = "and") -> Markup:
    """ "a, b and c": lists inside the summary's sentences.  Each item is escaped unless it is
    markup already (a `name`), so names keep their <bdi> in a list."""
    items = [escape(item) for item in items]
    if len(items) > 1:
        return Markup("{} {} {}").format(Markup(", ").join(items[:-1]), last, items[-1])
    return Markup("").join(items)


def _risk_order(c: ContractView) -> tuple:
    """Critical first, then high, medium, low, each by score; documents not assessed last."""
    if c.assessment is None:
        return (1, _WAITING.index(c.doc.status), c.doc.filename)
    return (0, -RISK_LEVELS.index(c.assessment.risk_level), -c.assessment.risk_score, c.doc.filename)


def _phrase(issue: Issue) -> str:
    """An issue in a few words: "Non-Compete (high)", "no Cap On Liability (medium)"."""
    f = issue.finding
    return f"{'no ' if issue.kind == 'missing' else ''}{f.category} ({f.severity})"


def _issue_view(issue: Issue, a: DocumentAssessment, deadline: Deadline | None) -> IssueView:
    f = issue.finding
    says = short(f.text) if f.text.strip() else ""
    return IssueView(issue, _ISSUE_LABELS[issue.kind], says, f.note or "", _request(issue, a, deadline))


def _request(issue: Issue, a: DocumentAssessment, deadline: Deadline | None) -> str:
    """What to ask for, specific to this contract: the playbook's advice addressed to the
    counterparty by name, with the value the contract gives today and its next deadline."""
    f = issue.finding
    advice = issue.advice or (f"Add a {f.category} clause." if issue.kind == "missing"
                              else f"Revise the {f.category} clause to meet our playbook.")
    parts = [_addressed(advice, _addressee(a.sides))]
    if f.value and issue.kind != "missing":
        parts.append(f"It now reads “{short(_reads(issue, a), 120)}”.")
    if deadline is not None and f.category in _DATED:
        parts.append(f"{KIND_TITLES[deadline.kind]}: {deadline.date:%d %B %Y} (in {plural(deadline.days, 'day')}).")
    return " ".join(parts)


def _reads(issue: Issue, a: DocumentAssessment) -> str:
    """The value an issue is about as the contract's key term shows it ("successive 1-year periods"),
    or the issue's own value when the term is in conflict or not a key term."""
    f = issue.finding
    term = a.key_terms.get(f.category)
    if term is not None and term.stated and term.value == f.value:
        return key_term_text(term)
    return display_value(f.category, f.value, f.detail)


def _addressed(advice: str, who: str) -> str:
    """ "Narrow the non-compete…" as "Ask Northwind Ltd to narrow the non-compete…"; advice
    for our own lawyers ("Diarise…", "Check…") is kept as it is."""
    first, _, rest = advice.partition(" ")
    verb = first.lower()
    if verb == "ask":
        return f"Ask {who} {rest}"
    if verb in _OWN_ACTIONS or not rest:
        return advice
    return f"Ask {who} to {first[:1].lower()}{first[1:]} {rest}"


def _addressee(sides: Sides) -> str:
    """Whom a request goes to: the counterparties by name once we know which side is ours."""
    names = [p.name for p in sides.counterparties]
    return " and ".join(names) if sides.our_party is not None and names else "the counterparty"


def _overview(contracts: list[ContractView], summary: dict) -> Overview:
    status = summary["by_status"]
    assessed = [c for c in contracts if c.assessment is not None]
    return Overview(
        documents=summary["documents"], assessed=len(assessed), by_level=summary["by_risk_level"],
        attention=tuple(c for c in assessed if c.level in NEEDS_ATTENTION),
        top_categories=summary["top_categories"][:3],
        deadlines=tuple(sorted((c for c in assessed if c.deadline is not None), key=lambda c: c.deadline.date)),
        failed=summary["failed"], duplicates=status.get(DocumentStatus.DUPLICATE, 0),
        waiting=status.get(DocumentStatus.PENDING, 0) + status.get(DocumentStatus.RUNNING, 0),
        side_unnamed=any(not c.assessment.sides.named for c in assessed),
        side_not_found=tuple(c for c in assessed if c.assessment.sides.named and c.assessment.sides.our_party is None),
    )

