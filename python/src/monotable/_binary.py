"""Where the `monotable` executable is."""

from __future__ import annotations

import os
import shutil
import sys
import sysconfig
from pathlib import Path


def binary_path() -> str:
    """The `monotable` executable: MONOTABLE_BINARY if set, else the one this wheel installed.

    The wheel installs it as a script of the environment it was installed into (a venv's
    `bin/`, the user scheme's, or the system's); a `monotable` on PATH is the last resort.
    """
    from_env = os.environ.get("MONOTABLE_BINARY")
    if from_env:
        if not Path(from_env).is_file():
            raise FileNotFoundError(f"MONOTABLE_BINARY is set to {from_env}, which does not exist")
        return from_env
    exe = "monotable.exe" if sys.platform == "win32" else "monotable"
    schemes = [sysconfig.get_default_scheme()]
    user = sysconfig.get_preferred_scheme("user") if hasattr(sysconfig, "get_preferred_scheme") else None
    if user:
        schemes.append(user)
    for scheme in schemes:
        candidate = Path(sysconfig.get_path("scripts", scheme=scheme)) / exe
        if candidate.is_file():
            return str(candidate)
    on_path = shutil.which(exe)
    if on_path:
        return on_path
    raise FileNotFoundError(
        "the monotable executable is not installed beside this package: reinstall the wheel "
        "(pip install --force-reinstall monotable), or build it with `cargo install monotable-cli` "
        "and set MONOTABLE_BINARY to its path"
    )
