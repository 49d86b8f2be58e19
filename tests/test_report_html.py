"""report.html on a realistic batch: escaped everywhere, triaged by risk, and usable in a real
browser (sorting, filters, no overflow at 1280 px, a few printed pages per contract).

The contracts are synthetic samples read and assessed by the pipeline's own stages (text
extraction, segmentation, rules) with a few model findings added where the rules alone are not
confident enough to raise a verified issue, as the model stage does in a batch.
"""
from __future__ import annotations

import io
from dataclasses import dataclass
from datetime import date
from pathlib import Path

import lxml.html
import pdfplumber
import pytest

from pipelines.aggregate import assess_batch, summarize_batch
from pipelines.assessment import Assessed
from pipelines.datamodel import BatchResult, DocumentResult, DocumentStatus, Finding
from pipelines.playbook import Playbook, load_playbook
from pipelines.reports.html_report import contract_view, environment, render_html
from pipelines.samples import generate_contract, write_txt
from pipelines.stages.extract import extract_text_layer
from pipelines.stages.segment import segment_document
from pipelines.steps import rules_analyser

CHROMIUM = Path("/usr/bin/chromium")
OURS = ("Meridian Bay Biosciences",)
AS_OF = date(2027, 1, 10)
"""Thirty days' notice before the licence's 1 March renewal falls 20 days after this day."""
XSS_SCRIPT = "<script>alert(1)</script>"
XSS_ATTR = '"><img src=x onerror=alert(2)>'
HOSTILE_FILE = f"{XSS_SCRIPT}{XSS_ATTR}.pdf"
FAILURE = f"encrypted PDF: a password is required {XSS_SCRIPT}"
SPOOFED = "halcyon-distribution-\u202efdp.txt"
"""A text file whose name reads "...-txt.pdf" wherever the right-to-left override is obeyed."""
NON_COMPETE = "Neither party shall, during the Term, engage in any competing business in North America."
UNCAPPED = "Notwithstanding anything to the contrary, the liability of either party for a breach of this Agreement shall be unlimited."
COLUMNS = ["Contract", "Counterparty", "Type", "Our role", "Term in force", "Next deadline", "Level", "Top issues"]
LEVELS = {"critical": 0, "high": 1, "medium": 2, "low": 3}


@dataclass(frozen=True)
class Sample:
    """A synthetic contract as one document of the batch: which seed, under which name, with
    which clauses added (each also found by the model)."""

    seed: int
    filename: str
    added: tuple[tuple[str, str], ...] = ()  # (category, paragraph)


SAMPLES = (
    Sample(6, "granite-peak-licence.pdf"),
    Sample(1, "northwind-distribution.pdf"),
    Sample(14, "copperleaf-licence.pdf", (("Uncapped Liability", UNCAPPED),)),
    Sample(23, "cedar-ridge-distribution.pdf", (("Non-Compete", NON_COMPETE),)),
    Sample(18, SPOOFED),
    Sample(2, HOSTILE_FILE, (("Non-Compete", f"{XSS_SCRIPT} {NON_COMPETE} {XSS_ATTR}"),)),
)


def document(sample: Sample, doc_id: int, folder: Path) -> DocumentResult:
    """`sample` written as a .txt file and analysed by the rules, plus the model's findings for
    the clauses added, as a done document."""
    contract = generate_contract(sample.seed)
    path = folder / f"contract-{sample.seed}.txt"
    write_txt(contract, path)
    path.write_text("\n\n".join([path.read_text(encoding="utf-8"), *(paragraph for _, paragraph in sample.added)]), encoding="utf-8")
    pages = extract_text_layer(path, "txt")
    joined = "\n\n".join(p.text for p in pages)
    findings = rules_analyser(joined, segment_document(pages))
    for category, paragraph in sample.added:
        start = joined.index(paragraph)
        findings.append(Finding(category, paragraph, start, start + len(paragraph), len(pages), 0.93, "model",
                                "model-1.0"))
    return DocumentResult(doc_id, sample.filename, str(path), DocumentStatus.DONE, page_count=len(pages),
                          findings=findings)


