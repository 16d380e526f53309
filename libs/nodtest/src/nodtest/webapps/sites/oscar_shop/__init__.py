"""A django-oscar shop: catalogue, basket, a customer sign-in and Oscar's
checkout, with a card step added the way Oscar's documentation says a shop
adds one (checkout/)."""
