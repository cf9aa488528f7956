"""Extractors over pinned upstream source text: functions that read what a release of an
upstream project says and yield it as data, so that a newer release shows its changes as a diff.

`validation_call_sites` reads the apiserver's Go validation (k8s.io/kubernetes
pkg/apis/<group>/validation/validation.go) and yields every place that reports an error
(`field.Required`, `Invalid`, `NotSupported`, `Forbidden`, `Duplicate`, `TooLong`, `TooMany`) in
the functions reachable from a root (`ValidatePodSpec`), each with a stable id. The ledger under
schemas/ledger/ keeps these ids with what people wrote about each (a summary, the rule that ports
it or why it is not modelled); tests/test_ledger.py runs this on the pinned text and compares.

    python -m generator.tools.extractors validation.go ValidatePodSpec core.pod   # JSON lines
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator
from typing import NamedTuple

ERROR_TYPES = (
    "Required",
    "Invalid",
    "NotSupported",
    "Forbidden",
    "Duplicate",
    "TooLong",
    "TooLongMaxLength",
    "TooMany",
)

_KEBAB = {
    "Required": "required",
    "Invalid": "invalid",
    "NotSupported": "not-supported",
    "Forbidden": "forbidden",
    "Duplicate": "duplicate",
    "TooLong": "too-long",
    "TooLongMaxLength": "too-long",  # TooLong with the limit in the message (field.TooLongMaxLength)
    "TooMany": "too-many",
}

_FUNC = re.compile(r"^func (?:\([^)]*\) )?([A-Za-z_]\w*)\s*[\[(]", re.M)
_CALL = re.compile(r"\bfield\.(" + "|".join(ERROR_TYPES) + r")\(")
_IDENT = re.compile(r"\b[A-Za-z_]\w*\b")


class CallSite(NamedTuple):
    id: str
    function: str  # the Go function the call is written in
    line: int  # 1-based line of `field.X(` in the source
    error_type: str  # Required, Invalid, ...
    path: str  # the field path pattern: fldPath.tolerations[*].operator
    detail: str  # the message (or the allowed values) as the source writes it, on one line


def _masked(source: str) -> str:
    """``source`` with comments and the insides of string and rune literals blanked (newlines
    kept), so that brackets and identifiers are found only in code."""
    out = list(source)
    i, n = 0, len(source)
    while i < n:
        c = source[i]
        if source.startswith("//", i):
            j = source.find("\n", i)
            j = n if j < 0 else j
            out[i:j] = " " * (j - i)
            i = j
        elif source.startswith("/*", i):
            j = source.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out[i:j] = [ch if ch == "\n" else " " for ch in source[i:j]]
            i = j
        elif c in "\"'`":
            j = i + 1
            while j < n and source[j] != c:
                j += 2 if c != "`" and source[j] == "\\" else 1
            out[i + 1 : j] = [ch if ch == "\n" else " " for ch in source[i + 1 : j]]
            i = j + 1
        else:
            i += 1
    return "".join(out)


def go_functions(source: str) -> dict[str, tuple[int, int]]:
    """Top-level functions and methods of gofmt'd Go source: name -> (start, end) offsets of
    the text from `func` to the closing brace at the start of a line."""
    masked = _masked(source)
    found = {}
    for match in _FUNC.finditer(masked):
        end = masked.find("\n}", match.end())
        found[match.group(1)] = (match.start(), len(masked) if end < 0 else end + 2)
    return found


def reachable(source: str, root: str) -> list[str]:
    """The functions of ``source`` that ``root`` reaches by naming them (a call or a function
    value), in the order they are first met, ``root`` first."""
    masked = _masked(source)
    functions = go_functions(source)
    if root not in functions:
        raise KeyError(f"no function {root} in the source")
    seen, queue = [root], [root]
    while queue:
        start, end = functions[queue.pop(0)]
        body = masked[start:end]
        body = body[body.find("{") :]  # the signature names types, not functions
        for name in _IDENT.findall(body):
            if name in functions and name not in seen:
                seen.append(name)
                queue.append(name)
    return seen


def _arguments(source: str, masked: str, open_paren: int) -> tuple[list[str], int]:
    """The top-level arguments of the call whose `(` is at ``open_paren`` (source text, split on
    commas outside brackets), and the offset after its `)`."""
    depth, start, args = 0, open_paren + 1, []
    for i in range(open_paren, len(masked)):
        c = masked[i]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
            if depth == 0:
                args.append(source[start:i])
                return [a.strip() for a in args if a.strip()], i + 1
        elif c == "," and depth == 1:
            args.append(source[start:i])
            start = i + 1
    raise ValueError(f"unbalanced call at offset {open_paren}")


_PATH_STEP = re.compile(r"\.(Child|Index|Key)\(((?:[^()]|\([^()]*\))*)\)")


def path_pattern(expression: str) -> str:
    """A Go field path expression as a pattern: `fldPath.Child("a", "b").Index(i).Key(k)` ->
    `fldPath.a.b[*][*]`; a path built elsewhere keeps its variable's name."""
    expression = " ".join(expression.split())
    base = re.match(r"[A-Za-z_][\w.]*?(?=\.(?:Child|Index|Key)\(|$)", expression)
    if not base:
        return expression
    out = base.group(0)
    rest = expression[base.end() :]
    for step in _PATH_STEP.finditer(rest):
        kind, arg = step.groups()
        if kind == "Child":
            parts = [p.strip() for p in arg.split(",")]
            out += "".join("." + (p[1:-1] if p.startswith('"') and p.endswith('"') else f"<{p}>") for p in parts)
        elif kind == "Index":
            out += "[*]"
        else:
            key = arg.strip()
            out += f"[{key[1:-1]}]" if key.startswith('"') and key.endswith('"') else "[*]"
    consumed = "".join(m.group(0) for m in _PATH_STEP.finditer(rest))
    return out if consumed == rest.replace(" ", "") or consumed == rest else f"{out}<{rest}>"


