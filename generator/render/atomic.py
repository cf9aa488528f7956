"""Replace several output trees all at once, so that deploy/ is all old or all new, even after a kill.

The render writes each target (a folder or a file) beside itself under a temporary name and
fsyncs it; then it writes a journal naming every (target, staged, old) triple and fsyncs
that: this is the commit point. Only then are the targets swapped in by renames. Whoever
runs next (`recover`, called by every render and `render --check`) finds either no journal,
and deletes the half-staged leftovers of a render that never committed, or a journal, and
finishes its swap. Files are 0644 and folders 0755 whatever the umask, so renders are byte-
and mode-identical.

The journal is input like any file of a pull request, so it is believed only when it could
be this tool's own: every path it names is a plain name under the journal's folder (no `..`,
no absolute path, no symlinked folder on the way) or a target of this very run (`--api-doc`,
`--lib-out`, ...), and its staged and old names are the `.paddlejob-new-NAME-TOKEN` /
`.paddlejob-old-NAME-TOKEN` siblings of their target, one TOKEN for all; no target lies inside
another (a render's never do), and a staged folder holds only files and folders, so that no swap
can lead a later one through a link. Recovery checks each target's folders again (lstat) right
before its renames. Anything else (not JSON, too large, a symlink, a FIFO, a folder, an entry
that fails a rule) raises RefusedError before anything is touched. `render --check` finishes a
swap only through such a journal: that writes nothing but what the interrupted render had
committed to write.

A render holds an exclusive flock on the output folder itself from recovery through staging
to the end of the swap (and `render --check` from recovery to the end of its comparison), so
two renders into one folder take turns instead of deleting each other's staging folders; the
kernel drops the lock when its holder dies, so it can never be stale. A render that finds it
held waits up to LOCK_WAIT seconds, then refuses, naming the holder's pid (/proc/locks).

Kapitan's render-then-swap, with the write-ahead journal of a database.
"""

from __future__ import annotations

import fcntl
import itertools
import json
import os
import re
import secrets
import shutil
import signal
import stat
import time
from collections.abc import Iterable
from pathlib import Path
from typing import NamedTuple

from generator.core.errors import Error
from generator.core.files import NotRegularFile, read_regular

JOURNAL = ".paddlejob-render.journal"
_NEW, _OLD = ".paddlejob-new-", ".paddlejob-old-"
_LEFTOVER = re.compile(r"\.paddlejob-(?:new|old)-.+-[0-9a-f]{8}\Z", re.DOTALL)
_TOKEN = re.compile(r"[0-9a-f]{8}\Z")
FAULT_ENV = "PADDLEJOB_RENDER_FAULT"  # tests: SIGKILL the render before step N of the swap
LOCK_WAIT_ENV = "PADDLEJOB_RENDER_LOCK_WAIT"  # seconds a render waits for another one (default LOCK_WAIT)
LOCK_WAIT = 30.0
MAX_JOURNAL_BYTES = 1 << 20  # ours is about 200 bytes a target
MAX_ENTRIES = 1000
MAX_STAGED_NAMES = 100_000  # names in one staged folder of a journal (a render stages a few hundred)
_DELETE_IT = "if a render of yours was interrupted, run that same render again (same --out and output flags); "


class WriteError(Error):
    """The output could not be written (nothing changed); the message names the path and why."""


class RefusedError(Exception):
    """The output folder holds what this tool did not make (a journal pointing elsewhere, ...) or
    another render is writing it; nothing was touched. The message says what to do."""


class Entry(NamedTuple):
    """One target of a committed swap, with its staged and old siblings (absolute or as given)."""

    target: Path
    staged: Path
    old: Path


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


# -- the lock ------------------------------------------------------------------------------------

_HELD: dict[str, list] = {}  # real path of a locked folder -> [its fd, how many holds]


class Lock:
    """An exclusive flock on a folder, re-entrant within the process; release() once per lock()."""

    def __init__(self, key: str) -> None:
        self.key = key
        self.released = False

    def release(self) -> None:
        if self.released:
            return
        self.released = True
        held = _HELD.get(self.key)
        if held is None:
            return
        held[1] -= 1
        if held[1] == 0:
            del _HELD[self.key]
            os.close(held[0])  # closing the only descriptor drops the flock

    def __enter__(self) -> Lock:
        return self

    def __exit__(self, *exc) -> None:
        self.release()


