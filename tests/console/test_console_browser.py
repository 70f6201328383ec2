"""The console in a real browser (headless Chromium from Debian, through selenium): log in, list and filter the
notices, open a detail, resolve / ignore / reopen a notice and see its status change in psql, a non-superuser's
redacted view of only its own objects' notices, markup in object names rendered inert, the objects and history
pages, and the live badge."""

from __future__ import annotations

import psycopg
import pytest
from selenium.common.exceptions import NoAlertPresentException
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select

from tests.console.conftest import ALICE_PASSWORD, XSS
from tests.console.support import Browser, Console

pytestmark = pytest.mark.timeout(300)

Conn = psycopg.Connection[tuple[object, ...]]
TYPES = {"An identical index already exists", "Empty index key", "Index too wide for literal constraints"}


def notice_of(psql: Conn, object_name: str) -> tuple[str, str, str]:
    """(fingerprint, status, object id) of the one notice about `object_name`."""
    rows = psql.execute(
        "SELECT n.fingerprint::text, n.status, n.object_id FROM mz_internal.mz_notices n "
        "JOIN mz_catalog.mz_objects o ON o.id = n.object_id WHERE o.name = %s",
        (object_name,),
    ).fetchall()
    assert len(rows) == 1, rows
    fingerprint, status, object_id = rows[0]
    return str(fingerprint), str(status), str(object_id)


def row_of(browser: Browser, fingerprint: str) -> list[str]:
    return browser.texts(f'#notices tr[data-fingerprint="{fingerprint}"]')


def no_alert(browser: Browser) -> None:
    with pytest.raises(NoAlertPresentException):
        _ = browser.driver.switch_to.alert.text


def test_login_lists_every_notice_with_its_columns(console: Console, browser: Browser) -> None:
    browser.login(console, "materialize")
    d = browser.driver
    assert d.current_url == console.url + "/notices"
    assert d.find_element(By.ID, "role").text == "materialize"
    assert set(browser.texts("#notices td.type")) >= TYPES
    assert d.find_elements(By.ID, "redacted-note") == []  # a superuser reads mz_notices
    objects = browser.texts("#notices td.object")
    assert "public.orders_a2 index" in objects and "public.wide_mv materialized view" in objects
    assert "x = 5" in browser.texts("#notices td.message code")  # SQL quoted in backticks shows as code
    messages = browser.texts("#notices td.message")
    assert any("literal equalities x = 5." in m for m in messages)  # literals shown to a superuser
    assert all(s == "active" for s in browser.texts("#notices .status"))  # the default hides ignored and resolved
    assert all(t.endswith(" UTC") for t in browser.texts("#notices td.time"))
    badge = d.find_element(By.ID, "badge")
    browser.wait().until(lambda _d: badge.get_attribute("data-loaded") == "1")
    assert int(badge.text) >= 3


def test_wrong_password_is_refused(console: Console, browser: Browser) -> None:
    browser.login(console, "materialize", "not-the-password")
    d = browser.driver
    assert d.find_element(By.ID, "login-error").text == "Login failed: wrong role or password."
    browser.login(console, "nobody", "whatever")
    assert d.find_element(By.ID, "login-error").text == "Login failed: wrong role or password."
    d.get(console.url + "/notices")
    assert d.current_url == console.url + "/login"


