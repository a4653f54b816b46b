"""ACL users as redis-py 4.3.4 uses them (`username=`), on a server of the test's own.

python.against_redis runs this module against redis-server 7.0.15, so every expectation here
is Redis' own. Redis prints the single commands of a rule list in its command dict's (hash)
order, listd in its table's: described rules are compared with those words sorted, the
categories (+@x / -@x) and everything else in order.
"""

import pytest
import redis

from listd_testing import RawConn, RedisServer

WORKER_RULES = ["on", ">worker-pw", "+brpop", "+lpush", "+hset", "~task:*", "~review:*"]


@pytest.fixture
def server(listd_factory):
    return listd_factory()


def conn(srv, **kw):
    return redis.Redis(host="127.0.0.1", port=srv.port, socket_timeout=30,
                       decode_responses=True, **kw)


def normalized(rules):
    """Rule words with the single-command words sorted (their order is Redis' hash order)."""
    words = rules.split(" ")
    singles = sorted(w for w in words if w[:1] in "+-" and w[1:2] != "@")
    return [w for w in words if not (w[:1] in "+-" and w[1:2] != "@")] + singles


def log_fields(admin):
    return [(e["reason"], e["context"], e["object"], e["username"]) for e in admin.acl_log()]


def test_worker_user_runs_its_queue_and_is_refused_the_rest(server):
    admin = conn(server)
    admin.acl_log_reset()
    assert admin.execute_command("ACL", "SETUSER", "worker", *WORKER_RULES) == "OK"
    worker = conn(server, username="worker", password="worker-pw")
    assert worker.lpush("task:queue", "job-1", "job-2") == 2
    assert worker.brpop("task:queue", timeout=1) == ("task:queue", "job-1")
    assert worker.hset("review:job-1", "status", "done") == 1
    refused = [lambda: worker.flushall(), lambda: worker.config_get("port"),
               lambda: worker.keys("*"), lambda: worker.lpush("elsewhere", "x"),
               lambda: worker.get("task:queue")]
    for call in refused:
        with pytest.raises(redis.exceptions.NoPermissionError):
            call()
    assert log_fields(admin) == [
        ("command", "toplevel", "get", "worker"),
        ("key", "toplevel", "elsewhere", "worker"),
        ("command", "toplevel", "keys", "worker"),
        ("command", "toplevel", "config|get", "worker"),
        ("command", "toplevel", "flushall", "worker"),
    ]
    entry = admin.acl_log()[0]
    assert entry["count"] == 1 and entry["client-info"]["user"] == "worker"


def test_error_texts(server):
    admin = conn(server)
    admin.execute_command("ACL", "SETUSER", "worker", *WORKER_RULES)
    worker = conn(server, username="worker", password="worker-pw")
    with pytest.raises(redis.exceptions.NoPermissionError) as e:
        worker.flushall()
    assert str(e.value) == "this user has no permissions to run the 'flushall' command"
    with pytest.raises(redis.exceptions.NoPermissionError) as e:
        worker.lpush("other", "x")
    assert str(e.value) == ("this user has no permissions to access one of the keys used as "
                            "arguments")
    with pytest.raises(redis.exceptions.ResponseError) as e:
        conn(server, username="worker", password="wrong").ping()
    assert str(e.value) == "WRONGPASS invalid username-password pair or user is disabled."
    assert log_fields(admin)[0] == ("auth", "toplevel", "AUTH", "worker")


