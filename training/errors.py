"""`TrainingError`: a mistake a user can fix (bad flag, bad file, busy folder); the CLI prints
its message as one line and exits non-zero, without a traceback."""


class TrainingError(ValueError):
    """Raised before any training starts; the message names the fix."""
