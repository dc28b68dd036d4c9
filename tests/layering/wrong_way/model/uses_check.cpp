// model/ may not include check/: the layering check must refuse this file.
#include "check/checker.hpp"