@pytest.mark.parametrize("rules, expected", [
    (WORKER_RULES, "on #e49e6a8fc5e8f1b1abd9ebc199c293fb5fadd95f0670a2f6a770ee42779e400b "
                   "~task:* ~review:* resetchannels -@all +brpop +hset +lpush"),
    (["-@all", "+@list", "+@hash", "-hgetall"],
     "off resetchannels -@all +@list +@hash -hgetall"),
    (["+@all", "-@dangerous", "+config|get", "%R~r:*", "%W~w:*", "&news.*"],
     "off %R~r:* %W~w:* resetchannels &news.* +@all -@dangerous +config|get"),
    (["allcommands", "-@write", "+lpush", "allkeys", "allchannels", "nopass", "on"],
     "on nopass ~* &* +@all -@write +lpush"),
    (["+select|0", "+client|list", "(~s:* +set)", "(&c +publish)"],
     "off resetchannels -@all +client|list +select|0 (~s:* resetchannels -@all +set) "
     "(resetchannels &c -@all +publish)"),
    (["reset", "+@transaction", "+@connection"],
     "off sanitize-payload resetchannels -@all +@connection +@transaction"),
])
def test_described_rules_match_redis(server, rules, expected):
    admin = conn(server)
    assert admin.execute_command("ACL", "SETUSER", "u", *rules) == "OK"
    line = [u for u in admin.execute_command("ACL", "LIST") if u.startswith("user u ")][0]
    assert normalized(line[len("user u "):]) == normalized(expected)


def test_getuser_and_dryrun(server):
    admin = conn(server)
    admin.execute_command("ACL", "SETUSER", "worker", *WORKER_RULES, "&jobs", "(~s:* +get)")
    user = admin.acl_getuser("worker")
    assert user["flags"] == ["on"]
    assert user["keys"] == ["~task:*", "~review:*"] and user["channels"] == ["&jobs"]
    assert user["passwords"] == ["e49e6a8fc5e8f1b1abd9ebc199c293fb5fadd95f0670a2f6a770ee42779e400b"]
    dry = lambda *a: admin.execute_command("ACL", "DRYRUN", "worker", *a)  # noqa: E731
    assert dry("lpush", "task:1", "x") == "OK"
    assert dry("get", "s:1") == "OK"
    # The selector allows GET but not the key; a key refusal outranks a command one.
    assert dry("get", "task:1") == "This user has no permissions to access the 'task:1' key"
    assert dry("brpop", "s:1", "0") == "This user has no permissions to access the 's:1' key"
    assert dry("lpush", "x", "y") == "This user has no permissions to access the 'x' key"
    assert dry("hset", "review:1", "f", "v") == "OK"
    with pytest.raises(redis.exceptions.ResponseError) as e:
        dry("nosuch")
    assert str(e.value) == "Command 'nosuch' not found"
    with pytest.raises(redis.exceptions.ResponseError) as e:
        admin.execute_command("ACL", "DRYRUN", "nobody", "get", "x")
    assert str(e.value) == "User 'nobody' not found"


def test_cat_lists_redis_categories(server):
    admin = conn(server)
    assert admin.acl_cat()[:6] == ["keyspace", "read", "write", "set", "sortedset", "list"]
    blocking = set(admin.acl_cat("blocking"))
    assert {"blpop", "brpop", "blmove", "brpoplpush", "bzpopmin", "xread"} <= blocking
    assert "lpush" not in blocking
    with pytest.raises(redis.exceptions.ResponseError) as e:
        admin.acl_cat("nope")
    assert str(e.value) == "Unknown category 'nope'"


def test_deleted_user_is_disconnected_and_kill_user(server):
    admin = conn(server)
    admin.execute_command("ACL", "SETUSER", "w", "on", "nopass", "+@all", "~*")
    with RawConn(server.port) as w:
        assert w.call("AUTH", "w", "x") == b"+OK\r\n"
        assert [c["user"] for c in admin.client_list() if c["cmd"] == "auth"] == ["w"]
        assert admin.execute_command("ACL", "DELUSER", "w") == 1
        with pytest.raises(ConnectionError):
            w.call("PING")  # closed by the server
    admin.execute_command("ACL", "SETUSER", "k", "on", "nopass", "+@all", "~*")
    k = conn(server, username="k", password="x")
    k.ping()
    assert admin.client_kill_filter(user="k") == 1