def _lock_wait() -> float:
    try:
        wait = float(os.environ.get(LOCK_WAIT_ENV, LOCK_WAIT))
    except ValueError:
        return LOCK_WAIT
    return min(max(wait, 0.0), 3600.0) if wait == wait else LOCK_WAIT


def lock(folder: Path, wait: float | None = None) -> Lock:
    """Hold ``folder`` (an existing folder) for this process: wait for another render holding it
    up to ``wait`` seconds, then raise RefusedError naming its pid."""
    key = os.path.realpath(folder)
    if key in _HELD:
        _HELD[key][1] += 1
        return Lock(key)
    wait = _lock_wait() if wait is None else wait
    try:
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError as err:
        raise WriteError(f"{folder}: {err.strerror or err}") from None
    deadline = time.monotonic() + wait
    pause = 0.01
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            break
        except BlockingIOError:
            if time.monotonic() >= deadline:
                holder = _holder(fd)
                os.close(fd)
                raise RefusedError(
                    f"another render{holder} is writing {folder} (waited {wait:g}s); run this one after it "
                    f"has finished (the lock goes with its process, so a killed render never leaves one)"
                ) from None
            time.sleep(pause)
            pause = min(pause * 2, 0.2)
        except OSError as err:
            os.close(fd)
            raise WriteError(f"{folder}: cannot lock it: {err.strerror or err}") from None
    _HELD[key] = [fd, 1]
    return Lock(key)


def _holder(fd: int) -> str:
    """' (pid N)' for the process holding the flock on ``fd``'s file, from /proc/locks; '' if unknown."""
    st = os.fstat(fd)
    try:
        with open("/proc/locks", encoding="ascii", errors="replace") as f:
            text = f.read(1 << 20)
    except OSError:
        return ""
    for line in text.splitlines():
        fields = line.split()  # "1: FLOCK  ADVISORY  WRITE 1234 fe:00:5678 0 EOF"; waiters have "->"
        if len(fields) < 6 or fields[1] != "FLOCK":
            continue
        pid, (major, _, rest) = fields[4], fields[5].partition(":")
        minor, _, inode = rest.partition(":")
        try:
            same = (int(major, 16), int(minor, 16), int(inode)) == (
                os.major(st.st_dev), os.minor(st.st_dev), st.st_ino
            )  # fmt: skip
        except ValueError:
            continue
        if same and pid.isdigit() and pid != "0":
            return f" (pid {pid})"
    return ""


# -- writing -------------------------------------------------------------------------------------


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _write_file(path: Path, text: str) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
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


def _lexists(path: Path) -> bool:
    try:
        os.lstat(path)
    except FileNotFoundError:
        return False
    return True


