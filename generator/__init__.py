"""paddlejob-manifests: the PaddlePaddle operator's manifests and PaddleJob training jobs, validated."""

__version__ = "0.2.0"  # the one place the version is written; pyproject.toml reads it
