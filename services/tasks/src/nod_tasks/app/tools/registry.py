"""Every tool the model can call: its statement (domain.tools) and its
handler, once each. Adding a tool is a statement there and a line here."""

from nod_tasks.app.tools import actions, browsing, entries, ordering, paying, person
from nod_tasks.app.tools.base import Handler, Tool
from nod_tasks.domain import tools
from nod_tasks.domain.pictures import PAGE_TOOLS

HANDLERS: dict[str, Handler] = {
    "read_page": browsing.read_page,
    "navigate": browsing.navigate,
    "click": browsing.click,
    "type_text": browsing.type_text,
    "select_option": browsing.select_option,
    "set_checked": browsing.set_checked,
    "press_key": browsing.press_key,
    "scroll": browsing.scroll,
    "go_back": browsing.go_back,
    "wait_for_page": browsing.wait_for_page,
    "switch_page": browsing.switch_page,
    "enter_saved_login": entries.enter_saved_login,
    "ask_private_form": entries.ask_private_form,
    "enter_from_private_form": entries.enter_from_private_form,
    "propose_app_action": actions.propose_app_action,
    "request_payment": paying.request_payment,
    "pay": paying.pay,
    "confirm_payment": ordering.confirm_payment,
    "ask_person": person.ask_person,
    "finish": person.finish,
}
if set(HANDLERS) != set(tools.BY_NAME):
    raise RuntimeError("every tool needs both its statement and its handler")
if not PAGE_TOOLS <= set(HANDLERS):
    raise RuntimeError("domain.pictures.PAGE_TOOLS names a tool there is not")
TOOLS = {spec.name: Tool(spec, HANDLERS[spec.name]) for spec in tools.TOOLS}
SCHEMAS = [tool.spec.schema() for tool in TOOLS.values()]
