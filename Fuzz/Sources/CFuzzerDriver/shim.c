// Only a header (CFuzzerDriver.h); SwiftPM wants a source file in every C target.
#include "CFuzzerDriver.h"
