"""The rules the apiextensions apiserver applies to a CRD schema beyond its JSON schema.

The JSONSchemaProps definition of a release says which fields a schema node
may carry; these are the rules it does not say, which the apiserver checks
when the CRD is created (validation.go in apiextensions-apiserver):

- structural: every node states its type, except int-or-string and
  preserve-unknown-fields nodes; nodes inside anyOf/allOf/oneOf/not carry no
  type, default, description, nullable or additionalProperties;
- properties and additionalProperties exclude each other;
- an int-or-string node preserves no unknown fields and embeds no resource (validateExtensions;
  a `type` beside it is allowed: ValidateStructural only exempts it from needing one);
- a list-map's keys are scalar properties of its items, each required or, in
  apiextensions v1, defaulted (a v1beta1 CRD may not use `default` at all);
- a list-set's items are scalars;
- the root `metadata` may only restrict `name` and `generateName`.

For apiextensions.k8s.io/v1 CRDs, also the rest of ValidateCustomResourceDefinition (kubernetes
v1.31.1 staging/src/k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation/validation.go,
with the options the create path passes: defaults allowed, a schema required and structural,
atomic list-set items, list-map keys checked): the spec (group, names, scope, versions, printer
columns, scale paths, selectable fields, conversion, the api-approved annotation of protected
groups, preserveUnknownFields) under crd-spec, and the schema keywords and extensions under
crd-schema (ValidateCustomResourceDefinitionOpenAPISchema, specStandardValidatorV3.validate,
validateMapListKeysMapSet, the root of a schema with a status subresource, the
x-kubernetes-validations fields). schemas/ledger/apiextensions-customresourcedefinition.json maps
each error of that file to its rule or says why it is not modelled.
"""

from __future__ import annotations

import json
import re

from generator.core.findings import Finding, child, joined
from generator.core.grammar import DNS1035_LABEL, DNS1123_SUBDOMAIN
from generator.validate.rules.base import dig

# `kubectl apply` (client-side) stores the object in an annotation of at most this many bytes.
APPLY_ANNOTATION_LIMIT = 262_144

_JUNCTORS = ("allOf", "anyOf", "oneOf", "not")
_FORBIDDEN_IN_JUNCTORS = ("type", "default", "description", "nullable", "additionalProperties")
_SCALARS = ("string", "integer", "number", "boolean")  # a tuple: `type` may be any value here


def compact_size(obj: dict) -> int:
    return len(json.dumps(obj, separators=(",", ":"), ensure_ascii=False).encode())


LIST_MAP_ENFORCED_SINCE = 18  # the apiserver accepts list-maps without keys before 1.18
RULES_SINCE = 25  # x-kubernetes-validations: CustomResourceValidationExpressions on by default
OPTIONAL_OLD_SELF_SINCE = 30  # optionalOldSelf: CRDValidationRatcheting on by default
SELECTABLE_FIELDS_SINCE = 31  # selectableFields: CustomResourceFieldSelectors on by default
PRESERVE_UNKNOWN_REFUSED_SINCE = 20  # validatePreserveUnknownFields

_SCHEMA_TYPES = ("array", "boolean", "integer", "number", "object", "string")  # openapiV3Types
_COLUMN_TYPES = ("boolean", "date", "integer", "number", "string")  # printerColumnDatatypes
_COLUMN_FORMATS = ("byte", "date", "date-time", "double", "float", "int32", "int64", "password")
_REASONS = ("FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired")
_REVIEW_VERSIONS = ("v1", "v1beta1")  # acceptedConversionReviewVersions
MAX_SELECTABLE_FIELDS = 8
# validate(): keywords a CRD schema may not use
_UNSUPPORTED = {
    "id": "id is not supported",
    "additionalItems": "additionalItems is not supported",
    "patternProperties": "patternProperties is not supported",
    "definitions": "definitions is not supported",
    "dependencies": "dependencies is not supported",
    "$ref": "$ref is not supported",
}
# allowedFieldsAtRootSchema, as JSON names: what the root of a schema may hold when the version
# has a status subresource (a field at its zero value does not count)
_ROOT_WITH_STATUS = frozenset(
    {
        "description", "type", "format", "title", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum",
        "maxLength", "minLength", "pattern", "maxItems", "minItems", "uniqueItems", "multipleOf", "required",
        "items", "properties", "externalDocs", "example", "x-kubernetes-preserve-unknown-fields",
        "x-kubernetes-validations",
    }
)  # fmt: skip
_META_FIELDS = ("metadata", "kind", "apiVersion")
_INT_OR_STRING = [{"type": "integer"}, {"type": "string"}]  # intOrStringAnyOf
_STRUCTURAL = ("crd-structural", "crd-int-or-string", "crd-metadata")  # structuralschema.ValidateStructural
_OLD_SELF = re.compile(r"\boldSelf\b")
_NEWLINE = re.compile(r"[\n\r]")
_PATH_STEP = re.compile(r"\.([^.\[\]]+)|\['((?:[^'\\]|\\.)*)'\]|\[(\d+)\]")


def crd_findings(crd: dict, minor: int | None = None) -> list[Finding]:
    """The structural rules for every schema of a CRD (any CRD, of any shape), and its size;
    ``minor``: the release it goes to (None: the newest rules)."""
    spec = crd.get("spec")
    if not isinstance(spec, dict):
        return []
    out = []
    if crd.get("apiVersion") == "apiextensions.k8s.io/v1":
        versions = spec.get("versions") if isinstance(spec.get("versions"), list) else []
        for i, version in enumerate(versions):
            schema = dig(version, "schema", "openAPIV3Schema")
            if isinstance(schema, dict):
                where = f"spec.versions[{i}].schema.openAPIV3Schema"
                out += check(schema, "v1", True, where, minor)
                if isinstance(dig(version, "subresources", "status"), dict):
                    out += _status_root_findings(schema, where)
        out += spec_findings(crd, spec, versions, minor)
    else:
        schema = dig(spec, "validation", "openAPIV3Schema")
        if isinstance(schema, dict):
            needs_structural = spec.get("preserveUnknownFields") is False
            out += check(schema, "v1beta1", needs_structural, "spec.validation.openAPIV3Schema")
    if minor is not None and minor < LIST_MAP_ENFORCED_SINCE:
        out = [f for f in out if f.rule != "crd-list-map"]
    size = compact_size(crd)
    if size > APPLY_ANNOTATION_LIMIT:
        message = (
            f"the CRD is {size:,} bytes of JSON, above the {APPLY_ANNOTATION_LIMIT:,} bytes client-side "
            "`kubectl apply` can store; use `kubectl create` or `kubectl apply --server-side`"
        )
        out.append(Finding("warning", "metadata.name", "crd-size", message))
    return out


