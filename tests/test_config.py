"""validate's configuration file: --config FILE, else .paddlejob-manifests.yaml from the current
folder up to the repository's root, else [tool.paddlejob-manifests] in pyproject.toml; every
flag by its long name, parsed as the flag is; flags given win; an unknown key refused with the
nearest name, the file and the line; what chooses the programs --build runs never from a file.
And CRD schemas from a catalog folder (GROUP/KIND_VERSION.json) given once, there or with --crd."""

from __future__ import annotations

import json
import subprocess
import sys

from .conftest import REPO

BAD = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: Bad_Name}\n"
SECRET = "apiVersion: v1\nkind: Secret\nmetadata: {name: s}\n"
WIDGETS = (
    "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\nspec: {size: 0}\n"
    "---\napiVersion: example.com/v1\nkind: Widget\nmetadata: {name: ok}\nspec: {size: 2}\n"
)


def validate(cwd, *argv: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "generator", "validate", *argv],
        cwd=cwd, capture_output=True, text=True, timeout=120,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(REPO)},
    )  # fmt: skip


def repository(tmp_path):
    (tmp_path / ".git").mkdir(parents=True)
    (tmp_path / "apps" / "web").mkdir(parents=True)
    (tmp_path / "apps" / "web" / "a.yaml").write_text(BAD + "---\n" + SECRET)
    return tmp_path / "apps" / "web"


def test_the_file_at_the_repository_root_is_found_from_a_folder_below(tmp_path):
    below = repository(tmp_path)
    (tmp_path / ".paddlejob-manifests.yaml").write_text("skip-kinds: [Secret, ConfigMap]\nfail-on-empty: true\n")
    done = validate(below, "a.yaml")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 skipped (ConfigMap: 1, Secret: 1; --skip-kinds)" in done.stdout
    given = validate(below, "--skip-kinds", "Secret", "a.yaml")  # the flag wins over the file
    assert given.returncode == 1 and "Bad_Name" in given.stdout
    assert validate(below, "--no-config", "a.yaml").returncode == 1


def test_the_search_stops_at_the_repository_root(tmp_path):
    (tmp_path / ".paddlejob-manifests.yaml").write_text("skip-kinds: [ConfigMap, Secret]\n")
    below = repository(tmp_path / "repo")
    assert validate(below, "a.yaml").returncode == 1  # the file above the repository is not read


def test_pyproject_table_and_every_value_parsed_as_its_flag(tmp_path):
    below = repository(tmp_path)
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "x"\n\n[tool.paddlejob-manifests]\nkube-version = "1.20"\noutput = ["json"]\n'
        'skip-kinds = "Secret"\n'
    )
    done = validate(below, "a.yaml")
    report = json.loads(done.stdout)
    assert report["summary"]["skipped"]["kinds"] == {"Secret": 1} and report["errors"] == 1
    (tmp_path / "pyproject.toml").write_text('[tool.paddlejob-manifests]\n\nkube-version = "1.99"\n')
    bad = validate(below, "a.yaml")
    assert bad.returncode == 2 and "pyproject.toml:3: kube-version" in bad.stderr, bad.stderr


def test_an_unknown_key_is_refused_with_the_nearest_name_file_and_line(tmp_path):
    below = repository(tmp_path)
    (tmp_path / ".paddlejob-manifests.yaml").write_text("# settings\nkube-version: '1.30'\nskip-kind: [Secret]\n")
    done = validate(below, "a.yaml")
    assert done.returncode == 2
    assert f"{tmp_path}/.paddlejob-manifests.yaml:3: no setting 'skip-kind'; did you mean 'skip-kinds'?" in done.stderr


def test_the_programs_build_runs_are_never_chosen_by_the_file(tmp_path):
    below = repository(tmp_path)
    for setting in ("kubectl: /bin/sh", "helm: ./helm", "build-unconfined: true"):
        (tmp_path / ".paddlejob-manifests.yaml").write_text(setting + "\n")
        done = validate(below, "a.yaml")
        assert done.returncode == 2 and "for the command line only" in done.stderr, setting
    (tmp_path / ".paddlejob-manifests.yaml").write_text("output: [sarif=/tmp/../etc/x.sarif]\n")
    outside = validate(below, "a.yaml")
    assert outside.returncode == 2 and "outside the configuration file's folder" in outside.stderr


def test_config_flag_names_the_file_and_outputs_land_beside_it(tmp_path):
    below = repository(tmp_path)
    (tmp_path / "ci.yaml").write_text("output: [text, sarif=results.sarif]\n")
    done = validate(below, "--config", "../../ci.yaml", "a.yaml")
    assert done.returncode == 1 and done.stdout.strip().endswith("(invalid)")
    assert json.loads((tmp_path / "results.sarif").read_text())["runs"][0]["results"]
    assert validate(below, "--config", "missing.yaml", "a.yaml").returncode == 2


def test_crds_from_a_catalog_folder_given_once_in_the_file(tmp_path):
    catalog = tmp_path / "schemas" / "example.com"
    catalog.mkdir(parents=True)
    spec = {"type": "object", "required": ["size"], "properties": {"size": {"type": "integer", "minimum": 1}}}
    schema = {
        "type": "object",
        "properties": {"apiVersion": {"type": "string"}, "kind": {"type": "string"}, "spec": spec},
        "additionalProperties": False,
    }
    (catalog / "widget_v1.json").write_text(json.dumps(schema))
    (tmp_path / ".git").mkdir()
    (tmp_path / "w.yaml").write_text(WIDGETS)
    (tmp_path / ".paddlejob-manifests.yaml").write_text("crds: [schemas]\n")
    done = validate(tmp_path, "w.yaml")
    assert done.returncode == 1 and "w.yaml:4:8: error: Widget/w: spec.size: 0 is less than the minimum" in done.stdout
    assert "Widget/ok" not in done.stdout and "unknown-kind" not in done.stdout


def test_the_file_reads_no_crd_outside_its_folder(tmp_path):
    """A CRD the file names is read only from its own folder tree: a file a pull request commits
    cannot make a run read (or tell the existence of) a file elsewhere on the machine."""
    below = repository(tmp_path)
    secret = tmp_path.parent / f"{tmp_path.name}-secret.env"
    secret.write_text("TOKEN=s3cret\n")
    (tmp_path / "link.yaml").symlink_to(secret)
    for entry in (str(secret), f"../{secret.name}", "link.yaml"):
        (tmp_path / ".paddlejob-manifests.yaml").write_text(f"crds: [{entry}]\n")
        done = validate(below, "a.yaml")
        assert done.returncode == 2 and "outside the configuration file's folder" in done.stderr, entry
        assert "s3cret" not in done.stdout + done.stderr
    (tmp_path / ".paddlejob-manifests.yaml").write_text("crds: [crds/]\n")  # inside: read as before
    (tmp_path / "crds").mkdir()
    (tmp_path / "crds" / "widget.yaml").write_text(
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: widgets.example.com}\n"
        "spec:\n  group: example.com\n  names: {kind: Widget, plural: widgets}\n  scope: Namespaced\n"
        "  versions: [{name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object}}}]\n"
    )
    inside = validate(below, "a.yaml")
    assert inside.returncode == 1 and "outside" not in inside.stderr, inside.stderr  # a.yaml's own findings
