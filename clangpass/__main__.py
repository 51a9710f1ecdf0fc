# SPDX-License-Identifier: MIT
"""`python -m clangpass ARGS` is `pencilcc ARGS`."""
import sys

from clangpass.driver.main import main

sys.exit(main())
