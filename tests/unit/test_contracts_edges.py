"""Contract paths that mutation testing (thirty-second session) found untested: each error is typed and names
its argument, and each accepted edge value (a bound itself, a bare string or a size of 0) is accepted."""

import math

import pytest
import torch

import tilelab
from tests.helpers import randn
from tilelab import contracts, reference
from tilelab.ops.matmul_hopper import HopperConfig


@pytest.mark.parametrize("eps,error,match", [
    (float("nan"), tilelab.ContractError, "eps must be a finite number >= 0; got nan"),
    (math.inf, tilelab.ContractError, "eps must be a finite number >= 0; got inf"),
    (-math.inf, tilelab.ContractError, "eps must be a finite number >= 0; got -inf"),
    (True, tilelab.InputTypeError, "eps must be a real number; got bool True"),
])
def test_an_epsilon_that_is_nan_infinite_or_a_bool_is_refused(eps, error, match, device, rng):
    x = randn((3, 7), torch.float32, device, rng)
    with pytest.raises(error, match=match):
        tilelab.rmsnorm(x, eps=eps)
    image, weight = randn((1, 4, 5, 5), torch.float32, device, rng), randn((4, 4, 3, 3), torch.float32, device, rng)
    stats = randn((4,), torch.float32, device, rng).abs() + 0.5
    with pytest.raises(error, match=match):
        tilelab.conv2d_bn_silu(image, weight, running_mean=stats, running_var=stats, eps=eps)


def test_a_per_channel_vector_on_another_device_is_a_device_error_naming_it(device, rng):
    x = randn((3, 7), torch.float32, device, rng)
    with pytest.raises(tilelab.DeviceError, match=f"weight is on meta, x on {x.device}"):
        tilelab.rmsnorm(x, torch.ones(7, device="meta"))
    image, weight = randn((1, 4, 5, 5), torch.float32, device, rng), randn((4, 4, 3, 3), torch.float32, device, rng)
    stats = randn((4,), torch.float32, device, rng).abs() + 0.5
    with pytest.raises(tilelab.DeviceError, match=f"running_var is on meta, x on {image.device}"):
        tilelab.conv2d_bn_silu(image, weight, running_mean=stats, running_var=torch.ones(4, device="meta"))


def test_the_largest_split_k_is_accepted_and_exact(device, rng, poisoned_outputs):
    """split_k's bound (tuning.SPLIT_K_LIMIT = 64) is itself allowed; 65 is refused (test_contracts.py)."""
    from tilelab import tuning

    a, b = randn((7, 65), torch.float32, device, rng), randn((65, 9), torch.float32, device, rng)
    config = HopperConfig(16, 16, 16, num_warps=4, num_stages=1, epilogue_subtile=False,
                          split_k=tuning.SPLIT_K_LIMIT)
    out = tilelab.matmul(a, b, path="splitk", config=config, precision="ieee")
    err = reference.relative_error(out, reference.matmul_reference(a, b))
    assert err <= reference.tolerance(torch.float32, "ieee"), err


@pytest.mark.parametrize("shapes,match", [
    ("16,16,16", "shapes must be a list of shapes such as"),
    (b"\x10\x10\x10", "shapes must be a list of shapes such as"),
    (torch.tensor([16, 16, 16]), "shapes must be a list of shapes such as"),
])
def test_a_string_or_a_tensor_is_not_a_list_of_shapes(shapes, match):
    with pytest.raises(tilelab.InputTypeError, match=match):
        contracts.as_shapes(shapes, "shapes", (3,))
    with pytest.raises(tilelab.InputTypeError, match=match):
        tilelab.pretune(shapes)


def test_an_int_s_upper_bound_is_inclusive_and_named():
    assert contracts.as_int(5, "slices", low=1, high=5) == 5
    with pytest.raises(tilelab.ContractError, match="slices must be an int from 1 to 5; got 6"):
        contracts.as_int(6, "slices", low=1, high=5)
    assert contracts.as_int(-7, "offset", high=0) == -7
    with pytest.raises(tilelab.ContractError, match="offset must be an int at most 0; got 1"):
        contracts.as_int(1, "offset", high=0)


def test_a_bare_string_is_one_choice_not_its_letters():
    assert contracts.as_choices("pointer", "paths", (None, "pointer")) == ("pointer",)
    assert contracts.as_choices(None, "paths", (None, "pointer")) == (None,)
    assert contracts.as_choices(["pointer", None], "paths", (None, "pointer")) == ("pointer", None)
    with pytest.raises(tilelab.ContractError, match="paths must be one of None, 'pointer'; got 'p'"):
        contracts.as_choices(("p",), "paths", (None, "pointer"))


def test_interpreting_after_triton_was_imported_for_a_gpu_is_a_device_error_saying_so(tmp_path):
    """TRITON_INTERPRET=1 set after `import triton` left triton's own functions built for a GPU, and the call
    failed deep in Triton ("Cannot call @triton.jit'd outside of the scope of a kernel"; a library user's review).
    A fresh process, since this one's triton is already imported one way."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    script = tmp_path / "late.py"
    script.write_text("import os\nimport torch\nimport triton  # noqa: F401\nimport tilelab\n"
                      "os.environ['TRITON_INTERPRET'] = '1'\n"
                      "try:\n    tilelab.matmul(torch.randn(4, 4), torch.randn(4, 4))\n"
                      "except tilelab.DeviceError as error:\n    print('DeviceError:', error)\n")
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    env["PYTHONPATH"] = str(Path(tilelab.__file__).resolve().parents[1])
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=120)
    assert "DeviceError: a is a CPU tensor and TRITON_INTERPRET=1, but triton was imported before that was set" \
        in done.stdout, done.stdout + done.stderr
    # After `import tilelab` (which does not import triton) it is not too late: SETUP.md says so.
    script.write_text("import os\nimport torch\nimport tilelab\nos.environ['TRITON_INTERPRET'] = '1'\n"
                      "print(tuple(tilelab.matmul(torch.ones(4, 4), torch.ones(4, 4))[0].tolist()))\n")
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=120)
    assert done.stdout.strip() == "(4.0, 4.0, 4.0, 4.0)", done.stdout + done.stderr
