"""The HTML report in a real browser (headless Chromium): it renders, opens, and fetches nothing.

The viewer renders inside shadow DOM; Playwright's CSS and text selectors pierce open
shadow roots, which is why this drives the system chromium through Playwright.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from typing import NoReturn

import pytest
from support.reports import rich_report

from guardcheck.reports.html import write_html

pytestmark = pytest.mark.slow

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def _missing(what: str) -> NoReturn:
    # CI installs both (.ci/run, the dev extra); a missing browser there is a failure.
    if os.environ.get("CI"):
        pytest.fail(f"{what} is missing on CI")
    pytest.skip(f"{what} is not installed")


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    try:
        from playwright import sync_api
    except ImportError:
        _missing("playwright (pip install -e '.[dev]')")
    if CHROMIUM is None:
        _missing("chromium (apt-get install chromium)")
    with sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=CHROMIUM,
            # Any host name fails to resolve: a fetch could not succeed even if tried.
            args=["--no-sandbox", "--disable-gpu", "--host-resolver-rules=MAP * ~NOTFOUND"],
        )
        yield launched
        launched.close()


@pytest.fixture
def page(browser, tmp_path):
    path = write_html(rich_report(), tmp_path / "report.html")
    context = browser.new_context()
    page = context.new_page()
    page.requests = []  # every request the page makes
    page.errors = []
    page.on("request", lambda request: page.requests.append(request.url))
    page.on("pageerror", lambda error: page.errors.append(str(error)))
    page.report_url = path.as_uri()
    yield page
    context.close()


def test_the_report_renders_the_files_and_fetches_nothing(page):
    page.goto(page.report_url)
    table = page.locator("mte-metrics-table")
    assert table.get_by_text("calc.py").first.is_visible()
    assert table.get_by_text("util.py").first.is_visible()
    assert page.errors == []
    assert {url.split("#")[0] for url in page.requests} == {page.report_url}


def test_a_survivor_is_listed_and_its_diff_opens(page):
    page.goto(f"{page.report_url}#mutant/calc.py")
    dot = page.locator("svg.mutant-dot[data-mutant-id='clamp-no-high']")
    dot.click()
    drawer = page.locator("mte-drawer-mutant")
    assert drawer.get_attribute("mode") in ("half", "open")
    assert drawer.get_by_text("Survived").first.is_visible()
    # The row of the original line also carries the mutant's badge, hence startswith.
    assert (
        page.locator("tr.diff-old")
        .first.text_content()
        .strip()
        .startswith("return min(value, high)")
    )
    assert page.locator("tr.diff-new").first.text_content().strip() == "return value"
    # guardcheck's own fields ride in the description, shown in the drawer.
    assert drawer.get_by_text("Named mutation: clamp-no-high", exact=False).count() == 1
    assert page.errors == []


def test_the_test_view_shows_which_test_killed_what(page):
    page.goto(f"{page.report_url}#test/test_calc.py")
    view = page.locator("mte-test-view")
    assert view.get_by_text("test_add").first.is_visible()
    assert view.locator("[data-test-id]").count() >= 2
    assert page.errors == []