def test_filters_search_and_sort(console: Console, browser: Browser) -> None:
    browser.login(console, "materialize")
    d = browser.driver
    Select(d.find_element(By.ID, "filter-type")).select_by_visible_text("Empty index key")  # applies on change
    browser.wait().until(lambda drv: "type=Empty" in drv.current_url)
    assert set(browser.texts("#notices td.type")) == {"Empty index key"}

    d.get(console.url + "/notices")
    box = d.find_element(By.ID, "filter-object")
    box.send_keys("public.orders_a2", Keys.ENTER)
    browser.wait().until(lambda drv: "object=" in drv.current_url)
    assert browser.texts("#notices td.object") == ["public.orders_a2 index"]

    d.get(console.url + "/notices")
    d.find_element(By.ID, "filter-q").send_keys("TOO WIDE", Keys.ENTER)
    browser.wait().until(lambda drv: "q=" in drv.current_url)
    assert set(browser.texts("#notices td.type")) == {"Index too wide for literal constraints"}

    d.get(console.url + "/notices")
    Select(d.find_element(By.ID, "filter-cluster")).select_by_visible_text("quickstart")
    browser.wait().until(lambda drv: "cluster=quickstart" in drv.current_url)
    assert set(browser.texts("#notices td.cluster")) == {"quickstart"}

    d.get(console.url + "/notices")
    d.find_element(By.LINK_TEXT, "Object").click()  # sort by object, ascending
    browser.wait().until(lambda drv: "sort=object" in drv.current_url)
    names = [t.split(" ")[0] for t in browser.texts("#notices td.object")]
    assert names == sorted(names) and len(names) >= 3
    d.find_element(By.LINK_TEXT, "Object").click()  # again: descending
    browser.wait().until(lambda drv: "dir=" not in drv.current_url)
    assert [t.split(" ")[0] for t in browser.texts("#notices td.object")] == sorted(names, reverse=True)


def test_paging(console: Console, browser: Browser, psql: Conn) -> None:
    psql.execute("CREATE TABLE bulk_t (a int)")
    for _ in range(26):  # 26 empty-key notices and 25 identical-index ones
        psql.execute("CREATE INDEX ON bulk_t ()")
    try:
        browser.login(console, "materialize")
        d = browser.driver
        d.get(console.url + "/notices?q=bulk_t")
        assert d.find_element(By.ID, "notice-count").text == "1–50 of 51 notices"
        assert len(browser.texts("#notices tbody tr")) == 50
        d.find_element(By.ID, "page-next").click()
        browser.wait().until(lambda drv: "page=2" in drv.current_url)
        assert d.find_element(By.ID, "notice-count").text == "51–51 of 51 notices"
        assert d.find_elements(By.ID, "page-prev")
    finally:
        psql.execute("DROP TABLE bulk_t CASCADE")


def test_detail_sections_object_link_and_docs(console: Console, browser: Browser, psql: Conn) -> None:
    fingerprint, _, object_id = notice_of(psql, "wide_mv")
    browser.login(console, "materialize")
    d = browser.driver
    d.get(console.url + "/notices?object=wide_mv")
    d.find_element(By.CSS_SELECTOR, "#notices a.open-notice").click()
    browser.wait().until(lambda drv: drv.current_url.endswith(fingerprint))
    assert [h.text for h in d.find_elements(By.CSS_SELECTOR, "section.card h2")][:3] == [
        "Notice",
        "Hint",
        "Corrective Action",
    ]
    assert "literal equalities x = 5." in d.find_element(By.ID, "notice-message").text
    assert d.find_element(By.ID, "notice-hint").text.startswith("If your literal equalities filter out many rows")
    assert d.find_element(By.ID, "notice-action").text == "CREATE INDEX ON wide(x);"  # sql_statements: a snippet
    assert d.find_element(By.CSS_SELECTOR, '#section-action button.copy[data-copy="notice-action"]')
    assert d.find_element(By.ID, "notice-fingerprint").text == fingerprint
    d.find_element(By.CSS_SELECTOR, "#notice-object a").click()
    browser.wait().until(lambda drv: drv.current_url.endswith(f"/objects/{object_id}"))
    assert d.find_element(By.ID, "object-name").text.startswith("wide_mv")
    assert d.find_element(By.ID, "object-sql").text.startswith("CREATE MATERIALIZED VIEW materialize.public.wide_mv")
    d.back()
    d.find_element(By.ID, "learn-more").click()
    browser.wait().until(lambda drv: "/docs/notices/" in drv.current_url)
    assert d.current_url.endswith("/docs/notices/index_too_wide_for_literal_constraints")
    assert d.find_element(By.CSS_SELECTOR, "#doc h1").text.startswith("Index too wide for literal constraints")
    assert d.find_elements(By.CSS_SELECTOR, "#doc pre code")  # the docs' SQL examples, rendered


