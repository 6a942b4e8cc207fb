// SPDX-License-Identifier: BSD-3-Clause
// Krylov example: CSR matrices on the host, their structural check, the generated test problems
// and a Matrix Market reader and writer. Host code only (no CUDA), so the host tests build with
// the C++ compiler alone.
//
// Generated problems are scaled by h^2 (Poisson stencils have small integer coefficients, exact
// in float) on the unit square / cube with Dirichlet boundaries, unknowns in lexicographic order
// (x fastest):
//   poisson2d(nx, ny)          5-point Laplacian: 4 on the diagonal, -1 off
//   poisson3d_7(nx, ny, nz)    7-point Laplacian: 6, -1
//   poisson3d_27(nx, ny, nz)   27-point stencil of HPCG: 26, -1 for each of the 26 neighbours
//   aniso2d(nx, ny, eps)       -eps u_xx - u_yy (contrast 1 / eps): 2 + 2 eps, -eps (x), -1 (y)
//   jump2d(nx, ny, contrast)   -div(k grad u), k = contrast on the black squares of an 8 x 8
//                              checkerboard and 1 elsewhere, finite volumes with harmonic face
//                              means (SPD; condition number grows with the contrast)
//   convdiff2d(nx, ny, peclet) -Laplace(u) + peclet (u_x + u_y), central differences
//                              (nonsymmetric; cell Peclet number peclet h / 2, not an M-matrix
//                              above 1)
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