def check(schema: dict, apiextensions: str, structural: bool, prefix: str, minor: int | None = None) -> list[Finding]:
    """Findings for one openAPIV3Schema; ``structural`` is whether the target requires it;
    ``minor``: the release it goes to (None: the newest rules)."""
    out: list[Finding] = []
    checker = _Checker(apiextensions, structural, out, minor, schema)
    checker.node(schema, prefix, root=True, in_junctor=False)
    checker.total_cost(prefix)
    # validateCustomResourceDefinitionValidation: NewStructural, ValidateStructural, then
    # structuraldefaulting.ValidateDefaults; only a schema whose defaults are valid gets a CEL
    # context (RootCELContext), so its rules are compiled only then.
    if not any(f.rule in _STRUCTURAL for f in out):
        defaults = default_findings(schema, prefix, minor) if checker.v1 else []
        out += defaults or checker.cel
    if checker.v1 and schema.get("nullable") is True:
        out.append(Finding("error", f"{prefix}.nullable", "crd-schema", "nullable cannot be true at the root"))
    return out


class _Checker:
    def __init__(self, apiextensions: str, structural: bool, out: list[Finding], minor: int | None = None, root=None):
        self.v1 = apiextensions == "v1"
        self.structural = structural
        self.out = out
        self.minor = minor
        self.rules = self.v1 and (minor is None or minor >= RULES_SINCE)
        self.cel: list[Finding] = []  # what compiling the rules reports
        self.root = root
        self._types = None  # celtypes.SchemaTypes of the root, made for the first rule
        self._costs = None  # celcost.TotalCost of the schema, made for the first rule
        self._decls: dict = {}  # celcost.schema_decl's cache
        self._cardinalities: dict[int, int | None] | None = None

    def error(self, path: str, rule: str, message: str) -> None:
        self.out.append(Finding("error", path, rule, message))

    def node(
        self,
        node: dict,
        path: str,
        root: bool = False,
        in_junctor: bool = False,
        meta: bool = False,
        no_defaults: bool = False,
        uncorrelated: bool = False,
    ) -> None:
        """``meta``: inside a resource's metadata, kind or apiVersion; ``no_defaults``: where
        defaults are forbidden (the root's meta fields, additionalProperties inside meta);
        ``uncorrelated``: below the items of a list that is no list-map (no oldSelf there)."""
        if not isinstance(node, dict):  # the JSONSchemaProps schema reports it (a `type` finding)
            return
        start = len(self.out)
        if self.v1:
            self._keywords(node, path, meta, no_defaults)
            if self.rules and "x-kubernetes-validations" in node:
                self._validations(node, path)
        if in_junctor and self.structural:
            for key in _FORBIDDEN_IN_JUNCTORS:
                if key in node:
                    self.error(
                        f"{path}.{key}", "crd-structural", f"`{key}` is not allowed inside anyOf/allOf/oneOf/not"
                    )
        if "default" in node and not self.v1:
            self.error(f"{path}.default", "crd-default", "a v1beta1 CRD may not set `default`; use apiextensions v1")
        int_or_string = node.get("x-kubernetes-int-or-string") is True
        preserve = node.get("x-kubernetes-preserve-unknown-fields") is True
        if self.structural and not in_junctor and "type" not in node and not (int_or_string or preserve):
            # ValidateStructural: field.Required(fldPath.Child("type"), "must not be empty for specified ... fields")
            self.error(f"{path}.type", "crd-structural", "a structural schema states `type` here")
        if int_or_string:
            self._int_or_string(node, path)
        props = node.get("properties") if isinstance(node.get("properties"), dict) else {}
        items = node.get("items") if isinstance(node.get("items"), dict) else {}
        extra = node.get("additionalProperties")
        if props and (isinstance(extra, dict) or extra is False):
            # field.Forbidden(fldPath.Child("additionalProperties"), "... mutual exclusive")
            message = "`properties` and `additionalProperties` exclude each other"
            self.error(f"{path}.additionalProperties", "crd-structural", message)
        if node.get("x-kubernetes-list-type") == "map":
            self._list_map(node, path)
        if node.get("x-kubernetes-list-type") == "set" and node.get("type") == "array":
            self._list_set(items, path)
        embedded = node.get("x-kubernetes-embedded-resource") is True
        for name, sub in props.items():
            sub_path = child(f"{path}.properties", name)
            if root and name == "metadata":
                self._root_metadata(sub, sub_path)
            in_meta = (root or embedded) and name in _META_FIELDS
            self.node(
                sub,
                sub_path,
                in_junctor=in_junctor,
                meta=meta or in_meta,
                no_defaults=no_defaults or (root and in_meta),
                uncorrelated=uncorrelated,
            )
        # Below a junctor the properties and items are value validations too (apiextensions'
        # validateNestedValueValidation, pkg/apiserver/schema/validation.go): no `type` there.
        if isinstance(node.get("additionalProperties"), dict):
            self.node(
                node["additionalProperties"],
                f"{path}.additionalProperties",
                in_junctor=in_junctor,
                meta=meta,
                no_defaults=no_defaults or meta,
                uncorrelated=uncorrelated,
            )
        if items:
            list_map = node.get("x-kubernetes-list-type") == "map"
            self.node(
                items,
                f"{path}.items",
                in_junctor=in_junctor,
                meta=meta,
                no_defaults=no_defaults,
                uncorrelated=uncorrelated or not list_map,
            )
        for junctor in _JUNCTORS:
            subs = node.get(junctor)
            if isinstance(subs, dict):
                subs = [subs]
            if int_or_string and junctor == "anyOf" and subs == _INT_OR_STRING:
                continue  # isIntOrStringAnyOfPattern: the types there are allowed
            for i, sub in enumerate(subs if isinstance(subs, list) else []):
                first_all_of = int_or_string and junctor == "allOf" and i == 0 and isinstance(sub, dict)
                if first_all_of and sub.get("anyOf") == _INT_OR_STRING:  # isIntOrStringAllOfPattern
                    sub = {key: value for key, value in sub.items() if key != "anyOf"}
                self.node(sub, f"{path}.{junctor}[{i}]", in_junctor=True, meta=meta, no_defaults=no_defaults)
        # The rules are compiled only where this node and those below it have no schema error.
        if self.rules and "x-kubernetes-validations" in node and len(self.out) == start:
            self._compiled(node, path, uncorrelated)

    def _list_set(self, items: dict, path: str) -> None:
        """requireAtomicSetType: the items of a list-set are scalars, atomic lists or atomic maps."""
        kind = items.get("type")
        atomic_list = kind == "array" and items.get("x-kubernetes-list-type", "atomic") == "atomic"
        atomic_map = kind == "object" and items.get("x-kubernetes-map-type") == "atomic"
        if kind in ("array", "object") and not (atomic_list or atomic_map):
            self.error(path, "crd-list-set", "the items of a list-set must be scalars or atomic lists or maps")

    def _keywords(self, node: dict, path: str, meta: bool, no_defaults: bool) -> None:
        """specStandardValidatorV3.validate and the keyword checks of
        ValidateCustomResourceDefinitionOpenAPISchema and validateMapListKeysMapSet."""
        kind = node.get("type")
        if isinstance(kind, str) and kind and kind not in _SCHEMA_TYPES:
            message = f"type {kind!r} is not one of {', '.join(_SCHEMA_TYPES)}"
            if kind == "null":
                message += "; use nullable: true"
            self.error(f"{path}.type", "crd-schema", message)
        if no_defaults and "default" in node:
            self.error(f"{path}.default", "crd-schema", "a default is not allowed in metadata, kind or apiVersion")
        for key, message in _UNSUPPORTED.items():
            if key in node and node[key] not in ("", None, {}):
                self.error(f"{path}.{key}", "crd-schema", message)
        if isinstance(node.get("items"), list):
            self.error(f"{path}.items", "crd-schema", "items must be a schema object and not an array")
        if meta and node.get("x-kubernetes-embedded-resource") is True:
            message = "x-kubernetes-embedded-resource must not be used inside of resource meta"
            self.error(f"{path}.x-kubernetes-embedded-resource", "crd-schema", message)
        if node.get("uniqueItems") is True:
            message = "uniqueItems cannot be true (the runtime complexity becomes quadratic)"
            self.error(f"{path}.uniqueItems", "crd-schema", message)
        if node.get("x-kubernetes-preserve-unknown-fields") is False:
            message = "x-kubernetes-preserve-unknown-fields must be true or unset"
            self.error(f"{path}.x-kubernetes-preserve-unknown-fields", "crd-schema", message)
        map_type = node.get("x-kubernetes-map-type")
        if isinstance(map_type, str):  # another type: the schema's `type` finding
            if kind != "object":
                self.error(f"{path}.type", "crd-schema", "type must be object if x-kubernetes-map-type is set")
            if map_type not in ("atomic", "granular"):
                message = f"x-kubernetes-map-type {map_type!r} is not one of atomic, granular"
                self.error(f"{path}.x-kubernetes-map-type", "crd-schema", message)
        list_type = node.get("x-kubernetes-list-type")
        if isinstance(list_type, str):
            if kind != "array":
                self.error(f"{path}.type", "crd-schema", "type must be array if x-kubernetes-list-type is set")
            if list_type not in ("atomic", "set", "map"):
                message = f"x-kubernetes-list-type {list_type!r} is not one of atomic, set, map"
                self.error(f"{path}.x-kubernetes-list-type", "crd-schema", message)
        keys = node.get("x-kubernetes-list-map-keys")
        if isinstance(keys, list) and keys and list_type != "map":
            message = "x-kubernetes-list-type must be map if x-kubernetes-list-map-keys is set"
            self.error(f"{path}.x-kubernetes-list-type", "crd-schema", message)
        items = node.get("items")
        if list_type in ("set", "map") and isinstance(items, dict) and items.get("nullable") is True:
            message = f"the items of a list of type {list_type} cannot be nullable"
            self.error(f"{path}.items.nullable", "crd-schema", message)

    def _validations(self, node: dict, path: str) -> None:
        """The x-kubernetes-validations fields (the schema part of
        ValidateCustomResourceDefinitionOpenAPISchema)."""
        rules = node["x-kubernetes-validations"]
        if not isinstance(rules, list):
            return
        for i, rule in enumerate(rules):
            if not isinstance(rule, dict):
                continue
            here = f"{path}.x-kubernetes-validations[{i}]"
            text = rule.get("rule") if isinstance(rule.get("rule"), str) else ""
            message = rule.get("message") if isinstance(rule.get("message"), str) else ""
            if not text.strip():
                self.error(f"{here}.rule", "crd-schema", "rule is not specified")
            elif message and not message.strip():
                self.error(f"{here}.message", "crd-schema", "message must be non-empty if specified")
            elif _NEWLINE.search(message.strip()):
                self.error(f"{here}.message", "crd-schema", "message must not contain line breaks")
            elif _NEWLINE.search(text.strip()) and not message.strip():
                self.error(f"{here}.message", "crd-schema", "message must be specified if rule contains line breaks")
            expression = rule.get("messageExpression")
            if isinstance(expression, str) and expression and not expression.strip():
                message = "messageExpression must be non-empty if specified"
                self.error(f"{here}.messageExpression", "crd-schema", message)
            reason = rule.get("reason")
            if isinstance(reason, str) and reason not in _REASONS:
                message = f"reason {reason!r} is not one of {', '.join(_REASONS)}"
                self.error(f"{here}.reason", "crd-schema", message)
            field_path = rule.get("fieldPath")
            if isinstance(field_path, str) and field_path:
                if not field_path.strip():
                    self.error(f"{here}.fieldPath", "crd-schema", "fieldPath must be non-empty if specified")
                if _NEWLINE.search(field_path):
                    self.error(f"{here}.fieldPath", "crd-schema", "fieldPath must not contain line breaks")
                if field_path.strip() and _resolve(node, field_path, allow_index=True)[1] is not None:
                    self.error(f"{here}.fieldPath", "crd-schema", f"fieldPath {field_path!r} must be a valid path")

    def _compiled(self, node: dict, path: str, uncorrelated: bool) -> None:
        """What compiling the rules reports (as far as modelled): a CEL syntax error, oldSelf where
        old and new values cannot be correlated, optionalOldSelf without oldSelf. Kept apart:
        the apiserver compiles no rule of a schema that is not structural (check drops them)."""
        rules = node["x-kubernetes-validations"]
        for i, rule in enumerate(rules if isinstance(rules, list) else []):
            text = rule.get("rule") if isinstance(rule, dict) else None
            if not isinstance(text, str) or not text.strip():
                continue
            here = f"{path}.x-kubernetes-validations[{i}]"
            expression = rule.get("messageExpression")
            if isinstance(expression, str) and expression.strip():
                problem = _syntax_problem(expression, self.minor)
                if problem:
                    self.cel.append(Finding("error", f"{here}.messageExpression", "crd-schema", problem))
            problem = _syntax_problem(text, self.minor)
            if problem:
                self.cel.append(Finding("error", f"{here}.rule", "crd-schema", problem))
                continue
            compiled = self._type_check(node, here, "rule", text)
            message_compiled = None
            if isinstance(expression, str) and expression.strip():
                message_compiled = self._type_check(node, here, "messageExpression", expression)
            if compiled is not None and rule.get("optionalOldSelf") is not True:
                self._cost(node, here, compiled, message_compiled)
            uses_old_self = bool(_OLD_SELF.search(text))
            if uses_old_self and uncorrelated:
                message = "oldSelf cannot be used below the items of a list that is not x-kubernetes-list-type: map"
                self.cel.append(Finding("error", f"{here}.rule", "crd-schema", message))
            optional = self.minor is None or self.minor >= OPTIONAL_OLD_SELF_SINCE
            if optional and not uses_old_self and rule.get("optionalOldSelf") is not None:
                message = "optionalOldSelf may not be set if oldSelf is not used in rule"
                self.cel.append(Finding("error", f"{here}.optionalOldSelf", "crd-schema", message))

    def _type_check(self, node: dict, here: str, field: str, expression: str):
        """The rule compiled with `self` typed by its node's schema (celtypes.py), as
        ValidateCustomResourceDefinitionOpenAPISchema compiles it: a property the schema does not
        have is "undefined field" there. Returns the compiled expression (None: it does not
        compile there)."""
        from generator.schema import kubernetes as kube
        from generator.validate.crd import celtypes, kubecel

        if self.root is None:
            return None
        if self._types is None:
            self._types = celtypes.SchemaTypes(self.root)
        release = kubecel.environment(self.minor if self.minor is not None else kube.newest())
        env = self._types.environment(release, node)
        if env is None:
            return None
        try:
            return env.compile(expression)
        except RuntimeError as err:
            names = celtypes.undefined_fields(str(err))
            if names:
                what = "rule" if field == "rule" else "messageExpression"
                message = (
                    f"the {what} does not compile: undefined field {names[0]!r}: the schema where the rule is "
                    "attached has no such property (self is typed by that schema node)"
                )
                self.cel.append(Finding("error", f"{here}.{field}", "crd-cel-field", message))
        return None

    def _cost(self, node: dict, here: str, compiled, message_compiled) -> None:
        """The static cost estimate of a rule and its messageExpression (celcost.py), as
        ValidateCustomResourceDefinitionOpenAPISchema judges it (validation.go lines 1247-1275):
        the rule's cost times its node's cardinality, and the messageExpression's alone, each at
        most StaticEstimatedCostLimit; both count toward the schema's total (total_cost)."""
        from cel_expr_python import cel

        from generator.validate.crd import celcost

        if self._cardinalities is None:
            self._cardinalities = celcost.cardinalities(self.root) if isinstance(self.root, dict) else {}
            self._costs = celcost.TotalCost()
        if id(node) not in self._cardinalities or self._costs is None:
            return  # inside allOf, anyOf, oneOf or not: no CEL context there
        decl = celcost.schema_decl(
            node, node is self.root or node.get("x-kubernetes-embedded-resource") is True, self._decls
        )
        if decl is None or compiled.return_type() != cel.Type.BOOL:  # no estimate upstream either
            return
        rule_cost = celcost.max_cost(compiled.serialize(), decl)
        if rule_cost is None:
            return
        cost = celcost.expression_cost(rule_cost, self._cardinalities[id(node)], decl)
        limit = celcost.STATIC_ESTIMATED_COST_LIMIT
        if cost > limit:
            message = celcost.cost_message("estimated rule cost", cost, limit)
            self.cel.append(Finding("error", f"{here}.rule", "crd-cel-cost", message))
        celcost.observe(self._costs, f"{here}.rule", cost)
        if message_compiled is None or message_compiled.return_type() != cel.Type.STRING:
            return
        message_cost = celcost.max_cost(message_compiled.serialize(), decl)
        if message_cost is None:
            return
        if message_cost > limit:
            message = celcost.cost_message("estimated messageExpression cost", message_cost, limit)
            self.cel.append(Finding("error", f"{here}.messageExpression", "crd-cel-cost", message))
        celcost.observe(self._costs, f"{here}.messageExpression", message_cost)

    def total_cost(self, prefix: str) -> None:
        """The schema's total (validation.go lines 950-959): past StaticEstimatedCRDCostLimit, the
        most expensive rules (at most 4, each at least 1% of the limit) and the schema itself."""
        from generator.validate.crd import celcost

        costs = self._costs
        limit = celcost.STATIC_ESTIMATED_CRD_COST_LIMIT
        if costs is None or costs.total <= limit:
            return
        for _cost, _seen, path in costs.most_expensive:
            message = "contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema"
            self.cel.append(Finding("error", path, "crd-cel-cost", message))
        name = "x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema"
        self.cel.append(Finding("error", prefix, "crd-cel-cost", celcost.cost_message(name, costs.total, limit)))

    def _int_or_string(self, node: dict, path: str) -> None:
        # structuralschema validateExtensions (apiextensions-apiserver pkg/apiserver/schema/
        # validation.go): field.Invalid, "must be false if x-kubernetes-int-or-string is true".
        # A `type` beside it is accepted (external-snapshotter's VolumeSnapshot CRD has
        # `type: string`); its anyOf (or allOf[0].anyOf) may be [{type: integer}, {type: string}],
        # any other junctor is a value validation, checked as such.
        for key in ("x-kubernetes-preserve-unknown-fields", "x-kubernetes-embedded-resource"):
            if node.get(key) is True:
                self.error(
                    f"{path}.{key}", "crd-int-or-string", f"{key} must be false if x-kubernetes-int-or-string is true"
                )

    def _list_map(self, node: dict, path: str) -> None:
        keys = node.get("x-kubernetes-list-map-keys")
        keys = [k for k in keys if isinstance(k, str)] if isinstance(keys, list) else []
        items = node.get("items") if isinstance(node.get("items"), dict) else {}
        # paths as ValidateCustomResourceDefinitionOpenAPISchema and validateMapListKeysMapSet name them
        if not keys:
            self.error(
                f"{path}.x-kubernetes-list-map-keys", "crd-list-map", "a list-map needs x-kubernetes-list-map-keys"
            )
        if isinstance(node.get("items"), list):
            self.error(f"{path}.items", "crd-list-map", "the items of a list-map must be one schema")
            return
        if items.get("type") != "object":
            where = f"{path}.items.type" if isinstance(node.get("items"), dict) else f"{path}.items"
            self.error(where, "crd-list-map", "the items of a list-map must be objects")
            return
        if len(set(keys)) < len(keys):
            self.error(
                f"{path}.x-kubernetes-list-map-keys", "crd-list-map", "x-kubernetes-list-map-keys must not repeat a key"
            )
        required = (
            {r for r in items.get("required") or [] if isinstance(r, str)}
            if isinstance(items.get("required"), list)
            else set()
        )
        item_props = items.get("properties") if isinstance(items.get("properties"), dict) else {}
        for key in keys:
            prop = item_props.get(key)
            prop = prop if isinstance(prop, dict) else None
            where = child(f"{path}.items.properties", key)
            if prop is None:
                message = f"list-map key {key!r} is not a property of the items"
                self.error(f"{path}.x-kubernetes-list-map-keys", "crd-list-map", message)
                continue
            if prop.get("type") in ("array", "object"):
                self.error(f"{where}.type", "crd-list-map", f"list-map key {key!r} must be a scalar")
            if prop.get("nullable") is True:
                self.error(f"{where}.nullable", "crd-list-map", f"list-map key {key!r} cannot be nullable")
            if key not in required and ("default" not in prop or not self.v1):
                needs = "required or defaulted" if self.v1 else "required (v1beta1 has no defaults)"
                self.error(f"{where}.default", "crd-list-map", f"list-map key {key!r} must be {needs}")

    def _root_metadata(self, node: dict, path: str) -> None:
        # Only `type: object` and restrictions of name and generateName are allowed there.
        if not isinstance(node, dict):
            return
        extra = set(node) - {"type", "description", "properties"}
        named = set(node.get("properties") if isinstance(node.get("properties"), dict) else {}) - {
            "name",
            "generateName",
        }
        if node.get("type") != "object" or extra or named:
            self.error(path, "crd-metadata", "the root metadata schema may only restrict name and generateName")