def test_aclfile_load_and_save(listd_factory, tmp_path):
    path = tmp_path / "users.acl"
    path.write_text("user worker on #" + "a" * 64 + " ~task:* +lpush\n"
                    "user default on nopass ~* &* +@all\n")
    srv = listd_factory("--aclfile", str(path))
    admin = conn(srv)
    assert admin.acl_users() == ["default", "worker"]
    admin.execute_command("ACL", "SETUSER", "extra", "on", "nopass", "+get", "~x")
    assert admin.execute_command("ACL", "SAVE") == "OK"
    lines = path.read_text().splitlines()
    assert lines == ["user default on nopass ~* &* +@all",
                     "user extra on nopass ~x resetchannels -@all +get",
                     "user worker on #" + "a" * 64 + " ~task:* resetchannels -@all +lpush"]
    path.write_text("user default on nopass ~* &* +@all\nuser worker on +nosuch\n")
    with pytest.raises(redis.exceptions.ResponseError) as e:
        admin.execute_command("ACL", "LOAD")
    assert str(e.value) == (f"{path}:2: Error in applying operation '+nosuch': Unknown command "
                            "or category name in ACL. WARNING: ACL errors detected, no change to "
                            "the previously active ACL rules was performed")
    path.write_text("user default on nopass ~* &* +@all\n")
    assert admin.execute_command("ACL", "LOAD") == "OK"
    assert admin.acl_users() == ["default"]


def test_user_directives_from_the_command_line(listd_factory):
    srv = listd_factory("--user", "worker", "on", ">pw", "+lpush", "~task:*")
    w = conn(srv, username="worker", password="pw")
    assert w.lpush("task:1", "x") == 1
    with pytest.raises(redis.exceptions.ResponseError) as e:
        conn(srv).execute_command("ACL", "SAVE")
    assert str(e.value).startswith("This Redis instance is not configured to use an ACL file.")


def test_cat_of_each_category_lists_what_redis_7_0_lists(server):
    # Redis lists every command of its table, those listd lacks too; its order is its dict's,
    # so the comparison is of sets.
    admin = conn(server)
    with RedisServer() as oracle:
        redis_side = redis.Redis(port=oracle.port, decode_responses=True, socket_timeout=10)
        categories = redis_side.acl_cat()
        # Every Redis command is @fast or @slow: their union is Redis' table.
        redis_has = {n for c in ("fast", "slow") for n in redis_side.acl_cat(c)}
        assert admin.acl_cat() == categories
        for category in categories:
            want = redis_side.acl_cat(category)
            got = admin.acl_cat(category)
            assert len(got) == len(set(got)), category  # no command twice
            got = [n for n in got if n in redis_has]  # not listd's own (QUEUES, CLIENT SETINFO)
            assert set(got) == set(want), (category, set(got) ^ set(want))
        redis_side.connection_pool.disconnect()


def test_a_script_asks_what_its_user_may_run(server):
    # redis.acl_check_cmd (7.0): the command, subcommand and keys as the script's user, nothing
    # in ACL LOG; an unknown command (or subcommand) raises.
    admin = conn(server)
    admin.acl_log_reset()
    admin.execute_command("ACL", "SETUSER", "scripted", "on", ">pw", "~task:*", "+get", "+eval",
                          "+client|list")
    user = conn(server, username="scripted", password="pw")
    checks = ("local r = {} "
              "for i, c in ipairs({{'get', 'task:1'}, {'get', 'other'}, {'set', 'task:1', 'v'}, "
              "{'client', 'list'}, {'client', 'kill'}, {'get'}}) do "
              "r[i] = redis.acl_check_cmd(unpack(c)) and 'yes' or 'no' end return r")
    assert user.eval(checks, 0) == ["yes", "no", "no", "yes", "no", "yes"]
    assert admin.eval(checks, 0) == ["yes"] * 6  # the default user may run everything
    assert admin.acl_log() == []
    for body, text in [("return redis.acl_check_cmd('nosuch')",
                        "Invalid command passed to redis.acl_check_cmd()"),
                       ("return redis.acl_check_cmd('client', 'nosuchsub')",
                        "Invalid command passed to redis.acl_check_cmd()"),
                       ("return redis.acl_check_cmd()",
                        "Please specify at least one argument for this redis lib call"),
                       ("return redis.acl_check_cmd({})",
                        "Lua redis lib command arguments must be strings or integers")]:
        with pytest.raises(redis.ResponseError) as e:
            admin.eval(body, 0)
        assert str(e.value).startswith(text + " script: "), body
