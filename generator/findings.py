"""A finding: one thing wrong (error) or worth a look (warning) in one object."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Finding:
    severity: str  # "error" or "warning"
    path: str  # dotted, with indexes: spec.template.spec.containers[0].image
    rule: str  # a short stable id, e.g. "schema", "unknown-field", "crd-size"
    message: str

    @property
    def is_error(self) -> bool:
        return self.severity == "error"


def dotted(parts) -> str:
    """['spec', 'containers', 0, 'image'] -> 'spec.containers[0].image'."""
    out = ""
    for part in parts:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out


def split_path(path: str) -> list:
    """'spec.containers[0].image' -> ['spec', 'containers', 0, 'image']."""
    parts: list = []
    for piece in path.replace("]", "").split(".") if path else []:
        name, *indexes = piece.split("[")
        if name:
            parts.append(name)
        parts.extend(int(i) if i.isdigit() else i for i in indexes)
    return parts


def version_span(minors: list[int]) -> str:
    """[16, 17, 18, 22] -> 'Kubernetes 1.16-1.18, 1.22'."""
    spans, start = [], None
    ordered = sorted(minors)
    for i, minor in enumerate(ordered):
        if start is None:
            start = minor
        if i + 1 == len(ordered) or ordered[i + 1] != minor + 1:
            spans.append(f"1.{start}" if start == minor else f"1.{start}-1.{minor}")
            start = None
    return "Kubernetes " + ", ".join(spans)
