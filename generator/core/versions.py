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


class Release(tuple):
    """A third-party project's release MAJOR.MINOR (Volcano 1.9, JobSet 0.6): a (major, minor)
    tuple, so releases compare and sort as numbers and key the pinned CRDs, printed as written."""

    __slots__ = ()

    def __new__(cls, major: int, minor: int) -> Release:
        return super().__new__(cls, (int(major), int(minor)))

    @classmethod
    def parse(cls, value: str | tuple[int, int] | Release) -> Release:
        """'1.9', 'v1.9.2' (or a (major, minor) pair) -> Release(1, 9)."""
        if isinstance(value, Release):
            return value
        if isinstance(value, tuple) and len(value) == 2 and all(isinstance(v, int) for v in value):
            return cls(*value)
        text = value.strip().removeprefix("v") if isinstance(value, str) else ""
        major, _, rest = text.partition(".")
        minor = rest.partition(".")[0]
        if not (major.isdigit() and minor.isdigit() and len(major) < 4 and len(minor) < 4):
            raise InputError(f"expected a release like 1.9, got {value!r}")
        return cls(int(major), int(minor))

    def __getnewargs__(self) -> tuple[int, int]:
        return (self[0], self[1])

    @property
    def major(self) -> int:
        return self[0]

    @property
    def minor(self) -> int:
        return self[1]

    def __str__(self) -> str:
        return f"{self[0]}.{self[1]}"

    def __repr__(self) -> str:
        return f"Release('{self[0]}.{self[1]}')"

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)
