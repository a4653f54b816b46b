"""TLS test helpers: the certificates (tests/support/make-test-certs.sh) and a server with both
a plaintext port (the launcher's probe) and a TLS port.

    certs = make_certs(tmp_dir)
    srv = start_tls_server(certs)             # srv.tls_port
    tls_client(srv, certs, "client").ping()   # redis-py ssl=True with client.crt/client.key
"""

import os
import subprocess

import redis

from .server import ListdServer, free_port

_SCRIPT = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "support", "make-test-certs.sh")


def make_certs(directory):
    subprocess.run([_SCRIPT, directory], check=True, timeout=60)
    return directory


def tls_args(certs, tls_port):
    return ["--tls-port", str(tls_port),
            "--tls-cert-file", os.path.join(certs, "server.crt"),
            "--tls-key-file", os.path.join(certs, "server.key"),
            "--tls-ca-cert-file", os.path.join(certs, "ca.crt")]


def start_tls_server(certs, extra=(), attempts=5):
    """A server on a fresh plaintext port and a fresh TLS port (a TLS port someone else took
    makes the server exit: then both are chosen again, a bounded number of times)."""
    last = None
    for _ in range(attempts):
        tls_port = free_port()
        srv = ListdServer(tls_args(certs, tls_port) + list(extra))
        try:
            srv.start()
        except RuntimeError as e:
            last = e
            srv.close()
            continue
        srv.tls_port = tls_port
        return srv
    raise last


def tls_client(port, certs, cert="client", **kwargs):
    """redis-py over TLS to `port`, trusting the test CA, presenting `cert` (None: none)."""
    options = dict(host="127.0.0.1", port=port, ssl=True, ssl_cert_reqs="required",
                   ssl_ca_certs=os.path.join(certs, "ca.crt"), socket_timeout=10,
                   socket_connect_timeout=5, decode_responses=True)
    if cert is not None:
        options["ssl_certfile"] = os.path.join(certs, cert + ".crt")
        options["ssl_keyfile"] = os.path.join(certs, cert + ".key")
    options.update(kwargs)
    return redis.Redis(**options)


def cli_tls_args(certs, cert="client"):
    """redis-cli / redis-benchmark's TLS options for the test CA and a client certificate."""
    args = ["--tls", "--cacert", os.path.join(certs, "ca.crt")]
    if cert is not None:
        args += ["--cert", os.path.join(certs, cert + ".crt"),
                 "--key", os.path.join(certs, cert + ".key")]
    return args
