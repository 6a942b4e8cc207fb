// SPDX-License-Identifier: BSD-3-Clause
// A sum over every rank of an NCCL communicator (README example): each rank passes its part and
// gets the sum of the whole vector, the same bits on every rank whatever NCCL's algorithm.
#include <tcr/reduce/multi_gpu.cuh>

cudaError_t global_sum(const float* d_part, float* d_out, std::int64_t n_part, ncclComm_t comm,
                       cudaStream_t stream, bool reproducible) {
  tcr::ReduceOptions options; // compensated: 2u|s| + 2^-40 S for the whole vector
  if (reproducible)           // the exact sum rounded once: the same bits for any split
    options.accuracy = tcr::Accuracy::reproducible;
  std::size_t temp_bytes = 0;
  cudaError_t err =
      tcr::MultiGpuReduce::Sum(nullptr, temp_bytes, d_part, d_out, n_part, comm, stream, options);
  void* d_temp = nullptr;
  if (err == cudaSuccess)
    err = cudaMallocAsync(&d_temp, temp_bytes, stream);
  if (err == cudaSuccess) // DeviceReduce, ncclAllGather of the partial states, the merge
    err =
        tcr::MultiGpuReduce::Sum(d_temp, temp_bytes, d_part, d_out, n_part, comm, stream, options);
  if (d_temp)
    cudaFreeAsync(d_temp, stream);
  return err;
}