def _slug(path: str) -> str:
    """The id part of a path pattern: its steps after the variable, in kebab case."""
    steps = re.sub(r"\[[^\]]*\]", "", path).split(".")[1:]
    words = [re.sub(r"[^a-z0-9]+", "-", re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "-", s).lower()).strip("-") for s in steps]
    return ".".join(w for w in words if w) or "self"


def _detail(error_type: str, args: list[str]) -> str:
    position = {"Required": 1, "Forbidden": 1, "Invalid": 2, "NotSupported": 2, "TooLong": 2, "TooMany": 2}
    at = position.get(error_type)
    if error_type == "Duplicate" or at is None or at >= len(args):
        return ""
    return " ".join(args[at].split())


def site_id(prefix: str, function: str, path: str, error_type: str, ordinal: int = 1) -> str:
    """The id of the ``ordinal``-th call of ``error_type`` on ``path`` in ``function``."""
    base = f"{prefix}.{function}.{_slug(path)}.{_KEBAB[error_type]}"
    return base if ordinal == 1 else f"{base}-{ordinal}"


def validation_call_sites(source: str, root: str = "ValidatePodSpec", prefix: str = "core.pod") -> Iterator[CallSite]:
    """Every field.Required/Invalid/NotSupported/Forbidden/Duplicate/TooLong/TooMany call in the
    functions ``root`` reaches, in the order of the functions met, then of the source. Ids are
    ``PREFIX.FUNCTION.PATH.TYPE`` (`-2`, `-3`, ... for a second and third such call in one
    function), stable while the function keeps its calls."""
    masked = _masked(source)
    functions = go_functions(source)
    for name in reachable(source, root):
        start, end = functions[name]
        counts: dict[str, int] = {}
        for match in _CALL.finditer(masked, start, end):
            error_type = match.group(1)
            args, _ = _arguments(source, masked, match.end() - 1)
            path = path_pattern(args[0]) if args else ""
            base = site_id(prefix, name, path, error_type)
            counts[base] = counts.get(base, 0) + 1
            ident = site_id(prefix, name, path, error_type, counts[base])
            line = source.count("\n", 0, match.start()) + 1
            yield CallSite(ident, name, line, error_type, path, _detail(error_type, args))


