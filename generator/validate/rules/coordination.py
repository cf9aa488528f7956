"""Owner `coordination`: the apiserver's validation of Leases beyond their schema
(k8s.io/kubernetes pkg/apis/coordination/validation/validation.go, ValidateLease, v1.31;
schemas/ledger/coordination-lease.json)."""

from __future__ import annotations

import re

from generator.core.findings import Finding
from generator.validate.rules.base import as_dict, as_int, error, value_text

RULE = "lease"

# metav1.MicroTime.UnmarshalJSON: time.Parse(RFC3339Micro, ...), "2006-01-02T15:04:05.000000Z07:00":
# exactly six digits of fraction, a zone (Z or +hh:mm). A renewTime without them cannot be decoded.
_MICRO_TIME = re.compile(
    r"^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])T([01]\d|2[0-3]):[0-5]\d:[0-5]\d\.\d{6}(Z|[+-]([01]\d|2[0-3]):[0-5]\d)$"
)


def lease_findings(obj: dict, releases: tuple[int, ...]) -> list[Finding]:
    """ValidateLeaseSpec: leaseDurationSeconds above 0, leaseTransitions not negative; and the
    timestamps (acquireTime, renewTime) as MicroTime decodes them. strategy and preferredHolder
    are dropped on create while CoordinatedLeaderElection is off (alpha in 1.31, off by default),
    so their checks never run there."""
    spec = as_dict(obj.get("spec"))
    out = []
    duration = as_int(spec.get("leaseDurationSeconds"))
    if duration is not None and duration <= 0:
        message = f"leaseDurationSeconds must be greater than 0, got {duration}"
        out.append(error("spec.leaseDurationSeconds", RULE, message))
    transitions = as_int(spec.get("leaseTransitions"))
    if transitions is not None and transitions < 0:
        message = f"leaseTransitions must be greater than or equal to 0, got {transitions}"
        out.append(error("spec.leaseTransitions", RULE, message))
    for field in ("acquireTime", "renewTime"):
        value = spec.get(field)
        if isinstance(value, str) and not _MICRO_TIME.match(value):
            message = (
                f"{field} {value_text(value)} cannot be decoded as a MicroTime: it takes RFC 3339 with six digits of "
                "fraction and a zone, e.g. 2024-05-01T12:00:00.000000Z"
            )
            out.append(error(f"spec.{field}", RULE, message))
    return out
