"""The value grammar of Kubernetes: names, labels, quantities, image references, port names.

Used by the rules, by the CLI's flag checks and by `render --params`, so each grammar (and its
message) is written once. Sources: apimachinery's validation package (names, labels),
resource.Quantity (quantities), distribution/reference (images)."""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable
from decimal import Decimal, InvalidOperation


def lazy_pattern(text: str, flags: int = 0) -> Callable[[], re.Pattern[str]]:
    """A regex compiled on its first use: for grammars only some kinds or inputs need
    (compiling them all would slow every start-up, about 0.1 to 1 ms each). Call it for the
    pattern: ``_IANA_SVC_NAME().match(name)``."""
    return functools.cache(lambda: re.compile(text, flags))


DNS1123_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")

DNS1123_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")

DNS1035_LABEL = re.compile(r"^[a-z]([-a-z0-9]*[a-z0-9])?$")

QUALIFIED_NAME = re.compile(r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$")

LABEL_VALUE = re.compile(r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$")

# resource.Quantity's serialization format (k8s.io/apimachinery/pkg/api/resource/quantity.go):
# <number> ::= <digits> | <digits>.<digits> | <digits>. | .<digits>, then a suffix
QUANTITY = re.compile(r"^([+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))([eE][+-]?[0-9]+|[KMGTPE]i|[numkMGTPE]|)$")

_SUFFIX: dict[str, Decimal | int] = {
    "": 1,
    "n": Decimal("1e-9"),
    "u": Decimal("1e-6"),
    "m": Decimal("1e-3"),
    "k": 10**3,
    "M": 10**6,
    "G": 10**9,
    "T": 10**12,
    "P": 10**15,
    "E": 10**18,
    "Ki": 2**10,
    "Mi": 2**20,
    "Gi": 2**30,
    "Ti": 2**40,
    "Pi": 2**50,
    "Ei": 2**60,
}

PULL_POLICIES = ("Always", "IfNotPresent", "Never")

RESTART_POLICIES = ("Always", "OnFailure", "Never")

DNS_POLICIES = ("ClusterFirstWithHostNet", "ClusterFirst", "Default", "None")

PROTOCOLS = ("TCP", "UDP", "SCTP")


def parse_quantity(text: object) -> Decimal | None:
    """A Kubernetes quantity ('100m', '1.5Gi', '2e3', '1Ei', 4) as a number; None if it is not one
    (or its exponent is beyond ±1000, which no resource needs and Decimal arithmetic would choke on)."""
    if isinstance(text, str):  # the usual case first
        return _parse_quantity_text(text)
    if isinstance(text, bool):
        return None
    if isinstance(text, float) and not math.isfinite(text):
        return None
    if isinstance(text, int | float):
        return Decimal(str(text))
    return None


@functools.lru_cache(maxsize=4096)  # quantities repeat across documents ('500m', '1Gi'); Decimal is immutable
def _parse_quantity_text(text: str) -> Decimal | None:
    match = QUANTITY.match(text)
    if not match:
        return None
    try:
        number = Decimal(match.group(1))
    except InvalidOperation:
        return None
    suffix = match.group(2)
    if suffix[:1] in ("e", "E") and len(suffix) > 1 and suffix[1] != "i":
        if len(suffix) > 6:  # more than ±99999: beyond any quantity (and int() of it can be slow)
            return None
        exponent = int(suffix[1:])
        return number.scaleb(exponent) if abs(exponent) <= 1000 else None
    return number * _SUFFIX[suffix]


# The image reference grammar (github.com/distribution/reference, regexp.go): the kubelet
# fails a pod with InvalidImageName on anything else.
_COMPONENT = r"[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*"

_HOST_PART = r"[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?"

_DOMAIN = rf"(?:{_HOST_PART}(?:\.{_HOST_PART})*|\[[0-9a-fA-F:]+\])"

IMAGE_REFERENCE = re.compile(
    rf"^(?:{_DOMAIN}(?::[0-9]+)?/)?{_COMPONENT}(?:/{_COMPONENT})*"
    r"(?::[\w][\w.-]{0,127})?(?:@[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9A-Fa-f]{32,})?$"
)


def image_problem(image: object) -> str | None:
    """Why ``image`` is not a usable container image reference, or None."""
    return _image_text_problem(image) if isinstance(image, str) else "image is required"


@functools.lru_cache(maxsize=4096)  # images repeat across documents
def _image_text_problem(image: str) -> str | None:
    if not image.strip():
        return "image is required"
    if image != image.strip():
        return f"image {image!r} has leading or trailing whitespace, which the apiserver rejects"
    if image.startswith("ko://"):
        return (
            f"{image[:80]!r} is a ko import path, not an image: this file is input to ko, which builds the Go "
            "package and writes the image's digest here; check what the cluster receives: "
            "ko resolve -f FILE | paddlejob-manifests validate -"
        )
    if len(image) > 4096 or not IMAGE_REFERENCE.match(image):
        return (
            f"{image[:80]!r} is not an image reference (REGISTRY/PATH:TAG or @sha256:DIGEST, lower-case path); "
            "the kubelet would fail the pod with InvalidImageName"
        )
    return None


_DOMAIN_PATH = lazy_pattern(r"^[A-Za-z0-9/\-._~%!$&'()*+,;=:]+$")  # apimachinery httpPathFmt


def is_domain_prefixed_path(value: str) -> bool:
    """apimachinery's validation.IsDomainPrefixedPath: `<DNS-1123 subdomain>/<HTTP path>`, as an
    IngressClass's controller or a TrainJob's runtime-patch manager (e.g. acme.io/foo)."""
    host, slash, path = value.partition("/")
    return bool(slash and path and DNS1123_SUBDOMAIN.match(host) and _DOMAIN_PATH().match(path))


_BINARY_SUFFIXES = (("Ei", 1024**6), ("Pi", 1024**5), ("Ti", 1024**4), ("Gi", 1024**3), ("Mi", 1024**2), ("Ki", 1024))


def quantity_text(value: Decimal) -> str:
    """A parsed quantity written as a quantity: a whole number of the largest binary unit that
    divides it (2684354560 -> 2560Mi, as apimachinery's Quantity.String writes a sum of memory),
    else a whole number, else millis (1.1 -> 1100m), else the decimal."""
    if value == value.to_integral_value():
        whole = int(value)
        for suffix, size in _BINARY_SUFFIXES:
            if whole and whole % size == 0:
                return f"{whole // size}{suffix}"
        return str(whole)
    millis = value * 1000
    if millis == millis.to_integral_value():
        return f"{int(millis)}m"
    return format(value.normalize(), "f")


def quantity_message(value: object) -> str:
    return f"{value!r} is not a Kubernetes quantity (e.g. 500m, 2, 1.5Gi)"


def name_problem(value: object, pattern: re.Pattern[str], limit: int, what: str) -> str | None:
    if not isinstance(value, str) or not value:
        return f"{what} is required"
    if len(value) > limit:
        return f"{value!r} is {len(value)} characters; a {what} has at most {limit}"
    if not pattern.match(value):
        return f"{value!r} is not a valid {what}: use {_SPELLING[pattern]}"
    return None


_SPELLING = {
    DNS1123_LABEL: "lower-case letters, digits and '-', starting and ending with a letter or digit",
    DNS1123_SUBDOMAIN: "lower-case letters, digits, '-' and '.', starting and ending with a letter or digit",
    DNS1035_LABEL: "lower-case letters, digits and '-', starting with a letter and ending with a letter or digit",
}


def path_segment_problem(value: object, what: str) -> str | None:
    """Why ``value`` cannot be a name in a URL path segment (apimachinery's
    path.IsValidPathSegmentName, which the apiserver's storage key functions apply to every
    object's name): '.', '..', or a name with '/' or '%'."""
    if not isinstance(value, str) or not value:
        return f"{what} is required"
    if value in (".", ".."):
        return f"{value!r} is not a valid {what}: it may not be '.' or '..'"
    bad = [c for c in ("/", "%") if c in value]
    if bad:
        return f"{value!r} is not a valid {what}: it may not contain " + " or ".join(repr(c) for c in bad)
    return None


def label_value_problem(value: object, key: object) -> str | None:
    """Why ``value`` is not a label value (the one spelling of that rule: rules, flags, params)."""
    if isinstance(value, str) and len(value) <= 63 and LABEL_VALUE.match(value):
        return None
    of = f" of {key!r}" if isinstance(key, str) else ""  # another key is the schema's finding
    return (
        f"label value {value!r}{of} must be at most 63 characters of letters, digits, '-', '_' "
        "or '.', starting and ending with a letter or digit"
    )


@functools.lru_cache(maxsize=4096)  # keys repeat across documents; bounded like the scalar cache
def label_key_problem(key: object, what: str = "label") -> str | None:
    """Why ``key`` is not a label (or annotation) key: [DNS-1123 subdomain/]qualified name."""
    if not isinstance(key, str):
        return f"{what} key {key!r} must be a string"
    prefix, slash, name = key.rpartition("/")
    if slash and not prefix:  # IsQualifiedName: "prefix part must be non-empty"
        return f"{what} key {key!r}: the prefix before '/' must not be empty"
    if prefix and (len(prefix) > 253 or not DNS1123_SUBDOMAIN.match(prefix)):
        return f"{what} key prefix {prefix!r} must be a DNS-1123 subdomain"
    if len(name) > 63 or not QUALIFIED_NAME.match(name):
        return (
            f"{what} key name {name!r} must be at most 63 characters of letters, "
            "digits, '-', '_' or '.', starting and ending with a letter or digit"
        )
    return None


_CONFIG_KEY = lazy_pattern(r"^[-._a-zA-Z0-9]+$")


def config_key_problem(key: object) -> str | None:
    """IsConfigMapKey (apimachinery util/validation): a file name for a volume."""
    if not isinstance(key, str) or not key:
        return "a key must not be empty"
    if len(key) > 253:
        return f"key {key[:40]!r}... is {len(key)} characters; at most 253"
    if not _CONFIG_KEY().match(key):
        return f"key {key!r} must be letters, digits, '-', '_' or '.'"
    if key in (".", "..") or key.startswith(".."):
        return f"key {key!r} must not be '.' or '..' or start with '..'"
    return None


_IANA_SVC_NAME = lazy_pattern(r"^[a-z0-9]([a-z0-9-]*[a-z0-9])?$")


def port_name_problem(name: str) -> str | None:
    """Why ``name`` is not a port name (IANA_SVC_NAME: at most 15 lower-case letters, digits and
    '-', a letter among them, no '--', no '-' at either end)."""
    if len(name) > 15:
        return f"port name {name!r} is {len(name)} characters; at most 15"
    if not _IANA_SVC_NAME().match(name) or "--" in name:
        return f"port name {name!r} must be lower-case letters, digits and single '-', not at either end"
    if name.isdigit():
        return f"port name {name!r} must contain a letter: digits alone would read as a port number"
    return None


# CEL's reserved words (k8s.io/apiserver pkg/cel/escaping.go celReserved; admissionregistration
# validation's celReserved is the same list): not a property name as a rule spells it, nor a
# ValidatingAdmissionPolicy variable's name
CEL_RESERVED_WORDS = frozenset(
    {
        "true", "false", "null", "in", "as", "break", "const", "continue", "else", "for", "function", "if",
        "import", "let", "loop", "package", "namespace", "return", "var", "void", "while",
    }
)  # fmt: skip