# packages whose calls are no validation of their own (formatting, strings, sets, the errors)
_PLAIN = {"field", "fmt", "strings", "sets", "utf8", "unicode", "reflect", "path", "filepath", "math", "regexp", "json"}
_QUALIFIED_CALL = re.compile(r"\b([a-z][A-Za-z0-9]*)\.([A-Z]\w*)\(")


def external_calls(source: str, root: str = "ValidatePodSpec") -> list[str]:
    """The package-qualified functions (``validation.IsQualifiedName``,
    ``unversionedvalidation.ValidateLabelSelector``, ...) that the functions ``root`` reaches
    call in other files: their own error sites are not in this file's ledger."""
    masked = _masked(source)
    functions = go_functions(source)
    packages = _imports(source) - _PLAIN
    found = set()
    for name in reachable(source, root):
        start, end = functions[name]
        local = _parameters(masked[start:end])  # a parameter named as a package shadows it there
        for package, function in _QUALIFIED_CALL.findall(masked, start, end):
            if package in packages and package not in local:
                found.add(f"{package}.{function}")
    return sorted(found)


_PARAMETER = re.compile(r"[(,]\s*([A-Za-z_]\w*)(?=\s*,|\s+[\w.*\[\]])")


def _parameters(function: str) -> set[str]:
    """The parameter names of a Go function (its text from `func`): `func F(meta metav1.Object,
    fldPath *field.Path)` -> {meta, fldPath}; the receiver's name too."""
    signature = function[: function.find("{")]
    return set(_PARAMETER.findall(signature))


def _imports(source: str) -> set[str]:
    """The names the file's imports go by: the alias, or the path's last element."""
    block = re.search(r"^import \((.*?)^\)", source, re.M | re.S)
    lines = block.group(1).splitlines() if block else re.findall(r"^import (.*)$", source, re.M)
    names = set()
    for line in lines:
        match = re.match(r'\s*(?:([\w.]+)\s+)?"([^"]+)"', line)
        if match:
            names.add(match.group(1) or match.group(2).rsplit("/", 1)[-1])
    return names


MECHANICAL = ("function", "line", "type", "path")  # what the extractor writes; the rest is people's


def merge_ledger(ledger: dict, sites: list[CallSite]) -> tuple[dict, dict[str, list[str]]]:
    """``ledger`` (a schemas/ledger/*.json document) updated to ``sites`` (the extraction of a
    newer release): the mechanical fields from the sites, the summary, status and reason kept by
    id; a new id comes in "open", a gone id goes. Returns the new document and the ids added,
    removed and moved (line changed)."""
    old = {entry["id"]: entry for entry in ledger["entries"]}
    entries, changes = [], {"added": [], "removed": [], "moved": []}
    for site in sites:
        entry = dict(old.get(site.id, {"summary": site.detail or site.path, "status": "open"}))
        if site.id not in old:
            changes["added"].append(site.id)
        elif entry.get("line") != site.line:
            changes["moved"].append(site.id)
        entry.update(id=site.id, function=site.function, line=site.line, type=site.error_type, path=site.path)
        entries.append({k: entry[k] for k in ("id", *MECHANICAL, "summary", "status", "reason", "note") if k in entry})
    changes["removed"] = sorted(set(old) - {site.id for site in sites})
    return {**ledger, "entries": entries}, changes


