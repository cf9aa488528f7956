"""The CEL environment the apiserver gives a CRD's x-kubernetes-validations rules, per release.

The expressions run on Google's cel-cpp (the cel-expr-python package): the CEL language, its
macros (all, exists, exists_one, map, filter, has) and its standard functions come from there.
On top of it this module adds the Kubernetes libraries each release declares in
k8s.io/apiserver/pkg/cel/environment/base.go (baseOptsWithoutStrictCost), ported from
k8s.io/apiserver/pkg/cel/library:

    1.0+   ext.Strings (version 0; version 2 from 1.29), library.URLs, library.Regex, library.Lists
    1.28+  optional types, library.Quantity
    1.29+  ext.Sets
    1.30+  library.IP, library.CIDR
    1.33+  library.SemverLib

    1.31+  library.Format (format.named, format.dns1123Label(), ... and Format.validate)

Not here: two-variable comprehensions (1.32) and library.Image (1.33). A rule that uses
them does not compile, and the caller says so in a finding instead of passing it.

Values of the library types (Quantity, URL, IP, CIDR, Semver) are CEL maps with one marker key,
so cel-cpp can carry them between functions; the map holds their canonical form, so CEL's `==`
agrees with the library types' Equal (quantity("1") == quantity("1000m")).

Cost: cel-cpp's Python binding (cel-expr-python 0.1.3) has no cost tracker: cel.Expression has
only eval(activation, data, functions, arena), return_type() and serialize(), with neither a cost
result nor a limit. So the per-call limit (PerCallLimit, 1,000,000, k8s.io/apiserver
pkg/apis/cel/config.go) and the per-object budget (RuntimeCELCostBudget, 10,000,000) are not
enforced when a rule runs; docs/validate.md ("cost limits") says so. The CRD-creation estimate
(apiextensions-apiserver pkg/apiserver/schema/cel/compilation.go) is: celcost.py estimates it
from the checked expression serialize() gives.

Regexes: the apiserver runs find() and findAll() on RE2, which never backtracks; here they run
on Python's re, which agrees on the patterns CRDs use but can backtrack for ever on a hostile
one (`(a+)+$` on 30 characters takes hours). So each evaluation of a rule may spend at most
REGEX_SECONDS in them, and each rule REGEX_TOTAL_SECONDS in slow calls over a run: past that the
rule is not evaluated (a warning that says so, naming the rule), a limit of this tool.
(`matches` is cel-cpp's own, on RE2.)
"""

from __future__ import annotations

import functools
import ipaddress
import re
import threading
import urllib.parse
from dataclasses import dataclass
from decimal import Decimal

from cel_expr_python import cel
from cel_expr_python.ext import ext_optional, ext_strings

from generator.core.grammar import parse_quantity
from generator.core.versions import KubeVersion
from generator.validate.crd import deadline

_DYN = cel.Type.DYN
_INT, _STRING, _BOOL, _DOUBLE = cel.Type.INT, cel.Type.STRING, cel.Type.BOOL, cel.Type.DOUBLE
_OPAQUE = cel.Type.Map(_STRING, _DYN)  # a value of a library type: {"@k8s": TYPE, ...}
_LIST = cel.Type.List(_DYN)
# cel-cpp matches a `dyn` parameter of a Python function to no runtime value, so the functions
# that take a list element are declared once per element type a schema can give.
_ELEMENTS = (_INT, _DOUBLE, _STRING, _BOOL, _OPAQUE, _LIST)

MARK = "@k8s"

# library/format.go's formats
_FORMAT_NAMES = (
    "dns1123Label",
    "dns1123Subdomain",
    "dns1035Label",
    "qualifiedName",
    "dns1123LabelPrefix",
    "dns1123SubdomainPrefix",
    "dns1035LabelPrefix",
    "labelValue",
    "uri",
    "uuid",
    "byte",
    "date",
    "datetime",
)

