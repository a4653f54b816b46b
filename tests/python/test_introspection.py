"""scan_iter, client_list(), info() and the keyspace helpers redis-py users call."""

import threading
import time

import redis

from listd_testing import wait_until


def test_scan_iter(r):
    for i in range(300):
        r.rpush(f"task:{i}:log", "x")
    r.rpush("other", "y")
    found = set(r.scan_iter(match="task:*:log", count=50))
    assert found == {f"task:{i}:log" for i in range(300)}
    assert set(r.scan_iter()) == found | {"other"}
    assert set(r.scan_iter(_type="list", match="oth*")) == {"other"}


def test_keyspace_helpers(r):
    r.rpush("l3", "a")
    assert r.exists("l3") == 1
    assert r.type("l3") == "list"
    assert r.type("nokey") == "none"
    assert r.expire("l3", 100) is True
    assert 0 < r.ttl("l3") <= 100
    assert r.persist("l3") is True
    assert r.ttl("l3") == -1
    assert r.keys("l*") == ["l3"]
    assert r.dbsize() == 1
    assert r.delete("l3", "nokey") == 1
    assert r.ttl("l3") == -2


def test_client_list_parsing(r, listd):
    r.client_setname("lister")
    blocked = redis.Redis(port=listd.port, decode_responses=True, client_name="bw-1")
    got = []
    t = threading.Thread(target=lambda: got.append(blocked.brpop("cl:q", timeout=30)))
    t.start()
    assert wait_until(lambda: r.info("clients")["blocked_clients"] == 1), "BRPOP never blocked"
    clients = r.client_list()
    assert all({"id", "addr", "name", "age", "idle", "db", "cmd", "flags"} <= set(c)
               for c in clients)
    me = [c for c in clients if c["name"] == "lister"]
    assert len(me) == 1 and me[0]["cmd"] == "client|list"
    waiter = [c for c in clients if c["name"] == "bw-1"]
    assert len(waiter) == 1
    assert waiter[0]["cmd"] == "brpop"  # seed document 000: cmd=brpop for a blocked worker
    assert "b" in waiter[0]["flags"]
    assert r.lpush("cl:q", "x") == 1
    t.join(10)
    assert got == [("cl:q", "x")]
    blocked.connection_pool.disconnect()
    by_id = r.client_list(client_id=[me[0]["id"]])
    assert [c["name"] for c in by_id] == ["lister"]
    assert r.client_list(_type="normal")


def test_clients_in_timeout_table_counts_blocks_with_a_deadline(r, listd):
    """Redis' clients_timeout_table holds the clients blocked with a timeout; BRPOP 0 is not in
    it, though it counts in blocked_clients."""
    forever = redis.Redis(port=listd.port, decode_responses=True)
    timed = redis.Redis(port=listd.port, decode_responses=True)
    got = []
    threads = [threading.Thread(target=lambda: got.append(forever.brpop("tt:a", timeout=0))),
               threading.Thread(target=lambda: got.append(timed.brpop("tt:b", timeout=30)))]
    for t in threads:
        t.start()
    assert wait_until(lambda: r.info("clients")["blocked_clients"] == 2), "BRPOPs never blocked"
    assert r.info("clients")["clients_in_timeout_table"] == 1
    r.lpush("tt:b", "x")
    assert wait_until(lambda: r.info("clients")["blocked_clients"] == 1)
    assert r.info("clients")["clients_in_timeout_table"] == 0
    r.lpush("tt:a", "y")
    for t in threads:
        t.join(10)
    assert sorted(got) == [("tt:a", "y"), ("tt:b", "x")]
    assert r.info("clients")["clients_in_timeout_table"] == 0
    forever.connection_pool.disconnect()
    timed.connection_pool.disconnect()


def test_info_parsing(r):
    r.rpush("k", "a", "b")
    r.expire("k", 1000)
    info = r.info()
    assert info["redis_version"].startswith("7.")
    assert info["redis_mode"] == "standalone"
    assert isinstance(info["tcp_port"], int)
    assert info["connected_clients"] >= 1
    assert info["blocked_clients"] == 0
    assert isinstance(info["used_memory"], int)
    assert info["loading"] == 0
    assert info["total_commands_processed"] > 0
    assert info["db0"] == {"keys": 1, "expires": 1, "avg_ttl": info["db0"]["avg_ttl"]}
    assert r.info("server")["redis_mode"] == "standalone"
    assert set(r.info("keyspace")) == {"db0"}
    assert "cmdstat_rpush" in r.info("commandstats")
    assert "used_memory" in r.info("memory")


def test_instantaneous_figures_follow_the_load(r, listd):
    """instantaneous_ops_per_sec and the kbps are rates of the recent past (Redis samples them
    in its cron): up while a client keeps sending, back to 0 once it stops."""
    stop = threading.Event()

    def load():
        c = redis.Redis(port=listd.port)
        while not stop.is_set():
            c.pipeline(transaction=False).set("inst:k", "x" * 100).get("inst:k").execute()
        c.connection_pool.disconnect()

    def stats():
        return r.info("stats")

    t = threading.Thread(target=load)
    t.start()
    try:
        busy = wait_until(lambda: (lambda s: s["instantaneous_ops_per_sec"] > 0
                                   and s["instantaneous_input_kbps"] > 0
                                   and s["instantaneous_output_kbps"] > 0 and s)(stats()),
                          timeout=20, interval=0.1)
        assert busy, f"the rates never rose under load: {stats()}"
        assert busy["instantaneous_input_repl_kbps"] == 0.0  # no master, no replicas
        assert busy["instantaneous_output_repl_kbps"] == 0.0
        assert busy["total_net_repl_input_bytes"] == busy["total_net_repl_output_bytes"] == 0
    finally:
        stop.set()
        t.join()
    # Only this poll's own INFO (5 a second) runs now.
    assert wait_until(lambda: stats()["instantaneous_ops_per_sec"] <= 10, timeout=20,
                      interval=0.2), f"the rate never fell back once idle: {stats()}"


def test_config_get_for_tools(r):
    # redis-benchmark's start-up probes need [name, value] pairs (the values depend on the
    # persistence settings)
    save = r.config_get("save")
    assert list(save) == ["save"] and isinstance(save["save"], str)
    assert r.config_get("appendonly") in ({"appendonly": "no"}, {"appendonly": "yes"})
    assert r.config_get("no-such-parameter") == {}
    port = r.connection_pool.connection_kwargs["port"]
    assert r.config_get("port") == {"port": str(port)}


def test_time_and_client_id(r):
    secs, micros = r.time()
    assert abs(secs - time.time()) < 5
    assert isinstance(r.client_id(), int)
