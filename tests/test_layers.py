"""The house: packages are layers, and imports flow one way (docs/architecture.md writes the order).

Every `import` and `from ... import` in generator/, at module level or inside a function, is read
from the source; an import of a package in a higher layer, or a circle of modules, fails here.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from tests.conftest import REPO

PACKAGE = REPO / "generator"
ARCHITECTURE = REPO / "docs" / "architecture.md"


def layers() -> list[set[str]]:
    """The layer order as docs/architecture.md writes it, lowest first: each layer a set of packages."""
    text = ARCHITECTURE.read_text()
    match = re.search(r"<!-- layers -->\s*```\s*\n(.*?)\n```", text, re.S)
    assert match, "docs/architecture.md has no layers block"
    rows = [line.split("#")[0].strip() for line in match.group(1).splitlines()]
    order = [set(row.replace("|", " ").split()) for row in rows if row]
    return list(reversed(order))  # written top (cli) first


def module_name(path: Path) -> str:
    parts = path.relative_to(REPO).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path) -> set[str]:
    """The generator modules (or packages) that ``path`` imports, absolute and dotted."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package
                for _ in range(node.level - 1):
                    base = base.rpartition(".")[0]
                target = base + (f".{node.module}" if node.module else "")
            else:
                target = node.module or ""
            if target.split(".")[0] == "generator":
                for alias in node.names:
                    found.add(f"{target}.{alias.name}")
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.split(".")[0] == "generator")
    return found


def sources() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if "_data" not in p.parts)


def known_modules() -> set[str]:
    return {module_name(p) for p in sources()}


def resolve(target: str, modules: set[str]) -> str | None:
    """`generator.a.b.name` -> the longest module prefix (`generator.a.b`), or None for the root."""
    parts = target.split(".")
    for end in range(len(parts), 1, -1):
        head = ".".join(parts[:end])
        if head in modules:
            return head
    return None


def layer_of(module: str, order: list[set[str]]) -> int | None:
    """The index of the layer whose package holds ``module`` (the longest package prefix wins)."""
    best, best_len = None, -1
    for index, packages in enumerate(order):
        for package in packages:
            full = f"generator.{package}"
            if (module == full or module.startswith(full + ".")) and len(full) > best_len:
                best, best_len = index, len(full)
    return best


def _package(module: str) -> str:
    """generator.render.bundles -> render"""
    return module.split(".")[1]


def graph() -> dict[str, set[str]]:
    modules = known_modules()
    edges = {}
    for path in sources():
        name = module_name(path)
        targets = {resolve(t, modules) for t in imports_of(path)}
        edges[name] = {t for t in targets if t and t != name and t != "generator"}
    return edges


def test_every_module_belongs_to_a_layer():
    order = layers()
    loose = [m for m in sorted(known_modules()) if m not in ("generator", "generator.__main__")]
    assert [m for m in loose if layer_of(m, order) is None] == []


def test_imports_flow_down_the_layers():
    order = layers()
    upward = []
    for module, targets in sorted(graph().items()):
        mine = layer_of(module, order)
        for target in sorted(targets):
            theirs = layer_of(target, order)
            if mine is None or theirs is None:
                continue
            if theirs > mine:
                upward.append(f"{module} (layer {mine}) imports {target} (layer {theirs})")
            elif theirs == mine and _package(module) != _package(target):
                upward.append(f"{module} imports its sibling {target} (one layer, two packages)")
    assert upward == []


def test_no_import_circles():
    edges = graph()
    seen: dict[str, int] = {}  # 1: on the stack, 2: done
    circles = []

    def visit(node: str, stack: list[str]) -> None:
        seen[node] = 1
        for nxt in sorted(edges.get(node, ())):
            if nxt.startswith(node + "."):  # a package's __init__ importing its own modules is no circle
                continue
            if seen.get(nxt) == 1:
                circles.append(" -> ".join([*stack[stack.index(nxt) :], nxt]))
            elif nxt not in seen:
                visit(nxt, [*stack, nxt])
        seen[node] = 2

    for node in sorted(edges):
        if node not in seen:
            visit(node, [node])
    assert circles == []


def test_the_reader_finds_upward_imports():
    """The test's own reader: a relative import inside a function is seen and resolved."""
    path = PACKAGE / "kubeyaml" / "load.py"
    assert any(t.startswith("generator.") for t in imports_of(path))
    order = layers()
    assert layer_of("generator.cli.render", order) > layer_of("generator.validate.crd.cel", order)
    assert layer_of("generator.validate.crd.cel", order) > layer_of("generator.core.paths", order)


def test_command_handlers_share_only_flags_and_output():
    """cli/: each subcommand's module is a thin handler; what two of them share lives in flags.py
    or output.py, never in another handler."""
    shared = {"generator.cli", "generator.cli.flags", "generator.cli.output"}
    edges = graph()
    crossing = [
        f"{module} imports {target}"
        for module, targets in sorted(edges.items())
        if module.startswith("generator.cli.") and module not in shared
        for target in sorted(targets)
        if target.startswith("generator.cli") and target not in shared
    ]
    assert crossing == []
