// The Hummingbird adapter's users name the core's types (`ImageServer`, its configuration) with
// one import, as they did before the core was a module of its own.
@_exported import WebImageServerCore
