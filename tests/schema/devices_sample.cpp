// Prints `pdcheck devices --format json` for the made-up devices of
// tests/support/sample_devices.hpp, so the devices schema is checked against
// what the renderer writes on machines without RDMA.
#include "probe/device_info.hpp"

#include "../support/sample_devices.hpp"

#include <iostream>

int main()
{
  std::cout << pdcheck::probe::devices_to_json(pdcheck::test::made_up_devices()).dump(2) << "\n";
}
