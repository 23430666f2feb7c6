# SPDX-License-Identifier: Apache-2.0
"""The harness's cache: $INKKIOSK_CACHE, default ~/.cache/inkkiosk (kernels, toolchains, venvs).
The shell scripts take the same rule from scripts/lib/cache.sh."""

import os

CACHE = os.environ.get("INKKIOSK_CACHE", os.path.expanduser("~/.cache/inkkiosk"))


def path(*parts):
    """A path in the cache: path("kernel", "boot")."""
    return os.path.join(CACHE, *parts)
