"""Moved to `common.keys.principals`: the app reads the same keys file without importing the
service. Kept so that code written against this path goes on working."""

from common.keys.principals import *  # noqa: F403
