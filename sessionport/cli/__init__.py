"""The command line: thin click commands over the library.

``main`` is the console entry point.  Every command is registered on
:data:`cli` by the modules imported below.
"""

from sessionport.cli.app import cli, main
from sessionport.cli import commands_convert, commands_info, commands_stages  # noqa: F401  (they register commands)
from sessionport.cli import commands_split  # noqa: F401
from sessionport.cli import commands_ls  # noqa: F401
from sessionport.cli import commands_validate, commands_agentscope  # noqa: F401

__all__ = ["cli", "main"]