# Release -> library, as base.go introduces them; the names are for messages.
QUANTITY_SINCE, SETS_SINCE, IP_SINCE, FORMAT_SINCE, TWO_VAR_SINCE, SEMVER_SINCE = 28, 29, 30, 31, 32, 33
STRINGS_V2_SINCE = 29
_FUNCTIONS_SINCE = {
    "quantity": QUANTITY_SINCE,
    "isQuantity": QUANTITY_SINCE,
    "sets.contains": SETS_SINCE,
    "sets.equivalent": SETS_SINCE,
    "sets.intersects": SETS_SINCE,
    "ip": IP_SINCE,
    "isIP": IP_SINCE,
    "ip.isCanonical": IP_SINCE,
    "cidr": IP_SINCE,
    "isCIDR": IP_SINCE,
    "semver": SEMVER_SINCE,
    "isSemver": SEMVER_SINCE,
    "format.named": FORMAT_SINCE,
    **{f"format.{name}": FORMAT_SINCE for name in _FORMAT_NAMES},
}
# Kubernetes functions this engine cannot evaluate (see the module's docstring).
UNSUPPORTED = {
    "image": SEMVER_SINCE,
    "isImage": SEMVER_SINCE,
    "transformList": TWO_VAR_SINCE,
    "transformMap": TWO_VAR_SINCE,
    "transformMapEntry": TWO_VAR_SINCE,
}


# `list.all(i, v, ...)`: ext.TwoVarComprehensions (1.32), which cel-cpp's Python binding lacks
_TWO_VARIABLES = re.compile(r"\.(all|exists|existsOne|exists_one)\(\s*\w+\s*,\s*\w+\s*,")


class CelProblem(ValueError):
    """A rule that cannot be compiled here; ``unsupported`` names the function if that is why."""

    def __init__(self, message: str, unsupported: str | None = None):
        super().__init__(message)
        self.unsupported = unsupported


# -- library values ---------------------------------------------------------------------------


def _opaque(kind: str, **fields) -> dict:
    return {MARK: kind, **fields}


def _kind(value) -> str | None:
    return value.get(MARK) if isinstance(value, dict) else None


def _need(value, *kinds: str) -> dict:
    if _kind(value) not in kinds:
        raise TypeError(f"no such overload: expected {' or '.join(kinds)}")
    return value


# library/quantity.go


def _quantity(text: str) -> dict:
    number = parse_quantity(text) if isinstance(text, str) else None
    if number is None:
        raise ValueError(f"quantities must match the regular expression, got {text!r}")
    return _quantity_of(number)


def _quantity_of(number: Decimal) -> dict:
    normal = number.normalize()
    return _opaque("quantity", value=format(normal, "f") if normal == normal.to_integral_value() else str(normal))


def _number(value) -> Decimal:
    if isinstance(value, int) and not isinstance(value, bool):
        return Decimal(value)
    return Decimal(_need(value, "quantity")["value"])


def _int64(number: Decimal) -> int | None:
    if number != number.to_integral_value():
        return None
    whole = int(number)
    return whole if -(2**63) <= whole < 2**63 else None


def _as_integer(value) -> int:
    whole = _int64(_number(value))
    if whole is None:
        raise ValueError("cannot convert value to integer")
    return whole


# library/semverlib.go


_SEMVER = re.compile(
    r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)"
    r"(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?"
    r"(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$"
)


def _semver(text: str) -> dict:
    match = _SEMVER.match(text) if isinstance(text, str) else None
    if not match:
        raise ValueError(f"could not parse {text!r} as semver")
    major, minor, patch, pre, _ = match.groups()
    return _opaque("semver", major=int(major), minor=int(minor), patch=int(patch), pre=pre or "")


def _semver_key(value: dict) -> tuple:
    # blang/semver Compare: a version without pre-release is greater than one with
    pre = value["pre"]
    parts = tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in pre.split(".")) if pre else ()
    return (value["major"], value["minor"], value["patch"], not pre, parts)


