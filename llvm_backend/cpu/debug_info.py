# SPDX-License-Identifier: MIT
"""Line information for -g (`CompileOptions.debug`): DWARF through LLVM debug metadata.

Input: the functions the back end creates and the source locations of the
statements it lowers. Output: a DICompileUnit for the module, a DISubprogram per
function (the outlined region under the C function's name, thread functions under
theirs) and a DILocation on every instruction, so that a debugger or a profiler
attributes the region's code to the lines of its statements. Variables are not
described: the region's values live in LLVM registers the polyhedral schedule
reordered, not in the C variables.

Paths as clang writes them: a file's name as the compile named it (relative or absolute), the
directory the compile ran in as the unit's and the files' directory (DW_AT_comp_dir), both through
the debug prefix maps (`-ffile-prefix-map=` / `-fdebug-prefix-map=`, clangpass.prefix_map), so
that a build in another folder, or a distcc server's private one, writes the same bytes.
"""
from __future__ import annotations

import os

import llvmlite.ir as ir

from clangpass.ir import nodes as N
from clangpass.prefix_map import PrefixMap
from llvm_backend.cpu.lower_types import I32

_DWARF_VERSION = 4
_DEBUG_INFO_VERSION = 3   # llvm::DEBUG_METADATA_VERSION
_MODULE_FLAG_MAX = 7      # Module::Max, as clang emits "Dwarf Version"
_MODULE_FLAG_WARNING = 2  # Module::Warning, as clang emits "Debug Info Version"


class DebugInfo:
    def __init__(self, module: ir.Module, source: str, prefix_map: PrefixMap = PrefixMap()) -> None:
        self.module = module
        self.prefix_map = prefix_map
        self.directory = prefix_map.remap(os.getcwd())
        self.files: dict[str, ir.DIValue] = {}
        self.unit = module.add_debug_info("DICompileUnit", {
            "language": ir.DIToken("DW_LANG_C99"),
            "file": self.file(source),
            "producer": "pencilcc",
            "isOptimized": True,
            "runtimeVersion": 0,
            "emissionKind": ir.DIToken("LineTablesOnly"),
        }, is_distinct=True)
        module.add_named_metadata("llvm.dbg.cu", self.unit)
        for behaviour, key, value in ((_MODULE_FLAG_MAX, "Dwarf Version", _DWARF_VERSION),
                                      (_MODULE_FLAG_WARNING, "Debug Info Version", _DEBUG_INFO_VERSION)):
            module.add_named_metadata("llvm.module.flags", [ir.Constant(I32, behaviour),
                                                            ir.MetaDataString(module, key),
                                                            ir.Constant(I32, value)])
        self.subroutine = module.add_debug_info("DISubroutineType", {
            "types": module.add_metadata([None]),
        })

    def file(self, path: str) -> ir.DIValue:
        if path not in self.files:
            self.files[path] = self.module.add_debug_info("DIFile", {"filename": self.prefix_map.remap(path),
                                                                     "directory": self.directory})
        return self.files[path]

    def subprogram(self, fn: ir.Function, name: str, loc: N.SourceLoc) -> ir.DIValue:
        """Attach a DISubprogram to `fn`; returns it (the scope of its locations)."""
        sp = self.module.add_debug_info("DISubprogram", {
            "name": name,
            "linkageName": fn.name,
            "scope": self.file(loc.file),
            "file": self.file(loc.file),
            "line": max(loc.line, 0),
            "type": self.subroutine,
            "scopeLine": max(loc.line, 0),
            "spFlags": ir.DIToken("DISPFlagDefinition | DISPFlagOptimized"),
            "unit": self.unit,
        }, is_distinct=True)
        fn.set_metadata("dbg", sp)
        return sp

    def location(self, loc: N.SourceLoc, scope: ir.DIValue) -> ir.DIValue:
        return self.module.add_debug_info("DILocation", {
            "line": max(loc.line, 0), "column": max(loc.col, 0), "scope": scope,
        })
