"""Render the install bundles: schema -> jsonnet -> objects -> validation -> YAML on disk.

Nothing reaches the disk before every object of every bundle has passed
validation; then atomic.replace swaps every output folder in at once, so a failed
or killed render leaves deploy/ all old or all new.

The output folder is locked (atomic.lock) from the recovery of an interrupted render,
which `plan` does, to the end of `write` or `check`. `render --check` writes nothing of
its own: it only finishes a swap an interrupted render committed, through a journal that
atomic.read_journal accepts, or deletes that render's uncommitted staging folders; a
journal it would not have written is refused (OutputRefused, exit 2) and nothing is touched.
"""

from __future__ import annotations

import difflib
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from generator.core import provenance
from generator.core.errors import Error, InputError
from generator.core.files import NotRegularFile, read_regular
from generator.core.provenance import Provenance
from generator.core.text import visible
from generator.core.versions import KubeVersion
from generator.jobs.model import JobError, check_manifests
from generator.jsonnet import sandbox
from generator.kubeyaml.dump import dump_documents
from generator.kubeyaml.load import iter_documents, read_documents
from generator.render import atomic, bundles, chart, publish, upgrade
from generator.render.bundles import Bundle
from generator.render.publish import pretty_json
from generator.schema import crd as crdschema
from generator.schema import kubernetes
from generator.schema.kubernetes import apply_order
from generator.validate import ObjectChecker, locate_objects
from generator.validate.crd.structural import APPLY_ANNOTATION_LIMIT, compact_size
from generator.validate.output import finding_line, finding_text

SIZE_WARNING_SHARE = 0.8
MAX_REPORTED = 20


SOURCES = "schemas/paddlejob.v1.yaml and libsonnet/paddle-operator/"

# `kubectl create -f DIR` reads every *.yaml, *.yml and *.json in DIR; a kustomization.yaml
# there would be sent to the cluster as an object. kustomize also reads this name.
KUSTOMIZATION = "Kustomization"


class RenderError(Error):
    pass


class OutputRefused(InputError):
    """The output cannot be used as it is (a journal this tool did not write, another render
    writing it, a path under a file): exit 2, nothing touched; the message says what to do."""


@dataclass
class Rendered:
    files: dict[str, str] = field(default_factory=dict)  # path relative to the output dir -> text
    objects: dict[str, list[dict]] = field(default_factory=dict)  # bundle name -> its objects, in apply order
    summary: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def _span(target) -> str:
    """'1.19-1.37': the releases a bundle's target covers."""
    return f"{KubeVersion(target.min_minor)}-{KubeVersion(target.max_minor)}"


def evaluate_bundle(bundle: Bundle, params: dict, keep_descriptions: bool) -> dict[str, list[dict]]:
    try:
        return bundles.evaluate(bundle, params, keep_descriptions)
    except bundles.BundleError as err:
        raise RenderError(str(err)) from None


def _check_objects(bundle: Bundle, files: dict[str, list[dict]]) -> list[tuple]:
    """(file, document index, object, finding) for everything wrong in the bundle: the checker
    `validate` runs, against every release the bundle serves."""
    checker = ObjectChecker(bundle.minors[-1], releases=bundle.minors)
    problems = []
    for name, objects in files.items():
        for index, obj in enumerate(objects):
            problems += [(name, index, obj, finding) for finding in checker.check(obj)]
    return problems


def _error_report(bundle: Bundle, files: dict[str, str], problems: list[tuple]) -> str:
    lines = [f"the {bundle.name} bundle did not validate; nothing was written:"]
    shown = problems[:MAX_REPORTED]
    for name in dict.fromkeys(name for name, *_ in shown):
        mine = [(index, obj, finding) for file, index, obj, finding in shown if file == name]
        lines += ["  " + finding_line(item) for item in locate_objects(f"{bundle.name}/{name}", files[name], mine)]
    if len(problems) > MAX_REPORTED:
        lines.append(f"  ... and {len(problems) - MAX_REPORTED} more")
    lines.append("Fix the jsonnet in libsonnet/paddle-operator/ or the parameters, then render again.")
    return "\n".join(lines)