def batch(folder: Path) -> BatchResult:
    done = [document(s, i, folder) for i, s in enumerate(SAMPLES, start=1)]
    n = len(done)
    return BatchResult("batch-42", "done", "2027-01-10T06:00:00Z", "2027-01-10T06:04:00Z", [
        *done,
        DocumentResult(n + 1, "scanned-lease.pdf", "/in/scanned-lease.pdf", "failed", stage="ingest", reason=FAILURE),
        DocumentResult(n + 2, "granite-peak-licence copy.pdf", "/in/copy.pdf", "duplicate",
                       duplicate_of="granite-peak-licence.pdf"),
        DocumentResult(n + 3, "late-arrival.pdf", "/in/late-arrival.pdf", "pending"),
    ])


@dataclass(frozen=True)
class Rendered:
    assessed: list[Assessed]
    html: str
    path: Path


def render(folder: Path, playbook: Playbook, view: str) -> Rendered:
    result = batch(folder)
    assessed = assess_batch(result, playbook)
    html = render_html(result, assessed, summarize_batch(assessed), playbook.label, view, as_of=AS_OF)
    path = folder / "report.html"
    path.write_text(html, encoding="utf-8")
    return Rendered(assessed, html, path)


@pytest.fixture(scope="module")
def full(tmp_path_factory: pytest.TempPathFactory) -> Rendered:
    """The legal view, assessed from our side (Meridian Bay Biosciences)."""
    return render(tmp_path_factory.mktemp("full"), load_playbook(None).as_party(OURS), "full")


@pytest.fixture(scope="module")
def summary(tmp_path_factory: pytest.TempPathFactory) -> Rendered:
    """The business view, assessed without naming our side."""
    return render(tmp_path_factory.mktemp("summary"), load_playbook(None), "summary")


def triage_rows(html: str) -> list[lxml.html.HtmlElement]:
    return lxml.html.fromstring(html).xpath('//table[@id="triage"]/tbody/tr')


def cell(row: lxml.html.HtmlElement, col: str) -> lxml.html.HtmlElement:
    return row.xpath(f'./td[@data-col="{col}"]')[0]


def row_named(html: str, filename: str) -> lxml.html.HtmlElement:
    return next(r for r in triage_rows(html) if cell(r, "contract").text_content() == filename)


def contract_page(html: str, filename: str) -> lxml.html.HtmlElement:
    """The contract's own page, found through its link in the triage table."""
    anchor = cell(row_named(html, filename), "contract").xpath("./a/@href")[0].removeprefix("#")
    return lxml.html.fromstring(html).get_element_by_id(anchor)


def test_contract_and_playbook_text_is_escaped_everywhere(full: Rendered, summary: Rendered):
    for rendered in (full, summary):
        html = rendered.html
        assert XSS_SCRIPT not in html and "<img" not in html and XSS_ATTR not in html
        tree = lxml.html.fromstring(html)
        assert not tree.xpath("//img") and len(tree.xpath("//script")) == 1  # ours: the table's sorting
        script = tree.xpath("//script")[0].text
        assert "alert(" not in script and "innerHTML" not in script and "insertAdjacentHTML" not in script
        assert not [a for el in tree.iter() if isinstance(el.tag, str) for a in el.attrib if a.startswith("on")]
        hostile = row_named(html, HOSTILE_FILE)  # the file name reads back as text, not markup
        assert hostile.get("data-level") == "high"
        assert cell(hostile, "contract").get("data-sort") == HOSTILE_FILE.lower()
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html and "&#34;&gt;&lt;img src=x onerror=alert(2)&gt;" in html
    page = contract_page(full.html, HOSTILE_FILE)
    assert page.xpath(".//h2")[0].text_content().startswith(HOSTILE_FILE)
    assert XSS_SCRIPT in page.xpath('.//div[@class="says"]/blockquote')[0].text_content()
    assert FAILURE in lxml.html.fromstring(full.html).xpath('//table[@class="failed-documents"]')[0].text_content()


