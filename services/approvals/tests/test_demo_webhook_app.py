"""The demo app that stands in for a webhook receiver, run as a process."""

import asyncio
import sys

import httpx


async def test_the_demo_app_runs_as_a_process_and_records_what_it_gets():
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "nod_demo.webhook_app", "--port", "0", stdout=asyncio.subprocess.PIPE
    )
    try:
        first_line = (await asyncio.wait_for(process.stdout.readline(), 15)).decode().strip()
        assert first_line.startswith("listening http://127.0.0.2:")
        url = first_line.removeprefix("listening ")
        async with httpx.AsyncClient(base_url=url, trust_env=False) as client:
            ok = await client.post(
                "/hooks/orders", content=b'{"a":"<i>"}', headers={"Idempotency-Key": "k-1"}
            )
            await client.post("/_control/mode", json={"mode": "reject", "message": "no thanks"})
            refused = await client.post("/hooks/orders", content=b"{}")
            received = (await client.get("/_control/received")).json()
            page = (await client.get("/")).text
    finally:
        process.terminate()
        await process.wait()

    assert ok.status_code == 200 and ok.json() == {"ok": True, "id": 1}
    assert refused.status_code == 422 and refused.json()["error"] == "no thanks"
    assert [(r["idempotency_key"], r["body"]) for r in received] == [
        ("k-1", {"a": "<i>"}),
        (None, {}),
    ]
    assert "&lt;i&gt;" in page and "<i>" not in page
