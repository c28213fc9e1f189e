"""Parse an HTML page with the standard library's parser: text, ids, every element closed."""

from __future__ import annotations

from html.parser import HTMLParser


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
