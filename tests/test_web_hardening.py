"""The review app under attack, against a real `clausemill serve`: login bursts, forged proxy
headers, huge and malformed bodies.  Memory is read from the server process's /proc status."""
from __future__ import annotations

import asyncio
import re
import select
import socket
import time
from collections import Counter
from collections.abc import AsyncIterator, Iterable, Iterator
from contextlib import AsyncExitStack, ExitStack, asynccontextmanager
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest
from pydantic import ValidationError

from conftest import base_env
from pipelines.settings import Settings
from test_web_auth import Server, csrf_of, password_of, post_form, start_server
from web.login_throttle import HASH_QUEUE, HASH_SLOTS

USERS = {"alice": "admin", "bob": "reviewer", "carol": "reviewer"}
BURST = 40
MEMORY_LIMIT_MB = 400
HUGE = 400 * 1024 * 1024


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A server with the default limits (five failed logins, 1 MiB bodies, no trusted proxy)."""
    folder = tmp_path_factory.mktemp("hardened")
    with ExitStack() as stack:
        yield start_server(stack, folder, base_env(folder / "data"), USERS)


def memory_mb(server: Server, field: str = "VmRSS") -> float:
    """The server process's resident memory now (VmRSS) or at its peak so far (VmHWM)."""
    status = Path(f"/proc/{server.pid}/status").read_text()
    return int(re.search(rf"^{field}:\s+(\d+) kB", status, flags=re.MULTILINE).group(1)) / 1024


@asynccontextmanager
async def wrong_logins(server: Server, names: list[str]) -> AsyncIterator[list[asyncio.Task[tuple[int, float]]]]:
    """Wrong passwords for `names`, all sent at once, each by a client with its own session and
    CSRF token: a task per login, giving its status and when it answered."""
    async with AsyncExitStack() as stack:
        clients = [await stack.enter_async_context(httpx.AsyncClient(base_url=server.url, timeout=120))
                   for _ in names]
        tokens = [re.search(r'name="csrf_token" value="([^"]+)"', (await c.get("/login")).text).group(1)
                  for c in clients]

        async def attempt(client: httpx.AsyncClient, name: str, token: str) -> tuple[int, float]:
            response = await client.post("/login", data={"name": name, "password": "wrong", "csrf_token": token})
            return response.status_code, time.monotonic()

        tasks = [asyncio.create_task(attempt(c, n, t)) for c, n, t in zip(clients, names, tokens, strict=True)]
        yield tasks
        await asyncio.gather(*tasks)


async def burst(server: Server, names: list[str]) -> list[tuple[int, float]]:
    async with wrong_logins(server, names) as tasks:
        return list(await asyncio.gather(*tasks))


def test_parallel_wrong_logins_are_counted_before_they_are_checked(server: Server) -> None:
    statuses = Counter(status for status, _ in asyncio.run(burst(server, ["bob"] * BURST)))
    # 401 is the answer after a password check, 429 the answer without one
    limit = Settings().login_max_failures
    assert statuses == {401: limit, 429: BURST - limit}
    assert memory_mb(server, "VmHWM") < MEMORY_LIMIT_MB


def test_a_burst_of_logins_waits_its_turn_without_stalling_other_pages(server: Server) -> None:
    """Forty names at once (each its own throttle key), while a logged-in user opens a page."""
    async def burst_and_a_page() -> tuple[list[tuple[int, float]], float]:
        with server.login("alice") as alice:
            async with wrong_logins(server, [f"guess{n}" for n in range(BURST)]) as tasks:
                await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)  # all in, the checks under way
                page = await asyncio.to_thread(alice.get, "/")
                page_answered = time.monotonic()
                assert page.status_code == 200
                return list(await asyncio.gather(*tasks)), page_answered

    results, page_answered = asyncio.run(burst_and_a_page())
    statuses = Counter(status for status, _ in results)
    assert set(statuses) <= {401, 503} and statuses[401] >= HASH_SLOTS + HASH_QUEUE, statuses
    answered_before_the_page = sum(1 for _, at in results if at < page_answered)
    assert answered_before_the_page < len(results) / 2, "the page waited for the logins' password checks"
    assert memory_mb(server, "VmHWM") < MEMORY_LIMIT_MB


def test_a_forged_forwarded_for_does_not_reset_the_throttle(server: Server) -> None:
    with server.client() as client:
        for _ in range(Settings().login_max_failures):
            assert post_form(client, "/login", {"name": "carol", "password": "guess"}).status_code == 401
        for n in range(12):
            forged = client.post("/login", headers={"X-Forwarded-For": f"203.0.113.{n}"},
                                 data={"name": "carol", "password": f"guess{n}", "csrf_token": csrf_of(client)})
            assert forged.status_code == 429, n
        right = client.post("/login", headers={"X-Forwarded-For": "198.51.100.7"},
                            data={"name": "carol", "password": password_of("carol"), "csrf_token": csrf_of(client)})
        assert right.status_code == 429