def default_findings(schema: dict, prefix: str, minor: int | None = None) -> list[Finding]:
    """structuraldefaulting.ValidateDefaults (apiextensions-apiserver pkg/apiserver/schema/defaulting
    validation.go) with requirePrunedDefaults, as on create: each `default` outside a resource's
    metadata, apiVersion and kind must be pruned (no unknown fields) and valid against the schema
    of its own node (ValidateCustomResource: types, enum, bounds, patterns, formats, required;
    the node's CEL rules too). Additional properties are not followed (no defaults there). The
    default is judged as written, as the apiserver's validator gets it: the defaults of the nodes
    below it are not applied first (`default: {}` whose required field has a default of its own
    is refused, "required")."""
    out: list[Finding] = []
    _defaults(schema, prefix, False, True, minor, out)
    return out


def _defaults(node, path: str, inside_meta: bool, root: bool, minor: int | None, out: list[Finding]) -> None:
    if not isinstance(node, dict):
        return
    resource = root or node.get("x-kubernetes-embedded-resource") is True
    if resource:
        inside_meta = False
    value = node.get("default")
    if value is not None and not inside_meta:
        out += _default_value(node, value, f"{path}.default", minor)
    items = node.get("items")
    if isinstance(items, dict):
        _defaults(items, f"{path}.items", inside_meta, False, minor, out)
    props = node.get("properties") if isinstance(node.get("properties"), dict) else {}
    for name, sub in props.items():
        meta = inside_meta or (resource and name in _META_FIELDS)
        _defaults(sub, child(f"{path}.properties", name), meta, False, minor, out)


