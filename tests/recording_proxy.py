"""Two small loopback HTTP proxies for the Unity Catalog tests, each recording what passes.

- :class:`RecordingProxy` stands in front of the Unity Catalog server: the CLI and the
  app are pointed at it, it forwards every request unchanged and records each one
  (method, path, JSON body). That is how a test proves which ``operation`` a front end
  asked the catalog's ``POST /temporary-table-credentials`` for, through the front ends'
  public surfaces only.
- :class:`StsInterceptor` stands behind it: the server's AWS credential vending calls STS
  ``AssumeRole`` at ``https://sts.<region>.amazonaws.com`` (uc-server has no setting to
  call another STS endpoint for a registered credential), through the ``HTTPS_PROXY`` it
  is started with. This proxy answers the ``CONNECT`` with a certificate from its own
  authority (which the server trusts through ``SSL_CERT_FILE``) and forwards the
  decrypted request to moto's STS, so the server vends credentials that moto issued.

Nothing here stands in for the catalog or the store: both are real servers, unchanged.
"""

from __future__ import annotations

import datetime
import http.client
import json
import ssl
import threading
import urllib.parse
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any


@dataclass(frozen=True, kw_only=True)
class Recorded:
    """One request that passed through a proxy."""

    method: str
    host: str
    path: str
    body: Any  # the JSON body, the raw text when not JSON, None when empty
    answer: Any = None  # the answer's body, the same way


class _SocketWriter:
    """A write-only file over a (TLS) socket that sends everything it is given."""

    closed = False

    def __init__(self, sock: Any) -> None:
        self._sock = sock

    def write(self, data: bytes) -> int:
        self._sock.sendall(data)
        return len(data)

    def flush(self) -> None:
        pass

    def close(self) -> None:
        pass


class _Forwarder(BaseHTTPRequestHandler):
    """Records a request, forwards it to the server's upstream, relays the answer."""

    protocol_version = "HTTP/1.1"
    server: _ProxyServer

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base's name
        pass  # quiet: the test output shows failures, not traffic

    def _forward(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        data = self.rfile.read(length) if length else b""
        host = self.headers.get("Host", "")
        upstream = urllib.parse.urlsplit(self.server.upstream)
        connection = http.client.HTTPConnection(upstream.hostname, upstream.port, timeout=60)
        headers = {k: v for k, v in self.headers.items() if k.lower() != "proxy-connection"}
        try:
            connection.request(self.command, self.path, body=data or None, headers=headers)
            answer = connection.getresponse()
            body = answer.read()
        finally:
            connection.close()
        self.server.record(self.command, host, self.path, data, body)
        self.send_response(answer.status, answer.reason)
        for key, value in answer.getheaders():
            if key.lower() not in {"content-length", "transfer-encoding", "connection"}:
                self.send_header(key, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = _forward

    def do_CONNECT(self) -> None:  # noqa: N802 - http.server's naming
        tls = self.server.tls
        if tls is None:
            self.send_error(405, "this proxy does not tunnel")
            return
        self.send_response(200, "Connection Established")
        self.end_headers()
        self.wfile.flush()
        secured = tls.wrap_socket(self.connection, server_side=True)
        self.connection = secured
        self.rfile = secured.makefile("rb")
        self.wfile = _SocketWriter(secured)  # type: ignore[assignment]
        self.close_connection = False  # the next requests come through the tunnel


class _ProxyServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, upstream: str, tls: ssl.SSLContext | None) -> None:
        super().__init__(("127.0.0.1", 0), _Forwarder)
        self.upstream = upstream
        self.tls = tls
        self.requests: list[Recorded] = []
        self._lock = threading.Lock()

    def record(self, method: str, host: str, path: str, data: bytes, answer: bytes) -> None:
        entry = Recorded(
            method=method, host=host, path=path, body=_decoded(data), answer=_decoded(answer)
        )
        with self._lock:
            self.requests.append(entry)


def _decoded(data: bytes) -> Any:
    text = data.decode("utf-8", "replace")
    try:
        return json.loads(text) if text else None
    except ValueError:
        return text


class RecordingProxy:
    """A proxy on a loopback port forwarding to ``upstream`` and recording every request.

    Use as a context manager; :attr:`url` is what clients are pointed at.
    """

    def __init__(self, upstream: str, *, tls: ssl.SSLContext | None = None) -> None:
        self._server = _ProxyServer(upstream.rstrip("/"), tls)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    @property
    def requests(self) -> list[Recorded]:
        """Every request so far, oldest first."""
        with self._server._lock:
            return list(self._server.requests)

    def clear(self) -> None:
        with self._server._lock:
            self._server.requests.clear()

    def operations(self) -> list[str]:
        """The ``operation`` of each table-credentials request so far, in order."""
        return [r.body.get("operation") for r in self.vends()]

    def vends(self) -> list[Recorded]:
        """Every ``POST /temporary-table-credentials`` so far, with the server's answer."""
        return [
            r
            for r in self.requests
            if r.path.endswith("/temporary-table-credentials") and isinstance(r.body, dict)
        ]

    def __enter__(self) -> RecordingProxy:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=10)


