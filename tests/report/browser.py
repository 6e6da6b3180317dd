"""A real headless browser for the report tests: Debian's ``chromium``, driven by Selenium
through ``/usr/bin/chromedriver`` (``.ci/run`` installs both; nothing is downloaded)."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

CHROMIUM = os.environ.get("MICROCODER_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("MICROCODER_CHROMEDRIVER", "/usr/bin/chromedriver")
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
)
_READY_WAIT = 120  # seconds a page may take to render its table (a wait, not an assertion)

__all__ = [
    "By",
    "Select",
    "browser",
    "cells",
    "open_page",
    "overflowing",
    "phone",
    "screenshot",
    "visible_ids",
]


@contextmanager
def browser(width: int = 1400, height: int = 1000, javascript: bool = True) -> Iterator[Any]:
    """A fresh headless Chromium (its own empty profile), closed afterwards; with
    ``javascript=False`` one whose pages run no script (a reader who turned it off)."""
    profile = tempfile.mkdtemp(prefix="mcevaluate-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in (*FLAGS, f"--user-data-dir={profile}", f"--window-size={width},{height}"):
        options.add_argument(flag)
    if not javascript:
        options.add_experimental_option(
            "prefs", {"profile.managed_default_content_settings.javascript": 2}
        )
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def open_page(driver: Any, path: Path) -> tuple[list[dict[str, Any]], int]:
    """Load ``path`` and wait until its script has rendered the table; the console entries
    the page logged meanwhile and the milliseconds from navigation to the rendered table."""
    driver.get_log("browser")  # drop what earlier pages logged
    driver.get(Path(path).resolve().as_uri())
    WebDriverWait(driver, _READY_WAIT).until(
        lambda d: d.execute_script("return document.body && document.body.dataset.ready")
    )
    ready = int(driver.execute_script("return document.body.dataset.ready"))
    return driver.get_log("browser"), ready


@contextmanager
def phone(driver: Any, width: int = 420, height: int = 900) -> Iterator[None]:
    """The page laid out as on a phone ``width`` CSS pixels wide (a headless window cannot
    be made narrower than about 500), restored afterwards."""
    metrics = {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": True}
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", metrics)
    try:
        yield
    finally:
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def overflowing(driver: Any) -> dict[str, Any]:
    """How far the page is wider than its window, and the elements reaching past its right
    edge that are not inside a box that scrolls (``.scroll``): what makes a phone scroll the
    whole page sideways."""
    return driver.execute_script(
        "var width = document.documentElement.clientWidth;"
        "var out = Array.from(document.querySelectorAll('body *')).filter(function (e) {"
        "  var box = e.getBoundingClientRect();"
        "  return box.width && box.right > width + 0.5 && !e.closest('.scroll');"
        "}).map(function (e) { return e.tagName.toLowerCase() + '.' + e.getAttribute('class'); });"
        "return {extra: document.documentElement.scrollWidth - width, elements: out.slice(0, 8)};"
    )


def visible_ids(driver: Any, table: str) -> list[str]:
    """The problem ids of the rows a page's table shows now."""
    return [
        row.get_attribute("data-key")
        for row in driver.find_elements(By.CSS_SELECTOR, f"#{table} tbody tr.item")
    ]


def cells(driver: Any, selector: str) -> list[str]:
    """The text of every element matching ``selector``."""
    return [element.text for element in driver.find_elements(By.CSS_SELECTOR, selector)]


def screenshot(driver: Any, path: Path, width: int = 1400, height: int | None = None) -> Path:
    """A PNG of the page's top ``height`` pixels (default: the whole page, the window grown
    to its height)."""
    if height is None:
        height = int(driver.execute_script("return document.documentElement.scrollHeight"))
    driver.set_window_size(width, min(height + 40, 8000))
    driver.execute_script("window.scrollTo(0, 0)")
    driver.save_screenshot(str(path))
    return path
