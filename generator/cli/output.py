"""What the handlers write on standard output: manifests as YAML (one stream, kubectl's order)
or JSON (one object, or a v1 List, as kubectl prints them); `job`, `render --out -` and
`convert` share it."""

from __future__ import annotations

import sys

from generator.kubeyaml.dump import dump_documents, dump_json
from generator.render import publish


def write_manifests(manifests: list[dict], output: str, schemas: str | None = None) -> None:
    """To stdout; with ``schemas`` (a path or URL of schemas/jsonschema), each custom-kind YAML
    document starts with the yaml-language-server comment naming its schema."""
    if output == "json":
        sys.stdout.write(dump_json(manifests))
    else:
        comment = (lambda obj: publish.modeline(obj, schemas.rstrip("/"))) if schemas else None
        sys.stdout.write(dump_documents(manifests, comment=comment))
