"""The rules beyond the JSON schemas, one module per owner (see rulebook.py for the owners and
every rule id): grammar.py is the value grammar they share, base.py the finding helpers,
selector.py label selectors; meta.py (object), pod.py, paddlejob.py, volcano.py and
kubeflow.py hold each owner's rules, and one module per built-in API group (core.py, apps.py,
batch.py, networking.py, autoscaling.py, policy.py, rbac.py, storage.py, scheduling.py) the
apiserver's validation of that group's kinds, mapped kind by kind in builtin.py.

Each rule function takes one object (schema-checked or not: every access is defensive) and
returns Findings with paths relative to the object. The messages name the value found and
what is allowed, because that is what a user needs to fix it.
"""
