// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 The tcr authors
//
// tcr: version macros and the language-standard check. CMake's project(VERSION) must agree
// with the three numbers below (the configure step fails otherwise).
//   TCR_VERSION = TCR_VERSION_MAJOR * 1000000 + TCR_VERSION_MINOR * 1000 + TCR_VERSION_PATCH
// (the scheme of CCCL_VERSION), so `#if TCR_VERSION >= 1000` means "0.1.0 or newer".
#pragma once

#define TCR_VERSION_MAJOR 0
#define TCR_VERSION_MINOR 1
#define TCR_VERSION_PATCH 0
#define TCR_VERSION 1000

// MSVC reports __cplusplus as 199711L unless /Zc:__cplusplus is given; _MSVC_LANG is the truth.
#if defined(_MSVC_LANG) && _MSVC_LANG > __cplusplus
#define TCR_CPLUSPLUS _MSVC_LANG
#else
#define TCR_CPLUSPLUS __cplusplus
#endif
#if TCR_CPLUSPLUS < 201703L
#error "tcr needs C++17 or newer: compile with -std=c++17 (nvcc and the host compiler; CMake: cuda_std_17 / cxx_std_17, which linking tcr::tcr requests)"
#endif

static_assert(TCR_VERSION ==
                  TCR_VERSION_MAJOR * 1000000 + TCR_VERSION_MINOR * 1000 + TCR_VERSION_PATCH,
              "tcr: TCR_VERSION disagrees with TCR_VERSION_MAJOR/MINOR/PATCH");
