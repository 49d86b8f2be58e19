"""The review app's gate, against a real `clausemill serve` on SQLite and on PostgreSQL:
every path needs a session but /login, /healthz, /metrics and /calendar.ics (its token instead);
writes need the CSRF token; logins are rate-limited; a disabled user's session stops working.
Users are made with the real CLI."""
from __future__ import annotations

import re
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from fastapi.routing import iter_route_contexts

from conftest import REPO, base_env, free_port, postgres_database, run_cli, sqlite_url, wait_until
from test_web_queue import ITEMS, seed
from pipelines.review.users import create_user
from pipelines.settings import Settings
from storage.database import session_scope
from web.app import create_app
from web.auth import PUBLIC_PATHS

MAX_FAILURES = 3
USERS = {"alice": "admin", "bob": "reviewer", "carol": "reviewer", "dave": "reviewer"}


def password_of(name: str) -> str:
    """The password the tests give `name`: long enough for Settings.password_min_length."""
    return f"pw-{name}-correct-horse-battery"


@dataclass
class Server:
    url: str
    env: dict[str, str]
    database_url: str
    pid: int

    def client(self) -> httpx.Client:
        return httpx.Client(base_url=self.url, follow_redirects=False, timeout=30)

    @contextmanager
    def login(self, name: str) -> Iterator[httpx.Client]:
        """A client logged in as `name` (whose password is password_of(name))."""
        with self.client() as client:
            response = post_form(client, "/login", {"name": name, "password": password_of(name)})
            assert response.status_code == 303, response.text
            yield client


def csrf_of(client: httpx.Client, page: str = "/login") -> str:
    match = re.search(r'name="csrf_token" value="([^"]+)"', client.get(page).text)
    assert match, f"no CSRF token on {page}"
    return match.group(1)


def upload(client: httpx.Client, key: str, files: list[tuple[str, bytes]]) -> httpx.Response:
    """What the upload page's script sends: the files, the form's key, the CSRF token as a header."""
    return client.post("/api/uploads", data={"key": key}, files=[("files", f) for f in files],
                       headers={"X-CSRF-Token": csrf_of(client, "/upload")})


def post_form(client: httpx.Client, path: str, data: dict[str, str], page: str = "/login") -> httpx.Response:
    """Post a form the way a browser does: with the token of the page it came from."""
    return client.post(path, data={**data, "csrf_token": csrf_of(client, page)})


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """One real server per database for the module, with the USERS added through the CLI."""
    folder = tmp_path_factory.mktemp(f"serve-{request.param}")
    env = base_env(folder / "data")
    env["CLAUSEMILL_LOGIN_MAX_FAILURES"] = str(MAX_FAILURES)
    with ExitStack() as stack:
        if request.param == "postgresql":
            env["CLAUSEMILL_DATABASE_URL"] = stack.enter_context(postgres_database())
        yield start_server(stack, folder, env, USERS)


def start_server(stack: ExitStack, folder: Path, env: dict[str, str], users: dict[str, str]) -> Server:
    """`clausemill serve` on `env`'s data, stopped when `stack` closes, once `users` (name ->
    role, password password_of(name)) are added (in this process: the CLI's own test adds them
    with it)."""
    database_url = env.get("CLAUSEMILL_DATABASE_URL") or sqlite_url(env)
    min_length = Settings().password_min_length
    with session_scope(database_url) as session:
        for name, role in users.items():
            create_user(session, name, role, password_of(name), min_password_length=min_length)
    port = free_port()
    log = folder / "serve.log"
    with open(log, "wb") as out:
        process = subprocess.Popen([sys.executable, "-m", "pipelines.cli", "serve", "--port", str(port)],
                                   env=env, cwd=REPO, stdout=out, stderr=subprocess.STDOUT)
    stack.callback(_stop, process)
    url = f"http://127.0.0.1:{port}"

    def up() -> bool:
        assert process.poll() is None, log.read_text()
        try:
            return httpx.get(f"{url}/healthz", timeout=2).status_code == 200
        except httpx.TransportError:
            return False

    wait_until(up, timeout=60, message=f"clausemill serve on {url}")
    return Server(url, env, database_url, process.pid)


def serve_audited(audited_samples: Path, tmp_path_factory: pytest.TempPathFactory, name: str,
                  users: dict[str, str], settings: dict[str, str] | None = None) -> Iterator[Server]:
    """A module's server on a copy of the session's audited samples (conftest), SQLite, with
    `users` and any `settings` (CLAUSEMILL_* variables): a fixture body (`yield from serve_audited(...)`)."""
    folder = tmp_path_factory.mktemp(name)
    shutil.copytree(audited_samples / "data", folder / "data")
    with ExitStack() as stack:
        yield start_server(stack, folder, {**base_env(folder / "data"), **(settings or {})}, users)


def _stop(process: subprocess.Popen) -> None:
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def app_paths(tmp_path: Path) -> list[tuple[str, str]]:
    """(method, path) of every route the app defines, path parameters filled in."""
    app = create_app(Settings(data_dir=tmp_path))
    found = []
    for route in iter_route_contexts(app.routes):  # included routers' routes too
        assert route.path and route.methods, route
        path = re.sub(r"\{[^}]+\}", "x", route.path)
        found += [(method, path) for method in sorted(route.methods) if method != "HEAD"]
    return found