namespace krylov {

// A CSR matrix on the host: row i holds entries [row_ptr[i], row_ptr[i + 1]) of col / val.
template <class T>
struct csr {
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  std::vector<std::int64_t> row_ptr; // [rows + 1]
  std::vector<std::int32_t> col;     // [nnz]
  std::vector<T> val;                // [nnz]
  std::int64_t nnz() const { return static_cast<std::int64_t>(col.size()); }
};

// An empty string if A is a well-formed CSR matrix that the device kernels accept (32-bit
// column indices and entry counts, columns in range, finite values), else what is wrong.
template <class T>
std::string check_csr(const csr<T>& A) {
  constexpr std::int64_t max_index = std::numeric_limits<std::int32_t>::max();
  if (A.rows < 0 || A.cols < 0)
    return "negative dimensions";
  if (A.rows > max_index || A.cols > max_index)
    return "more than 2^31 - 1 rows or columns";
  if (static_cast<std::int64_t>(A.row_ptr.size()) != A.rows + 1)
    return "row_ptr has " + std::to_string(A.row_ptr.size()) +
           " entries, expected rows + 1 = " + std::to_string(A.rows + 1);
  if (A.col.size() != A.val.size())
    return "col and val differ in length";
  if (A.row_ptr[0] != 0)
    return "row_ptr[0] is not 0";
  for (std::int64_t i = 0; i < A.rows; ++i)
    if (A.row_ptr[i + 1] < A.row_ptr[i])
      return "row_ptr decreases at row " + std::to_string(i);
  if (A.row_ptr[A.rows] != A.nnz())
    return "row_ptr[rows] = " + std::to_string(A.row_ptr[A.rows]) + " but there are " +
           std::to_string(A.nnz()) + " entries";
  if (A.nnz() > max_index)
    return "more than 2^31 - 1 entries";
  for (std::int64_t k = 0; k < A.nnz(); ++k) {
    if (A.col[k] < 0 || A.col[k] >= A.cols)
      return "column index " + std::to_string(A.col[k]) + " out of range at entry " +
             std::to_string(k);
    if (!std::isfinite(static_cast<double>(A.val[k])))
      return "non-finite value at entry " + std::to_string(k);
  }
  return {};
}

// Lanes of the logical warp that computes one SpMV row (spmv.cuh's row shapes), from the mean
// row length: 4 up to 12 (2D 5-point, 3D 7-point stencils), 8 up to 32 (the 27-point stencil,
// 4 entries a lane), 32 above.
inline int lanes_per_row(std::int64_t rows, std::int64_t nnz) {
  if (rows <= 0 || nnz <= 12 * rows)
    return 4;
  return nnz <= 32 * rows ? 8 : 32;
}

// The matrix with its values rounded to U (round to nearest).
template <class U, class T>
csr<U> convert(const csr<T>& A) {
  csr<U> B;
  B.rows = A.rows;
  B.cols = A.cols;
  B.row_ptr = A.row_ptr;
  B.col = A.col;
  B.val.assign(A.val.begin(), A.val.end());
  return B;
}

namespace detail {
// Builds a CSR matrix row by row from a callback emitting (column, value) pairs.
template <class RowFn>
csr<double> build_rows(std::int64_t n, std::int64_t per_row, RowFn row_fn) {
  csr<double> A;
  A.rows = A.cols = n;
  A.row_ptr.reserve(n + 1);
  A.col.reserve(n * per_row);
  A.val.reserve(n * per_row);
  A.row_ptr.push_back(0);
  for (std::int64_t i = 0; i < n; ++i) {
    row_fn(i, [&](std::int64_t j, double v) {
      A.col.push_back(static_cast<std::int32_t>(j));
      A.val.push_back(v);
    });
    A.row_ptr.push_back(A.nnz());
  }
  return A;
}
} // namespace detail

// 2D stencil with west/east/south/north/centre coefficients (constant over the grid).
inline csr<double> stencil2d(std::int64_t nx, std::int64_t ny, double west, double east,
                             double south, double north, double centre) {
  return detail::build_rows(nx * ny, 5, [&](std::int64_t i, auto emit) {
    const std::int64_t x = i % nx, y = i / nx;
    if (y > 0)
      emit(i - nx, south);
    if (x > 0)
      emit(i - 1, west);
    emit(i, centre);
    if (x + 1 < nx)
      emit(i + 1, east);
    if (y + 1 < ny)
      emit(i + nx, north);
  });
}

inline csr<double> poisson2d(std::int64_t nx, std::int64_t ny) {
  return stencil2d(nx, ny, -1, -1, -1, -1, 4);
}

inline csr<double> aniso2d(std::int64_t nx, std::int64_t ny, double eps) {
  return stencil2d(nx, ny, -eps, -eps, -1, -1, 2 + 2 * eps);
}

// peclet (u_x + u_y) by central differences, times h^2: the east / north neighbours get
// -1 + peclet h / 2, the west / south ones -1 - peclet h / 2.
inline csr<double> convdiff2d(std::int64_t nx, std::int64_t ny, double peclet) {
  const double hx = 1.0 / static_cast<double>(nx + 1), hy = 1.0 / static_cast<double>(ny + 1);
  // h^2-scaled with one h for both directions (square grids); for nx != ny the y terms use hy.
  const double cx = peclet * hx / 2, cy = peclet * hy / 2;
  return stencil2d(nx, ny, -1 - cx, -1 + cx, -1 - cy, -1 + cy, 4);
}

// -div(k grad u) with k on an 8 x 8 checkerboard (contrast on black squares), harmonic means.
inline csr<double> jump2d(std::int64_t nx, std::int64_t ny, double contrast) {
  auto k = [&](std::int64_t x, std::int64_t y) {
    const std::int64_t bx = x * 8 / nx, by = y * 8 / ny;
    return (bx + by) % 2 ? contrast : 1.0;
  };
  auto face = [](double a, double b) { return 2 * a * b / (a + b); };
  return detail::build_rows(nx * ny, 5, [&](std::int64_t i, auto emit) {
    const std::int64_t x = i % nx, y = i / nx;
    const double kc = k(x, y);
    // Dirichlet boundary faces take the cell's own coefficient (the ghost value is zero).
    const double ks = y > 0 ? face(kc, k(x, y - 1)) : kc;
    const double kw = x > 0 ? face(kc, k(x - 1, y)) : kc;
    const double ke = x + 1 < nx ? face(kc, k(x + 1, y)) : kc;
    const double kn = y + 1 < ny ? face(kc, k(x, y + 1)) : kc;
    if (y > 0)
      emit(i - nx, -ks);
    if (x > 0)
      emit(i - 1, -kw);
    emit(i, ks + kw + ke + kn);
    if (x + 1 < nx)
      emit(i + 1, -ke);
    if (y + 1 < ny)
      emit(i + nx, -kn);
  });
}

inline csr<double> poisson3d_7(std::int64_t nx, std::int64_t ny, std::int64_t nz) {
  return detail::build_rows(nx * ny * nz, 7, [&](std::int64_t i, auto emit) {
    const std::int64_t x = i % nx, y = (i / nx) % ny, z = i / (nx * ny);
    if (z > 0)
      emit(i - nx * ny, -1);
    if (y > 0)
      emit(i - nx, -1);
    if (x > 0)
      emit(i - 1, -1);
    emit(i, 6);
    if (x + 1 < nx)
      emit(i + 1, -1);
    if (y + 1 < ny)
      emit(i + nx, -1);
    if (z + 1 < nz)
      emit(i + nx * ny, -1);
  });
}

inline csr<double> poisson3d_27(std::int64_t nx, std::int64_t ny, std::int64_t nz) {
  return detail::build_rows(nx * ny * nz, 27, [&](std::int64_t i, auto emit) {
    const std::int64_t x = i % nx, y = (i / nx) % ny, z = i / (nx * ny);
    for (int dz = -1; dz <= 1; ++dz)
      for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) {
          const std::int64_t X = x + dx, Y = y + dy, Z = z + dz;
          if (X < 0 || X >= nx || Y < 0 || Y >= ny || Z < 0 || Z >= nz)
            continue;
          const bool centre = dx == 0 && dy == 0 && dz == 0;
          emit(i + dx + dy * nx + dz * nx * ny, centre ? 26.0 : -1.0);
        }
  });
}