def render(
    bundles: list[Bundle], params: dict, keep_descriptions: bool = False, render_args: tuple[str, ...] = ()
) -> Rendered:
    """Build, validate and serialise every bundle in memory. ``render_args`` are the flags that
    shaped ``params``: each file records them, and the releases it serves (provenance.py)."""
    out = Rendered()
    for bundle in bundles:
        objects = evaluate_bundle(bundle, params, keep_descriptions)
        t = bundle.target
        header = Provenance(render_args, t.min_minor, t.max_minor).header(SOURCES)
        out.objects[bundle.name] = sorted((obj for objs in objects.values() for obj in objs), key=apply_order)
        texts = {name: dump_documents(objs, header) for name, objs in objects.items()}
        problems = _check_objects(bundle, objects)
        if any(finding.is_error for *_, finding in problems):
            raise RenderError(_error_report(bundle, texts, problems))
        for name, text in texts.items():
            out.files[f"{bundle.name}/{name}"] = text
        out.files[f"{bundle.name}/{KUSTOMIZATION}"] = _kustomization(sorted(objects), header)
        crd = objects["crd.yaml"][0]
        size = compact_size(crd)
        share = size / APPLY_ANNOTATION_LIMIT
        out.summary.append(
            f"{bundle.name}: apiextensions.k8s.io/{t.apiextensions} for Kubernetes {_span(t)}, "
            f"{sum(len(v) for v in objects.values())} objects validated against {len(bundle.minors)} releases; "
            f"CRD {size:,} bytes compact JSON ({share:.0%} of the {APPLY_ANNOTATION_LIMIT:,}-byte apply limit)"
        )
        if share > 1:
            out.warnings.append(
                f"{bundle.name}/crd.yaml is {size:,} bytes: too large for client-side `kubectl apply`; "
                "use `kubectl create` or `kubectl apply --server-side`"
            )
        elif share > SIZE_WARNING_SHARE:
            out.warnings.append(f"{bundle.name}/crd.yaml is {share:.0%} of the client-side apply limit")
    return out


# Kubeflow Trainer v2.3.0 needs Kubernetes 1.31 (docs/operator-guides/installation.md).
TRAINER_FIRST = 31
TRAINER_SOURCES = "libsonnet/paddlejob/runtimes/trainer.libsonnet"


def _trainer_files(render_args: tuple[str, ...]) -> dict[str, str]:
    """trainer/: the ClusterTrainingRuntimes of the kubeflow-trainer runtime's TrainJobs, for
    clusters with Kubeflow Trainer (`kubectl apply -f deploy/trainer/`, alone or with a bundle),
    validated against every release Trainer runs on."""
    newest = kubernetes.newest()
    objects = bundles.trainer_runtimes()
    checker = ObjectChecker(newest, releases=list(range(TRAINER_FIRST, newest + 1)))
    problems = [f for obj in objects for f in checker.check(obj) if f.is_error]
    if problems:
        raise RenderError(
            "trainer/runtimes.yaml did not validate:\n" + "\n".join(f"  {finding_text(p)}" for p in problems)
        )
    header = Provenance(render_args, TRAINER_FIRST, newest).header(TRAINER_SOURCES)
    return {
        "trainer/runtimes.yaml": dump_documents(objects, header),
        f"trainer/{KUSTOMIZATION}": _kustomization(["runtimes.yaml"], header),
    }


def _kustomization(resources: list[str], header: str) -> str:
    """A folder's Kustomization file: kustomize builds it from ``resources``."""
    return dump_documents([{"apiVersion": "kustomize.config.k8s.io/v1beta1", "kind": "Kustomization",
                            "resources": resources}], header)  # fmt: skip


def stream(bundle: Bundle, objects: list[dict], render_args: tuple[str, ...]) -> str:
    """One bundle as one YAML stream (for stdout), with the header its files have."""
    t = bundle.target
    return dump_documents(objects, Provenance(render_args, t.min_minor, t.max_minor).header(SOURCES))


def refuse_linked_out(out_dir: Path) -> None:
    """`render --check`: OutputRefused when ``out_dir`` itself is a symbolic link; a committed
    `deploy -> elsewhere` would make the check read, compare and print another folder."""
    if os.path.islink(out_dir):
        try:
            target = os.readlink(out_dir)
        except OSError:
            target = "?"
        raise OutputRefused(
            f"--out {out_dir}: a symbolic link (to {target!r}), not followed by render --check; "
            "nothing was compared; give --out the rendered folder itself"
        )