def test_ignore_leaves_the_default_view_and_psql_sees_it(console: Console, browser: Browser, psql: Conn) -> None:
    fingerprint, status, _ = notice_of(psql, "orders_a2")
    assert status == "new"
    browser.login(console, "materialize")
    d = browser.driver
    d.get(console.url + "/notices?object=orders_a2")
    assert len(row_of(browser, fingerprint)) == 1
    d.find_element(By.CSS_SELECTOR, f'tr[data-fingerprint="{fingerprint}"] button.ignore').click()
    browser.wait().until(lambda drv: drv.find_elements(By.ID, "flash"))
    assert d.find_element(By.ID, "flash").text == f"Notice {fingerprint} is ignored."
    assert d.current_url == console.url + "/notices?object=orders_a2"  # back where it was
    assert row_of(browser, fingerprint) == []  # gone from "hide ignored and resolved"
    assert notice_of(psql, "orders_a2")[1] == "ignored"
    assert psql.execute(
        "SELECT status FROM mz_internal.mz_ignored_optimizer_notices WHERE fingerprint::text = %s", (fingerprint,)
    ).fetchall() == [("ignored",)]

    Select(d.find_element(By.ID, "filter-status")).select_by_visible_text("hide ignored")
    browser.wait().until(lambda drv: "status=unignored" in drv.current_url)
    assert row_of(browser, fingerprint) == []
    Select(d.find_element(By.ID, "filter-status")).select_by_visible_text("show all")
    browser.wait().until(lambda drv: "status=all" in drv.current_url)
    assert browser.texts(f'tr[data-fingerprint="{fingerprint}"] .status') == ["ignored"]

    d.find_element(By.CSS_SELECTOR, f'tr[data-fingerprint="{fingerprint}"] button.resolve').click()
    browser.wait().until(lambda drv: drv.find_elements(By.ID, "flash"))
    assert notice_of(psql, "orders_a2")[1] == "resolved"
    d.get(console.url + "/notices?object=orders_a2&status=unignored")  # resolved shows when hiding ignored only
    assert browser.texts(f'tr[data-fingerprint="{fingerprint}"] .status') == ["resolved"]
    d.find_element(By.CSS_SELECTOR, f'tr[data-fingerprint="{fingerprint}"] button.reopen').click()
    browser.wait().until(lambda drv: drv.find_elements(By.ID, "flash"))
    assert notice_of(psql, "orders_a2")[1] == "new"


def test_a_non_superuser_sees_redacted_text_and_only_its_own_objects(
    console: Console, browser: Browser, psql: Conn
) -> None:
    others, _, _ = notice_of(psql, "wide_mv")
    mine, _, _ = notice_of(psql, "alice_mv")
    browser.login(console, "alice", ALICE_PASSWORD)
    d = browser.driver
    d.get(console.url + "/notices?status=all")
    assert d.find_element(By.ID, "role").text == "alice"
    assert "mz_notices_redacted" in d.find_element(By.ID, "redacted-note").text
    assert browser.texts("#notices td.object") == ["public.alice_mv materialized view"]
    (message,) = browser.texts("#notices td.message")
    assert "literal equalities x = █." in message and "42" not in message
    d.get(console.url + f"/notices/{mine}")
    assert "x = █" in browser.texts("#notice-message code")
    d.get(console.url + f"/notices/{others}")  # someone else's notice: as if it did not exist
    assert d.find_element(By.TAG_NAME, "h1").text == "Not found"
    d.get(console.url + "/notices?object=alice_mv")
    d.find_element(By.CSS_SELECTOR, f'tr[data-fingerprint="{mine}"] button.ignore').click()
    browser.wait().until(lambda drv: drv.find_elements(By.ID, "flash"))
    assert notice_of(psql, "alice_mv")[1] == "ignored"
    psql.execute(f"ALTER NOTICE '{mine}' RESET STATUS")


