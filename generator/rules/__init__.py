"""The rules beyond the JSON schemas, one module per owner (see rulebook.py for the owners and
every rule id): grammar.py is the value grammar they share, base.py the finding helpers;
meta.py (object), pod.py, paddlejob.py, volcano.py and kubeflow.py hold each owner's rules.

Each rule function takes one object (schema-checked or not: every access is defensive) and
returns Findings with paths relative to the object. The messages name the value found and
what is allowed, because that is what a user needs to fix it.
"""