class StsInterceptor(RecordingProxy):
    """An HTTPS proxy that answers ``CONNECT`` itself and forwards to moto (see module)."""

    HOSTS = ("sts.amazonaws.com", "sts.us-east-1.amazonaws.com")

    def __init__(self, moto_endpoint: str, folder: Path) -> None:
        self.ca_file, chain, key = _authority(folder, self.HOSTS)
        tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        tls.load_cert_chain(chain, key)
        super().__init__(moto_endpoint, tls=tls)

    def assumed_roles(self) -> Iterator[dict[str, list[str]]]:
        """The form of each STS ``AssumeRole`` call made through the proxy."""
        for r in self.requests:
            form = urllib.parse.parse_qs(r.body if isinstance(r.body, str) else "")
            if form.get("Action") == ["AssumeRole"]:
                yield form


def _authority(folder: Path, hosts: tuple[str, ...]) -> tuple[str, str, str]:
    """A certificate authority and a server certificate it signed for ``hosts``.

    Returns the authority's PEM file (for ``SSL_CERT_FILE``), the server's certificate
    chain file and its key file.
    """
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

    now = datetime.datetime.now(datetime.UTC)

    def name(text: str) -> x509.Name:
        return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, text)])

    def certificate(subject: x509.Name, issuer: x509.Name, public_key: Any, days: int, *, ca: bool):
        return (
            x509.CertificateBuilder()
            .subject_name(subject)
            .issuer_name(issuer)
            .public_key(public_key)
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(hours=1))
            .not_valid_after(now + datetime.timedelta(days=days))
            .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
            .add_extension(_usage(cert_sign=ca), critical=True)
        )

    ca_key, key = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(ec.SECP256R1())
    ca_name = name("delta-inspector tests CA")
    ca = certificate(ca_name, ca_name, ca_key.public_key(), 2, ca=True).sign(
        ca_key, hashes.SHA256()
    )
    leaf = (
        certificate(name(hosts[0]), ca.subject, key.public_key(), 1, ca=False)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .add_extension(
            x509.SubjectAlternativeName([x509.DNSName(h) for h in hosts]), critical=False
        )
        .sign(ca_key, hashes.SHA256())
    )
    pem = serialization.Encoding.PEM
    folder.mkdir(parents=True, exist_ok=True)
    ca_file, chain, key_file = folder / "ca.pem", folder / "server.pem", folder / "server.key"
    ca_file.write_bytes(ca.public_bytes(pem))
    chain.write_bytes(leaf.public_bytes(pem) + ca.public_bytes(pem))
    key_file.write_bytes(
        key.private_bytes(pem, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    return str(ca_file), str(chain), str(key_file)


def _usage(*, cert_sign: bool) -> Any:
    from cryptography import x509

    return x509.KeyUsage(
        digital_signature=not cert_sign,
        content_commitment=False,
        key_encipherment=False,
        data_encipherment=False,
        key_agreement=False,
        key_cert_sign=cert_sign,
        crl_sign=cert_sign,
        encipher_only=False,
        decipher_only=False,
    )