def _default_value(node: dict, value, path: str, minor: int | None) -> list[Finding]:
    from generator.validate.crd.validator import CustomResourceValidator

    try:
        validator = CustomResourceValidator(node, strict=True, minor=minor)
    except (ValueError, TypeError, AttributeError, KeyError):
        # a schema that cannot be compiled (a field of the wrong shape: `properties: true`,
        # `anyOf: {}`): the keyword and structural checks above report what is wrong with it
        return []
    try:
        found = validator.findings(value, defaulted=False)
    except (ValueError, TypeError):  # jsonschema-rs refusing the compiled form: reported above
        return []
    out = []
    for finding in found:
        if finding.severity != "error" or finding.rule == "cel-unsupported":
            continue
        if finding.rule == "unknown-field":
            name = finding.path.rpartition(".")[2] or finding.path
            message = f"the default must not have unknown fields: {name!r} is not in its schema (pruning drops it)"
        else:
            message = f"the default does not validate against its own schema: {finding.message}"
        out.append(Finding("error", joined(path, finding.path), "crd-default-invalid", message))
    return out


def _zero(value) -> bool:
    """A JSONSchemaProps field at its Go zero value (false, "", an absent pointer; an empty list
    or map is taken as zero too)."""
    return value is None or value is False or value == "" or value == [] or value == {}


