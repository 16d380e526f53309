"""Stocks the shop: one shipping country, one product in stock, one
customer. The customer arrives as JSON on stdin, so the password is never
in a command line."""

import json
import sys
from decimal import Decimal

import django


def main() -> None:
    django.setup()
    from django.contrib.auth import get_user_model
    from oscar.apps.address.models import Country
    from oscar.apps.catalogue.models import Product, ProductClass
    from oscar.apps.partner.models import Partner, StockRecord

    seed = json.load(sys.stdin)
    Country.objects.create(
        iso_3166_1_a2="GB",
        iso_3166_1_a3="GBR",
        iso_3166_1_numeric="826",
        printable_name="United Kingdom",
        name="United Kingdom of Great Britain and Northern Ireland",
        is_shipping_country=True,
    )
    books = ProductClass.objects.create(name="Book", requires_shipping=True, track_stock=True)
    partner = Partner.objects.create(name="Test partner")
    product = seed["product"]
    book = Product.objects.create(
        product_class=books, title=product["title"], slug=product["slug"], is_public=True
    )
    StockRecord.objects.create(
        product=book,
        partner=partner,
        partner_sku=product["slug"],
        price=Decimal(product["price"]),
        num_in_stock=1000,
    )
    customer = seed["customer"]
    get_user_model().objects.create_user(
        customer["username"], customer["email"], customer["password"]
    )


if __name__ == "__main__":
    main()