// Reads a Matrix Market file: `matrix coordinate` with real, integer or pattern values (pattern
// entries are 1) and general, symmetric or skew-symmetric storage (the other triangle is
// filled in). Duplicate entries are summed; columns are sorted within each row. Anything else
// (array format, complex values, a malformed or truncated line, an index out of range) throws
// std::runtime_error naming the line.
inline csr<double> read_matrix_market(std::istream& in, const std::string& name = "input") {
  auto fail = [&](std::int64_t line, const std::string& what) -> void {
    throw std::runtime_error(name + ":" + std::to_string(line) + ": " + what);
  };
  std::string line;
  std::int64_t line_no = 1;
  if (!std::getline(in, line))
    fail(line_no, "empty file");
  std::istringstream head(line);
  std::string banner, object, format, field, symmetry;
  head >> banner >> object >> format >> field >> symmetry;
  auto lower = [](std::string s) {
    for (auto& c : s)
      c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
  };
  object = lower(object), format = lower(format), field = lower(field), symmetry = lower(symmetry);
  if (banner != "%%MatrixMarket" || object != "matrix")
    fail(line_no, "not a Matrix Market matrix header");
  if (format != "coordinate")
    fail(line_no, "only the coordinate format is supported (found '" + format + "')");
  if (field != "real" && field != "integer" && field != "pattern" && field != "double")
    fail(line_no, "unsupported field '" + field + "' (real, integer or pattern)");
  if (symmetry != "general" && symmetry != "symmetric" && symmetry != "skew-symmetric")
    fail(line_no, "unsupported symmetry '" + symmetry + "'");
  const bool pattern = field == "pattern";

  // Size line: the first line that is not a comment.
  std::int64_t rows = -1, cols = -1, entries = -1;
  while (std::getline(in, line)) {
    ++line_no;
    if (line.empty() || line[0] == '%')
      continue;
    std::istringstream s(line);
    if (!(s >> rows >> cols >> entries) || rows < 0 || cols < 0 || entries < 0)
      fail(line_no, "malformed size line");
    break;
  }
  if (rows < 0)
    fail(line_no, "no size line");
  if (symmetry != "general" && rows != cols)
    fail(line_no, "a symmetric matrix must be square");

  std::vector<std::tuple<std::int64_t, std::int64_t, double>> coo;
  coo.reserve(static_cast<std::size_t>(symmetry == "general" ? entries : 2 * entries));
  std::int64_t read = 0;
  while (read < entries && std::getline(in, line)) {
    ++line_no;
    if (line.empty() || line[0] == '%')
      continue;
    std::istringstream s(line);
    std::int64_t i = 0, j = 0;
    double v = 1;
    if (!(s >> i >> j) || (!pattern && !(s >> v)))
      fail(line_no, "malformed entry");
    if (i < 1 || i > rows || j < 1 || j > cols)
      fail(line_no, "index out of range");
    if (!std::isfinite(v))
      fail(line_no, "non-finite value");
    coo.emplace_back(i - 1, j - 1, v);
    if (symmetry != "general" && i != j)
      coo.emplace_back(j - 1, i - 1, symmetry == "symmetric" ? v : -v);
    ++read;
  }
  if (read < entries)
    fail(line_no,
         "file ends after " + std::to_string(read) + " of " + std::to_string(entries) + " entries");
  std::sort(coo.begin(), coo.end(), [](const auto& a, const auto& b) {
    return std::tie(std::get<0>(a), std::get<1>(a)) < std::tie(std::get<0>(b), std::get<1>(b));
  });

  csr<double> A;
  A.rows = rows;
  A.cols = cols;
  A.row_ptr.assign(rows + 1, 0);
  for (std::size_t k = 0; k < coo.size(); ++k) {
    const auto [i, j, v] = coo[k];
    if (k > 0 && std::get<0>(coo[k - 1]) == i && std::get<1>(coo[k - 1]) == j) {
      A.val.back() += v; // duplicate: summed
      continue;
    }
    A.col.push_back(static_cast<std::int32_t>(j));
    A.val.push_back(v);
    ++A.row_ptr[i + 1];
  }
  for (std::int64_t i = 0; i < rows; ++i)
    A.row_ptr[i + 1] += A.row_ptr[i];
  if (const std::string err = check_csr(A); !err.empty())
    fail(line_no, err);
  return A;
}