def _compare(a, b) -> int:
    if _kind(a) == "semver":
        left, right = _semver_key(a), _semver_key(_need(b, "semver"))
    else:
        left, right = _number(a), _number(b)
    return (left > right) - (left < right)


# library/urls.go: url() is Go's url.ParseRequestURI: an absolute URI, or an absolute path.


def _url(text: str) -> dict:
    if not isinstance(text, str) or not text or "#" in text:
        raise ValueError(f"URL parse error during conversion from string: {text!r}")
    parts = urllib.parse.urlsplit(text)
    if not (parts.scheme or text.startswith("/")) or any(c in text for c in " \t\n"):
        raise ValueError(f"URL parse error during conversion from string: {text!r}")
    try:
        port = parts.port
    except ValueError:
        raise ValueError(f"URL parse error during conversion from string: invalid port in {text!r}") from None
    host = parts.netloc.rpartition("@")[2]
    return _opaque(
        "url",
        scheme=parts.scheme,
        host=host,
        hostname=parts.hostname or "",
        port="" if port is None else str(port),
        path=parts.path,
        query=parts.query,
    )


def _query(value) -> dict:
    out: dict[str, list[str]] = {}
    for key, item in urllib.parse.parse_qsl(_need(value, "url")["query"], keep_blank_values=True):
        out.setdefault(key, []).append(item)
    return out


# library/ip.go and cidr.go: Kubernetes refuses IPv4-mapped IPv6 addresses and zones.


def _parse_ip(text: str):
    if not isinstance(text, str) or "%" in text:
        raise ValueError(f"IP Address {text!r} parse error during conversion from string")
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        raise ValueError(f"IP Address {text!r} parse error during conversion from string") from None
    if address.version == 6 and address.ipv4_mapped is not None:
        raise ValueError(f"IPv4-mapped IPv6 address {text!r} is not allowed")
    return address


def _ip(text: str) -> dict:
    return _ip_value(_parse_ip(text))


def _ip_value(address) -> dict:
    return _opaque("ip", value=str(address), family=address.version)


def _parse_cidr(text: str):
    if not isinstance(text, str) or "/" not in text:
        raise ValueError(f"network address {text!r} parse error during conversion from string")
    address, _, prefix = text.partition("/")
    _parse_ip(address)
    if not prefix.isdigit():
        raise ValueError(f"network address {text!r} parse error during conversion from string")
    return ipaddress.ip_interface(text)


def _cidr(text: str) -> dict:
    interface = _parse_cidr(text)
    return _opaque("cidr", value=str(interface), family=interface.version)


def _address(value):
    return ipaddress.ip_address(_need(value, "ip")["value"])


def _interface(value):
    return ipaddress.ip_interface(_need(value, "cidr")["value"])


def _valid(parse, text) -> bool:
    try:
        parse(text)
    except (ValueError, TypeError):
        return False
    return True


def _to_string(value) -> str:
    return _need(value, "ip", "cidr")["value"]


# library/lists.go


def _comparable(items: list) -> list:
    if any(isinstance(i, dict | list) for i in items):
        raise TypeError("no such overload: the items are not comparable")
    return items


def _min(items: list):
    if not items:
        raise ValueError("min(list) called on empty list")
    return min(_comparable(items))


def _max(items: list):
    if not items:
        raise ValueError("max(list) called on empty list")
    return max(_comparable(items))


def _sum(items: list):
    return sum(_comparable(items), type(items[0])() if items else 0)


def _index_of(items: list, value) -> int:
    return next((i for i, item in enumerate(items) if item == value), -1)


def _last_index_of(items: list, value) -> int:
    return next((i for i in range(len(items) - 1, -1, -1) if items[i] == value), -1)


# library/regex.go: RE2 in Kubernetes; Python's re agrees on the patterns CRDs use, with a time
# limit (the module's docstring).
REGEX_SECONDS = 0.25  # the regex time one evaluation of a rule may take
REGEX_TOTAL_SECONDS = 2.0  # the time one rule may take in slow regex calls (SLOW_CALL or more), in all
SLOW_CALL = 0.001
NOT_EVALUATED = "UNIMPLEMENTED: not evaluated"  # cel.py reports an UNIMPLEMENTED error as a warning


