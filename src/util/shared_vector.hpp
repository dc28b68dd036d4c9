#pragma once
// A vector that copies share until one of them is changed: the ranks of one
// side hold the same registration lists (every attention-TP rank of a PP stage
// registers the same item_lens, dims and layer ids), and a 16k-rank side would
// otherwise hold 16k copies of them.
#include <cstddef>
#include <initializer_list>
#include <memory>
#include <vector>

namespace pdcheck::util {

template <typename T>
class SharedVector
{
public:
  using value_type = T;
  using const_iterator = typename std::vector<T>::const_iterator;
  using iterator = const_iterator; ///< reading only: edit() for the rest

  SharedVector() = default;
  SharedVector(std::vector<T> values) : m_values(std::make_shared<std::vector<T>>(std::move(values))) {}
  SharedVector(std::initializer_list<T> values) : m_values(std::make_shared<std::vector<T>>(values)) {}

  const std::vector<T>& get() const { return m_values ? *m_values : no_values(); }
  operator const std::vector<T>&() const { return get(); }

  const_iterator begin() const { return get().begin(); }
  const_iterator end() const { return get().end(); }
  std::size_t size() const { return get().size(); }
  bool empty() const { return get().empty(); }
  const T& operator[](std::size_t i) const { return get()[i]; }
  const T& at(std::size_t i) const { return get().at(i); }
  const T& front() const { return get().front(); }
  const T& back() const { return get().back(); }

  /// The values to change, this copy's own from now on.
  std::vector<T>& edit()
  {
    if (!m_values) {
      m_values = std::make_shared<std::vector<T>>();
    } else if (m_values.use_count() > 1) {
      m_values = std::make_shared<std::vector<T>>(*m_values);
    }
    return *m_values;
  }
  void push_back(T value) { edit().push_back(std::move(value)); }
  /// Whether both hold the very same values (not equal ones): a cheap test
  /// that what was derived from one still holds for the other.
  bool same_storage(const SharedVector& other) const { return &get() == &other.get(); }
  void clear() { m_values.reset(); }

  friend bool operator==(const SharedVector& a, const SharedVector& b) { return a.get() == b.get(); }

private:
  static const std::vector<T>& no_values()
  {
    static const std::vector<T> none;
    return none;
  }

  std::shared_ptr<std::vector<T>> m_values;
};

} // namespace pdcheck::util