def _status_root_findings(schema: dict, path: str) -> list[Finding]:
    """validateCustomResourceDefinitionValidation with the status subresource on: the root is an
    object and holds only allowedFieldsAtRootSchema (status is extracted as properties.status)."""
    kind = schema.get("type")
    if not _zero(kind) and kind != "object":
        message = "only type object is allowed at the root of the schema if the status subresource is enabled"
        return [Finding("error", f"{path}.type", "crd-schema", message)]
    extra = sorted(key for key, value in schema.items() if key not in _ROOT_WITH_STATUS and not _zero(value))
    if extra:
        message = (
            f"{', '.join(extra)} not allowed at the root of the schema if the status subresource is enabled "
            "(only type, properties, required, items, validations and value constraints)"
        )
        return [Finding("error", path, "crd-schema", message)]
    return []


def _resolve(schema: dict, path: str, allow_index: bool) -> tuple[dict | None, str | None, str]:
    """cel.ValidFieldPath: the schema node a JSON path (".a.b", "['x']", "[0]") names, from
    ``schema``: (node, None, root field) or (None, why not, root field)."""
    node, position, root = schema, 0, ""
    text = path.strip()
    if not text:
        return None, "is empty", root
    while position < len(text):
        match = _PATH_STEP.match(text, position)
        if match is None:
            return None, "expected [ or . at " + repr(text[position:][:40]), root
        name, quoted, index = match.groups()
        position = match.end()
        if index is not None:
            if not allow_index:
                return None, "array notation is not allowed", root
            items = node.get("items") if isinstance(node, dict) else None
            if not isinstance(items, dict):
                return None, "does not refer to a valid field", root
            node = items
            continue
        key = name if name is not None else re.sub(r"\\(.)", r"\1", quoted)
        root = root or key
        props = node.get("properties") if isinstance(node.get("properties"), dict) else {}
        if props:
            if key not in props or not isinstance(props[key], dict):
                return None, "does not refer to a valid field", root
            node = props[key]
        elif isinstance(node.get("additionalProperties"), dict):
            node = node["additionalProperties"]
        elif node.get("additionalProperties") is True:  # any key, of no known schema
            node = {}
        else:
            return None, "does not refer to a valid field", root
    return node, None, root


