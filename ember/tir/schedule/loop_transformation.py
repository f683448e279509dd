"""Loop transformations: split, fuse, reorder, add_unit_loop.

Each is a function ``(func, ...) -> (new_func, result)`` over resolved nodes: the loop
being rewritten is replaced by new loops (fresh Vars), and every use of the old loop
variable below it is substituted by its expression in the new ones, so block
bindings such as ``vi = i`` become ``vi = i_0 * 4 + i_1``.
"""

from __future__ import annotations

from ember.ir import And, FloorDiv, FloorMod, IntImm, Var, const, replace
from ember.tir.functor import ir_transform, substitute
from ember.tir.stmt import BlockRealize, For, ForKind

from . import _arith
from .analysis import is_true, path_to, replace_stmts, vars_in
from .errors import ScheduleError

__all__ = ["split", "fuse", "reorder", "add_unit_loop"]


def _simplify_bindings(stmt, bounds: dict):
    """Fold the affine parts of block bindings and predicates below ``stmt``."""

    def post(n):
        if isinstance(n, BlockRealize):
            values = tuple(_arith.simplify(v, bounds) for v in n.iter_values)
            pred = n.predicate
            return replace(n, iter_values=values if any(a is not b for a, b in zip(values, n.iter_values))
                           else n.iter_values, predicate=pred)
        return None

    return ir_transform(stmt, None, post, only_enable=["BlockRealize"])


def _add_predicate(stmt, cond):
    """AND ``cond`` into the predicates of the blocks directly under ``stmt`` (not nested ones)."""
    from .analysis import child_blocks

    mapping = {}
    for realize in [stmt] if isinstance(stmt, BlockRealize) else child_blocks(stmt):
        pred = cond if is_true(realize.predicate) else And(realize.predicate, cond)
        mapping[realize] = replace(realize, predicate=pred)
    return replace_stmts(stmt, mapping)


def _check_plain_loop(func, loop: For, what: str) -> None:
    """split and fuse rebuild loops from scratch: annotations and thread bindings would be lost."""
    if loop.annotations or loop.thread_binding is not None:
        which = "is bound to a thread" if loop.thread_binding is not None else \
            f"has annotations {sorted(loop.annotations)}"
        raise ScheduleError(f"{what}: loop {loop.loop_var.name!r} {which}; {what} applies only to loops "
                            "without annotations or thread bindings", func, loop=loop)


def is_zero(e) -> bool:
    return isinstance(e, IntImm) and e.value == 0


def _loop_bounds(func, loop: For) -> dict:
    """Constant bounds of the loop vars around and including ``loop``."""
    bounds = {}
    for s in (path_to(func.body, loop) or []) + [loop]:
        if isinstance(s, For):
            lo, hi = _arith.const_bound(s.min), _arith.const_bound(s.min + s.extent - 1)
            if lo[0] is not None and hi[1] is not None:
                bounds[s.loop_var] = (lo[0], hi[1])
    return bounds


