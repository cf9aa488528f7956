"""The string formats the apiserver checks in a CRD's schema: the ones kube-openapi's strfmt
registry knows (k8s.io/kube-openapi/pkg/validation/strfmt, default.go); a format it does not know
is not checked. Also the date-time and duration parsers the CEL values need."""

from __future__ import annotations

import base64
import datetime
import re

from generator.core.grammar import lazy_pattern

_FORMAT_PATTERNS = {
    "uuid": r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$",
    "uuid3": r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$",
    "uuid4": r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$",
    "uuid5": r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$",
    # strfmt's hostname pattern, without its Unicode letter and symbol classes (\p{L}, \p{S}),
    # which Python's re lacks: a name with non-ASCII characters is not checked (_matches)
    "hostname": (
        r"^([a-zA-Z0-9]((-?[a-zA-Z0-9]{0,62})?)|"
        r"([a-zA-Z0-9](([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)(\.)){1,}([a-zA-Z]){2,63})$"
    ),
    "mac": r"^([0-9A-Fa-f]{2}[:-]){5}([0-9A-Fa-f]{2})$|^([0-9A-Fa-f]{4}\.){2}[0-9A-Fa-f]{4}$",
    "hexcolor": r"^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$",
    "email": r"^[^@\s]+@[^@\s]+$",
    "date": r"^\d{4}-\d{2}-\d{2}$",
}


def _matches(name: str):
    pattern = lazy_pattern(_FORMAT_PATTERNS[name])  # most CRDs use no format: compiled when one does
    if name == "hostname":
        return lambda text: not text.isascii() or bool(pattern().match(text))
    return lambda text: bool(pattern().match(text))


def _is_ip(version: int):
    import ipaddress

    def check(text: str) -> bool:
        try:
            return ipaddress.ip_address(text).version == version
        except ValueError:
            return False

    return check


def _is_cidr(text: str) -> bool:
    import ipaddress

    try:
        ipaddress.ip_network(text, strict=False)
    except ValueError:
        return False
    return "/" in text


def is_byte(text: str) -> bool:
    try:
        base64.b64decode(text, validate=True)
    except ValueError:
        return False
    return True


def _is_datetime(text: str) -> bool:
    return parse_datetime(text) is not None


def is_uri(text: str) -> bool:
    # strfmt IsURI: Go's url.ParseRequestURI
    return bool(re.match(r"^([a-zA-Z][a-zA-Z0-9+.-]*:|/)\S*$", text))


def _is_duration(text: str) -> bool:
    return parse_duration(text) is not None


CHECKED_FORMATS = {
    **{name: _matches(name) for name in _FORMAT_PATTERNS},
    "ipv4": _is_ip(4),
    "ipv6": _is_ip(6),
    "cidr": _is_cidr,
    "byte": is_byte,
    "date-time": _is_datetime,
    "datetime": _is_datetime,
    "uri": is_uri,
    "duration": _is_duration,
}


_DATETIME = lazy_pattern(r"^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:?\d{2})?$")


def parse_datetime(text: str) -> datetime.datetime | None:
    """strfmt's date-time (RFC 3339, with or without the zone) as an aware datetime (UTC when
    no zone is given, as the apiserver's CEL environment has DefaultUTCTimeZone)."""
    match = _DATETIME().match(text) if isinstance(text, str) else None
    if not match:
        return None
    year, month, day, hour, minute, second, fraction, zone = match.groups()
    try:
        tz = datetime.UTC
        if zone and zone not in "Zz":
            sign = -1 if zone[0] == "-" else 1
            digits = zone[1:].replace(":", "")
            tz = datetime.timezone(sign * datetime.timedelta(hours=int(digits[:2]), minutes=int(digits[2:])))
        micro = int((fraction or ".0")[1:7].ljust(6, "0"))
        return datetime.datetime(int(year), int(month), int(day), int(hour), int(minute), int(second), micro, tzinfo=tz)
    except ValueError:
        return None


_DURATION_UNITS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}
_DURATION = lazy_pattern(r"(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h|d|w)")


def parse_duration(text: str) -> datetime.timedelta | None:
    """strfmt's duration (Go's time.ParseDuration, plus d and w) as a timedelta."""
    if not isinstance(text, str) or not text:
        return None
    body = text.lstrip("+-")
    if body == "0":
        return datetime.timedelta(0)
    seconds, position = 0.0, 0
    for match in _DURATION().finditer(body):
        if match.start() != position:
            return None
        seconds += float(match.group(1)) * _DURATION_UNITS[match.group(2)]
        position = match.end()
    if position != len(body) or position == 0:
        return None
    return datetime.timedelta(seconds=-seconds if text.startswith("-") else seconds)
