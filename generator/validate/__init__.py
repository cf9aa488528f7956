"""Layer 4: `validate`: objects checked as the apiserver and controllers would."""