class _OverBudget(Exception):
    """A regex ran out of the time an evaluation may spend in regexes."""


class _Evaluation:
    """One run of a Program: the regex time it has left; ``over`` says why it stopped."""

    def __init__(self, program: Program):
        self.program = program
        self.left = REGEX_SECONDS
        self.over: str | None = None


_running = threading.local()  # .evaluation: the _Evaluation under way in this thread


def _bounded(function: str, pattern: str, call):
    """``call()`` (a regex search) within the regex time left to the rule being evaluated
    (deadline.py). Off the main thread no time limit can be had, so the regex is not run there."""
    evaluation = getattr(_running, "evaluation", None)
    if evaluation is None:  # not inside Program.run (a direct call): nothing to bound
        return call()
    if evaluation.over is not None:
        raise _OverBudget
    shown = pattern if len(pattern) <= 60 else pattern[:57] + "..."
    spent = 0.0
    try:
        with deadline.within(evaluation.left) as elapsed:
            try:
                return call()
            finally:
                spent = elapsed()
    except deadline.NotHere:
        evaluation.over = f"{function}() runs only on the main thread here, where its time can be limited"
        raise _OverBudget from None
    except deadline.Expired:
        evaluation.over = (
            f"{function}({shown!r}) took more than the {REGEX_SECONDS:g} s this tool gives the regexes of one "
            "evaluation (a limit of this tool: Python's regex engine backtracks, the apiserver's RE2 does not)"
        )
        raise _OverBudget from None
    finally:
        evaluation.left -= spent
        if spent >= SLOW_CALL:
            evaluation.program.regex_seconds += spent
            if evaluation.program.regex_seconds > REGEX_TOTAL_SECONDS and evaluation.over is None:
                evaluation.over = (
                    f"its regexes took more than this tool's {REGEX_TOTAL_SECONDS:g} s limit per rule over the run"
                )


def _find(text: str, pattern: str) -> str:
    match = _bounded("find", pattern, lambda: re.search(pattern, text))
    return match.group(0) if match else ""


def _find_all(text: str, pattern: str, limit: int = -1) -> list[str]:
    found = _bounded("findAll", pattern, lambda: [m.group(0) for m in re.finditer(pattern, text)])
    return found if limit < 0 else found[:limit]


# library/format.go: a Format's validate gives optional.none() for a valid string, else the
# errors. The optional is a library value too ({"@k8s": "optional"[, "value": ...]}), with
# hasValue() and value(), as cel-cpp's own optional cannot come from a Python function.


def _optional(value=None) -> dict:
    return _opaque("optional") if value is None else _opaque("optional", value=value)


def _name_errors(text: str, pattern, limit: int, what: str) -> list[str]:
    errors = [f"must be no more than {limit} characters"] if len(text) > limit else []
    return errors if pattern.match(text) else [*errors, f"a {what} must match {pattern.pattern}"]


def _prefix(text: str) -> str:
    # apimachinery's maskTrailingDash: a generateName prefix may end with a dash
    return text[:-1] + "a" if len(text) > 1 and text.endswith("-") else text


