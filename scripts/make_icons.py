"""Draws the app icons (static/icons/): the favicon's die, on the page's dark background,
as an SVG and as 192 and 512 px PNGs (the web app manifest's). Standard library only."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

ICONS = Path(__file__).resolve().parents[1] / "static" / "icons"
BG, GOLD, INK = (0x0F, 0x17, 0x2A), (0xFA, 0xCC, 0x15), (0x0F, 0x17, 0x2A)
PIPS = [(0.34, 0.34), (0.5, 0.5), (0.66, 0.66)]  # the die's three pips, as fractions of a side

SVG = (
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 512 512">'
    '<rect width="512" height="512" fill="#0f172a"/>'
    '<rect x="96" y="96" width="320" height="320" rx="64" fill="#facc15"/>'
    + "".join(
        f'<circle cx="{x * 512:.0f}" cy="{y * 512:.0f}" r="34" fill="#0f172a"/>' for x, y in PIPS
    )
    + "</svg>\n"
)


def pixel(x: float, y: float) -> tuple[int, int, int]:
    """The colour at (x, y), both 0..1: a rounded gold square with three pips, on dark."""
    for px, py in PIPS:
        if (x - px) ** 2 + (y - py) ** 2 <= (34 / 512) ** 2:
            return INK
    lo, hi, r = 96 / 512, 416 / 512, 64 / 512
    if not (lo <= x <= hi and lo <= y <= hi):
        return BG
    cx, cy = min(max(x, lo + r), hi - r), min(max(y, lo + r), hi - r)
    return GOLD if (x - cx) ** 2 + (y - cy) ** 2 <= r * r else BG


def png(size: int) -> bytes:
    rows = b"".join(
        b"\0" + bytes(c for i in range(size) for c in pixel((i + 0.5) / size, (j + 0.5) / size))
        for j in range(size)
    )

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", size, size, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows, 9))
        + chunk(b"IEND", b"")
    )


def main() -> None:
    ICONS.mkdir(parents=True, exist_ok=True)
    (ICONS / "icon.svg").write_text(SVG)
    for size in (192, 512):
        (ICONS / f"icon-{size}.png").write_bytes(png(size))


if __name__ == "__main__":
    main()