def _remove(path: Path) -> None:
    """Delete ``path``: a folder with what is in it (links inside are unlinked, never followed),
    or a file or link."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return
    if stat.S_ISDIR(st.st_mode):
        shutil.rmtree(path)
    else:
        path.unlink()


def replace(journal_dir: Path, targets: dict[Path, dict[str, str] | str]) -> None:
    """Make every target hold its new content, all of them or (on any failure) none. Holds the
    lock on ``journal_dir`` (made if missing) throughout."""
    try:
        journal_dir.mkdir(parents=True, exist_ok=True)
        if not journal_dir.is_dir():
            raise NotADirectoryError(20, "Not a directory", str(journal_dir))
    except OSError as err:
        raise WriteError(f"{err.filename or journal_dir}: {err.strerror or err}") from None
    nested = _nested(targets)
    if nested is not None:
        raise RefusedError(
            f"{nested[1]} is inside {nested[0]}, and both are outputs of this render; nothing was written; "
            "give outputs that do not lie inside one another"
        )
    with lock(journal_dir):
        try:
            recover(journal_dir, targets)
        except OSError as err:
            raise WriteError(
                f"cannot finish an interrupted render: {err.filename or journal_dir}: {err.strerror or err}"
            ) from None
        _replace(journal_dir, targets)


def _replace(journal_dir: Path, targets: dict[Path, dict[str, str] | str]) -> None:
    token = secrets.token_hex(4)
    step = _Steps()
    staged: list[tuple[Path, Path]] = []
    try:
        for target, content in targets.items():
            if target.exists() and target.is_dir() != isinstance(content, dict):
                kind = "a folder" if isinstance(content, dict) else "a file"
                raise WriteError(f"{target}: exists and is not {kind}; move it away")
            staged.append((target, _stage(target, content, token)))
        for parent in {t.parent for t in targets}:
            _fsync_dir(parent)
        entries = [Entry(target, new, _old(target, token)) for target, new in staged]
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


def _write_journal(journal_dir: Path, entries: list[Entry]) -> None:
    tmp = journal_dir / f"{JOURNAL}.tmp"
    _remove(tmp)
    rows = [{k: _rel(getattr(e, k), journal_dir) for k in ("target", "staged", "old")} for e in entries]
    _write_file(tmp, json.dumps(rows, indent=1))
    os.rename(tmp, journal_dir / JOURNAL)
    _fsync_dir(journal_dir)


def _apply(journal_dir: Path, entries: list[Entry], step, recheck=None) -> None:
    """Roll the journal forward: idempotent, so a second run after a kill finishes the first.
    ``recheck(entry)`` (recovery) looks at an entry's folders again right before its renames."""
    for entry in entries:
        if _lexists(entry.staged):
            if recheck is not None:
                recheck(entry)
            if _lexists(entry.target) and not _lexists(entry.old):
                step()
                os.rename(entry.target, entry.old)
            step()
            os.rename(entry.staged, entry.target)
            _fsync_dir(entry.target.parent)
    step()
    (journal_dir / JOURNAL).unlink()
    _fsync_dir(journal_dir)
    for entry in entries:
        _remove(entry.old)


# -- recovery ------------------------------------------------------------------------------------


def _refuse(journal: Path, what: str) -> RefusedError:
    return RefusedError(
        f"{journal}: {what}; nothing was changed. This is not a journal this tool wrote: "
        f"{_DELETE_IT}otherwise look at the file, delete it and render again"
    )


def read_journal(journal_dir: Path, targets: Iterable[Path] | None = ()) -> list[Entry] | None:
    """The committed swap recorded in ``journal_dir`` (None: no journal), each path checked.

    A target must be a plain path under ``journal_dir`` whose folders are real folders, or one
    of ``targets`` (outputs this run was asked for elsewhere); ``targets=None`` leaves out the
    entries outside ``journal_dir`` instead of refusing them (for reading what is inside only).
    Raises RefusedError for anything this tool would not have written."""
    journal = journal_dir / JOURNAL
    try:
        raw = read_regular(journal, MAX_JOURNAL_BYTES + 1)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except NotRegularFile as err:
        raise _refuse(journal, f"is {err.what}") from None
    except OSError as err:
        raise _refuse(journal, f"cannot be read ({err.strerror or err})") from None
    if len(raw) > MAX_JOURNAL_BYTES:
        raise _refuse(journal, f"is over {MAX_JOURNAL_BYTES:,} bytes (a journal of this tool is under that)")
    try:
        rows = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as err:
        # ours is renamed into place whole, so a journal that is not JSON was never ours
        raise _refuse(journal, f"is not JSON ({str(err).splitlines()[0][:200]})") from None
    if not isinstance(rows, list) or not rows or len(rows) > MAX_ENTRIES:
        raise _refuse(journal, f"is not a list of 1 to {MAX_ENTRIES} entries")
    allowed = None if targets is None else {_rel(t, journal_dir) for t in targets}
    entries, seen, tokens = [], set(), set()
    for number, row in enumerate(rows, 1):
        entry = _entry(journal_dir, row, allowed)
        if isinstance(entry, str):
            raise _refuse(journal, f"entry {number}: {entry}")
        if entry is None:
            continue
        token = entry.staged.name.rsplit("-", 1)[1]
        if entry.target in seen:
            raise _refuse(journal, f"entry {number}: target {row['target']!r} is named twice")
        seen.add(entry.target)
        tokens.add(token)
        if len(tokens) > 1:
            raise _refuse(journal, f"entry {number}: its staging token differs from the first entry's")
        entries.append(entry)
    nested = _nested(e.target for e in entries)
    if nested is not None:
        # a render's targets are side by side (deploy/v1, deploy/v1beta1, docs/api.md, ...): an
        # entry that swaps in a folder on the way to a later one could lead that one anywhere
        raise _refuse(journal, f"target {nested[1]} is inside target {nested[0]}, which no render of this tool writes")
    return entries


