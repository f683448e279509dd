"""TVM's TIR builtins for device code and the packed-call ABI (``tir.tvm_fill_fragment``,
``tir.tvm_warp_shuffle``, ``tir.ptx_mma``, ``tir.tvm_stack_make_shape`` …) as builders.

They build ``Call`` nodes so that scripts and passes that use them parse and print;
ember's CPU code generator refuses the ones it cannot emit, naming them. The table says
each builtin's result dtype: a fixed dtype, or ``"arg<i>"`` for the dtype of argument i.
"""

from __future__ import annotations

from ember.ir import Call, DataType, Op, as_expr, register_op

# name -> result dtype ("handle", "int32", ..., or "arg<i>": the dtype of argument i)
BUILTINS: dict[str, str] = {
    # packed-call ABI
    "tvm_struct_set": "int32", "tvm_stack_alloca": "handle", "tvm_stack_make_shape": "handle",
    "tvm_stack_make_array": "handle", "tvm_call_packed_lowered": "int32",
    "tvm_call_cpacked_lowered": "int32", "tvm_call_packed": "int32", "tvm_call_cpacked": "int32",
    "tvm_throw_last_error": "int32", "tvm_tuple": "handle", "tvm_check_return": "int32",
    "lookup_param": "handle", "type_annotation": "handle", "tvm_struct_get": "last",
    "tvm_access_ptr": "handle", "tvm_storage_sync": "int32", "tvm_thread_allreduce": "handle",
    "address_of": "handle",
    # threads and warps
    "tvm_warp_shuffle": "arg1", "tvm_warp_shuffle_up": "arg1", "tvm_warp_shuffle_down": "arg1",
    "tvm_warp_activemask": "uint32", "tvm_thread_invariant": "arg0", "tvm_global_barrier_kinit": "handle",
    # tensor cores (wmma) and PTX
    "tvm_load_matrix_sync": "handle", "tvm_store_matrix_sync": "handle", "tvm_mma_sync": "handle",
    "tvm_bmma_sync": "handle", "tvm_fill_fragment": "handle", "ptx_mma": "handle", "ptx_mma_sp": "handle",
    "ptx_ldmatrix": "handle", "ptx_cp_async": "handle", "ptx_cp_async_bulk": "handle",
    "ptx_commit_group": "handle", "ptx_wait_group": "handle", "ptx_cp_async_barrier": "handle",
    "ptx_init_barrier_thread_count": "handle", "ptx_arrive_barrier": "handle",
    "ptx_arrive_barrier_expect_tx": "handle", "ptx_wait_barrier": "handle", "mma_store": "handle",
    "mma_fill": "handle", "make_filled_simdgroup_matrix": "handle",
    # misc
    "undef": "int32", "q_multiply_shift": "arg0", "q_multiply_shift_per_axis": "arg0", "isnullptr": "bool", "texture2d_load": "handle",
    "texture2d_store": "handle", "dp4a": "int32", "vscale": "int32", "get_active_lane_mask": "handle",
    "anylist_getitem": "handle", "anylist_resetitem": "handle", "anylist_setitem_call_packed": "int32",
    "create_barriers": "handle", "tvm_thread_context": "handle",
    # workspace memory of the device API (lowered Allocate on the host)
    "TVMBackendAllocWorkspace": "handle", "TVMBackendFreeWorkspace": "int32",
}

for _name in BUILTINS:
    try:
        Op.get("tir." + _name)  # registered elsewhere (e.g. by the code generator), with its own attrs
    except KeyError:
        register_op("tir." + _name, num_inputs=None, pure=False)


def _builder(name: str, rule: str):
    def build(*args, dtype=None, span=None):
        args = tuple(as_expr(a) if not isinstance(a, str) else _string(a) for a in args)
        if rule == "last" and dtype is None:  # tvm_struct_get(handle, index, field, dtype)
            dtype, args = args[-1].value, args[:-1]
        if dtype is not None:
            result = DataType(dtype)
        elif rule.startswith("arg"):
            index = int(rule[3:])
            if index >= len(args):
                raise TypeError(f"tir.{name} expects at least {index + 1} arguments, got {len(args)}")
            result = args[index].dtype
        else:
            result = DataType(rule)
        return Call(result, Op.get("tir." + name), args)

    build.__name__ = name
    build.__doc__ = f"The ``tir.{name}`` builtin (a Call node; result dtype: {rule}; ``dtype=`` overrides)."
    return build


def _string(text: str):
    from ember.ir import StringImm

    return StringImm(text)


for _name, _rule in BUILTINS.items():
    globals()[_name] = _builder(_name, _rule)

__all__ = ["BUILTINS", *BUILTINS]
