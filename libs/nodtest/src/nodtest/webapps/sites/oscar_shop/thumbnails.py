"""Oscar's thumbnailer setting (OSCAR_THUMBNAILER) pointed at the original
image: the shop needs no thumbnail library (sorl-thumbnail is an optional
extra) and no image is resized in a test."""

from oscar.core.thumbnails import AbstractThumbnailer


class OriginalImage(AbstractThumbnailer):
    def generate_thumbnail(self, source, **opts):
        return source

    def delete_thumbnails(self, source):
        return None
