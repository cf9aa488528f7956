"""`validate`: what the cluster or the operator would reject, found offline, with file:line.

Per document: read it as kubectl would (kubeyaml.load), check the object (schema of its kind
for the target release, then the semantic rules), and turn each finding's field path into
a line and column through the document's node tree.
Each schema is compiled once per run and reused for every document.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, NamedTuple

from generator.core import kinds as registry
from generator.core.findings import Finding, dotted, joined
from generator.core.paths import PADDLEJOB_SCHEMA
from generator.core.versions import KubeVersion, Release
from generator.schema import crd as crdschema
from generator.schema import kubernetes
from generator.schema import projects as thirdparty
from generator.validate import admission, discover
from generator.validate import sources as schemasource
from generator.validate.builtin import KubeValidator
from generator.validate.crd.validator import CustomResourceValidator
from generator.validate.crd.walks import prune_nulls
from generator.validate.rules.base import error, warning
from generator.validate.rules.builtin import builtin_findings
from generator.validate.rules.kueue import multikueue_findings, queue_findings
from generator.validate.rules.meta import metadata_findings
from generator.validate.rules.pod import pod_templates, workload_findings
from generator.validate.rules.volumes import in_tree_volume_findings

EXTENSIONS = discover.EXTENSIONS
OBJECT_META = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"

RULES_PACKAGE = "generator.validate.rules"


# a project's rules of its kinds: (object) or (object, the project's release) -> findings
Semantic = Callable[..., list[Finding]]


def _custom_kinds() -> dict[tuple[str, str], tuple[Path | str, Semantic | None]]:
    """The custom resources this project checks or publishes (the registry, core/kinds.py): where
    each one's schema comes from (our API file, or the project whose pinned CRDs hold it) and the
    rules of its operator or webhook."""
    out: dict[tuple[str, str], tuple[Path | str, Semantic | None]] = {}
    for entry in registry.custom_kinds():
        if entry.rules or entry.published:
            source = PADDLEJOB_SCHEMA if entry.schema == registry.OWN_SCHEMA else entry.schema
            rules = registry.resolve(RULES_PACKAGE, entry.rules) if entry.rules else None
            out[(entry.api, entry.kind)] = (source, rules)
    return out


CUSTOM_KINDS = _custom_kinds()
LEGACY = registry.LEGACY


class ObjectChecker:
    """Checks one object against everything known for ``minor``; compiled schemas are reused."""

    def __init__(
        self,
        minor: int,
        strict_kinds: bool = False,
        releases: list[int] | None = None,
        skip_kinds: frozenset[str] = frozenset(),
        projects: Mapping[str, Release | None] | None = None,
        follow_records: bool = False,
        crds: schemasource.CrdSource | None = None,
        kueue: str | None = None,
    ):
        """``releases``: every release built-in kinds must be valid on (render checks a bundle
        against all it serves); by default ``minor`` alone. ``follow_records``: a file `render`
        wrote is checked against the releases it records (provenance.py), not ``minor``.
        ``crds``: the user's CRDs (--crd). ``projects``: the release of each third-party project
        whose CRDs check its kinds (core/kinds.py's PROJECTS; the newest for one not given).
        ``kueue``: the Kueue release a queue label and MultiKueue are judged by (rules/kueue.py
        release(); the newest read when None)."""
        self.follow_records = follow_records
        self.minor = kubernetes.require_known(minor)
        self.releases = releases or [self.minor]
        self.strict_kinds = strict_kinds
        self.skip_kinds = skip_kinds  # Kind, or apiVersion/Kind: not checked (kubeconform's -skip)
        chosen = projects or {}
        unknown = set(chosen) - set(thirdparty.VALIDATED)
        if unknown:
            raise ValueError(f"no project {sorted(unknown)[0]!r}; the projects are {', '.join(thirdparty.VALIDATED)}")
        self.project_releases: dict[str, Release] = {
            p: chosen.get(p) or thirdparty.newest(p) for p in thirdparty.VALIDATED
        }
        self.kube = KubeValidator()
        self.crds = crds
        self.kueue = kueue
        self._routes: dict[tuple[str, str], _Route] = {}  # (apiVersion, kind) -> _Route
        self._siblings: dict[tuple[int, ...], ObjectChecker] = {}  # for_releases
        self._schemas: schemasource.Schemas | None = None
        apiextensions = "v1" if self.minor >= crdschema.FIRST_V1 else "v1beta1"
        self.target = crdschema.Target(apiextensions, self.minor, self.minor)

    @property
    def schemas(self) -> schemasource.Schemas:
        """Every source of schemas, composed once (schemasource.compose), when first asked for."""
        if self._schemas is None:
            self._schemas = schemasource.compose(
                self.minor, _project_kinds(), self.target, self.project_releases, self.crds
            )
        return self._schemas

    def for_releases(self, releases: list[int]) -> ObjectChecker:
        """A checker like this one for other releases (the newest first among equals); made once."""
        key = tuple(releases)
        cache = self._siblings
        if key not in cache:
            cache[key] = ObjectChecker(
                releases[-1],
                self.strict_kinds,
                list(releases),
                self.skip_kinds,
                crds=self.crds,
                projects=self.project_releases,
                kueue=self.kueue,
            )
        return cache[key]

    def custom_validator(self, api_version: str, kind: str) -> CustomResourceValidator:
        """Compiled once per kind and run: the user's CRD (--crd), our API derived for this
        checker's Kubernetes release, or the project's CRD of the chosen release."""
        return self.schemas.validator(api_version, kind)

    def check(self, obj: object, nulls: bool = True) -> list[Finding]:
        """Every finding once: the schema and a rule may say the same thing (a bad quantity).
        ``nulls=False`` says the object holds no null (the reader knows), so none is pruned."""
        return list(dict.fromkeys(self._check(obj, nulls)))

    def _check(self, obj: object, nulls: bool = True) -> list[Finding]:
        if not isinstance(obj, dict):
            return [
                error(
                    "", "not-an-object", f"a manifest is a mapping with apiVersion and kind, not {type(obj).__name__}"
                )
            ]
        api_version, kind = obj.get("apiVersion"), obj.get("kind")
        if not isinstance(api_version, str) or not api_version:
            return [error("apiVersion", "required", "apiVersion is required (e.g. apps/v1)")]
        if not isinstance(kind, str) or not kind:
            return [error("kind", "required", "kind is required (e.g. Deployment)")]
        route = self._routes.get((api_version, kind))
        if route is None:
            route = self._route(api_version, kind)
        if route.before_items is not None:
            return list(route.before_items)
        if kind.endswith("List") and isinstance(obj.get("items"), list):
            out: list[Finding] = []
            for i, item in enumerate(obj["items"]):
                if isinstance(item, dict) and isinstance(item.get("items"), list):
                    out.append(error(f"items[{i}]", "nested-list", NESTED_LIST))
                    continue
                out += [_prefixed(f, f"items[{i}]") for f in self._check(item, nulls)]
            return out
        if route.way is _CUSTOM:
            # the apiserver prunes a custom resource's declared non-nullable nulls from 1.20
            # (crvalidate.prune_nulls); before, a null fails the schema; a null of an undeclared
            # field is an unknown field. Its metadata is ObjectMeta, where null is absent.
            custom: dict[Any, Any] = obj
            if nulls and self.minor >= NULLS_PRUNED_SINCE:
                pruned = prune_nulls(obj, self.custom_validator(api_version, kind).schema)
                custom = pruned if isinstance(pruned, dict) else obj
            if nulls and isinstance(custom.get("metadata"), dict):
                custom = {**custom, "metadata": without_nulls(custom["metadata"])}
            return self._custom(custom, api_version, kind)
        if route.way is _BUILTIN:
            if not nulls:
                return self._builtin(obj)
            # Go's JSON decoding: a null is the zero value. A null field is absent; a null list
            # item is a zero struct ({}: `containers: [~]` lacks a name, as the apiserver says) or
            # a zero scalar ("" or 0: fine), so a type finding on such an item is dropped.
            zeroed: set[str] = set()
            zero = _go_zero_values(obj, [], zeroed)
            found = self._builtin(zero if isinstance(zero, dict) else obj)
            return [f for f in found if not (f.rule in ("type", "type-string") and f.path in zeroed)]
        return list(route.found)

    def _route(self, api_version: str, kind: str) -> _Route:
        """What becomes of every object of ``api_version`` and ``kind`` (_Route), decided once per
        checker (the routes kept are bounded: a stream of ever new kinds is routed each time)."""
        if kind in self.skip_kinds or f"{api_version}/{kind}" in self.skip_kinds:
            route = _Route(before_items=())
        elif api_version == KUSTOMIZE_BUILTIN:
            severity = "error" if self.strict_kinds else "warning"
            route = _Route(
                before_items=(Finding(severity, "apiVersion", "unknown-kind", _kustomize_builtin_message(kind)),)
            )
        else:
            way, found = self._way(api_version, kind)
            route = _Route(way=way, found=tuple(found))
        if len(self._routes) >= _ROUTES_KEPT:
            self._routes.clear()
        self._routes[(api_version, kind)] = route
        return route

    def _way(self, api_version: str, kind: str) -> tuple[str | None, list[Finding]]:
        """(_CUSTOM or _BUILTIN: the object is checked by its schema and rules, []) or (None, the
        findings of every object of this apiVersion and kind: one not served, or of no known schema)."""
        if (api_version, kind) in LEGACY:
            return None, [error("apiVersion", "legacy-api", LEGACY[(api_version, kind)])]
        project = thirdparty.all_kinds().get((api_version, kind))
        theirs = self.crds is not None and self.crds.lookup(api_version, kind) is not None
        if (
            project is not None
            and not theirs
            and (api_version, kind) not in thirdparty.kinds(project, self.project_releases[project])
        ):
            return None, [error("apiVersion", "api-not-served", self._not_in_release(api_version, kind, project))]
        custom = self.schemas.lookup(api_version, kind)
        if custom is not None and not custom.served:
            return None, [
                error("apiVersion", "api-not-served", f"{api_version} {kind} is not served ({custom.origin})")
            ]
        if custom is not None and not custom.builtin:
            return _CUSTOM, []
        if (api_version, kind) in kubernetes.kinds(self.minor):
            off = _off_by_default(api_version, kind, tuple(self.releases))
            return (None, [error("apiVersion", "api-not-served", off)]) if off else (_BUILTIN, [])
        elsewhere = _served_elsewhere(api_version, kind, self.minor)
        if elsewhere:
            return None, [error("apiVersion", "api-not-served", elsewhere)]
        if self.crds is not None and self.crds.versions_of(api_version, kind):
            versions = ", ".join(self.crds.versions_of(api_version, kind))
            return None, [
                error("apiVersion", "api-not-served", f"{api_version} has no kind {kind}: its CRD serves {versions}")
            ]
        mistake = _known_group_mistake(api_version, kind, self.minor)
        if mistake and mistake.is_error:
            return None, [mistake]
        severity = "error" if self.strict_kinds else "warning"
        hint = f" ({mistake.message})" if mistake else ""
        message = f"no schema is known for {api_version} {kind}: it was not checked{hint}"
        return None, [Finding(severity, "kind", "unknown-kind", message)]

    def _not_in_release(self, api_version: str, kind: str, project: str) -> str:
        """A kind of a project's CRDs that the chosen release of the project does not serve."""
        release = self.project_releases[project]
        having = [r for r in thirdparty.releases(project) if (api_version, kind) in thirdparty.kinds(project, r)]
        spans = ", ".join(str(r) for r in having)
        return (
            f"{api_version} {kind} is not served by {thirdparty.release_name(project, release)} "
            f"(its CRDs define it in {spans}): choose the release you run with --{project}-version"
        )

    def _builtin(self, obj: dict[Any, Any]) -> list[Finding]:
        out = self.kube.validate(obj, self.releases)
        out += metadata_findings(obj, releases=self.releases)
        templates = pod_templates(obj)
        out += workload_findings(obj, tuple(self.releases), templates)
        out += builtin_findings(obj, tuple(self.releases))
        out += in_tree_volume_findings(obj, self.releases, templates)
        out += queue_findings(obj, self.kueue)
        out += multikueue_findings(obj, self.kueue)
        if obj["kind"] == "CustomResourceDefinition":
            from generator.validate.crd import structural  # here: only a CRD needs the structural-schema rules

            out += structural.crd_findings(obj, self.minor)
        return out

    def _custom(self, obj: dict[Any, Any], api_version: str, kind: str) -> list[Finding]:
        out = self.custom_validator(api_version, kind).findings(admission.mutated(obj, api_version, kind))
        meta = obj.get("metadata")
        if isinstance(meta, dict):
            out += self.kube.validate_as(meta, OBJECT_META, self.minor, "metadata")
        entry = registry.lookup(api_version, kind)
        # a kind whose own rules check its name (both PaddleJobs: DNS-1035), as the registry says
        out += metadata_findings(obj, check_name=not (entry is not None and entry.own_name_rule))
        templates = pod_templates(obj)
        out += workload_findings(obj, tuple(self.releases), templates)
        out += in_tree_volume_findings(obj, self.releases, templates)
        out += queue_findings(obj, self.kueue)
        out += multikueue_findings(obj, self.kueue)
        source, semantic = CUSTOM_KINDS.get((api_version, kind), (None, None))
        if semantic is not None:  # a project's rules take the release it runs
            out += semantic(obj, self.project_releases[source]) if isinstance(source, str) else semantic(obj)
        if entry is not None and entry.release_rules:  # the Kubernetes releases targeted, against its project's
            release_rules = registry.resolve(RULES_PACKAGE, entry.release_rules)
            out += release_rules(obj, self.releases, self.project_releases[entry.schema])
        return out


NULLS_PRUNED_SINCE = 20

_CUSTOM, _BUILTIN = "custom", "built-in"  # the ways of a _Route
_ROUTES_KEPT = 4096


class _Route(NamedTuple):
    """What a checker does with every object of one apiVersion and kind: ``before_items``, the
    findings that stand before a List's items are looked at (a skipped kind: none), or else
    ``way`` (_CUSTOM, _BUILTIN: its schema and rules check it) or ``found``, the findings of
    every such object."""

    before_items: tuple[Finding, ...] | None = None
    way: str | None = None
    found: tuple[Finding, ...] = ()


# kubectl (cli-runtime's resource.FlattenListVisitor, 1.32) flattens a List once: an item that is
# a list itself (items as a list, whatever its kind) goes to meta.ExtractList as an Unstructured,
# which fails, and the whole file with it.
NESTED_LIST = (
    "a list inside a List's items: kubectl refuses the whole file (is not a list: no Items field in this "
    "object); move its items up into the outer List"
)

# kustomize's built-in plugins (PatchTransformer, LabelTransformer, HelmChartInflationGenerator,
# ...) are configured by YAML with `apiVersion: builtin` that `kustomize build` reads
# (kustomization fields transformers/generators/validators); no apiserver serves it.
KUSTOMIZE_BUILTIN = "builtin"


def _kustomize_builtin_message(kind: str) -> str:
    return (
        f"apiVersion: builtin {kind} is the configuration of a kustomize plugin, not a Kubernetes object: "
        "it was not checked (kubectl would find no such kind); validate the build: kubectl kustomize DIR | validate -"
    )


def _project_kinds() -> dict[tuple[str, str], Path | str]:
    """The schema sources of the custom kinds this project knows, for schemasource.ProjectSource:
    every kind of the projects' CRDs (by project), and CUSTOM_KINDS' (our API, or a project)."""
    return {**thirdparty.all_kinds(), **{key: source for key, (source, _) in CUSTOM_KINDS.items()}}


def _go_zero_values(data: object, path: list[str | int], zeroed: set[str]) -> object:
    """``data`` as Go decodes it into built-in types: null fields absent, null list items {}
    (their paths added to ``zeroed``)."""
    if isinstance(data, dict):
        return {k: _go_zero_values(v, [*path, k], zeroed) for k, v in data.items() if v is not None}
    if isinstance(data, list):
        out: list[object] = []
        for i, item in enumerate(data):
            if item is None:
                zeroed.add(dotted([*path, i]))
                out.append({})
            else:
                out.append(_go_zero_values(item, [*path, i], zeroed))
        return out
    return data


def without_nulls(data: object) -> object:
    """``data`` without the null values of its mappings (items of lists stay)."""
    if isinstance(data, dict):
        return {k: without_nulls(v) for k, v in data.items() if v is not None}
    if isinstance(data, list):
        return [without_nulls(v) for v in data]
    return data


@functools.cache
def _served_elsewhere(api_version: str, kind: str, minor: int) -> str | None:
    """For a built-in kind this release does not serve: when it was removed (and the last release
    that served it), and what replaces it (_instead)."""
    served = [m for m in kubernetes.known_versions() if (api_version, kind) in kubernetes.kinds(m)]
    if not served:
        return None
    if max(served) < minor:
        last = KubeVersion(max(served))
        gone = f"was removed in Kubernetes {KubeVersion(max(served) + 1)} (the last release to serve it: {last})"
    else:
        gone = f"is not served before Kubernetes {KubeVersion(min(served))}"
        on = [m for m in served if (api_version, kind) not in kubernetes.off_by_default(m)]
        if not on or min(on) > min(served):  # defined, but off by default there (served.json)
            flag = f"--runtime-config={api_version}=true"
            gone = f"is defined from Kubernetes {KubeVersion(min(served))} but " + (
                f"served by default only from {KubeVersion(min(on))} (before, with {flag})"
                if on
                else f"served by default by no release this tool knows (it needs {flag})"
            )
    return f"{api_version} {kind} {gone}{_instead(api_version, kind, minor)}"


def _served_versions(api_version: str, kind: str, minor: int) -> list[str]:
    """The other apiVersions of ``kind`` that release ``minor`` serves by default, the best first
    (its own group first, then Kubernetes' version priority)."""
    group = api_version.rpartition("/")[0]
    others = [av for av, k in kubernetes.served_kinds(minor) if k == kind and av != api_version]
    return sorted(others, key=lambda av: (av.rpartition("/")[0] == group, _version_rank(av)), reverse=True)


def _instead(api_version: str, kind: str, minor: int) -> str:
    """What replaces a kind ``minor`` does not serve: "; use X" with the best apiVersion it serves
    the kind at by default, else its successor (SUCCESSORS), else nothing."""
    served = _served_versions(api_version, kind, minor)
    if served:
        return f"; use {served[0]}"
    return f"; {SUCCESSORS[kind]}" if kind in SUCCESSORS else ""


# Removed built-in kinds that no other version of the same kind replaces, and their successor, as
# the Kubernetes Deprecated API Migration Guide gives it (kubernetes.io/docs/reference/using-api/
# deprecation-guide/). Kept short: a kind goes here only with the guide's word for it.
SUCCESSORS = {
    # v1.25: "PodSecurityPolicy in the policy/v1beta1 API version will no longer be served in
    # v1.25, and the PodSecurityPolicy admission controller will be removed" (migrate to Pod
    # Security Admission or a third-party admission webhook)
    "PodSecurityPolicy": (
        "no kind replaces it: use Pod Security admission (the pod-security.kubernetes.io/enforce label of a "
        "Namespace) or a third-party admission webhook"
    ),
}


def _off_by_default(api_version: str, kind: str, releases: tuple[int, ...]) -> str | None:
    """For a kind a targeted release defines but its default apiserver leaves off (an alpha
    version, or from 1.24 a beta one KEP-3136 leaves off: schemas/kubernetes/served.json, from
    DefaultAPIResourceConfigSource): the flag that enables it, and the version served instead."""
    for minor in sorted(releases, reverse=True):
        if (api_version, kind) not in kubernetes.off_by_default(minor):
            continue
        if "alpha" in api_version.rpartition("/")[2]:
            why = "alpha versions are off by default"
        else:
            why = "a beta API new since 1.24 is off by default, KEP-3136"
        served = _served_versions(api_version, kind, minor)
        instead = f"; or use {served[0]}, which it serves by default" if served else ""
        return (
            f"{api_version} {kind} is not served by a default Kubernetes {KubeVersion(minor)} apiserver ({why}; "
            f"kubectl: no matches for kind): enable it with --runtime-config={api_version}=true on kube-apiserver"
            f"{instead}"
        )
    return None


# The built-in groups are the only ones this tool knows every kind of (kubernetes.kinds): a kind it does
# not know there does not exist. Every other group is only partly known: other CRDs add kinds to
# them (Kubeflow's Notebook and Profile in kubeflow.org, a vendor's kind in scheduling.volcano.sh,
# PaddleFlow's SampleSet and SampleJob in batch.paddlepaddle.org, EDL's TrainingJob in
# paddlepaddle.org), so there an unknown kind is a warning, not an error. In this project's own
# groups a known kind at an unknown version is still an error: every version of its kinds is known.
OWN_GROUPS = registry.own_groups()  # this project's own API groups


def _version_rank(api_version: str) -> tuple[int, int, int]:
    """Kubernetes' version priority (apimachinery version.CompareKubeAwareVersionStrings): GA
    above beta above alpha, then the higher number: autoscaling/v2 > v1 > v2beta2."""
    match = re.fullmatch(r"v(\d+)(?:(alpha|beta)(\d+))?", api_version.rpartition("/")[2])
    if not match:
        return (-1, 0, 0)
    major, stage, number = match.groups()
    return ({"alpha": 0, "beta": 1, None: 2}[stage], int(major), int(number or 0))


def _known_group_mistake(api_version: str, kind: str, minor: int) -> Finding | None:
    """In a group this tool knows, a kind in the wrong case or an unserved version is what the
    apiserver answers with "no matches for kind": an error, not an unchecked unknown kind. In a
    group it only partly knows (every group but the built-in ones: CRDs of anyone may add kinds
    to it, ours included), a hint for the unknown-kind warning (a warning finding)."""
    group = api_version.rpartition("/")[0]
    builtin = kubernetes.kinds(minor)
    known = [*CUSTOM_KINDS, *LEGACY, *builtin, *thirdparty.all_kinds()]
    in_group = [(av, k) for av, k in known if av.rpartition("/")[0] == group]
    if not in_group:
        return None
    partly = group not in _builtin_groups()
    same_case = [(av, k) for av, k in in_group if k.lower() == kind.lower()]
    if any(av == api_version for av, _ in same_case):
        right = next(k for av, k in same_case if av == api_version)
        return error(
            "kind", "kind", f"kind {kind!r} has the wrong case: the kind is {right!r} (kubectl: no matches for kind)"
        )
    if same_case:
        off = kubernetes.off_by_default(minor)
        versions = ", ".join(sorted({av for av, k in same_case if (av, k) not in off}) or {av for av, _ in same_case})
        if partly and group not in OWN_GROUPS:  # this project's own kinds: every version of them is known
            return warning("kind", "unknown-kind", f"the CRDs this tool has serve {same_case[0][1]} as {versions}")
        message = (
            f"{api_version} has no kind {same_case[0][1]}: it is served as {versions} (kubectl: no matches for kind)"
        )
        return error("apiVersion", "api-not-served", message)
    kinds = sorted({k for av, k in in_group if (av, k) not in builtin or _creatable(av, k, minor)})
    import difflib  # here: only an unknown kind needs a suggestion

    named = {k for _, k in in_group if not k.endswith("List") and k not in META_KINDS}
    close = difflib.get_close_matches(kind, sorted(named), n=1)
    if partly:
        return warning("kind", "unknown-kind", f"did you mean {close[0]!r}?") if close else None
    history = _kind_history(group, kind)
    if history:
        (first_version, first), (last_version, last) = history
        if last < minor:
            gone = (
                f"was removed in Kubernetes {KubeVersion(last + 1)} (the last release to serve it: {KubeVersion(last)})"
            )
            when = f"{last_version} {kind} {gone}"
        else:
            when = f"{first_version} {kind} is served from Kubernetes {KubeVersion(first)}"
        message = f"group {group or 'core'} has no kind {kind!r} in Kubernetes {KubeVersion(minor)}: {when}"
        return error("kind", "kind", message + _instead(api_version, kind, minor))
    hint = f"; did you mean {close[0]!r}?" if close else f"; its kinds are {', '.join(kinds[:12])}"
    return error("kind", "kind", f"group {group or 'core'} has no kind {kind!r}{hint}")


@functools.cache
def _builtin_groups() -> frozenset[str]:
    """The API groups of every Kubernetes release this tool knows (the core group is "")."""
    return frozenset(
        av.rpartition("/")[0] for minor in kubernetes.known_versions() for av, _ in kubernetes.kinds(minor)
    )


def _creatable(api_version: str, kind: str, minor: int) -> bool:
    """A built-in kind a manifest can create: one the apiserver keeps as a collection (the
    release's document has its KindList at the same version). Left out: DeleteOptions, WatchEvent,
    Status, the List kinds, subresource kinds (Eviction, Scale, Binding) and the create-only reviews
    (TokenReview, SubjectAccessReview), which the OpenAPI documents this tool keeps cannot tell from
    a collection any other way (they hold no paths, so no x-kubernetes-action)."""
    return not kind.endswith("List") and (api_version, f"{kind}List") in kubernetes.kinds(minor)


@functools.cache
def _kind_history(group: str, kind: str) -> tuple[tuple[str, int], tuple[str, int]] | None:
    """((apiVersion, release), (apiVersion, release)) of ``kind`` in ``group``: the first release
    that served it at any version, and the last (each with its best version then), or None when no
    release this tool knows has it there."""
    found = []
    for minor in kubernetes.known_versions():
        versions = [av for av, k in kubernetes.kinds(minor) if k == kind and av.rpartition("/")[0] == group]
        if versions:
            found.append((max(versions, key=_version_rank), minor))
    return (found[0], found[-1]) if found else None


# Kinds every group-version of an OpenAPI document holds that are no objects a manifest makes.
META_KINDS = frozenset({"DeleteOptions", "WatchEvent", "Status"})


def _prefixed(finding: Finding, prefix: str) -> Finding:
    return Finding(finding.severity, joined(prefix, finding.path), finding.rule, finding.message)
