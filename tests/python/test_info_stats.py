"""INFO stats' fork, I/O-event, expiry-cycle and defrag fields, and INFO persistence's rewrite
failure run and the children's copy-on-write (issue 18): each is there in Redis 7.0.15's order
and moves when what it counts happens; CONFIG RESETSTAT zeroes the counters Redis'
resetServerStats zeroes. Runs against listd and, unchanged, redis-server.

Every wait is a bounded poll of INFO (wait_until); nothing sleeps on an assumed timing.
"""

import os
import signal

import pytest
from listd_testing import scaled, wait_until

# Redis 7.0.15's # Stats, in its order: the issue-18 fields with the neighbours they sit between.
ORDER = ["expired_keys", "expired_stale_perc", "expired_time_cap_reached_count",
         "expire_cycle_cpu_milliseconds", "evicted_keys", "pubsubshard_channels",
         "latest_fork_usec", "total_forks", "migrate_cached_sockets", "active_defrag_key_misses",
         "total_active_defrag_time", "current_active_defrag_time", "tracking_total_keys",
         "dump_payload_sanitizations", "total_reads_processed", "total_writes_processed",
         "io_threaded_reads_processed", "io_threaded_writes_processed", "reply_buffer_shrinks",
         "reply_buffer_expands"]

# Keys that all reach their deadline at the same moment: far more than one expiry step reclaims
# (listd: 1000 keys a step; Redis: 25 ms of a 100 ms tick), so the cycle hits its cap.
EXPIRING_KEYS = 200_000
SET_ALL = "for i = 1, tonumber(ARGV[1]) do redis.call('SET', 'exp:' .. i, 'v', 'PXAT', ARGV[2]) end"


def stats(r):
    return r.info("stats")


def server_ms(r):
    secs, usecs = r.time()
    return secs * 1000 + usecs // 1000


def test_the_fields_are_there_in_redis_order(r):
    names = list(stats(r))  # redis-py keeps INFO's order
    assert [n for n in names if n in ORDER] == ORDER


def test_forks_are_counted_and_timed(r):
    before = stats(r)["total_forks"]
    r.bgsave()
    assert wait_until(lambda: r.info("persistence")["rdb_bgsave_in_progress"] == 0), \
        "BGSAVE never ended"
    s = stats(r)
    assert s["total_forks"] == before + 1
    assert s["latest_fork_usec"] > 0
    # The child's own copy-on-write (its stack and buffers at least), as it reported it.
    assert r.info("persistence")["rdb_last_cow_size"] > 0
    r.bgrewriteaof()  # a second kind of child, the same count
    assert wait_until(lambda: r.info("persistence")["aof_rewrite_in_progress"] == 0), \
        "BGREWRITEAOF never ended"
    assert stats(r)["total_forks"] == before + 2
    assert r.info("persistence")["aof_last_cow_size"] > 0
    r.config_resetstat()
    s = stats(r)
    assert (s["total_forks"], s["latest_fork_usec"]) == (0, 0)


def test_reads_and_writes_are_counted_per_event(r):
    before = stats(r)
    for i in range(20):  # one request, one reply, each waited for: one read and one write each
        assert r.ping()
    after = stats(r)
    assert after["total_reads_processed"] >= before["total_reads_processed"] + 20
    assert after["total_writes_processed"] >= before["total_writes_processed"] + 20
    r.config_resetstat()
    # Only this client's events since: RESETSTAT's reply and the INFO request (and its reply,
    # depending on when the server counts it).
    s = stats(r)
    assert 1 <= s["total_reads_processed"] <= 3
    assert s["total_writes_processed"] <= 3


def test_the_active_expiry_cycle_reports_its_work(r):
    r.config_resetstat()
    deadline = server_ms(r) + int(scaled(3) * 1000)  # after the script below, well before
    r.eval(SET_ALL, 0, EXPIRING_KEYS, deadline)
    assert server_ms(r) < deadline, "setting the keys took longer than their lifetime"
    assert stats(r)["expired_keys"] == 0
    # Nothing reads the keys: only the active cycle can reclaim them.
    assert wait_until(lambda: stats(r)["expired_keys"] == EXPIRING_KEYS, timeout=60), \
        f"the active cycle reclaimed only {stats(r)['expired_keys']} keys"
    s = stats(r)
    assert s["expired_stale_perc"] > 0  # it sampled keys already past their deadline
    assert s["expired_time_cap_reached_count"] > 0  # more was due than one cycle reclaims
    assert s["expire_cycle_cpu_milliseconds"] > 0
    r.config_resetstat()
    s = stats(r)
    assert s["expired_stale_perc"] == 0
    assert s["expired_time_cap_reached_count"] == 0
    assert s["expire_cycle_cpu_milliseconds"] == 0


def test_no_active_defrag_time_while_activedefrag_is_off(r):
    assert r.config_get("activedefrag") == {"activedefrag": "no"}
    s = stats(r)
    assert (s["total_active_defrag_time"], s["current_active_defrag_time"]) == (0, 0)


def children_of(pid):
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue  # exited meanwhile
        if int(fields[1]) == pid:  # the field after the state is the parent's pid
            found.append(int(entry))
    return found


def rewrite_killed(r, pid):
    """Starts BGREWRITEAOF and SIGKILLs its child; True when the rewrite failed because of it
    (False: the child was done before the kill landed, so the rewrite succeeded)."""
    r.bgrewriteaof()
    for child in children_of(pid):
        try:
            os.kill(child, signal.SIGKILL)
        except ProcessLookupError:
            pass
    assert wait_until(lambda: r.info("persistence")["aof_rewrite_in_progress"] == 0), \
        "BGREWRITEAOF never ended"
    return r.info("persistence")["aof_last_bgrewrite_status"] == "err"


def kill_rewrites(r, pid, wanted):
    """Kills rewrite children until `wanted` rewrites in a row failed; checks the count as it
    goes (a child that finished first is a success, which ends the run)."""
    failures = 0
    for _ in range(20):
        if rewrite_killed(r, pid):
            failures += 1
        else:
            failures = 0
        assert r.info("persistence")["aof_rewrites_consecutive_failures"] == failures
        if failures == wanted:
            return
    pytest.fail(f"no {wanted} rewrite children in a row could be killed before they finished")


def finished_rewrite(r):
    r.bgrewriteaof()
    assert wait_until(lambda: r.info("persistence")["aof_rewrite_in_progress"] == 0), \
        "BGREWRITEAOF never ended"
    return r.info("persistence")


def test_a_run_of_failed_rewrites_is_counted_until_one_succeeds(r):
    pid = r.info("server")["process_id"]
    # Enough data that the child lives a while after the reply to BGREWRITEAOF.
    r.eval("for i = 1, 300000 do redis.call('SET', 'big:' .. i, i) end", 0)
    kill_rewrites(r, pid, 2)
    p = finished_rewrite(r)
    assert (p["aof_last_bgrewrite_status"], p["aof_rewrites_consecutive_failures"]) == ("ok", 0)
    kill_rewrites(r, pid, 1)
    r.config_resetstat()
    assert r.info("persistence")["aof_rewrites_consecutive_failures"] == 0
