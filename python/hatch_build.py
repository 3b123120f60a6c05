"""Tags the wheel for the platform of the executable it carries.

The wheel holds no Python extension, only `bin/monotable`, so it fits every Python 3
(`py3-none`); the platform part comes from the executable itself: for Linux, the manylinux
tag of the newest glibc symbol version it needs and its ELF machine. MONOTABLE_WHEEL_PLATFORM
(e.g. `macosx_11_0_arm64`) overrides it for executables this hook cannot read.
"""

import os
import re
from pathlib import Path

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

ELF_MACHINES = {0x3E: "x86_64", 0xB7: "aarch64"}


def platform_tag(executable: Path) -> str:
    override = os.environ.get("MONOTABLE_WHEEL_PLATFORM")
    if override:
        return override
    data = executable.read_bytes()
    if data[:4] != b"\x7fELF":
        raise RuntimeError(f"{executable} is not an ELF executable: set MONOTABLE_WHEEL_PLATFORM")
    machine = int.from_bytes(data[18:20], "little")
    if machine not in ELF_MACHINES:
        raise RuntimeError(f"{executable} is for ELF machine {machine:#x}: set MONOTABLE_WHEEL_PLATFORM")
    # Symbol version names (GLIBC_2.34 ...) are stored as plain strings in .gnu.version_r.
    needed = [int(m) for m in re.findall(rb"GLIBC_2\.([0-9]+)", data)]
    if not needed:
        raise RuntimeError(f"{executable} names no glibc version (musl?): set MONOTABLE_WHEEL_PLATFORM")
    return f"manylinux_2_{max(needed)}_{ELF_MACHINES[machine]}"


class CustomBuildHook(BuildHookInterface):
    def initialize(self, version, build_data):
        if self.target_name != "wheel":
            return
        executable = Path(self.root) / "bin" / "monotable"
        if not executable.is_file():
            raise RuntimeError(
                f"{executable} is missing: build the wheel with python/build_wheel.sh, which copies "
                "the executable of `cargo build --profile dist -p monotable-cli` there"
            )
        build_data["pure_python"] = False
        build_data["tag"] = f"py3-none-{platform_tag(executable)}"