def test_markup_in_names_renders_inert(console: Console, browser: Browser, psql: Conn) -> None:
    index = f"{XSS}__idx"
    fingerprint, _, object_id = notice_of(psql, index)
    browser.login(console, "materialize")
    d = browser.driver
    d.get(console.url + f"/notices?object={object_id}")
    assert browser.texts("#notices td.object") == [f"public.{index} index"]
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in d.page_source
    no_alert(browser)
    d.get(console.url + f"/notices/{fingerprint}")
    assert d.find_element(By.CSS_SELECTOR, "#notice-object a").text == f"public.{index}"
    no_alert(browser)
    d.get(console.url + f"/objects/{object_id}")
    assert d.find_element(By.ID, "object-name").text.startswith(index)
    no_alert(browser)
    d.get(console.url + "/objects")
    assert XSS in browser.texts("table.objects td a")
    no_alert(browser)
    assert d.execute_script("return document.querySelectorAll('main script').length") == 0


def test_objects_page(console: Console, browser: Browser) -> None:
    browser.login(console, "materialize")
    d = browser.driver
    d.get(console.url + "/objects")
    assert "materialize.public" in browser.texts("h2.schema-name")
    mv = next(r for r in browser.texts("table.objects tr.object") if r.startswith("wide_mv "))
    assert "materialized view" in mv and "quickstart" in mv and "1 active / 1" in mv
    index = next(r for r in browser.texts("table.objects tr.object") if r.startswith("orders_a2 "))
    assert "index orders" in index
    Select(d.find_element(By.ID, "object-type")).select_by_visible_text("table")
    browser.wait().until(lambda drv: "type=table" in drv.current_url)
    assert set(browser.texts("table.objects td.kind")) == {"table"}


def test_history_page_shows_the_roles_own_statements(console: Console, browser: Browser) -> None:
    with (
        psycopg.connect(console.dsn("alice", ALICE_PASSWORD), autocommit=True) as alice,
        pytest.raises(psycopg.errors.DivisionByZero),
    ):
        alice.execute("SELECT 1 / 0 AS oops")
    browser.login(console, "alice", ALICE_PASSWORD)
    d = browser.driver
    d.get(console.url + "/history")
    users = set(browser.texts("#history td:nth-child(4)"))
    assert users == {"alice"}  # every role sees its own statements only
    assert any("CREATE MATERIALIZED VIEW alice_mv" in s for s in browser.texts("#history td.sql"))
    assert "sparkwire console" not in browser.texts("#history td:nth-child(5)")  # the console's own: hidden
    Select(d.find_element(By.ID, "history-status")).select_by_visible_text("error")
    browser.wait().until(lambda drv: "status=error" in drv.current_url)
    assert browser.texts("#history td.sql") == ["SELECT 1 / 0 AS oops"]
    d.find_element(By.CSS_SELECTOR, "#history td.sql a").click()
    browser.wait().until(lambda drv: drv.find_elements(By.ID, "statement-sql"))
    assert d.find_element(By.ID, "statement-sql").text == "SELECT 1 / 0 AS oops"
    assert d.find_element(By.ID, "statement-error").text == "division by zero"
    d.get(console.url + "/history?console=1")
    assert "sparkwire console" in browser.texts("#history td:nth-child(5)")


def test_the_badge_follows_new_notices(console: Console, browser: Browser, psql: Conn) -> None:
    browser.login(console, "materialize")
    d = browser.driver
    d.get(console.url + "/objects")
    badge = d.find_element(By.ID, "badge")
    browser.wait().until(lambda _d: badge.get_attribute("data-loaded") == "1")
    before = int(badge.text)
    psql.execute("CREATE INDEX orders_a3 ON orders (a)")  # one more identical index: one more notice
    try:
        browser.wait(15).until(lambda _d: badge.text == str(before + 1))
    finally:
        psql.execute("DROP INDEX orders_a3")
