"""Channels to a Curia server and the server's TLS credentials: one place for both ends.

A client is configured by its environment, so every client we ship (`curia watch`,
`play --service`, `loadtest`, the arena, the bots' gRPC player, the stdio bridge, the
failover client) and every bot process the arena starts speak TLS the same way:

    CURIA_TLS_CA           PEM file of the CA that signed the server's certificate: TLS on
    CURIA_TLS_CERT/_KEY    PEM client certificate and key, for a server that verifies them
    CURIA_TLS_SERVER_NAME  the name to check in the server's certificate, if not the host
    CURIA_ADMIN_TOKEN_FILE a file holding the operator credential (sent with CreateGame)

Without CURIA_TLS_CA the channel is plaintext, as for a server on loopback.
"""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import grpc

#: The call metadata key that carries the operator credential ("Bearer <token>").
ADMIN_METADATA_KEY = "authorization"
#: Environment variables of a client's security settings (see the module docstring).
TLS_CA_ENV, TLS_CERT_ENV, TLS_KEY_ENV = "CURIA_TLS_CA", "CURIA_TLS_CERT", "CURIA_TLS_KEY"
TLS_SERVER_NAME_ENV, ADMIN_TOKEN_FILE_ENV = "CURIA_TLS_SERVER_NAME", "CURIA_ADMIN_TOKEN_FILE"
#: Variables a bot process must never inherit: the operator credential and the Redis URL
#: (with its password) are the host's.
OPERATOR_ONLY_ENV = (ADMIN_TOKEN_FILE_ENV, "CURIA_REDIS_URL")
#: The heartbeat of a stream: an HTTP/2 ping every 5 s, even while no data flows; a ping
#: unanswered for 5 s breaks the connection (so a WatchGame on a hung or stopped server
#: fails within about 10 s, and the resumable watch moves on).
KEEPALIVE_OPTIONS: list[tuple[str, object]] = [
    ("grpc.keepalive_time_ms", 5_000),
    ("grpc.keepalive_timeout_ms", 5_000),
    ("grpc.http2.max_pings_without_data", 0),
    ("grpc.http2.ping_timeout_ms", 5_000),
]


class SecurityConfigError(ValueError):
    """A certificate, key or credential file that cannot be used."""


def read_secret_file(path: str, what: str) -> bytes:
    """The bytes of a PEM or token file, or a SecurityConfigError that names it."""
    try:
        data = Path(path).read_bytes()
    except OSError as error:
        raise SecurityConfigError(f"cannot read the {what} {path}: "
                                  f"{error.strerror or error}") from None
    if not data.strip():
        raise SecurityConfigError(f"the {what} {path} is empty")
    return data


def warn_if_not_private(path: str, what: str) -> None:
    """A warning on stderr (once per file and process) if the group or others have any
    access to a secret file: they could read it."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return  # reading it says why
    if mode & 0o077 and path not in _WARNED:
        _WARNED.add(path)
        print(f"warning: the {what} {path} is open to other users (mode "
              f"{stat.S_IMODE(mode):04o}): make it private with `chmod 600 {path}`",
              file=sys.stderr, flush=True)


_WARNED: set[str] = set()


def read_admin_token(path: str) -> str:
    """The operator credential in a file (surrounding whitespace ignored); a warning if
    other users may read the file."""
    token = read_secret_file(path, "operator credential file").decode().strip()
    warn_if_not_private(path, "operator credential file")
    if len(token) < 16 or any(c.isspace() for c in token):
        raise SecurityConfigError(f"the operator credential in {path} must be at least 16 "
                                  "characters, without spaces")
    return token


@dataclass(frozen=True)
class ClientSecurity:
    """How a client reaches the server: TLS roots (None: plaintext), an optional client
    certificate, and the operator credential if it has one."""

    ca: bytes | None = None
    cert: bytes | None = None
    key: bytes | None = None
    server_name: str | None = None
    admin_token: str | None = None

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> ClientSecurity:
        env = os.environ if env is None else env
        ca, cert, key = (env.get(name) for name in (TLS_CA_ENV, TLS_CERT_ENV, TLS_KEY_ENV))
        if (cert is None) != (key is None):
            raise SecurityConfigError(f"{TLS_CERT_ENV} and {TLS_KEY_ENV} go together")
        if cert is not None and ca is None:
            raise SecurityConfigError(f"a client certificate needs {TLS_CA_ENV} (TLS)")
        token_file = env.get(ADMIN_TOKEN_FILE_ENV)
        return cls(ca=read_secret_file(ca, "CA certificate") if ca else None,
                   cert=read_secret_file(cert, "client certificate") if cert else None,
                   key=read_secret_file(key, "client key") if key else None,
                   server_name=env.get(TLS_SERVER_NAME_ENV) or None,
                   admin_token=read_admin_token(token_file) if token_file else None)

    def credentials(self) -> grpc.ChannelCredentials | None:
        if self.ca is None:
            return None
        return grpc.ssl_channel_credentials(root_certificates=self.ca,
                                            private_key=self.key,
                                            certificate_chain=self.cert)

    def options(self) -> list[tuple[str, str]]:
        if self.ca is not None and self.server_name:
            return [("grpc.ssl_target_name_override", self.server_name)]
        return []

    def admin_metadata(self) -> tuple[tuple[str, str], ...]:
        """The metadata of an operator call: the credential, if this client has one."""
        if self.admin_token is None:
            return ()
        return ((ADMIN_METADATA_KEY, f"Bearer {self.admin_token}"),)


def open_channel(target: str, security: ClientSecurity | None = None,
                 options: list[tuple[str, object]] | None = None) -> grpc.Channel:
    """A channel to `target`: TLS when the security settings (default: the environment)
    give a CA, plaintext otherwise."""
    security = ClientSecurity.from_env() if security is None else security
    every = [*KEEPALIVE_OPTIONS, *(options or []), *security.options()]
    credentials = security.credentials()
    if credentials is None:
        return grpc.insecure_channel(target, options=every)
    return grpc.secure_channel(target, credentials, options=every)


def open_aio_channel(target: str, security: ClientSecurity | None = None,
                     options: list[tuple[str, object]] | None = None) -> grpc.aio.Channel:
    """`open_channel` for grpc.aio."""
    security = ClientSecurity.from_env() if security is None else security
    every = [*KEEPALIVE_OPTIONS, *(options or []), *security.options()]
    credentials = security.credentials()
    if credentials is None:
        return grpc.aio.insecure_channel(target, options=every)
    return grpc.aio.secure_channel(target, credentials, options=every)


@dataclass(frozen=True)
class ServerTls:
    """The server's certificate and key, and the CA its clients' certificates must chain
    to when mutual TLS is on."""

    cert: bytes
    key: bytes
    client_ca: bytes | None = None

    @classmethod
    def from_files(cls, cert: str, key: str, client_ca: str | None = None) -> ServerTls:
        return cls(cert=read_secret_file(cert, "TLS certificate"),
                   key=read_secret_file(key, "TLS key"),
                   client_ca=read_secret_file(client_ca, "client CA certificate")
                   if client_ca else None)

    def credentials(self) -> grpc.ServerCredentials:
        return grpc.ssl_server_credentials(
            [(self.key, self.cert)], root_certificates=self.client_ca,
            require_client_auth=self.client_ca is not None)
