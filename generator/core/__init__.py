"""Layer 0: facts every layer shares (paths, findings, the rulebook, grammar, errors)."""