def recorded(out_dir: Path) -> tuple[str, list[str]] | None:
    """Where (FILE:LINE of one of them) and with which flags the bundles in ``out_dir`` were
    rendered (None: no file records any), as the folder stands once an interrupted render is
    recovered: through a committed journal each bundle it swaps is read from its staged folder;
    staging and old folders are never read. The flags are the file's to say: the caller checks
    each (cli/render.py parse_record)."""
    if not out_dir.is_dir():
        return None
    refuse_linked_out(out_dir)
    try:
        with atomic.lock(out_dir):
            return _recorded(out_dir)
    except (atomic.RefusedError, atomic.WriteError) as err:
        raise OutputRefused(str(err)) from None


def _recorded(out_dir: Path) -> tuple[str, list[str]] | None:
    entries = atomic.read_journal(out_dir, None) or []
    swapped = {e.target: e.staged for e in entries if e.target.parent == out_dir and os.path.lexists(e.staged)}
    folders = {out_dir / name for name in os.listdir(out_dir) if not name.startswith(".")} | set(swapped)
    found, lines = {}, {}
    for folder in sorted(folders):
        source = swapped.get(folder, folder)
        if not _real_folder(source):
            continue
        for name in sorted(os.listdir(source)):
            if name.endswith(".yaml"):
                head = _head(source / name)
                record = provenance.read(head) if head is not None else None
                if record is not None:
                    found[str(folder / name)] = record.render_args
                    lines[str(folder / name)] = head[: head.find(provenance.MARKER.encode())].count(b"\n") + 1
    if len(set(found.values())) > 1:
        listing = "; ".join(f"{name}: {' '.join(args) or '(no flags)'}" for name, args in found.items())
        raise provenance.ProvenanceError(
            f"the files in {out_dir} were rendered with different flags ({listing}); give the flags to check against"
        )
    name = next(iter(found), None)
    return (f"{name}:{lines[name]}", list(found[name])) if name is not None else None


MAX_COMPARED_BYTES = 64 << 20  # a file this large on disk differs from anything the render writes


def _disk_text(path: Path) -> str:
    """A regular file's text for the comparison, read without following a link and bounded."""
    try:
        data = read_regular(path, MAX_COMPARED_BYTES + 1)
    except NotRegularFile as err:
        return f"<{path.name}: {err.what}, not compared>\n"
    except OSError as err:
        return f"<{path.name}: cannot be read: {err.strerror or err}>\n"
    if len(data) > MAX_COMPARED_BYTES:
        return f"<{path.name}: over {MAX_COMPARED_BYTES:,} bytes, not compared>\n"
    return data.decode("utf-8", errors="replace")


def _real_folder(path: Path) -> bool:
    try:
        return stat.S_ISDIR(os.lstat(path).st_mode)
    except OSError:
        return False


def _head(path: Path) -> bytes | None:
    """The first bytes of ``path`` if it is a regular file; None (no record) for anything else: a
    link or a FIFO is not opened as one, a folder or a device is not read."""
    try:
        return read_regular(path, provenance.HEAD_BYTES)
    except (NotRegularFile, OSError):
        return None


def start_examples(examples_dir: Path):
    """Start evaluating examples/*.jsonnet in the sandbox; render_examples collects them. The
    child works on the other core while the bundles render."""
    sources = sorted(examples_dir.glob("*.jsonnet"))
    try:
        return sources, (sandbox.start(sources) if sources else None)
    except sandbox.SandboxError as err:
        raise RenderError(str(err)) from None


def render_examples(started) -> dict[str, str]:
    """deploy/examples/NAME.yaml for every examples/NAME.jsonnet, each validated; ``started`` is
    what start_examples returned (or a folder, to start and wait here)."""
    sources, pending = start_examples(started) if isinstance(started, Path) else started
    checker = ObjectChecker(kubernetes.newest())
    files = {}
    try:
        evaluated = pending.result() if pending is not None else []
    except sandbox.SandboxError as err:
        raise RenderError(str(err)) from None
    for source, data in zip(sources, evaluated, strict=True):
        manifests = data if isinstance(data, list) else [data]
        try:
            check_manifests(manifests, name=str(source), checker=checker)
        except JobError as err:
            raise RenderError(f"{source}: {err}") from None
        header = (
            f"# Generated by `paddlejob-manifests render` from examples/{source.name}.\n"
            "# Do not edit: change the example and run `make manifests`.\n"
        )
        # each custom-kind document names its JSON Schema, for editors (yaml-language-server)
        files[f"examples/{source.stem}.yaml"] = dump_documents(
            manifests, header, lambda obj: publish.modeline(obj, "../../schemas/jsonschema")
        )
    return files