inline csr<double> read_matrix_market(const std::string& path) {
  std::ifstream in(path);
  if (!in)
    throw std::runtime_error(path + ": cannot open");
  return read_matrix_market(in, path);
}

// Writes A as a Matrix Market `matrix coordinate real general` file, one entry per line with
// 17 significant digits, so read_matrix_market gives back every value exactly (and the same
// CSR matrix, for one whose columns are sorted within each row and hold no duplicates, as the
// generated problems). Throws std::runtime_error if the stream fails.
inline void write_matrix_market(std::ostream& out, const csr<double>& A,
                                const std::string& comment = "") {
  out << "%%MatrixMarket matrix coordinate real general\n";
  if (!comment.empty())
    out << "% " << comment << "\n";
  out << A.rows << " " << A.cols << " " << A.nnz() << "\n";
  char buf[64];
  for (std::int64_t i = 0; i < A.rows; ++i)
    for (std::int64_t k = A.row_ptr[i]; k < A.row_ptr[i + 1]; ++k) {
      const int len = std::snprintf(buf, sizeof buf, "%lld %d %.17g\n",
                                    static_cast<long long>(i + 1), A.col[k] + 1, A.val[k]);
      out.write(buf, len);
    }
  if (!out)
    throw std::runtime_error("write_matrix_market: the stream failed");
}

inline void write_matrix_market(const std::string& path, const csr<double>& A,
                                const std::string& comment = "") {
  std::ofstream out(path);
  if (!out)
    throw std::runtime_error(path + ": cannot open for writing");
  write_matrix_market(out, A, comment);
  out.close();
  if (!out)
    throw std::runtime_error(path + ": write failed");
}

// Whether A and B are the same matrix: dimensions, structure and values (compared with ==).
template <class T>
bool same_matrix(const csr<T>& A, const csr<T>& B) {
  return A.rows == B.rows && A.cols == B.cols && A.row_ptr == B.row_ptr && A.col == B.col &&
         A.val == B.val;
}

// y = A x in long double (host reference for tests and small checks).
template <class T, class X>
std::vector<long double> multiply(const csr<T>& A, const std::vector<X>& x) {
  std::vector<long double> y(A.rows, 0.0L);
  for (std::int64_t i = 0; i < A.rows; ++i)
    for (std::int64_t k = A.row_ptr[i]; k < A.row_ptr[i + 1]; ++k)
      y[i] += static_cast<long double>(A.val[k]) * static_cast<long double>(x[A.col[k]]);
  return y;
}

// ||b - A x|| / ||b|| in long double: 64-bit significands, so the relative residuals these
// examples meet (1e-12 and up) are evaluated to a few digits.
template <class T, class X, class B>
double relative_residual(const csr<T>& A, const std::vector<X>& x, const std::vector<B>& b) {
  const std::vector<long double> ax = multiply(A, x);
  long double rr = 0, bb = 0;
  for (std::int64_t i = 0; i < A.rows; ++i) {
    const long double r = static_cast<long double>(b[i]) - ax[i];
    rr += r * r;
    bb += static_cast<long double>(b[i]) * b[i];
  }
  return static_cast<double>(std::sqrt(rr) / std::sqrt(bb));
}

