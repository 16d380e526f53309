"""Oscar's PaymentDetailsView with a card, as Oscar's "How to integrate
payment" describes it: the payment details page shows Oscar's own
BankcardForm and posts to the preview, which carries the card in a hidden
copy of the form until "Place order"; handle_payment then takes the payment.

The gateway is a stand-in (there is none to reach offline), kept as small as
a gateway's answer: a card whose number ends in 0002 is declined, like the
test cards of real gateways; any other valid card is paid. Oscar records a
paid order with its payment source and a payment event, and logs a declined
attempt on its checkout logger."""

from oscar.apps.checkout import views
from oscar.apps.payment import models
from oscar.apps.payment.exceptions import UnableToTakePayment
from oscar.apps.payment.forms import BankcardForm

DECLINED_SUFFIX = "0002"
SOURCE_TYPE = "Bankcard"


class PaymentDetailsView(views.PaymentDetailsView):
    template_name = "nodshop/payment_details.html"
    template_name_preview = "nodshop/preview.html"

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        context["bankcard_form"] = kwargs.get("bankcard_form") or BankcardForm()
        return context

    def handle_payment_details_submission(self, request):
        form = BankcardForm(request.POST)
        if not form.is_valid():
            return self.render_payment_details(request, bankcard_form=form)
        return self.render_preview(request, bankcard_form=form)

    def handle_place_order_submission(self, request):
        form = BankcardForm(request.POST)
        if not form.is_valid():
            return self.render_payment_details(request, bankcard_form=form)
        return self.submit(**self.build_submission(payment_kwargs={"bankcard_form": form}))

    def handle_payment(self, order_number, total, **kwargs):
        card = kwargs["bankcard_form"].bankcard
        if card.number.endswith(DECLINED_SUFFIX):
            raise UnableToTakePayment("Your card was declined.")
        source_type, _ = models.SourceType.objects.get_or_create(name=SOURCE_TYPE)
        self.add_payment_source(
            models.Source(
                source_type=source_type,
                currency=total.currency,
                amount_debited=total.incl_tax,
                reference=f"test-gateway-{order_number}",
                label=f"card ending {card.number[-4:]}",
            )
        )
        self.add_payment_event("Settled", total.incl_tax)
