from fastapi import APIRouter, Request
from fastapi.responses import PlainTextResponse

from nodkit.db import answers

router = APIRouter()


@router.get("/healthz", include_in_schema=False)
async def healthz(request: Request) -> PlainTextResponse:
    """200 when the gateway's own database answers; the services have their
    own gRPC health."""
    try:
        await answers(request.app.state.parts.engine)
    except Exception:  # noqa: BLE001 - any failure means not ready
        return PlainTextResponse("database not answering", status_code=503)
    return PlainTextResponse("ok")
