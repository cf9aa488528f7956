"""`python -m generator ...` is `paddlejob-manifests ...`."""

import sys

from .cli import main

sys.exit(main())
