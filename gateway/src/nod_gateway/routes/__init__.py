"""Every page and action, one module per part of the UI."""

from nod_gateway.routes import actions, auth, health, task, tasks

ROUTERS = [health.router, auth.router, tasks.router, task.router, actions.router]
