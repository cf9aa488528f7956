"""Print the process environment as JSON: what the pod's command really sees, after the
controller's additions, the kubelet's $(VAR) expansion and any shell wrapper."""

import json
import os

print("ENV " + json.dumps(dict(os.environ)), flush=True)
