"""Extractors that turn pinned upstream releases into data under schemas/."""
