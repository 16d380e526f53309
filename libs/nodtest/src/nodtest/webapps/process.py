"""A web application's own server as a child process on 127.0.0.2 (the
browser's sites never live on the services' 127.0.0.1).

The child must never outlive the test process, however that ends: stop()
sends SIGTERM then SIGKILL, an atexit hook stops what is still running,
and the kernel sends the child SIGTERM when its parent dies
(PR_SET_PDEATHSIG), which covers a test run killed by SIGTERM or SIGKILL,
where no Python code runs (nodtest.children)."""

import asyncio
import atexit
import os
import pathlib
import subprocess
import time

import aiohttp

from nodtest.children import tied_to_me

_running: set["SiteProcess"] = set()


class SiteProcess:
    """`argv` run with `env` added, its output (the site's own request log)
    kept in `log_path`. Start it from the event loop's thread: the kernel
    ties the child's life to the thread that started it."""

    def __init__(self, argv: list[str], env: dict[str, str], log_path: pathlib.Path) -> None:
        self.argv = argv
        self.env = env
        self.log_path = log_path
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        with self.log_path.open("ab") as log:
            self.process = subprocess.Popen(
                tied_to_me(self.argv),
                env={**os.environ, **self.env},
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        _running.add(self)

    async def wait_until_answering(self, url: str, timeout_s: float = 60.0) -> None:
        """Polls `url` until the server answers anything below 500."""
        deadline = time.monotonic() + timeout_s
        async with aiohttp.ClientSession() as session:
            while True:
                if self.process is None or self.process.poll() is not None:
                    raise RuntimeError(f"the site exited before answering:\n{self.log_text()}")
                try:
                    async with session.get(url, allow_redirects=False) as reply:
                        if reply.status < 500:
                            return
                except aiohttp.ClientError:
                    pass
                if time.monotonic() > deadline:
                    raise TimeoutError(f"{url} did not answer in {timeout_s} s:\n{self.log_text()}")
                await asyncio.sleep(0.05)

    def stop(self, grace_s: float = 5.0) -> None:
        _running.discard(self)
        if self.process is None or self.process.poll() is not None:
            return
        self.process.terminate()
        try:
            self.process.wait(timeout=grace_s)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=grace_s)

    def log_text(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""


@atexit.register
def _stop_all() -> None:
    for site in list(_running):
        site.stop()