def generated_api_files(chosen: list[Bundle]) -> dict[str, str]:
    """The data the operator's jsonnet library imports by default: the API (descriptions
    stripped) and the job library's Trainer runtimes (so the library needs no other library)."""
    files = {f"paddlejob-{b.name}.json": pretty_json(crdschema.api_data(b.target)) for b in chosen}
    files["trainer-runtimes.json"] = pretty_json(bundles.trainer_runtimes())
    return files


def generated_job_files() -> dict[str, str]:
    """What the job library checks a description against, from the PaddleJob schema (the one
    home of those values): the enums of spec's fields."""
    return {"spec-enums.json": pretty_json(crdschema.spec_enums())}


# -- disk ------------------------------------------------------------------------------------


def outputs(
    out: Path,
    files: dict[str, str],
    lib_out: Path | None,
    jsonschema_out: Path | None,
    api_doc: Path | None,
    runtimes_doc: Path | None = None,
    rules_doc: Path | None = None,
    chart_out: Path | None = None,
    job_lib_out: Path | None = None,
) -> list[tuple[Path, dict[str, str]]]:
    """Everything a render writes, as (base folder, {path under base: text}): deploy/ and the
    other generated files asked for. The top-level name under each base (a folder, or the API
    doc itself) is what the render owns, so stray files there count as drift too."""
    found = [(out, files)]
    for folder, make in (
        (lib_out, lambda: generated_api_files(bundles.default_bundles())),
        (job_lib_out, generated_job_files),
        (jsonschema_out, publish.jsonschema_files),
        (chart_out, _chart_files),
    ):
        if folder:
            found.append((folder.parent, {f"{folder.name}/{name}": text for name, text in make().items()}))
    if api_doc:
        found.append((api_doc.parent, {api_doc.name: publish.api_markdown()}))
    # prose around a generated table: the file's own text, the table anew
    for doc, rewrite in ((runtimes_doc, publish.with_runtimes_table), (rules_doc, publish.with_rule_index)):
        if doc:
            try:
                text = rewrite(doc.read_text(encoding="utf-8"))
            except (OSError, ValueError) as err:
                raise RenderError(f"{doc}: {err}") from None
            found.append((doc.parent, {doc.name: text}))
    return found


@dataclass(frozen=True)
class Generated:
    """What a render writes besides the bundles (`make manifests` asks for all of it)."""

    lib_out: Path | None = None
    job_lib_out: Path | None = None
    jsonschema_out: Path | None = None
    api_doc: Path | None = None
    runtimes_doc: Path | None = None
    rules_doc: Path | None = None
    chart_out: Path | None = None
    examples: Path | None = None
    trainer: bool = False  # trainer/: the Paddle runtimes for Kubeflow Trainer v2


@dataclass
class Plan:
    """A render done in memory, validated, not yet on disk: what `write` writes, `check` compares."""

    out: Path
    rendered: Rendered
    outputs: list[tuple[Path, dict[str, str]]]
    lock: atomic.Lock | None = None  # held on ``out`` from recovery until write or check is done

    def release(self) -> None:
        if self.lock is not None:
            self.lock.release()