def _syntax_problem(expression: str, minor: int | None) -> str | None:
    """The CEL parser's refusal of a rule (compilation failed: Syntax error), in the release's
    environment; a field the schema does not have is _type_check's (celtypes.py)."""
    from generator.schema import kubernetes as kube
    from generator.validate.crd import kubecel  # here: CEL only for a CRD with rules

    try:
        kubecel.environment(minor if minor is not None else kube.newest()).compile(expression)
    except kubecel.CelProblem as problem:
        text = str(problem)
        if "Syntax error" in text:
            return "it does not compile: Syntax error: " + text.split("Syntax error:", 1)[1].strip()[:300]
    return None


def _dns1035(value, path: str, what: str, lower: bool = False) -> list[Finding]:
    if isinstance(value, str) and value:
        checked = value.lower() if lower else value
        if len(checked) > 63 or not DNS1035_LABEL.match(checked):
            case = " (in lower case)" if lower else ""
            message = (
                f"{what} {value!r} must be a DNS-1035 label{case}: lower case letters, digits and '-', a letter first"
            )
            return [Finding("error", path, "crd-spec", message)]
    return []


def spec_findings(crd: dict, spec: dict, versions: list, minor: int | None) -> list[Finding]:
    """validateCustomResourceDefinitionSpec and the rest of ValidateCustomResourceDefinition for
    an apiextensions.k8s.io/v1 CRD on create (status is reset by the strategy, so only the spec,
    the name and the approval annotation count)."""
    out: list[Finding] = []

    def bad(path: str, message: str) -> None:
        out.append(Finding("error", path, "crd-spec", message))

    group = spec.get("group")
    names = spec.get("names") if isinstance(spec.get("names"), dict) else {}
    if isinstance(group, str):
        if not group:
            bad("spec.group", "group must not be empty")
        elif len(group) > 253 or not DNS1123_SUBDOMAIN.match(group):
            bad("spec.group", f"group {group!r} must be a DNS-1123 subdomain")
        elif "." not in group:
            bad("spec.group", f"group {group!r} should be a domain with at least one dot")
    name = dig(crd, "metadata", "name")
    plural = names.get("plural")
    if isinstance(name, str) and isinstance(plural, str) and isinstance(group, str) and name != f"{plural}.{group}":
        message = f"the name {name!r} must be spec.names.plural + '.' + spec.group ({plural}.{group})"
        out.append(Finding("error", "metadata.name", "name", message))
    scope = spec.get("scope")
    if isinstance(scope, str) and scope not in ("Cluster", "Namespaced"):
        bad("spec.scope", "scope must be Cluster or Namespaced" + (f", got {scope!r}" if scope else ""))
    out += _names_findings(names)
    preserve = spec.get("preserveUnknownFields") is True
    storage = 0
    seen: set[str] = set()
    twice = False
    for i, version in enumerate(versions):
        if not isinstance(version, dict):
            continue
        here = f"spec.versions[{i}]"
        storage += version.get("storage") is True
        vname = version.get("name")
        if isinstance(vname, str):
            twice = twice or vname in seen
            seen.add(vname)
            out += _dns1035(vname, f"{here}.name", "version name") if vname else []
            if not vname:
                bad(f"{here}.name", "a version name must not be empty")
        schema = dig(version, "schema", "openAPIV3Schema")
        if not isinstance(schema, dict):
            bad(f"{here}.schema.openAPIV3Schema", "schemas are required")
        elif preserve and _has_default(schema):
            bad("spec.preserveUnknownFields", "must be false in order to use defaults in the schema")
        out += _version_findings(version, here, schema if isinstance(schema, dict) else None, minor)
    if twice:
        bad("spec.versions", "must contain unique version names")
    if isinstance(spec.get("versions"), list) and storage != 1:
        bad("spec.versions", f"must have exactly one version marked as storage version, not {storage}")
    if preserve and minor is not None and minor < PRESERVE_UNKNOWN_REFUSED_SINCE:
        pass
    elif preserve:
        message = "cannot be true: set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead"
        bad("spec.preserveUnknownFields", message)
    conversion = spec.get("conversion")
    if isinstance(conversion, dict):
        out += _conversion_findings(conversion, preserve)
    out += _approval_findings(crd, group)
    return out


