import Foundation
import ImageEngine

// The child process of `IsolatedRenderer`: loads the image on standard input with the libvips
// operation and options given, within a CPU time budget, and writes its 8-bit RGBA pixels to
// standard output. Run by the library, not by hand:
//   webimage-render OPERATION OPTIONS LOADER-OPTIONS|- BUDGET-MS < data > pixels
exit(IsolatedRenderer.runChild(CommandLine.arguments))
