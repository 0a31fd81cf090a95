// Which cudaEventRecord call a CUDA event wait waits for (model/importers/cuda/event_waits.h).
#include <gtest/gtest.h>

#include "model/importers/cuda/event_waits.h"

namespace aiprof::model {
namespace {

TEST(CudaEventRecordCalls, ASyncIdNamesTheRecordExactly) {
  CudaEventRecordCalls calls;
  calls.Add({1, 7, 100, 13, 900});
  calls.Add({1, 7, 120, 14, 901});  // the same event recorded again, on another stream
  const CudaEventRecordCall* found = calls.WaitedFor(1, 7, 900, 130);
  ASSERT_NE(found, nullptr);
  EXPECT_EQ(found->correlation, 100u) << "the sync id wins over the later record";
  EXPECT_EQ(found->stream, 13u);
}

TEST(CudaEventRecordCalls, WithoutASyncIdTheEventsLastRecordBeforeTheWait) {
  CudaEventRecordCalls calls;
  calls.Add({1, 7, 120, 14, 0});  // out of order, as CUPTI's buffers may deliver them
  calls.Add({1, 7, 100, 13, 0});
  calls.Add({1, 7, 140, 15, 0});
  calls.Add({2, 7, 125, 16, 0});  // the same event id in another context
  calls.Add({1, 8, 126, 17, 0});  // another event
  ASSERT_NE(calls.WaitedFor(1, 7, 0, 130), nullptr);
  EXPECT_EQ(calls.WaitedFor(1, 7, 0, 130)->correlation, 120u);
  EXPECT_EQ(calls.WaitedFor(1, 7, 0, 110)->correlation, 100u);
  EXPECT_EQ(calls.WaitedFor(2, 7, 0, 130)->stream, 16u);
  // An unknown sync id falls back to the order of the calls.
  EXPECT_EQ(calls.WaitedFor(1, 7, 77, 150)->correlation, 140u);
}

TEST(CudaEventRecordCalls, AWaitBeforeAnyRecordOfItsEventWaitsForNothing) {
  CudaEventRecordCalls calls;
  EXPECT_EQ(calls.WaitedFor(1, 7, 0, 10), nullptr);
  calls.Add({1, 7, 100, 13, 0});
  calls.Add({1, 6, 50, 12, 0});
  EXPECT_EQ(calls.WaitedFor(1, 7, 0, 90), nullptr) << "recorded only after the wait";
  EXPECT_EQ(calls.WaitedFor(1, 9, 0, 200), nullptr) << "never recorded";
  EXPECT_EQ(calls.WaitedFor(0, 7, 0, 200), nullptr);
}

}  // namespace
}  // namespace aiprof::model
