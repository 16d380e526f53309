"""Tool name -> its handler."""

from nod_tasks.app.tools import actions, browsing, entries, paying, person

HANDLERS = {
    "read_page": browsing.read_page,
    "navigate": browsing.navigate,
    "click": browsing.click,
    "type_text": browsing.type_text,
    "enter_saved_login": entries.enter_saved_login,
    "ask_private_form": entries.ask_private_form,
    "enter_from_private_form": entries.enter_from_private_form,
    "propose_app_action": actions.propose_app_action,
    "request_payment": paying.request_payment,
    "pay": paying.pay,
    "ask_person": person.ask_person,
    "finish": person.finish,
}
