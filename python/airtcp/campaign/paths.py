"""Paths into a scenario, for sweep parameters.

A path names fields of the scenario file as written (before ``count``
tables are expanded), with a selector after each list of tables::

    simulation.duration
    link["R->D"].a_to_b.error.per     the link with a = "R", b = "D"
    flow[*].tcp.variant               every [[flow]]
    flow[0].tcp.variant               the first one
    flow["bulk"].start                the flow named "bulk"
    node["BS"].agents["snoop"].min_timeout   agents (and other lists) by kind

Setting a path creates the tables it goes through if they are missing
(``a_to_b`` on a link without one); the loader then checks the result, so
a misspelt field is reported by the loader like any other. A path that
cannot be followed (an index out of range, a name that matches nothing, a
selector on a table, a list without one) is a :class:`PathError`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")
# ASCII digits only: \d would also read other scripts' digits ("[\u0663]" as [3]).
_INT = re.compile(r"[0-9]+")
ALL = "*"


class PathError(ValueError):
    """A path that cannot be parsed or followed; ``str()`` says why."""


@dataclass(frozen=True)
class Step:
    """A key, then zero or more selectors (int index, str name or ALL)."""

    key: str
    selectors: tuple[int | str, ...] = ()


def parse(path: str) -> tuple[Step, ...]:
    """Parse ``path`` into steps; PathError naming the character on failure.

    >>> parse('link["R->D"].a_to_b.error.per')[0]
    Step(key='link', selectors=('R->D',))
    >>> parse("flow[*].tcp")[0].selectors == (ALL,)
    True
    """
    if not isinstance(path, str) or not path.strip():
        raise PathError("a path must be a non-empty string such as 'flow[*].tcp.variant'")
    steps: list[Step] = []
    i = 0
    n = len(path)
    while True:
        m = _KEY.match(path, i)
        if not m:
            raise PathError(f"cannot parse {path!r} at character {i + 1}: expected a field name")
        key = m.group()
        i = m.end()
        selectors: list[int | str] = []
        while i < n and path[i] == "[":
            i += 1
            if path.startswith("*]", i):
                selectors.append(ALL)
                i += 2
                continue
            m = _INT.match(path, i)
            if m and path.startswith("]", m.end()):
                selectors.append(int(m.group()))
                i = m.end() + 1
                continue
            if i < n and path[i] == '"':
                try:
                    name, end = json.JSONDecoder().raw_decode(path, i)
                except ValueError:
                    name, end = None, i
                if isinstance(name, str) and path.startswith("]", end):
                    selectors.append(name)
                    i = end + 1
                    continue
            raise PathError(f'cannot parse {path!r} at character {i + 1}: expected [N], [*] or ["name"] after {key}')
        steps.append(Step(key, tuple(selectors)))
        if i == n:
            return tuple(steps)
        if path[i] != ".":
            raise PathError(f"cannot parse {path!r} at character {i + 1}: expected '.' or '['")
        i += 1


def text(steps: tuple[Step, ...]) -> str:
    """The canonical text of a parsed path (also a concrete location)."""
    out = []
    for s in steps:
        sel = "".join(
            "[*]" if x is ALL else f"[{x}]" if isinstance(x, int) else f"[{json.dumps(x)}]" for x in s.selectors
        )
        out.append(s.key + sel)
    return ".".join(out)


def _element_name(key: str, element: Any) -> str | None:
    """What a string selector matches in a list under ``key``: "a->b" for
    links, else the element's name, else its kind."""
    if not isinstance(element, Mapping):
        return None
    if key == "link" and "a" in element and "b" in element:
        return f"{element['a']}->{element['b']}"
    for field in ("name", "kind"):
        if isinstance(element.get(field), str):
            return element[field]
    return None


def _names(key: str, items: list) -> str:
    names = [n for n in (_element_name(key, e) for e in items) if n is not None]
    shown = ", ".join(names[:10]) + (f", ... ({len(names)} in all)" if len(names) > 10 else "")
    return shown or "none has a name"


