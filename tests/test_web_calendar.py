"""The deadlines calendar, against a real `clausemill serve` on a copy of the audited samples
(SQLite): the page lists the portfolio's coming deadlines and links their contracts; a user's
personal .ics link works without a session while its token is live, and answers 401, showing
nothing of the contracts, without one, with a wrong one, once revoked or replaced, and once
its user is disabled."""
from __future__ import annotations

import re
import secrets
from collections.abc import Iterator
from datetime import date, datetime, timedelta
from pathlib import Path

import httpx
import pytest
from icalendar import Calendar
from sqlalchemy import select

from conftest import run_cli
from storage import schema
from storage.database import session_scope
from test_web_auth import Server, post_form, serve_audited

USERS = {"cal": "reviewer", "rae": "reviewer", "sue": "reviewer", "tom": "reviewer"}
RENEWALS = {"Last day for notice of non-renewal", "Contract renews"}
ROW = re.compile(r'<tr><td class="nowrap">([^<]+)</td><td>([^<]+)</td>\s*'
                 r'<td><a href="/contracts/(\d+)"><bdi>([^<]+)</bdi></a></td>')
LINK = re.compile(r"<code>(http://[^<]+/calendar\.ics\?token=[^<]+)</code>")


@pytest.fixture(scope="module")
def server(audited_samples: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    yield from serve_audited(audited_samples, tmp_path_factory, "calendar", USERS)


def filenames(server: Server) -> dict[int, str]:
    """Every audited document's file name, by id."""
    with session_scope(server.database_url, write=False) as session:
        rows = session.execute(select(schema.Document.id, schema.Document.filename))
        return {document_id: name for document_id, name in rows}


def create_link(client: httpx.Client) -> str:
    """Create the logged-in user's calendar link; the URL the page shows this once."""
    created = post_form(client, "/calendar/token", {}, page="/calendar")
    assert created.status_code == 200 and created.headers["cache-control"] == "private, no-store"
    match = LINK.search(created.text)
    assert match, "the page after creating a link does not show it"
    return match.group(1).replace("&amp;", "&")


def subscribe(url: str) -> httpx.Response:
    """What a calendar app gets: no session, no cookie."""
    with httpx.Client(timeout=60) as calendar_app:
        return calendar_app.get(url)


def assert_refused(response: httpx.Response, server: Server) -> None:
    assert response.status_code == 401 and response.headers["content-type"].startswith("text/plain")
    assert response.headers["cache-control"] == "private, no-store"
    assert "BEGIN:VEVENT" not in response.text
    assert [name for name in filenames(server).values() if name in response.text] == []


def deadline_rows(page: str) -> list[tuple[date, str, int, str]]:
    """The calendar page's deadlines: (date, what, document id linked, file name shown)."""
    return [(datetime.strptime(day, "%d %b %Y").date(), kind, int(document_id), name)
            for day, kind, document_id, name in ROW.findall(page)]


def test_the_page_lists_the_deadlines_by_month_with_links_to_their_contracts(server: Server) -> None:
    with server.login("cal") as client:
        page = client.get("/calendar")
    assert page.status_code == 200 and 'href="/calendar"' in page.text
    rows = deadline_rows(page.text)
    assert rows, "the samples renew automatically, so the calendar cannot be empty"
    assert RENEWALS & {kind for _, kind, _, _ in rows}
    names = filenames(server)
    assert [(document_id, name) for _, _, document_id, name in rows if names[document_id] != name] == []
    dates = [day for day, _, _, _ in rows]
    assert dates == sorted(dates) and date.today() <= dates[0] and dates[-1] <= date.today() + timedelta(days=365)
    assert re.findall(r"<h3>([^<]+)</h3>", page.text) == list(dict.fromkeys(f"{day:%B %Y}" for day in dates))
    assert "You have no calendar link" in page.text


def test_a_link_subscribes_without_a_session_until_it_is_revoked(server: Server) -> None:
    with server.login("rae") as client:
        url = create_link(client)
        token = url.split("token=", 1)[1]
        later = client.get("/calendar")
        assert token not in later.text and "You have a calendar link, created" in later.text
        calendar = subscribe(url)
        assert calendar.status_code == 200 and calendar.headers["content-type"].startswith("text/calendar")
        assert calendar.headers["cache-control"] == "private, no-store"
        assert "BEGIN:VEVENT" in calendar.text and "SUMMARY:" in calendar.text
        events = Calendar.from_ical(calendar.content).walk("VEVENT")
        shown = sorted((event.decoded("dtstart"), str(event["summary"]).split(": ", 1)[0]) for event in events)
        assert shown == sorted((day, kind) for day, kind, _, _ in deadline_rows(later.text)), \
            "the subscription holds the page's deadlines"
        base = url.split("?", 1)[0]
        assert_refused(subscribe(base), server)
        assert_refused(subscribe(f"{base}?token="), server)
        assert_refused(subscribe(f"{base}?token={secrets.token_urlsafe(32)}"), server)
        revoked = post_form(client, "/calendar/token/revoke", {}, page="/calendar")
        assert revoked.status_code == 303 and revoked.headers["location"] == "/calendar"
        assert "Your calendar link was revoked" in client.get("/calendar").text
        assert_refused(subscribe(url), server)
        assert "You have no calendar link" in client.get("/calendar").text


def test_a_new_link_revokes_the_earlier_one(server: Server) -> None:
    with server.login("sue") as client:
        first = create_link(client)
        second = create_link(client)
    assert first != second
    assert_refused(subscribe(first), server)
    assert subscribe(second).status_code == 200


def test_a_disabled_users_link_stops_working(server: Server) -> None:
    with server.login("tom") as client:
        url = create_link(client)
    assert subscribe(url).status_code == 200
    disabled = run_cli(["users", "disable", "tom"], server.env, timeout=60)
    assert disabled.returncode == 0, disabled.stderr
    assert_refused(subscribe(url), server)
