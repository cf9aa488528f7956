"""Parameter-server training with Paddle's own PS runtime (the paddlepaddle 2.6.2 CPU wheel has
it; 3.x wheels are built without it).

Each pod's role comes from its environment through PaddleCloudRoleMaker, as on a cluster. The
servers hold the parameters and run until they are stopped (`fleet.run_server()` has no way to
end from the trainers' side). The trainers run in GEO mode: trainer 0 pushes its initial
parameters to the servers, every trainer pulls them (so both start from the same loss), then
each trains on its own data and exchanges deltas with the servers every few steps. A trainer
prints the loss on a fixed batch before and after, and its final weights."""

import json
import time

import numpy as np
import paddle
import paddle.distributed.fleet as fleet

paddle.enable_static()
fleet.init(fleet.PaddleCloudRoleMaker(is_collective=False))

x = paddle.static.data("x", [None, 4], "float32")
y = paddle.static.data("y", [None, 1], "float32")
loss = paddle.mean(paddle.square(paddle.static.nn.fc(x, 1) - y))
strategy = fleet.DistributedStrategy()
strategy.a_sync = True
strategy.a_sync_configs = {"k_steps": 5}  # GEO: deltas go to the servers every 5 steps
fleet.distributed_optimizer(paddle.optimizer.SGD(0.01), strategy).minimize(loss)

if fleet.is_server():
    print(f"SERVING {fleet.server_index()}", flush=True)
    fleet.init_server()
    fleet.run_server()
else:
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(paddle.static.default_startup_program())
    fleet.init_worker()
    truth = np.array([[1.0], [2.0], [-1.0], [0.5]], "float32")
    fixed = np.random.default_rng(99).standard_normal((64, 4)).astype("float32")
    evaluate = paddle.static.default_main_program().clone(for_test=True)

    def measured() -> float:
        return float(exe.run(evaluate, feed={"x": fixed, "y": fixed @ truth}, fetch_list=[loss])[0])

    before = measured()
    data = np.random.default_rng(fleet.worker_index())
    for _ in range(300):
        batch = data.standard_normal((16, 4)).astype("float32")
        exe.run(paddle.static.default_main_program(), feed={"x": batch, "y": batch @ truth})
        time.sleep(0.005)  # let the communicator's threads exchange with the servers
    after = measured()
    weights = np.array(paddle.static.global_scope().find_var("fc_0.w_0").get_tensor()).ravel()
    print(f"RESULT {json.dumps({'loss': [before, after], 'weights': weights.tolist()})}", flush=True)
    fleet.stop_worker()
