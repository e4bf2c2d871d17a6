"""Certificates made at test time (a CA, a server certificate for localhost/127.0.0.1 and a
client certificate) and a TLS server on them; the `pki` fixture is in tests/conftest.py."""

from __future__ import annotations

import contextlib
import datetime
import ipaddress
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from client.channels import ServerTls
from service.server import BackgroundServer


@dataclass(frozen=True)
class Pki:
    """A CA, a server certificate for localhost/127.0.0.1 and a client certificate."""

    folder: Path

    def path(self, name: str) -> Path:
        return self.folder / name


def _key() -> ec.EllipticCurvePrivateKey:
    return ec.generate_private_key(ec.SECP256R1())


def _pem_key(key: ec.EllipticCurvePrivateKey) -> bytes:
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption())


def _certificate(subject: str, key: ec.EllipticCurvePrivateKey,
                 issuer: x509.Certificate | None, issuer_key: ec.EllipticCurvePrivateKey,
                 ca: bool) -> x509.Certificate:
    now = datetime.datetime.now(datetime.UTC)
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, subject)])
    builder = (x509.CertificateBuilder().subject_name(name)
               .issuer_name(issuer.subject if issuer else name)
               .public_key(key.public_key()).serial_number(x509.random_serial_number())
               .not_valid_before(now - datetime.timedelta(minutes=5))
               .not_valid_after(now + datetime.timedelta(days=1))
               .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True))
    if not ca:
        builder = builder.add_extension(x509.SubjectAlternativeName(
            [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False)
    return builder.sign(issuer_key, hashes.SHA256())


def make_pki(folder: Path) -> Pki:
    """A CA and its server and client certificates, as PEM files in `folder`."""
    ca_key = _key()
    ca = _certificate("curia test CA", ca_key, None, ca_key, ca=True)
    (folder / "ca.pem").write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    for name in ("server", "client"):
        key = _key()
        cert = _certificate(f"curia test {name}", key, ca, ca_key, ca=False)
        (folder / f"{name}.pem").write_bytes(cert.public_bytes(serialization.Encoding.PEM))
        (folder / f"{name}.key").write_bytes(_pem_key(key))
    return Pki(folder)


@contextlib.contextmanager
def tls_server(redis_url: str, pki: Pki, *, mutual: bool = False) -> Iterator[str]:
    """A TLS server (asking for client certificates if `mutual`): its address."""
    server = BackgroundServer(redis_url, tls=ServerTls.from_files(
        str(pki.path("server.pem")), str(pki.path("server.key")),
        str(pki.path("ca.pem")) if mutual else None))
    try:
        yield f"localhost:{server.start()}"
    finally:
        server.stop()
