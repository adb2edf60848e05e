"""Chance lives outside the rules: fair dice from the OS's CSPRNG."""

from __future__ import annotations

import secrets

from app.rules.base import Dice


def fair_dice() -> Dice:
    return (secrets.randbelow(6) + 1, secrets.randbelow(6) + 1)
