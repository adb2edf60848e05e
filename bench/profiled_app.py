"""`python -m app` with cProfile on between SIGUSR1 and SIGUSR2 (bench/calls.py); the
stats go to the file named by BANKIT_PROFILE_TO."""

from __future__ import annotations

import cProfile
import os
import signal
from typing import Any

from app.__main__ import main

PROFILE = cProfile.Profile()


def _start(*_: Any) -> None:
    PROFILE.enable()


def _stop(*_: Any) -> None:
    PROFILE.disable()
    PROFILE.dump_stats(os.environ["BANKIT_PROFILE_TO"])


if __name__ == "__main__":
    signal.signal(signal.SIGUSR1, _start)
    signal.signal(signal.SIGUSR2, _stop)
    main()
