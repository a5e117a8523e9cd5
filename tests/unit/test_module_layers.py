"""The ops modules keep to their layers: what each may import from tilelab, anywhere in the file (lazy imports
inside functions count). A change that makes the planner launch, or the launch binder depend on an op, fails here
rather than in a reader's head."""

import ast
from pathlib import Path

import pytest

OPS = Path(__file__).resolve().parents[2] / "src" / "tilelab" / "ops"


def tilelab_imports(module: str) -> set[str]:
    """Every tilelab module `ops/<module>.py` imports, as dotted names (`from tilelab.ops import x` gives
    tilelab.ops.x)."""
    found = set()
    for node in ast.walk(ast.parse((OPS / f"{module}.py").read_text())):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name.startswith("tilelab"))
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("tilelab"):
            if node.module in ("tilelab", "tilelab.ops", "tilelab.kernels"):
                found.update(f"{node.module}.{alias.name}" for alias in node.names)
            else:
                found.add(node.module)
    return found


# What each module may import from tilelab, and why.
ALLOWED = {
    # Binding a recorded launch knows nothing of any op.
    "bound_launch": set(),
    # Host-built descriptors need an operand's layout, nothing that launches.
    "descriptors": {"tilelab.env", "tilelab.ops.matmul_plan"},
    # The planner reads shapes, strides and alignment; it asks the Hopper paths' modules whether they take a
    # problem (`unsupported_reason`, `pays_off`), but imports no kernel and not the op that launches.
    "matmul_plan": {"tilelab.contracts", "tilelab.env", "tilelab.tuning", "tilelab.alignment",
                    "tilelab.ops.matmul_hopper", "tilelab.ops.matmul_pingpong", "tilelab.ops.matmul_registers"},
    # Copies onto lines know an operand's layout and the planner's threshold, and bind their launches for
    # replays; the op decides when to copy.
    "line_copies": {"tilelab.env", "tilelab.alignment", "tilelab.ops.matmul_plan", "tilelab.ops.bound_launch",
                    "tilelab.kernels.row_copy"},
    # The row kernels replay through the binder, not through matmul (tilelab.library: the custom ops, for autograd).
    "rows": {"tilelab.contracts", "tilelab.ops.bound_launch", "tilelab.kernels.rows", "tilelab.library"},
}


@pytest.mark.parametrize("module", sorted(ALLOWED))
def test_each_ops_module_imports_only_its_layer(module):
    extra = tilelab_imports(module) - ALLOWED[module]
    assert not extra, f"ops/{module}.py imports {sorted(extra)}"


def test_the_import_census_sees_lazy_imports():
    assert "tilelab.ops.matmul_pingpong" in tilelab_imports("matmul_plan")  # imported inside a function
    assert "tilelab.ops.matmul_plan" in tilelab_imports("matmul")
