"""Where the repository keeps things; every module asks here instead of guessing."""

from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SCHEMA_DIR = REPO / "schemas"
KUBE_SCHEMA_DIR = SCHEMA_DIR / "kubernetes"
PADDLEJOB_SCHEMA = SCHEMA_DIR / "paddlejob.v1.yaml"
LIBSONNET = REPO / "libsonnet"
OPERATOR_LIB = LIBSONNET / "paddle-operator"
GENERATED_LIB = OPERATOR_LIB / "generated"
DEPLOY = REPO / "deploy"
