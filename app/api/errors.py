"""HTTP errors as the protocol's body: {"error": {"code", "message"}}."""

from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from app.bus.base import BusUnavailable
from app.games.seam import RuleError
from app.rooms.registry import RoomsFull, UnknownRoom

STATUS = {
    "bad_request": 400,
    "bad_name": 422,
    "bad_rounds": 422,
    "bad_roll_entry": 422,
    "unknown_game": 422,
    "unknown_room": 404,
    "name_taken": 409,
    "not_in_lobby": 409,
    "room_full": 409,
    "log_full": 409,
    "group_full": 409,
    "already_member": 409,
    "server_full": 503,
    "unavailable": 503,
}


class ApiError(Exception):
    def __init__(self, code: str, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.code, self.message = code, message
        self.status = status or STATUS.get(code, 400)


def error_response(status: int, code: str, message: str) -> JSONResponse:
    return JSONResponse({"error": {"code": code, "message": message}}, status_code=status)


def install(app: FastAPI) -> None:
    @app.exception_handler(ApiError)
    async def api_error(_: Request, exc: ApiError) -> JSONResponse:
        return error_response(exc.status, exc.code, exc.message)

    @app.exception_handler(RuleError)
    async def rule_error(_: Request, exc: RuleError) -> JSONResponse:
        return error_response(STATUS.get(exc.code, 409), exc.code, exc.message)

    @app.exception_handler(UnknownRoom)
    async def unknown_room(_: Request, exc: UnknownRoom) -> JSONResponse:
        return error_response(404, "unknown_room", "No such room.")

    @app.exception_handler(RoomsFull)
    async def rooms_full(_: Request, exc: RoomsFull) -> JSONResponse:
        return error_response(503, "server_full", "This server hosts all the rooms it can.")

    @app.exception_handler(BusUnavailable)
    async def unavailable(_: Request, exc: BusUnavailable) -> JSONResponse:
        return error_response(503, "unavailable", "The game store is unreachable; retry.")

    @app.exception_handler(RequestValidationError)
    async def invalid(_: Request, exc: RequestValidationError) -> JSONResponse:
        first = exc.errors()[0] if exc.errors() else {"loc": (), "msg": "Invalid request."}
        where = ".".join(str(part) for part in first["loc"] if part != "body")
        message = str(first["msg"])
        code = "bad_name" if where == "name" else "bad_request"
        status = 422 if code == "bad_name" or where else 400
        return error_response(status, code, f"{where}: {message}" if where else message)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(_: Request, exc: StarletteHTTPException) -> JSONResponse:
        codes = {404: "not_found", 405: "method_not_allowed", 413: "too_large"}
        code = codes.get(exc.status_code, "http_error")
        return error_response(exc.status_code, code, str(exc.detail))
