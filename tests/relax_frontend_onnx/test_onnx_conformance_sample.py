"""A fixed sample of ONNX's node conformance cases (at least one per op the importer
converts, across every op family) run through ``ember.testing.onnx_conformance`` in CI;
the full run is marked slow.  Cases run in forked child processes (crashes and hangs are
counted failures, never a pytest crash)."""

import pytest

from ember.testing.onnx_conformance import collect_cases, run_cases, summarize

SAMPLE = (
    "test_abs", "test_acos", "test_acosh", "test_add_uint8", "test_and4d",
    "test_argmax_keepdims_random_select_last_index", "test_argmin_default_axis_example_select_last_index",
    "test_asin_example", "test_asinh", "test_atan_example", "test_atanh",
    "test_attention_local_window_default", "test_averagepool_2d_precomputed_pads_count_include_pad",
    "test_batchnorm_epsilon", "test_bitshift_right_int64", "test_bitwise_and_i16_3d", "test_bitwise_not_2d",
    "test_bitwise_or_i16_4d", "test_bitwise_xor_ui64_bcast_3v1d", "test_blackmanwindow_expanded",
    "test_blackmanwindow_symmetric", "test_cast_FLOAT_to_DOUBLE", "test_cast_FLOAT_to_FLOAT16",
    "test_castlike_FLOAT_to_DOUBLE", "test_causal_conv_with_state_with_bias_and_past_state_expanded",
    "test_ceil_example", "test_celu_expanded", "test_center_crop_pad_crop_and_pad", "test_clip_default_max",
    "test_concat_3d_axis_negative_3", "test_constant", "test_constant_pad", "test_constant_pad_axes",
    "test_constantofshape_int_zeros", "test_conv_with_strides_and_asymmetric_padding",
    "test_convinteger_without_padding", "test_convtranspose_1d", "test_convtranspose_dilations",
    "test_convtranspose_group_2", "test_convtranspose_output_shape", "test_cos", "test_cosh_example",
    "test_cumprod_2d_int32", "test_cumsum_1d", "test_depthtospace_crd_mode_example",
    "test_depthtospace_example_expanded", "test_dequantizelinear_axis", "test_det_2d", "test_div_uint8",
    "test_dropout_default_mask_ratio", "test_dynamicquantizelinear_min_adjusted", "test_edge_pad",
    "test_einsum_inner_prod", "test_elu_expanded_ver18", "test_equal_int16", "test_erf", "test_exp",
    "test_expand_dim_changed", "test_eyelike_with_dtype", "test_flatten_axis1",
    "test_flatten_negative_axis1", "test_floor_example", "test_gather_elements_negative_indices",
    "test_gather_negative_indices", "test_gathernd_example_int32_batch_dim1", "test_gelu_tanh_1_expanded",
    "test_gemm_default_scalar_bias", "test_globalaveragepool", "test_globalmaxpool_precomputed",
    "test_greater_equal_bcast", "test_greater_uint64",
    "test_gridsample_nearest_align_corners_1_additional_1", "test_hammingwindow", "test_hardmax_one_hot",
    "test_hardsigmoid", "test_hardswish", "test_identity", "test_if", "test_isinf_positive",
    "test_isnan_float16", "test_l1normalization_axis_0", "test_layer_normalization_4d_axis_negative_2",
    "test_leakyrelu", "test_less_equal_bcast", "test_less_equal_uint64_expanded", "test_log_example",
    "test_logsoftmax_axis_1_expanded_ver18", "test_logsoftmax_negative_axis", "test_lppool_2d_same_lower",
    "test_lrn_default", "test_matmul_4d_1d", "test_matmulinteger", "test_max_uint32",
    "test_maxpool_1d_default", "test_maxpool_2d_ceil_output_size_reduce_by_one", "test_mean_example",
    "test_min_float16", "test_mish", "test_mod_float32_mixed_sign_fmod_0",
    "test_mod_float_edge_cases_fmod_0_float32", "test_mul", "test_mvn", "test_mvn_expanded",
    "test_neg_example", "test_nllloss_NCd1", "test_nllloss_NCd1_weight_expanded",
    "test_nonmaxsuppression_center_point_box_format", "test_nonzero_example", "test_not_3d",
    "test_onehot_with_negative_axis", "test_optional_get_element_tensor",
    "test_optional_has_element_empty_no_input_tensor_input", "test_or_bcast4v2d",
    "test_pow_types_int32_float32", "test_pow_types_int32_int32", "test_prelu_example",
    "test_quantizelinear_uint16", "test_range_float_type_positive_delta", "test_reciprocal",
    "test_reduce_l1_do_not_keepdims_example", "test_reduce_l2_keep_dims_example",
    "test_reduce_log_sum_desc_axes", "test_reduce_log_sum_exp_empty_set", "test_reduce_max_bool_inputs",
    "test_reduce_mean_default_axes_keepdims_example", "test_reduce_min_default_axes_keepdims_example",
    "test_reduce_min_empty_set", "test_reduce_prod_default_axes_keepdims_example",
    "test_reduce_prod_keepdims_example", "test_reduce_sum_keepdims_random",
    "test_reduce_sum_square_empty_set", "test_reflect_pad", "test_relu_expanded_ver18",
    "test_reshape_zero_and_negative_dim", "test_resize_downsample_sizes_linear_pytorch_half_pixel",
    "test_reversesequence_bfloat16", "test_rms_normalization_4d_axis_negative_4", "test_roialign_mode_max",
    "test_round", "test_scan9_scalar", "test_scatter_elements_with_duplicate_indices",
    "test_scatter_with_axis", "test_scatternd_multiply", "test_sce_sum_log_prob",
    "test_selu_example_expanded_ver18", "test_shrink_hard", "test_sigmoid", "test_sign",
    "test_simple_rnn_with_initial_bias", "test_sin_example", "test_sinh", "test_size",
    "test_softmax_example_expanded", "test_softplus_example_expanded_ver18",
    "test_softsign_example_expanded_ver18", "test_spacetodepth_example",
    "test_split_equal_parts_default_axis_opset18", "test_sqrt", "test_sub_bcast", "test_sum_two_inputs",
    "test_swiglu", "test_swiglu_alpha_expanded", "test_tan_example", "test_tanh", "test_tensorscatter_3d",
    "test_thresholdedrelu", "test_thresholdedrelu_default_expanded_ver18", "test_tile",
    "test_top_k_negative_axis", "test_transpose_all_permutations_5", "test_triu",
    "test_unique_sorted_with_axis", "test_upsample_nearest", "test_where_example", "test_wrap_pad",
    "test_xor_bcast3v1d",
    # low-bit storage types, training/ml ops, value-dependent shapes
    "test_cast_FLOAT_to_FLOAT8E4M3FN", "test_cast_no_saturate_FLOAT16_to_FLOAT8E5M2", "test_castlike_INT4_to_FLOAT",
    "test_cast_e8m0_FLOAT_to_FLOAT8E8M0", "test_quantizelinear_e4m3fn", "test_dequantizelinear_int4",
    "test_bitcast_float32_to_int32", "test_adam", "test_momentum", "test_tfidfvectorizer_tf_batch_uniandbigrams_skip5",
    "test_ai_onnx_ml_tree_ensemble_single_tree", "test_col2im_pads", "test_affine_grid_2d",
    "test_training_dropout_mask", "test_maxpool_with_argmax_2d_precomputed_pads", "test_squeeze",
)

