"""What a parameter-server pod's environment means to Paddle itself: PaddleCloudRoleMaker, the
role maker fleet uses on a cluster, parses it; the result is printed for the test to check."""

import json

import paddle.distributed.fleet as fleet

role = fleet.PaddleCloudRoleMaker(is_collective=False)
role._generate_role()
server = role._is_server()
print(
    "ROLES "
    + json.dumps(
        {
            "server": server,
            "index": role._server_index() if server else role._worker_index(),
            "servers": role._get_pserver_endpoints(),
            "workers": role._worker_num(),
        }
    ),
    flush=True,
)