def plan(
    chosen: list[Bundle],
    params: dict,
    out: Path,
    generated: Generated = Generated(),
    keep_descriptions: bool = False,
    render_args: tuple[str, ...] = (),
) -> Plan:
    """Render and validate the bundles and everything ``generated`` asks for, in memory (the
    examples' sandbox works on the other core meanwhile); finish a render an interruption left
    half-swapped in ``out`` first. RenderError says what failed; nothing is written."""
    examples = start_examples(generated.examples) if generated.examples else None
    try:
        rendered = render(chosen, params, keep_descriptions, render_args)
    except RenderError:
        if examples and examples[1] is not None:
            examples[1].child.kill()  # the sandbox started for the examples is not needed
        raise
    if examples is not None:
        rendered.files.update(render_examples(examples))
    if generated.trainer:
        rendered.files.update(_trainer_files(render_args))
    g = generated
    found = outputs(
        out,
        rendered.files,
        g.lib_out,
        g.jsonschema_out,
        g.api_doc,
        g.runtimes_doc,
        g.rules_doc,
        g.chart_out,
        g.job_lib_out,
    )
    targets = all_targets(found)
    check_folders(out, targets)
    held = None
    try:
        if out.is_dir():  # else there is nothing to recover, and write makes and locks it
            held = atomic.lock(out)
            atomic.recover(out, targets)
    except (atomic.RefusedError, atomic.WriteError) as err:
        if held is not None:
            held.release()
        raise OutputRefused(str(err)) from None
    except OSError as err:
        if held is not None:
            held.release()
        raise RenderError(f"cannot finish an interrupted render in {out}: {err}") from None
    return Plan(out, rendered, found, held)


def check_folders(out: Path, targets=()) -> None:
    """OutputRefused if ``out``, or the folder of an output, cannot be a folder: it, or a folder
    above it, is a file."""
    blocked = _file_on_the_way(out)
    if blocked is not None:
        where = "is a file" if blocked == out else f"is under {blocked}, which is a file"
        raise OutputRefused(
            f"--out {out}: {where}, not a folder; nothing was written; give --out a folder (made if missing)"
        )
    for target in targets:
        blocked = _file_on_the_way(target.parent)
        if blocked is not None:
            raise OutputRefused(
                f"{target}: {blocked} is a file, not a folder; nothing was written; "
                "give an output path whose folders are folders"
            )


def _file_on_the_way(path: Path) -> Path | None:
    """The first of ``path``'s folders (from the root down) and ``path`` itself that exists and
    is not a folder; None if there is none."""
    for folder in (*reversed(path.parents), path):
        try:
            if not stat.S_ISDIR(os.stat(folder).st_mode):
                return folder
        except FileNotFoundError:
            return None
        except OSError:
            return None  # unreadable: the write says why
    return None


def check(planned: Plan, exact: bool = False) -> tuple[Drift, list[str]]:
    """How the disk differs from ``planned``, and for each CRD it changes whether the change is safe."""
    try:
        drift = sum((diff_against_disk(base, files, exact) for base, files in planned.outputs), Drift())
        return drift, (upgrade_notes(planned.out, planned.rendered) if drift.diff else [])
    finally:
        planned.release()


def write(planned: Plan) -> list[str]:
    """Every file of ``planned``, swapped in at once (atomic.py); the paths written."""
    try:
        atomic.replace(planned.out, all_targets(planned.outputs))
    except atomic.RefusedError as err:
        raise OutputRefused(str(err)) from None
    except atomic.WriteError as err:
        raise RenderError(f"nothing was written: {err}") from None
    finally:
        planned.release()
    return [str(base / name) for base, files in planned.outputs for name in sorted(files)]


def _chart_files() -> dict[str, str]:
    try:
        return chart.files()
    except (chart.ChartError, bundles.BundleError) as err:
        raise RenderError(f"the Helm chart: {err}") from None


def all_targets(found: list[tuple[Path, dict[str, str]]]) -> dict[Path, dict[str, str] | str]:
    return {target: content for base, files in found for target, content in targets(base, files).items()}


def targets(base: Path, files: dict[str, str]) -> dict[Path, dict[str, str] | str]:
    """What ``files`` (paths under ``base``) replace: each top-level folder whole, or a file."""
    out: dict[Path, dict[str, str] | str] = {}
    for rel, text in files.items():
        top, sep, rest = rel.partition("/")
        if sep:
            folder = out.setdefault(base / top, {})
            assert isinstance(folder, dict)
            folder[rest] = text
        else:
            out[base / top] = text
    return out


@dataclass
class Drift:
    """How what is on disk differs from a fresh render."""

    diff: str = ""  # a unified diff of the objects (or text) that differ
    formatting: list[str] = field(default_factory=list)  # files holding the same objects, written otherwise

    def __add__(self, other: Drift) -> Drift:
        return Drift(self.diff + other.diff, self.formatting + other.formatting)


