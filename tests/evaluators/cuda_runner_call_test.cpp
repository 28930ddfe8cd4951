// The cuda runner's per-call sequence (evaluators/cuda/harness/runner_call.hpp)
// against the CPU-only fake device (tests/fakes/cuda/fake_device.hpp): the
// order of the copies, the NaN fill and the events, and what it means for a
// kernel that leaves work running, writes its inputs, or faults. This tests
// the runner's logic only; CUDA's own semantics (what the stop event waits
// for) are assumed here and checked by scripts/gpu-check on a GPU.
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <string>
#include <vector>

#include "evaluators/cuda/harness/runner_call.hpp"
#include "tests/fakes/cuda/fake_device.hpp"

namespace {

struct SiluLike {
  accelopt_cuda::fake::FakeDevice dev;
  std::vector<float> x_host = std::vector<float>(8, 2.0f), out_host = std::vector<float>(16, 0.0f);  // 2 output slots
  std::vector<accelopt_cuda::Buffer> bufs;
  float* x_dev = nullptr;
  float* out_dev = nullptr;
  SiluLike() {
    x_dev = static_cast<float*>(dev.Alloc(32));
    out_dev = static_cast<float*>(dev.Alloc(32));
    dev.SetName(x_dev, "x");
    dev.SetName(out_dev, "out");
    bufs.push_back({'i', 32, x_dev, reinterpret_cast<char*>(x_host.data()), 0});
    bufs.push_back({'o', 32, out_dev, reinterpret_cast<char*>(out_host.data()), 32});
  }
  template <typename K>
  bool Call(uint32_t slot, const K& kernel, std::string* why) {
    double ns = 0;
    return accelopt_cuda::CallOnce(dev, bufs, slot, kernel, &ns, why);
  }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(cuda_runner_call)

BOOST_AUTO_TEST_CASE(the_sequence_is_upload_nan_flush_time_download_sync_inputs_back) {
  SiluLike t;
  std::string why;
  bool called = false;
  BOOST_TEST(t.Call(
      1,
      [&] {
        called = true;
        for (int i = 0; i < 8; ++i) t.out_dev[i] = t.x_dev[i] * 3;
      },
      &why));
  BOOST_TEST(called);
  const std::vector<std::string> want = {"upload x", "nan out",      "flush", "start",
                                         "stop",     "download out", "sync",  "download x"};
  BOOST_TEST(t.dev.log == want, boost::test_tools::per_element());
  for (int i = 0; i < 8; ++i) BOOST_TEST(t.out_host[8 + i] == 6.0f);  // slot 1
  for (int i = 0; i < 8; ++i) BOOST_TEST(t.out_host[i] == 0.0f);      // slot 0 untouched
}

BOOST_AUTO_TEST_CASE(outputs_not_written_this_call_come_back_nan) {
  SiluLike t;
  std::string why;
  BOOST_TEST(t.Call(
      0,
      [&] {
        for (int i = 0; i < 8; ++i) t.out_dev[i] = 1.0f;
      },
      &why));
  // Second call writes nothing, hoping the device still holds the first result.
  BOOST_TEST(t.Call(
      0, [] {}, &why));
  for (int i = 0; i < 8; ++i) BOOST_TEST(std::isnan(t.out_host[i]));
}

BOOST_AUTO_TEST_CASE(work_finishing_after_the_stop_event_is_missing_from_the_outputs) {
  SiluLike t;
  std::string why;
  BOOST_TEST(t.Call(
      0,
      [&] {
        t.dev.late_work.push_back([&] {
          for (int i = 0; i < 8; ++i) t.out_dev[i] = 5.0f;
        });
      },
      &why));
  for (int i = 0; i < 8; ++i) BOOST_TEST(std::isnan(t.out_host[i]));  // copied out before the late work ran
  BOOST_TEST(t.dev.late_work.empty());  // but it did run, before the inputs were copied back
}

BOOST_AUTO_TEST_CASE(device_writes_to_inputs_reach_the_judges_copy) {
  SiluLike t;
  std::string why;
  BOOST_TEST(t.Call(
      0,
      [&] {
        t.x_dev[3] = -1.0f;
        for (int i = 0; i < 8; ++i) t.out_dev[i] = 0.5f;
      },
      &why));
  BOOST_TEST(t.x_host[3] == -1.0f);  // the judge compares this with its private copy and fails the kernel
  // And the next call starts from the judge's inputs again, not the modified device copy.
  t.x_host[3] = 2.0f;
  float seen = 0;
  BOOST_TEST(t.Call(
      0, [&] { seen = t.x_dev[3]; }, &why));
  BOOST_TEST(seen == 2.0f);
}

BOOST_AUTO_TEST_CASE(a_device_error_ends_the_call_and_poisons_the_device) {
  SiluLike t;
  t.dev.fail_at = 4;  // "stop": the kernel faulted
  std::string why;
  BOOST_TEST(!t.Call(
      0, [] {}, &why));
  BOOST_TEST(why.find("the kernel (at its stop event): injected device error") == 0, why);
  const size_t ops = t.dev.log.size();
  BOOST_TEST(!t.Call(
      0, [] {}, &why));  // never reused: every later operation fails
  BOOST_TEST(t.dev.log.size() == ops);
  BOOST_TEST(why.find("uploading the inputs") == 0, why);
}

BOOST_AUTO_TEST_SUITE_END()
