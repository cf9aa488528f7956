"""One type per version flag, parsed once at the edge (argparse, the Python API), the same way for
both: a Kubernetes release is written "1.30" (or "v1.30.2"); a project release "1.9" ((1, 9)).

KubeVersion is the release's minor number, so releases compare, sort and index as numbers, and it
prints as people write it: str(), repr() and f-strings give "1.30". Which releases this tool knows,
and the newest of them (the default everywhere), is schema.kubernetes's to say.
"""

from __future__ import annotations

import re

from generator.core.errors import InputError

_KUBE = re.compile(r"^v?1\.(\d{1,3})(?:\.\d{1,4})?$")


class KubeVersion(int):
    """A Kubernetes release 1.N, held as N."""

    __slots__ = ()

    def __new__(cls, minor: int) -> KubeVersion:
        if isinstance(minor, bool) or not isinstance(minor, int) or minor < 0:
            raise InputError(f"{minor!r} is not a Kubernetes minor version")
        return super().__new__(cls, minor)

    @classmethod
    def parse(cls, value: str | int | KubeVersion) -> KubeVersion:
        """'1.30', 'v1.30.2' (or a KubeVersion, or the minor number as an int) -> KubeVersion(30)."""
        if isinstance(value, KubeVersion):
            return value
        if isinstance(value, int) and not isinstance(value, bool):
            return cls(value)
        match = _KUBE.match(value.strip()) if isinstance(value, str) else None
        if not match:
            raise InputError(f"{value!r} is not a Kubernetes version; write it as 1.MINOR, e.g. 1.30")
        return cls(int(match.group(1)))

    @property
    def minor(self) -> int:
        return int(self)

    def __str__(self) -> str:
        return f"1.{int(self)}"

    def __repr__(self) -> str:
        return f"KubeVersion('1.{int(self)}')"

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)
