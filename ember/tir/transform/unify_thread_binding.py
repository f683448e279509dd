"""UnifyThreadBinding: one loop per GPU thread axis per kernel.

A scheduled kernel may bind several sibling loops to the same thread axis (two
``threadIdx.x`` loops side by side, or ``T.launch_thread`` of two env threads with
the same tag).  Code generators want each axis launched once, at the top of the
kernel.  Within each kernel (from its outermost thread binding), every loop or
``thread_extent`` attribute bound to a tag is removed and its variable replaced by
one variable per tag; the kernel is then wrapped in one ``THREAD_BINDING`` loop per
tag, in first-seen order (outermost first).  Loops bound to the same tag must have
the same extent.  Annotations of a removed loop stay on a serial loop of extent 1.
"""

from __future__ import annotations

from ember.arith import Analyzer
from ember.ir import Range, Var, const
from ember.transform import Pass

from ..function import PrimFunc
from ..functor import IRMutator
from ..op import cast
from ..stmt import AttrStmt, For, ForKind, IterVar, IterVarType
from ._common import TransformError, make_pass

__all__ = ["unify_thread_binding", "UnifyThreadBinding"]


class _Unifier(IRMutator):
    def __init__(self):
        super().__init__()
        self.analyzer = Analyzer()
        self.block_depth = 0  # > 0 inside a kernel
        self.by_tag: dict[str, tuple[Var, Range]] = {}
        self.launch_order: list[str] = []
        self.vmap: dict[Var, object] = {}

    def visit_Var(self, var: Var):
        return self.vmap.get(var, var)

    def _unify(self, stmt, old_var: Var, tag: str, dom: Range):
        new_kernel = self.block_depth == 0
        outer_depth = self.block_depth
        if new_kernel:  # a new kernel may use other extents for the same tags
            self.by_tag, self.launch_order = {}, []
        if new_kernel or tag.startswith("blockIdx."):
            self.block_depth += 1
        if tag in self.by_tag:
            var, known = self.by_tag[tag]
            if not self.analyzer.can_prove_equal(known.extent, dom.extent):
                raise TransformError(
                    f"UnifyThreadBinding: all loops bound to {tag!r} in one kernel must have the "
                    f"same extent, got {known.extent} and {dom.extent}")
        else:
            var = Var(tag, old_var.dtype)
            self.by_tag[tag] = (var, dom)
            self.launch_order.append(tag)
        self.vmap[old_var] = var if var.dtype == old_var.dtype else cast(var, old_var.dtype)
        body = self.visit(stmt.body)
        self.block_depth = outer_depth
        if not new_kernel:
            return body
        by_tag, order = self.by_tag, self.launch_order
        for launched in reversed(order):
            var, dom = by_tag[launched]
            binding = IterVar(Range(dom.min, dom.extent), Var(launched, var.dtype),
                              IterVarType.ThreadIndex, launched)
            body = For(var, dom.min, dom.extent, ForKind.THREAD_BINDING, body, binding, {})
        return body

    def visit_For(self, loop: For):
        if loop.kind != ForKind.THREAD_BINDING or loop.thread_binding is None:
            return self.generic_visit(loop)
        lo, extent = self.visit(loop.min), self.visit(loop.extent)
        out = self._unify(loop, loop.loop_var, loop.thread_binding.thread_tag, Range(lo, extent))
        if loop.annotations:
            if isinstance(out, For) and out.kind == ForKind.THREAD_BINDING:
                inner = out
                while isinstance(inner.body, For) and inner.body.kind == ForKind.THREAD_BINDING:
                    inner = inner.body
                # keep the annotations just inside the launched thread loops
                return _rebuild_inside(out, inner, _annotated(inner.body, loop.annotations))
            return _annotated(out, loop.annotations)
        return out

    def visit_AttrStmt(self, stmt: AttrStmt):
        if stmt.attr_key != "thread_extent" or not isinstance(stmt.node, IterVar):
            return self.generic_visit(stmt)
        iv = stmt.node
        extent = self.visit(stmt.value)
        return self._unify(stmt, iv.var, iv.thread_tag, Range(const(0, extent.dtype), extent))


def _annotated(body, annotations):
    return For(Var("var", "int32"), const(0, "int32"), const(1, "int32"), ForKind.SERIAL, body,
               None, dict(annotations))


def _rebuild_inside(outer: For, inner: For, new_body):
    from ember.ir import replace

    if outer is inner:
        return replace(outer, body=new_body)
    return replace(outer, body=_rebuild_inside(outer.body, inner, new_body))


def unify_thread_binding(func: PrimFunc) -> PrimFunc:
    """``func`` with one loop per thread tag per kernel."""
    body = _Unifier().visit(func.body)
    return func if body is func.body else func.with_body(body)


def UnifyThreadBinding() -> Pass:  # noqa: N802 - TVM's name
    """The pass form of :func:`unify_thread_binding`."""
    return make_pass(unify_thread_binding, "tir.UnifyThreadBinding")
