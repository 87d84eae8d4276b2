"""Moved to `common.keys.keyfile`: the app reads the same keys file without importing the
service. Kept so that code written against this path goes on working."""

from common.keys.keyfile import *  # noqa: F403
