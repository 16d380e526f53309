"""Oscar's checkout app, forked (Oscar's documented way to change one of
its apps) only to take a card on its payment details page."""
