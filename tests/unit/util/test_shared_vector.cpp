// The lists every rank of a PP stage shares: copies share their values until
// one of them is changed, and a change never shows in the other copies.
#include "util/shared_vector.hpp"

#include <catch2/catch.hpp>

using pdcheck::util::SharedVector;

TEST_CASE("SharedVector: copies share until one is edited", "[util][layout]")
{
  SharedVector<int> a{1, 2, 3};
  const SharedVector<int> b = a;
  CHECK(&a.get() == &b.get()); // one list for both
  a.push_back(4);
  CHECK(a.get() == std::vector<int>{1, 2, 3, 4});
  CHECK(b.get() == std::vector<int>{1, 2, 3}); // the copy keeps its values
  CHECK(&a.get() != &b.get());

  SharedVector<int> c = b;
  c.edit()[0] = 9;
  CHECK(c.get() == std::vector<int>{9, 2, 3});
  CHECK(b.get() == std::vector<int>{1, 2, 3});

  SharedVector<int> empty;
  CHECK(empty.empty());
  CHECK(empty.size() == 0);
  CHECK(empty.begin() == empty.end());
  empty.push_back(7);
  CHECK(empty.get() == std::vector<int>{7});
  CHECK(empty == SharedVector<int>{7});
  empty.clear();
  CHECK(empty.empty());
}

TEST_CASE("SharedVector: a list of lists reads as the vector it stands for", "[util][layout]")
{
  // As RankLayout::state_item_lens: one inner list per state component.
  SharedVector<std::vector<std::uint64_t>> lens = {{49152, 2097152}};
  const std::vector<std::vector<std::uint64_t>>& plain = lens;
  CHECK(plain.size() == 1);
  CHECK(lens[0][1] == 2097152);
  CHECK(lens.front() == lens.back());
  SharedVector<std::vector<std::uint64_t>> none = {{}};
  CHECK(none.size() == 1);
  CHECK(none[0].empty());
}
