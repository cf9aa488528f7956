"""Custom resources: CRD schemas, formats, CEL and structural rules."""
