"""The use cases, built once per process from the settings."""

from dataclasses import dataclass

from sqlalchemy.ext.asyncio import AsyncEngine

from nod_payments.card_entry_app import CardEntry
from nod_payments.confirmation_app import Confirmation
from nod_payments.creation_app import Creation
from nod_payments.limits_app import LimitsApp
from nod_payments.payments_app import Payments
from nod_payments.settings import PaymentsSettings
from nodkit.leases import OwnLease


@dataclass(frozen=True)
class Apps:
    creation: Creation
    confirmation: Confirmation
    card_entry: CardEntry
    payments: Payments
    limits: LimitsApp


def build_apps(settings: PaymentsSettings, engine: AsyncEngine, lease: OwnLease) -> Apps:
    return Apps(
        creation=Creation(engine, confirmation_ttl_s=settings.confirmation_ttl_s),
        confirmation=Confirmation(engine, instance_id=settings.instance_id),
        card_entry=CardEntry(engine, lease),
        payments=Payments(engine, watch_poll_s=settings.watch_poll_s),
        limits=LimitsApp(engine),
    )
