import oscar.apps.checkout.apps as oscar_checkout


class CheckoutConfig(oscar_checkout.CheckoutConfig):
    name = "nodtest.webapps.sites.oscar_shop.checkout"
