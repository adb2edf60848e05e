"""What the routes need, built by the app's lifespan (no module-level state)."""

from __future__ import annotations

from dataclasses import dataclass

from app.api.hub import Hub
from app.api.limits import AddressLimits
from app.bus.base import Bus
from app.config import Settings
from app.games.registry import GameRegistry
from app.rooms.registry import RoomRegistry


@dataclass(frozen=True, slots=True)
class Services:
    settings: Settings
    games: GameRegistry
    bus: Bus
    registry: RoomRegistry
    hub: Hub
    limits: AddressLimits
