"""`python -m generator ...` is `paddlejob-manifests ...`."""

import sys

from generator.cli import entry_point

sys.exit(entry_point())