def _format_errors(name: str, text: str) -> list[str]:
    from generator.core.grammar import DNS1035_LABEL, DNS1123_LABEL, DNS1123_SUBDOMAIN, LABEL_VALUE, label_key_problem
    from generator.validate.crd.formats import is_byte, is_uri, parse_datetime

    if name in ("dns1123Label", "dns1123LabelPrefix"):
        return _name_errors(_prefix(text) if name.endswith("Prefix") else text, DNS1123_LABEL, 63, "DNS-1123 label")
    if name in ("dns1123Subdomain", "dns1123SubdomainPrefix"):
        subject = _prefix(text) if name.endswith("Prefix") else text
        return _name_errors(subject, DNS1123_SUBDOMAIN, 253, "DNS-1123 subdomain")
    if name in ("dns1035Label", "dns1035LabelPrefix"):
        return _name_errors(_prefix(text) if name.endswith("Prefix") else text, DNS1035_LABEL, 63, "DNS-1035 label")
    if name == "qualifiedName":
        problem = label_key_problem(text, "qualified name")
        return [problem] if problem else []
    if name == "labelValue":
        return _name_errors(text, LABEL_VALUE, 63, "label value")
    if name == "uri":
        return [] if is_uri(text) else ["invalid URI"]
    if name == "uuid":
        return [] if _UUID.match(text) else ["does not match the UUID format"]
    if name == "byte":
        return [] if is_byte(text) else ["invalid base64"]
    if name == "date":
        return [] if parse_datetime(text + "T00:00:00Z") and len(text) == 10 else ["invalid date"]
    return [] if parse_datetime(text) else ["invalid datetime"]


_UUID = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")


def _validate(fmt, text: str) -> dict:
    errors = _format_errors(_need(fmt, "format")["name"], text)
    return _optional(errors or None)


def _named(name: str) -> dict:
    return _optional(_opaque("format", name=name) if name in _FORMAT_NAMES else None)


def _value(optional):
    if "value" not in _need(optional, "optional"):
        raise ValueError("optional.none() dereference")
    return optional["value"]


# -- declarations ------------------------------------------------------------------------------


def _member(name: str, overload: str, result, params: list, impl) -> tuple[str, cel.Overload]:
    return name, cel.Overload(overload, result, params, is_member=True, impl=impl)


def _global(name: str, overload: str, result, params: list, impl) -> tuple[str, cel.Overload]:
    return name, cel.Overload(overload, result, params, is_member=False, impl=impl)


