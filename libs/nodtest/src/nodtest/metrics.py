"""A service's /metrics as a test reads it: scraped over HTTP, as
Prometheus scrapes it, and parsed with prometheus_client's own parser."""

import asyncio
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass

from prometheus_client.parser import text_string_to_metric_families


@dataclass(frozen=True)
class Scrape:
    text: str
    # (sample name, sorted label pairs) -> value
    samples: dict[tuple[str, tuple[tuple[str, str], ...]], float]

    def value(self, name: str, **labels: str) -> float:
        """One sample's value; 0 when it is absent (a counter never incremented)."""
        return self.samples.get((name, tuple(sorted(labels.items()))), 0.0)

    def total(self, name: str, **labels: str) -> float:
        """The sum over every sample of `name` whose labels include `labels`."""
        wanted = set(labels.items())
        return sum(
            value
            for (sample, pairs), value in self.samples.items()
            if sample == name and wanted <= set(pairs)
        )

    def has(self, name: str) -> bool:
        return any(n == name for n, _ in self.samples)


def scrape_now(address: str, timeout_s: float = 15.0) -> Scrape:
    with urllib.request.urlopen(f"http://{address}/metrics", timeout=timeout_s) as reply:
        assert reply.status == 200, reply.status
        assert reply.headers["Content-Type"].startswith("text/plain"), reply.headers
        text = reply.read().decode()
    samples = {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }
    return Scrape(text, samples)


async def scrape(address: str) -> Scrape:
    return await asyncio.to_thread(scrape_now, address)


async def scrape_until(
    address: str, holds: Callable[[Scrape], bool], timeout_s: float = 60.0
) -> Scrape:
    """Scrapes until `holds` is true of one (figures read from the database
    are cached a few seconds); fails with the last scrape's text."""
    deadline = asyncio.get_running_loop().time() + timeout_s
    while True:
        got = await scrape(address)
        if holds(got):
            return got
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"/metrics of {address} never showed it:\n{got.text}")
        await asyncio.sleep(0.5)
