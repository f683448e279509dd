"""The error raised when CUDA cannot be used, with what to install or check."""

from __future__ import annotations

INSTALL_HINT = "install the CUDA extra: pip install 'ember[cuda]' (cuda-bindings and nvidia-cuda-nvrtc)"


class CudaUnavailableError(RuntimeError):
    """CUDA is needed but the driver, a GPU, the Python bindings or NVRTC is missing."""


class CudaError(RuntimeError):
    """A CUDA driver or NVRTC call failed; the message names the call and the CUDA error."""