def _has_default(schema) -> bool:
    if isinstance(schema, dict):
        return "default" in schema or any(_has_default(v) for k, v in schema.items() if k != "default")
    if isinstance(schema, list):
        return any(_has_default(v) for v in schema)
    return False


def _names_findings(names: dict) -> list[Finding]:
    """The required names (singular and listKind are defaulted from kind) and
    ValidateCustomResourceDefinitionNames."""
    out = []
    kind = names.get("kind")
    for field in ("plural", "kind"):
        if names.get(field) == "":
            out.append(Finding("error", f"spec.names.{field}", "crd-spec", f"names.{field} must not be empty"))
    if names and not (isinstance(kind, str) and kind):  # nothing to default singular and listKind from
        for field in ("singular", "listKind"):
            if not names.get(field):
                message = f"names.{field} is required when names.kind is empty"
                out.append(Finding("error", f"spec.names.{field}", "crd-spec", message))
    out += _dns1035(names.get("plural"), "spec.names.plural", "plural")
    out += _dns1035(names.get("singular"), "spec.names.singular", "singular")
    out += _dns1035(kind, "spec.names.kind", "kind", lower=True)
    out += _dns1035(names.get("listKind"), "spec.names.listKind", "listKind", lower=True)
    for field, what in (("shortNames", "shortName"), ("categories", "category")):
        values = names.get(field)
        if isinstance(values, list):
            for i, value in enumerate(values):
                if isinstance(value, str):
                    out += _dns1035(value, f"spec.names.{field}[{i}]", what) if value else []
                    if not value:
                        message = f"{what} '' must be a DNS-1035 label"
                        out.append(Finding("error", f"spec.names.{field}[{i}]", "crd-spec", message))
    if isinstance(kind, str) and kind and kind == names.get("listKind"):
        out.append(Finding("error", "spec.names.listKind", "crd-spec", "kind and listKind may not be the same"))
    return out


def _version_findings(version: dict, here: str, schema: dict | None, minor: int | None) -> list[Finding]:
    """validateCustomResourceDefinitionVersion: the deprecation warning, the scale paths, the
    printer columns and the selectable fields."""
    out = []
    warning = version.get("deprecationWarning")
    if isinstance(warning, str):
        problem = None
        if version.get("deprecated") is not True:
            problem = "can only be set for deprecated versions"
        elif not warning:
            problem = "must not be an empty string"
        elif len(warning.encode()) > 256:
            problem = "must be <= 256 characters long"
        elif any(not c.isprintable() for c in warning):
            problem = "must only contain printable UTF-8 characters"
        if problem:
            out.append(Finding("error", f"{here}.deprecationWarning", "crd-spec", f"deprecationWarning {problem}"))
    scale = dig(version, "subresources", "scale")
    if isinstance(scale, dict):
        for field, under in (("specReplicasPath", (".spec.",)), ("statusReplicasPath", (".status.",))):
            value = scale.get(field)
            if value == "":
                out.append(Finding("error", f"{here}.subresources.scale.{field}", "crd-spec", f"{field} is required"))
            elif isinstance(value, str):
                out += _simple_path(value, f"{here}.subresources.scale.{field}", under)
        selector = scale.get("labelSelectorPath")
        if isinstance(selector, str) and selector:
            out += _simple_path(selector, f"{here}.subresources.scale.labelSelectorPath", (".spec.", ".status."))
    columns = version.get("additionalPrinterColumns")
    for i, column in enumerate(columns if isinstance(columns, list) else []):
        if isinstance(column, dict):
            out += _column_findings(column, f"{here}.additionalPrinterColumns[{i}]")
    fields = version.get("selectableFields")
    if isinstance(fields, list) and fields and (minor is None or minor >= SELECTABLE_FIELDS_SINCE):
        if schema is None:
            message = "selectableFields may only be set when version.schema.openAPIV3Schema is set"
            out.append(Finding("error", f"{here}.selectableFields", "crd-spec", message))
        else:
            out += _selectable_findings(fields, schema, f"{here}.selectableFields")
    return out


def _simple_path(value: str, path: str, under: tuple[str, ...]) -> list[Finding]:
    """validateSimpleJSONPath and the prefix a scale path must have."""
    if not value.startswith("."):
        return [Finding("error", path, "crd-spec", f"{value!r} must be a simple json path starting with '.'")]
    if not value.startswith(under):
        where = " or ".join(u[:-1] for u in under)
        return [Finding("error", path, "crd-spec", f"{value!r} should be a json path under {where}")]
    return []


def _column_findings(column: dict, here: str) -> list[Finding]:
    """ValidateCustomResourceColumnDefinition."""
    out = []
    if column.get("name") == "":
        out.append(Finding("error", f"{here}.name", "crd-spec", "a printer column needs a name"))
    kind = column.get("type")
    if isinstance(kind, str) and kind not in _COLUMN_TYPES:
        message = f"type {kind!r} must be one of {', '.join(_COLUMN_TYPES)}"
        out.append(Finding("error", f"{here}.type", "crd-spec", message))
    form = column.get("format")
    if isinstance(form, str) and form and form not in _COLUMN_FORMATS:
        message = f"format {form!r} must be one of {', '.join(_COLUMN_FORMATS)}"
        out.append(Finding("error", f"{here}.format", "crd-spec", message))
    json_path = column.get("jsonPath")
    if json_path == "":
        out.append(Finding("error", f"{here}.jsonPath", "crd-spec", "a printer column needs a jsonPath"))
    elif isinstance(json_path, str) and not json_path.startswith("."):
        message = f"{json_path!r} must be a simple json path starting with '.'"
        out.append(Finding("error", f"{here}.jsonPath", "crd-spec", message))
    return out


