# SPDX-License-Identifier: MIT
"""Structured control flow over llvmlite's IRBuilder: loops and their metadata.

`for_range` emits the loop shape every back-end loop uses (a header that tests
the condition, the body, a latch that steps the induction variable), so that the
isl AST walker and the thread outliner read like the C they stand for. Two-way
branches use llvmlite's own `IRBuilder.if_then` / `if_else` context managers.

Loop metadata (LLVM LangRef, "llvm.loop"): a loop id is a *distinct* node whose
first operand is itself; an access group is a distinct empty node. llvmlite's
`Module.add_metadata` only makes uniqued tuples, hashed by their operands, so the
two node kinds below are `MDValue`s with identity semantics and the `distinct`
keyword; everything else goes through `add_metadata`.
"""
from __future__ import annotations

from contextlib import contextmanager
from typing import Callable, Iterator, Optional, Sequence

import llvmlite.ir as ir


class DistinctNode(ir.MDValue):
    """`distinct !{...}`: equal only to itself."""

    def __init__(self, module: ir.Module, operands: Sequence[ir.Value] = ()) -> None:
        super().__init__(module, list(operands), name=str(len(module.metadata)))

    __hash__ = object.__hash__

    def __eq__(self, other: object) -> bool:
        return self is other

    def __ne__(self, other: object) -> bool:
        return self is not other

    def descr(self, buf: list[str]) -> None:
        buf.append("distinct ")
        super().descr(buf)


class AccessGroup(DistinctNode):
    """`!llvm.access.group`: the memory accesses of one parallel loop."""

    def __init__(self, module: ir.Module) -> None:
        super().__init__(module)


class LoopID(DistinctNode):
    """`!llvm.loop`: a self-referential node listing the loop's properties."""

    def __init__(self, module: ir.Module, properties: Sequence[ir.MDValue]) -> None:
        super().__init__(module)
        self.operands = (self, *properties)


def loop_id(module: ir.Module, parallel_group: Optional[AccessGroup], vectorize: Optional[bool] = None,
            unroll_full: bool = False, interleave: Optional[int] = None) -> LoopID:
    """Every loop must progress (C11 6.8.5p6 holds for isl loops, which are finite);
    a loop whose iterations are independent lists its access group as parallel,
    which lets the loop vectoriser skip its dependence and alias checks. `vectorize`
    True (an innermost loop the middle end chose for vector lanes: a `vector` mark)
    asks for vectorisation, so that the vectoriser does not give up on a short or
    unusual trip count that its cost model alone would leave scalar; False forbids it
    (a loop of a register tile other than its vector loop: see `AstLowering.lower_For`);
    None leaves it to LLVM's cost model. `unroll_full` asks LLVM to unroll the loop
    completely when its trip count is a constant, whatever the size of its body.
    `interleave` fixes how many copies of the vector body the vectoriser runs per
    iteration (`llvm.loop.interleave.count`); None leaves it to LLVM's cost model."""
    properties = [module.add_metadata([ir.MetaDataString(module, "llvm.loop.mustprogress")])]
    if parallel_group is not None:
        properties.append(module.add_metadata(
            [ir.MetaDataString(module, "llvm.loop.parallel_accesses"), parallel_group]))
    if vectorize is not None:
        properties.append(module.add_metadata(
            [ir.MetaDataString(module, "llvm.loop.vectorize.enable"), ir.Constant(ir.IntType(1), int(vectorize))]))
    if interleave is not None:
        properties.append(module.add_metadata(
            [ir.MetaDataString(module, "llvm.loop.interleave.count"), ir.Constant(ir.IntType(32), interleave)]))
    if unroll_full:
        properties.append(module.add_metadata([ir.MetaDataString(module, "llvm.loop.unroll.full")]))
    return LoopID(module, properties)


@contextmanager
def for_range(builder: ir.IRBuilder, start: ir.Value, condition: Callable[[ir.Value], ir.Value],
              step: ir.Value, name: str, metadata: Optional[LoopID] = None) -> Iterator[ir.Value]:
    """`for (iv = start; condition(iv); iv += step) <with-body>`; yields the induction variable.

    The body is whatever the `with` block emits; the builder is left after the loop.
    """
    preheader = builder.block
    header = builder.append_basic_block(f"{name}.header")
    body = builder.append_basic_block(f"{name}.body")
    exit_block = builder.append_basic_block(f"{name}.exit")
    builder.branch(header)
    builder.position_at_end(header)
    iv = builder.phi(start.type, name=name)
    iv.add_incoming(start, preheader)
    builder.cbranch(condition(iv), body, exit_block)
    builder.position_at_end(body)
    yield iv
    following = builder.add(iv, step, name=f"{name}.next", flags=("nsw",))
    iv.add_incoming(following, builder.block)
    latch = builder.branch(header)
    if metadata is not None:
        latch.set_metadata("llvm.loop", metadata)
    builder.position_at_end(exit_block)