// A right-hand side uniform in [-1, 1) with 24-bit values (exact in float, so every precision
// solves the same system), from a splitmix64 stream of `seed`.
inline std::vector<double> random_rhs(std::int64_t n, std::uint64_t seed) {
  std::vector<double> b(n);
  std::uint64_t s = seed;
  for (auto& v : b) {
    s += 0x9e3779b97f4a7c15ull;
    std::uint64_t z = s;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    v = static_cast<double>(static_cast<std::int64_t>(z >> 40) - (1 << 23)) / (1 << 23);
  }
  return b;
}

// b = A x* rounded to float, x* = random_rhs(n, seed): a right-hand side whose solution is of
// the size of b's own entries. With a white-noise b (random_rhs) the solution of an
// ill-conditioned system is dominated by its smoothest modes, ||x|| / ||b|| is about 1 / lambda_min
// of the energy b puts there (30 for 2D Poisson on 256^2, 440 for aniso2d:256), and no float
// iterate has a residual below u_f || |A| |x| || / ||b||, whatever the solver computes (1e-5 and
// 1e-4 there): such a suite measures the float format, not the solver. Here || |A| |x*| || is a
// few times ||b||, so float iterates can meet 1e-6 and the solvers' recurrences decide. Rounded
// to float, every precision solves the same b (of the double matrix; the float variants of the
// float-rounded one).
inline std::vector<double> rhs_from_solution(const csr<double>& A, std::uint64_t seed) {
  const std::vector<double> xs = random_rhs(A.cols, seed);
  const std::vector<long double> y = multiply(A, xs);
  std::vector<double> b(y.size());
  for (std::size_t i = 0; i < y.size(); ++i)
    b[i] = static_cast<float>(y[i]);
  return b;
}

// A problem from its name, e.g. "poisson2d:1024" (1024 x 1024 grid), "poisson3d7:128",
// "poisson3d27:100", "aniso2d:512:1e-6" (eps), "jump2d:512:1e6" (contrast),
// "convdiff2d:512:1e3" (peclet), "mtx:path/to/file.mtx". Throws std::invalid_argument on an
// unknown name or a missing parameter.
inline csr<double> make_problem(const std::string& spec) {
  std::vector<std::string> f;
  std::string part;
  std::istringstream s(spec);
  while (std::getline(s, part, ':'))
    f.push_back(part);
  auto need = [&](std::size_t count) {
    if (f.size() != count)
      throw std::invalid_argument("problem '" + spec + "': expected " + std::to_string(count - 1) +
                                  " parameter(s)");
  };
  auto grid = [&](std::size_t k) {
    const long long v = std::stoll(f[k]);
    if (v < 1)
      throw std::invalid_argument("problem '" + spec + "': grid size must be positive");
    return static_cast<std::int64_t>(v);
  };
  if (f.empty())
    throw std::invalid_argument("empty problem name");
  const std::string& kind = f[0];
  if (kind == "mtx") {
    if (f.size() < 2)
      throw std::invalid_argument("mtx: needs a path");
    return read_matrix_market(spec.substr(4));
  }
  if (kind == "poisson2d")
    return need(2), poisson2d(grid(1), grid(1));
  if (kind == "poisson3d7")
    return need(2), poisson3d_7(grid(1), grid(1), grid(1));
  if (kind == "poisson3d27")
    return need(2), poisson3d_27(grid(1), grid(1), grid(1));
  if (kind == "aniso2d")
    return need(3), aniso2d(grid(1), grid(1), std::stod(f[2]));
  if (kind == "jump2d")
    return need(3), jump2d(grid(1), grid(1), std::stod(f[2]));
  if (kind == "convdiff2d")
    return need(3), convdiff2d(grid(1), grid(1), std::stod(f[2]));
  throw std::invalid_argument("unknown problem '" + kind +
                              "' (poisson2d, poisson3d7, poisson3d27, aniso2d, jump2d, "
                              "convdiff2d, mtx)");
}

} // namespace krylov
