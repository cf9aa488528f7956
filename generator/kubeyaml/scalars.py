"""YAML scalars as kubectl and the apiserver read them, and how to write strings they read back.

kubectl decodes YAML with sigs.k8s.io/yaml: go-yaml v2 resolves each plain scalar, then the
result is converted to JSON. That differs from PyYAML's YAML 1.1 resolver in ways that
matter for manifests (tests/test_kubectl_yaml.py checks this module against kubectl itself):

- `y`, `Y`, `n`, `N` are booleans; `1e3` and `08` are numbers; `0o17` and `0b101` are integers;
  `12:30` (YAML 1.1 sexagesimal) and `=` are strings;
- a number too large for int64/uint64 is a float, and one too large for a float stays a string;
- a float with no fraction becomes a JSON integer (`1e3` is 1000) on the JSON round trip;
- `.nan` and `.inf` resolve, but JSON cannot carry them: kubectl fails on them;
- mapping keys become strings: `y:` is the key "true", `0x10:` is "16", a null key is an error.

Sources: sigs.k8s.io/yaml (yaml.go: yamlToJSON, the key conversion) and its vendored
goyaml.v2 (resolve.go: resolveTable, resolveMap, resolve; decode.go: timestamps decoded
into interface{} stay strings).
"""

from __future__ import annotations

import base64
import binascii
import functools
import math
import re
import struct
from collections.abc import Callable
from decimal import Decimal

STR, INT, FLOAT = "tag:yaml.org,2002:str", "tag:yaml.org,2002:int", "tag:yaml.org,2002:float"
BOOL, NULL, TIMESTAMP = "tag:yaml.org,2002:bool", "tag:yaml.org,2002:null", "tag:yaml.org,2002:timestamp"
BINARY, MERGE = "tag:yaml.org,2002:binary", "tag:yaml.org,2002:merge"
MAP, SEQ = "tag:yaml.org,2002:map", "tag:yaml.org,2002:seq"

# Tags go-yaml v2 resolves (resolvableTag); any other tag on a scalar leaves it a string.
RESOLVABLE = frozenset({STR, INT, FLOAT, BOOL, NULL, TIMESTAMP})