def main(argv: list[str] | None = None) -> int:
    """VALIDATION_GO [ROOT [PREFIX]]: the call sites as JSON lines; with --ledger FILE (and the
    root and prefix of that ledger), what a newer release adds, removes and moves."""
    args = list(argv if argv is not None else sys.argv[1:])
    ledger_path = None
    if "--ledger" in args:
        at = args.index("--ledger")
        ledger_path = args[at + 1] if at + 1 < len(args) else None
        del args[at : at + 2]
    if not 1 <= len(args) <= 3 or ("--ledger" in (argv or sys.argv[1:]) and ledger_path is None):
        print(
            "usage: python -m generator.tools.extractors VALIDATION_GO [ROOT] [PREFIX] [--ledger FILE]", file=sys.stderr
        )
        return 2
    with open(args[0], encoding="utf-8") as f:
        source = f.read()
    sites = list(validation_call_sites(source, *args[1:]))
    if ledger_path is None:
        for site in sites:
            print(json.dumps(site._asdict()))
        return 0
    with open(ledger_path, encoding="utf-8") as f:
        ledger = json.load(f)
    _, changes = merge_ledger(ledger, sites)
    for what, ids in changes.items():
        for ident in ids:
            print(f"{what}: {ident}")
    return 1 if changes["added"] or changes["removed"] else 0


# ---------------------------------------------------------------------------------------------
# Served versions: which group-versions a default kube-apiserver leaves off.
#
# `resource_config` reads DefaultAPIResourceConfigSource (pkg/controlplane/instance.go from 1.20,
# pkg/master/master.go before) with the var lists it names and the imports that say which
# group-version each alias is; `served_defaults` turns it and the kinds of every release the
# project knows into schemas/kubernetes/served.json.

# The group each API package registers (the GroupName of k8s.io/api/<dir>/<version>/register.go).
API_PACKAGE_GROUPS = {
    "admission": "admission.k8s.io",
    "admissionregistration": "admissionregistration.k8s.io",
    "apiserverinternal": "internal.apiserver.k8s.io",
    "apps": "apps",
    "auditregistration": "auditregistration.k8s.io",
    "authentication": "authentication.k8s.io",
    "authorization": "authorization.k8s.io",
    "autoscaling": "autoscaling",
    "batch": "batch",
    "certificates": "certificates.k8s.io",
    "coordination": "coordination.k8s.io",
    "core": "",
    "discovery": "discovery.k8s.io",
    "events": "events.k8s.io",
    "extensions": "extensions",
    "flowcontrol": "flowcontrol.apiserver.k8s.io",
    "imagepolicy": "imagepolicy.k8s.io",
    "networking": "networking.k8s.io",
    "node": "node.k8s.io",
    "policy": "policy",
    "rbac": "rbac.authorization.k8s.io",
    "resource": "resource.k8s.io",
    "scheduling": "scheduling.k8s.io",
    "settings": "settings.k8s.io",
    "storage": "storage.k8s.io",
    "storagemigration": "storagemigration.k8s.io",
}

_IMPORT_BLOCK = re.compile(r"^import \($.*?^\)$", re.M | re.S)
_API_IMPORT = re.compile(r'^\s*(\w+)\s+"k8s\.io/(?:api|kubernetes/pkg/apis)/(\w+)/(v\w+)"', re.M)
_CONFIG_CALL = re.compile(r"\bret\.(EnableVersions|DisableVersions|EnableResources|DisableResources)\(")
_GV_EXPRESSION = re.compile(r'^(\w+)\.SchemeGroupVersion(?:\.WithResource\("([^"]+)"\))?$')
CONFIG_FUNCTION = "DefaultAPIResourceConfigSource"


def config_source_text(source: str) -> str:
    """What `resource_config` reads of a Go file: its import block, then the text from the `var (`
    block before DefaultAPIResourceConfigSource (the lists it names) to that function's end, or the
    function alone when no var block precedes it. served.json records this text's SHA-256."""
    imports = _IMPORT_BLOCK.search(source)
    functions = go_functions(source)
    if imports is None or CONFIG_FUNCTION not in functions:
        raise ValueError(f"no import block or no func {CONFIG_FUNCTION} in the source")
    start, end = functions[CONFIG_FUNCTION]
    var_block = source.rfind("\nvar (\n", 0, start)
    previous_func = source.rfind("\nfunc ", 0, start)
    begin = var_block + 1 if var_block > previous_func else start
    return imports.group(0) + "\n" + source[begin:end]


