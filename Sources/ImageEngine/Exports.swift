// `Locked` reaches the targets above through the engine they already import.
@_exported import WebImageSupport
