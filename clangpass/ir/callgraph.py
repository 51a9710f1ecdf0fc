# SPDX-License-Identifier: MIT
"""Cycles of a call graph, for the no-recursion rule (thesis sections 4.2.2 iv, 4.4.3).

Input: caller -> callees for every function defined in a translation unit.
Output: the functions that lie on a cycle, each mapped to its strongly
connected component (Tarjan's algorithm, iterative so that deep call chains do
not hit Python's recursion limit), and one cycle through a given call.
"""
from __future__ import annotations

from collections import deque
from typing import Mapping


def recursive_components(graph: Mapping[str, frozenset[str]]) -> dict[str, frozenset[str]]:
    """function -> its strongly connected component, for functions that can call themselves."""
    index: dict[str, int] = {}
    lowlink: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    out: dict[str, frozenset[str]] = {}
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.get(root, ()))))]
        index[root] = lowlink[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, callees = work[-1]
            advanced = False
            for callee in callees:
                if callee not in graph:
                    continue  # declared only: cannot call back
                if callee not in index:
                    index[callee] = lowlink[callee] = counter
                    counter += 1
                    stack.append(callee)
                    on_stack.add(callee)
                    work.append((callee, iter(sorted(graph[callee]))))
                    advanced = True
                    break
                if callee in on_stack:
                    lowlink[node] = min(lowlink[node], index[callee])
            if advanced:
                continue
            work.pop()
            if work:
                caller = work[-1][0]
                lowlink[caller] = min(lowlink[caller], lowlink[node])
            if lowlink[node] == index[node]:
                members = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    members.append(member)
                    if member == node:
                        break
                component = frozenset(members)
                if len(component) > 1 or node in graph.get(node, ()):
                    out.update({m: component for m in component})
    return out


def cycle_through(graph: Mapping[str, frozenset[str]], component: frozenset[str],
                  caller: str, callee: str) -> list[str]:
    """A shortest cycle caller -> callee -> ... -> caller inside `component`."""
    previous: dict[str, str] = {}
    queue = deque([callee])
    seen = {callee}
    while queue:
        node = queue.popleft()
        if node == caller:
            break
        for nxt in sorted(graph.get(node, ())):
            if nxt in component and nxt not in seen:
                seen.add(nxt)
                previous[nxt] = node
                queue.append(nxt)
    path = [caller]
    node = caller
    while node != callee:
        node = previous[node]
        path.append(node)
    return [caller] + path[::-1]