def _gv_aliases(source: str) -> dict[str, str]:
    """Import alias -> apiVersion, for the API packages a Go file imports."""
    out = {}
    for alias, package, version in _API_IMPORT.findall(source):
        if package not in API_PACKAGE_GROUPS:
            raise ValueError(f"the API package {package!r} has no group here: add it to API_PACKAGE_GROUPS")
        group = API_PACKAGE_GROUPS[package]
        out[alias] = f"{group}/{version}" if group else version
    return out


def _go_list(source: str, masked: str, name: str) -> list[str]:
    """The items of the Go composite literal assigned to ``name`` (`name = []T{a, b, ...}`)."""
    match = re.search(rf"\b{re.escape(name)}\s*=\s*\[\][\w.]+\{{", masked)
    if match is None:
        raise ValueError(f"no list {name} in the source")
    items, _ = _arguments(source, masked, match.end() - 1)
    return items


def _code_of(expression: str) -> str:
    """A Go expression on one line, without its line comments."""
    return " ".join(re.sub(r"//[^\n]*", "", expression).split())


def resource_config(source: str) -> dict[str, list]:
    """What DefaultAPIResourceConfigSource does, in the order of the source: the group-versions it
    enables and disables (`ret.EnableVersions`, `ret.DisableVersions`) and the resources it
    enables and disables (`ret.EnableResources`, `ret.DisableResources`), each argument resolved
    through the var lists it names (`list...`) and the import aliases."""
    masked = _masked(source)
    aliases = _gv_aliases(source)
    functions = go_functions(source)
    if CONFIG_FUNCTION not in functions:
        raise ValueError(f"no func {CONFIG_FUNCTION} in the source")
    start, end = functions[CONFIG_FUNCTION]
    out: dict[str, list] = {
        "EnableVersions": [],
        "DisableVersions": [],
        "EnableResources": [],
        "DisableResources": [],
    }
    for call in _CONFIG_CALL.finditer(masked, start, end):
        args, _ = _arguments(source, masked, call.end() - 1)
        expressions = []
        for arg in map(_code_of, args):
            if arg.endswith("..."):
                expressions += [_code_of(item) for item in _go_list(source, masked, arg[:-3])]
            else:
                expressions.append(arg)
        for expression in filter(None, expressions):  # a trailing comma leaves only a comment
            match = _GV_EXPRESSION.match(expression)
            if match is None or match.group(1) not in aliases:
                raise ValueError(f"{call.group(1)}: cannot read {expression!r} as an imported group-version")
            api_version = aliases[match.group(1)]
            resource = match.group(2)
            if call.group(1).endswith("Resources"):
                if resource is None:
                    raise ValueError(f"{call.group(1)}: {expression!r} names no resource")
                out[call.group(1)].append([api_version, resource])
            else:
                out[call.group(1)].append(api_version)
    return out


# Kinds whose resource is their name in lower case (meta.unpluralizedSuffixes)
UNPLURALIZED_SUFFIXES = ("endpoints",)


def guess_resource(kind: str) -> str:
    """The resource of a kind as apimachinery guesses it (meta.UnsafeGuessKindToResource,
    k8s.io/apimachinery/pkg/api/meta/restmapper.go): lower case; unchanged after a suffix of
    unpluralizedSuffixes; a final `s` takes `es`, a final `y` becomes `ies` (Gateway: gatewaies, as there), else `s`."""
    singular = kind.lower()
    if not singular or singular.endswith(UNPLURALIZED_SUFFIXES):
        return singular
    if singular.endswith("s"):
        return singular + "es"
    if singular.endswith("y"):
        return singular[:-1] + "ies"
    return singular + "s"


def version_stage(api_version: str) -> str:
    """alpha, beta or ga, from the version part of an apiVersion (v1alpha1, v2beta2, v1)."""
    version = api_version.rpartition("/")[2]
    return "alpha" if "alpha" in version else "beta" if "beta" in version else "ga"


