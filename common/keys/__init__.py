"""Principals and the keys file that names them: who holds which key, in which groups, with
which scopes. The service checks a caller's key against it (`service.access`); the app reads the
same file to know whose documents a page may show (`app/appkit/reader.py`). Pure parsing and
hashing (tomllib, PyYAML, hashlib): importing it loads nothing of the service or the encoder.

    keyring = read_keys("keys.toml")           # a KeysFileError names the file and the fix
    keyring.verify(key)                        # the Principal holding key, or None
    KeyStore("keys.toml").principal(key)       # the same, re-read when the file changes
"""

from .keyfile import KeysFileError, read_keys, write_keys
from .keystore import KeyStore
from .principals import MAX_KEY_CHARS, Keyring, Principal, hash_key, name_problem, new_key

__all__ = ["MAX_KEY_CHARS", "KeyStore", "Keyring", "KeysFileError", "Principal", "hash_key",
           "name_problem", "new_key", "read_keys", "write_keys"]
