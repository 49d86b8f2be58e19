"""The portfolio in the browser (issue 42, item 5): the contracts' triage table over the audited
samples, its filters and search, a contract's page with its key terms, deadline and review
items, a batch's reports downloaded with the decisions made so far, and a reviewer's answer
moving a contract's level on the page.  And every page of the app, in headless Chromium, passes
axe-core with no serious or critical violation and is worked from the keyboard (issue 42, item 7):
on this module's server, which already holds a whole audit for the pages to show."""
from __future__ import annotations

import io
import re
from collections.abc import Iterator
from datetime import date
from pathlib import Path

import lxml.html
import openpyxl
import pytest
from sqlalchemy import func, select

from conftest import AUDITED_BATCH, REPO
from pipelines.playbook import load_playbook
from pipelines.playbook.severity import RISK_LEVELS, level_for_severity
from pipelines.review.decisions import question_of
from pipelines.review.queue import decide
from storage import schema
from storage.database import session_scope
from storage.schema import utcnow
from test_web_auth import Server, serve_audited
from test_web_items import CHROMIUM, reviewer_page

USERS = {"lee": "reviewer", "ada": "admin"}
AXE = REPO / ".venv" / "axe" / "node_modules" / "axe-core" / "axe.min.js"
"""axe-core, from the npm registry into the git-ignored .venv by `make test` (the Makefile)."""
BLOCKING = ("serious", "critical")


