"""Moved to `common.keys.keystore`: the app reads the same keys file without importing the
service. Kept so that code written against this path goes on working."""

from common.keys.keystore import *  # noqa: F403
