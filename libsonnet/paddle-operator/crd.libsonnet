// The PaddleJob CustomResourceDefinition, for apiextensions.k8s.io v1 and v1beta1.
//
// `api` is the generated API data: { group, version, names, scope, printerColumns, openAPIV3Schema }.
local name(api) = api.names.plural + '.' + api.group;

local metadata(api, labels) = {
  name: name(api),
  [if labels != {} then 'labels']: labels,
};

{
  // apiextensions.k8s.io/v1 (Kubernetes 1.16+): the schema and printer columns live per version.
  v1(api, labels={}):: {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: metadata(api, labels),
    spec: {
      group: api.group,
      names: api.names,
      scope: api.scope,
      versions: [{
        name: api.version,
        served: true,
        storage: true,
        schema: { openAPIV3Schema: api.openAPIV3Schema },
        subresources: { status: {} },
        additionalPrinterColumns: api.printerColumns,
      }],
    },
  },

  // apiextensions.k8s.io/v1beta1 (Kubernetes 1.11 ... 1.15): one schema for the CRD, spec-level
  // printer columns spelled `JSONPath`, and `version` next to `versions` for 1.11 clients.
  v1beta1(api, labels={}, preserveUnknownFields=false):: {
    apiVersion: 'apiextensions.k8s.io/v1beta1',
    kind: 'CustomResourceDefinition',
    metadata: metadata(api, labels),
    spec: {
      group: api.group,
      names: api.names,
      scope: api.scope,
      version: api.version,
      versions: [{ name: api.version, served: true, storage: true }],
      validation: { openAPIV3Schema: api.openAPIV3Schema },
      subresources: { status: {} },
      additionalPrinterColumns: [
        {
          name: column.name,
          type: column.type,
          JSONPath: column.jsonPath,
          [if std.objectHas(column, 'description') then 'description']: column.description,
        }
        for column in api.printerColumns
      ],
      // Known from Kubernetes 1.15 on: false turns on pruning of unknown fields.
      [if preserveUnknownFields != null then 'preserveUnknownFields']: preserveUnknownFields,
    },
  },
}
