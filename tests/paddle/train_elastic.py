"""Data-parallel training that continues after a restart, as an elastic job's pods run it (started
by `python -m paddle.distributed.launch` with an etcd master): a linear model fitted for STEPS
steps on CPU, gradients averaged across the ranks, a checkpoint every CHECKPOINT_EVERY steps, and
on start the last checkpoint loaded, so that a rank restarted after a lost node goes on from there
instead of from step 0.

The checkpoint is a folder in the working folder (CHECKPOINT_DIR, default `checkpoint`), which
every pod of the job shares: a volume on a cluster (a PVC every pod mounts), the --workdir under
`paddlejob-manifests local`, where it outlives the pods' processes. Rank 0 writes it (every rank
holds the same weights after each averaged step): the weights and the optimizer's state to files
named by step, each written to a temporary name and renamed, then `latest.json` naming them,
renamed over the old one; a kill between two renames leaves the previous checkpoint whole.

Each run prints, to the trainer's log (the launcher's workerlog.N in PADDLE_LOG_DIR, appended
across restarts):

    START rank=R world=W step=S      S: 0, or the step the checkpoint holds (RESUME ... from=PATH)
    STEP rank=R step=N loss=L         every LOG_EVERY steps
    CHECKPOINT rank=0 step=N          N steps done, written
    DONE rank=R world=W step=STEPS weights=...
"""

import json
import os
import time

import numpy as np
import paddle
import paddle.distributed as dist

STEPS = int(os.environ.get("STEPS", "200"))
EVERY = int(os.environ.get("CHECKPOINT_EVERY", "10"))
LOG_EVERY = int(os.environ.get("LOG_EVERY", "5"))
PAUSE = float(os.environ.get("STEP_SECONDS", "0.1"))  # a step's time: the kill must land mid-training
FOLDER = os.environ.get("CHECKPOINT_DIR", "checkpoint")
LATEST = os.path.join(FOLDER, "latest.json")
TRUTH = np.array([[1.0], [-2.0], [0.5], [3.0]], dtype="float32")


def say(text: str) -> None:
    print(text, flush=True)


def save(step: int, model, optimizer) -> None:
    """Steps 0..step-1 are done: the weights and the optimizer's state, then latest.json."""
    os.makedirs(FOLDER, exist_ok=True)
    names = {"model": f"step-{step}.pdparams", "optimizer": f"step-{step}.pdopt"}
    for key, state in (("model", model.state_dict()), ("optimizer", optimizer.state_dict())):
        path = os.path.join(FOLDER, names[key])
        paddle.save(state, path + ".tmp")
        os.replace(path + ".tmp", path)
    with open(LATEST + ".tmp", "w") as out:
        json.dump({"step": step, **names}, out)
    os.replace(LATEST + ".tmp", LATEST)
    for old in os.listdir(FOLDER):  # keep the one latest.json names
        if old.startswith("step-") and old not in names.values() and not old.endswith(".tmp"):
            os.remove(os.path.join(FOLDER, old))


def load(model, optimizer) -> int:
    """The step the last checkpoint holds (0 without one), its weights and state loaded."""
    if not os.path.exists(LATEST):
        return 0
    with open(LATEST) as f:
        latest = json.load(f)
    model.set_state_dict(paddle.load(os.path.join(FOLDER, latest["model"])))
    optimizer.set_state_dict(paddle.load(os.path.join(FOLDER, latest["optimizer"])))
    return int(latest["step"])


dist.init_parallel_env()
rank, world = dist.get_rank(), dist.get_world_size()
paddle.seed(0)  # the same initial weights on every rank
model = paddle.DataParallel(paddle.nn.Linear(4, 1))
optimizer = paddle.optimizer.Momentum(learning_rate=0.02, momentum=0.5, parameters=model.parameters())
first = load(model, optimizer)
if first:
    say(f"START rank={rank} world={world} step={first} RESUME from={os.path.abspath(LATEST)}")
else:
    say(f"START rank={rank} world={world} step=0")
loss = None
for step in range(first, STEPS):
    rng = np.random.default_rng([rank, step])  # a batch of its own per rank and step, whatever ran before
    x = rng.standard_normal((16, 4)).astype("float32")
    loss = paddle.mean((model(paddle.to_tensor(x)) - paddle.to_tensor(x @ TRUTH)) ** 2)
    loss.backward()
    optimizer.step()
    optimizer.clear_grad()
    if step % LOG_EVERY == 0:
        say(f"STEP rank={rank} step={step} loss={float(loss):.6f}")
    if (step + 1) % EVERY == 0 and step + 1 < STEPS and rank == 0:
        save(step + 1, model, optimizer)
        say(f"CHECKPOINT rank=0 step={step + 1}")
    time.sleep(PAUSE)
weights = np.concatenate([p.numpy().ravel() for p in model.parameters()])
say(f"DONE rank={rank} world={world} step={STEPS} weights={','.join(f'{w:.6f}' for w in weights)}")
