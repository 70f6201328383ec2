"""A Spark application of its own for one cluster replica: a Spark Connect server that sparkwire launches and owns.

Contract:
- `SparkApplication(name, directory, master=..., cores=..., memory=..., conf=...)`: nothing runs yet. `directory`
  holds the application's Spark files (its `spark_conf` files, scratch space) and `connect.log`, its output;
  `conf()` gives its Spark settings at each launch (it may write files: a failure is the launch's).
- `start(timeout)` launches it unless it runs (`spark-submit --class …SparkConnectServer`, which execs the JVM:
  the child is the driver itself) and returns its URL, `sc://localhost:<port>/;token=…`, once its gRPC port
  accepts connections. The server binds to 127.0.0.1 and takes only clients with its token (a new random one per
  launch, given to the JVM in its environment, never on its command line): another local user cannot run code in
  it; a launch that exits or does not answer in time raises `ApplicationFailed` with the last lines of its
  log (one retry on another port when the chosen one was taken meanwhile).
  - embedded (`master` `local…`): `local[cores]`, the driver memory `memory` (the driver is the executor);
  - a Spark cluster (`spark://…`): `spark.cores.max` = `cores`, `spark.executor.memory` = `memory`, so the
    cluster manager gives the application that many cores, no more, and memory of its own.
  The JVM runs in a session of its own, hence (Linux) an autogroup of its own at autogroup nice `niceness`: the
  kernel shares the CPU between the server and each application as groups, whatever threads each one runs, so one
  application's tasks on every core take at most their group's share from another application's (docs/clusters.md).
- `status_url`: while it runs, `http://127.0.0.1:<port>` of its Spark UI's REST API (`/api/v1`), the side route
  that introspection reads its jobs and stages through (engine/spark_status_rest.py); None otherwise. The UI binds
  to loopback (`SPARK_LOCAL_IP`), keeps few tasks (`spark.ui.retainedTasks`), and cannot kill jobs. Should its port
  have been taken between its choice and the launch, Spark binds the next one: readers check `app_name` there.
- `exit_reason()`: None while the process runs, else how it ended (one line). `pid`: the JVM's process id, or None.
- `stop()`: SIGTERM, then SIGKILL after a few seconds. Idempotent; never raises. `abort()` first when the
  application is gone for good: a launch still waiting for its port gives up at once and no later one starts
  (`ApplicationFailed`), so stopping does not wait for a start. An application outlives a server
  killed with SIGKILL (it runs in its own session); the next `start` in the same directory stops it first (`pid`).
"""

from __future__ import annotations

import contextlib
import logging
import os
import secrets
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pyspark

from sparkwire.engine.spark_process import exit_reason

log = logging.getLogger(__name__)
SPARK_HOME = Path(pyspark.__file__).parent
CONNECT_SERVER = "org.apache.spark.sql.connect.service.SparkConnectServer"
_STOP_WAIT_SECONDS = 10.0
_LOG_TAIL_LINES = 12


