"""What every answer of the gateway promises over HTTP, read off the wire:
security headers and the build's version on pages, files and streams;
sign-in before anything; no way to be sent to another site after signing
in; and a live timeline that resumes after the last event a reconnecting
browser saw."""

import asyncio
import re
from importlib import metadata

import httpx

from .web_client import csrf_of, read_events, signed_in_client

SIGN_IN_TASK = "Sign in to the demo shop"


def assert_security_headers(response: httpx.Response) -> None:
    csp = response.headers["content-security-policy"]
    assert "script-src 'self'" in csp and "'unsafe-inline'" not in csp
    assert "frame-ancestors 'none'" in csp
    assert response.headers["x-content-type-options"] == "nosniff"
    assert response.headers["x-frame-options"] == "DENY"
    # Which build answered, as the services' gRPC replies say it.
    assert response.headers["x-nod-version"] == f"nod-gateway/{metadata.version('nod-gateway')}"


async def test_every_kind_of_answer_carries_the_security_headers(nod):
    async with (
        signed_in_client(nod.gateway_url, "ada", nod.web_password()) as client,
        httpx.AsyncClient(base_url=nod.gateway_url) as anonymous,
    ):
        for response in (
            await anonymous.get("/signin"),
            await anonymous.get("/static/nod.css"),
            await anonymous.get("/tasks"),  # a redirect to sign in
            await client.get("/tasks"),
            await client.get("/tasks/00000000-0000-0000-0000-000000000000"),  # 404
        ):
            assert_security_headers(response)
        assert (await client.get("/tasks")).headers["cache-control"] == "no-store"


async def test_nothing_but_the_sign_in_page_answers_without_a_session(nod):
    async with httpx.AsyncClient(base_url=nod.gateway_url) as anonymous:
        page = await anonymous.get("/tasks")
        assert page.status_code == 303 and page.headers["location"].startswith("/signin")
        for path in ("/stop", "/tasks"):
            refused = await anonymous.post(path, data={"text": "x", "request_id": "r"})
            assert refused.status_code in (401, 403)


async def test_signing_in_never_sends_the_person_to_another_site(nod):
    async with httpx.AsyncClient(base_url=nod.gateway_url) as client:
        form = await client.get("/signin", params={"next": "//evil.example/steal"})
        binding = re.search(r'name="binding" value="([^"]+)"', form.text).group(1)
        assert 'value="/tasks"' in form.text  # the foreign target was dropped
        signed = await client.post(
            "/signin",
            data={
                "binding": binding,
                "name": "ada",
                "password": nod.web_password(),
                "next": "https://evil.example/",
            },
        )
        assert signed.status_code == 303
        assert signed.headers["location"] == "/tasks"
        cookie = signed.headers["set-cookie"]
        assert "HttpOnly" in cookie and "SameSite=lax" in cookie.replace("Lax", "lax")


async def test_a_wrong_password_signs_nobody_in_and_says_so_plainly(nod):
    async with httpx.AsyncClient(base_url=nod.gateway_url) as client:
        form = await client.get("/signin")
        binding = re.search(r'name="binding" value="([^"]+)"', form.text).group(1)
        wrong = await client.post(
            "/signin",
            data={"binding": binding, "name": "ada", "password": "not the password", "next": "/"},
        )
        assert wrong.status_code == 401
        assert "That name and password don&#39;t match." in wrong.text
        assert "not the password" not in wrong.text
        assert (await client.get("/tasks")).status_code == 303


async def test_the_live_timeline_resumes_after_the_last_event_the_browser_saw(nod):
    async with signed_in_client(nod.gateway_url, "ada", nod.web_password()) as client:
        csrf = csrf_of((await client.get("/tasks")).text)
        started = await client.post(
            "/tasks", data={"csrf": csrf, "text": SIGN_IN_TASK, "request_id": "resume-1"}
        )
        task_path = started.headers["location"]
        # Wait until the task asks for the code: several events exist by then.
        for _ in range(150):
            page = await client.get(task_path)
            if "One-time code" in page.text:
                break
            await asyncio.sleep(0.2)
        # Each line carries the number of the last event it was built from
        # (a step's line, its step's last); the page, the last event's.
        numbers = [int(n) for n in re.findall(r'data-event="(\d+)"', page.text)]
        assert len(numbers) >= 3, page.text
        last = int(re.search(r'data-after="(\d+)"', page.text).group(1))  # type: ignore[union-attr]
        seen = sorted(numbers)[0]
        async with client.stream(
            "GET", f"{task_path}/events", params={"after": 0}, headers={"Last-Event-ID": str(seen)}
        ) as stream:
            assert stream.headers["content-type"].startswith("text/event-stream")
            assert_security_headers(stream)
            frames = await asyncio.wait_for(read_events(stream, until_id=str(last)), 30)
        # Every frame is of an event after the one the browser saw, in order,
        # up to the last; each line shown after it comes again.
        ids = [int(ident) for _, ident, _ in frames if ident]
        assert ids == sorted(ids) and ids[0] > seen and ids[-1] == last, ids
        lines = {int(ident) for event, ident, _ in frames if event == "line"}
        assert {n for n in numbers if n > seen} <= lines, (numbers, lines)
        # A resend of the same start form finds the same task, not a second one.
        again = await client.post(
            "/tasks", data={"csrf": csrf, "text": SIGN_IN_TASK, "request_id": "resume-1"}
        )
        assert again.headers["location"] == task_path
        await client.post(f"{task_path}/stop", data={"csrf": csrf})


async def test_a_stream_resumed_after_an_ended_tasks_last_line_says_it_has_ended(nod):
    """Cut off between the last line and the end frame, a browser comes
    back with that line's id: it is told the task ended, instead of being
    left to reconnect to a stream with nothing more in it, forever."""
    async with signed_in_client(nod.gateway_url, "ada", nod.web_password()) as client:
        csrf = csrf_of((await client.get("/tasks")).text)
        started = await client.post(
            "/tasks", data={"csrf": csrf, "text": SIGN_IN_TASK, "request_id": "ended-1"}
        )
        task_path = started.headers["location"]
        await client.post(f"{task_path}/stop", data={"csrf": csrf})
        for _ in range(150):
            page = await client.get(task_path)
            if 'class="line task-ended"' in page.text:
                break
            await asyncio.sleep(0.2)
        last = max(int(n) for n in re.findall(r'data-event="(\d+)"', page.text))
        async with client.stream(
            "GET", f"{task_path}/events", headers={"Last-Event-ID": str(last)}
        ) as stream:
            frames = await asyncio.wait_for(read_events(stream, until=1), 10)
        assert [event for event, _, _ in frames] == ["end"]


async def test_a_field_too_large_to_read_is_refused_by_its_name_and_starts_nothing(nod):
    async with signed_in_client(nod.gateway_url, "ada", nod.web_password()) as client:
        page = await client.get("/tasks")
        before = re.findall(r'href="/tasks/([0-9a-f-]{36})"', page.text)
        refused = await client.post(
            "/tasks",
            data={"csrf": csrf_of(page.text), "text": "x" * 70_000, "request_id": "huge-1"},
        )
        assert refused.status_code == 400
        assert "text is longer than 64 KB." in refused.text
        assert "x" * 100 not in refused.text
        after = re.findall(r'href="/tasks/([0-9a-f-]{36})"', (await client.get("/tasks")).text)
        assert after == before
