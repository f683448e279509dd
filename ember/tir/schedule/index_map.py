"""IndexMap: a function from an index tuple to an index tuple (``tir.IndexMap``).

Built from a Python lambda (``IndexMap.from_func(lambda i, j: (i // 16, j, i % 16))``);
applies to indices (``map_indices``) and shapes (``map_shape``: each output's bound
over the input box); ``inverse(shape)`` inverts the common tiling/permutation forms
(each output depends on one input as ``x``, ``x // c``, ``x % c`` or ``x // a % b``).
``to_python`` prints the lambda back (used by the trace), ``from_python`` parses it.
``non_surjective_inverse`` also inverts padded maps and gives the padding predicate;
``is_equivalent_to`` compares two maps symbolically; ``map_ndarray`` relayouts an array.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass

from ember.error import TVMError
from ember.ir import Add, FloorDiv, Node, FloorMod, IntImm, Max, Min, Mul, PrimExpr, Sub, Var, as_expr, const

from . import _arith

__all__ = ["IndexMap"]

_PY = {Add: "+", Sub: "-", Mul: "*", FloorDiv: "//", FloorMod: "%"}


def _py(e, names: dict) -> str:
    if isinstance(e, Var):
        return names.get(e, e.name)
    if isinstance(e, IntImm):
        return str(e.value)
    op = _PY.get(type(e))
    if op is not None:
        return f"({_py(e.a, names)} {op} {_py(e.b, names)})"
    if isinstance(e, Min | Max):
        return f"T.{type(e).__name__.lower()}({_py(e.a, names)}, {_py(e.b, names)})"
    raise ValueError(f"IndexMap.to_python cannot print {type(e).__name__} expressions")


@dataclass(frozen=True, eq=False)
class IndexMap(Node):
    """``initial_indices`` (Vars) map to ``final_indices`` (expressions of them)."""

    # structural equality (a Relax layout_transform attribute): the indices are defined here
    _def_fields = ("initial_indices",)
    _ignore_fields = ("inverse_index_map",)

    initial_indices: tuple
    final_indices: tuple
    inverse_index_map: object = None

    # put in a mapping function's output between two indices: an axis separator there
    AXIS_SEPARATOR = "axis_separator"

    @staticmethod
    def from_func_with_separators(mapping_function, ndim: int | None = None, inverse_index_map=None,
                                  index_dtype: str = "int32") -> tuple:
        """``(index_map, axis_separators)``: AXIS_SEPARATOR entries of the output are taken
        out and their positions (the number of indices before each) returned."""
        if isinstance(mapping_function, IndexMap):
            return mapping_function, []
        separators: list[int] = []

        def without_separators(*args, **kwargs):
            out = mapping_function(*args, **kwargs)
            out = list(out) if isinstance(out, list | tuple) else [out]
            kept = []
            for x in out:
                if isinstance(x, str) and x == IndexMap.AXIS_SEPARATOR:
                    separators.append(len(kept))
                else:
                    kept.append(x)
            return kept

        def named(*args, **kwargs):
            return without_separators(*args, **kwargs)

        named.__signature__ = inspect.signature(mapping_function)  # from_func reads the parameters
        return IndexMap.from_func(named, ndim, inverse_index_map, index_dtype), separators

    @staticmethod
    def from_func(mapping_function, ndim: int | None = None, inverse_index_map=None,
                  index_dtype: str = "int32") -> IndexMap:
        if isinstance(mapping_function, IndexMap):
            return mapping_function
        if not callable(mapping_function):
            raise TypeError(f"IndexMap.from_func expects a callable mapping_function, got "
                            f"{type(mapping_function).__name__}")
        params = list(inspect.signature(mapping_function).parameters.values())
        positional = [Var(p.name, index_dtype) for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        keywords = {p.name: Var(p.name, index_dtype) for p in params if p.kind == p.KEYWORD_ONLY}
        var_arg = next((p.name for p in params if p.kind == p.VAR_POSITIONAL), None)
        if var_arg is not None:  # *indices takes the dimensions the named parameters leave (as TVM)
            if ndim is None:
                raise ValueError("IndexMap.from_func: a *args mapping function needs ndim=")
            positional += [Var(f"{var_arg}_{k}", index_dtype) for k in range(ndim - len(positional) - len(keywords))]
        out = mapping_function(*positional, **keywords)
        if not isinstance(out, list | tuple):
            out = (out,)
        finals = tuple(as_expr(x) if not isinstance(x, int) else const(x, index_dtype) for x in out)
        return IndexMap(tuple(positional) + tuple(keywords.values()), finals, inverse_index_map)

    @staticmethod
    def from_python(text: str) -> IndexMap:
        import ember.tir as T

        return IndexMap.from_func(eval(text, {"T": T, "__builtins__": {}}))  # noqa: S307 - our own output

    def with_index_dtype(self, dtype: str) -> IndexMap:
        """The same map over indices of ``dtype`` (a map replayed from a trace is int32)."""
        if all(str(v.dtype) == str(dtype) for v in self.initial_indices):
            return self
        import ember.tir as T

        try:
            text = self.to_python()
        except ValueError:
            return self
        return IndexMap.from_func(eval(text, {"T": T, "__builtins__": {}}), index_dtype=str(dtype))  # noqa: S307

    def to_python(self) -> str:
        names = {v: v.name for v in self.initial_indices}
        body = ", ".join(_py(e, names) for e in self.final_indices)
        if len(self.final_indices) == 1:
            body += ","
        return f"lambda {', '.join(names.values())}: ({body})"

    def __repr__(self) -> str:
        return f"IndexMap({self.to_python()})"

    @property
    def ndim(self) -> int:
        return len(self.initial_indices)

    def map_indices(self, indices) -> list:
        if len(indices) != len(self.initial_indices):
            raise ValueError(f"IndexMap of {len(self.initial_indices)} inputs applied to "
                             f"{len(indices)} indices")
        from ember.tir.functor import substitute

        vmap = dict(zip(self.initial_indices, (as_expr(i) for i in indices)))
        return [_arith.simplify(substitute(e, vmap)) for e in self.final_indices]

    def map_shape(self, shape) -> list:
        if len(shape) != len(self.initial_indices):
            raise ValueError(f"IndexMap of {len(self.initial_indices)} inputs applied to a "
                             f"{len(shape)}-d shape")
        if any(_arith.as_int(s) is None for s in shape):
            return self._map_symbolic_shape(shape)
        bounds = {}
        for v, s in zip(self.initial_indices, shape):
            n = _arith.as_int(s)
            bounds[v] = (0, n - 1)
        dtype = next((s.dtype for s in shape if isinstance(s, PrimExpr)), None)
        out = []
        split = _split_divisors(self.final_indices)
        for e in self.final_indices:
            if isinstance(e, FloorMod) and (_key(e.a), _arith.as_int(e.b)) in split:
                # x % c beside x // c: a split padded to whole tiles takes all c values (TVM)
                out.append(const(_arith.as_int(e.b), dtype or e.dtype))
                continue
            lo, hi = _arith.const_bound(e, bounds)
            if lo is None or hi is None or lo < 0:
                raise ValueError(f"IndexMap.map_shape cannot bound the output {e!r}")
            out.append(const(hi + 1, dtype or e.dtype))  # the shape's index type (int64 shapes stay int64)
        return out

    def _map_symbolic_shape(self, shape) -> list:
        """Output extents over a symbolic shape: each output's largest value plus one, for
        outputs built of sums, products, ``//`` and ``%`` of the inputs and of (non-negative)
        shape variables (fusions such as ``i * n + j``); anything else is refused."""
        from ember.ir import Add, FloorDiv, FloorMod, IntImm, Mul

        top = {v: _arith.simplify(s - 1) for v, s in zip(self.initial_indices, shape)}

        def upper(e):
            if isinstance(e, Var):
                return top.get(e, e)
            if isinstance(e, IntImm) and e.value >= 0:
                return e
            if isinstance(e, Add | Mul):
                return type(e)(upper(e.a), upper(e.b))
            if isinstance(e, FloorDiv):
                return FloorDiv(upper(e.a), e.b)
            if isinstance(e, FloorMod):
                return e.b - 1
            raise ValueError(f"IndexMap.map_shape cannot bound the output {e!r} of a symbolic shape")

        return [_arith.simplify(upper(e) + 1) for e in self.final_indices]

    def inverse(self, shape) -> IndexMap:
        """The inverse map (outputs → inputs) over ``shape``; only for maps that are
        bijective on it (``non_surjective_inverse`` also inverts padded maps)."""
        if self.inverse_index_map is None and not self.is_bijective_on(shape):
            raise IndexMapError(f"IndexMap.inverse: cannot invert {self.to_python()}: it is not bijective "
                                f"on the shape {[_arith.as_int(s) for s in shape]} (a map that pads has "
                                "non_surjective_inverse)")
        return self._inverse(shape)

    def non_surjective_inverse(self, shape) -> tuple:
        """``(inverse, padding_predicate)``: the inverse over the mapped shape, and the
        condition (over the inverse's indices) under which an output index is padding, i.e.
        maps back outside ``shape``.

        When each input is a sum of whole outputs times weights (tiling with padding on
        either side: ``(i + 1) // 4, (i + 1) % 4``), the condition is written digit by digit
        from the outermost output, as TVM writes it: ``o0 == 3 and o1 >= 2`` rather than
        ``14 <= o0 * 4 + o1``.
        """
        from ember.ir import Or

        inverse, digits, shifts = self._inverse_with_digits(shape)
        new_shape = self.map_shape(shape)
        top = {id(v): _arith.as_int(n) for v, n in zip(inverse.initial_indices, new_shape)}
        predicate = None
        if all(d is not None for d in digits) and all(_arith.as_int(n) is not None for n in shape):
            for v, parts, n in zip(self.initial_indices, digits, shape):
                for cond in _padding_conditions(parts, shifts.get(id(v), 0), _arith.as_int(n), top):
                    predicate = cond if predicate is None else Or(predicate, cond)
            return inverse, (predicate if predicate is not None else const(False))
        bounds = {v: (0, _arith.as_int(n) - 1) for v, n in zip(inverse.initial_indices, new_shape)}
        for e, extent in zip(inverse.final_indices, shape):
            lo, hi = _arith.const_bound(e, bounds)
            n = _arith.as_int(extent)
            for cond, never in ((e < 0, lo is not None and lo >= 0), (e >= extent, hi is not None and n is not None and hi < n)):
                if never:
                    continue
                cond = _arith.simplify(cond, bounds)
                predicate = cond if predicate is None else Or(predicate, cond)
        return inverse, (predicate if predicate is not None else const(False))

    def is_equivalent_to(self, other: IndexMap) -> bool:
        """Whether both maps send every index to the same place (proved symbolically)."""
        if len(self.initial_indices) != len(other.initial_indices) or len(self.final_indices) != len(other.final_indices):
            return False
        from ember.arith import Analyzer

        mine = self.map_indices(other.initial_indices)
        analyzer = Analyzer()
        return all(analyzer.can_prove_equal(a, b) for a, b in zip(mine, other.final_indices))

    def map_ndarray(self, arr):
        """The array ``arr`` laid out by this map: element ``x[i]`` lands at ``out[map(i)]``
        (outputs a padded map leaves unwritten are zero)."""
        import numpy as np

        import ember

        data = arr.numpy() if hasattr(arr, "numpy") else np.asarray(arr)
        new_shape = [int(_arith.as_int(s)) for s in self.map_shape(list(data.shape))]
        grids = np.indices(data.shape, dtype=np.int64)
        env = {id(v): g for v, g in zip(self.initial_indices, grids)}
        targets = [np.broadcast_to(_eval_numpy(e, env), data.shape) for e in self.final_indices]
        out = np.zeros(new_shape, dtype=data.dtype)
        out[tuple(targets)] = data
        return ember.nd.array(out) if hasattr(arr, "numpy") else out

    def _inverse(self, shape) -> IndexMap:
        return self._inverse_with_digits(shape)[0]

    def _inverse_with_digits(self, shape) -> tuple:
        """``(inverse, digits, shifts)``: ``digits[k]`` lists ``(output var, weight)`` when
        input ``k`` is ``Σ output · weight - shift`` (None when it is built otherwise);
        ``shifts`` maps an input shifted by a constant (``(i + 1) // 4``) to that constant."""
        if self.inverse_index_map is not None:
            inv = self.inverse_index_map
            inv = inv if isinstance(inv, IndexMap) else IndexMap.from_func(inv)
            return inv, [None] * len(self.initial_indices), {}
        finals_in, shifts = _unshifted_outputs(self.initial_indices, self.final_indices)
        outs = [Var(f"o{k}", v.dtype) for k, v in enumerate(self.final_indices)]
        terms: dict = {id(v): [] for v in self.initial_indices}
        digits: dict = {id(v): [] for v in self.initial_indices}
        extent_of = {id(v): _arith.as_int(s) for v, s in zip(self.initial_indices, shape)}
        for v in self.initial_indices:  # a shifted input x + c takes the values [c, extent + c)
            if id(v) in shifts and extent_of[id(v)] is not None:
                extent_of[id(v)] += shifts[id(v)]
        for out_var, e in zip(outs, finals_in):
            if isinstance(e, IntImm):
                continue
            fused = _fused_terms(e, extent_of)
            if fused is not None:  # o = Σ x_k · stride_k  →  x_k = o // stride_k % extent_k
                for k, (var, stride) in enumerate(fused):
                    part = out_var if stride == 1 else out_var // stride
                    terms[id(var)].append(part if k == 0 else part % extent_of[id(var)])
                    digits[id(var)] = None
                continue
            found = _fused_digits(e, extent_of)
            if found is not None:  # o = Σ digit_k · weight_k, digit_k = x_k // a_k % n_k
                for k, (var, lower, weight, n) in enumerate(found):
                    part = out_var if weight == 1 else out_var // weight
                    part = part if k == 0 else part % n
                    terms[id(var)].append(part if lower == 1 else part * lower)
                    digits[id(var)] = None
                continue
            var, stride = _decompose(e)
            if var is None or id(var) not in terms:
                raise ValueError(f"IndexMap.inverse: cannot invert the output {e!r}; each output must be "
                                 "x, x // c, x % c or x // a % b of one input x (x may be shifted: x + c)")
            terms[id(var)].append(out_var if stride == 1 else out_var * stride)
            if digits[id(var)] is not None:
                digits[id(var)].append((out_var, stride))
        finals = []
        for v in self.initial_indices:
            parts = terms[id(v)]
            if not parts and extent_of[id(v)] == 1:
                parts = [const(0, v.dtype)]  # an input of extent 1 is always 0
            if not parts:
                raise ValueError(f"IndexMap.inverse: input {v.name} does not appear in any output")
            e = parts[0]
            for p in parts[1:]:
                e = e + p
            if id(v) in shifts:
                e = e - shifts[id(v)]
            finals.append(e)
        order = [digits[id(v)] for v in self.initial_indices]
        return IndexMap(tuple(outs), tuple(finals)), order, shifts

    def is_bijective_on(self, shape) -> bool:
        new_shape = self.map_shape(shape)  # refuses what it cannot bound first
        if any(_arith.as_int(s) is None for s in (*shape, *new_shape)):  # symbolic: compare the products
            total_in, total_out = const(1, "int64"), const(1, "int64")
            for s in shape:
                total_in = total_in * s
            for s in new_shape:
                total_out = total_out * s
            return _arith.is_const(_arith.simplify(total_out - total_in), 0)
        total_in = total_out = 1
        for s in shape:
            total_in *= _arith.as_int(s)
        for s in new_shape:
            total_out *= _arith.as_int(s)
        return total_in == total_out


class IndexMapError(TVMError, ValueError):
    """An index map that cannot do what was asked (invert a map that pads, …)."""


def _eval_numpy(e, env: dict):
    """``e`` evaluated with its Vars bound to numpy integer arrays (``env`` keyed by id)."""
    import numpy as np

    if isinstance(e, Var):
        return env[id(e)]
    if isinstance(e, IntImm):
        return np.int64(e.value)
    ops = {Add: np.add, Sub: np.subtract, Mul: np.multiply, FloorDiv: np.floor_divide,
           FloorMod: np.mod, Min: np.minimum, Max: np.maximum}
    fn = ops.get(type(e))
    if fn is None:
        raise ValueError(f"IndexMap.map_ndarray cannot evaluate {type(e).__name__} expressions")
    return fn(_eval_numpy(e.a, env), _eval_numpy(e.b, env))


def _decompose(e: PrimExpr):
    """(input var, stride) of ``x``, ``x // c``, ``x % c``, ``x // a % b``, ``x % a // b``;
    (None, 0) otherwise."""
    if isinstance(e, Var):
        return e, 1
    if isinstance(e, FloorMod) and _arith.as_int(e.b):
        inner = e.a
        if isinstance(inner, Var):
            return inner, 1
        if isinstance(inner, FloorDiv) and isinstance(inner.a, Var) and _arith.as_int(inner.b):
            return inner.a, _arith.as_int(inner.b)
    if isinstance(e, FloorDiv) and isinstance(e.a, Var) and _arith.as_int(e.b):
        return e.a, _arith.as_int(e.b)
    if (isinstance(e, FloorDiv) and isinstance(e.a, FloorMod) and isinstance(e.a.a, Var)
            and _arith.as_int(e.b) and _arith.as_int(e.a.b) and _arith.as_int(e.a.b) % _arith.as_int(e.b) == 0):
        return e.a.a, _arith.as_int(e.b)  # x % a // b: the digit x // b % (a / b)
    return None, 0


def _digit_extent(e: PrimExpr, var, lower: int, extent_of: dict):
    """How many values the digit ``e`` (of ``var``, lower factor ``lower``) takes."""
    if isinstance(e, FloorMod):
        return _arith.as_int(e.b)
    if isinstance(e, FloorDiv) and isinstance(e.a, FloorMod):
        return _arith.as_int(e.a.b) // lower
    total = extent_of.get(id(var))
    return -(-total // lower) if total else None


def _fused_digits(e: PrimExpr, extent_of: dict):
    """[(var, lower factor, weight, digit extent)] outermost first when ``e`` is a
    mixed-radix fusion of digits of the inputs (``x1 % 2 * 4 + x2 // 32``)."""
    lin = _arith.linear(e)
    if lin.const != 0 or len(lin.terms) < 2:
        return None
    digits = []
    for atom, weight in lin.terms.values():
        var, lower = _decompose(atom)
        if var is None or id(var) not in extent_of:
            return None
        n = _digit_extent(atom, var, lower, extent_of)
        if not n:
            return None
        digits.append((var, lower, weight, n))
    digits.sort(key=lambda d: -d[2])
    if digits[-1][2] != 1:
        return None
    for outer, inner in zip(digits, digits[1:]):
        if outer[2] != inner[2] * inner[3]:
            return None
    return digits


def _fused_terms(e: PrimExpr, extent_of: dict):
    """[(var, stride)] outermost first when ``e`` is a mixed-radix fusion of several inputs."""
    lin = _arith.linear(e)
    if lin.const != 0 or len(lin.terms) < 2:
        return None
    pairs = [(atom, coeff) for atom, coeff in lin.terms.values()]
    if not all(isinstance(a, Var) and id(a) in extent_of and extent_of[id(a)] for a, _ in pairs):
        return None
    pairs.sort(key=lambda p: -p[1])
    if pairs[-1][1] != 1:
        return None
    for (_, c_out), (v_in, c_in) in zip(pairs, pairs[1:]):
        if c_out != c_in * extent_of[id(v_in)]:
            return None
    return pairs


def _unshifted_outputs(inputs, outputs) -> tuple:
    """The outputs with each input ``x`` that only ever appears as ``x + c`` (one constant
    ``c > 0``, a left padding) replaced by ``x``, and ``{id(x): c}`` for those inputs."""
    seen: dict = {}  # id(x) -> set of shifts (0: unshifted)
    ids = {id(v) for v in inputs}

    def scan(e):
        if isinstance(e, Add) and isinstance(e.a, Var) and id(e.a) in ids and isinstance(e.b, IntImm) and e.b.value > 0:
            seen.setdefault(id(e.a), set()).add(e.b.value)
        elif isinstance(e, Var):
            if id(e) in ids:
                seen.setdefault(id(e), set()).add(0)
        elif isinstance(e, Add | Sub | Mul | FloorDiv | FloorMod | Min | Max):
            scan(e.a)
            scan(e.b)

    for e in outputs:
        scan(e)
    shifts = {k: next(iter(v)) for k, v in seen.items() if len(v) == 1 and 0 not in v}
    if not shifts:
        return tuple(outputs), {}

    def strip(e):
        if isinstance(e, Add) and isinstance(e.a, Var) and id(e.a) in shifts and isinstance(e.b, IntImm):
            return e.a
        if isinstance(e, Add | Sub | Mul | FloorDiv | FloorMod | Min | Max):
            return type(e)(strip(e.a), strip(e.b))
        return e

    return tuple(strip(e) for e in outputs), shifts


def _padding_conditions(parts, shift: int, extent: int, top: dict) -> list:
    """The conditions under which ``Σ o·w - shift`` (``parts``: (o, w)) leaves
    ``[0, extent)``: below (left padding), then above (right padding). ``top`` gives each
    output's extent."""
    parts = sorted(parts, key=lambda p: -p[1])
    digits = [(o, w, top[id(o)] - 1) for o, w in parts]
    largest = sum(w * hi for _, w, hi in digits)
    out = []
    if shift > 0:
        out.append(_lexicographic(digits, shift, below=True))
    if largest >= extent + shift:
        out.append(_lexicographic(digits, extent + shift, below=False))
    return [c for c in out if c is not None]


def _lexicographic(digits, bound: int, below: bool):
    """``Σ o·w < bound`` (``below``) or ``Σ o·w >= bound`` over mixed-radix digits
    (outermost first, each ``(o, w, largest value)``), decided on the outermost digit first:
    ``o0 < q or (o0 == q and rest < r)`` with ``q, r = divmod(bound, w0)``."""
    from ember.ir import And, Or

    o, w, hi = digits[0]
    rest = digits[1:]
    if not rest:
        if w != 1:
            return None
        if below:
            return o < bound if bound > 0 else None
        if bound > hi:
            return None
        return const(bound, o.dtype) == o if bound == hi else o >= bound
    q, r = divmod(bound, w)
    if below:
        if r == 0:
            return o < q if q > 0 else None
        tail = _sum_of(rest) < r if len(rest) > 1 else _lexicographic(rest, r, below=True)
        here = tail if hi == 0 == q else And(o == q, tail)
        return Or(o < q, here) if q > 0 else here
    if q > hi:
        return None
    if r == 0:
        return o == q if q == hi else o >= q
    tail = _sum_of(rest) >= r if len(rest) > 1 else _lexicographic(rest, r, below=False)
    if tail is None:
        return o > q if q < hi else None
    here = tail if hi == 0 == q else And(o == q, tail)
    return Or(o > q, here) if q < hi else here


def _sum_of(digits):
    """``Σ o·w`` of mixed-radix digits, outermost first (``o1 * 4 + o2``)."""
    total = None
    for o, w, _ in digits:
        term = o if w == 1 else o * w
        total = term if total is None else total + term
    return total


def _split_divisors(outputs) -> set:
    """``(key of x, c)`` for each output ``x // c`` (constant ``c``): the outer half of a
    split, whose inner half ``x % c`` then ranges over all of ``[0, c)``."""
    return {(_key(e.a), _arith.as_int(e.b)) for e in outputs
            if isinstance(e, FloorDiv) and _arith.as_int(e.b)}


def _key(e):
    """A Var by identity, any other expression by its text (``i + 1`` built twice)."""
    return id(e) if isinstance(e, Var) else repr(e)
