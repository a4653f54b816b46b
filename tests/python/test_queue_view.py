"""The queue view (a listd extension, docs/COMPATIBILITY.md "The queue view"): QUEUES and the
metrics-port HTTP endpoint, scraped by Debian's prometheus and promtool and drawn by headless
chromium. listd only: python.against_redis deselects this module (Redis has neither)."""

import http.client
import json
import os
import shutil
import struct
import subprocess
import tempfile
import time
import urllib.request
import zlib

import pytest
import redis

from listd_testing import ListdServer
from listd_testing.resp import RawConn
from listd_testing.server import free_port

DEADLINE_S = 20  # bound on every wait for a condition


def wait_for(condition, what):
    end = time.monotonic() + DEADLINE_S
    while time.monotonic() < end:
        value = condition()
        if value:
            return value
        time.sleep(0.05)  # poll interval
    raise AssertionError(f"timed out waiting for {what}")


@pytest.fixture(scope="module")
def served():
    """A listd with metrics-port on, and its HTTP port."""
    for _ in range(3):  # the free metrics port may be taken before listd binds it
        metrics_port = free_port()
        srv = ListdServer(["--metrics-port", str(metrics_port)])
        try:
            srv.start()
        except RuntimeError:
            srv.close()
            continue
        yield srv, metrics_port
        assert srv.stop() == 0
        srv.close()
        return
    raise RuntimeError("listd did not start with a free metrics port")


@pytest.fixture
def client(served):
    c = redis.Redis(host="127.0.0.1", port=served[0].port, decode_responses=True)
    c.flushall()
    yield c
    c.connection_pool.disconnect()


def queues(c):
    """QUEUES as a list of dicts (RESP2: a flat array per key)."""
    rows = c.execute_command("QUEUES")
    return [dict(zip(row[::2], row[1::2])) for row in rows]


def blocked_worker(port, key):
    """A connection that sent BLPOP key 0 and waits (the reply is read by the caller)."""
    w = RawConn(port)
    w.send(f"*3\r\n$5\r\nBLPOP\r\n${len(key)}\r\n{key}\r\n$1\r\n0\r\n".encode())
    return w


def get(port, path, method="GET"):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request(method, path)
    resp = conn.getresponse()
    body = resp.read()
    conn.close()
    return resp, body


def test_queues_lists_waiters_and_hand_offs(served, client):
    srv, _ = served
    worker = blocked_worker(srv.port, "jobs")
    rows = wait_for(lambda: [q for q in queues(client) if q["waiters"] == 1], "the waiter")
    assert rows[0]["key"] == "jobs" and rows[0]["db"] == 0 and rows[0]["length"] == 0
    assert client.rpush("jobs", "a", "b") == 2
    assert worker.read_reply() == b"*2\r\n$4\r\njobs\r\n$1\r\na\r\n"
    worker.close()
    (row,) = [q for q in queues(client) if q["key"] == "jobs"]
    assert row["waiters"] == 0 and row["length"] == 1
    assert float(row["pushes-per-sec"]) == pytest.approx(2 / 60)
    assert float(row["handoffs-per-sec"]) == pytest.approx(1 / 60)
    assert client.config_get("metrics-port") == {"metrics-port": str(served[1])}


def test_metrics_endpoint_speaks_prometheus_text(served, client):
    srv, port = served
    client.rpush('we"ird\\key\n', "x")
    resp, body = get(port, "/metrics")
    assert resp.status == 200
    assert resp.getheader("Content-Type") == "text/plain; version=0.0.4; charset=utf-8"
    text = body.decode()
    assert 'listd_queue_length{db="0",key="we\\"ird\\\\key\\n"} 1\n' in text
    assert "# TYPE listd_queue_handoffs_per_second gauge\n" in text
    check = subprocess.run(["promtool", "check", "metrics"], input=body, capture_output=True,
                           timeout=30)
    assert check.returncode == 0, check.stdout + check.stderr
    doc = json.loads(get(port, "/queues.json")[1])
    (row,) = [q for q in doc["queues"] if q["key"] == 'we"ird\\key\n']
    assert row["length"] == 1 and row["db"] == 0


def test_http_statuses_and_keep_alive(served):
    _, port = served
    assert get(port, "/nope")[0].status == 404
    assert get(port, "/metrics", method="POST")[0].status == 405
    resp, body = get(port, "/", method="HEAD")
    assert resp.status == 200 and body == b"" and int(resp.getheader("Content-Length")) > 1000
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    for path in ("/metrics", "/queues.json", "/"):  # one connection, three requests
        conn.request("GET", path)
        resp = conn.getresponse()
        resp.read()
        assert resp.status == 200 and resp.getheader("Connection") == "keep-alive"
    conn.close()
    raw = RawConn(port)  # a head over 8 KB: 431, then the server closes
    raw.sock.sendall(b"GET / HTTP/1.1\r\nX: " + b"a" * 9000 + b"\r\n\r\n")
    reply = b""
    while chunk := raw.sock.recv(65536):
        reply += chunk
    raw.close()
    assert reply.startswith(b"HTTP/1.1 431 ")