# Kinds every group-version of an OpenAPI document holds without serving them as resources.
META_KINDS = frozenset({"DeleteOptions", "WatchEvent", "Status", "APIGroup", "APIResourceList", "APIVersions"})
BETA_OFF_SINCE = 24  # KEP-3136: from 1.24 a new beta API is off by default
# Groups other servers of the apiserver binary serve, with their own resource configuration
# (apiextensions-apiserver, kube-aggregator): DefaultAPIResourceConfigSource does not name them.
OTHER_SERVERS = frozenset({"apiextensions.k8s.io", "apiregistration.k8s.io"})


def served_defaults(
    kinds_by_release: dict[int, set[tuple[str, str]]], configs: dict[int, dict[str, list]]
) -> dict[str, dict[str, list[str]]]:
    """Per release (1.N -> apiVersion -> kinds): the kinds of its OpenAPI document that a default
    apiserver of that release does not serve.

    On a release of ``configs`` (release -> `resource_config` of its DefaultAPIResourceConfigSource),
    the code's own verdict: a kind is off when its group-version is not enabled (disabled, or never
    named) and its resource not enabled, or its resource disabled (serverstorage.ResourceConfig).
    On the other releases the policy that code states: every alpha version off ("they are always
    disabled by default"); from 1.24 a beta kind that first appeared in 1.24 or later off
    (KEP-3136: betaAPIGroupVersionsDisabledByDefault "is for all future beta groupVersions"),
    unless a config enables its resource (legacyBetaEnabledByDefaultResources: "you may only add
    to this list if your resource is already enabled by default in a beta level", so it was on
    since it appeared). GA versions, and beta ones before 1.24, are served. Groups other servers
    serve (OTHER_SERVERS) and kinds that are no resources (META_KINDS, lists) are left out."""
    first: dict[tuple[str, str], int] = {}
    for minor in sorted(kinds_by_release):
        for key in kinds_by_release[minor]:
            first.setdefault(key, minor)
    legacy = {tuple(pair) for config in configs.values() for pair in config["EnableResources"]}
    out: dict[str, dict[str, list[str]]] = {}
    for minor in sorted(kinds_by_release):
        config = configs.get(minor)
        off: dict[str, list[str]] = {}
        for api_version, kind in sorted(kinds_by_release[minor]):
            if kind in META_KINDS or kind.endswith("List") or api_version.rpartition("/")[0] in OTHER_SERVERS:
                continue
            resource = (api_version, guess_resource(kind))
            stage = version_stage(api_version)
            if config is not None:
                listed = api_version in config["EnableVersions"] and api_version not in config["DisableVersions"]
                enabled = {tuple(pair) for pair in config["EnableResources"]}
                disabled = {tuple(pair) for pair in config["DisableResources"]}
                on = (listed or resource in enabled) and resource not in disabled
            elif stage == "alpha":
                on = False
            elif stage == "beta" and minor >= BETA_OFF_SINCE:
                on = first[(api_version, kind)] < BETA_OFF_SINCE or resource in legacy
            else:
                on = True
            if not on:
                off.setdefault(api_version, []).append(kind)
        out[str(minor)] = off
    return out


