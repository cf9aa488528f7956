"""Replace several output trees all at once, so that deploy/ is all old or all new, even after a kill.

The render writes each target (a folder or a file) beside itself under a temporary name and
fsyncs it; then it writes a journal naming every (target, staged, old) triple and fsyncs
that: this is the commit point. Only then are the targets swapped in by renames. Whoever
runs next (`recover`, called by every render) finds either no journal, and deletes the
half-staged leftovers of a render that never committed, or a journal, and finishes its swap.
Files are 0644 and folders 0755 whatever the umask, so renders are byte- and mode-identical.

Kapitan's render-then-swap, with the write-ahead journal of a database.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
from pathlib import Path

JOURNAL = ".paddlejob-render.journal"
_NEW, _OLD = ".paddlejob-new-", ".paddlejob-old-"
FAULT_ENV = "PADDLEJOB_RENDER_FAULT"  # tests: SIGKILL the render before step N of the swap


class WriteError(Exception):
    """The output could not be written (nothing changed); the message names the path and why."""


class _Steps:
    """Counts the steps of a swap, and kills the process at the step a test asks for."""

    def __init__(self) -> None:
        fault = os.environ.get(FAULT_ENV, "")
        self.kill_at = int(fault) if fault.isdigit() else 0
        self.done = 0

    def __call__(self) -> None:
        self.done += 1
        if self.done == self.kill_at:
            os.kill(os.getpid(), signal.SIGKILL)


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _write_file(path: Path, text: str) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
        fh.write(text)
        fh.flush()
        os.fsync(fh.fileno())
    os.chmod(path, 0o644)


def _stage(target: Path, content: dict[str, str] | str, token: str) -> Path:
    """Write ``content`` (files of a folder, or one file's text) beside ``target``; fsynced."""
    target.parent.mkdir(parents=True, exist_ok=True)
    staged = target.parent / f"{_NEW}{target.name}-{token}"
    if isinstance(content, str):
        _write_file(staged, content)
        return staged
    staged.mkdir(mode=0o755)
    try:
        _fill(staged, content)
    except BaseException:
        _remove(staged)
        raise
    return staged


def _fill(staged: Path, content: dict[str, str]) -> None:
    folders = {staged}
    for rel, text in sorted(content.items()):
        path = staged / rel
        for parent in reversed(path.relative_to(staged).parents[:-1]):
            folder = staged / parent
            if folder not in folders:
                folder.mkdir(mode=0o755)
                folders.add(folder)
        _write_file(path, text)
    for folder in folders:
        os.chmod(folder, 0o755)
        _fsync_dir(folder)


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    elif path.exists() or path.is_symlink():
        path.unlink()


def replace(journal_dir: Path, targets: dict[Path, dict[str, str] | str]) -> None:
    """Make every target hold its new content, all of them or (on any failure) none."""
    recover(journal_dir, targets)
    token = secrets.token_hex(4)
    step = _Steps()
    staged: list[tuple[Path, Path]] = []
    try:
        journal_dir.mkdir(parents=True, exist_ok=True)
        if not journal_dir.is_dir():
            raise NotADirectoryError(20, "Not a directory", str(journal_dir))
        for target, content in targets.items():
            if target.exists() and target.is_dir() != isinstance(content, dict):
                kind = "a folder" if isinstance(content, dict) else "a file"
                raise WriteError(f"{target}: exists and is not {kind}; move it away")
            staged.append((target, _stage(target, content, token)))
        for parent in {t.parent for t in targets}:
            _fsync_dir(parent)
        entries = [
            {
                "target": _rel(target, journal_dir),
                "staged": _rel(new, journal_dir),
                "old": _rel(_old(target, token), journal_dir),
            }
            for target, new in staged
        ]
        step()
        _write_journal(journal_dir, entries)
    except OSError as err:
        for _, new in staged:
            _remove(new)
        raise WriteError(f"{err.filename or journal_dir}: {err.strerror or err}") from None
    except BaseException:
        for _, new in staged:
            _remove(new)
        raise
    _apply(journal_dir, entries, step)


def _old(target: Path, token: str) -> Path:
    return target.parent / f"{_OLD}{target.name}-{token}"


def _rel(path: Path, base: Path) -> str:
    return os.path.relpath(path, base)


def _write_journal(journal_dir: Path, entries: list[dict]) -> None:
    tmp = journal_dir / f"{JOURNAL}.tmp"
    tmp.unlink(missing_ok=True)
    _write_file(tmp, json.dumps(entries, indent=1))
    os.rename(tmp, journal_dir / JOURNAL)
    _fsync_dir(journal_dir)


def _apply(journal_dir: Path, entries: list[dict], step) -> None:
    """Roll the journal forward: idempotent, so a second run after a kill finishes the first."""
    for entry in entries:
        target, new, old = (journal_dir / entry[k] for k in ("target", "staged", "old"))
        if new.exists():
            if (target.exists() or target.is_symlink()) and not old.exists():
                step()
                os.rename(target, old)
            step()
            os.rename(new, target)
            _fsync_dir(target.parent)
    step()
    (journal_dir / JOURNAL).unlink()
    _fsync_dir(journal_dir)
    for entry in entries:
        _remove(journal_dir / entry["old"])


def recover(journal_dir: Path, targets=()) -> bool:
    """Finish a swap a killed render committed, or delete what an uncommitted one left.
    True if there was anything to do."""
    journal = journal_dir / JOURNAL
    acted = False
    if not journal_dir.is_dir():
        journal_dir = journal_dir.parent  # not made yet (or a file, which replace refuses): nothing of ours
    elif journal.is_file():
        try:
            entries = json.loads(journal.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            entries = None  # a journal that did not reach the disk whole was never committed
        if isinstance(entries, list):
            _apply(journal_dir, entries, lambda: None)
        else:
            journal.unlink()
        acted = True
    (journal_dir / f"{JOURNAL}.tmp").unlink(missing_ok=True)
    folders = {journal_dir} | {Path(t).parent for t in targets}
    for folder in folders:
        if folder.is_dir():
            for leftover in folder.iterdir():
                if leftover.name.startswith((_NEW, _OLD)):
                    _remove(leftover)
                    acted = True
    return acted
