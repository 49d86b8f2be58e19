"""How the API says no: the refusals an /api route documents in /api/openapi.json, and the
422 a body that fails validation gets.

Every refusal but a 422 is `{"detail": "..."}`: HTTPException's, the gate's 401 and 403
(web/auth.py) and the body limit's 413 (web/app.py), which no route raises itself and so
would go undocumented.  A route lists the codes it can answer; 422 (FastAPI's validation
error, its own model) is documented by FastAPI wherever a route takes parameters or a body.

Python's json module reads NaN, Infinity and -Infinity, which JSON does not have, and a
validation error echoes the input it refused; FastAPI's own handler then cannot write its
answer (Starlette refuses to write non-finite numbers as JSON) and the client got a 500.
`validation_failed` echoes such numbers as the words the client sent.

A page path (anything outside /api) is answered by a page of the app instead, saying what to
do (web.pages.refusal_page): a browser never shows a reviewer a bare JSON body.
"""
from __future__ import annotations

import json
import math
from typing import Any

from fastapi import Request
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.exception_handlers import http_exception_handler
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.responses import Response

from web.auth import is_api
from web.pages import refusal_page


class Refusal(BaseModel):
    detail: str = Field(description="Why, in a sentence for the person who sent the request.")


MEANING = {
    400: "The request is malformed or incomplete: the detail says what is missing or wrong.",
    401: "Not logged in: POST /login first.",
    403: "The request did not carry the session's CSRF token (every write needs it).",
    404: "No such review item, or not one this user may see.",
    409: "Someone else holds the item, or it changed since the version sent: the detail says who and when.",
    413: "The body is larger than the server accepts (CLAUSEMILL_MAX_REQUEST_BYTES).",
    503: "The server cannot do this now: the detail says why.",
}
WRITE = (401, 403, 413)
"""What any write may be refused with: no login, no CSRF token, a body over the limit."""


def refusals(*codes: int, **meanings: str) -> dict[int | str, dict[str, Any]]:
    """`responses=` for a route that can refuse with `codes`; a meaning given as `_409="..."`
    says what a code means on that route, where MEANING's general one says too little."""
    return {code: {"model": Refusal, "description": meanings.get(f"_{code}", MEANING[code])} for code in codes}


def _as_json(number: float) -> float | str:
    return number if math.isfinite(number) else json.dumps(number)  # 'NaN', 'Infinity', '-Infinity'


async def validation_failed(request: Request, error: RequestValidationError) -> Response:
    """422 with what failed under /api; on a page, a 400 page naming the fields to fill in."""
    if not is_api(request.url.path):
        fields = sorted({str(e["loc"][-1]) for e in error.errors() if e.get("loc")})
        named = ", ".join(fields) or "what it needs"
        return refusal_page(request, 400, f"The form's {named} was missing or not what the page sends.")
    return JSONResponse({"detail": jsonable_encoder(error.errors(), custom_encoder={float: _as_json})},
                        status_code=422)


async def refused(request: Request, error: StarletteHTTPException) -> Response:
    """An HTTPException: JSON under /api, as FastAPI answers it; on a page, a page of the app
    that says what to do (web.pages.refusal_page), never a bare JSON body in a browser."""
    if is_api(request.url.path):
        return await http_exception_handler(request, error)
    return refusal_page(request, error.status_code, str(error.detail))