def _overloads(minor: int) -> list[tuple[str, cel.Overload]]:
    out = [
        # regex
        _member("find", "string_find_string", _STRING, [_STRING, _STRING], _find),
        _member("findAll", "string_find_all_string", cel.Type.List(_STRING), [_STRING, _STRING], _find_all),
        _member("findAll", "string_find_all_string_int", cel.Type.List(_STRING), [_STRING, _STRING, _INT], _find_all),
        # urls
        _global("url", "string_to_url", _OPAQUE, [_STRING], _url),
        _global("isURL", "is_url_string", _BOOL, [_STRING], lambda t: _valid(_url, t)),
        _member("getScheme", "url_get_scheme", _STRING, [_OPAQUE], lambda u: _need(u, "url")["scheme"]),
        _member("getHost", "url_get_host", _STRING, [_OPAQUE], lambda u: _need(u, "url")["host"]),
        _member("getHostname", "url_get_hostname", _STRING, [_OPAQUE], lambda u: _need(u, "url")["hostname"]),
        _member("getPort", "url_get_port", _STRING, [_OPAQUE], lambda u: _need(u, "url")["port"]),
        _member("getEscapedPath", "url_get_escaped_path", _STRING, [_OPAQUE], lambda u: _need(u, "url")["path"]),
        _member("getQuery", "url_get_query", cel.Type.Map(_STRING, cel.Type.List(_STRING)), [_OPAQUE], _query),
        # lists
        _member("isSorted", "list_is_sorted", _BOOL, [_LIST], lambda xs: _comparable(xs) == sorted(xs)),
        _member("sum", "list_sum", _DYN, [_LIST], _sum),
        _member("min", "list_min", _DYN, [_LIST], _min),
        _member("max", "list_max", _DYN, [_LIST], _max),
    ]
    for element in _ELEMENTS:
        name = element.name().lower().replace("<", "_").replace(">", "").replace(", ", "_")
        out.append(_member("indexOf", f"list_index_of_{name}", _INT, [_LIST, element], _index_of))
        out.append(_member("lastIndexOf", f"list_last_index_of_{name}", _INT, [_LIST, element], _last_index_of))
    comparable = []  # quantity and semver share these member names
    if minor >= QUANTITY_SINCE:
        out += [
            _global("quantity", "string_to_quantity", _OPAQUE, [_STRING], _quantity),
            _global("isQuantity", "is_quantity_string", _BOOL, [_STRING], lambda t: _valid(_quantity, t)),
            _member("sign", "quantity_sign", _INT, [_OPAQUE], lambda q: _compare(q, 0)),
            _member("isInteger", "quantity_is_integer", _BOOL, [_OPAQUE], lambda q: _int64(_number(q)) is not None),
            _member("asInteger", "quantity_get_integer", _INT, [_OPAQUE], _as_integer),
            _member("asApproximateFloat", "quantity_get_float", _DOUBLE, [_OPAQUE], lambda q: float(_number(q))),
            _member(
                "add", "quantity_add", _OPAQUE, [_OPAQUE, _OPAQUE], lambda a, b: _quantity_of(_number(a) + _number(b))
            ),
            _member("add", "quantity_add_int", _OPAQUE, [_OPAQUE, _INT], lambda a, b: _quantity_of(_number(a) + b)),
            _member(
                "sub", "quantity_sub", _OPAQUE, [_OPAQUE, _OPAQUE], lambda a, b: _quantity_of(_number(a) - _number(b))
            ),
            _member("sub", "quantity_sub_int", _OPAQUE, [_OPAQUE, _INT], lambda a, b: _quantity_of(_number(a) - b)),
        ]
        comparable = True
    if minor >= SEMVER_SINCE:
        out += [
            _global("semver", "string_to_semver", _OPAQUE, [_STRING], _semver),
            _global("isSemver", "is_semver_string", _BOOL, [_STRING], lambda t: _valid(_semver, t)),
            _member("major", "semver_major", _INT, [_OPAQUE], lambda v: _need(v, "semver")["major"]),
            _member("minor", "semver_minor", _INT, [_OPAQUE], lambda v: _need(v, "semver")["minor"]),
            _member("patch", "semver_patch", _INT, [_OPAQUE], lambda v: _need(v, "semver")["patch"]),
        ]
        comparable = True
    if comparable:
        out += [
            _member(
                "isGreaterThan", "opaque_is_greater_than", _BOOL, [_OPAQUE, _OPAQUE], lambda a, b: _compare(a, b) > 0
            ),
            _member("isLessThan", "opaque_is_less_than", _BOOL, [_OPAQUE, _OPAQUE], lambda a, b: _compare(a, b) < 0),
            _member("compareTo", "opaque_compare_to", _INT, [_OPAQUE, _OPAQUE], _compare),
        ]
    if minor >= SETS_SINCE:  # ext.Sets, CEL equality of the items
        out += [
            _global(
                "sets.contains", "list_sets_contains_list", _BOOL, [_LIST, _LIST], lambda a, b: all(x in a for x in b)
            ),
            _global(
                "sets.equivalent",
                "list_sets_equivalent_list",
                _BOOL,
                [_LIST, _LIST],
                lambda a, b: all(x in a for x in b) and all(x in b for x in a),
            ),
            _global(
                "sets.intersects",
                "list_sets_intersects_list",
                _BOOL,
                [_LIST, _LIST],
                lambda a, b: any(x in a for x in b),
            ),
        ]
    if minor >= FORMAT_SINCE:
        out += [
            _global("format.named", "format_named", _OPAQUE, [_STRING], _named),
            _member("validate", "format_validate", _OPAQUE, [_OPAQUE, _STRING], _validate),
            _member("hasValue", "k8s_optional_has_value", _BOOL, [_OPAQUE], lambda o: "value" in _need(o, "optional")),
            _member("value", "k8s_optional_value", _DYN, [_OPAQUE], _value),
        ]
        for name in _FORMAT_NAMES:
            out.append(_global(f"format.{name}", f"format_{name.lower()}", _OPAQUE, [], _format_of(name)))
    if minor >= IP_SINCE:
        out += [
            _global("ip", "string_to_ip", _OPAQUE, [_STRING], _ip),
            _global("isIP", "is_ip", _BOOL, [_STRING], lambda t: _valid(_parse_ip, t)),
            _global("ip.isCanonical", "ip_is_canonical", _BOOL, [_STRING], lambda t: str(_parse_ip(t)) == t),
            _member("family", "ip_family", _INT, [_OPAQUE], lambda v: _need(v, "ip", "cidr")["family"]),
            _member("isUnspecified", "ip_is_unspecified", _BOOL, [_OPAQUE], lambda v: _address(v).is_unspecified),
            _member("isLoopback", "ip_is_loopback", _BOOL, [_OPAQUE], lambda v: _address(v).is_loopback),
            _member(
                "isLinkLocalMulticast",
                "ip_is_link_local_multicast",
                _BOOL,
                [_OPAQUE],
                lambda v: _address(v).is_multicast and _address(v) in _LINK_LOCAL_MULTICAST[_address(v).version],
            ),
            _member(
                "isLinkLocalUnicast",
                "ip_is_link_local_unicast",
                _BOOL,
                [_OPAQUE],
                lambda v: _address(v).is_link_local and not _address(v).is_multicast,
            ),
            _member("isGlobalUnicast", "ip_is_global_unicast", _BOOL, [_OPAQUE], _is_global_unicast),
            _global("cidr", "string_to_cidr", _OPAQUE, [_STRING], _cidr),
            _global("isCIDR", "is_cidr", _BOOL, [_STRING], lambda t: _valid(_parse_cidr, t)),
            _member(
                "containsIP",
                "cidr_contains_ip_ip",
                _BOOL,
                [_OPAQUE, _OPAQUE],
                lambda c, i: _address(i) in _interface(c).network,
            ),
            _member(
                "containsIP",
                "cidr_contains_ip_string",
                _BOOL,
                [_OPAQUE, _STRING],
                lambda c, i: _parse_ip(i) in _interface(c).network,
            ),
            _member(
                "containsCIDR",
                "cidr_contains_cidr",
                _BOOL,
                [_OPAQUE, _OPAQUE],
                lambda c, o: (
                    _interface(o).network.subnet_of(_interface(c).network)
                    if _interface(o).version == _interface(c).version
                    else False
                ),
            ),
            _member(
                "containsCIDR",
                "cidr_contains_cidr_string",
                _BOOL,
                [_OPAQUE, _STRING],
                lambda c, o: (
                    _parse_cidr(o).network.subnet_of(_interface(c).network)
                    if _parse_cidr(o).version == _interface(c).version
                    else False
                ),
            ),
            _member("ip", "cidr_ip", _OPAQUE, [_OPAQUE], lambda c: _ip_value(_interface(c).ip)),
            _member("masked", "cidr_masked", _OPAQUE, [_OPAQUE], lambda c: _cidr(str(_interface(c).network))),
            _member("prefixLength", "cidr_prefix_length", _INT, [_OPAQUE], lambda c: _interface(c).network.prefixlen),
            _global("string", "ip_or_cidr_to_string", _STRING, [_OPAQUE], _to_string),
        ]
    return out


