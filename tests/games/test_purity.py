"""The rules are pure: the seam (app/games/seam.py, common.py, names.py, patch.py,
rendered.py) and every game
package's modules but its bundle (`__init__.py`) and its HTTP (`routes.py`) import only
the standard library, the seam and their own package, and nothing that reaches a clock,
chance, the event loop or the outside world. No game package imports another."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

GAMES_DIR = Path(__file__).resolve().parents[2] / "app" / "games"
SEAM = (
    "app.games.seam",
    "app.games.common",
    "app.games.names",
    "app.games.patch",
    "app.games.rendered",
)
NOT_RULES = {"__init__.py", "routes.py"}
RULE_FILES = sorted(
    [*(GAMES_DIR / f"{name.rsplit('.', 1)[1]}.py" for name in SEAM)]
    + [p for p in GAMES_DIR.glob("*/*.py") if p.name not in NOT_RULES]
)

FORBIDDEN_MODULES = frozenset(
    {
        # chance
        "random",
        "secrets",
        "uuid",
        # clocks
        "time",
        "datetime",
        "zoneinfo",
        "sched",
        # concurrency and the event loop
        "asyncio",
        "threading",
        "multiprocessing",
        "concurrent",
        "selectors",
        "select",
        "signal",
        "queue",
        "_thread",
        # I/O: files, processes, the network, persistence, logging
        "io",
        "os",
        "sys",
        "pathlib",
        "shutil",
        "tempfile",
        "glob",
        "fileinput",
        "mmap",
        "subprocess",
        "socket",
        "ssl",
        "http",
        "urllib",
        "ftplib",
        "smtplib",
        "email",
        "socketserver",
        "xmlrpc",
        "webbrowser",
        "sqlite3",
        "dbm",
        "shelve",
        "pickle",
        "logging",
        "importlib",
        "ctypes",
        "builtins",
    }
)
FORBIDDEN_CALLS = frozenset({"open", "print", "input", "__import__", "eval", "exec", "breakpoint"})


def imported_modules(tree: ast.AST, package: str) -> list[str]:
    """Every module an import statement names (relative ones resolved under `package`)."""
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                # "." is the package itself, ".." its parent, ...
                parts = package.split(".")
                base = parts[: max(0, len(parts) - node.level + 1)]
                names.append(".".join([*base, *([node.module] if node.module else [])]))
            else:
                names.append(node.module or "")
    return names


def allowed(name: str, package: str) -> bool:
    """The seam, or the module's own game package (never another game's)."""
    if name in SEAM or any(name.startswith(seam + ".") for seam in SEAM):
        return True
    return package != "app.games" and (name == package or name.startswith(package + "."))


def violations(source: str, package: str = "app.games.bank") -> list[str]:
    tree = ast.parse(source)
    found: list[str] = []
    for name in imported_modules(tree, package):
        top = name.split(".")[0]
        if allowed(name, package):
            continue
        if top not in sys.stdlib_module_names:
            found.append(f"imports {name!r}, which is not in the standard library")
        elif top in FORBIDDEN_MODULES:
            found.append(f"imports {name!r} (chance, clock, event loop or I/O)")
    for node in ast.walk(tree):
        called = isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
        if called and node.func.id in FORBIDDEN_CALLS:  # type: ignore[attr-defined]
            found.append(f"calls {node.func.id}()")  # type: ignore[attr-defined]
    return found


def package_of(path: Path) -> str:
    return ".".join(path.relative_to(GAMES_DIR.parents[1]).parent.parts)


def test_every_game_package_has_modules_to_check() -> None:
    names = {str(path.relative_to(GAMES_DIR)) for path in RULE_FILES}
    assert {"seam.py", "bank/rules.py", "bunco/view.py", "tournament/state.py"} <= names


@pytest.mark.parametrize(
    "path", RULE_FILES, ids=[str(p.relative_to(GAMES_DIR)) for p in RULE_FILES]
)
def test_a_rules_module_imports_only_pure_standard_library_modules(path: Path) -> None:
    assert violations(path.read_text(encoding="utf-8"), package_of(path)) == []


def test_no_game_package_imports_another() -> None:
    games = [p for p in GAMES_DIR.iterdir() if (p / "__init__.py").exists()]
    for game in games:
        for path in game.glob("*.py"):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for name in imported_modules(tree, package_of(path)):
                others = [g.name for g in games if g != game]
                assert not any(name.startswith(f"app.games.{o}") for o in others), (path, name)


def test_the_room_the_bus_and_the_api_import_no_game_package() -> None:
    games = [p.name for p in GAMES_DIR.iterdir() if (p / "__init__.py").exists()]
    for folder in ("rooms", "bus", "api"):
        for path in (GAMES_DIR.parent / folder).rglob("*.py"):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for name in imported_modules(tree, package_of(path)):
                assert not any(name.startswith(f"app.games.{g}") for g in games), (path, name)


@pytest.mark.parametrize(
    "source",
    [
        "import random",
        "from random import randint",
        "import time",
        "from time import monotonic",
        "import asyncio",
        "import secrets",
        "import os.path",
        "from pathlib import Path",
        "import io",
        "import socket",
        "import orjson",
        "import pydantic",
        "from app.rooms.room import Room",
        "from app.bus import base",
        "from app.games.bunco.rules import BuncoRules",
        "from app.games import registry",
        "import app",
        "def f():\n    import random\n",
        "try:\n    import orjson\nexcept ImportError:\n    pass\n",
        "with open('x') as f:\n    pass\n",
        "print('hi')",
        "__import__('random')",
        "from .. import rooms",
        "from ..rooms.room import Room",
        "from ... import anything",
    ],
)
def test_the_checker_catches_an_impure_module(source: str) -> None:
    assert violations(source)


@pytest.mark.parametrize(
    "source",
    [
        "from __future__ import annotations",
        "import unicodedata",
        "from collections.abc import Mapping",
        "from dataclasses import dataclass, replace",
        "from typing import Any, Literal",
        "import hashlib\nimport json",
        "from app.games.seam import Actor",
        "from app.games.bank import state",
        "from app.games.bank.view import view",
        "from .rules import BankRules",
        "from . import state",
        "from ..seam import RuleError",
    ],
)
def test_the_checker_accepts_pure_standard_library_imports(source: str) -> None:
    assert violations(source) == []