def test_names_are_isolated_and_a_direction_override_shows(full: Rendered, summary: Rendered):
    """Each file and party name sits in its own <bdi>, and the override in SPOOFED is written
    out where it was: the name reads as the text file it is."""
    shown = SPOOFED.replace("\u202e", "[U+202E]")
    for rendered in (full, summary):
        tree = lxml.html.fromstring(rendered.html)
        assert "\u202e" not in tree.text_content()  # only the sort keys (attributes) keep the name as it is
        row = row_named(rendered.html, shown)
        assert cell(row, "contract").get("data-sort") == SPOOFED.lower()
        for col in ("contract", "counterparty"):
            [bdi] = cell(row, col).xpath(".//bdi")
            assert bdi.text_content() == cell(row, col).text_content()
        assert "nonce=" not in rendered.html  # a file has no Content-Security-Policy to satisfy
    page = contract_page(full.html, shown)
    assert page.xpath(".//h2/bdi")[0].text_content() == shown


def assert_triage_table(html: str, linked: bool) -> None:
    tree = lxml.html.fromstring(html)
    assert [th.text_content() for th in tree.xpath('//table[@id="triage"]/thead/tr/th')] == COLUMNS
    rows = triage_rows(html)
    assert len(rows) == len(SAMPLES) + 3
    assessed = [r for r in rows if r.get("data-level") != "none"]
    assert rows[: len(assessed)] == assessed  # failed, duplicate and pending last
    order = [(LEVELS[r.get("data-level")], -float(cell(r, "level").get("data-sort"))) for r in assessed]
    assert order == sorted(order) and [r.get("data-level") for r in assessed[:2]] == ["critical", "high"]
    waiting = [r.text_content() for r in rows[len(assessed):]]
    assert "Failed at ingest" in waiting[0] and "Duplicate of granite-peak-licence.pdf" in waiting[1]
    assert "Pending: not assessed yet" in waiting[2]
    for row in assessed:
        assert cell(row, "level").text_content().split(" · ")[0] == row.get("data-level")
        assert bool(row.xpath('./td[@data-col="contract"]/a')) == linked


def test_triage_table_is_sorted_by_risk_with_its_columns(full: Rendered, summary: Rendered):
    assert_triage_table(full.html, linked=True)
    assert_triage_table(summary.html, linked=False)
    licence = row_named(full.html, "granite-peak-licence.pdf")
    assert cell(licence, "counterparty").text_content() == "Granite Peak Payments LLC"
    assert cell(licence, "role").text_content() == "Licensee" and cell(licence, "type").text_content() == "licence"
    # first expiring 1 March 2023, renewed each year since: the term in force, not the first expiry
    assert cell(licence, "term").text_content() == "until 01 Mar 2027 · renews"
    assert cell(licence, "term").get("data-sort") == "2027-03-01"
    assert cell(licence, "notice").get("data-sort") == "2027-01-30"  # renewed to 1 March 2027, 30 days' notice
    assert "no Cap On Liability (medium)" in licence.text_content()
    critical = row_named(full.html, "copperleaf-licence.pdf")
    assert "Uncapped Liability (critical)" in critical.text_content() and cell(critical, "role").text_content() == "—"
    assert "is not among the parties of" in full.html and "--party" not in full.html
    assert 'id="documents"' not in summary.html and '--party "Our Company"' in summary.html
    assert {cell(r, "role").text_content() for r in triage_rows(summary.html) if r.get("data-level") != "none"} == {"—"}
    front = lxml.html.fromstring(full.html).xpath('//section[@id="summary"]')[0].text_content()
    assert "3 contracts need attention" in front and "2 deadlines fall in the next 90 days" in front