# The stored texts served.json is extracted from, each matched to the release whose OpenAPI
# document holds every group-version it names while the next release's adds ones it lacks
# (served_document checks the first half). The store keeps development commits, not the
# release tags: "tag" stays empty until a tag's file is read. A tag's file lives at
# pkg/master/master.go before 1.20, pkg/controlplane/instance.go after (SERVED_PATHS); a copy of a
# source is kept as <folder>/<tag, or the commit while there is none>/<path> (served_copy_path).
# A tag's file is also read where a repository vendors k8s.io/kubernetes at that tag (its
# vendor/modules.txt names the tag and no other module replaces it): "repository" and "commit"
# are then the vendoring repository's, and "text" says where in it the file is.
SERVED_SOURCES = (
    {
        # the 1.19 line: it names certificates/v1 and events/v1 (new in 1.19), not yet
        # flowcontrol/v1beta1 or internal.apiserver/v1alpha1 (new in 1.20)
        "repository": "https://github.com/kubernetes/kubernetes",
        "path": "pkg/controlplane/master.go",
        "commit": "15e0e3e90eb9dfcde0e540a325cee5786eff0cd4",
        "release": "1.19",
        "tag": None,
    },
    {
        # the 1.21 line: it names discovery/v1 and policy/v1 (new in 1.21); the v1.21.4 patch
        # release's text
        "repository": "https://github.com/openshift-kni/scheduler-plugins",
        "path": "pkg/controlplane/instance.go",
        "commit": "4e29d42b47b5f55b6ac46ea99162054fd3cd7a69",
        "release": "1.21",
        "tag": "v1.21.4",
        "text": "k8s.io/kubernetes v1.21.4 as vendored by openshift-kni/scheduler-plugins at 4e29d42b "
        "(vendor/k8s.io/kubernetes/pkg/controlplane/instance.go, git blob 9bba2ebd; go.mod requires v1.21.4 and "
        "vendor/modules.txt says '# k8s.io/kubernetes v1.21.4 => k8s.io/kubernetes v1.21.4', the upstream module "
        "replaced by itself); kubernetes-sigs/scheduler-plugins 4d7c53f5 vendors the same blob",
    },
    {
        # the 1.22 line: the group-versions of the 1.21 text (the 1.22 document adds none)
        "repository": "https://github.com/kubernetes-sigs/kube-scheduler-simulator",
        "path": "pkg/controlplane/instance.go",
        "commit": "8ae1cdb9ae03eee6226960b865f76dcfb57322b5",
        "release": "1.22",
        "tag": "v1.22.0",
        "text": "k8s.io/kubernetes v1.22.0 as vendored by kubernetes-sigs/kube-scheduler-simulator at 8ae1cdb9 "
        "(simulator/vendor/k8s.io/kubernetes/pkg/controlplane/instance.go, git blob 606ccb92; "
        "simulator/vendor/modules.txt: '# k8s.io/kubernetes v1.22.0', no replacement); v1.22.3 as vendored by "
        "kubernetes-sigs/scheduler-plugins at 20e1f72e is the same blob",
    },
    {
        # the 1.23 line: it names autoscaling/v2 and flowcontrol/v1beta2 (new in 1.23); the v1.23.1
        # patch release's text
        "repository": "https://github.com/openshift/microshift",
        "path": "pkg/controlplane/instance.go",
        "commit": "69a166cf2ed1b1e45ebf2e57da6ba8e591ab7bae",
        "release": "1.23",
        "tag": "v1.23.1",
        "text": "k8s.io/kubernetes v1.23.1 as vendored by openshift/microshift at 69a166cf "
        "(vendor/k8s.io/kubernetes/pkg/controlplane/instance.go, git blob 75a67a81; vendor/modules.txt: "
        "'# k8s.io/kubernetes v1.23.1', no replacement: upstream, while other k8s.io modules there are "
        "OpenShift's); k3s-io/kubernetes v1.23.5-k3s1, as vendored by kubegc/liteKube, holds the same blob",
    },
    {
        # the 1.24 line: KEP-3136's lists (betaAPIGroupVersionsDisabledByDefault,
        # legacyBetaEnabledByDefaultResources) begin here; the v1.24.3 patch release's text
        "repository": "https://github.com/kubernetes-sigs/kube-scheduler-simulator",
        "path": "pkg/controlplane/instance.go",
        "commit": "e4c9c4f8fcbb37d271164fb232988ae2df4bf3f8",
        "release": "1.24",
        "tag": "v1.24.3",
        "text": "k8s.io/kubernetes v1.24.3 as vendored by kubernetes-sigs/kube-scheduler-simulator at e4c9c4f8 "
        "(simulator/vendor/k8s.io/kubernetes/pkg/controlplane/instance.go, git blob d82dbd5a; "
        "simulator/vendor/modules.txt: '# k8s.io/kubernetes v1.24.3', no replacement)",
    },
    {
        # the 1.26 line: it names admissionregistration/v1alpha1, authentication/v1alpha1,
        # flowcontrol/v1beta3 and resource/v1alpha1 (new in 1.26); the v1.26.1 patch release's text
        "repository": "https://github.com/openshift/microshift",
        "path": "pkg/controlplane/instance.go",
        "commit": "cbcfd9060f5ffe5194c082a660d57abee6b14680",
        "release": "1.26",
        "tag": "v1.26.1",
        "text": "k8s.io/kubernetes v1.26.1 as vendored by openshift/microshift's etcd module at cbcfd906 "
        "(etcd/vendor/k8s.io/kubernetes/pkg/controlplane/instance.go, git blob 8936ceea; "
        "etcd/vendor/modules.txt: '# k8s.io/kubernetes v1.26.1', no replacement: upstream, not the OpenShift fork)",
    },
    {
        # the 1.30 line: it names resource/v1alpha2 and storagemigration/v1alpha1 (new in 1.30),
        # not resource/v1alpha3 (new in 1.31)
        "repository": "https://github.com/kubernetes/kubernetes",
        "path": "pkg/controlplane/instance.go",
        "commit": "cb6ff2d8ce3595f88570f82c7d0e6d98910afd3c",
        "release": "1.30",
        "tag": None,
    },
)


