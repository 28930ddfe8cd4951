// Include this before any Boost.Asio or Beast header.
//
// Boost 1.74's asio/awaitable.hpp uses std::exchange without including
// <utility>; with g++ 12 in C++20 mode that fails to compile. Every file that
// uses Asio includes this header first (see shared/PLATFORM.md).
#pragma once
#include <utility>
