"""How `make test` shares the suite between its pytest-xdist workers (`--dist loadfile`).

Each test file is one group (it runs whole on one worker, so its module and package
fixtures are made once there), except the files that share a costly package fixture:
test_axe.py and test_scroll.py look at the same gallery of every view (tests/e2e/gallery.py),
so they run on one worker, which builds it once instead of twice. (xdist's own
`--dist loadgroup` cannot say so: with pytest 9 the `@group` it adds to a test's id is
lost, and every test becomes a group of its own.)

The groups go out longest first, browser tests before the rest (xdist's own order is by
number of tests, which sent the one-test files that take half a minute or more, the fuzz
test, the twelve-phone Bunco night, to the end, where one worker could run them while
the other sat idle). The weights are seconds from a run of the whole suite
(`pytest -n 2 --junitxml`, /work/notes/tests-speed.md); a file not listed counts as
quick. Re-measure when a file grows by more than a few seconds.
"""

from __future__ import annotations

import pytest
from xdist.scheduler import LoadFileScheduling

SHARED_GROUPS = {
    "tests/e2e/test_axe.py": "e2e-gallery",
    "tests/e2e/test_scroll.py": "e2e-gallery",
}

SECONDS = {
    "e2e-gallery": 257,
    "tests/cluster/test_spawned_rooms.py": 89,
    "tests/api/test_fuzz.py": 79,
    "tests/e2e/test_bank_night.py": 74,
    "tests/cluster/test_every_answer.py": 67,
    "tests/cluster/test_failover.py": 66,
    "tests/api/test_hostile.py": 62,
    "tests/api/test_ws_bad_input.py": 53,
    "tests/games/group/test_group_kill.py": 51,
    "tests/e2e/test_handover_pages.py": 45,
    "tests/e2e/test_trust_pages.py": 39,
    "tests/e2e/test_tournament_pages.py": 38,
    "tests/api/test_restart.py": 37,
    "tests/cluster/test_handover_cluster.py": 35,
    "tests/e2e/test_stale.py": 35,
    "tests/e2e/test_reconnect.py": 31,
    "tests/e2e/test_bunco_night.py": 31,
    "tests/e2e/test_game.py": 28,
    "tests/cluster/test_sentinel_failover.py": 28,
    "tests/cluster/test_shared_shares.py": 26,
    "tests/api/test_slow_socket.py": 26,
    "tests/games/tournament/test_bad_input.py": 25,
    "tests/e2e/test_modes.py": 25,
    "tests/e2e/test_lobby.py": 24,
    "tests/cluster/test_order.py": 23,
    "tests/e2e/test_true_lines.py": 23,
    "tests/e2e/test_bunco_host.py": 21,
    "tests/api/test_fair_dice.py": 20,
    "tests/e2e/test_phone.py": 20,
    "tests/e2e/test_taps.py": 19,
    "tests/cluster/test_bunco_two_processes.py": 18,
    "tests/cluster/test_tournament_failover.py": 18,
    "tests/e2e/test_wire.py": 16,
    "tests/games/bank/test_kept_views.py": 14,
    "tests/cluster/test_shared_rooms.py": 14,
    "tests/api/test_sessions.py": 13,
    "tests/api/test_handover_guards.py": 13,
    "tests/e2e/test_seat_links.py": 13,
    "tests/e2e/test_group_pages.py": 11,
    "tests/bus/test_contract.py": 11,
    "tests/api/test_http.py": 11,
    "tests/e2e/test_patches.py": 11,
    "tests/api/test_metrics.py": 10,
}
QUICK = 1  # seconds: a file not listed


def group_of(item: pytest.Item) -> str:
    return group_of_path(item.nodeid.split("::", 1)[0])


def group_of_path(path: str) -> str:
    return SHARED_GROUPS.get(path, path)


def is_e2e(group: str) -> bool:
    return group.startswith(("tests/e2e/", "e2e-"))


def order(items: list[pytest.Item]) -> None:
    """The browser tests first, then the rest; in each part the groups longest first,
    each group's tests in their own order, one after another (a package fixture lives
    across them). Every worker collects the same order.

    A worker then runs its browser tests one after another with one Chromium: tests/e2e's
    `browser` is package-scoped, so each switch between e2e and other files would close it
    and launch a new one."""
    first: dict[str, int] = {}
    for index, item in enumerate(items):
        first.setdefault(group_of(item), index)

    def key(item: pytest.Item) -> tuple[bool, int, int]:
        group = group_of(item)
        return (not is_e2e(group), -SECONDS.get(group, QUICK), first[group])

    items.sort(key=key)  # stable: a group keeps its tests' order


class GroupedFileScheduling(LoadFileScheduling):
    """`--dist loadfile` with the shared groups above, handed out in the collection's
    order (longest first, `order`), not xdist's (the most tests first)."""

    def __init__(self, config: pytest.Config, log: object = None) -> None:
        super().__init__(config, log)  # type: ignore[arg-type]
        config.option.loadscopereorder = False

    def _split_scope(self, nodeid: str) -> str:
        return group_of_path(nodeid.split("::", 1)[0])
