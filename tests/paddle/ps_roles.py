"""What a parameter-server pod's environment means to Paddle itself: PaddleCloudRoleMaker, the
role maker fleet uses on a cluster, parses it; the result is printed for the test to check.

Then each pod does what its role does on the wire: a server listens on its own endpoint until
it is stopped, and a trainer connects to every server endpoint before it finishes, so the job
completes only once every server is up (and has printed its roles)."""

import json
import socket
import time

import paddle.distributed.fleet as fleet

role = fleet.PaddleCloudRoleMaker(is_collective=False)
role._generate_role()
server = role._is_server()
endpoints = role._get_pserver_endpoints()
print(
    "ROLES "
    + json.dumps(
        {
            "server": server,
            "index": role._server_index() if server else role._worker_index(),
            "servers": endpoints,
            "workers": role._worker_num(),
        }
    ),
    flush=True,
)


def split(endpoint: str) -> tuple[str, int]:
    host, _, port = endpoint.rpartition(":")
    return host, int(port)


if server:
    listener = socket.create_server(split(endpoints[role._server_index()]))
    while True:
        connection, _ = listener.accept()
        connection.close()
else:
    deadline = time.monotonic() + 180
    for endpoint in endpoints:
        while True:
            try:
                socket.create_connection(split(endpoint), timeout=2).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise SystemExit(f"server {endpoint} never listened") from None
                time.sleep(0.2)
    print(f"REACHED {len(endpoints)} servers", flush=True)
