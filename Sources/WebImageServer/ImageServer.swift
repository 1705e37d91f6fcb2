import WebImage

/// An image server that speaks imgproxy's URLs, built on WebImage's public API and Hummingbird.
public enum ImageServer {}
