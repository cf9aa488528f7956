"""jsonnetfmt without the jsonnetfmt binary: libjsonnet's own formatter, from the `jsonnet` wheel.

    python -m generator.jsonnet.fmt --test FILE...    # exit 1 and name the files not formatted
    python -m generator.jsonnet.fmt -i FILE...        # format in place

The `jsonnet` package on PyPI ships libjsonnet (the C++ implementation) as the extension
module _jsonnet, and that library exports the C API's formatter, `jsonnet_fmt_snippet`, the
very function the jsonnetfmt command calls with the same default options. Calling it through
ctypes gives byte-identical output on a machine where only pip works, so `make lint` needs no
system package (tests/test_tooling.py checks the result against formatting rules).
"""

from __future__ import annotations

import argparse
import ctypes
import sys
from pathlib import Path


def _library() -> ctypes.CDLL:
    import _jsonnet

    lib = ctypes.CDLL(_jsonnet.__file__)
    lib.jsonnet_make.restype = ctypes.c_void_p
    lib.jsonnet_fmt_snippet.restype = ctypes.c_void_p  # a char* we must hand back to jsonnet_realloc
    lib.jsonnet_fmt_snippet.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.POINTER(ctypes.c_int)]
    lib.jsonnet_realloc.restype = ctypes.c_void_p
    lib.jsonnet_realloc.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t]
    lib.jsonnet_destroy.argtypes = [ctypes.c_void_p]
    return lib


class FormatError(Exception):
    pass


def format_text(name: str, text: str) -> str:
    """``text`` as jsonnetfmt (default options) writes it; FormatError if it does not parse."""
    lib = _library()
    vm = lib.jsonnet_make()
    try:
        error = ctypes.c_int(0)
        out = lib.jsonnet_fmt_snippet(vm, name.encode(), text.encode("utf-8"), ctypes.byref(error))
        result = ctypes.string_at(out).decode("utf-8")
        lib.jsonnet_realloc(vm, out, 0)
    finally:
        lib.jsonnet_destroy(vm)
    if error.value:
        raise FormatError(result.strip())
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m generator.jsonnet.fmt", description=__doc__.split("\n\n")[0])
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--test", action="store_true", help="exit 1 if a file is not formatted")
    mode.add_argument("-i", "--in-place", action="store_true", help="rewrite the files formatted")
    parser.add_argument("files", nargs="+", type=Path)
    args = parser.parse_args(argv)
    unformatted = []
    for path in args.files:
        text = path.read_text(encoding="utf-8")
        try:
            formatted = format_text(str(path), text)
        except FormatError as err:
            print(f"{path}: {err}", file=sys.stderr)
            return 1
        if formatted != text:
            unformatted.append(path)
            if args.in_place:
                path.write_text(formatted, encoding="utf-8")
    if args.test and unformatted:
        for path in unformatted:
            print(f"{path}: not formatted; run `make fmt`", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
