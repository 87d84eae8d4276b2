"""Errors the encoder package raises on purpose; each message names the fix."""


class EncoderNotFoundError(ValueError):
    """A name that is neither a bundled model, a local folder, nor a reachable hub id."""


class ConversionError(RuntimeError):
    """The bundled 4-bit model image could not be turned into a float model."""


class BrokenModelError(ValueError):
    """A model whose outputs are not finite numbers (NaN or infinity): a fine-tune that diverged
    (too high a learning rate) saves such weights. Its vectors are never indexed or answered."""


class BackendError(RuntimeError):
    """An explicitly requested encoding backend could not be exported or loaded."""
