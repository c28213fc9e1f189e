"""Parse an HTML page with the standard library's parser (text, ids, every element closed; the
charts and their text alternatives), and drive headless Chromium."""

from __future__ import annotations

import json
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path


class Page(HTMLParser):
    """Parses a page; collects its visible text and the ids; records unclosed elements."""

    VOID = frozenset({"meta", "br", "hr", "img", "input", "link"})

    def __init__(self) -> None:
        super().__init__()
        self.text: list[str] = []
        self.ids: set[str] = set()
        self.stack: list[str] = []
        self.pre: list[str] = []
        self._in_pre = 0

    def handle_starttag(self, tag, attrs):
        self.ids.update(v for k, v in attrs if k == "id" and v)
        if tag not in self.VOID:
            self.stack.append(tag)
        self._in_pre += tag == "pre"

    def handle_startendtag(self, tag, attrs):
        self.ids.update(v for k, v in attrs if k == "id" and v)

    def handle_endtag(self, tag):
        assert self.stack and self.stack[-1] == tag, (tag, self.stack[-5:])
        self.stack.pop()
        self._in_pre -= tag == "pre"

    def handle_data(self, data):
        if data.strip():
            (self.pre if self._in_pre else self.text).append(data.strip())

    @property
    def words(self) -> str:
        """The visible text outside <pre> blocks (commands), joined by spaces."""
        return " ".join(self.text)


def parse(html: str) -> Page:
    assert html.startswith("<!DOCTYPE html>")
    page = Page()
    page.feed(html)
    page.close()
    assert page.stack == [], page.stack  # every element closed
    return page


# ----------------------------------------------------------------------- headless Chromium

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")

#: with these the browser reaches no network: every host resolves to nothing, every connection
#: goes to a closed local port (``page_requests`` still sees what a page asked for)
OFFLINE = (
    "--proxy-server=http://127.0.0.1:9",
    "--proxy-bypass-list=<-loopback>",
    "--host-resolver-rules=MAP * ~NOTFOUND",
)


def chromium(*args: str, tmp_path: Path, offline: bool = False) -> subprocess.CompletedProcess:
    """Run Debian's headless Chromium (console messages on stderr)."""
    return subprocess.run(
        [
            CHROMIUM,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            f"--user-data-dir={tmp_path / 'profile'}",
            "--enable-logging=stderr",
            "--v=0",
            *(OFFLINE if offline else ()),
            *args,
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )


def console_messages(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if ":CONSOLE" in line or "Uncaught" in line]


def page_requests(netlog: Path) -> list[str]:
    """The non-file URLs a page loaded from a file:// URL asked for, from Chromium's NetLog
    (``--log-net-log``): requests made on the page's behalf carry its file:// isolation key,
    the browser's own background requests do not."""
    log = json.loads(netlog.read_text(encoding="utf-8"))
    start = log["constants"]["logEventTypes"]["URL_REQUEST_START_JOB"]
    return sorted(
        {
            p["url"]
            for ev in log["events"]
            if ev["type"] == start
            and (p := ev.get("params", {})).get("network_isolation_key", "").startswith("file://")
            and not p["url"].startswith(("file:", "data:"))
        }
    )


class Charts(HTMLParser):
    """Every <svg> of a page: its role, aria-label, <title> text, and the <figcaption> and id of
    the <figure> around it (None when it stands in no figure)."""

    VOID = Page.VOID

    def __init__(self) -> None:
        super().__init__()
        self.charts: list[dict] = []
        self.stack: list[tuple[str, dict]] = []
        self._figure: dict | None = None
        self._title: dict | None = None
        self._caption: dict | None = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "figure":
            self._figure = {"id": a.get("id"), "caption": "", "charts": []}
        if tag == "figcaption" and self._figure is not None:
            self._caption = self._figure
        if tag == "svg":
            chart = {
                "role": a.get("role"),
                "aria_label": a.get("aria-label"),
                "title": None,
                "figure": self._figure,
            }
            self.charts.append(chart)
            if self._figure is not None:
                self._figure["charts"].append(chart)
        if tag == "title" and self.stack and self.stack[-1][0] == "svg":
            self._title = self.charts[-1]
            self._title["title"] = ""
        if tag not in self.VOID:
            self.stack.append((tag, a))

    def handle_endtag(self, tag):
        while self.stack:
            name, _ = self.stack.pop()
            if name == tag:
                break
        if tag == "figure":
            self._figure = None
        if tag == "figcaption":
            self._caption = None
        if tag == "title":
            self._title = None

    def handle_data(self, data):
        if self._title is not None:
            self._title["title"] += data
        if self._caption is not None:
            self._caption["caption"] += data


def charts(html: str) -> list[dict]:
    parser = Charts()
    parser.feed(html)
    parser.close()
    return parser.charts


#: measures, in the page as the browser laid it out, every element that reaches past the
#: window's right edge or scrolls sideways (every <details> opened first); the result lands in
#: the DOM Chromium dumps
_OVERFLOW_PROBE = """<script>
document.querySelectorAll('details').forEach(d => { d.open = true; });
const W = document.documentElement.clientWidth, bad = [];
const name = el => el.tagName.toLowerCase() + (el.id ? '#' + el.id : '');
for (const el of document.querySelectorAll('body *')) {
  if (el.closest('svg') && el.tagName.toLowerCase() !== 'svg') continue;
  const r = el.getBoundingClientRect();
  if (r.width === 0 && r.height === 0) continue;
  if (r.right > W + 0.5) bad.push(name(el) + ' ends at ' + Math.round(r.right) + ' px: '
    + (el.textContent || '').trim().slice(0, 40));
  if (el.scrollWidth > el.clientWidth + 1 && getComputedStyle(el).overflowX !== 'visible')
    bad.push(name(el) + ' scrolls sideways: ' + el.scrollWidth + ' > ' + el.clientWidth);
}
document.body.setAttribute('data-probe-width', String(W));
document.body.setAttribute('data-probe-overflow', JSON.stringify(bad));
</script>"""


def clipped(page: Path, width: int, tmp_path: Path) -> tuple[int, list[str]]:
    """(the layout width Chromium used, the elements of ``page`` that do not fit a window
    ``width`` pixels wide): a copy of the page with a measuring script, laid out by headless
    Chromium, its DOM dumped."""
    import html as html_lib
    import re

    probe = tmp_path / f"{page.stem}-probe-{width}.html"
    probe.write_text(
        page.read_text(encoding="utf-8").replace("</body>", _OVERFLOW_PROBE + "</body>"),
        encoding="utf-8",
    )
    res = chromium(
        "--hide-scrollbars", f"--window-size={width},900", "--dump-dom", probe.as_uri(),
        tmp_path=tmp_path, offline=True,
    )  # fmt: skip
    assert res.returncode == 0, res.stderr[-2000:]
    found = re.search(r'data-probe-width="(\d+)" data-probe-overflow="([^"]*)"', res.stdout)
    assert found, res.stdout[-2000:]
    return int(found.group(1)), json.loads(html_lib.unescape(found.group(2)))