def test_the_router_table_keeps_the_pages_apart_from_the_api() -> None:
    from web.routes import API, PAGES, PROBES

    pages = [route.path for router in (*PAGES, *PROBES) for route in router.routes]
    api = [route.path for router in API for route in router.routes]
    assert pages and api
    assert [path for path in pages if path.startswith("/api")] == []
    assert [path for path in api if not path.startswith("/api/")] == []
    assert [route.path for router in (*PAGES, *PROBES) for route in router.routes if route.include_in_schema] == []


def test_without_a_session_every_path_but_the_public_ones_is_refused(server: Server, tmp_path: Path) -> None:
    routes = app_paths(tmp_path)
    assert {path for _, path in routes} >= {"/", "/api/items", "/api/openapi.json", "/users", *PUBLIC_PATHS}
    unknown = [("GET", "/no/such/page"), ("POST", "/no/such/page"), ("GET", "/api/no/such/thing")]
    with server.client() as client:
        for method, path in routes + unknown:
            response = client.request(method, path)
            if path == "/calendar.ics":  # public, but its token is its login: refused without one, in its own words
                assert response.status_code == 401 and response.headers["content-type"].startswith("text/plain")
            elif path in PUBLIC_PATHS:
                assert response.status_code not in (401, 303), (method, path)
            elif path.startswith("/api/"):
                assert response.status_code == 401, (method, path, response.status_code)
            else:
                assert response.status_code == 303, (method, path, response.status_code)
                assert response.headers["location"].startswith("/login?next="), (method, path)


def test_uploading_is_off_until_an_upload_inbox_is_set(server: Server) -> None:
    with server.login("bob") as bob:
        page = bob.get("/upload")
        assert page.status_code == 200 and "CLAUSEMILL_UPLOAD_INBOX" in page.text
        refused = upload(bob, "0" * 32, [("a.txt", b"a")])
        assert refused.status_code == 404 and "CLAUSEMILL_UPLOAD_INBOX" in refused.json()["detail"]


def test_health_and_metrics_answer_without_login(server: Server) -> None:
    with server.client() as client:
        health = client.get("/healthz")
        assert health.status_code == 200 and health.json() == {"status": "ok", "database": "reachable"}
        metrics = client.get("/metrics")
        assert metrics.status_code == 200 and "clausemill_metrics_source_up" in metrics.text


def test_a_wrong_password_is_401_with_the_reason_on_the_form(server: Server) -> None:
    with server.client() as client:
        response = post_form(client, "/login", {"name": "bob", "password": "not-it"})
        assert response.status_code == 401
        assert "Wrong name or password" in response.text
        assert client.get("/").status_code == 303


def test_login_opens_the_queue_with_a_safe_cookie(server: Server) -> None:
    with server.client() as client:
        response = post_form(client, "/login",
                             {"name": "alice", "password": password_of("alice"), "next": "/?status=all"})
        assert response.status_code == 303 and response.headers["location"] == "/?status=all"
        cookie = response.headers["set-cookie"].lower()
        assert "httponly" in cookie and "samesite=lax" in cookie and "secure" not in cookie
        page = client.get("/")
        assert page.status_code == 200 and "Review queue" in page.text and "alice" in page.text
        assert client.get("/api/items").status_code == 200
        assert client.get("/api/openapi.json").json()["paths"].keys() == {  # the API, not the pages
            "/api/items", "/api/items/next", "/api/items/assign", "/api/items/{item_id}", "/api/items/{item_id}/lease",
            "/api/items/{item_id}/decision", "/api/items/{item_id}/reopen", "/api/items/{item_id}/pages/{number}/words",
            "/api/undo", "/api/uploads"}


def test_login_never_sends_you_to_another_site(server: Server) -> None:
    with server.client() as client:
        response = post_form(client, "/login",
                             {"name": "alice", "password": password_of("alice"), "next": "//evil.example/"})
        assert response.headers["location"] == "/"


def test_a_write_without_the_csrf_token_is_403(server: Server) -> None:
    with server.login("bob") as client:
        assert client.post("/logout").status_code == 403
        assert client.post("/logout", data={"csrf_token": "forged"}).status_code == 403
        assert client.get("/").status_code == 200, "a refused logout must leave the session alone"
        assert client.post("/logout", headers={"X-CSRF-Token": csrf_of(client, "/")}).status_code == 303
        assert client.get("/").status_code == 303
    with server.client() as anonymous:
        assert anonymous.post("/login", data={"name": "bob", "password": password_of("bob")}).status_code == 403


def test_logins_are_rate_limited_per_user_and_address(server: Server) -> None:
    with server.client() as client:
        for _ in range(MAX_FAILURES):
            assert post_form(client, "/login", {"name": "carol", "password": "guess"}).status_code == 401
        blocked = post_form(client, "/login", {"name": "carol", "password": password_of("carol")})
        assert blocked.status_code == 429, "the right password must not get through while blocked"
        assert "Too many failed logins for carol" in blocked.text and int(blocked.headers["retry-after"]) > 0
    with server.login("bob"):  # another name from the same address is not blocked
        pass


