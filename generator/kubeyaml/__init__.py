"""Layer 1: YAML read and written as kubectl reads it (sigs.k8s.io/yaml over go-yaml v2)."""