def test_each_contract_page_asks_this_counterparty(full: Rendered):
    tree = lxml.html.fromstring(full.html)
    assert len(tree.xpath('//section[@id="documents"]/article')) == len(SAMPLES) + 3
    licence = contract_page(full.html, "granite-peak-licence.pdf")
    asks = [p.text_content() for p in licence.xpath('.//p[@class="ask"]')]
    assert "Request: Ask Granite Peak Payments LLC to add a mutual cap on liability" in asks[0]
    renewal = next(a for a in asks if "non-renewal deadline" in a)
    assert "It now reads “successive 1-year periods”" in renewal and "30 January 2027" in renewal
    assert licence.xpath('.//details[@class="more"]') and "Key terms" in licence.text_content()
    doc, a = next(da for da in full.assessed if da[0].filename == "granite-peak-licence.pdf")
    alone = environment().get_template("contract.html").render(c=contract_view(doc, a, AS_OF))
    assert alone.lstrip().startswith('<article class="contract"') and "Ask Granite Peak Payments LLC" in alone


@pytest.mark.skipif(not CHROMIUM.is_file(), reason=f"headless Chromium not installed at {CHROMIUM}")
def test_report_works_and_prints_in_chromium(full: Rendered):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM))
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            errors: list[str] = []
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.on("dialog", lambda d: errors.append(f"dialog: {d.message}"))
            page.goto(full.path.as_uri())
            assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
            check_sorting(page)
            check_filters(page)
            assert not errors
            page.emulate_media(media="print")
            assert page.evaluate("getComputedStyle(document.querySelector('details.more')).display") == "none"
            assert page.evaluate("getComputedStyle(document.getElementById('triage-controls')).display") == "none"
            printed = pdfplumber.open(io.BytesIO(page.pdf(format="A4"))).pages
            pages = len(printed)
            # the front page and triage table print wide, the one-pagers upright
            assert printed[0].width > printed[0].height and printed[-1].width < printed[-1].height
            check_without_script(browser, full.path)
        finally:
            browser.close()
    contracts = len(SAMPLES) + 3
    assert contracts + 1 <= pages <= 3 * contracts + 2  # each contract on its own page, a few at most


def check_without_script(browser, path: Path) -> None:  # noqa: ANN001 - a playwright Browser
    """Without the script the table reads the same, sorted by risk, and shows no dead controls."""
    page = browser.new_context(java_script_enabled=False, viewport={"width": 1280, "height": 800}).new_page()
    page.goto(path.as_uri())
    assert not page.is_visible("#triage-controls")
    assert levels(page)[:2] == ["critical", "high"] and levels(page)[-3:] == ["none"] * 3


def levels(page) -> list[str]:  # noqa: ANN001 - a playwright Page
    return page.eval_on_selector_all("#triage tbody tr:not([hidden])", "rows => rows.map(r => r.dataset.level)")


def check_sorting(page) -> None:  # noqa: ANN001
    assert levels(page)[:2] == ["critical", "high"]
    page.click("#triage th[data-key=level] button")
    assert page.get_attribute("#triage th[data-key=level]", "aria-sort") == "ascending"
    ascending = levels(page)
    risk = [LEVELS[level] for level in ascending[:-3]]
    assert risk == sorted(risk, reverse=True) and ascending[0] != "critical"
    assert ascending[-3:] == ["none"] * 3  # not assessed stays last
    page.click("#triage th[data-key=level] button")
    assert levels(page)[0] == "critical"
    page.click("#triage th[data-key=term] button")
    ends = page.eval_on_selector_all("#triage tbody tr td[data-col=term]", "cells => cells.map(c => c.dataset.sort)")
    dated = [d for d in ends if d]
    assert dated == sorted(dated) and ends[: len(dated)] == dated
    assert page.get_attribute("#triage th[data-key=level]", "aria-sort") == "none"


def check_filters(page) -> None:  # noqa: ANN001
    page.fill("#triage-filter", "granite peak payments")
    names = page.eval_on_selector_all("#triage tbody tr:not([hidden]) td[data-col=contract]", "c => c.map(x => x.textContent)")
    assert names == ["granite-peak-licence.pdf"]
    page.fill("#triage-filter", "")
    page.select_option("#triage-level", "attention")
    assert sorted(levels(page)) == ["critical", "high", "high"]
    page.select_option("#triage-level", "none")
    assert levels(page) == ["none"] * 3
    page.select_option("#triage-level", "")
    assert len(levels(page)) == len(SAMPLES) + 3