SERVED_PATHS = ("pkg/master/master.go", "pkg/controlplane/master.go", "pkg/controlplane/instance.go")


def served_copy_path(folder, source: dict):
    """Where a folder of copies keeps the file a served.json source was read from:
    <folder>/<tag>/<path>, or <folder>/<commit>/<path> for a source read at a development commit."""
    from pathlib import Path

    return Path(folder) / (source.get("tag") or source["commit"]) / source["path"]


def served_document(texts: dict[str, str], kinds_by_release: dict, sources=SERVED_SOURCES) -> dict:
    """schemas/kubernetes/served.json from the Go text of DefaultAPIResourceConfigSource of each
    source (``texts``: release -> the whole file, or what config_source_text keeps of it) and
    every release's kinds: each source's provenance, SHA-256 and reading (`resource_config`), and
    per release the kinds a default apiserver leaves off, saying whether a source or the policy
    decided them. A source's text must name only group-versions its release's document has."""
    import hashlib

    configs, recorded = {}, []
    by_name = {str(minor): minor for minor in kinds_by_release}
    for info in sources:
        text = config_source_text(texts[info["release"]])
        config = resource_config(text)
        minor = by_name[info["release"]]
        named = set(config["EnableVersions"] + config["DisableVersions"])
        named |= {api_version for api_version, _ in config["EnableResources"] + config["DisableResources"]}
        missing = named - {api_version for api_version, _ in kinds_by_release[minor]}
        if missing:
            raise ValueError(f"the {info['release']} text names {sorted(missing)}, which that release's document lacks")
        configs[minor] = config
        recorded.append(
            {
                **info,
                "function": CONFIG_FUNCTION,
                "sha256": hashlib.sha256(text.encode()).hexdigest(),
                "config": config,
            }
        )
    off = served_defaults(kinds_by_release, configs)
    read = {info["release"] for info in sources}
    return {
        "what": "per Kubernetes release, the kinds of its OpenAPI document that a default kube-apiserver does not "
        "serve (an alpha version, or from 1.24 a beta one KEP-3136 leaves off); --runtime-config=GROUP/VERSION=true "
        "enables a group-version",
        "extractor": "generator.tools.extractors.served_document",
        "text": "not kept in this repository (upstream code): each SHA-256 is of what config_source_text keeps of "
        "the file (its import block, then the var block before the function, if any, to the function's end)",
        "sources": recorded,
        "releases": {
            minor: {"basis": "source" if minor in read else "policy", "disabled": off[minor]} for minor in off
        },
    }


if __name__ == "__main__":
    sys.exit(main())
