"""``tvm.tir.transform.transform``: TVM's module of pass factories, re-exported from the
package (code such as ``from tvm.tir.transform.transform import BindTarget`` keeps working)."""

from __future__ import annotations

import ember.tir.transform as _package

globals().update({name: getattr(_package, name) for name in _package.__all__})
__all__ = list(_package.__all__)
