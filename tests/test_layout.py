"""The house rules of the source tree (issue 11, docs/architecture.md), checked on every run: no module over
600 lines, no folder with more than 20 modules directly in it, at most six modules at the planner's top level, and
every planner stage folder and session module named in the import contracts that keeps imports flowing one way
(pyproject.toml, run by scripts/test as `lint-imports`). A new stage folder or layer must be added to the contract,
not left out of it."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "sparkwire"
MAX_LINES = 600
MAX_MODULES_PER_FOLDER = 20
MAX_PLANNER_TOP_LEVEL = 6


def _modules(folder: Path) -> list[Path]:
    return sorted(p for p in folder.glob("*.py") if p.name != "__init__.py")


def _folders() -> list[Path]:
    return sorted(p.parent for p in PACKAGE.rglob("__init__.py"))


def _contract(contract_id: str) -> dict[str, object]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    contracts: list[dict[str, object]] = config["tool"]["importlinter"]["contracts"]
    return next(c for c in contracts if c["id"] == contract_id)


def test_no_module_over_600_lines() -> None:
    too_long = {
        str(p.relative_to(ROOT)): n
        for p in PACKAGE.rglob("*.py")
        if (n := len(p.read_text().splitlines())) > MAX_LINES
    }
    assert too_long == {}


def test_no_folder_with_more_than_20_modules() -> None:
    crowded = {
        str(folder.relative_to(ROOT)): n
        for folder in [*_folders(), ROOT / "tests", *(p.parent for p in (ROOT / "tests").rglob("__init__.py"))]
        if (n := len(_modules(folder))) > MAX_MODULES_PER_FOLDER
    }
    assert crowded == {}


def test_planner_top_level_is_small() -> None:
    top = [p.name for p in _modules(PACKAGE / "planner")]
    assert len(top) <= MAX_PLANNER_TOP_LEVEL, top


def test_every_package_and_planner_stage_is_in_the_layer_contracts() -> None:
    layers = _contract("layers")["layers"]
    assert isinstance(layers, list)
    named = {name.strip() for layer in layers for name in str(layer).split("|")}
    top_level = {f"sparkwire.{p.stem}" for p in _modules(PACKAGE)} | {
        f"sparkwire.{folder.name}" for folder in _folders() if folder.parent == PACKAGE
    }
    assert top_level == named

    stages = _contract("planner-stages")["layers"]
    assert isinstance(stages, list)
    folders = {folder.name for folder in _folders() if folder.parent == PACKAGE / "planner"}
    assert folders == set(stages)

    session = _contract("session-flow")["layers"]
    assert isinstance(session, list)
    modules = {name.strip() for layer in session for name in str(layer).split("|")}
    assert modules == {p.stem for p in _modules(PACKAGE / "session")}