def _nested(targets: Iterable[Path]) -> tuple[Path, Path] | None:
    """(a target, a target inside it) if one of ``targets`` is an ancestor of another, else None."""
    parts = sorted((Path(os.path.normpath(os.path.abspath(t))).parts, Path(t)) for t in targets)
    for (outer, outer_path), (inner, inner_path) in itertools.pairwise(parts):
        if inner[: len(outer)] == outer:  # sorted, a folder's descendants come right after it
            return outer_path, inner_path
    return None


def _entry(base: Path, row, allowed: set[str] | None) -> Entry | str | None:
    """``row`` as an Entry of paths under ``base``; a string saying what is wrong; None if it lies
    outside ``base`` and ``allowed`` is None (left out)."""
    if not isinstance(row, dict) or sorted(row) != ["old", "staged", "target"]:
        return 'not an object with exactly "target", "staged" and "old"'
    if not all(isinstance(v, str) and 0 < len(v) < 4096 and "\0" not in v for v in row.values()):
        return "a path that is not a non-empty string"
    target, staged, old = row["target"], row["staged"], row["old"]
    parent, name = os.path.split(target)
    match = _TOKEN.match(staged.rsplit("-", 1)[-1])
    token = match.group() if match else ""
    if (
        not token
        or staged != os.path.join(parent, f"{_NEW}{name}-{token}")
        or old != os.path.join(parent, f"{_OLD}{name}-{token}")
    ):
        return (
            f'"staged" and "old" ({staged!r}, {old!r}) are not the {_NEW}NAME-TOKEN and {_OLD}NAME-TOKEN '
            f"siblings of target {target!r} this tool makes"
        )
    if name.startswith(".paddlejob-") or name in (".", "..", ""):
        return f"target {target!r} is a name of this tool's own files"
    inside = _inside(base, target)
    if inside is None:
        if allowed is None and (os.path.isabs(target) or target.split("/")[0] == ".."):
            return None
        if allowed is None or target not in allowed:
            return (
                f"target {target!r} is not a path under {base} made of plain folders (no '..', no absolute "
                "path, no symbolic link) nor an output this command was asked to write"
            )
        paths = Entry(base / target, base / staged, base / old)
    else:
        paths = Entry(inside, base / staged, base / old)
    if all(_lexists(path) for path in paths):  # a swap moves the target aside before the staged one in
        return f"target {target!r}, its staged and its old sibling all exist, which no interrupted render leaves"
    for key, path in (("staged", paths.staged), ("old", paths.old)):
        try:
            mode = os.lstat(path).st_mode
        except FileNotFoundError:
            continue
        except OSError as err:
            return f"{key} {path}: {err.strerror or err}"
        if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
            return f"{key} {path} is not a file or folder this tool made (a symbolic link or a special file)"
        if key == "staged" and stat.S_ISDIR(mode):
            problem = _not_plain_tree(path)
            if problem:
                return f"staged {path}: {problem}"
    return paths


def _not_plain_tree(folder: Path) -> str:
    """What in ``folder`` a render never stages: a symbolic link (swapped in, it would lead a later
    write out of the output), a special file, too many names; '' if it holds only files and folders.
    Links are never followed."""
    pending, seen = [folder], 0
    while pending:
        current = pending.pop()
        try:
            with os.scandir(current) as listing:
                for item in listing:
                    seen += 1
                    if seen > MAX_STAGED_NAMES:
                        return f"holds over {MAX_STAGED_NAMES:,} names, which no render of this tool stages"
                    if item.is_dir(follow_symlinks=False):
                        pending.append(Path(item.path))
                    elif not item.is_file(follow_symlinks=False):
                        kind = "a symbolic link" if item.is_symlink() else "a special file"
                        return f"holds {kind} ({item.path!r}); a render stages only files and folders"
        except OSError as err:
            return f"cannot be read ({err.strerror or err})"
    return ""


