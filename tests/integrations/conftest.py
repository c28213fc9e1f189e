"""Integration tests run the first-party plugins from the working tree (plugins/*), not from an
installed copy, so a change to a plugin is tested before it is packaged."""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
GX_PLUGIN = ROOT / "plugins" / "privcheck-gx"

if str(GX_PLUGIN) not in sys.path:
    sys.path.insert(0, str(GX_PLUGIN))
# GX: no usage statistics, no network.
os.environ.setdefault("GX_ANALYTICS_ENABLED", "false")


def pytest_configure(config):
    config.addinivalue_line("markers", "slow: takes more than a minute (deselect: -m 'not slow')")
