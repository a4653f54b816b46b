"""pytest hooks shared by the conftest files: a skip fails the run unless it is allowed.

ctest shows a pytest run as Passed when some of its tests were skipped, so a skip would hide
a gap. No test skips today; a skip is allowed only if its reason contains one of the
`|`-separated strings in LISTD_ALLOWED_SKIPS (empty by default, and in CI).

A conftest uses it with:  from listd_testing.pytest_hooks import pytest_sessionfinish
"""

import os


def allowed_skip_reasons():
    return [s for s in os.environ.get("LISTD_ALLOWED_SKIPS", "").split("|") if s]


def _reason(report):
    # a skip's longrepr is (file, line, "Skipped: reason")
    longrepr = report.longrepr
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        return str(longrepr[2])
    return str(longrepr)


def pytest_sessionfinish(session, exitstatus):
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if reporter is None:
        return
    allowed = allowed_skip_reasons()
    unexpected = []
    for report in reporter.stats.get("skipped", []):
        reason = _reason(report)
        if not any(a in reason for a in allowed):
            unexpected.append(f"{report.nodeid}: {reason}")
    if unexpected:
        reporter.write_line("")
        reporter.write_line(f"FAILED: {len(unexpected)} unexpected skip(s) "
                            "(allow a reason with LISTD_ALLOWED_SKIPS='reason|...'):", red=True)
        for line in unexpected:
            reporter.write_line(f"  {line}", red=True)
        if session.exitstatus == 0:
            session.exitstatus = 1