def _objects(text: str) -> str | None:
    """A canonical YAML dump of the objects in ``text``; None if it is not YAML (or JSON) data."""
    docs = []
    for doc in iter_documents(text):
        if any(p.severity == "error" for p in doc.problems):
            return None
        if doc.data is not None:
            docs.append(doc.data)
    if not docs or all(isinstance(d, str) for d in docs):  # markdown reads as one string
        return None
    return dump_documents(docs)


def upgrade_notes(out_dir: Path, rendered: Rendered) -> list[str]:
    """For each CRD on disk that the render changes: whether the new one is safe to apply over
    it (upgrade.py), what `kubectl apply` of the new bundle does to stored PaddleJobs."""
    notes = []
    for name in sorted(n for n in rendered.files if n.endswith("/crd.yaml")):
        path = out_dir / name
        try:
            (old,), _ = read_documents(_disk_text(path))  # a link is not followed: "<...>" is no CRD
            (new,), _ = read_documents(rendered.files[name])
        except (OSError, ValueError):
            continue  # no CRD there yet, or not one CRD: the diff says what differs
        if not (isinstance(old, dict) and isinstance(new, dict)) or old == new:
            continue
        found = upgrade.problems(old, new)
        # one line each: the committed CRD's version and field names are the pull request's
        notes += [visible(f"{path}: unsafe upgrade: {problem}") for problem in found]
        if not found:
            notes.append(visible(f"{path}: the new CRD is safe to apply over this one (no version or field removed)"))
    return notes


def diff_against_disk(out_dir: Path, files: dict[str, str], exact: bool = False) -> Drift:
    """What differs between disk and ``files``: objects first, so a file a YAML formatter
    rewrote (other quoting, indentation, key order) is "formatting" unless ``exact``.

    Only the top-level directories that ``files`` owns are compared: files
    there that the render would not write count as differences too.
    """
    drift = Drift()
    on_disk: dict[str, str] = {}
    chunks = []
    for top in sorted({rel.split("/", 1)[0] for rel in files}):
        base = out_dir / top
        for path in (base, *(sorted(base.rglob("*")) if _real_folder(base) else ())):
            try:
                mode = os.lstat(path).st_mode
            except OSError:
                continue
            rel = str(path.relative_to(out_dir))
            shown = visible(f"{out_dir.name}/{rel}")  # a committed name: one line, nothing hidden
            if stat.S_ISLNK(mode):  # never followed: a committed link must not show what lies outside
                chunks.append(f"a symbolic link, not followed (the render writes no link): {shown}\n")
            elif stat.S_ISREG(mode):
                on_disk[rel] = _disk_text(path)
            elif rel in files:  # a folder, FIFO or device where the render writes a file: never read
                what = "a folder" if stat.S_ISDIR(mode) else "not a regular file"
                chunks.append(f"{what} where the render writes a file: {shown}\n")
    for rel in sorted(set(on_disk) | set(files)):
        old, new = on_disk.get(rel), files.get(rel)
        if old == new:
            continue
        shown = visible(f"{out_dir.name}/{rel}")
        if old is not None and new is not None:
            old_objects, new_objects = _objects(old), _objects(new)
            if old_objects is not None and old_objects == new_objects:
                drift.formatting.append(f"{out_dir.name}/{rel}")
                if exact:
                    chunks.append(f"same objects, formatting differs: {shown}\n")
                continue
            if old_objects is not None and new_objects is not None and not exact:
                old, new = old_objects, new_objects  # the diff of the objects, not of the formatting
        diff = list(
            difflib.unified_diff(
                _lines(old or ""),
                _lines(new or ""),
                fromfile=f"{shown} (committed)" if old is not None else "/dev/null",
                tofile=f"{shown} (fresh render)" if new is not None else "/dev/null",
            )
        )
        # an empty file on one side only has no lines to diff, yet it is drift
        chunks.extend(diff or [f"only {'on disk' if new is None else 'in the render'}: {shown}\n"])
    # the lines as the file holds them (only newlines end one; a CR, U+2028 inside a line is
    # escaped), each as visible writes it: a diff shows committed text and runs none of it
    drift.diff = visible("".join(chunks), lines=True)
    return drift


def _lines(text: str) -> list[str]:
    """``text`` split after each newline alone (str.splitlines also splits at CR, U+2028 and
    other separators, which the diff then shows escaped inside the line they belong to)."""
    lines = text.split("\n")
    return [line + "\n" for line in lines[:-1]] + ([lines[-1]] if lines[-1] else [])
