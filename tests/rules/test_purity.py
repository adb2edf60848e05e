"""The rules are pure: app/rules/*.py import only the standard library (or app.rules),
and nothing that reaches a clock, chance, the event loop or the outside world."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

RULES_DIR = Path(__file__).resolve().parents[2] / "app" / "rules"
RULE_FILES = sorted(RULES_DIR.glob("*.py"))

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


def imported_modules(tree: ast.AST) -> list[str]:
    """Every module an import statement names (relative imports resolved under app.rules)."""
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                # a module directly in app/rules: "." is app.rules, ".." is app, ...
                package = ["app", "rules"][: max(0, 3 - node.level)]
                names.append(".".join([*package, *([node.module] if node.module else [])]))
            else:
                names.append(node.module or "")
    return names


def violations(source: str) -> list[str]:
    tree = ast.parse(source)
    found: list[str] = []
    for name in imported_modules(tree):
        top = name.split(".")[0]
        if name == "app.rules" or name.startswith("app.rules."):
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


def test_the_rules_package_has_modules_to_check() -> None:
    names = {path.name for path in RULE_FILES}
    assert {"base.py", "bank.py"} <= names


@pytest.mark.parametrize("path", RULE_FILES, ids=[path.name for path in RULE_FILES])
def test_a_rules_module_imports_only_pure_standard_library_modules(path: Path) -> None:
    assert violations(path.read_text(encoding="utf-8")) == []


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
        "from app.rules.base import Actor",
        "from app.rules import bank",
        "from .base import RuleError",
        "from . import base",
    ],
)
def test_the_checker_accepts_pure_standard_library_imports(source: str) -> None:
    assert violations(source) == []
