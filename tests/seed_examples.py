"""The YAML examples of the seed documents (../shared/seeds), extracted as they are.

The seeds are the upstream docs the project started from: markdown with
```yaml fences and reStructuredText with indented `.. code-block::` blocks.
Their examples, mistakes included, are test data nobody here wrote; the copies
under tests/fixtures/seeds/ keep the tests independent of shared/, and
test_seed_fixtures_are_fresh checks them against the seeds when present.

    python tests/seed_examples.py   # rewrite tests/fixtures/seeds/
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SEEDS = HERE.parent.parent / "shared" / "seeds"
FIXTURES = HERE / "fixtures" / "seeds"
_FENCE = re.compile(r"^```(\w*)\s*$")


def _markdown_blocks(lines: list[str]):
    inside, start, body = False, 0, []
    for number, line in enumerate(lines, 1):
        if _FENCE.match(line.strip()) and not inside:
            inside, start, body = True, number + 1, []
        elif line.strip() == "```" and inside:
            inside = False
            yield start, body
        elif inside:
            body.append(line)


def _rst_blocks(lines: list[str]):
    number = 0
    while number < len(lines):
        if lines[number].strip().startswith(".. code-block::"):
            body, start = [], number + 2
            number += 1
            while number < len(lines) and (not lines[number].strip() or lines[number].startswith((" ", "\t"))):
                body.append(lines[number])
                number += 1
            indent = min((len(b) - len(b.lstrip()) for b in body if b.strip()), default=0)
            yield start, [b[indent:] for b in body]
        else:
            number += 1


def examples(seed_dir: Path = SEEDS) -> dict[str, str]:
    """file name -> text, for every block that holds a Kubernetes object."""
    out = {}
    for seed in sorted(seed_dir.glob("*.txt")):
        lines = seed.read_text(encoding="utf-8").splitlines()
        blocks = list(_markdown_blocks(lines)) + list(_rst_blocks(lines))
        for start, body in sorted(blocks):
            while body and not body[0].strip():
                body, start = body[1:], start + 1
            if body and body[0].lstrip().startswith("$ cat"):
                body, start = body[1:], start + 1
            text = "\n".join(body).strip("\n") + "\n"
            if "apiVersion:" not in text or "kind:" not in text:
                continue
            name = f"{seed.stem.split('_')[0]}-line{start:04d}.yaml"
            out[name] = f"# from seeds/{seed.name}, line {start}; copied as it is, mistakes included\n{text}"
    return out


def main() -> int:
    FIXTURES.mkdir(parents=True, exist_ok=True)
    for old in FIXTURES.glob("*.yaml"):
        old.unlink()
    for name, text in examples().items():
        (FIXTURES / name).write_text(text, encoding="utf-8")
    print(f"wrote {len(list(FIXTURES.glob('*.yaml')))} examples to {FIXTURES}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