def _format_of(name: str):
    return lambda: _opaque("format", name=name)


_LINK_LOCAL_MULTICAST = {4: ipaddress.ip_network("224.0.0.0/24"), 6: ipaddress.ip_network("ff02::/16")}


def _is_global_unicast(value) -> bool:
    # Go's net.IP.IsGlobalUnicast: not unspecified, loopback, multicast, link-local or broadcast
    address = _address(value)
    broadcast = address.version == 4 and str(address) == "255.255.255.255"
    return not (
        address.is_unspecified or address.is_loopback or address.is_multicast or address.is_link_local or broadcast
    )


@dataclass
class Program:
    """A compiled rule; ``run`` gives (True/False, None) or (None, the evaluation error); an
    error starting NOT_EVALUATED when its regexes ran out of time (_bounded)."""

    expression: object
    regex_seconds: float = 0.0  # time spent in slow regex calls, over every run
    over: str | None = None  # why the rule is no longer evaluated

    def run(self, variables: dict) -> tuple[object, str | None]:
        if self.over is not None:
            return None, f"{NOT_EVALUATED}: {self.over}"
        evaluation = _Evaluation(self)
        outer, _running.evaluation = getattr(_running, "evaluation", None), evaluation
        try:
            result = self.expression.eval(data=variables)
        finally:
            _running.evaluation = outer
        if evaluation.over is not None:  # whatever the rule made of the failed call
            self.over = evaluation.over
            return None, f"{NOT_EVALUATED}: {self.over}"
        if result.type() == cel.Type.ERROR:
            return None, str(result.value())
        return result.value(), None


