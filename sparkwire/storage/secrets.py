"""Secrets at rest: each secret's value encrypted in its own file, `<data_dir>/secrets/<item id>`.

Contract: `SecretStore(data_dir)`; `put(item_id, value)` encrypts and writes durably (temp file, fsync, rename);
`get(item_id)` decrypts (UndefinedObject 42704 when the file is missing, InternalError when it does not decrypt
with this data directory's key); `delete(item_id)` removes it; `retain(ids)` removes files of secrets that no
longer exist (a crash between the catalog commit of DROP SECRET and the file's removal). The catalog never holds a
secret's value: CREATE SECRET's `create_sql` is stored redacted and the value lives only here.

Encryption: Fernet (AES-128-CBC + HMAC-SHA256, from the `cryptography` package) under one key per data directory,
`<data_dir>/secrets/key`, created 0600 on first use (the directory 0700). This protects the values against a copy
of the catalog or of a backup without the key file, and against reading them through SQL (no SQL path reads this
directory); it does not protect against someone who can read the whole data directory as the server's user, as a
local key file cannot.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

from cryptography.fernet import Fernet, InvalidToken

from sparkwire import errors as e


class SecretStore:
    def __init__(self, data_dir: Path) -> None:
        self.directory = data_dir / "secrets"
        self._lock = threading.Lock()
        self._fernet: Fernet | None = None

    def _cipher(self) -> Fernet:
        with self._lock:
            if self._fernet is None:
                self.directory.mkdir(mode=0o700, parents=True, exist_ok=True)
                key_path = self.directory / "key"
                try:
                    fd = os.open(key_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
                except FileExistsError:
                    key = key_path.read_bytes().strip()
                else:
                    key = Fernet.generate_key()
                    with os.fdopen(fd, "wb") as f:
                        f.write(key)
                        f.flush()
                        os.fsync(f.fileno())
                self._fernet = Fernet(key)
            return self._fernet

    def _path(self, item_id: str) -> Path:
        if not item_id.isalnum():
            raise ValueError(f"not an item id: {item_id!r}")
        return self.directory / f"{item_id}.secret"

    def put(self, item_id: str, value: str) -> None:
        token = self._cipher().encrypt(value.encode("utf-8"))
        path = self._path(item_id)
        tmp = path.with_suffix(".tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "wb") as f:
            f.write(token)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)

    def get(self, item_id: str) -> str:
        try:
            token = self._path(item_id).read_bytes()
        except FileNotFoundError:
            raise e.UndefinedObject(f"the value of secret {item_id} is missing from the data directory") from None
        try:
            return self._cipher().decrypt(token).decode("utf-8")
        except InvalidToken:
            raise e.InternalError(f"secret {item_id} does not decrypt with this data directory's key") from None

    def delete(self, item_id: str) -> None:
        self._path(item_id).unlink(missing_ok=True)

    def retain(self, item_ids: set[str]) -> None:
        if not self.directory.exists():
            return
        for path in self.directory.glob("*.secret"):
            if path.stem not in item_ids:
                path.unlink(missing_ok=True)
