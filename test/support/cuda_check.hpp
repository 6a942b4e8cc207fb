// SPDX-License-Identifier: BSD-3-Clause
// tcr tests: CUDA error checking and small device-memory helpers.
#pragma once

#include <cuda_runtime.h>
#include <doctest/doctest.h>
#include <cstddef>
#include <vector>

#define TCR_CHECK_CUDA(expr)                                                                       \
  do {                                                                                             \
    const cudaError_t tcr_err_ = (expr);                                                           \
    REQUIRE_MESSAGE(tcr_err_ == cudaSuccess, #expr " -> ", cudaGetErrorString(tcr_err_));          \
  } while (0)

namespace tcr::test {

// A device buffer that frees itself.
template <class T>
class device_buffer {
public:
  device_buffer() = default;
  explicit device_buffer(std::size_t n) : n_(n) {
    if (n)
      TCR_CHECK_CUDA(cudaMalloc(&p_, n * sizeof(T)));
  }
  explicit device_buffer(const std::vector<T>& host) : device_buffer(host.size()) { upload(host); }
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;
  ~device_buffer() {
    if (p_)
      cudaFree(p_);
  }
  void upload(const std::vector<T>& host) {
    REQUIRE(host.size() <= n_);
    if (!host.empty())
      TCR_CHECK_CUDA(cudaMemcpy(p_, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice));
  }
  std::vector<T> download() const {
    std::vector<T> host(n_);
    if (n_)
      TCR_CHECK_CUDA(cudaMemcpy(host.data(), p_, n_ * sizeof(T), cudaMemcpyDeviceToHost));
    return host;
  }
  T* get() const { return p_; }
  std::size_t size() const { return n_; }

private:
  T* p_ = nullptr;
  std::size_t n_ = 0;
};

} // namespace tcr::test
