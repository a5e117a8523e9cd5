#!/bin/bash
# Device call DDDDDDDD (2026-11-30, session 25), run as this one command line on the warm machine right after
# CCCCCCCC, from the same snapshot (7cd74de): every conv GPU test and the conv interpreter files on the GPU at
# the final kernel (vector hints with output_hint, the split sum in halves).
W=/tmp/w25d; rm -rf $W; mkdir -p $W/w $W/src && tar -xf device-snapshot.tar -C $W/src && cd $W/src && PYTHONPATH=src:. TILELAB_REQUIRE_GPU=1 timeout 200 python -m pytest -q -n 16 -p no:cacheprovider -rfE tests/gpu/test_conv_gpu.py tests/interpreter/test_conv_interpreter.py tests/interpreter/test_conv_split_k_interpreter.py tests/interpreter/test_conv_groups_interpreter.py > $W/w/h200-gpu-tests-conv-session25-final.log 2>&1; echo "tests rc=$?"; tail -3 $W/w/h200-gpu-tests-conv-session25-final.log | cut -c1-200; cp $W/w/*.log $OUT/
