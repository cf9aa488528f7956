"""Owner `launcher`: Paddle's own launcher (`python -m paddle.distributed.launch`, Paddle 3.3.1), as
it reads a pod's environment, for a pod template that asks for elastic training (an `etcd://`
PADDLE_MASTER). What makes the launcher leave that etcd master or fail, on a cluster:

- PADDLE_TRAINER_ENDPOINTS (or DISTRIBUTED_TRAINER_ENDPOINTS) set: the plugin
  `collective_compatible` (launch/plugins/__init__.py), run for every launch, replaces the
  master with the list's first entry and the node range with its host count, so the job trains
  as a fixed-size collective job;
- PADDLE_TRAINER_ID set with a node range (PADDLE_NNODES MIN:MAX, MIN < MAX): it pins the node's
  rank (context/args_envs.py parse_args), and ETCDMaster.sync_peers places each peer at its rank
  among those present, which fails (IndexError) when fewer than the most have met;
- the controller sets them itself: paddle-operator v0.3.5 gives every pod both (its ConfigMap
  and constructPod), training-operator v1.9.0 sets PADDLE_MASTER after the container's own
  (envvar.go setPodEnv), unless the container's shell unsets them before the launcher starts.
"""

from __future__ import annotations

import re
from typing import Any

from generator.core.findings import Finding
from generator.validate.rules.base import as_dict, as_list, literal_env, warning

ENDPOINT_NAMES = ("PADDLE_TRAINER_ENDPOINTS", "DISTRIBUTED_TRAINER_ENDPOINTS")
_UNSET = re.compile(r"unset ((?:[A-Za-z_][A-Za-z0-9_]* ?)+);")


def unset_by_shell(command: Any) -> set[str]:
    """The names a `sh -c 'unset NAME...; ...'` command removes before what it runs (the job
    library's start of an elastic paddle-operator worker; `local` runs the same shell)."""
    command = [w for w in as_list(command) if isinstance(w, str)]
    shell = len(command) > 2 and command[0] in ("sh", "bash", "/bin/sh", "/bin/bash") and command[1] == "-c"
    found = _UNSET.match(command[2]) if shell else None
    return set(found.group(1).split()) if found else set()


def elastic_nodes(env: dict[Any, Any]) -> str | None:
    """PADDLE_NNODES of an env whose PADDLE_MASTER is an etcd:// URL (the launcher's elastic
    mode, CollectiveElasticController.enable); None for any other."""
    master, nodes = env.get("PADDLE_MASTER"), env.get("PADDLE_NNODES")
    if isinstance(master, str) and master.startswith("etcd://"):
        return nodes if isinstance(nodes, str) else ""
    return None


def _controller_sets(api_version: str) -> tuple[str, ...]:
    if api_version.startswith("batch.paddlepaddle.org/"):
        return ("PADDLE_TRAINER_ENDPOINTS", "PADDLE_TRAINER_ID")
    if api_version.startswith("kubeflow.org/"):
        return ("PADDLE_MASTER",)
    return ()


def launcher_findings(template: dict[Any, Any], path: str, api_version: str) -> list[Finding]:
    """The elastic launcher's verdict on one pod template at ``path`` of an object of ``api_version``."""
    out = []
    containers = as_list(as_dict(as_dict(template).get("spec")).get("containers"))
    for i, container in enumerate(containers):
        if not isinstance(container, dict) or not container.get("env"):
            continue  # no variable: no etcd master
        env = literal_env(container)
        nodes = elastic_nodes(env)
        if nodes is None:
            continue
        master = env["PADDLE_MASTER"]
        here = f"{path}.spec.containers[{i}].env"
        removed = unset_by_shell(container.get("command"))
        present = {name for name in env if name not in removed}
        by_controller = [n for n in _controller_sets(api_version) if n not in removed]
        if "PADDLE_MASTER" in by_controller:
            out.append(
                warning(
                    here,
                    "launcher-elastic",
                    f"PADDLE_MASTER {master}: training-operator v1.9.0 sets PADDLE_MASTER and PADDLE_NNODES itself, "
                    "after the container's own (envvar.go setPodEnv), so the launcher never meets at the etcd; run "
                    "elastic jobs on the paddle-operator, volcano or kubernetes runtime",
                )
            )
            continue
        endpoints = [n for n in ENDPOINT_NAMES if n in present or n in by_controller]
        if endpoints:
            who = "the controller sets" if endpoints[0] in by_controller else "the container sets"
            out.append(
                warning(
                    here,
                    "launcher-elastic",
                    f"{who} {endpoints[0]}, so Paddle's launcher replaces the etcd master {master} with its first "
                    "entry and PADDLE_NNODES with its host count (plugins collective_compatible): the job trains as a "
                    f"fixed-size collective job, not elastic; drop {endpoints[0]}, or start the launcher through "
                    'sh -c \'unset PADDLE_TRAINER_ENDPOINTS PADDLE_TRAINER_ID; exec "$0" "$@"\'',
                )
            )
            continue
        ranged = isinstance(nodes, str) and len(set(nodes.split(":"))) > 1
        if ranged and ("PADDLE_TRAINER_ID" in present or "PADDLE_TRAINER_ID" in by_controller):
            out.append(
                warning(
                    here,
                    "launcher-elastic",
                    f"PADDLE_TRAINER_ID pins each node's rank, and with PADDLE_NNODES {nodes} Paddle's launcher places "
                    "each peer at its rank among those present (ETCDMaster.sync_peers): with fewer than the most, a "
                    "rank past their count fails with IndexError; drop PADDLE_TRAINER_ID from elastic workers",
                )
            )
    return out