class Environment:
    """The CEL environment of one Kubernetes release; compiled rules are cached per run."""

    def __init__(self, minor: int):
        self.minor = minor
        declared: dict[str, list] = {}
        for name, overload in _overloads(minor):
            declared.setdefault(name, []).append(overload)
        extensions = [ext_strings.ExtStrings(2 if minor >= STRINGS_V2_SINCE else 0)]
        if minor >= QUANTITY_SINCE:
            extensions.append(ext_optional.ExtOptional())
        # declared as an extension: cel-cpp then merges indexOf/lastIndexOf with ext.Strings'
        self._extensions = [
            *extensions,
            cel.CelExtension("kubernetes", [cel.FunctionDecl(name, overloads) for name, overloads in declared.items()]),
        ]
        self._env = cel.NewEnv(variables={"self": _DYN, "oldSelf": _DYN}, extensions=self._extensions)
        self._compiled: dict[str, Program | CelProblem] = {}

    def typed(self, pool, self_type) -> object:
        """This release's environment with ``self`` and ``oldSelf`` of ``self_type`` (a cel.Type,
        message types from the descriptor ``pool``): what type-checks a rule against the schema it
        is attached to (celtypes.py). Compile only; the rules run in the untyped environment."""
        return cel.NewEnv(
            descriptor_pool=pool, variables={"self": self_type, "oldSelf": self_type}, extensions=self._extensions
        )

    def compile(self, expression: str) -> Program:
        """The rule compiled (once per environment), or CelProblem."""
        found = self._compiled.get(expression)
        if found is None:
            try:
                found = Program(self._env.compile(expression))
            except RuntimeError as err:
                found = self._problem(expression, str(err))
            self._compiled[expression] = found
        if isinstance(found, CelProblem):
            raise found
        return found

    def _problem(self, expression: str, error: str) -> CelProblem:
        detail = error.split("\n", 1)[0].removeprefix("INVALID_ARGUMENT: ").strip()
        for name, since in {**UNSUPPORTED, **_FUNCTIONS_SINCE}.items():
            if re.search(rf"(?<!\w){re.escape(name)}\s*\(", expression):
                if name in UNSUPPORTED and self.minor >= since:
                    return CelProblem(f"it uses {name}(), which this tool cannot evaluate", unsupported=name)
                if self.minor < since:
                    return CelProblem(
                        f"it uses {name}(), which Kubernetes {KubeVersion(self.minor)} does not have "
                        f"({KubeVersion(since)}+)"
                    )
        if _TWO_VARIABLES.search(expression):
            if self.minor < TWO_VAR_SINCE:
                return CelProblem(
                    f"it uses a two-variable comprehension, which Kubernetes {KubeVersion(self.minor)} does not have"
                )
            return CelProblem(
                "it uses a two-variable comprehension, which this tool cannot evaluate", unsupported="all(k, v, ...)"
            )
        return CelProblem(f"it does not compile: {detail}")


@functools.cache
def environment(minor: int) -> Environment:
    return Environment(minor)