def split(func, loop: For, factors: list, preserve_unit_iters: bool = True,
          disable_predication: bool = False):
    """Split ``loop`` into ``len(factors)`` nested loops; returns (func, new loop vars)."""
    if len(factors) < 2:
        raise ScheduleError(f"split needs at least 2 factors, got {factors!r}", func, loop=loop)
    _check_plain_loop(func, loop, "split")
    if sum(f is None for f in factors) > 1:
        raise ScheduleError(f"split factors may contain at most one None, got {factors!r}", func, loop=loop)
    if any(f is not None and not isinstance(f, int) and _arith.as_int(f) is None for f in factors):
        from .split_symbolic import split_symbolic  # e.g. 4 * T.vscale()

        return split_symbolic(func, loop, factors, preserve_unit_iters, disable_predication)
    factors = [_arith.as_int(f) if f is not None and not isinstance(f, int) else f for f in factors]
    for f in factors:
        if f is not None and (not isinstance(f, int) or f <= 0):
            raise ScheduleError(f"split factors must be positive integers or None, got {f!r} in "
                                f"{factors!r}", func, loop=loop)
    known = 1
    for f in factors:
        known *= f if f is not None else 1
    extent = loop.extent
    n = _arith.as_int(extent)
    limit = (1 << (loop.loop_var.dtype.bits - 1)) - 1
    if known > limit:  # loop extents and the rebuilt index are in the loop var's dtype
        raise ScheduleError(
            f"split: the factors {factors!r} multiply to {known}, which does not fit the "
            f"{loop.loop_var.dtype} loop {loop.loop_var.name!r} (at most {limit})", func, loop=loop)
    upper = _arith.const_bound(extent, _loop_bounds(func, loop))[1] if n is None else n
    if None not in factors and n is None and (upper is None or known < upper):
        raise ScheduleError(
            f"split: the factors {factors!r} have the fixed product {known}, which may not cover the "
            f"symbolic extent {extent} of loop {loop.loop_var.name!r}; give None for one factor "
            f"(e.g. {[None, *factors[1:]]!r})", func, loop=loop)
    if None in factors:
        inferred = -(-n // known) if n is not None else _arith.simplify((extent + (known - 1)) // known)
        factors = [inferred if f is None else f for f in factors]
    elif n is not None and known < n:
        raise ScheduleError(
            f"split: the product of the factors {factors!r} is {known}, which does not cover the "
            f"extent {n} of loop {loop.loop_var.name!r}", func, loop=loop)
    name, dtype = loop.loop_var.name, loop.loop_var.dtype
    new_vars = [Var(f"{name}_{k}", dtype) for k in range(len(factors))]
    # Horner form, outermost first: ((v0 * f1 + v1) * f2 + v2) ... as TVM writes it
    expr = None
    stride = 1
    for v, f in zip(new_vars, factors):
        keep = not (_arith.as_int(f) == 1 and not preserve_unit_iters)
        if expr is not None and _arith.as_int(f) != 1:
            expr = expr * f
        if keep:
            expr = v if expr is None else expr + v
        stride = f if isinstance(stride, int) and stride == 1 else stride * f
    if expr is None:
        expr = const(0, dtype)
    if not is_zero(loop.min):
        expr = loop.min + expr
    body = substitute(loop.body, {loop.loop_var: expr})
    bounds = _loop_bounds(func, loop)
    bounds.pop(loop.loop_var, None)
    for v, f in zip(new_vars, factors):
        fv = _arith.as_int(f)
        if fv is not None:
            bounds[v] = (0, fv - 1)
    covered = _arith.as_int(_arith.simplify(stride)) if not isinstance(stride, int) else stride
    exact = covered is not None and covered == n or n is None and _arith.is_const(
        _arith.simplify(stride - extent), 0)  # ceildiv(n * 32, 32) * 32 is n * 32: no predicate, as TVM
    if not exact and not disable_predication:
        bound = extent if is_zero(loop.min) else loop.min + extent
        body = _add_predicate(body, expr < bound)
    body = _simplify_bindings(body, bounds)
    for v, f in reversed(list(zip(new_vars, factors))):
        body = For(v, const(0, dtype), _arith.simplify(const(f, dtype) if isinstance(f, int) else f),
                   ForKind.SERIAL, body)
    return replace_stmts(func, {loop: body}), new_vars


def fuse(func, loops: list[For], preserve_unit_iters: bool = True):
    """Fuse directly nested ``loops`` (outermost first) into one; returns (func, var)."""
    if len(loops) < 1:
        raise ScheduleError("fuse needs at least one loop", func)
    if len({id(lp) for lp in loops}) != len(loops):
        raise ScheduleError("fuse got the same loop twice", func, loop=loops[0])
    for outer, inner in zip(loops, loops[1:]):
        if outer.body is not inner:
            raise ScheduleError(
                f"fuse expects adjacent loops, each directly inside the previous one, but loop "
                f"{inner.loop_var.name!r} is not the only statement in the body of loop "
                f"{outer.loop_var.name!r}", func, loop=inner)
    fused_vars = {lp.loop_var for lp in loops}
    for lp in loops:
        _check_plain_loop(func, lp, "fuse")
        if not is_zero(lp.min):
            raise ScheduleError(f"fuse: loop {lp.loop_var.name!r} starts at {lp.min!r}; only loops "
                                "starting at 0 can be fused", func, loop=lp)
        if any(v in fused_vars for v in vars_in(lp.extent)):
            raise ScheduleError(f"fuse: the extent {lp.extent!r} of loop {lp.loop_var.name!r} depends on "
                                "another of the fused loops", func, loop=lp)
    dtype = loops[0].loop_var.dtype
    fused = Var("_".join(lp.loop_var.name for lp in loops) + "_fused", dtype)
    mapping = {}
    stride = 1
    extents = [lp.extent for lp in loops]
    for k in range(len(loops) - 1, -1, -1):
        lp = loops[k]
        # TVM's normal form of an iterator split: (f % (stride * extent)) // stride
        span = stride * extents[k] if isinstance(stride, int) and _arith.as_int(extents[k]) is not None \
            else _arith.simplify(stride * extents[k])
        if isinstance(span, int):
            span = const(span, dtype)
        e = fused if k == 0 else fused % span
        if not (isinstance(stride, int) and stride == 1):
            e = e // stride
        if _arith.as_int(extents[k]) == 1 and not preserve_unit_iters:
            e = const(0, dtype)
        if not (isinstance(lp.min, IntImm) and lp.min.value == 0):
            e = lp.min + e
        mapping[lp.loop_var] = e
        stride = _arith.as_int(span) if _arith.as_int(span) is not None else span
    total = stride if not isinstance(stride, int) else const(stride, dtype)
    body = substitute(loops[-1].body, mapping)
    bounds = _loop_bounds(func, loops[0])
    for lp in loops:
        bounds.pop(lp.loop_var, None)
    if _arith.as_int(total) is not None:
        bounds[fused] = (0, _arith.as_int(total) - 1)
    body = _simplify_bindings(body, bounds)
    new = For(fused, const(0, dtype), total, ForKind.SERIAL, body)
    return replace_stmts(func, {loops[0]: new}), fused


def reorder(func, loops: list[For]):
    """Permute the headers of loops in one perfectly nested chain into the given order."""
    if len({id(lp) for lp in loops}) != len(loops):
        raise ScheduleError("reorder got the same loop more than once", func, loop=loops[0])
    if len(loops) <= 1:
        return func, None
    depth = {}
    for lp in loops:
        path = path_to(func.body, lp)
        depth[id(lp)] = len(path)
    outer = min(loops, key=lambda lp: depth[id(lp)])
    wanted = {id(lp) for lp in loops}
    chain: list[For] = []
    node = outer
    found = 0
    while True:
        if not isinstance(node, For):
            break
        chain.append(node)
        if id(node) in wanted:
            found += 1
            if found == len(loops):
                break
        nxt = node.body
        if not isinstance(nxt, For):
            missing = [lp for lp in loops if lp not in chain]
            raise ScheduleError(
                f"reorder needs the loops to form a perfectly nested chain, but the body of loop "
                f"{node.loop_var.name!r} is not a single loop (loops not reached: "
                f"{', '.join(repr(m.loop_var.name) for m in missing)})", func, loop=node)
        node = nxt
    if found != len(loops):
        raise ScheduleError("reorder: the loops are not all in one nest", func, loop=outer)
    chain_vars = {lp.loop_var for lp in chain}
    for lp in chain:
        if any(v in chain_vars for v in vars_in(lp.extent) + vars_in(lp.min)):
            raise ScheduleError(f"reorder: the range of loop {lp.loop_var.name!r} depends on another "
                                "loop of the nest", func, loop=lp)
    _check_iter_types(func, chain, loops)
    _check_affine(func, chain)
    order = iter(loops)
    headers = [next(order) if id(lp) in wanted else lp for lp in chain]
    body = chain[-1].body
    for h in reversed(headers):
        body = replace(h, body=body)
    return replace_stmts(func, {outer: body}), None


def _check_affine(func, chain: list) -> None:
    """As TVM: each block under the reordered range binds its iterators affinely in the
    range's loops (other loops are constants there): sums of loops (and their // or % by
    constants) whose finest loop has coefficient 1."""
    from .analysis import blocks_under

    range_vars: set = set()

    def affine(e) -> bool:
        coeffs = []
        for atom, coeff in _arith.linear(e).terms.values():
            used = [v for v in vars_in(atom) if v in range_vars]
            if not used:
                continue
            if isinstance(atom, Var):
                coeffs.append(abs(coeff))
            elif isinstance(atom, FloorDiv | FloorMod) and _arith.as_int(atom.b) is not None and affine(atom.a):
                coeffs.append(1)
            else:
                return False
        return not coeffs or min(coeffs) == 1

    for realize in blocks_under(chain[-1].body):
        # the loops from the top of the range down to the block (TVM's loop domain)
        range_vars = {s.loop_var for s in [chain[0]] + (path_to(chain[0], realize) or []) if isinstance(s, For)}
        for iv, value in zip(realize.block.iter_vars, realize.iter_values):
            if not affine(value):
                raise ScheduleError(f"reorder: block {realize.block.name_hint!r} binds iterator "
                                    f"{iv.var.name!r} to {value!r}, not an affine map of the reordered "
                                    "loops", func, block=realize.block)
        # a predicate over the loops is not checked (TVM refuses one that ties the loops into a
        # fused bound): it is evaluated per iteration, so reordering keeps the iteration set,
        # and dlight's ragged row reductions reorder their rfactor loops under their tail guard


def _check_iter_types(func, chain: list, loops: list) -> None:
    """The loops may be bound only to spatial or reduction block iterators (a scan or
    opaque iterator fixes the order of its loop)."""
    from ember.tir.stmt import IterVarType

    from .analysis import blocks_under, vars_in

    moved = {lp.loop_var for lp in loops}
    for realize in blocks_under(chain[-1].body):
        for iv, value in zip(realize.block.iter_vars, realize.iter_values):
            if iv.iter_type in (IterVarType.DataPar, IterVarType.CommReduce):
                continue
            hit = [v for v in vars_in(value) if v in moved]
            if hit:
                raise ScheduleError(f"reorder: loop {hit[0].name!r} is bound to the "
                                    f"{IterVarType(iv.iter_type).name} iterator {iv.var.name!r} of block "
                                    f"{realize.block.name_hint!r}; only spatial and reduction iterators "
                                    "can be reordered", func, block=realize.block)


def add_unit_loop(func, target):
    """Wrap a block (its BlockRealize) or a loop in a new loop of extent 1."""
    var = Var("u", "int32")
    new = For(var, const(0, "int32"), const(1, "int32"), ForKind.SERIAL, target)
    return replace_stmts(func, {target: new}), var