def _selectable_findings(fields: list, schema: dict, here: str) -> list[Finding]:
    """ValidateCustomResourceSelectableFields: each jsonPath a field of the schema (not under
    metadata) of type string, boolean or integer, once; at most 8."""
    out = []
    unique: set[str] = set()
    for i, item in enumerate(fields):
        json_path = item.get("jsonPath") if isinstance(item, dict) else None
        where = f"{here}[{i}].jsonPath"
        if json_path == "":
            out.append(Finding("error", where, "crd-spec", "a selectable field needs a jsonPath"))
            continue
        if not isinstance(json_path, str):
            continue
        node, problem, root = _resolve(schema, json_path, allow_index=False)
        if problem:
            out.append(Finding("error", where, "crd-spec", f"{json_path!r} is an invalid path: {problem}"))
            continue
        if root == "metadata":
            out.append(Finding("error", where, "crd-spec", f"{json_path!r} must not point to fields in metadata"))
        if node.get("type") not in ("string", "boolean", "integer"):
            message = f"{json_path!r} must point to a field of type string, boolean or integer"
            out.append(Finding("error", where, "crd-spec", message))
        key = json_path.strip()
        if key in unique:
            out.append(Finding("error", where, "crd-spec", f"{json_path!r} is selected twice"))
        unique.add(key)
    if len(unique) > MAX_SELECTABLE_FIELDS:
        message = f"{len(unique)} selectable fields: at most {MAX_SELECTABLE_FIELDS}"
        out.append(Finding("error", here, "crd-spec", message))
    return out


def _conversion_findings(conversion: dict, preserve: bool) -> list[Finding]:
    """validateCustomResourceConversion (the v1 fields webhook.clientConfig and
    webhook.conversionReviewVersions are the internal webhookClientConfig and
    conversionReviewVersions) and the strategy against preserveUnknownFields."""
    from generator.validate.rules.admissionregistration import client_config_findings

    out = []
    strategy = conversion.get("strategy")
    webhook = conversion.get("webhook") if isinstance(conversion.get("webhook"), dict) else {}
    config = webhook.get("clientConfig")
    versions = webhook.get("conversionReviewVersions")
    if isinstance(strategy, str) and strategy not in ("None", "Webhook"):
        shown = f"strategy {strategy!r}" if strategy else "an empty strategy"
        message = f"{shown} is neither Webhook nor the default (no conversion)"
        out.append(Finding("error", "spec.conversion.strategy", "crd-spec", message))
    if strategy == "Webhook":
        if preserve:
            message = "the strategy must be the default (no conversion) if spec.preserveUnknownFields is true"
            out.append(Finding("error", "spec.conversion.strategy", "crd-spec", message))
        if not isinstance(config, dict):
            message = "webhook.clientConfig is required when strategy is Webhook"
            out.append(Finding("error", "spec.conversion.webhook.clientConfig", "crd-spec", message))
        else:
            found = client_config_findings(config, "spec.conversion.webhook.clientConfig")
            out += [Finding(f.severity, f.path, "crd-spec", f.message) for f in found]
        if isinstance(versions, list):
            out += _review_version_findings(versions, "spec.conversion.webhook.conversionReviewVersions")
    else:
        if isinstance(config, dict):
            message = "webhook.clientConfig should not be set when strategy is not Webhook"
            out.append(Finding("error", "spec.conversion.webhook.clientConfig", "crd-spec", message))
        if isinstance(versions, list) and versions:
            message = "conversionReviewVersions should not be set when strategy is not Webhook"
            out.append(Finding("error", "spec.conversion.webhook.conversionReviewVersions", "crd-spec", message))
    return out


def _review_version_findings(versions: list, here: str) -> list[Finding]:
    """validateConversionReviewVersions (a recognized version required on create)."""
    if not versions:
        return [Finding("error", here, "crd-spec", "conversionReviewVersions must list one of v1, v1beta1")]
    out = []
    seen: set[str] = set()
    for i, version in enumerate(versions):
        if not isinstance(version, str):
            continue
        if version in seen:
            out.append(Finding("error", f"{here}[{i}]", "crd-spec", f"version {version!r} is listed twice"))
            continue
        seen.add(version)
        out += _dns1035(version, f"{here}[{i}]", "conversion review version")
        if not version:
            out.append(Finding("error", f"{here}[{i}]", "crd-spec", "a conversion review version must not be empty"))
    if all(isinstance(v, str) for v in versions) and not seen & set(_REVIEW_VERSIONS):
        out.append(
            Finding("error", here, "crd-spec", "conversionReviewVersions must include at least one of v1, v1beta1")
        )
    return out


_URI_START = re.compile(r"^(/|[A-Za-z][A-Za-z0-9+.-]*:)")
APPROVAL_ANNOTATION = "api-approved.kubernetes.io"


def _approval_findings(crd: dict, group) -> list[Finding]:
    """validateAPIApproval: a CRD of a protected group (k8s.io, kubernetes.io and their
    subdomains) carries api-approved.kubernetes.io: a URL, or a value starting with
    "unapproved"."""
    if not isinstance(group, str) or not (
        group in ("k8s.io", "kubernetes.io") or group.endswith((".k8s.io", ".kubernetes.io"))
    ):
        return []
    annotations = dig(crd, "metadata", "annotations")
    value = annotations.get(APPROVAL_ANNOTATION) if isinstance(annotations, dict) else None
    path = f"metadata.annotations[{APPROVAL_ANNOTATION}]"
    if not value:
        message = (
            f"a CRD of the protected group {group} needs the annotation {APPROVAL_ANNOTATION} (the URL of its "
            "API review, or 'unapproved, ...')"
        )
        return [Finding("error", path, "crd-spec", message)]
    if not isinstance(value, str) or value.startswith("unapproved"):
        return []
    if not _URI_START.match(value) or any(ord(c) < 0x20 or c == "\x7f" for c in value):
        message = f"{APPROVAL_ANNOTATION} {value[:100]!r} must be a URL (of its API review) or start with 'unapproved'"
        return [Finding("error", path, "crd-spec", message)]
    return []
