"""Client tools that live outside our own venv: `scripts/test` builds each one's venv from `tests/tools/NAME.txt`
(pinned, so its dependencies never mix with ours) and installs `tests/client/node`'s npm packages. A missing tool
is a failure, never a skip: CI must run every client it claims to test."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def tool_bin(venv: str, executable: str) -> Path:
    """The path of `executable` in the tool venv `venv` (e.g. `tool_bin("dbt", "dbt")`)."""
    path = ROOT / ".venv-tools" / venv / "bin" / executable
    if not path.exists():
        raise AssertionError(f"{path} is missing: run ./scripts/test, which builds it from tests/tools/{venv}.txt")
    return path


def node_dir(name: str) -> Path:
    """A folder of Node.js test programs whose node_modules `scripts/test` installed with `npm ci`."""
    path = ROOT / "tests" / "client" / name
    if not (path / "node_modules").is_dir():
        raise AssertionError(f"{path}/node_modules is missing: run ./scripts/test, which runs npm ci there")
    return path
