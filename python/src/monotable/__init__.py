"""monotable: a DynamoDB-compatible server that starts instantly, for tests and local development.

``monotable.start()`` runs a private ``monotable serve`` and returns a :class:`Server`; the
pytest plugin (installed with this package) provides the ``monotable_server``,
``monotable_endpoint`` and ``monotable_namespace`` fixtures. The ``monotable`` command itself
(``monotable serve``, ``monotable design check``, ``monotable console`` ...) is installed
with the package.
"""

from importlib.metadata import version as _version

from ._binary import binary_path
from ._server import Server, StartError, start

__all__ = ["Server", "StartError", "binary_path", "start"]
__version__ = _version("monotable")
