"""Where the `pad-conformance` command is: the one the wheel installed beside this package, else
`$PAD_CONFORMANCE_BIN`, else the first on PATH."""

import os
import shutil
import sys
import sysconfig

BIN_ENV = "PAD_CONFORMANCE_BIN"
NAME = "pad-conformance"


class BinaryNotFound(FileNotFoundError):
    """No `pad-conformance` command was found; the message lists every place looked in."""


def _scripts_dirs():
    """The directories pip puts a wheel's scripts in for this interpreter: the environment's,
    then the user scheme's (`pip install --user`)."""
    dirs = [sysconfig.get_path("scripts")]
    try:
        dirs.append(sysconfig.get_path("scripts", f"{os.name}_user"))
    except KeyError:  # a Python built without the user scheme
        pass
    return [d for d in dict.fromkeys(dirs) if d]


def _executable(path):
    return os.path.isfile(path) and os.access(path, os.X_OK)


def find():
    """The path of the `pad-conformance` command, or BinaryNotFound naming where it looked."""
    suffix = ".exe" if os.name == "nt" else ""
    looked = []
    for scripts in _scripts_dirs():
        path = os.path.join(scripts, NAME + suffix)
        if _executable(path):
            return path
        looked.append(f"{path} (a scripts directory of the Python at {sys.prefix})")
    override = os.environ.get(BIN_ENV)
    if override:
        if _executable(override):
            return override
        looked.append(f"${BIN_ENV} = {override!r} (not an executable file)")
    else:
        looked.append(f"${BIN_ENV} (not set)")
    on_path = shutil.which(NAME)
    if on_path:
        return on_path
    looked.append(f"PATH ({NAME} not on it)")
    raise BinaryNotFound(
        f"the {NAME} command was not found; looked in: " + "; ".join(looked)
        + f". Install the wheel (docs/python.md), set ${BIN_ENV}, or pass binary=PATH"
    )
