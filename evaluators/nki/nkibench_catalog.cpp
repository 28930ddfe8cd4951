#include "evaluators/nki/nkibench_catalog.hpp"

namespace accelopt::eval::nki {

const std::vector<CatalogEntry>& Catalog() {
  static const std::vector<CatalogEntry> kEntries = {
      {"adamw",
       "One AdamW step on theta (weight decay 1e-5, beta1 0.9, beta2 0.999, lr 0.01, eps 1e-8, bias correction of v by "
       "1000); returns the new theta",
       {{"out", {"M", "N"}}},
       "0",
       "15*M*N",
       "4*(4*M*N + M*N)",
       "memory",
       2e-5,
       51,
       "[{\"case\":\"update_dominant\",\"param\":\"theta\",\"distribution\":{\"kind\":\"normal\",\"mean\":0,\"std\":0."
       "0001}},{\"case\":\"tiny_moments\",\"param\":\"theta\",\"distribution\":{\"kind\":\"normal\",\"mean\":0,\"std\":"
       "1e-06}},{\"case\":\"tiny_moments\",\"param\":\"g\",\"distribution\":{\"kind\":\"normal\",\"mean\":0,\"std\":1e-"
       "08}},{\"case\":\"tiny_moments\",\"param\":\"m\",\"distribution\":{\"kind\":\"normal\",\"mean\":0,\"std\":1e-08}"
       "},{\"case\":\"tiny_moments\",\"param\":\"v\",\"distribution\":{\"kind\":\"abs_normal\",\"std\":1e-16}}]"},
      {"add_rmsnorm_matmul",
       "y = x + z; RMSNorm over K with gain g and eps; then y @ w",
       {{"out", {"M", "N"}}},
       "2*M*N*K",
       "5*M*K + 3*M",
       "4*(M*K + K*N + M*K + K + M*N)",
       "matmul",
       2e-5,
       59,
       "[{\"case\":\"tiny\",\"param\":\"x\",\"distribution\":{\"kind\":\"normal\",\"mean\":0,\"std\":0.0001}},{"
       "\"case\":\"tiny\",\"param\":\"z\",\"distribution\":{\"kind\":\"normal\",\"mean\":0,\"std\":0.0001}}]"},
      {"bmm",
       "batched matmul lhs[B,M,K] @ rhs[B,K,N]",
       {{"out", {"B", "M", "N"}}},
       "2*B*M*N*K",
       "0",
       "4*(B*M*K + B*K*N + B*M*N)",
       "memory",
       2e-5,
       55},
      {"bmm_softmax",
       "batched matmul followed by a softmax over the last axis",
       {{"out", {"B", "M", "N"}}},
       "2*B*M*N*K",
       "5*B*M*N",
       "4*(B*M*K + B*K*N + B*M*N)",
       "vector",
       2e-5,
       39,
       "[{\"case\":\"large_scores\",\"param\":\"lhs\",\"distribution\":{\"kind\":\"normal\",\"mean\":3.0,\"std\":1.0}},"
       "{\"case\":\"large_scores\",\"param\":\"rhs\",\"distribution\":{\"kind\":\"normal\",\"mean\":0.5,\"std\":0.25}}"
       "]"},
      {"gqa_full",
       "grouped-query attention (QH query heads sharing KH key/value heads), full softmax, scale 1/sqrt(D)",
       {{"out", {"B", "QH", "N", "D"}}},
       "4*B*QH*N*N*D",
       "6*B*QH*N*N",
       "4*(B*N*QH*D + 2*B*N*KH*D + B*QH*N*D)",
       "matmul",
       2e-5,
       30,
       "[{\"case\":\"large_scores\",\"param\":\"q\",\"distribution\":{\"kind\":\"normal\",\"mean\":0,\"std\":50.0}}]"},
      {"lora",
       "x @ w + (x @ a) @ b (a LoRA adapter of rank R)",
       {{"out", {"M", "N"}}},
       "2*M*N*K + 2*M*K*R + 2*M*R*N",
       "M*N",
       "4*(M*K + K*N + K*R + R*N + M*N)",
       "matmul",
       2e-5,
       75},
      {"mamba",
       "Mamba-v1 selective scan over M steps, C channels, S states",
       {{"out", {"C", "M"}}},
       "0",
       "8*C*S*M",
       "4*(C*M + C*M + C*S + S*M + S*M + C*M)",
       "vector",
       3e-5,
       28,
       "[{\"case\":\"decaying_state\",\"param\":\"delta\",\"distribution\":{\"kind\":\"uniform\",\"low\":0.001,"
       "\"high\":0.1}},{\"case\":\"decaying_state\",\"param\":\"a\",\"distribution\":{\"kind\":\"uniform\",\"low\":-16."
       "0,\"high\":-1.0}},{\"case\":\"decaying_state\",\"param\":\"u\",\"distribution\":{\"kind\":\"normal\",\"mean\":"
       "0,\"std\":1}},{\"case\":\"decaying_state\",\"param\":\"b\",\"distribution\":{\"kind\":\"normal\",\"mean\":0,"
       "\"std\":1}},{\"case\":\"decaying_state\",\"param\":\"c\",\"distribution\":{\"kind\":\"normal\",\"mean\":0,"
       "\"std\":1}},{\"case\":\"long_memory\",\"param\":\"delta\",\"distribution\":{\"kind\":\"uniform\",\"low\":0.0,"
       "\"high\":0.1}},{\"case\":\"long_memory\",\"param\":\"a\",\"distribution\":{\"kind\":\"uniform\",\"low\":-0.01,"
       "\"high\":0.0}},{\"case\":\"long_memory\",\"param\":\"u\",\"distribution\":{\"kind\":\"normal\",\"mean\":0,"
       "\"std\":1}},{\"case\":\"long_memory\",\"param\":\"b\",\"distribution\":{\"kind\":\"normal\",\"mean\":0,\"std\":"
       "1}},{\"case\":\"long_memory\",\"param\":\"c\",\"distribution\":{\"kind\":\"normal\",\"mean\":0,\"std\":1}}]"},
      {"matmul",
       "lhs[M,K] @ rhs[K,N]",
       {{"out", {"M", "N"}}},
       "2*M*N*K",
       "0",
       "4*(M*K + K*N + M*N)",
       "matmul",
       2e-5,
       62},
      {"matmul_add_rmsnorm",
       "y = x @ w + z; RMSNorm over N with gain g and eps",
       {{"out", {"M", "N"}}},
       "2*M*N*K",
       "5*M*N + 3*M",
       "4*(M*K + K*N + M*N + N + M*N)",
       "matmul",
       2e-5,
       54,
       "[{\"case\":\"tiny\",\"param\":\"x\",\"distribution\":{\"kind\":\"normal\",\"mean\":0,\"std\":1e-05}},{\"case\":"
       "\"tiny\",\"param\":\"z\",\"distribution\":{\"kind\":\"normal\",\"mean\":0,\"std\":1e-05}}]"},
      {"rmsnorm_matmul",
       "RMSNorm over K (no gain, no eps), then @ w",
       {{"out", {"M", "N"}}},
       "2*M*N*K",
       "3*M*K + 2*M",
       "4*(M*K + K*N + M*N)",
       "matmul",
       2e-5,
       69,
       "[{\"case\":\"tiny\",\"param\":\"x\",\"distribution\":{\"kind\":\"normal\",\"mean\":0,\"std\":1e-06}}]"},
      {"rope_single_freq_apply",
       "rotary embedding with precomputed cos/sin tables; x is [D, B*H*N], the tables [D//2, B*H*N]",
       {{"out", {"D", "B*H*N"}}},
       "0",
       "6*(D//2)*B*H*N",
       "4*(D*B*H*N + 2*(D//2)*B*H*N + D*B*H*N)",
       "memory",
       2e-5,
       21},
      {"silu",
       "x / (1 + exp(-x)), elementwise",
       {{"out", {"M", "N"}}},
       "0",
       "3*M*N",
       "4*(2*M*N)",
       "memory",
       2e-5,
       40,
       "[{\"case\":\"large\",\"param\":\"x\",\"distribution\":{\"kind\":\"normal\",\"mean\":0,\"std\":100.0}}]"},
      {"swiglu",
       "(silu(x @ w_gate) * (x @ w_up)) @ w_down",
       {{"out", {"M", "K"}}},
       "6*M*N*K",
       "4*M*N",
       "4*(M*K + K*N + N*K + K*N + M*K)",
       "matmul",
       2e-5,
       77,
       "[{\"case\":\"large_gates\",\"param\":\"x\",\"distribution\":{\"kind\":\"normal\",\"mean\":0,\"std\":10.0}}]"},
      {"transpose_matmul",
       "lhs_t[K,M] transposed, @ rhs[K,N]",
       {{"out", {"M", "N"}}},
       "2*M*N*K",
       "0",
       "4*(K*M + K*N + M*N)",
       "matmul",
       2e-5,
       80},
  };
  return kEntries;
}

const CatalogEntry* FindCatalogEntry(const std::string& name) {
  for (const auto& e : Catalog())
    if (e.name == name) return &e;
  return nullptr;
}

}  // namespace accelopt::eval::nki
