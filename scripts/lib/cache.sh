# SPDX-License-Identifier: Apache-2.0
# The harness's cache (sourced, not run): $INKKIOSK_CACHE, default ~/.cache/inkkiosk (kernels,
# toolchains, venvs). scripts/lib/cache.py is the same rule for the Python scripts.
INKKIOSK_CACHE=${INKKIOSK_CACHE:-$HOME/.cache/inkkiosk}
