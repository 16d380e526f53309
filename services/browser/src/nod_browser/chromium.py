"""Kept for tests/conftest.py (the end-to-end suite), which imports Chromium
from here; the launcher lives in nod_browser.adapters.chromium."""

from nod_browser.adapters.chromium import Chromium

__all__ = ["Chromium"]