@pytest.fixture(scope="module")
def server(audited_samples: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    inbox = tmp_path_factory.mktemp("contracts-inbox")  # the upload page, as it is with uploads on
    yield from serve_audited(audited_samples, tmp_path_factory, "contracts", USERS, {"CLAUSEMILL_UPLOAD_INBOX": str(inbox)})


def rows(html: str) -> list[dict[str, str]]:
    """The triage table's rows: the contract's name, its level and the link to its page."""
    tree = lxml.html.fromstring(html)
    return [{"file": row.xpath("string(td[2])").strip(), "level": row.xpath("string(td[1])").strip().split(" ")[0],
             "href": row.xpath("td[2]/a/@href")[0]} for row in tree.xpath('//table[@id="contracts"]/tbody/tr')]


def test_the_triage_table_filters_searches_and_opens_a_contract(server: Server) -> None:
    with session_scope(server.database_url, write=False) as session:
        done = set(session.scalars(select(schema.Document.filename).where(schema.Document.status == "done")))
    with server.login("lee") as lee:
        everything = rows(lee.get("/contracts").text)
        assert {r["file"] for r in everything} == done
        assert [r["level"] for r in everything] == sorted((r["level"] for r in everything),
                                                         key=["critical", "high", "medium", "low"].index)
        critical = rows(lee.get("/contracts", params={"level": "critical"}).text)
        assert critical and all(r["level"] == "critical" for r in critical)
        assert len(critical) == sum(r["level"] == "critical" for r in everything)
        found = rows(lee.get("/contracts", params={"q": '"Governing Law" Delaware'}).text)
        assert found and len(found) < len(everything)
        none = lee.get("/contracts", params={"q": "no-such-word-anywhere"}).text
        assert rows(none) == [] and "No contract matches." in none
        assert lee.get("/contracts", params={"within": "-1"}).status_code == 400  # a page, saying what was wrong
        page = lee.get(critical[0]["href"])
        assert page.status_code == 200
        tree = lxml.html.fromstring(page.text)
        assert tree.xpath('string(//article[@class="contract"]//h2)').startswith(critical[0]["file"])
        assert "Key terms" in page.text and "Issues and what to ask for" in page.text
        links = tree.xpath('//p[@id="downloads"]/a/@href')
        assert f"/batches/{AUDITED_BATCH}/report.xlsx" in links
        xlsx = lee.get(f"/batches/{AUDITED_BATCH}/report.xlsx")
        assert xlsx.status_code == 200 and 'attachment; filename="samples-report.xlsx"' == \
            xlsx.headers["content-disposition"]
        contracts = openpyxl.load_workbook(io.BytesIO(xlsx.content))["Contracts"]
        assert {row[0] for row in contracts.iter_rows(min_row=2, values_only=True)} >= {critical[0]["file"]}
        assert lee.get(f"/batches/{AUDITED_BATCH}/secrets.txt").status_code == 404
        assert lee.get("/contracts/999999").status_code == 404
    with server.client() as anonymous:  # behind the same login as the queue
        assert anonymous.get("/contracts").status_code == 303
        assert anonymous.get(f"/batches/{AUDITED_BATCH}/report.xlsx").status_code == 303


def test_a_reviewers_yes_moves_the_contracts_level_on_the_page(server: Server) -> None:
    risky = {r.category: r.severity for r in load_playbook(None).risky}
    with session_scope(server.database_url) as session:
        found = session.execute(select(schema.ReviewItem, schema.Document).join(schema.Document)
                                .where(schema.ReviewItem.status == "open")
                                .order_by(schema.ReviewItem.priority.desc())).all()
        item, document = next((i, d) for i, d in found if question_of(i.evidence) == "presence" and
                              i.category in risky and i.evidence["confidence"] < 0.5 and d.risk_level != "critical")
        # Now, not a fixed date: the contracts page picks up decisions made since its last
        # refresh, which happened moments ago (a fixed time of day already past never counts).
        decide(session, item.id, "lee", "accept", item.version, utcnow())
        filename, document_id = document.filename, document.id
    with server.login("lee") as lee:
        page = lee.get(f"/contracts/{document_id}").text
        assert re.search(rf"Risky clause: {re.escape(item.category)}", page)
        row = next(r for r in rows(lee.get("/contracts").text) if r["file"] == filename)
        assert RISK_LEVELS.index(row["level"]) >= RISK_LEVELS.index(level_for_severity(risky[item.category]))
        assert row["href"] == f"/contracts/{document_id}"


def test_the_batches_page_shows_progress_failures_and_reports(server: Server) -> None:
    with session_scope(server.database_url, write=False) as session:
        failed = {name: reason for name, reason in session.execute(
            select(schema.Document.filename, schema.Document.reason).where(schema.Document.status == "failed"))}
    assert failed, "the samples hold broken files, which fail with a reason"
    with server.login("lee") as lee:
        listing = lxml.html.fromstring(lee.get("/batches").text)
        assert AUDITED_BATCH in listing.xpath('string(//table[@id="batches"])')
        page = lee.get(f"/batches/{AUDITED_BATCH}")
        assert page.status_code == 200
        tree = lxml.html.fromstring(page.text)
        assert "documents ended" in tree.xpath('string(//p[@id="progress"])')
        shown = {row.xpath("string(td[1])").strip(): row.xpath("string(td[3])").strip()
                 for row in tree.xpath('//table[@id="failures"]/tbody/tr')}
        assert shown == {name: reason or "no reason recorded" for name, reason in failed.items()}
        assert tree.xpath('//p[@id="downloads"]/a/@href') == [
            f"/batches/{AUDITED_BATCH}/{name}" for name in ("report.xlsx", "report.html", "report.json", "findings.csv",
                                                            "deadlines.ics")]
        calendar = lee.get(f"/batches/{AUDITED_BATCH}/deadlines.ics")
        assert calendar.status_code == 200 and calendar.text.startswith("BEGIN:VCALENDAR")
        assert lee.get("/batches/no-such-batch").status_code == 404
        assert lee.get("/batches/no-such-batch/report.json").status_code == 404


def test_a_search_in_words_finds_what_renews_automatically_soon(server: Server) -> None:
    with server.login("lee") as lee:
        found = lxml.html.fromstring(lee.get("/contracts", params={"q": "renews automatically within 90 days"}).text)
        soon = lxml.html.fromstring(lee.get("/contracts", params={"within": "90"}).text)
    def listed(tree):  # noqa: ANN001, ANN202
        return {row.xpath("string(td[2])").strip(): row.xpath("string(td[6])") for row in
                tree.xpath('//table[@id="contracts"]/tbody/tr')}
    renewing = listed(found)
    assert renewing, "the samples hold contracts that renew by themselves within 90 days"
    assert renewing == {name: term for name, term in listed(soon).items() if "renews" in term}


def test_the_general_counsels_summary_and_the_business_owners_list(server: Server) -> None:
    with session_scope(server.database_url, write=False) as session:
        open_items = session.scalar(select(func.count()).select_from(schema.ReviewItem)
                                    .where(schema.ReviewItem.status == "open"))
    with server.login("lee") as lee:
        everything = rows(lee.get("/contracts").text)
        summary = lxml.html.fromstring(lee.get("/summary").text)
        tiles = [int(n) for n in summary.xpath('//div[@class="tiles"]//span[@class="n"]/text()')]
        assert sum(tiles) == len(everything)
        at_risk = [row.xpath("string(td[1])").split(" ")[0].lower() for row in summary.xpath('//table[@id="at-risk"]/tbody/tr')]
        assert at_risk and set(at_risk) <= {"critical", "high"}
        assert at_risk == sorted(at_risk, key=["critical", "high"].index)  # worst first
        ahead = [int(li.text_content().split()[0]) for li in summary.xpath('//ul[@id="ahead"]/li')]
        assert ahead == sorted(ahead) and len(ahead) == 3  # 30, 60, 90 days
        backlog = summary.xpath('string(//p[@id="backlog"])')
        per_stakes = re.findall(r"(\d+) ([a-z]+)[,;]", backlog)
        assert sum(int(n) for n, _ in per_stakes) == open_items > 0, backlog
        listed = lxml.html.fromstring(lee.get("/renegotiate").text).xpath('//article[@class="renegotiate"]')
        assert len(listed) == sum(r["level"] in ("critical", "high") for r in everything)
        dates = [date.fromisoformat(a.get("data-by")) for a in listed if a.get("data-by")]
        assert dates == sorted(dates)  # the first deadline first
        asks = [li.text_content() for a in listed for li in a.xpath(".//li")]
        assert asks and not any("confidence" in ask.lower() for ask in asks)  # plain words, no evidence chain


TAB_STOPS = "a[href], button, input:not([type=hidden]), select, textarea, summary, [tabindex]:not([tabindex='-1'])"
"""What a keyboard user must reach with Tab: everything a click works on."""
TAB_WALK = """([selector, main]) => {
  // A tab stop's key: its place among the page's tab stops; a radio group is one stop (Tab
  // enters it at the chosen radio, the arrows move within it).
  const stops = Array.from(document.querySelectorAll(selector));
  const key = (e) => e.type === "radio" ? "radio " + e.name : (stops.indexOf(e) >= 0 ? "stop " + stops.indexOf(e) :
    "other " + e.outerHTML.slice(0, 80));
  const said = (e) => e.outerHTML.replace(/\\s+/g, " ").slice(0, 100);
  window.tabbed = [];  // where the keyboard went, and whether it showed there
  document.addEventListener("focusin", (event) => {
    const e = event.target, s = getComputedStyle(e);
    const ring = (s.outlineStyle !== "none" && parseFloat(s.outlineWidth) > 0) || s.boxShadow !== "none";
    window.tabbed.push({key: key(e), said: said(e), ring: ring && e.matches(":focus-visible")});
  });
  const shown = stops.filter((e) => !e.disabled && e.checkVisibility({checkVisibilityCSS: true}));
  return {stops: Object.fromEntries(shown.map((e) => [key(e), said(e)])),
          main: main.map((s) => document.querySelector(s) ? key(document.querySelector(s)) : "missing " + s)};
}"""


def axe_violations(page, axe_source: str) -> list[str]:  # noqa: ANN001
    """axe-core's serious and critical violations on the page, each as its rule, its impact and
    the elements at fault.  The script is evaluated through the DevTools protocol: the page's
    Content-Security-Policy refuses an injected <script> (add_script_tag) without its nonce."""
    page.evaluate(axe_source)
    found = page.evaluate("axe.run(document).then((r) => r.violations.map((v) => "
                          "({id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => n.target.join(' '))})))")
    return [f"{v['id']} ({v['impact']}: {v['help']}) at {v['nodes']}" for v in found if v["impact"] in BLOCKING]


def keyboard_faults(page, main: list[str]) -> list[str]:  # noqa: ANN001
    """Tab from where the page opens, round the whole page: every tab stop shown is reached and
    shows where the keyboard is, the page's `main` actions (selectors) among them."""
    wanted = page.evaluate(TAB_WALK, [TAB_STOPS, main])
    for _ in range(len(wanted["stops"]) + 3):  # one round, past the end of the page and back to the top
        page.keyboard.press("Tab")
    tabbed = page.evaluate("window.tabbed")
    reached = {at["key"] for at in tabbed}
    return ([f"main action {key} is no tab stop" for key in wanted["main"] if key not in wanted["stops"]] +
            [f"Tab never reaches {said}" for key, said in wanted["stops"].items() if key not in reached] +
            list(dict.fromkeys(f"no visible focus on {at['said']}" for at in tabbed if not at["ring"])))


def test_every_page_passes_axe_and_works_from_the_keyboard(server: Server) -> None:
    if not CHROMIUM.exists():
        pytest.skip(f"no Chromium at {CHROMIUM} (Debian package `chromium`; Playwright cannot download one here)")
    assert AXE.exists(), f"no axe-core at {AXE}: run the Makefile's npm line (`make setup` runs it on a new .venv)"
    from playwright.sync_api import sync_playwright

    with session_scope(server.database_url, write=False) as session:
        open_items = session.execute(select(schema.ReviewItem.id, schema.ReviewItem.evidence, schema.Document.kind)
                                     .join(schema.Document).where(schema.ReviewItem.status == "open")
                                     .order_by(schema.ReviewItem.id)).all()
        contract = session.scalars(select(schema.ReviewItem.document_id).order_by(schema.ReviewItem.id)).first()
    with session_scope(server.database_url) as session:  # a taught clause type for its admin pages
        from pipelines.clause_types.examples import Quote
        from storage import clause_types

        taught, _ = clause_types.define_type(session, "Acts Beyond Control", "Excuses a party while events beyond "
                                             "its control stop it.", "ada")
        clause_types.add_examples(session, taught, [Quote("Neither party is liable for any delay caused by events "
                                                          "beyond its reasonable control.")], "ada")
    clause = next(i for i, evidence, kind in open_items if question_of(evidence) == "presence" and kind == "pdf")
    value = next(i for i, evidence, _ in open_items if question_of(evidence) == "value")
    pages = [  # path, status, the main actions a keyboard must reach
        ("/", 200, ["#claim button", "form[action='/'] input[name=batch]", "#assign button", "a.open-item"]),
        (f"/items/{clause}", 200, ["#answer-1", "#reason", "#category", "#save", "#page-next", "#words"]),
        (f"/items/{value}", 200, ["#accept", "#value", "#correct"]),
        ("/next", 200, ["#claim button"]),
        ("/contracts", 200, ["#q", "#contracts a"]),
        (f"/contracts/{contract}", 200, ["#items a", "#downloads a"]),
        ("/batches", 200, ["#batches a"]),
        (f"/batches/{AUDITED_BATCH}", 200, ["#downloads a"]),
        ("/calendar", 200, ["form[action='/calendar/token'] button"]),
        ("/upload", 200, ["#files", "#send"]),
        ("/summary", 200, ["#at-risk a", "#ahead a"]),
        ("/renegotiate", 200, ["article.renegotiate a"]),
        ("/users", 200, ["form[action='/users'] input[name=name]", "form[action='/users'] button"]),
        ("/agreement", 200, ["form[action='/agreement'] button"]),
        ("/clause-types", 200, ["form[action='/clause-types'] input[name=name]", "a[href='/clause-types/acts-beyond-control']"]),
        ("/clause-types/acts-beyond-control?q=force+majeure", 200, ["input[name=q]", "input[name=pick]",
                                                                   "form[action$='/train'] button"]),
        ("/no/such/page", 404, ["a[href='/next']"]),
    ]
    axe_source = AXE.read_text(encoding="utf-8")
    faults: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox", "--disable-gpu"])
        login = browser.new_page(viewport={"width": 1400, "height": 1000})
        assert login.goto(f"{server.url}/login").status == 200
        faults += [f"/login: {v}" for v in axe_violations(login, axe_source)]
        faults += [f"/login: {f}" for f in keyboard_faults(login, ["input[name=password]", "button[type=submit]"])]
        refused: list[str] = []
        page = reviewer_page(browser, server, "ada", "/", refused)
        for path, status, main in pages:
            assert page.goto(f"{server.url}{path}").status == status, path
            faults += [f"{path}: {v}" for v in axe_violations(page, axe_source)]
            faults += [f"{path}: {f}" for f in keyboard_faults(page, main)]
        browser.close()
    assert refused == []
    assert faults == [], "\n".join(faults)
