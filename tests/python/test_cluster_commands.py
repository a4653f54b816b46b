"""The cluster commands on a standalone server answer as Redis 7.0.15 with cluster-enabled no:
the same error for every CLUSTER subcommand, ASKING, READONLY and READWRITE; arity and unknown
subcommand errors as for any command; and RESTORE-ASKING is RESTORE (test_dump_restore.py)."""

import pytest

from listd_testing import RawConn

DISABLED = b"-ERR This instance has cluster support disabled\r\n"


@pytest.fixture
def conn(listd):
    with RawConn(listd.port) as c:
        yield c


@pytest.mark.parametrize("args", [
    ("ASKING",), ("READONLY",), ("READWRITE",), ("CLUSTER", "INFO"), ("CLUSTER", "HELP"),
    ("CLUSTER", "SLOTS"), ("CLUSTER", "SHARDS"), ("CLUSTER", "NODES"), ("CLUSTER", "MYID"),
    ("CLUSTER", "KEYSLOT", "k"), ("CLUSTER", "COUNTKEYSINSLOT", "1"),
    ("CLUSTER", "GETKEYSINSLOT", "1", "1"), ("CLUSTER", "RESET", "HARD"),
    ("CLUSTER", "ADDSLOTS", "1", "2"), ("CLUSTER", "SETSLOT", "1", "STABLE"),
    ("cluster", "info"),
])
def test_cluster_support_is_disabled(conn, args):
    assert conn.call(*args) == DISABLED


@pytest.mark.parametrize("args, reply", [
    (("ASKING", "x"), b"-ERR wrong number of arguments for 'asking' command\r\n"),
    (("READONLY", "x"), b"-ERR wrong number of arguments for 'readonly' command\r\n"),
    (("CLUSTER",), b"-ERR wrong number of arguments for 'cluster' command\r\n"),
    (("CLUSTER", "INFO", "x"), b"-ERR wrong number of arguments for 'cluster|info' command\r\n"),
    (("CLUSTER", "KEYSLOT"), b"-ERR wrong number of arguments for 'cluster|keyslot' command\r\n"),
    (("CLUSTER", "FOO"), b"-ERR unknown subcommand 'FOO'. Try CLUSTER HELP.\r\n"),
])
def test_cluster_commands_check_their_arguments_first(conn, args, reply):
    assert conn.call(*args) == reply


def test_the_connection_carries_on_after_them(conn):
    assert conn.call("READONLY") == DISABLED
    assert conn.call("PING") == b"+PONG\r\n"