def test_a_disabled_users_session_stops_working(server: Server) -> None:
    with server.login("dave") as client:
        assert client.get("/").status_code == 200
        disabled = run_cli(["users", "disable", "dave"], server.env, timeout=60)
        assert disabled.returncode == 0, disabled.stderr
        assert client.get("/").status_code == 303
        assert client.get("/api/items").status_code == 401
    with server.client() as client:
        assert post_form(client, "/login", {"name": "dave", "password": password_of("dave")}).status_code == 401


def test_logging_out_ends_every_copy_of_the_session(server: Server) -> None:
    with server.login("bob") as client, server.login("bob") as elsewhere:
        saved = dict(client.cookies)
        assert client.post("/logout", headers={"X-CSRF-Token": csrf_of(client, "/")}).status_code == 303
        with server.client() as thief:
            thief.cookies.update(saved)
            refused = thief.get("/items/1")
            assert refused.status_code == 303 and refused.headers["location"] == "/login?next=%2Fitems%2F1"
            assert thief.get("/api/items").status_code == 401
        assert elsewhere.get("/").status_code == 303, "logging out ends the user's other sessions too"
    with server.login("bob") as again:
        assert again.get("/").status_code == 200, "a new login works after the logout"


def test_only_admins_manage_users(server: Server) -> None:
    with server.login("bob") as reviewer:
        assert reviewer.get("/users").status_code == 403
    with server.login("alice") as admin:
        assert admin.get("/users").status_code == 200
        short = post_form(admin, "/users", {"name": "erin", "role": "reviewer", "password": "a" * 14}, page="/users")
        assert short.status_code == 400 and "a password needs at least 15 characters" in short.text
        added = post_form(admin, "/users", {"name": "erin", "role": "reviewer", "password": password_of("erin")},
                          page="/users")
        assert added.status_code == 303
        again = post_form(admin, "/users", {"name": "erin", "role": "reviewer", "password": password_of("erin")},
                          page="/users")
        assert again.status_code == 400 and "exists already" in again.text
    with server.login("erin") as erin:
        assert erin.get("/").status_code == 200


def test_users_added_from_stdin_are_listed_by_the_cli(server: Server) -> None:
    listing = run_cli(["users"], server.env, timeout=60)
    assert listing.returncode == 0, listing.stderr
    rows = {line.split()[1]: line.split()[3] for line in listing.stdout.splitlines()
            if line.startswith("│") and line.split()[1] in USERS}
    assert rows == USERS
    for bad, message in ((["users", "add", "alice"], "exists already"), (["users", "add", "zed", "--role", "boss"], "role"),
                         (["users", "disable", "nobody"], "no user named")):
        failed = run_cli(bad, server.env, timeout=60, input=password_of("zed") + "\n")
        assert failed.returncode == 2 and message in failed.stderr, (bad, failed.stderr)
    empty = run_cli(["users", "add", "zed"], server.env, timeout=60, input="\n")
    assert empty.returncode == 2 and "password is empty" in empty.stderr
    short = run_cli(["users", "add", "zed"], server.env, timeout=60, input="x\n")
    assert short.returncode == 2 and "a password needs at least 15 characters" in short.stderr
    longer = run_cli(["users", "add", "zed"], {**server.env, "CLAUSEMILL_PASSWORD_MIN_LENGTH": "1"}, timeout=60,
                     input="x\n")
    assert longer.returncode == 0, "the minimum is the setting's"


def test_the_queue_page_and_api_list_the_items_most_urgent_first(server: Server) -> None:
    batch = seed(server.database_url, [*ITEMS, ("<b>odd</b>.pdf", "Audit Rights", "low", 0.1, "open", None)])
    with server.login("alice") as admin:
        listing = admin.get("/api/items", params={"batch": batch, "per_page": 2, "page": 2}).json()
        assert (listing["total"], listing["page"], listing["pages"]) == (7, 2, 4)
        assert [(i["priority"], i["severity"]) for i in listing["items"]] == [(0.15, "medium"), (0.1, "medium")]
        assert listing["items"][0]["priority_parts"] == {"stakes": "medium", "weight": 0.25, "p_wrong": 0.6}
        assert admin.get("/api/items", params={"severity": "urgent"}).status_code == 422
        page = admin.get("/", params={"batch": batch, "per_page": 3})
        assert page.status_code == 200
        assert "critical 0.8 × p_wrong 0.5" in page.text and "page 1 of 3" in page.text and 'rel="next"' in page.text
        odd = admin.get("/", params={"batch": batch, "category": "Audit Rights"}).text
        assert "&lt;b&gt;odd&lt;/b&gt;.pdf" in odd and "<b>odd</b>" not in odd
    with server.login("bob") as reviewer:
        assert reviewer.get("/api/items", params={"batch": batch}).json()["total"] == 6, "erin's item is not bob's"
