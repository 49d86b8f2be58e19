"""Upload: contracts sent from the browser into the watched inbox (pipelines/intake/upload.py),
and what became of each one the user sent, read from the intake ledger.

The page's script posts the files to /api/uploads with the CSRF token in its header, so the
gate never reads the body and the upload router's own limit (Settings.upload_max_mb, the one
route allowed more than max_request_bytes: web/app.py) is the one that applies.
"""
from __future__ import annotations

import uuid
from dataclasses import asdict
from datetime import datetime
from pathlib import Path
from typing import Annotated

from fastapi import APIRouter, File, Form, HTTPException, Request, UploadFile
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool
from starlette.responses import Response

from pipelines.datamodel import IntakeState
from pipelines.intake.upload import Receipt, UploadError, receipt_of, receive, user_folder, waiting
from pipelines.settings import Settings
from storage import intake as ledger
from storage.database import session_scope
from storage.schema import IntakeFile
from web.api_errors import WRITE, refusals
from web.dependencies import User
from web.pages import render

pages = APIRouter(include_in_schema=False)
api = APIRouter(prefix="/api", tags=["uploads"])

OFF = ("Uploading is off on this server: an administrator sets CLAUSEMILL_UPLOAD_INBOX to the folder "
       "`clausemill watch` watches, and restarts the app.")


class PlacedFile(BaseModel):
    sent_as: str = Field(description="The file name as sent.")
    name: str = Field(description="Its name in the inbox under uploads/USER/ ('' when refused).")
    size_bytes: int
    sha256: str
    refused: str = Field(description="Why it was not taken, or ''.")


class UploadReceipt(BaseModel):
    key: str
    repeated: bool = Field(description="This key was sent before: nothing new was placed; the files are the first request's.")
    files: list[PlacedFile]


def _inbox(settings: Settings) -> Path:
    if settings.upload_inbox is None:
        raise HTTPException(status_code=404, detail=OFF)
    return settings.upload_inbox.resolve()


@api.post("/uploads", response_model=UploadReceipt, status_code=201, responses=refusals(
    400, *WRITE, 404, 503, _400="The form is out of date, or no file was sent.",
    _404="Uploading is off on this server: CLAUSEMILL_UPLOAD_INBOX is not set.",
    _503="The upload folder could not take the files (a full disk): send them again later."))
async def upload(request: Request, user: User, key: Annotated[str, Form()],
                 files: Annotated[list[UploadFile], File()]) -> UploadReceipt:
    """Put files into the watched inbox (under uploads/USER/), once per `key` (a fresh key per
    form: a request sent again with the same key places nothing new).  The watcher audits them."""
    inbox = _inbox(request.app.state.settings)
    sent = [(upload.filename or "", upload.file) for upload in files if upload.filename or upload.size]
    if not sent:
        raise HTTPException(status_code=400, detail="No file was sent: choose one or more files first.")
    try:
        receipt = await run_in_threadpool(receive, inbox, key, user.name, sent)
    except UploadError as error:
        raise HTTPException(status_code=400, detail=str(error)) from None
    except OSError as error:  # the inbox's disk, not the request: nothing of this request is kept half-written
        raise HTTPException(status_code=503, detail=f"The upload folder could not take the files ({error.strerror or error}): "
                                                    "send them again later, or tell an administrator.") from None
    return UploadReceipt(key=receipt.key, repeated=receipt.repeated,
                         files=[PlacedFile(**asdict(placed)) for placed in receipt.files])


@pages.get("/upload")
def upload_page(request: Request, user: User, sent: str = "") -> Response:
    """The form, what the last upload placed (`sent`: its key), and the user's uploads so far."""
    settings = request.app.state.settings
    if settings.upload_inbox is None:
        return render(request, "upload.html", {"enabled": False, "off": OFF, "key": "", "receipt": None,
                                               "rows": [], "waiting": [], "max_mb": settings.upload_max_mb})
    inbox = settings.upload_inbox.resolve()
    with session_scope(settings.effective_database_url, write=False) as session:
        rows = [_row(row, original) for row, original in
                ledger.taken_from(session, str(inbox), str(user_folder(user.name)))]
    receipt: Receipt | None = receipt_of(inbox, sent) if sent else None
    return render(request, "upload.html", {
        "enabled": True, "key": uuid.uuid4().hex, "receipt": receipt, "rows": rows,
        "waiting": waiting(inbox, user.name), "max_mb": settings.upload_max_mb})


def _row(row: IntakeFile, original: IntakeFile | None) -> dict[str, object]:
    """One uploaded file as the page lists it: its name, when it was taken, where it stands in
    words, and the contract page to open (its own, or the one it repeats)."""
    state = IntakeState(row.state)
    document = row.document_id if state is not IntakeState.DUPLICATE else (original.document_id if original else None)
    if state is IntakeState.PROCESSED:
        status = f"Audited in batch {row.batch_id}"
    elif state is IntakeState.DUPLICATE:
        status = f"Not audited again: {row.reason}"
    elif state is IntakeState.FAILED:
        status = f"Failed: {row.reason or 'see the batch page'}"
    elif row.batch_id:
        status = f"Being audited in batch {row.batch_id}"
    else:
        status = "Taken by the watcher, waiting for its batch"
    return {"name": row.name.rsplit("/", 1)[-1], "taken": _when(row.claimed_at), "status": status,
            "state": str(state), "document": document, "batch": row.batch_id}


def _when(at: datetime) -> str:
    return f"{at:%d %b %Y %H:%M} UTC"