_TRUE = frozenset({"y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"})
_FALSE = frozenset({"n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"})
_NULLS = frozenset({"", "~", "null", "Null", "NULL"})
_SPECIAL_FLOATS = {
    **dict.fromkeys((".nan", ".NaN", ".NAN"), math.nan),
    **dict.fromkeys((".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF"), math.inf),
    **dict.fromkeys(("-.inf", "-.Inf", "-.INF"), -math.inf),
}
_GO_FLOAT = re.compile(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?\Z")  # yamlStyleFloat
_TIMESTAMP_FORMATS = (
    re.compile(r"\d{4}-\d{1,2}-\d{1,2}[Tt]\d{1,2}:\d{1,2}:\d{1,2}(\.\d+)?(Z|[+-]\d{2}:\d{2})\Z"),
    re.compile(r"\d{4}-\d{1,2}-\d{1,2} \d{1,2}:\d{1,2}:\d{1,2}(\.\d+)?\Z"),
    re.compile(r"\d{4}-\d{1,2}-\d{1,2}\Z"),
)
_INT64 = 1 << 63
_UINT64 = 1 << 64
_DIGITS = {16: "0123456789abcdefABCDEF", 10: "0123456789", 8: "01234567", 2: "01"}


class DecodeError(ValueError):
    """What kubectl would fail on; the message says what and why."""


def _go_parse_int(text: str, unsigned: bool) -> int | None:
    """strconv.ParseInt/ParseUint(text, 0, 64) after go-yaml removed the underscores."""
    sign, body = 1, text
    if body[:1] in "+-" and not unsigned:
        sign, body = (-1 if body[0] == "-" else 1), body[1:]
    base = 10
    if len(body) > 1 and body[0] == "0":
        prefix = body[1].lower()
        base, body = {"x": (16, body[2:]), "o": (8, body[2:]), "b": (2, body[2:])}.get(prefix, (8, body[1:]))
    if not body or len(body) > 70 or body.strip(_DIGITS[base]):  # a character that is no digit is left
        return None
    value = sign * int(body, base)
    if unsigned:
        return value if value < _UINT64 else None
    return value if -_INT64 <= value < _INT64 else None


def json_number(value: int | float) -> int | float:
    """A number after kubectl's JSON round trip: an integral float within int64 reads back as an
    integer, and an integer beyond int64 (a uint64) as a float."""
    if value.__class__ is int:
        return value if -_INT64 <= value < _INT64 else float(value)
    if isinstance(value, float) and value.is_integer():
        # encoding/json writes the shortest decimal ("-9223372036854776000"), read back as int64 if it fits
        whole = int(Decimal(repr(value)))
        if -_INT64 <= whole < _INT64:
            return whole
    return value


def _is_timestamp(text: str) -> bool:
    return len(text) > 4 and text[4] == "-" and text[:4].isdigit() and any(f.match(text) for f in _TIMESTAMP_FORMATS)


CACHED_LENGTH = 64  # longer scalars are not cached: a cache of megabyte strings is no cache


def resolve_plain(text: str) -> tuple[str, object]:
    """(tag, value) of a plain (unquoted, untagged) scalar, as go-yaml v2 resolves it."""
    return _resolve_cached(text) if len(text) <= CACHED_LENGTH else _resolve(text)


@functools.lru_cache(maxsize=8192)  # bounded in entries, and short keys only: bounded in memory
def _resolve_cached(text: str) -> tuple[str, object]:
    return _resolve(text)


def plain_is_string(text: str) -> bool:
    """Whether go-yaml v2 resolves a plain scalar to a string. Not cached: the fast reader keeps
    its own answers, and most strings it asks about are new ones (a name, a number per object)."""
    return _resolve(text)[0] == STR


def _resolve(text: str) -> tuple[str, object]:
    if not text:
        return NULL, None
    first = text[0]
    if first in "yYnNtTfFoO~":
        if text in _TRUE:
            return BOOL, True
        if text in _FALSE:
            return BOOL, False
        if text in _NULLS:
            return NULL, None
        return STR, text
    if first == ".":
        if text in _SPECIAL_FLOATS:
            return FLOAT, _SPECIAL_FLOATS[text]
        try:
            return FLOAT, float(text)
        except ValueError:
            return STR, text
    if first not in "+-0123456789":
        return (NULL, None) if text in _NULLS else (STR, text)
    if text in _SPECIAL_FLOATS:
        return FLOAT, _SPECIAL_FLOATS[text]
    if _is_timestamp(text):
        return TIMESTAMP, text  # decoded into interface{}, a timestamp stays the string it was
    plain = text.replace("_", "")
    for unsigned in (False, True):
        number = _go_parse_int(plain, unsigned)
        if number is not None:
            return INT, number
    if _GO_FLOAT.match(plain):
        value = float(plain)
        if math.isfinite(value):  # strconv.ParseFloat fails out of range: then it is a string
            return FLOAT, value
    elif plain.startswith(("0b", "-0b")):
        number = _go_parse_int(plain, False)
        if number is not None:
            return INT, number
    return STR, text


def tagged(tag: str, text: str) -> object:
    """The value of a scalar with an explicit core tag (`!!int 12`), or DecodeError as kubectl fails."""
    if tag == STR:
        return text
    if tag == BINARY:
        try:
            return base64.b64decode(text.encode("ascii"), validate=False).decode("utf-8")
        except (binascii.Error, UnicodeError, ValueError):
            raise DecodeError(f"!!binary {text[:40]!r} is not base64-encoded UTF-8 text") from None
    resolved, value = resolve_plain(text)
    if resolved == tag or (tag == FLOAT and resolved == INT):
        return value
    if tag == TIMESTAMP and resolved == STR:
        raise DecodeError(f"!!timestamp {text[:40]!r} is not a timestamp")
    short = tag.rsplit(":", 1)[-1]
    raise DecodeError(f"cannot decode !!{resolved.rsplit(':', 1)[-1]} {text[:40]!r} as a !!{short}")


def _float32_shortest(value: float) -> str:
    """strconv.FormatFloat(value, 'g', -1, 32): the shortest digits that read back as the float32."""
    try:
        (single,) = struct.unpack("f", struct.pack("f", value))
    except OverflowError:
        single = math.copysign(math.inf, value)
    if math.isinf(single):
        return ".inf" if single > 0 else "-.inf"  # Go's "+Inf", as sigs.k8s.io/yaml spells it
    if single == 0:
        return "0" if math.copysign(1, single) > 0 else "-0"
    for digits in range(1, 10):
        mantissa = f"{single:.{digits - 1}e}"
        (back,) = struct.unpack("f", struct.pack("f", float(mantissa)))
        if back == single:
            break
    coefficient, exponent = mantissa.split("e")
    exp = int(exponent)
    coefficient = coefficient.rstrip("0").rstrip(".") if "." in coefficient else coefficient
    if exp < -4 or exp >= 6:  # shortest 'g' in Go: %e below 1e-4 and from 1e6 on
        return f"{coefficient}e{'-' if exp < 0 else '+'}{abs(exp):02d}"
    return repr(float(f"{coefficient}e{exp}")).removesuffix(".0")


def key_string(value: object) -> str:
    """A mapping key as sigs.k8s.io/yaml turns it into a JSON object key."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        if value >= _INT64:
            raise DecodeError(f"the key {value} is a uint64, which kubectl cannot use as a key (unsupported map key)")
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return ".nan"
        if math.isinf(value):
            return ".inf" if value > 0 else "-.inf"
        return _float32_shortest(value)
    raise DecodeError("a mapping key must not be null (kubectl: unsupported map key of type nil)")


# -- writing -------------------------------------------------------------------------------------


def plain_tag(value: str) -> str:
    """The tag a plain scalar gets: str only when both kubectl and YAML 1.1 tools read a string.

    The YAML writer asks this to decide whether a string can be written without quotes, so
    `y`, `1e3` or `08` are quoted and every reader gets the string back."""
    return _plain_tag_cached(value) if len(value) <= CACHED_LENGTH else _plain_tag(value)


@functools.lru_cache(maxsize=8192)
def _plain_tag_cached(value: str) -> str:
    return _plain_tag(value)


@functools.cache
def _pyyaml_resolver() -> Callable[[str, tuple[bool, bool]], str]:
    """PyYAML's YAML 1.1 resolver (imported here: reading manifests with rapidyaml needs no PyYAML)."""
    from yaml.nodes import ScalarNode
    from yaml.resolver import Resolver

    resolver = Resolver()
    resolve: Callable[[str, tuple[bool, bool]], str] = functools.partial(resolver.resolve, ScalarNode)
    return resolve


def _plain_tag(value: str) -> str:
    ours = _pyyaml_resolver()(value, (True, False))
    if ours != STR:
        return ours
    go, _ = resolve_plain(value)
    return go