def test_the_addresses_a_configured_proxy_forwards_are_believed(tmp_path: Path) -> None:
    env = {**base_env(tmp_path / "data"), "CLAUSEMILL_TRUSTED_PROXIES": "127.0.0.1",
           "CLAUSEMILL_LOGIN_MAX_FAILURES": "2"}
    with ExitStack() as stack:
        proxied = start_server(stack, tmp_path, env, {"carol": "reviewer"})
        with proxied.client() as client:
            def guess(address: str) -> int:
                form = {"name": "carol", "password": "guess", "csrf_token": csrf_of(client)}
                return client.post("/login", headers={"X-Forwarded-For": address}, data=form).status_code

            assert [guess("203.0.113.1") for _ in range(3)] == [401, 401, 429]
            assert guess("203.0.113.2") == 401, "another client behind the proxy has a throttle of its own"


def test_trusted_proxies_are_addresses_or_networks() -> None:
    assert Settings(trusted_proxies=" 10.0.0.5, 192.168.1.0/24,,").trusted_proxy_list == ["10.0.0.5", "192.168.1.0/24"]
    assert Settings().trusted_proxy_list == []
    with pytest.raises(ValidationError, match="IP addresses or networks separated by commas.*'proxy.local'"):
        Settings(trusted_proxies="10.0.0.5,proxy.local")


def raw_post(server: Server, path: str, headers: dict[str, str], chunks: Iterable[bytes] = ()) -> tuple[int, int]:
    """POST `path` over a socket of our own, sending `chunks` of the body until the server
    answers (or stops reading): the status and how many body bytes went out."""
    address = urlsplit(server.url)
    head = f"POST {path} HTTP/1.1\r\nHost: {address.netloc}\r\n" + "".join(f"{k}: {v}\r\n" for k, v in headers.items())
    sent = 0
    with socket.create_connection((address.hostname, address.port), timeout=30) as connection:
        connection.sendall(head.encode() + b"\r\n")
        for chunk in chunks:
            if select.select([connection], [], [], 0)[0]:
                break  # the answer is in
            try:
                connection.sendall(chunk)
            except (BrokenPipeError, ConnectionResetError):
                break
            sent += len(chunk)
        answer = connection.recv(4096)
    return int(answer.split(b" ", 2)[1]), sent


def chunked(total: int, size: int = 64 * 1024) -> Iterator[bytes]:
    """A form body of `total` bytes in chunked transfer encoding."""
    piece = b"a" * size
    yield b"%x\r\ncsrf_token=x&big=\r\n" % len(b"csrf_token=x&big=")
    for _ in range(total // size):
        yield b"%x\r\n%s\r\n" % (size, piece)
    yield b"0\r\n\r\n"


@pytest.mark.parametrize("path", ["/login", "/metrics", "/healthz"])
def test_a_huge_body_is_refused_before_it_is_read(server: Server, path: str) -> None:
    before = memory_mb(server)
    form = {"Content-Type": "application/x-www-form-urlencoded"}
    announced, _ = raw_post(server, path, {**form, "Content-Length": str(HUGE)})
    assert announced == 413, "a Content-Length over the limit is refused before the body is sent"
    assert raw_post(server, path, {"Content-Type": "application/json", "Content-Length": str(HUGE)})[0] == 413
    streamed, sent = raw_post(server, path, {**form, "Transfer-Encoding": "chunked"}, chunked(HUGE))
    assert streamed == 413 and sent < HUGE / 4, "a chunked body is cut off at the limit"
    assert memory_mb(server) - before < 30
    assert memory_mb(server, "VmHWM") < MEMORY_LIMIT_MB


def test_malformed_forms_are_refused_with_their_reason(server: Server) -> None:
    with server.client() as client:
        token = csrf_of(client)
        broken = client.post("/login", content=b"--x\r\nbad",
                             headers={"Content-Type": "multipart/form-data; boundary=zz"})
        assert broken.status_code == 400 and "multipart" in broken.text.lower()
        fields = client.post("/login", data={"csrf_token": token, **{f"f{n}": "1" for n in range(1001)}})
        assert fields.status_code == 400 and "Too many fields" in fields.text
        field = client.post("/login", files={"csrf_token": (None, token), "name": (None, "a" * (1024 * 1024 + 1))})
        assert field.status_code == 413, "a field over 1 MB is a body over the 1 MiB limit"
        assert client.get("/healthz").status_code == 200


@pytest.mark.parametrize(("body", "echoed"), [('{"to": NaN}', "NaN"), ('{"to": -Infinity}', "-Infinity"),
                                               ('{"to": "bob", "item_ids": [Infinity]}', "Infinity")])
def test_json_that_is_not_json_is_a_422_that_says_what_it_got(server: Server, body: str, echoed: str) -> None:
    with server.login("alice") as admin:
        headers = {"Content-Type": "application/json", "X-CSRF-Token": csrf_of(admin, "/")}
        assigned = admin.post("/api/items/assign", content=body, headers=headers)
        assert assigned.status_code == 422 and assigned.json()["detail"][0]["input"] == echoed
        decision = f'{{"action": "accept", "version": {echoed}}}'
        decided = admin.post("/api/items/1/decision", content=decision, headers=headers)
        assert decided.status_code == 422 and decided.json()["detail"][0]["input"] == echoed