# the full run's floor: tensor cases passing (raise it as the importer grows)
FULL_RUN_MIN_PASS_RATE = 0.97


def test_sample_cases_exist():
    cases = collect_cases()
    missing = [n for n in SAMPLE if n not in cases]
    assert not missing, missing
    assert len(SAMPLE) >= 150


def test_conformance_sample_passes():
    results = run_cases(list(SAMPLE), jobs=2, timeout=120)
    failed = [r for r in results if r.status != "pass"]
    assert not failed, summarize(failed, list_failures=True)


@pytest.mark.slow
def test_conformance_full_run_pass_rate():
    results = run_cases(None, jobs=2, timeout=120)
    tensor = [r for r in results if r.tensor_only]
    rate = sum(r.status == "pass" for r in tensor) / len(tensor)
    assert rate >= FULL_RUN_MIN_PASS_RATE, summarize(results)


def test_runner_counts_a_crash_as_a_failure(monkeypatch):
    # a case whose child dies is reported, and the rest of its batch still runs
    import os

    from ember.testing import onnx_conformance as oc

    real = oc.run_case

    def crashing(case):
        if case.name == "test_abs":
            os._exit(3)
        return real(case)

    monkeypatch.setattr(oc, "run_case", crashing)
    results = {r.name: r for r in run_cases(["test_abs", "test_relu"], timeout=120)}
    assert results["test_abs"].status == "crash"
    assert "exit code 3" in results["test_abs"].message
    assert results["test_relu"].status == "pass"
