"""A loopback OIDC identity provider: publishes its signing keys and signs people's tokens.

It serves its discovery document (`/.well-known/openid-configuration`) and its JWKS
(`/jwks.json`) on 127.0.0.1, counts the JWKS fetches, and signs RS256 tokens for this
issuer and `AUDIENCE` with its current key. `rotate()` publishes a new key (the old one
stays listed); a stranger's key signs tokens under the provider's key id.
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import jwt
from cryptography.hazmat.primitives.asymmetric import rsa
from jwt.algorithms import RSAAlgorithm

AUDIENCE = "agentloop-test-server"


def new_key() -> rsa.RSAPrivateKey:
    """A fresh RSA signing key."""
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


class IdentityProvider:
    """A context manager serving the provider on a free loopback port."""

    def __init__(self) -> None:
        self.keys: dict[str, rsa.RSAPrivateKey] = {}
        self.kid = ""
        self.jwks_fetches = 0
        self._lock = threading.Lock()
        self.rotate()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def issuer(self) -> str:
        """The issuer URL (`iss`), where its discovery document is served."""
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def __enter__(self) -> IdentityProvider:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def rotate(self) -> str:
        """Publish a new signing key and sign with it from now on; return its key id."""
        with self._lock:
            self.kid = f"k-{uuid.uuid4().hex[:8]}"
            self.keys[self.kid] = new_key()
            return self.kid

    def token(
        self,
        claims: dict[str, Any],
        *,
        expires_in: float = 300,
        key: rsa.RSAPrivateKey | None = None,
        **overrides: Any,
    ) -> str:
        """A token with these claims, for this issuer and audience unless `overrides` say.

        `key` signs it instead of the provider's current key (under the current key id).
        """
        now = time.time()
        payload = {
            "iss": self.issuer,
            "aud": AUDIENCE,
            "iat": int(now),
            "exp": int(now + expires_in),
            **claims,
            **overrides,
        }
        signer = key or self.keys[self.kid]
        return jwt.encode(payload, signer, algorithm="RS256", headers={"kid": self.kid})

    def _jwks(self) -> dict[str, Any]:
        with self._lock:
            self.jwks_fetches += 1
            keys = []
            for kid, key in self.keys.items():
                public = json.loads(RSAAlgorithm.to_jwk(key.public_key()))
                keys.append({**public, "kid": kid, "use": "sig", "alg": "RS256"})
            return {"keys": keys}

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        provider = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                if self.path == "/.well-known/openid-configuration":
                    body = {"issuer": provider.issuer, "jwks_uri": f"{provider.issuer}/jwks.json"}
                elif self.path == "/jwks.json":
                    body = provider._jwks()
                else:
                    self.send_error(404)
                    return
                data = json.dumps(body).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, format: str, *args: Any) -> None:
                """Quiet: the tests read what was fetched from the provider itself."""

        return Handler