class ApplicationFailed(RuntimeError):
    """The application did not start; the message says why (its log's last lines)."""


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _answers(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
        return True
    except OSError:
        return False


class SparkApplication:
    def __init__(
        self,
        name: str,
        directory: Path,
        *,
        master: str,
        cores: int,
        memory: int,
        conf: Callable[[], dict[str, str]],
        niceness: int = 10,
    ) -> None:
        self.name = name
        self.directory = directory
        self._master = master
        self._cores = max(cores, 1)
        self._memory = memory
        self._conf = conf
        self._niceness = niceness
        self._lock = threading.Lock()
        self._process: subprocess.Popen[bytes] | None = None
        self._url: str | None = None
        self._ui_port: int | None = None
        self._stopping = threading.Event()  # set by `abort`: a launch waiting for its port gives up

    @property
    def log_file(self) -> Path:
        return self.directory / "connect.log"

    @property
    def pid(self) -> int | None:
        process = self._process
        return process.pid if process is not None and process.poll() is None else None

    @property
    def app_name(self) -> str:
        return f"sparkwire {self.name}"

    @property
    def status_url(self) -> str | None:
        port = self._ui_port
        return None if port is None or self.pid is None or self._url is None else f"http://127.0.0.1:{port}"

    def command(self, port: int, ui_port: int) -> list[str]:
        """spark-submit's arguments (calls `conf()`)."""
        local = self._master.startswith("local")
        mib = f"{max(self._memory // (1024 * 1024), 512)}m"
        conf = {
            **self._conf(),
            "spark.app.name": self.app_name,
            "spark.connect.grpc.binding.address": "127.0.0.1",
            "spark.connect.grpc.binding.port": str(port),
            # its jobs' status, for introspection (the REST API of the UI: a side route, never a Spark job)
            "spark.ui.enabled": "true",
            "spark.ui.port": str(ui_port),
            "spark.ui.killEnabled": "false",
            "spark.ui.retainedTasks": "1000",
        }
        if not local:
            conf["spark.cores.max"] = str(self._cores)
            conf["spark.executor.memory"] = mib
        master = f"local[{self._cores}]" if local else self._master
        argv = [str(SPARK_HOME / "bin" / "spark-submit"), "--master", master, "--driver-memory", mib if local else "1g"]
        for key, value in sorted(conf.items()):
            argv += ["--conf", f"{key}={value}"]
        return [*argv, "--class", CONNECT_SERVER, "spark-internal"]

    def start(self, timeout: float = 120.0) -> str:
        with self._lock:
            if self._process is not None and self._process.poll() is None and self._url is not None:
                return self._url
            last: ApplicationFailed | None = None
            for _ in range(2):
                try:
                    return self._launch(timeout)
                except ApplicationFailed as failed:
                    last = failed
                    if "Address already in use" not in str(failed):
                        break
            assert last is not None
            raise last

    def _launch(self, timeout: float) -> str:
        if self._stopping.is_set():
            raise ApplicationFailed("it was stopped")
        self.directory.mkdir(parents=True, exist_ok=True)
        self._reap_orphan()
        port, ui_port = _free_port(), _free_port()
        token = secrets.token_urlsafe(32)
        env = {
            **os.environ,
            "SPARK_CONNECT_AUTHENTICATE_TOKEN": token,
            "SPARK_HOME": str(SPARK_HOME),
            "SPARK_LOCAL_IP": "127.0.0.1",
            "PYSPARK_PYTHON": os.environ.get("PYSPARK_PYTHON", sys.executable),  # sparkwire's UDFs (pg_functions)
        }
        with self.log_file.open("ab") as out:
            process = subprocess.Popen(
                self.command(port, ui_port), stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env,
                start_new_session=True,
            )  # fmt: skip
        self._process = process
        (self.directory / "pid").write_text(str(process.pid))
        self._lower_group(process.pid)
        deadline = time.monotonic() + timeout
        while not _answers(port):
            if process.poll() is not None:
                raise ApplicationFailed(f"{self.exit_reason()}: {self._log_tail()}")
            if time.monotonic() > deadline or self._stopping.is_set():
                self._kill(process)
                if self._stopping.is_set():
                    raise ApplicationFailed("it was stopped while starting")
                raise ApplicationFailed(f"its Spark Connect server did not answer within {timeout:.0f} s")
            time.sleep(0.2)
        # `localhost`: PySpark sends a token over a plain channel only to that name (gRPC local credentials)
        self._url, self._ui_port = f"sc://localhost:{port}/;token={token}", ui_port
        log.info("Spark application %s (pid %d) serves port %d", self.name, process.pid, port)
        return self._url

    def _reap_orphan(self) -> None:
        """An application of a server that died without stopping it (SIGKILL) still runs in its own session: stop it
        before starting this one (its pid file, and its command line naming this directory, identify it)."""
        try:
            pid = int((self.directory / "pid").read_text())
            command = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
        except (OSError, ValueError):
            return
        if CONNECT_SERVER in command and str(self.directory) in command and pid != os.getpid():
            log.warning("stopping the Spark application %s left running by an earlier server (pid %d)", self.name, pid)
            with contextlib.suppress(OSError):
                os.killpg(pid, signal.SIGKILL)

    def _lower_group(self, pid: int) -> None:
        """The application's autogroup (its own session) at `niceness` among the machine's groups; best effort
        (kernels without autogroups have no such file)."""
        with contextlib.suppress(OSError):
            Path(f"/proc/{pid}/autogroup").write_text(str(self._niceness))

    def _log_tail(self) -> str:
        try:
            lines = self.log_file.read_text(errors="replace").splitlines()
        except OSError:
            return "(no log)"
        useful = [line for line in lines if "WARN" not in line and line.strip()]
        return " | ".join(useful[-_LOG_TAIL_LINES:])[-2000:]

    def exit_reason(self) -> str | None:
        process = self._process
        if process is None:
            return "it was not started"
        status = process.poll()
        return None if status is None else exit_reason(status, "its Spark JVM")

    def abort(self) -> None:
        """For good (its replica is gone): a launch in progress gives up now, and no other starts."""
        self._stopping.set()

    def stop(self) -> None:
        with self._lock:
            process, self._process, self._url = self._process, None, None
        if process is not None:
            self._kill(process)

    @staticmethod
    def _kill(process: subprocess.Popen[bytes]) -> None:
        if process.poll() is not None:
            return
        with contextlib.suppress(OSError):
            os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(_STOP_WAIT_SECONDS)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(OSError):
                os.killpg(process.pid, signal.SIGKILL)
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(_STOP_WAIT_SECONDS)