def _inside(base: Path, rel: str) -> Path | None:
    """base/rel if ``rel`` is a relative path of plain names whose folders (every component but
    the last) are real folders under ``base``, no symbolic link among them; None otherwise."""
    parts = rel.split("/")
    if any(part in ("", ".", "..") for part in parts):
        return None
    path = base
    for part in parts[:-1]:
        path = path / part
        try:
            if not stat.S_ISDIR(os.lstat(path).st_mode):
                return None
        except OSError:
            return None
    return base / rel


def recover(journal_dir: Path, targets: Iterable[Path] = ()) -> bool:
    """Finish a swap a killed render committed, or delete what an uncommitted one left; holds
    the lock on ``journal_dir`` meanwhile. True if there was anything to do. A journal this tool
    would not have written raises RefusedError, and then nothing is touched."""
    targets = list(targets)
    if not journal_dir.is_dir():
        return False  # not made yet (or a file, which replace refuses): no journal, no leftovers of ours
    with lock(journal_dir):
        entries = read_journal(journal_dir, targets)
        acted = entries is not None
        if entries is not None:
            _apply(journal_dir, entries, lambda: None, _recheck(journal_dir, entries))
        tmp = journal_dir / f"{JOURNAL}.tmp"
        if _lexists(tmp):  # a journal being written: never committed
            _remove(tmp)
            acted = True
        acted |= _remove_leftovers(journal_dir, targets)
    return acted


def _recheck(journal_dir: Path, entries: list[Entry]):
    """Recovery's look right before an entry's renames: the folders on the way to a target under
    ``journal_dir`` are still real folders (lstat, no symbolic link), the folder of any other
    target still resolves where it did when the journal was read, and the staged sibling is still
    a file or folder, not a link. An earlier entry's swap cannot have changed them (targets never
    nest), so this raises RefusedError only if something else did."""
    anchors = {e.target: os.path.realpath(e.target.parent) for e in entries}

    def check(entry: Entry) -> None:
        rel = _rel(entry.target, journal_dir)
        problem = ""
        if not (os.path.isabs(rel) or rel.split("/")[0] == ".."):
            if _inside(journal_dir, rel) is None:
                problem = "a folder on its way is no longer a real folder (a symbolic link?)"
        elif os.path.realpath(entry.target.parent) != anchors[entry.target]:
            problem = "its folder now resolves elsewhere"
        try:
            mode = os.lstat(entry.staged).st_mode
        except OSError as err:
            mode, problem = 0, problem or f"its staged sibling cannot be read ({err.strerror or err})"
        if mode and not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
            problem = problem or "its staged sibling is no longer a file or folder"
        if problem:
            raise RefusedError(
                f"{journal_dir / JOURNAL}: stopped before swapping in {entry.target}: {problem}; the entries "
                "before it were finished, this one and those after it were not touched. Look at the folder, "
                "delete the journal and render again"
            )

    return check


def _remove_leftovers(journal_dir: Path, targets: list[Path]) -> bool:
    """Delete the staged and old siblings an uncommitted render left: any in ``journal_dir``,
    and elsewhere those of the targets named."""
    names: dict[Path, set[str] | None] = {journal_dir: None}
    for target in targets:
        if target.parent != journal_dir:
            names.setdefault(target.parent, set()).add(target.name)
    acted = False
    for folder, owned in names.items():
        try:
            listing = os.listdir(folder)
        except OSError:
            continue
        for name in listing:
            if not _LEFTOVER.match(name):
                continue
            if owned is not None and name[len(_NEW) :].rsplit("-", 1)[0] not in owned:
                continue
            _remove(folder / name)
            acted = True
    return acted
