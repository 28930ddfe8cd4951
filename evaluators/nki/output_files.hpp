// The outputs a runner (float32) or the reference (float64) hands to the
// judge: files in the evaluation's folder that their records name
// (evaluators/nki/runner_link.hpp), of any size, read and compared in
// chunks through Env::ReadFileRange so that the judge never holds a whole
// output, let alone a float64 copy of one: its memory is a few chunks
// whatever the problem's size (kChunkElements each).
//
// Thread safety: pure functions over the Env (reentrant when it is).
#pragma once

#include <cstdint>
#include <string>

#include "base/env.hpp"
#include "base/json.hpp"
#include "base/status.hpp"
#include "evaluators/output_compare.hpp"

namespace accelopt::eval::nki {

// Elements per chunk (4 MiB of float32 plus 8 MiB of float64 in memory).
inline constexpr int64_t kChunkElements = int64_t{1} << 20;

struct OutputFile {
  std::string path;
  int64_t elements = 0;
  size_t width = 4;  // bytes per element: 4 (float32) or 8 (float64)
};

// The file an output record names, checked: "file" is a plain name (no
// '/', not "." or ".."; the record cannot point outside `dir`), "nbytes"
// equals elements * width and the file's size (a short or long file is an
// error, never truncated or padded). kInvalidArgument naming what is wrong.
Result<OutputFile> OutputFileOf(const json& header, const std::string& dir, size_t width, Env* env);

// Relative L2 (float64) of a float32 output against a float64 reference,
// chunk by chunk, with the same result as compare::CompareOutput on the
// whole arrays plus the worst element (compare::WorstElement) when every
// element is finite. The element counts must be equal (the caller checks).
Result<compare::Compare> CompareOutputFiles(const OutputFile& got, const OutputFile& want, Env* env,
                                            int64_t chunk_elements = kChunkElements);

}  // namespace accelopt::eval::nki
