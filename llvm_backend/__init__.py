# SPDX-License-Identifier: MIT

# The methods `@dataclass` writes for this package's classes are kept between runs as
# clangpass's are (clangpass/dataclass_code.py).
from clangpass import dataclass_code as _dataclass_code

_dataclass_code.own_package(__name__)