def test_prometheus_scrapes_the_endpoint(served, client):
    _, port = served
    client.rpush("scraped", "a", "b", "c")
    work = tempfile.mkdtemp(prefix="listd-prom-")
    try:
        config = os.path.join(work, "prometheus.yml")
        with open(config, "w") as f:
            f.write("global:\n  scrape_interval: 1s\nscrape_configs:\n  - job_name: listd\n"
                    f"    static_configs:\n      - targets: ['127.0.0.1:{port}']\n")
        web = free_port()
        with open(os.path.join(work, "log"), "wb") as log:
            prom = subprocess.Popen(
                ["prometheus", f"--config.file={config}", f"--storage.tsdb.path={work}/data",
                 f"--web.listen-address=127.0.0.1:{web}"], stdout=log, stderr=subprocess.STDOUT)
        try:
            def scraped():
                try:
                    url = f"http://127.0.0.1:{web}/api/v1/query?query=listd_queue_length"
                    with urllib.request.urlopen(url, timeout=5) as r:
                        result = json.load(r)["data"]["result"]
                except OSError:
                    return None
                return [s for s in result if s["metric"].get("key") == "scraped"]

            (sample,) = wait_for(scraped, "prometheus to scrape listd")
            assert sample["metric"]["db"] == "0" and sample["metric"]["job"] == "listd"
            assert sample["value"][1] == "3"
        finally:
            prom.terminate()
            prom.wait(timeout=30)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def png_pixels(data):
    """(width, height, rows of RGB(A) bytes) of an 8-bit non-interlaced RGB/RGBA PNG."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, width, height, channels = 8, b"", 0, 0, 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        chunk = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, color = struct.unpack(">IIBB", chunk[:10])
            assert depth == 8 and color in (2, 6)
            channels = 3 if color == 2 else 4
        elif kind == b"IDAT":
            idat += chunk
        pos += 12 + length
    raw, stride, rows, prev = zlib.decompress(idat), width * channels, [], bytearray(width * channels)
    for y in range(height):
        kind, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - channels] if i >= channels else 0
            b, c = prev[i], prev[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + a) & 255
            elif kind == 2:
                line[i] = (line[i] + b) & 255
            elif kind == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return width, height, channels, rows


def chromium(*args):
    profile = tempfile.mkdtemp(prefix="listd-chromium-")
    try:
        return subprocess.run(["chromium", "--headless", "--no-sandbox", "--disable-gpu",
                               "--no-first-run", f"--user-data-dir={profile}",
                               "--virtual-time-budget=4000", *args],
                              capture_output=True, timeout=60)
    finally:
        shutil.rmtree(profile, ignore_errors=True)


def test_chromium_draws_the_queue_page(served, client):
    srv, port = served
    worker = blocked_worker(srv.port, "drawn")
    wait_for(lambda: [q for q in queues(client) if q["waiters"] == 1], "the waiter")
    client.rpush("drawn", *[str(i) for i in range(5)])
    assert worker.read_reply() == b"*2\r\n$5\r\ndrawn\r\n$1\r\n0\r\n"
    worker.close()
    shot_dir = tempfile.mkdtemp(prefix="listd-shot-")
    try:  # one run: the DOM after the page's polls, and a screenshot of it
        shot = os.path.join(shot_dir, "page.png")
        run = chromium("--dump-dom", f"--screenshot={shot}", "--window-size=900,260",
                       f"http://127.0.0.1:{port}/")
        assert os.path.exists(shot), run.stderr.decode()[-2000:]
        with open(shot, "rb") as f:
            width, height, channels, rows = png_pixels(f.read())
    finally:
        shutil.rmtree(shot_dir, ignore_errors=True)
    html = run.stdout.decode()
    assert 'data-key="drawn"' in html, run.stderr.decode()[-2000:]
    row = html[html.index('data-key="drawn"'):]
    row = row[:row.index("</tr>")]
    assert '<td class="length">4</td>' in row and '<td class="handoffs">0.02</td>' in row
    samples = int(row.split('data-samples="')[1].split('"')[0])
    assert samples >= 2  # polled more than once: the page keeps a history
    # Pixels near the two colours the page draws with (the lines and their legend), in one pass.
    depth = rate = white = 0
    for line in rows:
        for x in range(0, width * channels, channels):
            r, g, b = line[x], line[x + 1], line[x + 2]
            if abs(r - 0x1F) < 40 and abs(g - 0x5F) < 40 and abs(b - 0xBF) < 40:
                depth += 1
            elif abs(r - 0xD9) < 40 and abs(g - 0x73) < 40 and abs(b - 0x1A) < 40:
                rate += 1
            elif r == g == b == 255:
                white += 1
    assert depth > 50 and rate > 50, (depth, rate)
    assert white < width * height  # not blank
