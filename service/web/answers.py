"""The gateway's answers: what a page says (`Answer`), and the same headers on every one
(no caching, no sniffing, no referrer, no framing, a strict CSP; one request per
connection), whether aiohttp sends it or it is written before any request was read."""

from __future__ import annotations

import html
import json
from dataclasses import dataclass
from http import HTTPStatus
from typing import Any

from aiohttp import web

from service.web.page import CONTENT_SECURITY_POLICY, document

HTML = "text/html; charset=utf-8"
#: What every answer says besides its content (aiohttp adds Date; Server names no version).
SAFETY_HEADERS = {"Cache-Control": "no-store", "X-Content-Type-Options": "nosniff",
                  "Referrer-Policy": "no-referrer", "X-Frame-Options": "DENY",
                  "Content-Security-Policy": CONTENT_SECURITY_POLICY, "Server": "curia"}


@dataclass(frozen=True)
class Answer:
    """A whole answer: status, body and the headers that vary."""

    status: HTTPStatus
    body: bytes = b""
    content_type: str = HTML
    location: str = ""
    retry_after: int = 0


def headers(content_type: str, location: str = "", retry_after: int = 0) -> dict[str, str]:
    """An answer's headers (Content-Length and Connection are the sender's)."""
    named = {"Content-Type": content_type, **SAFETY_HEADERS}
    if location:
        named["Location"] = location
    if retry_after:
        named["Retry-After"] = str(retry_after)
    return named


def message_page(status: HTTPStatus, text: str, retry_after: int = 0) -> Answer:
    body = document(f"{status.value} {status.phrase}", f"<p>{html.escape(text)}</p>")
    return Answer(status, body.encode(), retry_after=retry_after)


def html_answer(page: str) -> Answer:
    return Answer(HTTPStatus.OK, page.encode())


def json_answer(data: Any) -> Answer:
    return Answer(HTTPStatus.OK, json.dumps(data, separators=(",", ":")).encode(),
                  "application/json")


def web_response(answer: Answer) -> web.Response:
    """The answer as aiohttp sends it, closing the connection after it."""
    response = web.Response(status=answer.status, body=answer.body,
                            headers=headers(answer.content_type, answer.location,
                                            answer.retry_after))
    response.force_close()
    return response


def raw_answer(answer: Answer) -> bytes:
    """The answer as bytes, for a refusal sent before any request was read (too many
    connections, a late or oversized head): aiohttp answers parsed requests only."""
    named = {**headers(answer.content_type, retry_after=answer.retry_after),
             "Content-Length": str(len(answer.body)), "Connection": "close"}
    lines = [f"HTTP/1.1 {answer.status.value} {answer.status.phrase}",
             *(f"{name}: {value}" for name, value in named.items()), "", ""]
    return "\r\n".join(lines).encode("latin-1") + answer.body
