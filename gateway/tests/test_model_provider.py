"""With NOD_MODEL_URL set, the same page drives an OpenAI-compatible model:
here a local stand-in speaking /chat/completions, which keeps what it
receives. Its first answer is a temporary failure: the page says so and
that nod tried again (a good answer is no line of its own), and the task
ends with the model's words."""

import json
import uuid

import pytest
from aiohttp import web
from playwright.async_api import expect

from nodtest import observed
from nodtest.make_run import MakeRun

from .conftest import ROOT
from .people import Person

ANSWER = "Hello! I am the stand-in model, and there is nothing to do."


class StandInModel:
    def __init__(self) -> None:
        self.requests: list[dict] = []
        self.runner: web.AppRunner | None = None
        self.url = ""

    async def complete(self, request: web.Request) -> web.Response:
        self.requests.append(await request.json())
        observed.keep("model request: stand-in", json.dumps(self.requests[-1]))
        if len(self.requests) == 1:
            return web.json_response(
                {"error": {"message": "busy"}}, status=503, headers={"Retry-After": "0"}
            )
        message = {"role": "assistant", "content": ANSWER}
        return web.json_response({"choices": [{"message": message, "finish_reason": "stop"}]})

    async def start(self) -> "StandInModel":
        app = web.Application()
        app.router.add_post("/v1/chat/completions", self.complete)
        self.runner = web.AppRunner(app, access_log=None)
        await self.runner.setup()
        await web.TCPSite(self.runner, "127.0.0.1", 0).start()
        self.url = f"http://127.0.0.1:{self.runner.addresses[0][1]}/v1"
        return self


@pytest.fixture
async def model_backed(tmp_path):
    model = await StandInModel().start()
    run = MakeRun(
        ROOT,
        tmp_path / "var",
        f"nod_test_model_{uuid.uuid4().hex[:8]}",
        NOD_MODEL_URL=model.url,
        NOD_MODEL_API_KEY="stand-in-key",
        NOD_MODEL_NAME="stand-in",
    )
    run.start()
    yield run, model
    run.stop()
    run.clean()
    assert model.runner is not None
    await model.runner.cleanup()


async def test_the_page_drives_a_real_model_provider_and_shows_each_attempt(
    model_backed, chromium, tmp_path
):
    run, model = model_backed
    person = Person(run, chromium, "ada", run.web_password(), tmp_path)
    page = await person.open()
    try:
        await person.sign_in()
        await person.start_task("Say hello")
        await expect(page.locator(".state-line .badge")).to_have_text("Done", timeout=60_000)
        await expect(page.locator(".state-line .message")).to_have_text(ANSWER)
        attempts = page.locator("#timeline .model-attempt")
        await expect(attempts).to_have_count(1)
        await expect(attempts).to_contain_text("The model provider didn't answer (HTTP 503)")
        await expect(attempts).to_contain_text("nod tried again")
    finally:
        await person.close()
    assert len(model.requests) == 2
    assert model.requests[0]["model"] == "stand-in"
    sent = json.dumps(model.requests)
    assert "Say hello" in sent
    # Nothing private reaches the model: not the demo person's saved password.
    assert "demo-password-1" not in sent
