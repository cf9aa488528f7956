"""Where the repository keeps things; every module asks here instead of guessing.

In a checkout the data lives at the top of the repository; an installed package carries
the same folders as generator/_data/ (see pyproject.toml), and they win when present.
"""

from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent  # generator/
REPO = PACKAGE.parent
_PACKAGED = PACKAGE / "_data"
_DATA = _PACKAGED if (_PACKAGED / "schemas").is_dir() else REPO

SCHEMA_DIR = _DATA / "schemas"
KUBE_SCHEMA_DIR = SCHEMA_DIR / "kubernetes"
JSONSCHEMA_DIR = SCHEMA_DIR / "jsonschema"
PADDLEJOB_SCHEMA = SCHEMA_DIR / "paddlejob.v1.yaml"
LIBSONNET = _DATA / "libsonnet"
OPERATOR_LIB = LIBSONNET / "paddle-operator"
GENERATED_LIB = OPERATOR_LIB / "generated"
# The runtimes a job renders for (plain JSON: jsonnet and Python both read it)
RUNTIMES_FILE = LIBSONNET / "paddlejob" / "runtimes.json"
DEPLOY = Path("deploy") if not (REPO / "deploy").is_dir() else REPO / "deploy"
