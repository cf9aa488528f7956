"""Extract which Kueue integrations each Kueue release runs, for `validate`'s rule on the queue
label (rules/kueue.py): schemas/kueue/integrations.json.

    python -m generator.tools.kueue_extract GIT_DIR

GIT_DIR is a clone (bare is fine) of https://github.com/kubernetes-sigs/kueue with its release
tags. For the newest patch release of each minor version from 0.6 on, it reads at the tag:

- the integrations the release registers: every `FrameworkName = "..."` under
  pkg/controller/jobs/ (each integration's controller passes it to
  jobframework.RegisterIntegration);
- the API default of `integrations.frameworks`: apis/config/v1beta1/defaults.go SetDefaults_Configuration
  (`[]string{defaultJobFrameworkName}`, batch/job alone, in every release read), what a
  Configuration that names no frameworks gets;
- the frameworks the release's own manifests enable: config/components/manager/controller_manager_config.yaml,
  the Configuration the kueue-manager-config ConfigMap of manifests.yaml holds, which is what
  `kubectl apply -f manifests.yaml` installs; the Helm chart's managerConfig (charts/kueue/values.yaml)
  enables the same ones in every release read (asserted).

The output records tag, commit and the SHA-256 of each file read, and is committed, so
`validate` needs neither git nor a network.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import subprocess
import sys
from pathlib import Path

import yaml

from generator.core.kinds import KUEUE_INTEGRATIONS, KUEUE_NEEDS
from generator.core.paths import SCHEMA_DIR

OUT = SCHEMA_DIR / "kueue" / "integrations.json"
REPOSITORY = "https://github.com/kubernetes-sigs/kueue"
FIRST_MINOR = 6
DEFAULTS = "apis/config/v1beta1/defaults.go"
SHIPPED = "config/components/manager/controller_manager_config.yaml"
CHART = "charts/kueue/values.yaml"  # managerConfig.controllerManagerConfigYaml: the same list (asserted)
JOBS = "pkg/controller/jobs"

# Each framework name and the kind it admits, and what an object needs besides the queue label:
# the registry's (core/kinds.py), with the kinds.
KINDS = KUEUE_INTEGRATIONS
NEEDS = KUEUE_NEEDS

_FRAMEWORK_NAME = re.compile(rb'FrameworkName\s*=\s*"([^"]+)"')


def _git(repo: Path, *args: str) -> bytes:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, check=True).stdout


def _newest_patch(repo: Path, minor: int) -> str | None:
    tags = _git(repo, "tag", "--list", f"v0.{minor}.*").decode().split()
    final = [t for t in tags if re.fullmatch(rf"v0\.{minor}\.\d+", t)]
    return max(final, key=lambda t: int(t.rsplit(".", 1)[1])) if final else None


def _registered(repo: Path, tag: str) -> list[str]:
    found = _git(repo, "grep", "-h", "-E", r'FrameworkName\s*=\s*"', tag, "--", JOBS)
    return sorted({m.decode() for m in _FRAMEWORK_NAME.findall(found)})


def _api_default(text: str) -> list[str]:
    """SetDefaults_Configuration's frameworks: `[]string{defaultJobFrameworkName}` (asserted)."""
    if not re.search(r"Integrations\.Frameworks = \[\]string\{defaultJobFrameworkName\}", text):
        raise SystemExit(f"{DEFAULTS}: the default of integrations.frameworks is no longer batch/job alone; read it")
    return ["batch/job"]


def extract(repo: Path) -> dict:
    releases = {}
    minor = FIRST_MINOR
    while (tag := _newest_patch(repo, minor)) is not None:
        commit = _git(repo, "rev-parse", f"{tag}^{{commit}}").decode().strip()
        files = {path: _git(repo, "show", f"{tag}:{path}") for path in (DEFAULTS, SHIPPED)}
        shipped = yaml.safe_load(files[SHIPPED])["integrations"]["frameworks"]
        chart = yaml.safe_load(
            yaml.safe_load(_git(repo, "show", f"{tag}:{CHART}"))["managerConfig"]["controllerManagerConfigYaml"]
        )
        if sorted(chart["integrations"]["frameworks"]) != sorted(shipped):
            raise SystemExit(f"{tag}: the Helm chart enables other integrations than {SHIPPED}; record both")
        registered = _registered(repo, tag)
        unknown = set(registered) - set(KINDS)
        if unknown:
            raise SystemExit(
                f"{tag}: integrations this extractor has no kind for: {sorted(unknown)}; add them to KINDS"
            )
        releases[f"0.{minor}"] = {
            "tag": tag,
            "commit": commit,
            "files": {path: hashlib.sha256(data).hexdigest() for path, data in files.items()},
            "registered": registered,
            "apiDefault": _api_default(files[DEFAULTS].decode()),
            "shipped": list(shipped),
        }
        minor += 1
    return {
        "repository": REPOSITORY,
        "queueLabel": "kueue.x-k8s.io/queue-name",
        "about": (
            "registered: the integrations a release has; apiDefault: integrations.frameworks when the Configuration "
            f"names none ({DEFAULTS}); shipped: the frameworks of the release's own manifests ({SHIPPED})"
        ),
        "frameworks": {
            name: {"apiVersion": api, "kind": kind, **({"needs": NEEDS[name]} if name in NEEDS else {})}
            for name, (api, kind) in KINDS.items()
        },
        "releases": releases,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("git_dir", type=Path, help="a clone of kubernetes-sigs/kueue with its tags")
    args = parser.parse_args(argv)
    data = extract(args.git_dir)
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(data, indent=1, sort_keys=False) + "\n", encoding="utf-8")
    print(f"wrote {OUT}: Kueue {', '.join(data['releases'])}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
