"""Layer 3: where schemas come from: Kubernetes releases, third-party CRDs, our CRD."""
