"""TfIdfVectorizer over int tokens against ONNX's reference evaluator."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto as TP
from onnx import helper
from onnx.reference import ReferenceEvaluator

from onnx_helpers import make_model, run_ember


@pytest.mark.parametrize("mode", ["TF", "IDF", "TFIDF"])
@pytest.mark.parametrize("shape", [[12], [2, 6]])
@pytest.mark.parametrize("grams,skip", [((1, 2), 0), ((2, 2), 3), ((1, 3), 2)])
def test_tfidf_matches_reference(mode, shape, grams, skip):
    pool = [2, 3, 5, 4, 5, 6, 7, 8, 6, 7, 5, 6, 7]  # 4 unigrams, 3 bigrams, 1 trigram
    node = helper.make_node("TfIdfVectorizer", ["x"], ["y"], mode=mode, min_gram_length=grams[0],
                            max_gram_length=grams[1], max_skip_count=skip, ngram_counts=[0, 4, 10],
                            ngram_indexes=[0, 1, 2, 3, 4, 5, 6, 7], pool_int64s=pool,
                            weights=[0.5, 1.0, 2.0, 1.5, 1.0, 3.0, 0.25, 2.0])
    width = [shape[0], 8] if len(shape) == 2 else [8]
    model = make_model(node, [("x", TP.INT64, shape)], [("y", TP.FLOAT, width)], opset=9)
    x = np.array([1, 1, 3, 3, 3, 7, 8, 6, 7, 5, 6, 8], "int64").reshape(shape)
    (got,) = run_ember(model, {"x": x})
    (expected,) = ReferenceEvaluator(model).run(None, {"x": x})
    np.testing.assert_allclose(got, expected)
