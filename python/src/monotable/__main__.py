"""``python -m monotable ARGS``: the same as the ``monotable`` command."""

import os
import subprocess
import sys

from ._binary import binary_path


def main() -> None:
    exe = binary_path()
    if os.name == "posix":
        os.execv(exe, [exe, *sys.argv[1:]])
    sys.exit(subprocess.call([exe, *sys.argv[1:]]))


if __name__ == "__main__":
    main()
