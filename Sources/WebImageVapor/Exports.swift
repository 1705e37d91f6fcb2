// The Vapor adapter's users name the core's types (`ImageServer`, its configuration) with one
// import.
@_exported import WebImageServerCore