def _select(where: str, key: str, items: list, selector: int | str) -> list[int]:
    """Indices of ``items`` that ``selector`` picks (at least one)."""
    if selector is ALL:
        if not items:
            raise PathError(f"{where}: the list is empty")
        return list(range(len(items)))
    if isinstance(selector, int):
        if selector >= len(items):
            if not items:
                raise PathError(f"{where}: index {selector} is out of range (the list is empty)")
            have = (
                f"1 entry, {key}[0]"
                if len(items) == 1
                else f"{len(items)} entries, {key}[0] .. {key}[{len(items) - 1}]"
            )
            raise PathError(f"{where}: index {selector} is out of range ({have})")
        return [selector]
    hits = [i for i, e in enumerate(items) if _element_name(key, e) == selector]
    if hits:
        return hits
    if key == "link" and "->" in selector:
        a, _, b = selector.partition("->")
        if any(_element_name(key, e) == f"{b}->{a}" for e in items):
            raise PathError(
                f"{where}: the link between {a} and {b} is written a = {b!r}, b = {a!r}: "
                f'select it as link["{b}->{a}"] (its a_to_b is {b}->{a})'
            )
    raise PathError(f"{where}: no entry {selector!r} (entries: {_names(key, items)})")


def locations(doc: Mapping[str, Any], steps: tuple[Step, ...]) -> list[tuple[Step, ...]]:
    """The concrete locations (paths with index selectors only) that
    ``steps`` names in ``doc``; PathError if it cannot be followed."""
    out: list[tuple[Step, ...]] = []

    def walk(node: Any, k: int, done: tuple[Step, ...]) -> None:
        if k == len(steps):
            out.append(done)
            return
        step = steps[k]
        if not isinstance(node, Mapping):
            raise PathError(f"{text(done)} is a value, not a table: it has no field {step.key!r}")
        value = node.get(step.key)
        selected: list[tuple[Any, tuple[int, ...]]] = [(value, ())]
        for sel in step.selectors:
            nxt = []
            for v, idx in selected:
                w = text(done + (Step(step.key, idx),))
                if v is None:
                    raise PathError(f"{w}: the scenario has no {step.key!r} list to select from")
                if not isinstance(v, list):
                    raise PathError(f"{w} is a table or a value, not a list: drop the selector")
                nxt.extend((v[i], idx + (i,)) for i in _select(w, step.key, v, sel))
            selected = nxt
        for v, idx in selected:
            here = done + (Step(step.key, idx),)
            if isinstance(v, list) and k + 1 < len(steps):
                raise PathError(
                    f'{text(here)} is a list: select with {text(here)}[0], {text(here)}["name"] or {text(here)}[*]'
                )
            if v is None and k + 1 < len(steps):
                v = {}  # created when set
            walk(v, k + 1, here)

    walk(doc, 0, ())
    return out


def assign(doc: dict, location: tuple[Step, ...], value: Any) -> None:
    """Set ``value`` at a concrete location (from :func:`locations`),
    creating missing tables on the way."""
    node: Any = doc
    for k, step in enumerate(location):
        last = k == len(location) - 1
        if not step.selectors:
            if last:
                node[step.key] = value
                return
            node = node.setdefault(step.key, {})
            continue
        node = node[step.key]
        for j, i in enumerate(step.selectors):
            if last and j == len(step.selectors) - 1:
                node[i] = value
                return
            node = node[i]


def overlaps(a: tuple[Step, ...], b: tuple[Step, ...]) -> bool:
    """True if one concrete location is inside (or equal to) the other."""
    ta, tb = text(a), text(b)
    return (
        ta == tb
        or ta.startswith(tb + ".")
        or tb.startswith(ta + ".")
        or ta.startswith(tb + "[")
        or tb.startswith(ta + "[")
    )
