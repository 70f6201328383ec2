"""Every console page renders in the browser without an error page; their screenshots are those of
docs/console.md. With SPARKWIRE_CONSOLE_SCREENSHOTS=1 the PNGs are written to docs/console/ (look at them before
committing), otherwise to the test's temp dir."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from selenium.webdriver.common.by import By

from tests.console.support import PASSWORD, Browser, Console, start_console_server

pytestmark = pytest.mark.timeout(300)

DOCS = Path(__file__).resolve().parent.parent.parent / "docs" / "console"
SETUP = (
    "CREATE TABLE orders (id int, customer int, amount numeric, placed date)",
    "CREATE TABLE customers (id int, name text, region text)",
    "CREATE INDEX orders_customer ON orders (customer)",
    "CREATE INDEX orders_customer_2 ON orders (customer)",
    "CREATE INDEX orders_everything ON orders ()",
    "CREATE INDEX customers_region_name ON customers (region, name)",
    "CREATE MATERIALIZED VIEW emea_customers AS SELECT id, name FROM customers WHERE region = 'EMEA'",
    "CREATE MATERIALIZED VIEW unknown_amounts AS SELECT id FROM orders WHERE amount = NULL",
    "CREATE MATERIALIZED VIEW order_pairs AS SELECT a.id AS first, b.id AS second FROM orders a CROSS JOIN orders b",
    "CREATE VIEW big_orders AS SELECT * FROM orders WHERE amount > 1000",
    "CREATE ROLE analyst LOGIN PASSWORD 'analyst-pw'",
    "GRANT CREATE ON SCHEMA public TO analyst",
    "GRANT CREATE ON CLUSTER quickstart TO analyst",
)
ANALYST = (
    "CREATE TABLE visits (page text, country text, at timestamp)",
    "CREATE INDEX visits_page_country ON visits (page, country)",
    "CREATE MATERIALIZED VIEW home_visits AS SELECT country, at FROM visits WHERE page = '/home'",
    "SELECT count(*) FROM mz_internal.mz_notices_redacted",
)


@pytest.fixture(scope="module")
def shots_console(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Console]:
    srv = start_console_server(Path(tmp_path_factory.mktemp("console-shots")), "--auth", "password",
                               env={"SPARKWIRE_SUPERUSER_PASSWORD": PASSWORD})
    try:
        with psycopg.connect(srv.dsn(), autocommit=True) as conn:
            for sql in SETUP:
                conn.execute(sql)
            fingerprints = [str(r[0]) for r in conn.execute(
                "SELECT n.fingerprint::text FROM mz_internal.mz_notices n JOIN mz_catalog.mz_objects o "
                "ON o.id = n.object_id WHERE o.name IN ('orders_customer_2', 'orders_everything') ORDER BY o.name"
            ).fetchall()]
            conn.execute(f"ALTER NOTICE '{fingerprints[0]}' SET STATUS = 'resolved'")
            conn.execute(f"ALTER NOTICE '{fingerprints[1]}' SET STATUS = 'ignored'")
            with pytest.raises(psycopg.errors.UndefinedTable):
                conn.execute("SELECT * FROM order")
        with psycopg.connect(srv.dsn("analyst", "analyst-pw"), autocommit=True) as conn:
            for sql in ANALYST:
                conn.execute(sql)
        yield srv
    finally:
        srv.server.stop()


def shoot(browser: Browser, folder: Path, name: str) -> None:
    d = browser.driver
    assert d.find_elements(By.CSS_SELECTOR, "section.failure") == [], d.page_source
    height = int(d.execute_script("return document.documentElement.scrollHeight"))
    d.set_window_size(1400, max(700, min(height + 140, 2400)))
    (folder / f"{name}.png").write_bytes(d.get_screenshot_as_png())
    d.set_window_size(1400, 1000)


def test_screenshots_of_every_page(shots_console: Console, browser: Browser, tmp_path: Path) -> None:
    folder = DOCS if os.environ.get("SPARKWIRE_CONSOLE_SCREENSHOTS") else tmp_path
    folder.mkdir(parents=True, exist_ok=True)
    url = shots_console.url
    d = browser.driver
    browser.clear_cookies()
    d.get(url + "/login")
    d.find_element(By.ID, "login-role").send_keys("materialize")
    shoot(browser, folder, "login")
    browser.login(shots_console, "materialize")
    badge = d.find_element(By.ID, "badge")
    browser.wait().until(lambda _d: badge.get_attribute("data-loaded") == "1")
    shoot(browser, folder, "notices")
    d.get(url + "/notices?status=all&sort=type&dir=asc")
    browser.wait().until(lambda drv: drv.find_element(By.ID, "badge").get_attribute("data-loaded") == "1")
    shoot(browser, folder, "notices-all")
    d.get(url + "/notices?q=EMEA")
    d.find_element(By.CSS_SELECTOR, "#notices a.open-notice").click()
    browser.wait().until(lambda drv: drv.find_elements(By.ID, "section-action"))
    shoot(browser, folder, "notice")
    d.find_element(By.ID, "learn-more").click()
    browser.wait().until(lambda drv: drv.find_elements(By.ID, "doc"))
    shoot(browser, folder, "docs")
    d.get(url + "/objects")
    shoot(browser, folder, "objects")
    d.find_element(By.LINK_TEXT, "emea_customers").click()
    browser.wait().until(lambda drv: drv.find_elements(By.ID, "object-name"))
    shoot(browser, folder, "object")
    d.get(url + "/history")
    shoot(browser, folder, "history")
    d.get(url + "/history?status=error")
    d.find_element(By.CSS_SELECTOR, "#history td.sql a").click()
    browser.wait().until(lambda drv: drv.find_elements(By.ID, "statement-sql"))
    shoot(browser, folder, "statement")
    browser.login(shots_console, "analyst", "analyst-pw")
    d.get(url + "/notices?status=all")
    shoot(browser, folder, "notices-redacted")
    assert sorted(p.name for p in folder.glob("*.png")) == sorted(
        f"{n}.png" for n in ("login", "notices", "notices-all", "notice", "docs", "objects", "object", "history",
                             "statement", "notices-redacted")
    )
