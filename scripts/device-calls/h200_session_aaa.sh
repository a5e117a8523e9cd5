#!/bin/bash
# Device call AAA (2026-11-29 session 8): call ZZ's commands again after its fix (the launch now sets num_warps):
# the registers path's GPU tests and the matmul tests it touches, the tf32 sweep of record, and sizes for its
# threshold.
bash "$(dirname "$0")/h200_session_zz.sh"
