"""Every page and action, one module per part of the UI."""

from nod_gateway.routes import (
    actions,
    apps,
    auth,
    decisions,
    health,
    history,
    task,
    tasks,
    vault,
    you,
)

ROUTERS = [
    health.router,
    auth.router,
    tasks.router,
    task.router,
    actions.router,
    vault.router,
    apps.router,
    history.router,
    decisions.router,
    you.router,
]
