"""A rendezvous as a collective job's pods do it, without Paddle: pod 0 waits for pod 1 to
connect, pod 1 connects to pod 0 by its DNS name (retrying until it listens). Neither finishes
alone."""

import os
import socket
import time

PORT = 29400
if os.environ["JOB_COMPLETION_INDEX"] == "0":
    with socket.create_server(("0.0.0.0", PORT)) as server:
        server.accept()[0].close()
else:
    while True:
        try:
            socket.create_connection((os.environ["PEER"], PORT), timeout=2).close()
            break
        except OSError:
            time.sleep(0.1)
print("MET", flush=True)
