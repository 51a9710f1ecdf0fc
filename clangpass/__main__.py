# SPDX-License-Identifier: MIT
"""`python -m clangpass ARGS` is `pencilcc ARGS`."""
from clangpass.driver.main import entry

entry()
