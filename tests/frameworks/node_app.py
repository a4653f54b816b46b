"""Runs the Node framework apps in node/ (bull_app.js, bullmq_app.js, bee_queue_app.js) for the
tests: a worker process through conftest's Processes, and one-shot client actions that answer one
JSON line.

The frameworks come from the npm registry, pinned in node/package-lock.json, and are installed
into the build tree by node/install-node-modules.sh (ctest's set-up entry frameworks.node_modules),
which passes their folder as $FRAMEWORKS_NODE_MODULES. `node` is the one on the PATH.
"""

import json
import os
import subprocess

from listd_testing import scaled

NODE_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "node")


def node_modules():
    path = os.environ.get("FRAMEWORKS_NODE_MODULES", "")
    if not os.path.isdir(os.path.join(path, "bull")):
        raise RuntimeError(
            f"FRAMEWORKS_NODE_MODULES={path!r} holds no installed frameworks: run "
            f"{NODE_DIR}/install-node-modules.sh <dir> and set it to <dir>/node_modules")
    return path


class NodeApp:
    """One app script against one server and queue name."""

    def __init__(self, script, url, queue):
        self.script = script
        self.env = {"NODE_PATH": node_modules(), "REDIS_URL": url, "QUEUE": queue}

    def start_worker(self, processes, name):
        return processes.start(name, ["node", self.script, "worker"], env=self.env,
                               cwd=NODE_DIR)

    def __call__(self, *args):
        done = subprocess.run(["node", self.script, *map(str, args)], cwd=NODE_DIR,
                              env=dict(os.environ, **self.env), capture_output=True, text=True,
                              timeout=scaled(90))
        assert done.returncode == 0, f"{self.script} {args}: {done.stdout}{done.stderr}"
        return json.loads(done.stdout.strip().splitlines()[-1])


def ran_records(conn, key):
    """{job id: value} from the list each job pushes "<id>:<value>" to; a job twice fails."""
    records = {}
    for entry in conn.lrange(key, 0, -1):
        job_id, value = entry.split(":")
        assert job_id not in records, f"job {job_id} ran twice"
        records[job_id] = int(value)
    return records
