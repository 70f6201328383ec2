"""What the console tests share: a real `sparkwire serve` with its console on a known port, a headless Chromium
from Debian driven by selenium (never a downloaded browser), and a plain HTTP client for the security checks.

`start_console_server(dir, *args, env=…)` starts the server with `--http-port <free port>` and waits for both
ports. `chromium()` launches /usr/bin/chromium through /usr/bin/chromedriver with a fresh profile in a temp dir and
the flags this closed network needs. `Http` sends requests with a cookie jar and without following redirects.
"""

from __future__ import annotations

import email.message
import http.cookiejar
import os
import re
import shutil
import socket
import ssl
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.ui import WebDriverWait

from tests.support.postgres import free_port
from tests.support.server import SparkwireServer

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
PASSWORD = "secret-superuser"
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--window-size=1400,1000",
)


@dataclass
class Console:
    server: SparkwireServer
    http_port: int

    scheme: str = "http"

    @property
    def url(self) -> str:
        return f"{self.scheme}://127.0.0.1:{self.http_port}"

    def dsn(self, user: str = "materialize", password: str = PASSWORD) -> str:
        return f"host=127.0.0.1 port={self.server.port} user={user} password={password} dbname=materialize"


def start_console_server(data_dir: Path, *args: str, env: dict[str, str] | None = None) -> Console:
    port = free_port()
    server = SparkwireServer.start(
        data_dir, "--http-port", str(port), "--spark-start", "on-demand", "--spark-master", "local[1]", *args,
        env=env,
    )
    deadline = time.monotonic() + 30
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                break
        except OSError:
            ended = server.process.poll()  # a server that exits (its console could not bind) is no slow console
            if ended is not None or time.monotonic() > deadline:
                server.stop()
                what = f"sparkwire exited with {ended}" if ended is not None else "the console did not listen"
                raise RuntimeError(f"{what} (console port {port}):\n{server.log()}") from None
            time.sleep(0.05)
    return Console(server, port, "https" if "--tls-cert" in args else "http")


def chromium_available() -> bool:
    return os.path.exists(CHROMIUM) and os.path.exists(CHROMEDRIVER)


class Browser:
    """A headless Chromium with its own temporary profile."""

    def __init__(self) -> None:
        self.profile = tempfile.mkdtemp(prefix="sparkwire-chromium-")
        options = Options()
        options.binary_location = CHROMIUM
        for flag in CHROMIUM_FLAGS:
            options.add_argument(flag)
        options.add_argument(f"--user-data-dir={self.profile}")
        self.driver: WebDriver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
        self.driver.set_page_load_timeout(30)

    def quit(self) -> None:
        try:
            self.driver.quit()
        finally:
            shutil.rmtree(self.profile, ignore_errors=True)

    def wait(self, timeout: float = 10) -> WebDriverWait[WebDriver]:
        return WebDriverWait(self.driver, timeout)

    def clear_cookies(self) -> None:
        """Every cookie of every site (consoles on other ports share the host's cookies)."""
        self.driver.execute_cdp_cmd("Network.clearBrowserCookies", {})

    def login(self, console: Console, role: str, password: str | None = PASSWORD) -> None:
        d = self.driver
        self.clear_cookies()
        d.get(console.url + "/login")
        d.find_element(By.ID, "login-role").send_keys(role)
        if password is not None:
            d.find_element(By.ID, "login-password").send_keys(password)
        d.find_element(By.ID, "login-submit").click()
        self.wait().until(lambda drv: drv.find_elements(By.ID, "role") or drv.find_elements(By.ID, "login-error"))

    def texts(self, css: str) -> list[str]:
        return [e.text for e in self.driver.find_elements(By.CSS_SELECTOR, css)]


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *_args: object, **_kwargs: object) -> None:
        return None


@dataclass
class Reply:
    status: int
    headers: email.message.Message
    body: str


class Http:
    """Requests with a cookie jar, no redirects followed."""

    def __init__(self, base: str, context: ssl.SSLContext | None = None) -> None:
        self.base = base
        self.jar = http.cookiejar.CookieJar()
        handlers: list[urllib.request.BaseHandler] = [urllib.request.HTTPCookieProcessor(self.jar), _NoRedirect()]
        if context is not None:
            handlers.append(urllib.request.HTTPSHandler(context=context))
        self._opener = urllib.request.build_opener(*handlers)

    def request(self, path: str, form: dict[str, str] | None = None, headers: dict[str, str] | None = None) -> Reply:
        data = None if form is None else urllib.parse.urlencode(form).encode()
        req = urllib.request.Request(self.base + path, data=data, headers=headers or {})
        try:
            with self._opener.open(req, timeout=30) as resp:
                return Reply(resp.status, resp.headers, resp.read().decode())
        except urllib.error.HTTPError as err:
            return Reply(err.code, err.headers, err.read().decode())

    def csrf_of(self, path: str) -> str:
        match = re.search(r'name="csrf" value="([^"]+)"', self.request(path).body)
        assert match, f"no CSRF token on {path}"
        return match.group(1)

    def login(self, role: str, password: str = PASSWORD) -> Reply:
        token = self.csrf_of("/login")
        return self.request("/login", {"csrf": token, "role": role, "password": password})
