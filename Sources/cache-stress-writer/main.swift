import Foundation
import WebImage

print("placeholder")
