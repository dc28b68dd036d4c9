// check/ may include model/: allowed.
#include "model/layout.hpp"
