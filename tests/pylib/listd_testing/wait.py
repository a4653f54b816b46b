"""Polling instead of sleeping, and time limits that an overloaded machine cannot break.

`wait_until(predicate, timeout)` polls a real condition (INFO blocked_clients, CLIENT LIST, a
file's contents) and returns its last value: the caller asserts on it, so a condition that never
became true fails with the caller's message instead of being slept past.

LISTD_TEST_TIME_FACTOR (default 1) multiplies every deadline and upper bound made with
`scaled()`: set it above 1 for a sanitizer build or a busy machine. Lower bounds (a timeout that
must not fire early) are never scaled.
"""

import os
import time


def time_factor():
    value = os.environ.get("LISTD_TEST_TIME_FACTOR", "1")
    try:
        factor = float(value)
    except ValueError:
        raise RuntimeError(f"LISTD_TEST_TIME_FACTOR={value!r} is not a number") from None
    if factor < 1:
        raise RuntimeError(f"LISTD_TEST_TIME_FACTOR={value!r} must be at least 1")
    return factor


def scaled(seconds):
    """`seconds` times LISTD_TEST_TIME_FACTOR: for deadlines and upper bounds only."""
    return seconds * time_factor()


def wait_until(predicate, timeout=10.0, interval=0.01):
    """Calls predicate() until it returns something truthy or scaled(timeout) seconds pass.

    Returns the last value predicate() returned (truthy on success, falsy after the deadline),
    so the caller writes `assert wait_until(...), "what never happened"`.
    """
    end = time.monotonic() + scaled(timeout)
    while True:
        value = predicate()
        if value or time.monotonic() >= end:
            return value
        time.sleep(interval)  # poll interval, not synchronisation: the predicate decides
