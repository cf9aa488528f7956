"""kubectl is the oracle for how a YAML file reads: our reader must give the same data, and
what our writer emits must read back, in kubectl, as the data we meant.

kubectl decodes offline with `kubectl label --local -f FILE k=v -o json` (no cluster). Over
a table of scalars, as values and as mapping keys, we predict kubectl's data or its failure.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest

from generator.kubeyaml.dump import dump_documents
from generator.kubeyaml.load import iter_documents

pytestmark = pytest.mark.skipif(shutil.which("kubectl") is None, reason="kubectl is not installed")

# Every spelling YAML 1.1, go-yaml v2 or JSON might read as something other than a string.
SCALARS = [
    # booleans, in and out of go-yaml's table
    *[
        "y",
        "Y",
        "yes",
        "Yes",
        "YES",
        "yEs",
        "n",
        "N",
        "no",
        "No",
        "NO",
        "true",
        "True",
        "TRUE",
        "tRUE",
        "false",
        "False",
        "FALSE",
        "on",
        "On",
        "ON",
        "oN",
        "off",
        "Off",
        "OFF",
    ],
    "t",
    "f",
    "T",
    "F",
    "o",
    "O",
    "yes!",
    "nope",
    "onn",
    "offf",
    "Yy",
    "ye",
    # nulls
    "~",
    "null",
    "Null",
    "NULL",
    "nUll",
    "nil",
    "None",
    "none",
    "-",
    "--",
    # decimal integers
    "0",
    "1",
    "-1",
    "+1",
    "007",
    "010",
    "08",
    "09",
    "0009",
    "123",
    "-0",
    "+0",
    "1_000",
    "1__0",
    "_1",
    "1_",
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775808",
    "-9223372036854775809",
    "18446744073709551615",
    "18446744073709551616",
    "123456789012345678901234567890",
    "1" * 400,
    # octal, hexadecimal, binary
    "0o17",
    "0O17",
    "0o8",
    "-0o17",
    "+0o17",
    "0777",
    "0o",
    "0x1F",
    "0X1F",
    "0x1f",
    "-0x1F",
    "+0x10",
    "0x",
    "0xG",
    "0x_1F",
    "0b101",
    "-0b101",
    "+0b101",
    "0B101",
    "0b2",
    "0b",
    "0b_1",
    "0x7FFFFFFFFFFFFFFF",
    "0xFFFFFFFFFFFFFFFF",
    "0x10000000000000000",
    # floats
    "1.0",
    "1.",
    ".5",
    "-.5",
    "+.5",
    "0.5",
    "1e3",
    "1E3",
    "1e-3",
    "1e+3",
    "-1e3",
    "1.5e3",
    ".5e3",
    "1e",
    "e3",
    "1.5E-7",
    "1e308",
    "1e309",
    "-1e309",
    "1e-400",
    "1_000.5",
    "3.14159",
    "6.02e23",
    "1.0e+17",
    "1e21",
    "1e20",
    "0.1",
    "100.00",
    "1.2.3",
    "1e3.5",
    "0x1p3",
    "1,000",
    "12e",
    "2e5",
    "0e0",
    "-0.0",
    "+1.5",
    "00.5",
    "1e03",
    # special floats (JSON cannot carry these)
    ".nan",
    ".NaN",
    ".NAN",
    ".inf",
    ".Inf",
    ".INF",
    "+.inf",
    "-.inf",
    "-.Inf",
    "+.INF",
    ".nAn",
    "nan",
    "NaN",
    "inf",
    "Infinity",
    "-Infinity",
    ".",
    "..",
    "...x",
    # timestamps and sexagesimal numbers
    "2001-12-14",
    "2001-12-14t21:59:43.10-05:00",
    "2001-12-14 21:59:43.10",
    "2001-12-14T21:59:43Z",
    "2001-1-1",
    "2001-13-45",
    "20011214",
    "12:30",
    "190:20:30",
    "-12:30",
    "1:2:3",
    "12:30:00.5",
    "00:00",
    "24:00:00",
    # odd characters
    "=",
    "<<",
    "<",
    "x@",
    "x@y",
    "a:b",
    "http://x",
    "a b",
    "a#b",
    "x!",
    "x%",
    "x-y",
    "x_y",
    "x.y",
    "-x",
    "+x",
    ".x",
    "_x",
    "0a",
    "1a",
    "1 2",
    "0.0.0.0",
    "127.0.0.1",
    "v1",
    "1.0.0",
    "1-2",
    "2-1",
    "1/2",
    "k8s",
    "100m",
    "1Gi",
    "500Mi",
    "2Ki",
    "1E",
    "1Ei",
    "0.5Gi",
    "1.5",
    "-1.5",
    "+",
    "+-1",
    "--1",
    "++1",
    # words that are strings everywhere, as controls
    "paddle",
    "Always",
    "IfNotPresent",
    "PodIP",
    "Never",
    "OnFailure",
    "Y2K",
    "yesterday",
    "nothing",
    "offline",
    "online",
    "tree",
    "falsey",
    "nullable",
    "NoSchedule",
    "Exists",
    "TCP",
    "UDP",
]


def kubectl_decode(tmp_path, text: str, name: str = "doc.yaml"):
    """kubectl's JSON of a one-object file, or None when kubectl refuses it."""
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    done = subprocess.run(
        ["kubectl", "label", "--local", "-f", str(path), "probe=yes", "-o", "json"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    return json.loads(done.stdout) if done.returncode == 0 else None


def ours(text: str):
    """Our data of a one-object text, or None where we say kubectl fails."""
    docs = list(iter_documents(text))
    assert len(docs) == 1
    # errors of the reader are what kubectl fails on (a duplicate key is a warning: kubectl keeps the last)
    if any(p.severity == "error" for p in docs[0].problems):
        return None
    return docs[0].data


def same(a, b) -> bool:
    """Equal as kubectl sees JSON: numbers by value (1000 == 1000.0), never a bool for a number."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return float(a) == float(b) if isinstance(a, float) or isinstance(b, float) else a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and a == b


def thing(spec_lines: list[str]) -> str:
    body = "\n".join(f"  {line}" for line in spec_lines)
    return f"apiVersion: example.com/v1\nkind: Thing\nmetadata:\n  name: probe\nspec:\n{body}\n"


def test_the_table_is_large_and_has_no_repeats():
    assert len(SCALARS) >= 200
    assert len(set(SCALARS)) == len(SCALARS)


@pytest.mark.parametrize("where", ["value", "key"])
def test_our_reader_reads_every_scalar_as_kubectl_does(tmp_path, where, yaml_reader):
    def line(i: int, scalar: str) -> str:
        return f"v{i:03d}: {scalar}" if where == "value" else f"v{i:03d}: {{{scalar}: 1}}"

    accepted, refused, alone = [], [], {}
    for i, scalar in enumerate(SCALARS):
        alone[i] = ours(thing([line(i, scalar)]))  # each alone: the reader decides per document
        (refused if alone[i] is None else accepted).append((i, scalar))
    # one kubectl run for every scalar we accept: its data must be ours, read together and alone
    text = thing([line(i, s) for i, s in accepted])
    theirs = kubectl_decode(tmp_path, text)
    assert theirs is not None, "kubectl refused a document we read as valid"
    mine = ours(text)
    wrong = [
        (scalar, mine["spec"][f"v{i:03d}"], alone[i]["spec"][f"v{i:03d}"], theirs["spec"][f"v{i:03d}"])
        for i, scalar in accepted
        if not same(mine["spec"][f"v{i:03d}"], theirs["spec"][f"v{i:03d}"])
        or not same(alone[i]["spec"][f"v{i:03d}"], theirs["spec"][f"v{i:03d}"])
    ]
    assert wrong == []
    # each scalar we say kubectl fails on, alone: kubectl must fail on it
    for i, scalar in refused:
        assert kubectl_decode(tmp_path, thing([line(i, scalar)]), f"r{i}.yaml") is None, scalar
    assert len(accepted) > 150 and len(refused) >= 5


def test_explicit_tags_read_as_kubectl_reads_them(tmp_path, yaml_reader):
    cases = ["!!str 123", "!!int 12", "!!float 1", "!!bool true", "!!int abc", "!!bool maybe", "!!null ~", "!!str y"]
    for i, case in enumerate(cases):
        text = thing([f"v: {case}"])
        mine, theirs = ours(text), kubectl_decode(tmp_path, text, f"t{i}.yaml")
        assert (mine is None) == (theirs is None), case
        if mine is not None:
            assert same(mine["spec"], theirs["spec"]), case


def test_every_string_we_write_reads_back_as_that_string_in_kubectl(tmp_path):
    data = {
        "apiVersion": "example.com/v1",
        "kind": "Thing",
        "metadata": {"name": "probe", "labels": {"tier": "y", "gpu": "n"}},
        "spec": {f"v{i:03d}": scalar for i, scalar in enumerate(SCALARS)}
        | {scalar: f"k{i}" for i, scalar in enumerate(SCALARS)},
    }
    text = dump_documents([data])
    theirs = kubectl_decode(tmp_path, text)
    assert theirs is not None
    theirs["metadata"]["labels"].pop("probe")
    assert same(theirs, data)
    assert same(ours(text), data)


def test_rendered_bundle_with_ambiguous_labels_decodes_in_kubectl(tmp_path):
    from generator import cli

    out = tmp_path / "deploy"
    argv = ["render", "--out", str(out), "--label", "tier=y", "--node-selector", "gpu=n", "--label", "code=08"]
    assert cli.main(argv) == 0
    done = subprocess.run(
        ["kubectl", "label", "--local", "-f", str(out / "v1" / "operator.yaml"), "probe=yes", "-o", "json"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    decoder, text, objects, at = json.JSONDecoder(), done.stdout, [], 0
    while text[at:].strip():  # one JSON document per object
        obj, at = decoder.raw_decode(text, len(text) - len(text[at:].lstrip()))
        objects.append(obj)
    assert len(objects) >= 8
    assert all(o["metadata"]["labels"]["tier"] == "y" and o["metadata"]["labels"]["code"] == "08" for o in objects)
    deployment = next(o for o in objects if o["kind"] == "Deployment")
    assert deployment["spec"]["template"]["spec"]["nodeSelector"] == {"gpu": "n"}


def test_job_env_values_decode_as_strings_in_kubectl(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "generator", "job", "demo", "--image", "registry.example.com/demo:1",
         "--workers", "2", "--env", "FLAG=y", "--env", "RATE=1e3", "--env", "CODE=08"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    theirs = kubectl_decode(tmp_path, done.stdout)
    assert theirs is not None
    env = {e["name"]: e["value"] for e in theirs["spec"]["worker"]["template"]["spec"]["containers"][0]["env"]}
    assert {env["FLAG"], env["RATE"], env["CODE"]} == {"y", "1e3", "08"}


def test_a_duplicate_key_is_the_last_value_for_kubectl_and_refused_by_kustomize(tmp_path):
    """duplicate-key is a warning naming both verdicts: kubectl keeps the last value (so the
    apiserver never sees the first), `kubectl kustomize` refuses the file."""
    text = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: first\n  namespace: default\n  name: second\n"
    assert kubectl_decode(tmp_path, text)["metadata"]["name"] == "second"
    (doc,) = iter_documents(text)
    assert doc.data["metadata"]["name"] == "second"
    assert [(p.rule, p.severity) for p in doc.problems] == [("duplicate-key", "warning")]
    assert "kubectl" in doc.problems[0].message and "kustomize refuses" in doc.problems[0].message
    (tmp_path / "kustomization.yaml").write_text("resources:\n- doc.yaml\n")
    built = subprocess.run(["kubectl", "kustomize", str(tmp_path)], capture_output=True, text=True, timeout=60)
    assert built.returncode != 0 and "already defined" in built.stderr


# Decoding that once differed from kubectl's (issue 24): each case asks kubectl itself.
MERGES = [
    "metadata: {name: ok, <<: {name: NOT_VALID}}",  # a later merge replaces a key written before it
    "metadata: {<<: {name: merged}, name: ok}",  # a key written after the merge wins
    "metadata: {name: ok, <<: [{name: A}, {name: B}]}",  # of a list of merges, the first wins
    "metadata: {name: x}\nspec:\n  <<: {a: A}\n  <<: {a: B}\n  c: 1",  # of two merge keys, the later
    "metadata: {name: x}\nspec: {a: 1, <<: {a: A, b: B}, b: 2}",
    "m: &m {name: anchored, labels: {a: b}}\nmetadata: {name: ok, <<: *m}",
]


@pytest.mark.parametrize("case", range(len(MERGES)))
def test_merge_keys_read_as_kubectl_reads_them(tmp_path, case, yaml_reader):
    text = f"apiVersion: example.com/v1\nkind: Thing\n{MERGES[case]}\n"
    theirs = kubectl_decode(tmp_path, text)
    assert theirs is not None
    theirs["metadata"]["labels"].pop("probe")
    if not theirs["metadata"]["labels"]:
        theirs["metadata"].pop("labels")
    mine = ours(text)
    assert mine is not None and same(mine, theirs), (mine, theirs)


@pytest.mark.parametrize(
    ("scalar", "reads"),
    [
        (r'"a\/b"', False),  # YAML 1.2's escape for JSON: libyaml reads it, go-yaml v2 does not
        (r'"a\\\/b"', False),
        (r'"a\\/b"', True),  # an escaped backslash, then a slash
        (r"'a\/b'", True),  # no escapes in single quotes
        (r"a\/b", True),  # nor in a plain scalar
        (r'"\x41\u00e9\t"', True),
    ],
)
def test_escapes_read_as_kubectl_reads_them(tmp_path, scalar, reads, yaml_reader):
    text = thing([f"v: {scalar}", f"{scalar}: key"])
    theirs = kubectl_decode(tmp_path, text)
    assert (theirs is not None) == reads, theirs
    mine = ours(text)
    assert (mine is not None) == reads
    if reads:
        assert same(mine["spec"], theirs["spec"])


def test_an_anchor_defined_again_is_read_as_kubectl_reads_it(tmp_path, yaml_reader):
    text = thing(["a: &x first", "b: *x", "c: &x [second]", "d: *x", "e: {<<: &x {f: third}}", "g: *x"])
    theirs = kubectl_decode(tmp_path, text)
    assert theirs is not None
    mine = ours(text)
    assert mine is not None and same(mine["spec"], theirs["spec"]), (mine, theirs)


JSON_CASES = {
    "inf": ('{"x": 1e400}', False),
    "minus-inf": ('{"x": -1e400}', False),
    "400-digits": ('{"x": ' + "1" * 400 + "}", False),
    "beyond-int64": ('{"x": 18446744073709551617, "y": 9223372036854775808, "z": -9223372036854775809}', True),
    "int64": ('{"x": 9223372036854775807, "y": -9223372036854775808, "z": 1e3, "w": 2.0}', True),
    "lone-surrogates": ('{"x": "\\ud800", "y": "a\\udc00b", "\\uDBFF": "\\ud800\\ud800\\udc00"}', True),
    "surrogate-pair": ('{"x": "\\ud83d\\ude00"}', True),
}


@pytest.mark.parametrize("case", sorted(JSON_CASES))
def test_json_numbers_and_escapes_read_as_kubectl_reads_them(tmp_path, case):
    spec, reads = JSON_CASES[case]
    text = '{"apiVersion": "example.com/v1", "kind": "Thing", "metadata": {"name": "probe"}, "spec": ' + spec + "}"
    theirs = kubectl_decode(tmp_path, text, "doc.json")
    assert (theirs is not None) == reads, theirs
    mine = ours(text)
    assert (mine is not None) == reads, mine
    if reads:
        assert same(mine["spec"], theirs["spec"]), (mine["spec"], theirs["spec"])


@pytest.mark.parametrize(
    "inner",
    ["{apiVersion: v1, kind: List, items: []}", "{apiVersion: v1, kind: ConfigMapList, items: [{apiVersion: v1, "
     "kind: ConfigMap, metadata: {name: a}}]}", "{apiVersion: v1, kind: ConfigMap, metadata: {name: a}, items: []}"],
)  # fmt: skip
def test_a_list_in_a_list_is_refused_as_kubectl_refuses_it(tmp_path, inner):
    """kubectl flattens a List once; an item with a list of items fails the whole file."""
    from generator.validate import ObjectChecker

    text = f"apiVersion: v1\nkind: List\nitems:\n- {inner}\n"
    assert kubectl_decode(tmp_path, text) is None
    (doc,) = iter_documents(text)
    findings = ObjectChecker(32).check(doc.data)
    assert [(f.rule, f.path) for f in findings if f.is_error] == [("nested-list", "items[0]")]


def test_a_list_of_objects_is_read_as_kubectl_reads_it(tmp_path):
    """The near miss: items that are objects (a ConfigMap whose data holds `items`) pass, in kubectl too."""
    from generator.validate import ObjectChecker

    item = "{apiVersion: v1, kind: ConfigMap, metadata: {name: a}, data: {items: x}}"
    text = f"apiVersion: v1\nkind: List\nitems:\n- {item}\n"
    assert kubectl_decode(tmp_path, text) is not None
    (doc,) = iter_documents(text)
    assert [f for f in ObjectChecker(32).check(doc.data) if f.is_error] == []


FLOW_COLONS = ["[2001:db8::]", "[1.2.3.4, 2001:db8::]", "{k: [a::, b]}", "[a:, b]", "{k: x:, j: y}", "[::1]", "[a:?b]"]


@pytest.mark.parametrize("value", FLOW_COLONS)
def test_a_colon_before_a_flow_indicator_reads_as_kubectl_reads_it(tmp_path, value, yaml_reader):
    """go-yaml v2 keeps a `:` followed by `,]}` in a flow plain scalar (kubectl sends the IPv6
    address `2001:db8::`), where libyaml stops with "found unexpected ':'"; a scalar that starts
    with `:` fails in both."""
    text = f"apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: a}}\nx: {value}\n"
    theirs = kubectl_decode(tmp_path, text)
    mine = ours(text)
    assert (theirs is None) == (mine is None), (theirs, mine)
    if theirs is not None:
        assert same(theirs["x"], mine["x"])


def test_the_bound_on_colon_scalars_leaves_a_document_kubectl_reads_alone(tmp_path):
    """MAX_FLOW_COLONS such scalars in one document read as kubectl reads them; one more is an
    error that names this tool's limit (each costs libyaml a parse)."""
    from generator.kubeyaml.compose import MAX_FLOW_COLONS

    def text(count: int) -> str:
        items = ", ".join(f"2001:db8:{i}::" for i in range(count))
        return f"apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: a}}\nx: [{items}]\n"

    theirs = kubectl_decode(tmp_path, text(MAX_FLOW_COLONS))
    assert theirs is not None and same(theirs["x"], ours(text(MAX_FLOW_COLONS))["x"])
    (doc,) = iter_documents(text(MAX_FLOW_COLONS + 1))
    assert doc.data is None and "limit of this tool" in doc.problems[0].message
