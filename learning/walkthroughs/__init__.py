"""Traced walkthroughs for python -m learning.explain, one module per topic."""

TOPICS = ("indexing", "strides", "reduction", "softmax", "matmul", "grouping", "splitk", "alignment",
          "descriptors", "tuning", "registers", "pingpong", "conv", "epilogue", "fp8")
