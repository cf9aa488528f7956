"""Layer 2: jsonnet evaluation: the engine, the sandbox for user files, the formatter."""
