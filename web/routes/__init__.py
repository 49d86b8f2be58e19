"""The router table: every part of the app, the pages a person opens kept apart from the JSON
API under /api (the only part in the OpenAPI schema) and from the probes operators read.

Handlers live in one module per part of the app (login, queue, assign, items, users,
agreement, contracts, roles, batches, calendar, upload, clause types, ops); each module has a `pages` router and, where it answers JSON, an `api` one.
web/app.py mounts the routers in this order.
"""
from fastapi import APIRouter

from web.routes import (
    agreement,
    assign,
    batches,
    calendar,
    clause_types,
    contracts,
    items,
    login,
    ops,
    queue,
    roles,
    upload,
    users,
)

PAGES: tuple[APIRouter, ...] = (login.pages, queue.pages, assign.pages, items.pages, users.pages, agreement.pages,
                                contracts.pages, roles.pages, batches.pages, calendar.pages, upload.pages,
                                clause_types.pages)
API: tuple[APIRouter, ...] = (queue.api, assign.api, items.api, upload.api)
UPLOADS: tuple[APIRouter, ...] = (upload.api,)
"""Routers whose bodies may reach Settings.upload_max_mb; every other one takes max_request_bytes."""
PROBES: tuple[APIRouter, ...] = (ops.probes,)
ROUTERS: tuple[APIRouter, ...] = (*PAGES, *API, *PROBES)
