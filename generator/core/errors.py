"""The errors every layer raises for what is expected to go wrong, as typed values. Library code
raises them and never prints or exits; `cli/__init__.py` is the one place that turns them into a
message and an exit code (2 for InputError, 1 for any other Error; 3 is left for bugs)."""

from __future__ import annotations


class Error(Exception):
    """An expected condition this project reports: the message says what is wrong and what to do."""


class InputError(Error):
    """The user's input cannot be used as given (a flag's value, a file, a folder, a journal):
    exit 2. The message names the flag, file or field, and what it takes."""
