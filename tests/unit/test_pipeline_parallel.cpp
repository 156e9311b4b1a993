// Pipeline stages (sim/workload/pipeline_parallel.h): layers cut into stages of even MACs, every
// layer once per micro-batch on its stage, and sends of exactly the tensors a later stage reads,
// in the order GPipe runs them.
#include <gtest/gtest.h>

#include <string>

#include <fmt/format.h>

#include "core/input_error.h"
#include "tests/unit/split_test_util.h"
#include "sim/mapper/program_order.h"
#include "sim/workload/pipeline_parallel.h"

namespace cstsim {
namespace {

using testing_util::kModels;
using testing_util::macs;

Workload chain(int layers, int64_t M) {
  Workload w;
  w.name = w.source = "chain";
  for (int i = 0; i < layers; ++i) w.layers.push_back(Layer::gemm("fc" + std::to_string(i), M, 64, 64));
  return w;
}

// Four equal layers on four stages, two micro-batches: one layer a stage, each run twice on half
// the rows; stage s receives micro-batch k before its copy k and sends it after.
TEST(PipelineParallel, StagesRunTheirLayersOncePerMicroBatch) {
  const Workload whole = chain(4, 512);
  const std::vector<Workload> stages = split_pipeline(whole, 4, 2, 8);
  ASSERT_EQ(stages.size(), 4u);
  int64_t total = 0;
  for (int s = 0; s < 4; ++s) {
    const Workload& st = stages[size_t(s)];
    EXPECT_EQ(st.pipeline_parallel, 4);
    EXPECT_EQ(st.pipeline_stage, s);
    ASSERT_EQ(st.layers.size(), 2u);
    EXPECT_EQ(st.layers[0].name, "fc" + std::to_string(s) + ".mb0");
    EXPECT_EQ(st.layers[1].name, "fc" + std::to_string(s) + ".mb1");
    EXPECT_EQ(st.layers[1].M, 256);
    EXPECT_FALSE(input_producer(st, 1) == 0);  // micro-batch 1 does not read micro-batch 0's output
    total += macs(st);
    // Receives (stage > 0) before each copy, sends (stage < 3) after it: 16 KiB a micro-batch.
    std::vector<LayerPlan> layers(2);
    const Program program = order_program(st, layer_steps(layers), {}, {}, st.collectives);
    std::vector<std::string> seen;
    size_t at = 0;  // the layers run so far
    for (const Step& step : program.steps) {
      if (step.layer >= 0) ++at;
      if (const CollectiveStep* k = step.as<CollectiveStep>()) {
        const CollectiveKernelPlan& c = k->collective;
        EXPECT_EQ(c.op, "send");
        EXPECT_EQ(c.bytes, 256 * 64);
        EXPECT_EQ(c.id, c.from * 2 + int(c.name[2] - '0'));
        seen.push_back(std::to_string(at) + (c.to == s ? " recv " : " send ") + c.name);
      }
    }
    std::vector<std::string> want;
    for (int k = 0; k < 2; ++k) {
      if (s > 0) want.push_back(fmt::format("{} recv mb{}.stage{}>{}", k, k, s - 1, s));
      if (s < 3) want.push_back(fmt::format("{} send mb{}.stage{}>{}", k + 1, k, s, s + 1));
    }
    EXPECT_EQ(seen, want) << s;
  }
  EXPECT_EQ(total, macs(whole));
}

// The deps across a stage boundary: a micro-batch's first layer waits for its receive (its input
// crossed the link), its send for the layer that made what it carries; micro-batch 1 never waits
// for micro-batch 0's layers.
TEST(PipelineParallel, SendsAndReceivesAreTheDepsAcrossAStage) {
  const std::vector<Workload> stages = split_pipeline(chain(4, 512), 2, 2, 8);
  auto deps = [](const Workload& st) {
    const Program program = order_program(st, layer_steps(std::vector<LayerPlan>(st.layers.size())), {}, {}, st.collectives);
    auto name = [&](const Step& s) { return s.layer >= 0 ? st.layers[size_t(s.layer)].name : s.name; };
    std::vector<std::string> out;
    for (const Step& s : program.steps) {
      std::string line = name(s) + " <-";
      for (int d : s.deps) line += " " + name(program.steps[size_t(d)]);
      out.push_back(line);
    }
    return out;
  };
  EXPECT_EQ(deps(stages[0]), (std::vector<std::string>{"fc0.mb0 <-", "fc1.mb0 <- fc0.mb0", "mb0.stage0>1 <- fc1.mb0",
                                                        "fc0.mb1 <-", "fc1.mb1 <- fc0.mb1", "mb1.stage0>1 <- fc1.mb1"}));
  EXPECT_EQ(deps(stages[1]), (std::vector<std::string>{"mb0.stage0>1 <-", "fc2.mb0 <- mb0.stage0>1", "fc3.mb0 <- fc2.mb0",
                                                        "mb1.stage0>1 <-", "fc2.mb1 <- mb1.stage0>1", "fc3.mb1 <- fc2.mb1"}));
}

// Uneven layers: the cut follows the MACs (one big layer is a stage of its own); fewer layers than
// stages, or micro-batches the batch does not make, are refused.
TEST(PipelineParallel, StagesBalanceMacsAndRefuseWhatCannotSplit) {
  Workload w = chain(4, 512);
  w.layers[0].K = 192;  // fc0: half the MACs
  const std::vector<Workload> two = split_pipeline(w, 2, 1, 8);
  ASSERT_EQ(two[0].layers.size(), 1u);
  ASSERT_EQ(two[0].collectives.size(), 1u);
  EXPECT_EQ(two[1].layers.size(), 3u);
  EXPECT_EQ(two[0].collectives.front().bytes, 512 * 64);  // fc0's output, which fc1 reads
  EXPECT_THROW(split_pipeline(chain(3, 512), 4, 1, 8), InputError);
  try {
    split_pipeline(load_workload(kModels + "llama2-7b-prefill-s512.yaml"), 2, 2, 16);
    FAIL() << "a batch of one in two micro-batches";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("do not split into 2 micro-batches (parallel.micro_batches)"), std::string::npos)
        << e.what();
  }
}

// A Llama block decoding a batch of 8 in two stages of 4 micro-batches: per micro-batch (2 tokens)
// q, k, v, o take 134 M MACs and attention over the 4096-token cache 67 M, the FFN 271 M, so the
// boundary closest to half (236 M) is after o_proj, and what crosses is what stage 1 reads that
// stage 0 made: o_proj's output (the residual add is stage 1's), 2 tokens x 4096 in bf16. Three
// stages cut after gate_proj: the residual stream x2, the normed h2 that up_proj reads and
// gate_proj's output all cross.
TEST(PipelineParallel, WhatCrossesIsWhatTheNextStageReads) {
  const Workload w = load_workload(kModels + "llama2-7b-decode-b8-l4096.yaml");
  const std::vector<Workload> stages = split_pipeline(w, 2, 4, 16);
  EXPECT_EQ(macs(stages[0]) + macs(stages[1]), macs(w));
  ASSERT_EQ(stages[0].collectives.size(), 4u);  // one send a micro-batch
  for (const CollectiveKernelPlan& c : stages[0].collectives) {
    EXPECT_EQ(c.from, 0);
    EXPECT_EQ(c.bytes, 2 * 4096 * 2);
  }
  EXPECT_EQ(stages[0].layers[stages[0].layers.size() / 4 - 1].name, "b0.o_proj.mb0");
  const std::vector<Workload> three = split_pipeline(w, 3, 4, 16);
  EXPECT_EQ(three[1].layers[three[1].layers.size() / 4 - 1].name, "b0.gate_proj.mb0");
  EXPECT_EQ(three[1].collectives.back().bytes, 2 * (2 * 4096 * 2) + 2 * 11008 * 2);  // 76,800 B
}

}  // namespace
}  // namespace cstsim
