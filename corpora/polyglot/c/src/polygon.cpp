#include <vector>

#include "poly/vec.h"

namespace poly {

class Polygon {
  public:
    void add(vec_t v) {
        points_.push_back(v);
    }

    double perimeter() const {
        double total = 0;
        for (const auto& p : points_) total += vec_len(p);
        return total;
    }

  private:
    std::vector<vec_t> points_;
};

}  // namespace poly
