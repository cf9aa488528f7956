"""Layer 5: training jobs: the model, its runtimes, convert and the legacy API."""
