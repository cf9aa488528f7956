"""A tiny data-parallel training run, as a collective job's pods run it (started by
`python -m paddle.distributed.launch`): a linear model fitted for a few steps on CPU, gradients
averaged across the pods, and one all_reduce whose sum proves every pod took part; the weights'
checksum shows the pods ended in sync."""

import paddle
import paddle.distributed as dist

dist.init_parallel_env()
rank, world = dist.get_rank(), dist.get_world_size()
paddle.seed(rank)
model = paddle.DataParallel(paddle.nn.Linear(4, 1))
optimizer = paddle.optimizer.SGD(learning_rate=0.1, parameters=model.parameters())
x = paddle.randn([32, 4])
y = x.sum(axis=1, keepdim=True)
first = None
for _ in range(20):
    loss = paddle.nn.functional.mse_loss(model(x), y)
    loss.backward()
    optimizer.step()
    optimizer.clear_grad()
    first = first if first is not None else float(loss)
total = paddle.to_tensor([float(rank + 1)])
dist.all_reduce(total)
weights = sum(float(p.sum()) for p in model.parameters())
print(
    f"RESULT rank={rank} world={world} all_reduce={float(total.numpy()[0]):g} loss={first:.4f}->{float(loss):.4f} "
    f"weights={weights:.6f}",
    flush=True,
)
