// `cstsim plot <run | sweep>`: every figure of a hierarchy run or of a sweep in one command, PNG and
// PDF each, listed on stdout; a directory that is neither is one line and status 2.
#include "tests/sim/cli_fixture.h"

namespace {

class Plot : public Cli {};

TEST_F(Plot, EveryFigureOfAHierarchyRun) {
  if (std::system("/usr/bin/python3 -c 'import matplotlib' >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "/usr/bin/python3 has no matplotlib (Debian package python3-matplotlib)";
  const fs::path a = small_hierarchy("a.yaml");
  const fs::path w = file("w.yaml", "layers:\n  - {name: \"a, the \\\"first\\\"\", M: 200, N: 70, K: 90}\n"
                                    "  - {name: b, M: 64, N: 33, K: 70}\n");
  ASSERT_EQ(cstsim("run -q --arch " + a.string() + " --workload " + w.string() + " --out " + (dir_ / "r").string()).status, 0);
  const Result r = cstsim("plot " + (dir_ / "r").string());
  ASSERT_EQ(r.status, 0) << r.err;
  for (const char* figure : {"rt", "power", "roofline", "layers-stalls", "layers-utilization", "layers-energy",
                             "layers-traffic"})
    for (const char* ext : {".png", ".pdf"}) {
      const fs::path f = dir_ / "r" / "figures" / (std::string(figure) + ext);
      EXPECT_TRUE(fs::is_regular_file(f)) << f;
      EXPECT_GT(fs::is_regular_file(f) ? fs::file_size(f) : 0, 1000u) << f;
      EXPECT_NE(r.out.find(f.string()), std::string::npos) << r.out;
    }
  const Result bad = cstsim("plot " + dir_.string());
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("error: plot: " + dir_.string() + ": no summary.json or results.csv there"), std::string::npos)
      << bad.err;
}

// A figure is replaced only if cstsim plot made it (--force: anything); a link at a figure's name
// is replaced, never written through.
TEST_F(Plot, ReplacesOnlyItsOwnFigures) {
  if (std::system("/usr/bin/python3 -c 'import matplotlib' >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "/usr/bin/python3 has no matplotlib (Debian package python3-matplotlib)";
  const fs::path a = small_hierarchy("a.yaml");
  const fs::path w = file("w.yaml", "layers:\n  - {name: a, M: 64, N: 32, K: 48}\n");
  const fs::path run = dir_ / "r", figures = run / "figures";
  ASSERT_EQ(cstsim("run -q --arch " + a.string() + " --workload " + w.string() + " --out " + run.string()).status, 0);
  ASSERT_EQ(cstsim("plot " + run.string()).status, 0);
  const Result again = cstsim("plot " + run.string());  // its own figures: replaced
  ASSERT_EQ(again.status, 0) << again.err;
  std::ofstream(figures / "rt.png") << "my figure\n";
  const Result refused = cstsim("plot " + run.string());
  EXPECT_EQ(refused.status, 2);
  EXPECT_EQ(refused.err, "error: " + (figures / "rt.png").string() +
                             ": plot: exists and is not a figure written by cstsim plot; choose another --out, or "
                             "--force to replace it\n");
  EXPECT_EQ(slurp(figures / "rt.png"), "my figure\n");
  const fs::path victim = file("victim.txt", "victim\n");
  fs::remove(figures / "power.pdf");
  fs::create_symlink(victim, figures / "power.pdf");
  const Result forced = cstsim("plot " + run.string() + " --force");
  ASSERT_EQ(forced.status, 0) << forced.err;
  EXPECT_EQ(slurp(victim), "victim\n");  // the link was replaced, not written through
  EXPECT_FALSE(fs::is_symlink(figures / "power.pdf"));
  EXPECT_NE(slurp(figures / "rt.png"), "my figure\n");
  for (const auto& e : fs::directory_iterator(figures))
    EXPECT_EQ(e.path().filename().string().find(".tmp-"), std::string::npos) << e.path();
}

// A script that fails (here: a stand-in interpreter dying with a traceback, as on a full disk) is
// one error line, exit 2, and no figure at all: the others were drawn into the staging directory.
TEST_F(Plot, AFailedScriptIsOneLineAndWritesNothing) {
  const fs::path a = small_hierarchy("a.yaml");
  const fs::path w = file("w.yaml", "layers:\n  - {name: a, M: 64, N: 32, K: 48}\n");
  const fs::path run = dir_ / "r";
  ASSERT_EQ(cstsim("run -q --arch " + a.string() + " --workload " + w.string() + " --out " + run.string()).status, 0);
  // Draws its "figure" for every script but the roofline's, which dies as Python does.
  const fs::path fake = file("python", "#!/bin/sh\ncase \"$1\" in *plot_roofline.py) "
                                       "printf 'Traceback (most recent call last):\\n  File x\\nOSError: [Errno 28] No "
                                       "space left on device\\n' >&2; exit 1;; esac\n"
                                       "out=\"$4\"; echo x > \"$out.png\"; echo x > \"$out.pdf\"\n");
  fs::permissions(fake, fs::perms::owner_all);
  const Result r = cstsim("plot " + run.string(), "CSTSIM_PYTHON=" + fake.string());
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "error: plot: plot_roofline.py failed: OSError: [Errno 28] No space left on device\n");
  EXPECT_FALSE(fs::exists(run / "figures")) << "figures or their directory left behind";
}

// On a sweep: metrics against the swept size (one line per dataflow), the Pareto front, the roofline.
TEST_F(Plot, EveryFigureOfASweep) {
  if (std::system("/usr/bin/python3 -c 'import matplotlib' >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "/usr/bin/python3 has no matplotlib (Debian package python3-matplotlib)";
  const Result sweep = cstsim("sweep " + src("configs/sweeps/ci-small.yaml") + " --jobs 1 --out " + (dir_ / "s").string());
  ASSERT_EQ(sweep.status, 0) << sweep.err;
  const Result r = cstsim("plot " + (dir_ / "s").string());
  ASSERT_EQ(r.status, 0) << r.err;
  for (const char* figure : {"lines", "pareto", "roofline"})
    for (const char* ext : {".png", ".pdf"}) {
      const fs::path f = dir_ / "s" / "figures" / (std::string(figure) + ext);
      EXPECT_TRUE(fs::is_regular_file(f)) << f;
      EXPECT_NE(r.out.find(f.string()), std::string::npos) << r.out;
    }
  // Progress, a line before each script, in order.
  const size_t a = r.out.find("plot: [1/3] lines\n"), b = r.out.find("plot: [2/3] pareto\n"),
               c = r.out.find("plot: [3/3] roofline\n");
  EXPECT_TRUE(a != std::string::npos && b != std::string::npos && c != std::string::npos && a < b && b < c) << r.out;
}

}  // namespace
