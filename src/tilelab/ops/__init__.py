"""Public operations: each checks its contract, plans a launch, then launches."""

from tilelab.ops.matmul import matmul

__all__ = ["matmul"]
